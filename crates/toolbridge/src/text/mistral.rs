//! Mistral. v0.3 and Nemo write `[TOOL_CALLS][{"name": …, "arguments": {…},
//! "id": …}]`; Small 3.2, Magistral, Devstral and Ministral write
//! `[TOOL_CALLS]NAME[ARGS]{…}` or `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}`,
//! one `[TOOL_CALLS]` per call (mistral-common's tokenizer v11+; vLLM
//! `mistral_tool_parser.py`). Decoded with special tokens skipped, the
//! tokens vanish: `[TOOL_CALLS]add{…}` keeps the call readable; a bare
//! `[{"name": …, "arguments": …}]` is the v0.3 list without its token.

use serde_json::Value;

use crate::call::repair;

use super::scan::{json_at, recovered, Out};

const CALLS: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";

pub(super) fn detect(text: &str) -> bool {
    text.contains(CALLS) || bare_list(text)
}

/// Whether the text starts with a list of `{"name": …}` objects.
fn bare_list(text: &str) -> bool {
    let Some(rest) = text.trim_start().strip_prefix('[') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix('{') else {
        return false;
    };
    rest.trim_start().starts_with("\"name\"")
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    if !text.contains(CALLS) && bare_list(text) {
        let json = json_at(text).expect("a bare list starts with [");
        let note = recovered(
            "missing-control-token",
            "the [TOOL_CALLS] token is missing (decoded with special tokens skipped); the list of calls was read",
        );
        if list(json.text, out, Some(note)) {
            out.prose.push_str(json.rest);
        } else {
            out.prose.push_str(text);
        }
        return;
    }
    let mut pos = 0;
    while let Some(found) = text[pos..].find(CALLS) {
        out.prose.push_str(&text[pos..pos + found]);
        let start = pos + found + CALLS.len();
        pos = start + calls(&text[start..], out);
    }
    out.prose.push_str(&text[pos..]);
}

/// The calls after one `[TOOL_CALLS]`; returns how much of `text` they took.
fn calls(text: &str, out: &mut Out<'_>) -> usize {
    if let Some(json) = json_at(text).filter(|json| json.text.starts_with('[')) {
        if list(json.text, out, None) {
            return text.len() - json.rest.len();
        }
        out.not_a_call(
            CALLS,
            json.text,
            "the list holds no {\"name\", \"arguments\"} objects",
        );
        return text.len() - json.rest.len();
    }
    // ollama's ministral.go takes everything before [ARGS] as the name: a
    // space after [TOOL_CALLS] does not make the call prose.
    let lead = text.len() - text.trim_start().len();
    let name_end = text[lead..]
        .find(|c: char| c == '[' || c == '{' || c.is_whitespace())
        .map_or(text.len(), |at| lead + at);
    let name = &text[lead..name_end];
    if name.is_empty() {
        out.not_a_call(CALLS, CALLS, "no tool name follows it");
        return 0;
    }
    let mut rest = &text[name_end..];
    let mut id = None;
    let mut notes = Vec::new();
    if let Some(after) = rest.strip_prefix(CALL_ID) {
        let id_end = after.find(['[', '{']).unwrap_or(after.len());
        id = Some(after[..id_end].trim());
        rest = &after[id_end..];
    }
    match rest.strip_prefix(ARGS) {
        Some(after) => rest = after,
        None => notes.push(recovered(
            "missing-control-token",
            "the [ARGS] token is missing (decoded with special tokens skipped); the JSON after the name was read",
        )),
    }
    match json_at(rest) {
        Some(json) => {
            out.call_text(name, id, json.text, notes);
            text.len() - json.rest.len()
        }
        None => {
            out.not_a_call(
                CALLS,
                &text[..text.len() - rest.len()],
                "no JSON arguments follow the name",
            );
            text.len() - rest.len()
        }
    }
}

/// A JSON list of `{"name", "arguments", "id"}` objects; false (and no
/// calls) when it is no such list.
fn list(json: &str, out: &mut Out<'_>, note: Option<super::Note>) -> bool {
    let Ok(repaired) = repair(json, None, out.limits) else {
        return false;
    };
    let Value::Array(items) = repaired.value else {
        return false;
    };
    let is_call = |item: &Value| item.get("name").is_some_and(Value::is_string);
    if items.is_empty() || !items.iter().all(is_call) {
        return false;
    }
    let mut first = note.into_iter().chain(repaired.notes).collect::<Vec<_>>();
    for item in items {
        let result = out.call_envelope(item, std::mem::take(&mut first));
        debug_assert!(result.is_ok(), "every item is a call");
    }
    true
}
