//! What every family's parser shares: the output being built (prose, calls,
//! notes), the extent of a JSON value in text, and arguments read from text.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::call::{fit_parsed, repair, ArgumentsError, ArgumentsErrorKind, ToolCall};
use crate::limits::Limits;
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;
use crate::tool::Tool;

use super::envelope::{name_by, unused_id, EnvelopeHead, EnvelopeKeys, ExactEnvelope};
use super::tags::{scan_tags, Finder};
use super::Family;

/// The prose, calls and notes of one text, as the family's parser finds them.
pub(super) struct Out<'a> {
    pub prose: String,
    pub calls: Vec<ToolCall>,
    pub notes: Vec<Note>,
    pub family: Family,
    pub limits: &'a Limits,
    tools: Option<&'a [Tool]>,
    refused: usize,
    /// The ids given so far, so that making one unique stays constant-time
    /// however many calls (up to `max_tools`) the text holds.
    ids: HashSet<String>,
    /// For an id given more than once, the suffix to try first for its
    /// next call (every lower one is taken), so that a thousand calls under
    /// one id stay linear.
    suffixes: HashMap<String, usize>,
    /// For each call, whether its `raw_arguments` is JSON text that reads
    /// as its arguments exactly (nothing repaired or typed): a stream can
    /// then send the model's own text instead of writing the value out.
    pub exact_raw: Vec<bool>,
    /// The argument texts of the region being parsed that a stream read
    /// while the region was open: `streamed[k]` is the call numbered
    /// `streamed_from + k`.
    pub streamed: Vec<Streamed>,
    pub streamed_from: usize,
}

/// One call's argument text as a stream read it while its region was open,
/// with the value its partial parser built when the text closed. The
/// region's parse takes the value instead of reading the same text again
/// when the text it reads for that call is this one.
pub(super) struct Streamed {
    pub text: String,
    pub value: Option<Value>,
    /// Whether the parse took `value`.
    pub taken: bool,
}

