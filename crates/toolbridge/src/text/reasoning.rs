//! Reasoning blocks: `<think>…</think>` (Qwen3, DeepSeek R1, Kimi, GLM, …),
//! `[THINK]…[/THINK]` (Magistral) and `<|START_THINKING|>…<|END_THINKING|>`
//! (Command R7B and Command A's plan, which ollama's `cohere.go` reads as
//! thinking), `<seed:think>…</seed:think>` (Seed-OSS),
//! `<|open|>think<|sep|>…<|close|>think<|sep|>` (Kimi K3's think channel).
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

pub(super) const OPEN: [&str; 5] = [
    "<think>",
    "[THINK]",
    "<|START_THINKING|>",
    "<seed:think>",
    "<|open|>think<|sep|>",
];
pub(super) const CLOSE: [&str; 5] = [
    "</think>",
    "[/THINK]",
    "<|END_THINKING|>",
    "</seed:think>",
    "<|close|>think<|sep|>",
];

use super::tags::Finder;

/// The text cut into reasoning blocks and the rest, in order.
pub(super) fn segments(text: &str) -> Vec<Segment<'_>> {
    let mut opens = OPEN.map(|tag| Finder::new(text, tag));
    let mut closes = CLOSE.map(|tag| Finder::new(text, tag));
    let mut segments = Vec::new();
    // Where the text not yet in a segment starts, and where the next tag is
    // looked for (after a closing tag that is text).
    let (mut start, mut pos) = (0, 0);
    loop {
        let open = (0..OPEN.len())
            .filter_map(|kind| Some((opens[kind].from(pos)?, kind)))
            .min();
        let close = (0..CLOSE.len())
            .filter_map(|kind| Some((closes[kind].from(pos)?, kind)))
            .min();
        match (open, close) {
            (_, Some((close, kind))) if open.is_none_or(|(open, _)| close < open) => {
                let end = close + CLOSE[kind].len();
                // Only before any other tag can it close a block the
                // prompt opened; later, a closing tag alone is text.
                if pos == 0 {
                    segments.push(Segment::Reasoning(&text[..end]));
                    start = end;
                }
                pos = end;
            }
            (Some((open, kind)), _) => {
                if open > start {
                    segments.push(Segment::Text(&text[start..open]));
                }
                match closes[kind].from(open) {
                    Some(close) => {
                        let end = close + CLOSE[kind].len();
                        segments.push(Segment::Reasoning(&text[open..end]));
                        (start, pos) = (end, end);
                    }
                    None => {
                        segments.push(Segment::Text(&text[open..]));
                        return segments;
                    }
                }
            }
            _ => {
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
