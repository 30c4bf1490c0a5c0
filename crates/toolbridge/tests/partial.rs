//! The partial-JSON parser against `serde_json`, on arbitrary values written
//! compactly, pretty and with every non-ASCII character escaped, cut into
//! deltas at arbitrary places (through `feed` at character boundaries, or
//! through `feed_bytes` anywhere, even inside a UTF-8 sequence):
//!
//! - `finish()` gives what `serde_json::from_str` gives for the whole text;
//! - after every delta the partial value extends the one before
//!   ([`extends`]);
//! - applying each delta's changes to a copy rebuilds the partial value.

use proptest::prelude::*;
use serde_json::{Map, Value};
use toolbridge::call::{Change, PartialJson};

/// Strings that need escapes: quotes, backslashes, control characters,
/// non-ASCII and astral characters, and `/`.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,8}",
        "[\"\\\\/\u{0}-\u{1f}\u{7f}é€\u{ffff}😀𝄞a-c ]{0,12}",
        any::<String>(),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e300f64..1e300).prop_map(Value::from),
        (-1e-300f64..1e-300).prop_map(Value::from),
        Just(Value::from(0.0)),
        Just(Value::from(-0.0)),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// The JSON text with every non-ASCII character written as a `\u` escape
/// (astral ones as surrogate pairs) and every `/` as `\/`; outside strings
/// JSON has neither, so the text stays valid.
fn ascii_escaped(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '/' => out.push_str("\\/"),
            c if c.is_ascii() => out.push(c),
            c => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out
}

/// True if `next` is `previous` grown the only ways a partial value may
/// grow: a string by a suffix; an array or object by new members at its end
/// and by its last member growing; a number, boolean or null not at all.
/// Everything before the last member of a container is complete, so it must
/// be equal.
fn extends(previous: &Value, next: &Value) -> bool {
    match (previous, next) {
        (Value::String(previous), Value::String(next)) => next.starts_with(previous.as_str()),
        (Value::Array(previous), Value::Array(next)) => {
            let Some((last, complete)) = previous.split_last() else {
                return true;
            };
            next.len() >= previous.len()
                && complete.iter().zip(next).all(|(a, b)| a == b)
                && extends(last, &next[complete.len()])
        }
        (Value::Object(previous), Value::Object(next)) => {
            let Some(((last_key, last), complete)) = previous
                .iter()
                .collect::<Vec<_>>()
                .split_last()
                .map(|(last, complete)| (*last, complete.to_vec()))
            else {
                return true;
            };
            let next: Vec<_> = next.iter().collect();
            next.len() > complete.len()
                && complete.iter().zip(&next).all(|(a, b)| a == b)
                && next[complete.len()].0 == last_key
                && extends(last, next[complete.len()].1)
        }
        (previous, next) => previous == next,
    }
}

/// Applies one change to `mirror`, checking that it names a new place (the
/// next array element or a key not yet there) or an existing string.
fn apply(mirror: &mut Option<Value>, change: &Change) -> Result<(), TestCaseError> {
    match change {
        Change::Set { at, value } if at.is_root() => {
            prop_assert!(mirror.is_none(), "root set twice");
            *mirror = Some(value.clone());
        }
        Change::Set { at, value } => {
            let text = at.as_str();
            let parent = &text[..text.rfind('/').unwrap_or(0)];
            let token = at.tokens().last().unwrap_or_default();
            let container = mirror.as_mut().and_then(|root| root.pointer_mut(parent));
            match container {
                Some(Value::Array(items)) => {
                    prop_assert_eq!(token, items.len().to_string());
                    items.push(value.clone());
                }
                Some(Value::Object(members)) => {
                    prop_assert!(!members.contains_key(&token), "{} set twice", at);
                    members.insert(token, value.clone());
                }
                _ => prop_assert!(false, "no container at {}", parent),
            }
        }
        Change::Appended { at, text } => {
            prop_assert!(!text.is_empty(), "empty append at {}", at);
            match mirror.as_mut().and_then(|root| root.pointer_mut(at.as_str())) {
                Some(Value::String(string)) => string.push_str(text),
                _ => prop_assert!(false, "no string at {}", at),
            }
        }
        _ => prop_assert!(false, "unknown change {:?}", change),
    }
    Ok(())
}