impl<'a> Out<'a> {
    pub fn new(family: Family, tools: Option<&'a [Tool]>, limits: &'a Limits) -> Out<'a> {
        Out {
            prose: String::new(),
            calls: Vec::new(),
            notes: Vec::new(),
            family,
            limits,
            tools,
            refused: 0,
            ids: HashSet::new(),
            suffixes: HashMap::new(),
            exact_raw: Vec::new(),
            streamed: Vec::new(),
            streamed_from: 0,
        }
    }

    /// The input schema of the tool named `name`, when tools were given.
    pub fn schema(&self, name: &str) -> Option<&'a Value> {
        self.tools?
            .iter()
            .find(|tool| tool.name == name)
            .map(|tool| &tool.input_schema)
    }

    /// The tools given (none when no tools were).
    pub fn tools(&self) -> &'a [Tool] {
        self.tools.unwrap_or_default()
    }

    /// Markup that holds no readable call: kept in the prose, with a note
    /// saying why it is not a call.
    pub fn not_a_call(&mut self, markup: &str, text: &str, why: &str) {
        self.prose.push_str(text);
        self.notes.push(Note::new(
            NoteKind::Unsupported {
                keyword: markup.into(),
            },
            Pointer::root(),
            format!(
                "{} markup {} was kept in the prose: {why}",
                self.family,
                excerpt(text)
            ),
        ));
    }

    /// A call whose arguments are the JSON text `raw` (repaired and fitted to
    /// the tool's schema, each fix noted under `/arguments`).
    pub fn call_text(&mut self, name: &str, id: Option<&str>, raw: &str, notes: Vec<Note>) {
        let arguments = match self.take_streamed(raw) {
            Some(value) => self.arguments_from_value(name, value, raw),
            None => self.arguments_from_text(name, raw),
        };
        let exact = matches!(&arguments, Ok((_, fixes)) if fixes.is_empty());
        self.add(name, id, arguments, Some(raw.to_string()), notes, exact);
    }

    /// A call whose arguments were already read as a value: fitted to the
    /// tool's schema when there is one.
    pub fn call_value(&mut self, name: &str, id: Option<&str>, arguments: Value, notes: Vec<Note>) {
        let arguments = self.fitted(name, arguments);
        self.push(name, id, arguments, None, notes);
    }

    /// A call whose arguments were read from the model's markup (`raw`),
    /// value by value: fitted as [`call_value`](Out::call_value) fits them.
    pub fn call_fitted(&mut self, name: &str, arguments: Map<String, Value>, raw: String, notes: Vec<Note>) {
        let arguments = self.fitted(name, Value::Object(arguments));
        self.push(name, None, arguments, Some(raw), notes);
    }

    /// `arguments` fitted to the schema of the tool `name`, when there is
    /// one, with the fixes' notes; arguments nested deeper than the limits
    /// allow are read through repair, which says where.
    fn fitted(&self, name: &str, mut arguments: Value) -> Result<(Value, Vec<Note>), ArgumentsError> {
        match (self.schema(name), &arguments) {
            (Some(schema), Value::Object(_)) => match fit_parsed(&mut arguments, schema, self.limits) {
                Some(fixes) => Ok((arguments, under_arguments(fixes))),
                None => self.arguments_from_text(name, &arguments.to_string()),
            },
            (_, Value::Object(_)) => Ok((arguments, Vec::new())),
            _ => Err(ArgumentsError::new(
                ArgumentsErrorKind::NotAnObject,
                format!("the arguments are {}, not an object", json_type(&arguments)),
                arguments.to_string(),
            )),
        }
    }

    /// A call from envelope JSON that reads as it stands (see
    /// [`ExactEnvelope`]), its arguments kept as the model wrote them (so a
    /// stream sends the model's own text). Anything else — JSON that needs
    /// repair, arguments sent as a string — gives `notes` back for
    /// [`call_envelope`](Out::call_envelope) to read through repair.
    pub fn call_exact_envelope(
        &mut self,
        json: &str,
        notes: Vec<Note>,
        keys: EnvelopeKeys,
    ) -> Result<(), Vec<Note>> {
        match ExactEnvelope::read(json, keys) {
            Some(envelope) => {
                self.call_exact(envelope, notes);
                Ok(())
            }
            None => Err(notes),
        }
    }

    /// [`call_exact_envelope`](Out::call_exact_envelope) for an envelope
    /// whose argument object is at byte `at` of `json`: when a stream's
    /// partial parser read that object already, the envelope around it is
    /// read with `{}` in its place, not read again.
    fn call_exact_envelope_at(
        &mut self,
        json: &str,
        at: usize,
        notes: Vec<Note>,
        keys: EnvelopeKeys,
    ) -> Result<(), Vec<Note>> {
        let lent = json
            .get(at..)
            .and_then(|rest| self.lent(rest))
            .filter(|streamed| streamed.value.as_ref().is_some_and(Value::is_object))
            .map(|streamed| streamed.text.len());
        let Some(len) = lent else {
            return self.call_exact_envelope(json, notes, keys);
        };
        let mut shell = String::with_capacity(json.len() - len + 2);
        shell.push_str(&json[..at]);
        shell.push_str("{}");
        shell.push_str(&json[at + len..]);
        match ExactEnvelope::read(&shell, keys) {
            Some(mut envelope) => {
                envelope.arguments = &json[at..at + len];
                self.call_exact(envelope, notes);
                Ok(())
            }
            None => Err(notes),
        }
    }

    /// The call of an envelope read as it stands.
    fn call_exact(&mut self, envelope: ExactEnvelope<'_>, mut notes: Vec<Note>) {
        if let Some(unused) = &envelope.unused_id {
            notes.push(unused_id(unused));
        }
        self.call_text(&envelope.name, envelope.id.as_deref(), envelope.arguments, notes);
    }

    /// The call an envelope names by its head (see
    /// [`envelope`](super::envelope)), its argument object at byte `at` of
    /// `json`: read as it stands, else repaired and named by the head, else
    /// — the JSON around the arguments broken — from the head's name and
    /// that object, noted. Always a call: a stream announced it when its
    /// arguments began.
    pub fn call_headed(
        &mut self,
        json: &str,
        at: usize,
        head: &EnvelopeHead,
        notes: Vec<Note>,
        keys: EnvelopeKeys,
    ) {
        // Read as it stands, the envelope names the call as its head does.
        let Err(mut notes) = self.call_exact_envelope_at(json, at, notes, keys) else {
            return;
        };
        let why = match repair(json, None, self.limits) {
            Ok(envelope) if envelope.value.is_object() => {
                notes.extend(envelope.notes);
                let mut value = keys.normalize(envelope.value);
                name_by(&mut value, &head.name, head.id.as_deref(), &mut notes);
                let named = self.call_envelope(value, notes);
                debug_assert!(named.is_ok(), "an object with a name is an envelope");
                return;
            }
            Ok(envelope) => format!("{} is not an object", excerpt(&envelope.value.to_string())),
            Err(err) => err.to_string(),
        };
        let arguments = self.json_at(&json[at..]).map_or("", |json| json.text);
        notes.push(recovered(
            "broken-envelope",
            format!(
                "the call's envelope does not read as JSON ({why}); the call is read from its name \
                 and argument object"
            ),
        ));
        self.call_text(&head.name, head.id.as_deref(), arguments, notes);
    }

    /// The calls of a JSON list of envelopes that reads as it stands (see
    /// [`ExactEnvelope::list`]), `notes` going to the first; anything else
    /// gives `notes` back, as [`call_exact_envelope`](Out::call_exact_envelope) does.
    pub fn call_exact_list(
        &mut self,
        json: &str,
        notes: Vec<Note>,
        keys: EnvelopeKeys,
    ) -> Result<(), Vec<Note>> {
        let Some(items) = ExactEnvelope::list(json, keys) else {
            return Err(notes);
        };
        let mut first = notes;
        for envelope in items {
            self.call_exact(envelope, std::mem::take(&mut first));
        }
        Ok(())
    }

    /// A call from an envelope object holding the name and the arguments
    /// under one of `keys` (Hermes' `arguments`, Llama's `parameters`); a
    /// value that is no such envelope is returned.
    pub fn call_envelope(&mut self, envelope: Value, notes: Vec<Note>) -> Result<(), Value> {
        let Value::Object(mut object) = envelope else {
            return Err(envelope);
        };
        let Some(Value::String(name)) = object.get("name").cloned() else {
            return Err(Value::Object(object));
        };
        let id = match object.get("id") {
            Some(Value::String(id)) => Some(id.clone()),
            _ => None,
        };
        let arguments = ["arguments", "parameters"]
            .iter()
            .find_map(|key| object.remove(*key));
        match arguments {
            Some(Value::String(text)) => self.call_text(&name, id.as_deref(), &text, notes),
            Some(value) => self.call_value(&name, id.as_deref(), value, notes),
            None => {
                let mut notes = notes;
                notes.push(Note::new(
                    NoteKind::Defaulted {
                        field: "arguments".into(),
                    },
                    Pointer::root().key("arguments"),
                    "the call has no \"arguments\" or \"parameters\"; its arguments are {}",
                ));
                self.call_value(&name, id.as_deref(), Value::Object(Map::new()), notes)
            }
        }
        Ok(())
    }

    /// [`json_at`] for the arguments of the call about to be added: when a
    /// stream read them whole already (its partial parser's value closed
    /// where the text it streamed ends), `text` starting with that text
    /// holds that value and no more, so its end is known without a scan.
    pub fn json_at<'t>(&self, text: &'t str) -> Option<Json<'t>> {
        let trimmed = text.trim_start();
        match self.lent(trimmed) {
            Some(streamed) => Some(Json {
                text: &trimmed[..streamed.text.len()],
                rest: &trimmed[streamed.text.len()..],
                truncated: false,
            }),
            None => json_at(text),
        }
    }

    /// The argument text a stream read whole for the call about to be
    /// added (with the value its partial parser built), when `text` starts
    /// with it.
    fn lent(&self, text: &str) -> Option<&Streamed> {
        self.next_streamed()
            .and_then(|at| self.streamed.get(at))
            .filter(|streamed| streamed.value.is_some() && text.starts_with(&streamed.text))
    }

    /// Where the call about to be added is in [`streamed`](Out::streamed).
    fn next_streamed(&self) -> Option<usize> {
        self.calls.len().checked_sub(self.streamed_from)
    }

    /// The value a stream built from `raw` for the call about to be added,
    /// when it read exactly this text and the text is an object.
    fn take_streamed(&mut self, raw: &str) -> Option<Value> {
        let at = self.next_streamed()?;
        let streamed = self.streamed.get_mut(at)?;
        if streamed.text != raw || !streamed.value.as_ref().is_some_and(Value::is_object) {
            return None;
        }
        streamed.taken = true;
        streamed.value.take()
    }

    /// Arguments read from `raw` already (by a stream's partial parser):
    /// fitted to the tool's schema as [`arguments_from_text`] fits them.
    ///
    /// [`arguments_from_text`]: Out::arguments_from_text
    fn arguments_from_value(
        &self,
        name: &str,
        mut value: Value,
        raw: &str,
    ) -> Result<(Value, Vec<Note>), ArgumentsError> {
        let Some(schema) = self.schema(name) else {
            return Ok((value, Vec::new()));
        };
        match fit_parsed(&mut value, schema, self.limits) {
            Some(fixes) => Ok((value, under_arguments(fixes))),
            None => self.arguments_from_text(name, raw),
        }
    }

    fn arguments_from_text(&self, name: &str, raw: &str) -> Result<(Value, Vec<Note>), ArgumentsError> {
        match repair(raw, self.schema(name), self.limits) {
            Ok(repaired) if repaired.value.is_object() => {
                Ok((repaired.value, under_arguments(repaired.notes)))
            }
            Ok(repaired) => Err(ArgumentsError::new(
                ArgumentsErrorKind::NotAnObject,
                format!("the arguments are {}, not an object", json_type(&repaired.value)),
                raw,
            )),
            Err(err) => Err(ArgumentsError::new(
                ArgumentsErrorKind::InvalidJson,
                err.to_string(),
                raw,
            )),
        }
    }

    /// Adds one call: the provider's id or `call_<n>`, made unique.
    pub fn push(
        &mut self,
        name: &str,
        id: Option<&str>,
        arguments: Result<(Value, Vec<Note>), ArgumentsError>,
        raw: Option<String>,
        notes: Vec<Note>,
    ) {
        self.add(name, id, arguments, raw, notes, false);
    }

    /// The id a call sent as `base` gets, and the suffix it took (`None`
    /// for `base` itself): `base`, or `base_2`, `base_3`, … when an earlier
    /// call has it or `taken` says it is taken (the ids a stream announced
    /// for calls not added yet), trying no suffix below `from` (every lower
    /// one is taken).
    pub fn unique_id(
        &self,
        base: &str,
        from: usize,
        taken: impl Fn(&str) -> bool,
    ) -> (Option<usize>, String) {
        if !self.ids.contains(base) && !taken(base) {
            return (None, base.to_string());
        }
        let mut suffix = self.suffixes.get(base).copied().unwrap_or(2).max(from);
        loop {
            let unique = format!("{base}_{suffix}");
            if !self.ids.contains(&unique) && !taken(&unique) {
                return (Some(suffix), unique);
            }
            suffix += 1;
        }
    }

    /// [`push`](Out::push), saying whether `raw` is JSON text that reads as
    /// the arguments exactly ([`exact_raw`](Out::exact_raw)).
    fn add(
        &mut self,
        name: &str,
        id: Option<&str>,
        arguments: Result<(Value, Vec<Note>), ArgumentsError>,
        raw: Option<String>,
        mut notes: Vec<Note>,
        exact: bool,
    ) {
        if self.calls.len() >= self.limits.max_tools {
            self.refused += 1;
            return;
        }
        let sent = id.filter(|id| !id.is_empty());
        let base = sent.map_or_else(|| format!("call_{}", self.calls.len()), str::to_string);
        let (suffix, unique) = self.unique_id(&base, 2, |_| false);
        if let Some(suffix) = suffix {
            self.suffixes.insert(base.clone(), suffix + 1);
        }
        if unique != base {
            notes.push(Note::new(
                NoteKind::Renamed {
                    from: base.as_str().into(),
                    to: unique.as_str().into(),
                },
                Pointer::root().key("id"),
                format!("an earlier call has the id {base:?} too; this call's id is {unique:?}"),
            ));
        }
        self.ids.insert(unique.clone());
        let mut call = ToolCall::new(unique, name, Value::Null);
        call.provider_id = sent.map(str::to_string);
        call.raw_arguments = raw;
        call.arguments = arguments.map(|(value, found)| {
            notes.extend(found);
            value
        });
        call.notes = notes;
        self.calls.push(call);
        self.exact_raw.push(exact);
    }

    /// Says how many calls past the limit were not read.
    pub fn finish(&mut self) {
        if self.refused > 0 {
            self.notes.push(Note::new(
                NoteKind::OverLimit {
                    limit: format!("{} calls", self.limits.max_tools).into(),
                },
                Pointer::root(),
                format!(
                    "{} more calls were not read: the text holds more than {} calls",
                    self.refused, self.limits.max_tools
                ),
            ));
        }
    }
}

