//! Gemini calls coming back (providers.md §4c), for both `gemini` and
//! `gemini-json`: `functionCall` parts of `candidates[i].content.parts`,
//! `{"functionCall": {"id"?, "name", "args": {…}}, "thoughtSignature"?}`.
//!
//! `id` is often absent (synthesised then; a result must not send one back).
//! `thoughtSignature` is a sibling of `functionCall` on the part and must go
//! back exactly, on the same part: it is kept in the extras with the part's
//! other keys, never merged or joined with anything (BerriAI/litellm #25869
//! corrupted it while merging chunks). A stream (`streamGenerateContent?alt=sse`)
//! sends each `functionCall` part whole in one chunk.
//!
//! Vertex with `streamFunctionCallArguments` streams a call in pieces
//! instead (providers.md §4c): the first `functionCall` has the `name` (and
//! `id`), then each has `partialArgs: [{jsonPath, stringValue | numberValue
//! | boolValue | nullValue}]` and `willContinue: true` until the last, which
//! has `willContinue` false or absent (or is an empty `functionCall`, the
//! end marker); a `stringValue` at the path of the string being written
//! continues it. Read from google/adk-js `StreamingResponseAggregator`
//! (`processStreamingFunctionCall`, `getValueFromPartialArg`). The pieces
//! become JSON text written in document order (see [`PathWriter`]), so the
//! call gets the same `ArgumentsDelta`s, with changes, as any other
//! provider's; a path that goes back to a member already written cannot be
//! written in order, and the call then ends with the value put together
//! path by path, replacing the text, with a note.
//!
//! (Beside `gemini.rs`, to be moved into a `gemini/` folder.)

use serde_json::{Map, Value};

