//! Reasoning blocks: `<think>…</think>` (Qwen3, DeepSeek R1, Kimi, GLM, …),
//! `[THINK]…[/THINK]` (Magistral) and `<|START_THINKING|>…<|END_THINKING|>`
//! (Command R7B and Command A's plan, which ollama's `cohere.go` reads as
//! thinking).
//!
//! A call inside a closed block is the model thinking about a call, not
//! making one; inside a block that never closes it is a call (Kimi K2
//! Thinking emits its calls there; providers.md §15.4). A closing tag with
//! no opening one closes a block the chat template opened in the prompt
//! (Qwen3, DeepSeek R1): the text before it is reasoning.

/// One stretch of the text.
#[derive(Debug, PartialEq)]
pub(super) enum Segment<'t> {
    /// A closed reasoning block, tags included: prose, never calls.
    Reasoning(&'t str),
    /// Text where calls are looked for.
    Text(&'t str),
}

pub(super) const OPEN: [&str; 3] = ["<think>", "[THINK]", "<|START_THINKING|>"];
pub(super) const CLOSE: [&str; 3] = ["</think>", "[/THINK]", "<|END_THINKING|>"];

use super::tags::Finder;

/// The text cut into reasoning blocks and the rest, in order.
pub(super) fn segments(text: &str) -> Vec<Segment<'_>> {
    let mut opens = OPEN.map(|tag| Finder::new(text, tag));
    let mut closes = CLOSE.map(|tag| Finder::new(text, tag));
    let mut segments = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let open = (0..OPEN.len())
            .filter_map(|kind| Some((opens[kind].from(pos)?, kind)))
            .min();
        let close = (0..CLOSE.len())
            .filter_map(|kind| Some((closes[kind].from(pos)?, kind)))
            .min();
        match (open, close) {
            (_, Some((close, kind))) if open.is_none_or(|(open, _)| close < open) => {
                let end = close + CLOSE[kind].len();
                segments.push(Segment::Reasoning(&text[pos..end]));
                pos = end;
            }
            (Some((open, kind)), _) => {
                if open > pos {
                    segments.push(Segment::Text(&text[pos..open]));
                }
                match closes[kind].from(open) {
                    Some(close) => {
                        let end = close + CLOSE[kind].len();
                        segments.push(Segment::Reasoning(&text[open..end]));
                        pos = end;
                    }
                    None => {
                        segments.push(Segment::Text(&text[open..]));
                        pos = text.len();
                    }
                }
            }
            _ => {
                segments.push(Segment::Text(&text[pos..]));
                pos = text.len();
            }
        }
    }
    segments
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
    }
}
