//! Hermes, Qwen2.5, Qwen3 (and Granite 4): `<tool_call>{"name": …,
//! "arguments": {…}}</tool_call>`, one block per call (vLLM
//! `hermes_tool_parser.py`, ollama `model/parsers/qwen3.go`).

use crate::call::repair;

use super::envelope::{self, Cut, EnvelopeKeys, Found};
use super::scan::{json_at, recovered, Out};
use super::stream::markup::{FirstBytes, Head, HeadJson, Region, Streaming, Until, Waits};
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
                let body = &text[body..close];
                block(body, body, &text[open..close + CLOSE.len()], out, Vec::new());
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
                        &text[body..next_open],
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

/// One block's JSON, `{"name", "arguments"}`: `body` is the text after the
/// opening tag (up to the closing one), `json` the envelope in it, `markup`
/// the whole block. An envelope that names its tool before its arguments
/// is that call, named as its head says (see [`envelope`]),
/// as a stream announced it.
fn block(body: &str, json: &str, markup: &str, out: &mut Out<'_>, notes: Vec<super::Note>) {
    let json = json.trim();
    if let Found::Head(head) = envelope::head(body, EnvelopeKeys::Plain) {
        // The head skips JSON whitespace to the `{` where `json` starts too.
        let lead = body.len() - body.trim_start().len();
        out.call_headed(json, head.at - lead, &head, notes);
        return;
    }
    let Err(mut notes) = out.call_exact_envelope(json, notes) else {
        return;
    };
    let why = match repair(json, None, out.limits) {
        Ok(mut envelope) => {
            notes.extend(envelope.notes);
            envelope::drop_late_id(&mut envelope.value, &mut notes);
            match out.call_envelope(envelope.value, notes) {
                Ok(()) => return,
                Err(value) => not_an_envelope(&value),
            }
        }
        Err(err) => err.to_string(),
    };
    out.not_a_call(OPEN, markup, &why);
}

fn not_an_envelope(value: &serde_json::Value) -> String {
    let text = super::scan::excerpt(&value.to_string());
    format!("{text} is not a {{\"name\", \"arguments\"}} object")
}

/// Streamed: a call runs from `<tool_call>` to `</tool_call>`, or to the
/// next `<tool_call>` when its closing tag is missing; its arguments stream
/// once the envelope has named the tool ([`live_head`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN],
    bare: None,
    region,
};

fn region(_: Option<usize>) -> Box<dyn Region> {
    Box::new(HeadJson::new(
        Until::new(OPEN.len(), &[CLOSE], &[OPEN], &[]),
        live_head,
    ))
}

/// The head of the envelope in a block's body, for the stream: the call is
/// announced, and its arguments stream, once the envelope has named it.
fn live_head(body: &str) -> Head {
    match envelope::head(body, EnvelopeKeys::Plain) {
        // Inside a string only its closing quote moves the head on.
        Found::More(Cut::String { escaped }) => {
            Head::More(Some(Waits::scanning(Some((b'"', escaped)), FirstBytes::NONE)))
        }
        Found::More(Cut::Other) => Head::More(None),
        Found::Head(head) => Head::Json {
            name: head.name,
            id: head.id,
            at: head.at,
        },
        Found::Whole => Head::Whole,
    }
}