use crate::call::read::{choice, extras, invalid_response, provider_error, Collector, Sent};
use crate::call::{CallOptions, Calls, Decode, Expect, Fragment, Framing, Opened, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::Node;
use crate::note::Converted;

/// The keys of a `functionCall` that are read (the rest are extras).
const CALL_KEYS: [&str; 3] = ["id", "name", "args"];

/// Reads the calls of a `GenerateContentResponse` (candidate
/// `opts.choice`), of a `Content` (`parts`) or of a list of parts.
pub(crate) fn read_calls(response: &Value, opts: &CallOptions) -> Result<Converted<Vec<ToolCall>>> {
    let root = Node::root(response);
    let mut collector = Collector::new(opts);
    let parts = match response {
        Value::Array(_) => Some(root.clone()),
        Value::Object(object) if object.contains_key("candidates") => {
            let candidates = invalid_response(invalid_response(root.field("candidates"))?.array())?;
            match choice(candidates, opts.choice) {
                Some(candidate) => match candidate.get("content") {
                    Some(content) => content.get("parts"),
                    None => None,
                },
                None => None,
            }
        }
        Value::Object(object) if object.contains_key("parts") => root.get("parts"),
        Value::Object(object) if object.contains_key("error") => return Err(provider_error(response)),
        _ => {
            return Err(Error::new(
                ErrorKind::InvalidResponse,
                "not a Gemini response: no \"candidates\" and no content \"parts\"",
            ))
        }
    };
    for part in parts
        .map(|parts| invalid_response(parts.array()))
        .transpose()?
        .unwrap_or_default()
    {
        invalid_response(part.object())?;
        let Some(call) = part.get("functionCall") else {
            continue;
        };
        invalid_response(call.object())?;
        collector.push(Sent {
            at: call.at.clone(),
            id: call.get("id"),
            name: call.get("name"),
            arguments: call.value.get("args"),
            arguments_at: call.at.key("args"),
            expect: Expect::OptionalObject,
            extras: extras(&part, &["functionCall"], Some(("functionCall", &CALL_KEYS))),
        })?;
    }
    Ok(collector.finish())
}

/// The keys of a streamed `functionCall` that are read.
const STREAMED_KEYS: [&str; 5] = ["id", "name", "args", "partialArgs", "willContinue"];

/// The `streamGenerateContent` chunk decoder: whole calls in part order,
/// and Vertex's streamed calls piece by piece.
#[derive(Debug, Default)]
pub(crate) struct ChunkStream {
    /// The Vertex call being streamed: its key for [`Calls`] and its writer.
    streaming: Option<(u64, PathWriter)>,
    /// The key of the next streamed call.
    next_key: u64,
}

impl Decode for ChunkStream {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn event(&mut self, _name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()> {
        if data.get("error").is_some_and(|error| !error.is_null()) {
            return Err(provider_error(data));
        }
        let Some(candidates) = data.get("candidates").and_then(Value::as_array) else {
            return Ok(());
        };
        let wanted = calls.options().choice;
        let indexed = candidates
            .iter()
            .any(|candidate| candidate.get("index").is_some());
        let candidate = candidates.iter().enumerate().find(|(position, candidate)| {
            match candidate.get("index").and_then(Value::as_u64) {
                Some(index) => index == wanted as u64,
                None => !indexed && *position == wanted,
            }
        });
        let Some((_, candidate)) = candidate else {
            return Ok(());
        };
        let parts = candidate
            .get("content")
            .and_then(|content| content.get("parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            let Some(call) = part.get("functionCall") else {
                continue;
            };
            let named = call
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|name| !name.is_empty());
            let streamed = call.get("partialArgs").is_some()
                || call.get("willContinue").and_then(Value::as_bool) == Some(true);
            let empty = !named && call.get("args").is_none() && call.get("id").is_none();
            if streamed || (self.streaming.is_some() && !named) {
                self.piece(part, call, calls)?;
                continue;
            }
            if empty {
                // An empty `functionCall` with no call streaming ends nothing
                // and carries nothing.
                continue;
            }
            if let Some((key, writer)) = self.streaming.take() {
                end(key, writer, None, calls)?;
            }
            let mut kept: Map<String, Value> = part
                .as_object()
                .map(|object| {
                    object
                        .iter()
                        .filter(|(key, _)| key.as_str() != "functionCall")
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(object) = call.as_object() {
                let inner: Map<String, Value> = object
                    .iter()
                    .filter(|(key, _)| !CALL_KEYS.contains(&key.as_str()))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                if !inner.is_empty() {
                    kept.insert("functionCall".into(), Value::Object(inner));
                }
            }
            calls.whole(
                call.get("id").and_then(Value::as_str),
                call.get("name").and_then(Value::as_str),
                call.get("args"),
                Expect::OptionalObject,
                kept,
            )?;
        }
        Ok(())
    }
}

impl ChunkStream {
    /// One piece of a Vertex streamed call.
    fn piece(&mut self, part: &Value, call: &Value, calls: &mut Calls) -> Result<()> {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty());
        let extras = streamed_extras(part, call);
        let (key, writer) = match self.streaming.take() {
            // A name starts a new call: the one before has ended.
            Some((key, writer)) if name.is_some() => {
                end(key, writer, None, calls)?;
                self.open(name, call, extras.clone(), calls)?
            }
            Some(open) => open,
            None => self.open(name, call, extras.clone(), calls)?,
        };
        let mut writer = writer;
        let mut text = String::new();
        for (position, piece) in call
            .get("partialArgs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let bad = |what: &str| {
                Error::new(
                    ErrorKind::InvalidResponse,
                    format!("functionCall.partialArgs[{position}] {what}"),
                )
            };
            let path = piece
                .get("jsonPath")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("has no \"jsonPath\""))?;
            let steps = parse_path(path).ok_or_else(|| {
                bad(&format!(
                    "has the jsonPath {path:?}, which is not a path from $ to a member"
                ))
            })?;
            let value = if let Some(chunk) = piece.get("stringValue") {
                Piece::Text(
                    chunk
                        .as_str()
                        .ok_or_else(|| bad("has a stringValue that is not a string"))?,
                )
            } else if let Some(number) = piece.get("numberValue") {
                if !number.is_number() {
                    return Err(bad("has a numberValue that is not a number"));
                }
                Piece::Value(number.clone())
            } else if let Some(flag) = piece.get("boolValue") {
                Piece::Value(Value::Bool(
                    flag.as_bool()
                        .ok_or_else(|| bad("has a boolValue that is not a boolean"))?,
                ))
            } else if piece.get("nullValue").is_some() {
                Piece::Value(Value::Null)
            } else {
                // No value at all (as google/adk-js skips it): nothing to write.
                continue;
            };
            writer.write(&steps, value, &mut text);
        }
        let done = call.get("willContinue").and_then(Value::as_bool) != Some(true);
        calls.fragment(Fragment {
            key: Some(key),
            arguments: (!text.is_empty()).then_some(&Value::String(text)),
            extras,
            ..Fragment::default()
        })?;
        if done {
            end(key, writer, call.get("args"), calls)?;
        } else {
            self.streaming = Some((key, writer));
        }
        Ok(())
    }

    /// Opens the next streamed call.
    fn open(
        &mut self,
        name: Option<&str>,
        call: &Value,
        extras: Map<String, Value>,
        calls: &mut Calls,
    ) -> Result<(u64, PathWriter)> {
        let key = self.next_key;
        self.next_key += 1;
        calls.open(Opened {
            key: Some(key),
            id: call.get("id").and_then(Value::as_str),
            name,
            extras,
            fallback: None,
            choice: None,
        })?;
        Ok((key, PathWriter::default()))
    }
}

