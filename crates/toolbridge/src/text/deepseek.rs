//! DeepSeek V3, R1 and V3.1, in tokens spelled with U+FF5C `｜` and U+2581
//! `▁` (vLLM `deepseekv3_tool_parser.py`, `deepseekv31_tool_parser.py`):
//!
//! - V3 / R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>`
//! - V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`

use super::scan::{delimited_calls, push_prose_without, recovered, Out};
use super::stream::markup::{
    could_be, object_after, token_waits, FirstBytes, Head, HeadJson, Region, Streaming, Token, Until,
};
use super::tags::find_tag;

const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALLS_END: &str = "<｜tool▁calls▁end｜>";
const BEGIN: &str = "<｜tool▁call▁begin｜>";
const SEP: &str = "<｜tool▁sep｜>";
const END: &str = "<｜tool▁call▁end｜>";
/// The tokens the template writes around tool results; in a model's text
/// they are markup, removed from the prose with the section tokens (the
/// results' text stays), as ollama's `deepseek3.go` does.
const OUTPUT_TOKENS: [&str; 4] = [
    "<｜tool▁outputs▁begin｜>",
    "<｜tool▁outputs▁end｜>",
    "<｜tool▁output▁begin｜>",
    "<｜tool▁output▁end｜>",
];

pub(super) fn detect(text: &str) -> bool {
    text.contains("tool▁call▁begin") || text.contains("tool▁calls▁begin")
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    delimited_calls(text, BEGIN, END, out, |body| body.find(CALLS_END), prose, call);
}

/// Prose, without the section tokens around the calls and the tokens
/// around tool results.
fn prose(text: &str, out: &mut Out<'_>) {
    let [outputs_begin, outputs_end, output_begin, output_end] = OUTPUT_TOKENS;
    push_prose_without(
        text,
        &[
            CALLS_BEGIN,
            CALLS_END,
            outputs_begin,
            outputs_end,
            output_begin,
            output_end,
        ],
        out,
    );
}

/// One call's body, between `<｜tool▁call▁begin｜>` and `<｜tool▁call▁end｜>`.
fn call(body: &str, markup: &str, out: &mut Out<'_>, mut notes: Vec<super::Note>) {
    let Some((head, rest)) = body.split_once(SEP) else {
        out.not_a_call(BEGIN, markup, "it has no <｜tool▁sep｜>");
        return;
    };
    let (name, arguments) = if head.trim() == "function" {
        // V3 / R1: the name on the line after the separator, then a fenced JSON block.
        let (name, fenced) = match rest.find(NAME_ENDS) {
            Some(end) if rest.as_bytes()[end] == b'\n' => (&rest[..end], &rest[end + 1..]),
            Some(end) => {
                notes.push(recovered(
                    "name-line",
                    "the arguments start on the name's line; the name ends before them",
                ));
                rest.split_at(end)
            }
            None => (rest, ""),
        };
        (name.trim(), unfence(fenced))
    } else {
        (head.trim(), rest.trim())
    };
    if name.is_empty() {
        out.not_a_call(BEGIN, markup, "it names no tool");
        return;
    }
    out.call_text(
        name,
        None,
        if arguments.is_empty() { "{}" } else { arguments },
        notes,
    );
}

/// What ends a V3 call's name: its line's end, or (the line break left
/// out) the arguments' fence or object.
const NAME_ENDS: [char; 3] = ['\n', '`', '{'];

/// The JSON inside a Markdown code fence (` ```json … ``` `).
fn unfence(text: &str) -> &str {
    let text = text.trim();
    let text = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .unwrap_or(text);
    text.strip_suffix("```").unwrap_or(text).trim()
}

/// Streamed: a call runs from `<｜tool▁call▁begin｜>` to
/// `<｜tool▁call▁end｜>` (without it, to `<｜tool▁calls▁end｜>` or the next
/// call), its arguments streaming once the name is read; the section
/// tokens and the tool-result tokens are regions of their own, which the
/// parser removes.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[
        BEGIN,
        CALLS_BEGIN,
        CALLS_END,
        OUTPUT_TOKENS[0],
        OUTPUT_TOKENS[1],
        OUTPUT_TOKENS[2],
        OUTPUT_TOKENS[3],
    ],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => Box::new(HeadJson::new(
            Until::new(BEGIN.len(), &[END], &[BEGIN], &[CALLS_END]),
            head,
        )),
        Some(token) => Box::new(Token(STREAM.opens[token].len())),
        None => unreachable!("DeepSeek has no bare markup"),
    }
}

/// A streamed call's head, as [`call`] reads it: `NAME<｜tool▁sep｜>` then
/// the JSON (V3.1), or `function<｜tool▁sep｜>NAME` and a line break, then
/// the JSON in a code fence (V3, R1).
fn head(body: &str) -> Head {
    let Some(sep) = find_tag(body, SEP) else {
        // Only the separator (once whole from its first byte on) decides it.
        return Head::More(Some(token_waits(body, FirstBytes::of_list(&[SEP]), SEP.len())));
    };
    let head = body[..sep].trim();
    let after = sep + SEP.len();
    if head != "function" {
        if head.is_empty() {
            return Head::Whole;
        }
        return object_after(body, after, head, None);
    }
    let Some(line) = body[after..].find(NAME_ENDS) else {
        return Head::More(None);
    };
    let name = body[after..after + line].trim();
    if name.is_empty() {
        return Head::Whole;
    }
    let fenced = after + line + usize::from(body.as_bytes()[after + line] == b'\n');
    let rest = body[fenced..].trim_start();
    let at = body.len() - rest.len();
    let fence = if rest.starts_with("```json") {
        "```json".len()
    } else if could_be(rest, "```json") {
        return Head::More(None);
    } else if rest.starts_with("```") {
        "```".len()
    } else {
        0
    };
    object_after(body, at + fence, name, None)
}