/// Byte positions `cuts` (any numbers) as deltas of `text`: all one byte
/// long when `single`; on character boundaries unless `bytes`.
fn deltas<'t>(text: &'t str, cuts: &[usize], single: bool, bytes: bool) -> Vec<&'t [u8]> {
    let mut positions: Vec<usize> = if single {
        (0..=text.len()).collect()
    } else {
        cuts.iter().map(|cut| cut % (text.len() + 1)).collect()
    };
    if !bytes {
        for position in &mut positions {
            while !text.is_char_boundary(*position) {
                *position -= 1;
            }
        }
    }
    positions.extend([0, text.len()]);
    positions.sort_unstable();
    positions.dedup();
    positions
        .windows(2)
        .map(|pair| &text.as_bytes()[pair[0]..pair[1]])
        .collect()
}

fn stream(text: &str, deltas: &[&[u8]], bytes: bool) -> Result<(), TestCaseError> {
    let expected: Value =
        serde_json::from_str(text).map_err(|error| TestCaseError::fail(error.to_string()))?;
    let mut parser = PartialJson::new();
    let mut mirror = None;
    let mut previous: Option<Value> = None;
    // One vector for every delta, so that its text buffers are reused.
    let mut changes = Vec::new();
    for delta in deltas {
        if bytes {
            parser.feed_bytes(delta, &mut changes)
        } else {
            parser.feed(std::str::from_utf8(delta).unwrap(), &mut changes)
        }
        .map_err(|error| TestCaseError::fail(format!("{error} after {delta:?}")))?;
        for change in &changes {
            apply(&mut mirror, change)?;
        }
        prop_assert_eq!(mirror.as_ref(), parser.value(), "changes rebuild the value");
        if let (Some(previous), Some(next)) = (&previous, parser.value()) {
            prop_assert!(extends(previous, next), "{} does not extend {}", next, previous);
        }
        prop_assert!(previous.is_none() || parser.value().is_some());
        previous = parser.value().cloned();
    }
    prop_assert_eq!(parser.is_complete(), !expected.is_number());
    let finished = parser
        .finish()
        .map_err(|error| TestCaseError::fail(error.to_string()))?;
    prop_assert_eq!(&finished, &expected);
    // Same key order too, not only the same members.
    prop_assert_eq!(finished.to_string(), expected.to_string());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn streamed_text_gives_serde_jsons_value_through_extending_partials(
        value in value(),
        form in 0..3usize,
        cuts in prop::collection::vec(any::<usize>(), 0..24),
        single in prop::bool::weighted(0.1),
        bytes in any::<bool>(),
    ) {
        let compact = serde_json::to_string(&value).unwrap();
        let text = match form {
            0 => compact,
            1 => serde_json::to_string_pretty(&value).unwrap(),
            _ => ascii_escaped(&compact),
        };
        stream(&text, &deltas(&text, &cuts, single, bytes), bytes)?;
    }
}

#[test]
fn extends_accepts_growth_and_refuses_anything_else() {
    use serde_json::json;
    let grows = [
        (json!("ab"), json!("abc")),
        (json!([1, "a"]), json!([1, "ab", {}])),
        (json!({"a": 1, "b": [1]}), json!({"a": 1, "b": [1, 2], "c": null})),
        (json!([]), json!([1])),
    ];
    for (previous, next) in grows {
        assert!(extends(&previous, &next), "{previous} → {next}");
    }
    let changes = [
        (json!("ab"), json!("xab")),
        (json!([1, "a"]), json!([2, "ab"])),
        (json!(["a", 1]), json!(["ab", 1])),
        (json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1})),
        (json!({"a": 1}), json!({})),
        (json!(1), json!(12)),
        (json!(null), json!({})),
    ];
    for (previous, next) in changes {
        assert!(!extends(&previous, &next), "{previous} → {next}");
    }
}