/// Ends a streamed call: the containers still open are closed; when its
/// pieces came out of document order, or its last piece carried the whole
/// `args`, that value settles the text.
fn end(key: u64, mut writer: PathWriter, args: Option<&Value>, calls: &mut Calls) -> Result<()> {
    let mut text = String::new();
    writer.finish(&mut text);
    if !text.is_empty() {
        calls.append(key, &Value::String(text))?;
    }
    match (args, writer.in_order) {
        (Some(args), _) => {
            calls.settle(key, &args.to_string())?;
        }
        (None, false) => {
            calls.settle(key, &writer.value.to_string())?;
        }
        (None, true) => {}
    }
    calls.close(key)?;
    Ok(())
}

/// The part's and the `functionCall`'s members to echo back
/// (`thoughtSignature` above all).
fn streamed_extras(part: &Value, call: &Value) -> Map<String, Value> {
    let mut kept: Map<String, Value> = part
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| key.as_str() != "functionCall")
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let inner: Map<String, Value> = call
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !STREAMED_KEYS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if !inner.is_empty() {
        kept.insert("functionCall".into(), Value::Object(inner));
    }
    kept
}

/// One step of a Vertex `jsonPath`.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// `$.a.b[0]`, `$['a.b']`, `$["a"][1]`: the steps from the root; `None`
/// for anything else (the root itself included: arguments are an object).
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let quote = after.chars().next().filter(|c| *c == '\'' || *c == '"');
            if let Some(quote) = quote {
                let mut key = String::new();
                let mut chars = after[1..].char_indices();
                let close = loop {
                    match chars.next()? {
                        (_, '\\') => key.push(chars.next()?.1),
                        (at, c) if c == quote => break at,
                        (_, c) => key.push(c),
                    }
                };
                steps.push(Step::Key(key));
                rest = after[1 + close + 1..].strip_prefix(']')?;
            } else {
                let end = after.find(']')?;
                let digits = &after[..end];
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                steps.push(Step::Index(digits.parse().ok()?));
                rest = &after[end + 1..];
            }
        } else {
            return None;
        }
    }
    (!steps.is_empty()).then_some(steps)
}

/// A value of one `partialArgs` piece.
#[derive(Debug)]
enum Piece<'a> {
    /// A `stringValue` chunk: starts a string, or continues the open one.
    Text(&'a str),
    /// A number, boolean or null.
    Value(Value),
}

/// A container the writer has open: an object with the keys written so
/// far, or an array with its length.
#[derive(Debug)]
struct Container {
    keys: Option<Vec<String>>,
    len: usize,
}

impl Container {
    fn new(step: &Step) -> Container {
        Container {
            keys: matches!(step, Step::Key(_)).then(Vec::new),
            len: 0,
        }
    }

    /// The step of the member being written, if any.
    fn current(&self) -> Option<Step> {
        match &self.keys {
            Some(keys) => keys.last().cloned().map(Step::Key),
            None => self.len.checked_sub(1).map(Step::Index),
        }
    }