/// The calls of a markup that opens each call with `open` and closes it
/// with `close` (DeepSeek, Kimi, GLM, Gemma 4, LFM2, …): the text between
/// calls goes to `prose`, each call's body (and its whole markup, for a
/// note) to `call`. A call whose `close` is missing ends where `stop` says
/// in the text up to the next `open` (a section token), or at that next
/// `open`, with a note. Each tag is searched through the text once
/// ([`Finder`]), so many unclosed calls stay linear.
pub(super) fn delimited_calls<'t>(
    text: &'t str,
    open: &'static str,
    close: &'static str,
    out: &mut Out<'_>,
    stop: impl Fn(&str) -> Option<usize>,
    mut prose: impl FnMut(&'t str, &mut Out<'_>),
    mut call: impl FnMut(&'t str, &'t str, &mut Out<'_>, Vec<Note>),
) {
    let mut opens = Finder::new(text, open);
    let mut closes = Finder::new(text, close);
    let mut pos = 0;
    while let Some(start) = opens.from(pos) {
        prose(&text[pos..start], out);
        let body = start + open.len();
        let next_open = opens.from(body).unwrap_or(text.len());
        let mut notes = Vec::new();
        let body_end = match closes.from(body).filter(|&end| end <= next_open) {
            Some(end) => {
                pos = end + close.len();
                end
            }
            None => {
                notes.push(recovered(
                    "missing-close-tag",
                    format!("the call's {close} is missing"),
                ));
                let end = stop(&text[body..next_open]).map_or(next_open, |at| body + at);
                pos = end;
                end
            }
        };
        call(&text[body..body_end], &text[start..pos], out, notes);
    }
    prose(&text[pos..], out);
}