/// The stream of one call to `f` with argument text `text` in `deltas`:
/// OpenAI Chat chunks, or Anthropic events.
fn provider_stream(anthropic: bool, deltas: &[&str]) -> String {
    let mut out = String::new();
    let event = |value: Value| format!("data: {value}\n\n");
    if anthropic {
        out += &event(serde_json::json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}));
        for delta in deltas {
            out += &event(serde_json::json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": delta}}));
        }
        out += &event(serde_json::json!({"type": "content_block_stop", "index": 0}));
    } else {
        out += &event(
            serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}]}}]}),
        );
        for delta in deltas {
            out += &event(
                serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": delta}}]}}]}),
            );
        }
        out += &event(
            serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        );
        out += "data: [DONE]\n\n";
    }
    out
}

/// Streams `text` (an object) through a provider's [`CallStream`], its
/// bytes pushed in the pieces `pieces` gives: after every push the changes
/// of the deltas rebuild [`CallStream::partial`], partial values only
/// extend, and the finished call's arguments are the text's value.
fn stream_call(
    anthropic: bool,
    text: &str,
    arguments: &[&str],
    pieces: &[usize],
) -> Result<(), TestCaseError> {
    let format = if anthropic {
        toolbridge::Format::Anthropic
    } else {
        toolbridge::Format::OpenAi
    };
    let bytes = provider_stream(anthropic, arguments);
    let expected: Value = serde_json::from_str(text).unwrap();
    check_stream(format, &bytes, &expected, pieces)
}