    /// True if `step` can be the next member.
    fn takes(&self, step: &Step) -> bool {
        match (&self.keys, step) {
            (Some(keys), Step::Key(key)) => !keys.contains(key),
            (None, Step::Index(index)) => *index == self.len,
            _ => false,
        }
    }
}

/// Writes Vertex's `partialArgs` pieces as JSON text, in document order,
/// leaving the last string open for more chunks; and keeps the value they
/// make, path by path, for a stream that leaves document order.
#[derive(Debug)]
struct PathWriter {
    /// The open containers, the root object first (none before the first piece).
    open: Vec<Container>,
    /// The path of the string left open.
    string: Option<Vec<Step>>,
    /// False once a piece could not be written in order: the text stops.
    in_order: bool,
    /// The value the pieces make.
    value: Value,
}

impl Default for PathWriter {
    fn default() -> PathWriter {
        PathWriter {
            open: Vec::new(),
            string: None,
            in_order: true,
            value: Value::Object(Map::new()),
        }
    }
}

impl PathWriter {
    /// Writes `piece` at `path`, its text appended to `out`.
    fn write(&mut self, path: &[Step], piece: Piece<'_>, out: &mut String) {
        self.set(path, &piece);
        if !self.in_order {
            return;
        }
        if let (Piece::Text(chunk), Some(open)) = (&piece, &self.string) {
            if open.as_slice() == path {
                push_escaped(out, chunk);
                return;
            }
        }
        // The containers open along the path; the member to add is path[depth].
        let mut depth = 0;
        while depth + 1 < self.open.len()
            && depth + 1 < path.len()
            && self.open[depth].current().as_ref() == Some(&path[depth])
        {
            depth += 1;
        }
        let fits = match self.open.get(depth) {
            Some(container) => container.takes(&path[depth]),
            None => matches!(path[0], Step::Key(_)),
        } && path[depth + 1..]
            .iter()
            .all(|step| matches!(step, Step::Key(_) | Step::Index(0)));
        if !fits {
            self.in_order = false;
            return;
        }
        if self.string.take().is_some() {
            out.push('"');
        }
        if self.open.is_empty() {
            out.push('{');
            self.open.push(Container::new(&path[0]));
        }
        while self.open.len() > depth + 1 {
            self.close_last(out);
        }
        for (at, step) in path.iter().enumerate().skip(depth) {
            if at > depth {
                out.push(if matches!(step, Step::Key(_)) { '{' } else { '[' });
                self.open.push(Container::new(step));
            }
            let Some(container) = self.open.last_mut() else {
                return;
            };
            if container.len > 0 {
                out.push(',');
            }
            container.len += 1;
            if let (Some(keys), Step::Key(key)) = (&mut container.keys, step) {
                push_escaped_key(out, key);
                keys.push(key.clone());
            }
        }
        match piece {
            Piece::Text(chunk) => {
                out.push('"');
                push_escaped(out, chunk);
                self.string = Some(path.to_vec());
            }
            Piece::Value(value) => out.push_str(&value.to_string()),
        }
    }

    /// Closes the open string and containers.
    fn finish(&mut self, out: &mut String) {
        if self.in_order {
            if self.string.take().is_some() {
                out.push('"');
            }
            while !self.open.is_empty() {
                self.close_last(out);
            }
        }
    }

    fn close_last(&mut self, out: &mut String) {
        if let Some(container) = self.open.pop() {
            out.push(if container.keys.is_some() { '}' } else { ']' });
        }
    }

