//! Llama 3.1–3.3: `<|python_tag|>{"name": …, "parameters": {…}}` (calls
//! separated by `;`), the same JSON bare, or the custom-tool form
//! `<function=NAME>{…}</function>` (Meta's prompt format docs; vLLM
//! `llama_tool_parser.py`). The built-in tools follow `<|python_tag|>` too:
//! `brave_search.call(query="…")` and `wolfram_alpha.call(query="…")`, and
//! for `code_interpreter` the Python code itself, up to `<|eom_id|>`
//! (Meta's `llama3_1` prompt format; llama.cpp `common/chat.cpp`,
//! `common_chat_parse_llama_3_1`, reads the same `NAME.call(ARG=VALUE)`). Groq's `tool_use_failed` answers carry the
//! garbled `<function=NAME={…}</function>` and `<function=NAME{…}` shapes.

use crate::call::repair;

use super::pythonic;
use super::scan::{json_at, recovered, Finder, Out};

const PYTHON_TAG: &str = "<|python_tag|>";
const FUNCTION: &str = "<function=";
const FUNCTION_END: &str = "</function>";
const END_TOKENS: [&str; 3] = ["<|eom_id|>", "<|eot_id|>", "<|end_of_text|>"];

pub(super) fn detect(text: &str) -> bool {
    text.contains(PYTHON_TAG) || text.contains(FUNCTION) || bare_call(text)
}

/// Whether the text starts with `{"name"`.
fn bare_call(text: &str) -> bool {
    text.trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with("\"name\""))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut pos = 0;
    if bare_call(text) {
        pos = json_calls(text, out);
    }
    let (mut tags, mut functions) = (Finder::new(text, PYTHON_TAG), Finder::new(text, FUNCTION));
    loop {
        let tag = tags.from(pos).map(|at| (at, true));
        let function = functions.from(pos).map(|at| (at, false));
        let Some((at, python)) = [tag, function].into_iter().flatten().min() else {
            break;
        };
        out.prose.push_str(&text[pos..at]);
        if python {
            let start = at + PYTHON_TAG.len();
            let mut taken = json_calls(&text[start..], out);
            if taken == 0 {
                taken = builtin_call(&text[start..], out);
            }
            pos = start + taken;
        } else {
            pos = at + function_call(&text[at..], out);
        }
    }
    let mut rest = &text[pos..];
    for token in END_TOKENS {
        rest = rest.trim_end().strip_suffix(token).unwrap_or(rest);
    }
    out.prose.push_str(rest);
}

/// Calls `{"name", "parameters"}` separated by `;`, at the start of
/// `text`; returns how much of `text` they took (0: none, the text is prose).
fn json_calls(text: &str, out: &mut Out<'_>) -> usize {
    let mut taken = 0;
    while let Some(json) = json_at(&text[taken..]).filter(|json| json.text.starts_with('{')) {
        let Ok(envelope) = repair(json.text, None, out.limits) else {
            break;
        };
        let is_call = envelope
            .value
            .get("name")
            .is_some_and(serde_json::Value::is_string);
        if !is_call {
            break;
        }
        let mut notes = envelope.notes;
        if json.truncated {
            notes.insert(
                0,
                recovered("truncated-call", "the text ends inside the call's JSON"),
            );
        }
        let _ = out.call_envelope(envelope.value, notes);
        taken = text.len() - json.rest.len();
        let after = json.rest.trim_start();
        match after.strip_prefix(';') {
            Some(next) => taken = text.len() - next.len(),
            None => break,
        }
    }
    taken
}

/// `<function=NAME>{…}</function>` at the start of `text`, and its garbled
/// variants; returns how much of `text` it took.
fn function_call(text: &str, out: &mut Out<'_>) -> usize {
    let after = &text[FUNCTION.len()..];
    let name_end = after
        .find(|c: char| matches!(c, '>' | '=' | '{' | '<' | '(') || c.is_whitespace())
        .unwrap_or(after.len());
    let name = &after[..name_end];
    let mut rest = &after[name_end..];
    let mut notes = Vec::new();
    if let Some(next) = rest.strip_prefix('>') {
        rest = next;
    } else if let Some(next) = rest.strip_prefix('=') {
        rest = next;
        notes.push(recovered(
            "function-equals",
            "the call was written <function=NAME={…} (as Groq reports in tool_use_failed) and read as <function=NAME>{…}",
        ));
    } else {
        notes.push(recovered(
            "missing-bracket",
            "the > after <function=NAME is missing",
        ));
    }
    if name.is_empty() {
        out.not_a_call(FUNCTION, FUNCTION, "no tool name follows it");
        return FUNCTION.len();
    }
    let (arguments, mut rest) = match json_at(rest) {
        Some(json) => (json.text, json.rest),
        None if rest.trim_start().starts_with(FUNCTION_END) => ("{}", rest),
        None => {
            let taken = text.len() - rest.len();
            out.not_a_call(FUNCTION, &text[..taken], "no JSON arguments follow the name");
            return taken;
        }
    };
    match rest.trim_start().strip_prefix(FUNCTION_END) {
        Some(next) => rest = next,
        None => notes.push(recovered(
            "missing-close-tag",
            "the call's </function> is missing",
        )),
    }
    out.call_text(name, None, arguments, notes);
    text.len() - rest.len()
}

/// A built-in tool's call after `<|python_tag|>`: `NAME.call(key=value, …)`,
/// or else the code for `code_interpreter`, up to the end-of-message token;
/// returns how much of `text` it took.
fn builtin_call(text: &str, out: &mut Out<'_>) -> usize {
    let start = text.len() - text.trim_start().len();
    if let Ok(((name, arguments), taken)) = pythonic::read_call(&text[start..], out.limits.max_depth) {
        if let Some(name) = name.strip_suffix(".call").filter(|name| !name.is_empty()) {
            out.call_value(name, None, serde_json::Value::Object(arguments), Vec::new());
            return start + taken;
        }
    }
    let end = END_TOKENS
        .iter()
        .filter_map(|token| text.find(token))
        .min()
        .unwrap_or(text.len());
    let code = text[..end].trim();
    if code.is_empty() {
        out.not_a_call(PYTHON_TAG, PYTHON_TAG, "nothing follows it");
        return 0;
    }
    let mut arguments = serde_json::Map::new();
    arguments.insert("code".into(), serde_json::Value::String(code.to_string()));
    out.call_value(
        "code_interpreter",
        None,
        serde_json::Value::Object(arguments),
        Vec::new(),
    );
    end
}