/// Feeds `bytes`, a stream of one call, to `format`'s [`CallStream`] in
/// the pieces `pieces` gives; checks the changes, the partial values and
/// the finished call's arguments against `expected`.
fn check_stream(
    format: toolbridge::Format,
    bytes: &str,
    expected: &Value,
    pieces: &[usize],
) -> Result<(), TestCaseError> {
    use toolbridge::call::{CallEvent, CallOptions};
    let mut stream = format.call_stream(&CallOptions::default()).unwrap();
    let (mut events, mut mirror, mut previous) = (Vec::new(), None::<Value>, None::<Value>);
    let mut finished = None;
    let (mut at, mut turn) = (0, 0);
    while at <= bytes.len() {
        let end =
            (at + pieces.get(turn % pieces.len().max(1)).copied().unwrap_or(7) % 40 + 1).min(bytes.len());
        if at == bytes.len() {
            stream
                .finish(&mut events)
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
        } else {
            stream
                .push(&bytes.as_bytes()[at..end], &mut events)
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
        }
        for event in events.drain(..) {
            match event {
                CallEvent::ArgumentsDelta { index, changes, .. } => {
                    prop_assert_eq!(index, 0);
                    for change in &changes {
                        apply(&mut mirror, change)?;
                    }
                }
                CallEvent::Finished { call, .. } => finished = Some(call),
                _ => {}
            }
        }
        if finished.is_none() {
            prop_assert_eq!(
                stream.partial(0),
                mirror.as_ref(),
                "changes rebuild the partial value"
            );
        }
        if let (Some(previous), Some(next)) = (&previous, &mirror) {
            prop_assert!(extends(previous, next), "{} does not extend {}", next, previous);
        }
        previous = mirror.clone();
        if at == bytes.len() {
            break;
        }
        at = end;
        turn += 1;
    }
    let call = finished.ok_or_else(|| TestCaseError::fail("the call never finished"))?;
    prop_assert_eq!(call.arguments.as_ref().ok(), Some(expected));
    if !(mirror.is_none() && expected == &Value::Object(Map::new())) {
        prop_assert_eq!(mirror.as_ref(), Some(expected));
    }
    prop_assert_eq!(
        call.arguments.unwrap().to_string(),
        expected.to_string(),
        "same key order"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn streamed_calls_carry_changes_that_extend_to_the_arguments(
        members in prop::collection::vec((text(), value()), 0..6),
        pretty in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
        pieces in prop::collection::vec(any::<usize>(), 1..16),
        anthropic in any::<bool>(),
    ) {
        let value = Value::Object(members.into_iter().collect());
        let text = if pretty { serde_json::to_string_pretty(&value).unwrap() } else { value.to_string() };
        let arguments: Vec<&str> = deltas(&text, &cuts, false, false)
            .into_iter()
            .map(|delta| std::str::from_utf8(delta).unwrap())
            .collect();
        stream_call(anthropic, &text, &arguments, &pieces)?;
    }
}

/// `value` without empty objects and arrays (Vertex's `partialArgs` carry
/// only scalars, so an empty container cannot be sent); `None` if nothing is left.
fn prune(value: &Value) -> Option<Value> {
    match value {
        Value::Object(members) => {
            let kept: Map<String, Value> = members
                .iter()
                .filter_map(|(key, value)| prune(value).map(|value| (key.clone(), value)))
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        Value::Array(items) => {
            let kept: Vec<Value> = items.iter().filter_map(prune).collect();
            // Pruning inside an array would shift indices: only arrays whose items all stay.
            (!kept.is_empty() && kept.len() == items.len()).then_some(Value::Array(kept))
        }
        other => Some(other.clone()),
    }
}

/// The `partialArgs` pieces of `value` (already pruned) at `path`, in
/// document order; strings cut where `cuts` says.
fn vertex_pieces(value: &Value, path: &str, cuts: &[usize], out: &mut Vec<Value>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                let step = if !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase()) {
                    format!(".{key}")
                } else {
                    format!("['{}']", key.replace('\\', "\\\\").replace('\'', "\\'"))
                };
                vertex_pieces(member, &format!("{path}{step}"), cuts, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                vertex_pieces(item, &format!("{path}[{index}]"), cuts, out);
            }
        }
        Value::String(text) => {
            let chunks = deltas(text, cuts, false, false);
            if chunks.is_empty() {
                out.push(serde_json::json!({"jsonPath": path, "stringValue": ""}));
            }
            for chunk in chunks {
                let chunk = std::str::from_utf8(chunk).unwrap();
                out.push(serde_json::json!({"jsonPath": path, "stringValue": chunk, "willContinue": true}));
            }
        }
        Value::Number(_) => out.push(serde_json::json!({"jsonPath": path, "numberValue": value})),
        Value::Bool(_) => out.push(serde_json::json!({"jsonPath": path, "boolValue": value})),
        Value::Null => out.push(serde_json::json!({"jsonPath": path, "nullValue": "NULL_VALUE"})),
    }
}

/// One `streamGenerateContent` SSE event with one `functionCall` part.
fn vertex_event(call: Value) -> String {
    let event = serde_json::json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]});
    format!("data: {event}\n\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn vertex_partial_args_assemble_to_changes_that_extend_to_the_arguments(
        members in prop::collection::vec((text(), value()), 1..6),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
        per_chunk in 1usize..4,
        end_marker in any::<bool>(),
        pieces in prop::collection::vec(any::<usize>(), 1..16),
    ) {
        let value = Value::Object(members.into_iter().collect());
        let expected = prune(&value).unwrap_or_else(|| Value::Object(Map::new()));
        let mut all = Vec::new();
        vertex_pieces(&expected, "$", &cuts, &mut all);
        let chunks: Vec<&[Value]> = all.chunks(per_chunk).collect();
        let mut sse = String::new();
        if chunks.is_empty() {
            sse += &vertex_event(serde_json::json!({"name": "f", "partialArgs": [], "willContinue": true}));
        }
        for (at, chunk) in chunks.iter().enumerate() {
            let last = at + 1 == chunks.len() && !end_marker;
            let mut call = serde_json::json!({"partialArgs": chunk, "willContinue": !last});
            if at == 0 {
                call["name"] = "f".into();
            }
            sse += &vertex_event(call);
        }
        if end_marker || chunks.is_empty() {
            sse += &vertex_event(serde_json::json!({}));
        }
        check_stream(toolbridge::Format::Gemini, &sse, &expected, &pieces)?;
    }
}
