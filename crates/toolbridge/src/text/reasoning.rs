//! Reasoning blocks: `<think>…</think>` (Qwen3, DeepSeek R1, Kimi, GLM, …),
//! `[THINK]…[/THINK]` (Magistral) and `<|START_THINKING|>…<|END_THINKING|>`
//! (Command R7B and Command A's plan, which ollama's `cohere.go` reads as
//! thinking), `<seed:think>…</seed:think>` (Seed-OSS),
//! `<|open|>think<|sep|>…<|close|>think<|sep|>` (Kimi K3's think channel),
//! `<mm:think>…</mm:think>` (MiniMax-M3).
//!
//! A call inside a closed block is the model thinking about a call, not
//! making one; inside a block that never closes it is a call (Kimi K2
//! Thinking emits its calls there; providers.md §15.4). A closing tag with
//! no opening one, before any other reasoning tag, closes a block the chat
//! template opened in the prompt (Qwen3, DeepSeek R1): the text before it
//! is reasoning. Any later closing tag alone is text (a value may hold
//! `</think>`: llama.cpp `test-chat.cpp`, Ling's marker-like strings).

/// One stretch of the text.
#[derive(Debug, PartialEq)]
pub(super) enum Segment<'t> {
    /// A closed reasoning block, tags included: prose, never calls.
    Reasoning(&'t str),
    /// Text where calls are looked for.
    Text(&'t str),
}

pub(super) const OPEN: [&str; 6] = [
    "<think>",
    "[THINK]",
    "<|START_THINKING|>",
    "<seed:think>",
    "<|open|>think<|sep|>",
    "<mm:think>",
];
pub(super) const CLOSE: [&str; 6] = [
    "</think>",
    "[/THINK]",
    "<|END_THINKING|>",
    "</seed:think>",
    "<|close|>think<|sep|>",
    "</mm:think>",
];

/// The reasoning tags, opening ones first, looked for in one pass.
pub(super) const TAGS: [&str; 12] = [
    OPEN[0], OPEN[1], OPEN[2], OPEN[3], OPEN[4], OPEN[5], CLOSE[0], CLOSE[1], CLOSE[2], CLOSE[3], CLOSE[4],
    CLOSE[5],
];
/// Their first bytes.
pub(super) const STARTS: FirstBytes = FirstBytes::of_list(&TAGS);

use super::tags::{find_tag, scan_tags_with, FirstBytes};

/// The text cut into reasoning blocks and the rest, in order.
///
/// The tags are found in one pass over the text for all of them (a
/// `memchr` for their first bytes); a block's closing tag is searched from
/// its opening one. An opening tag never closed ends the look, so the
/// text is read once however many tags it holds.
pub(super) fn segments(text: &str) -> Vec<Segment<'_>> {
    let mut segments = Vec::new();
    // Where the text not yet in a segment starts, and where the next tag is
    // looked for (after a closing tag that is text).
    let (mut start, mut pos) = (0, 0);
    loop {
        match scan_tags_with(text, pos, &TAGS, STARTS) {
            Ok((close, which)) if which >= OPEN.len() => {
                let end = close + CLOSE[which - OPEN.len()].len();
                // Only before any other tag can it close a block the
                // prompt opened; later, a closing tag alone is text.
                if pos == 0 {
                    segments.push(Segment::Reasoning(&text[..end]));
                    start = end;
                }
                pos = end;
            }
            Ok((open, kind)) => {
                if open > start {
                    segments.push(Segment::Text(&text[start..open]));
                }
                let close = CLOSE[kind];
                match find_tag(&text[open..], close) {
                    Some(at) => {
                        let end = open + at + close.len();
                        segments.push(Segment::Reasoning(&text[open..end]));
                        (start, pos) = (end, end);
                    }
                    None => {
                        segments.push(Segment::Text(&text[open..]));
                        return segments;
                    }
                }
            }
            Err(_) => {
                if start < text.len() {
                    segments.push(Segment::Text(&text[start..]));
                }
                return segments;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Segment::{Reasoning, Text};

    #[test]
    fn closed_blocks_are_reasoning_unclosed_ones_are_text() {
        assert_eq!(
            segments("a<think>b</think>c[THINK]d"),
            [
                Text("a"),
                Reasoning("<think>b</think>"),
                Text("c"),
                Text("[THINK]d")
            ]
        );
        assert_eq!(
            segments("plan</think>\nanswer"),
            [Reasoning("plan</think>"), Text("\nanswer")]
        );
        assert_eq!(
            segments("[THINK]x</think>y[/THINK]"),
            [Reasoning("[THINK]x</think>y[/THINK]")]
        );
        // A closing tag alone closes the prompt's block only before any other tag.
        assert_eq!(
            segments("plan</think>a<tool_call>b</think>c"),
            [Reasoning("plan</think>"), Text("a<tool_call>b</think>c")]
        );
        assert_eq!(
            segments("<think>x</think>a</think>b"),
            [Reasoning("<think>x</think>"), Text("a</think>b")]
        );
    }
}
