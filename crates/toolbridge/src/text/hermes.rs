//! Hermes, Qwen2.5, Qwen3 (and Granite 4): `<tool_call>{"name": …,
//! "arguments": {…}}</tool_call>`, one block per call (vLLM
//! `hermes_tool_parser.py`, ollama `model/parsers/qwen3.go`).

use crate::call::repair;

use super::scan::{json_at, recovered, Out};
use super::stream::markup::{Region, Streaming, Until};
use super::tags::Finder;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

pub(super) fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut opens = Finder::new(text, OPEN);
    let mut closes = Finder::new(text, CLOSE);
    let mut pos = 0;
    while let Some(open) = opens.from(pos) {
        out.prose.push_str(&text[pos..open]);
        let body = open + OPEN.len();
        let next_open = opens.from(body).unwrap_or(text.len());
        match closes.from(body).filter(|&close| close < next_open) {
            Some(close) => {
                block(
                    &text[body..close],
                    &text[open..close + CLOSE.len()],
                    out,
                    Vec::new(),
                );
                pos = close + CLOSE.len();
            }
            // Weak models drop the closing tag: the call is the JSON value after the opening one.
            None => match json_at(&text[body..next_open]) {
                Some(json) => {
                    let note = recovered(
                        "missing-close-tag",
                        "the call's </tool_call> is missing; the call ends with its JSON",
                    );
                    block(
                        json.text,
                        &text[open..next_open - json.rest.len()],
                        out,
                        vec![note],
                    );
                    pos = next_open - json.rest.len();
                }
                None => {
                    out.not_a_call(OPEN, &text[open..next_open], "no JSON follows it");
                    pos = next_open;
                }
            },
        }
    }
    out.prose.push_str(&text[pos..]);
}

/// One block's JSON, `{"name", "arguments"}`; `markup` is the whole block.
pub(super) fn block(json: &str, markup: &str, out: &mut Out<'_>, notes: Vec<super::Note>) {
    let Err(notes) = out.call_exact_envelope(json.trim(), notes) else {
        return;
    };
    match repair(json.trim(), None, out.limits) {
        Ok(envelope) => {
            let mut notes = notes;
            notes.extend(envelope.notes);
            if let Err(value) = out.call_envelope(envelope.value, notes) {
                let why = format!("{} is not a {{\"name\", \"arguments\"}} object", short(&value));
                out.not_a_call(OPEN, markup, &why);
            }
        }
        Err(err) => out.not_a_call(OPEN, markup, &err.to_string()),
    }
}

fn short(value: &serde_json::Value) -> String {
    super::scan::excerpt(&value.to_string())
}

/// Streamed: a call runs from `<tool_call>` to `</tool_call>`, or to the
/// next `<tool_call>` when its closing tag is missing.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN],
    bare: None,
    region,
};

fn region(_: Option<usize>) -> Box<dyn Region> {
    Box::new(Until::new(OPEN.len(), &[CLOSE], &[OPEN], &[]))
}