/// A note that markup was garbled and read anyway (`fix` names the variant).
pub(super) fn recovered(fix: &str, message: impl Into<crate::note::SharedStr>) -> Note {
    Note::new(NoteKind::Repaired { fix: fix.into() }, Pointer::root(), message)
}

/// Sets `key` to `value` in `arguments`; a key given twice keeps its last
/// value, and a note says so (`what`: the family's word, "parameter" or
/// "argument").
pub(super) fn insert_argument(
    arguments: &mut Map<String, Value>,
    key: String,
    value: Value,
    what: &str,
    notes: &mut Vec<Note>,
) {
    if let Some(slot) = arguments.get_mut(&key) {
        *slot = value;
        notes.push(Note::new(
            NoteKind::Dropped {
                keyword: key.as_str().into(),
            },
            Pointer::root().key("arguments").key(&key),
            format!("the {what} {key:?} was given twice; the last value was kept"),
        ));
    } else {
        arguments.insert(key, value);
    }
}

/// The start of `text`, quoted, for a note.
pub(super) fn excerpt(text: &str) -> String {
    let cut: String = text.chars().take(40).collect();
    if cut.len() < text.len() {
        format!("{:?}…", cut)
    } else {
        format!("{cut:?}")
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The end (exclusive) of the JSON object or array starting at `text[0]`,
/// found by counting brackets outside strings; `None` when the text ends
/// first (a truncated value) or does not start with `{` or `[`.
pub(super) fn json_extent(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if !matches!(bytes.first(), Some(b'{' | b'[')) {
        return None;
    }
    crate::json::bracket_end(bytes, 0)
}

/// A JSON value at the start of `text` (after whitespace): its text and the
/// rest after it. Without its end (truncated), the whole rest is the value
/// and `truncated` is true.
pub(super) struct Json<'t> {
    pub text: &'t str,
    pub rest: &'t str,
    pub truncated: bool,
}

/// The JSON object or array at the start of `text`, if it starts with one.
pub(super) fn json_at(text: &str) -> Option<Json<'_>> {
    let text = text.trim_start();
    if !text.starts_with(['{', '[']) {
        return None;
    }
    Some(match json_extent(text) {
        Some(end) => Json {
            text: &text[..end],
            rest: &text[end..],
            truncated: false,
        },
        None => Json {
            text,
            rest: "",
            truncated: true,
        },
    })
}

