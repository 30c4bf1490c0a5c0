//! Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX
//! <|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>`
//! (vLLM `kimi_k2_tool_parser.py`, which takes `functions.NAME:IDX` as the
//! call's id and the part between `.` and `:` as the name; it also accepts
//! the singular `<|tool_call_section_begin|>`).

use super::scan::{delimited_calls, push_prose_without, recovered, Out};
use super::stream::markup::{
    object_after, token_waits, FirstBytes, Head, HeadJson, Region, Streaming, Token, Until,
};
use super::tags::{find_tag, scan_tags};

const SECTION_TOKENS: [&str; 4] = [
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
];
const BEGIN: &str = "<|tool_call_begin|>";
const ARGUMENTS: &str = "<|tool_call_argument_begin|>";
const END: &str = "<|tool_call_end|>";

pub(super) fn detect(text: &str) -> bool {
    text.contains(BEGIN) || text.contains("<|tool_calls_section_begin|>")
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    delimited_calls(
        text,
        BEGIN,
        END,
        out,
        |body| scan_tags(body, 0, &SECTION_TOKENS).ok().map(|(at, _)| at),
        |prose, out| push_prose_without(prose, &SECTION_TOKENS, out),
        call,
    );
}

/// One call's body: `functions.NAME:IDX<|tool_call_argument_begin|>{…}`.
fn call(body: &str, markup: &str, out: &mut Out<'_>, mut notes: Vec<super::Note>) {
    let (head, arguments) = match body.split_once(ARGUMENTS) {
        Some((head, arguments)) => (head.trim(), arguments.trim()),
        None => {
            // Decoded with special tokens skipped, the separator is gone: the JSON starts at `{`.
            let at = body.find('{').unwrap_or(body.len());
            notes.push(recovered(
                "missing-control-token",
                "the <|tool_call_argument_begin|> token is missing; the JSON after the name was read",
            ));
            (body[..at].trim(), body[at..].trim())
        }
    };
    let name = name_of(head);
    if name.is_empty() {
        out.not_a_call(BEGIN, markup, "it names no tool");
        return;
    }
    let arguments = match out.json_at(arguments) {
        Some(json) if json.rest.trim().is_empty() => json.text,
        _ if arguments.is_empty() => "{}",
        _ => arguments,
    };
    if is_counter(name) && out.schema(name).is_none() {
        let Some(tool) = counted_tool(out, arguments) else {
            out.not_a_call(
                BEGIN,
                markup,
                &format!(
                    "its head {name:?} names no tool, and no declared tool is the one its arguments are for"
                ),
            );
            return;
        };
        notes.push(recovered(
            "bare-counter",
            format!("the call's head is the counter {name:?} without functions.NAME:; it was read as a call to {tool}, the declared tool its arguments are for"),
        ));
        let tool = tool.to_string();
        out.call_text(&tool, Some(head), arguments, notes);
        return;
    }
    out.call_text(name, Some(head), arguments, notes);
}

/// The tool's name in a call's head: `functions.NAME:IDX` without
/// `functions.` and `:IDX`. Only that prefix goes, so a dotted name
/// (`github.search`) stays whole, as mlx-lm's `kimi_k2.py` keeps it;
/// vLLM's parser keeps the part after the first dot only, which loses it.
fn name_of(head: &str) -> &str {
    let name = head.strip_prefix("functions.").unwrap_or(head);
    name.rsplit_once(':').map_or(name, |(name, _)| name)
}

/// Whether a head is a bare counter (`0`): Kimi K2 sometimes writes the
/// call's index alone (vLLM's `kimi_k2_tool_parser.py` and sglang's
/// `KimiK2Detector` read such heads).
fn is_counter(name: &str) -> bool {
    name.bytes().all(|byte| byte.is_ascii_digit())
}

/// The tool a call whose head is a bare counter is to: the one tool
/// declared, or the one declared tool whose properties hold every key of
/// its arguments (`None` when none or several do, or the arguments do not
/// read as an object: vLLM then reads no call).
fn counted_tool<'o>(out: &Out<'o>, arguments: &str) -> Option<&'o str> {
    let tools = out.tools();
    if let [tool] = tools {
        return Some(&tool.name);
    }
    let arguments: serde_json::Map<String, serde_json::Value> = serde_json::from_str(arguments).ok()?;
    let mut fitting = tools.iter().filter(|tool| {
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(serde_json::Value::as_object);
        properties.is_some_and(|properties| arguments.keys().all(|key| properties.contains_key(key)))
    });
    match (fitting.next(), fitting.next()) {
        (Some(tool), None) => Some(&tool.name),
        _ => None,
    }
}

/// Streamed: a call runs from `<|tool_call_begin|>` to `<|tool_call_end|>`
/// (without it, to a section token or the next call), its arguments
/// streaming from `<|tool_call_argument_begin|>`; a section token is a
/// region of its own, which the parser removes.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[
        BEGIN,
        SECTION_TOKENS[0],
        SECTION_TOKENS[1],
        SECTION_TOKENS[2],
        SECTION_TOKENS[3],
    ],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => Box::new(HeadJson::new(
            Until::new(BEGIN.len(), &[END], &[BEGIN], &SECTION_TOKENS),
            head,
        )),
        Some(token) => Box::new(Token(STREAM.opens[token].len())),
        None => unreachable!("Kimi has no bare markup"),
    }
}

/// A streamed call's head, as [`call`] reads it: `functions.NAME:IDX`, the
/// whole of it the id, up to `<|tool_call_argument_begin|>`. Without that
/// token (lost in decoding), or with a bare counter for a head, the call
/// comes whole, as the parser reads it.
fn head(body: &str) -> Head {
    match find_tag(body, ARGUMENTS) {
        Some(at) => {
            let head = body[..at].trim();
            let name = name_of(head);
            // A bare counter's tool is known from its arguments: it comes whole.
            if name.is_empty() || is_counter(name) {
                return Head::Whole;
            }
            object_after(body, at + ARGUMENTS.len(), name, Some(head))
        }
        None if body.contains('{') => Head::Whole,
        // Only the token (once whole from its first byte on) or a `{`
        // decides it.
        None => Head::More(Some(token_waits(
            body,
            FirstBytes::of_bytes(b"<{"),
            ARGUMENTS.len(),
        ))),
    }
}