    /// Puts `piece` into the value at `path`, making the containers on the
    /// way (an array grown to the index with nulls); a string chunk at a
    /// string appends to it.
    fn set(&mut self, path: &[Step], piece: &Piece<'_>) {
        let mut place = &mut self.value;
        for step in path {
            place = match step {
                Step::Key(key) => {
                    if !place.is_object() {
                        *place = Value::Object(Map::new());
                    }
                    let Value::Object(members) = place else { return };
                    members.entry(key.clone()).or_insert(Value::Null)
                }
                Step::Index(index) => {
                    if !place.is_array() {
                        *place = Value::Array(Vec::new());
                    }
                    let Value::Array(items) = place else { return };
                    if items.len() <= *index {
                        items.resize(index + 1, Value::Null);
                    }
                    &mut items[*index]
                }
            };
        }
        match (piece, place) {
            (Piece::Text(chunk), Value::String(text)) => text.push_str(chunk),
            (Piece::Text(chunk), place) => *place = Value::String(chunk.to_string()),
            (Piece::Value(value), place) => *place = value.clone(),
        }
    }
}

/// `text` as the inside of a JSON string.
fn push_escaped(out: &mut String, text: &str) {
    let quoted = Value::String(text.to_string()).to_string();
    out.push_str(&quoted[1..quoted.len() - 1]);
}