/// Appends `text` to the prose without the `tokens` in it (section tokens
/// around calls that are markup, not prose).
pub(super) fn push_prose_without(text: &str, tokens: &[&str], out: &mut Out<'_>) {
    let mut rest = text;
    while let Ok((at, which)) = scan_tags(rest, 0, tokens) {
        out.prose.push_str(&rest[..at]);
        rest = &rest[at + tokens[which].len()..];
    }
    out.prose.push_str(rest);
}

/// Repair notes placed in the arguments, moved under `/arguments` of the call.
fn under_arguments(notes: Vec<Note>) -> Vec<Note> {
    let arguments = Pointer::root().key("arguments");
    notes
        .into_iter()
        .map(|note| Note::new(note.kind, arguments.join(&note.at), note.message))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_ids_get_the_first_free_suffix() {
        let limits = Limits::default();
        let mut out = Out::new(Family::Kimi, None, &limits);
        for id in ["x", "x", "x_3", "x", "x", "x_2", "y"] {
            out.push(
                "f",
                Some(id),
                Ok((Value::Object(Map::new()), Vec::new())),
                None,
                Vec::new(),
            );
        }
        let ids: Vec<&str> = out.calls.iter().map(|call| call.id.as_str()).collect();
        assert_eq!(ids, ["x", "x_2", "x_3", "x_4", "x_5", "x_2_2", "y"]);
        assert_eq!(out.unique_id("x", 2, |id| id == "x_6").1, "x_7");
    }

    #[test]
    fn json_extent_skips_brackets_in_strings() {
        assert_eq!(json_extent(r#"{"a": "}{\"]"} tail"#), Some(14));
        assert_eq!(json_extent(r#"[{"a": [1]}, 2]x"#), Some(15));
        assert_eq!(json_extent(r#"{"a": "#), None);
        assert_eq!(json_extent("x{}"), None);
    }
}