/// `"key":`.
fn push_escaped_key(out: &mut String, key: &str) {
    out.push('"');
    push_escaped(out, key);
    out.push_str("\":");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_function_call_parts_and_keeps_the_signature_on_its_call() {
        let response = json!({"candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model",
            "parts": [
                {"text": "Let me check."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                 "thoughtSignature": "CiQB0e2Kb+/x=="},
                {"functionCall": {"id": "fc_2", "name": "get_time", "args": {"tz": "CET"}}}]}}]});
        let calls = read_calls(&response, &CallOptions::default()).unwrap().value;
        assert_eq!(
            (calls[0].id.as_str(), calls[0].provider_id.as_deref()),
            ("call_0", None)
        );
        assert_eq!(
            Value::Object(calls[0].extras.clone()),
            json!({"thoughtSignature": "CiQB0e2Kb+/x=="})
        );
        assert_eq!((calls[1].id.as_str(), calls[1].extras.len()), ("fc_2", 0));
        assert_eq!(calls[1].arguments, Ok(json!({"tz": "CET"})));
    }

    #[test]
    fn json_paths() {
        use Step::{Index, Key};
        let key = |k: &str| Key(k.to_string());
        assert_eq!(parse_path("$.a"), Some(vec![key("a")]));
        assert_eq!(
            parse_path("$.foo.bar[0][12]"),
            Some(vec![key("foo"), key("bar"), Index(0), Index(12)])
        );
        assert_eq!(
            parse_path(r#"$['a.b']["c'd"]['e\'f'].g"#),
            Some(vec![key("a.b"), key("c'd"), key("e'f"), key("g")])
        );
        for bad in [
            "", "$", "a", "$.", "$..a", "$[x]", "$[-1]", "$['a'", "$['a'x]", "$[1",
        ] {
            assert_eq!(parse_path(bad), None, "{bad}");
        }
    }

    /// The chunks of one streamed call, each `(pieces, willContinue)`.
    fn streamed(chunks: &[(Value, bool)], end_args: Option<Value>) -> Vec<crate::call::CallEvent> {
        let mut assembler = crate::Format::Gemini.assembler(&CallOptions::default()).unwrap();
        let mut out = Vec::new();
        for (at, (pieces, more)) in chunks.iter().enumerate() {
            let mut call = json!({"partialArgs": pieces, "willContinue": more});
            if at == 0 {
                call["name"] = json!("f");
            }
            if let (false, Some(args)) = (*more, &end_args) {
                call["args"] = args.clone();
            }
            let chunk = json!({"candidates": [{"content": {"parts": [{"functionCall": call}]}}]});
            assembler.push(None, &chunk, &mut out).unwrap();
        }
        assembler.finish(&mut out).unwrap();
        out
    }

    fn finished(events: &[crate::call::CallEvent]) -> &ToolCall {
        events
            .iter()
            .find_map(|event| match event {
                crate::call::CallEvent::Finished { call, .. } => Some(call),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn pieces_out_of_document_order_end_with_the_value_they_make() {
        let events = streamed(
            &[
                (json!([{"jsonPath": "$.a.x", "stringValue": "1"}]), true),
                (json!([{"jsonPath": "$.b", "numberValue": 2}]), true),
                (
                    json!([{"jsonPath": "$.a.y", "boolValue": true}, {"jsonPath": "$.a.x", "stringValue": "2"}]),
                    false,
                ),
            ],
            None,
        );
        let call = finished(&events);
        assert_eq!(call.arguments, Ok(json!({"a": {"x": "12", "y": true}, "b": 2})));
        assert_eq!(
            call.raw_arguments.as_deref(),
            Some(r#"{"a":{"x":"12","y":true},"b":2}"#)
        );
        assert_eq!(
            call.notes[0].message,
            "the final arguments differ from the streamed fragments; the final ones were kept"
        );
        assert!(events
            .iter()
            .any(|event| matches!(event, crate::call::CallEvent::ArgumentsReplaced { .. })));
    }

    #[test]
    fn whole_args_on_the_last_piece_are_the_final_word() {
        let events = streamed(
            &[
                (json!([{"jsonPath": "$.a", "stringValue": "x"}]), true),
                (json!([]), false),
            ],
            Some(json!({"a": "x"})),
        );
        let call = finished(&events);
        assert_eq!(
            (call.arguments.clone(), call.notes.len()),
            (Ok(json!({"a": "x"})), 0)
        );
        let events = streamed(
            &[(json!([{"jsonPath": "$.a", "stringValue": "x"}]), false)],
            Some(json!({"a": "y"})),
        );
        assert_eq!(finished(&events).arguments, Ok(json!({"a": "y"})));
        assert_eq!(finished(&events).notes.len(), 1);
    }

    #[test]
    fn a_new_name_ends_the_call_before_and_the_stream_end_leaves_it_unfinished() {
        let mut assembler = crate::Format::Gemini.assembler(&CallOptions::default()).unwrap();
        let mut out = Vec::new();
        for call in [
            json!({"name": "f", "partialArgs": [{"jsonPath": "$.a", "numberValue": 1}], "willContinue": true}),
            json!({"name": "g", "partialArgs": [{"jsonPath": "$.b", "stringValue": "x"}], "willContinue": true}),
        ] {
            let chunk = json!({"candidates": [{"content": {"parts": [{"functionCall": call}]}}]});
            assembler.push(None, &chunk, &mut out).unwrap();
        }
        assembler.finish(&mut out).unwrap();
        let calls: Vec<_> = out
            .iter()
            .filter_map(|event| match event {
                crate::call::CallEvent::Finished { call, .. } => Some(call),
                _ => None,
            })
            .collect();
        assert_eq!(calls[0].arguments, Ok(json!({"a": 1})));
        let err = calls[1].arguments.as_ref().unwrap_err();
        assert_eq!(
            (err.kind(), err.raw()),
            (crate::call::ArgumentsErrorKind::Unfinished, r#"{"b":"x"#)
        );
    }

    #[test]
    fn malformed_pieces_are_errors_naming_the_piece() {
        for (piece, message) in [
            (json!({"stringValue": "x"}), "invalid response: functionCall.partialArgs[0] has no \"jsonPath\""),
            (
                json!({"jsonPath": "a.b", "stringValue": "x"}),
                "invalid response: functionCall.partialArgs[0] has the jsonPath \"a.b\", which is not a path from $ to a member",
            ),
            (
                json!({"jsonPath": "$.a", "numberValue": "1"}),
                "invalid response: functionCall.partialArgs[0] has a numberValue that is not a number",
            ),
        ] {
            let mut assembler = crate::Format::Gemini.assembler(&CallOptions::default()).unwrap();
            let chunk = json!({"candidates": [{"content": {"parts": [{"functionCall":
                {"name": "f", "partialArgs": [piece], "willContinue": true}}]}}]});
            let err = assembler.push(None, &chunk, &mut Vec::new()).unwrap_err();
            assert_eq!(err.to_string(), message);
        }
    }

    #[test]
    fn errors_and_other_documents() {
        let err = read_calls(
            &json!({"error": {"code": 400, "message": "bad"}}),
            &CallOptions::default(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ProviderError);
        let calls = read_calls(
            &json!({"candidates": [{"finishReason": "SAFETY"}]}),
            &CallOptions::default(),
        );
        assert!(calls.unwrap().value.is_empty());
    }
}
