//! LFM2 (Liquid): `<|tool_call_start|>[get_weather(city="Paris")]
//! <|tool_call_end|>`, a Python list of calls between the tokens (ollama
//! `model/parsers/lfm2.go`, vLLM `lfm2_tool_parser.py`; llama.cpp
//! `common/chat-parsers/lfm2.cpp`). Values are Python literals, read as
//! the [`Pythonic`](super::Family::Pythonic) family reads them; ollama also
//! takes one call without the list brackets, and so does this. A list at
//! the start of the text without the tokens around it (a decoder that
//! skips special tokens drops them) is read as the pythonic family reads
//! one, noted, and so is it by ollama; a `<|tool_call_end|>` that ends no
//! call is removed from the prose.

use super::pythonic;
use super::pythonic::LiveCalls;
use super::scan::{delimited_calls, excerpt, push_prose_without, recovered, Out};
use super::stream::markup::{End, Live, Region, Streaming, Token, Until, Waits};

const OPEN: &str = "<|tool_call_start|>";
const CLOSE: &str = "<|tool_call_end|>";

pub(super) fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let before = out.calls.len();
    let taken = pythonic::leading_list(text, out);
    if taken > 0 {
        if let Some(call) = out.calls.get_mut(before) {
            call.notes.push(recovered(
                "missing-control-token",
                "the list of calls is not between <|tool_call_start|> and <|tool_call_end|>; it was read as a bare list",
            ));
        }
    }
    delimited_calls(
        &text[taken..],
        OPEN,
        CLOSE,
        out,
        |_| None,
        |prose, out| push_prose_without(prose, &[CLOSE], out),
        calls,
    );
}

/// The calls between one pair of tokens.
fn calls(body: &str, whole: &str, out: &mut Out<'_>, mut notes: Vec<super::Note>) {
    let trimmed = body.trim();
    let read = if trimmed.starts_with('[') {
        pythonic::read_list(trimmed, out.limits.max_depth)
    } else {
        pythonic::read_bare_call(trimmed, out.limits.max_depth).inspect(|_| {
            notes.push(recovered(
                "missing-bracket",
                "the call is not in a list ([…]); it was read as a list of one",
            ));
        })
    };
    match read {
        Ok(list) => {
            // A stream sent the calls before this text came: they stay calls.
            let rest = trimmed[list.taken..].trim();
            if !rest.is_empty() && list.broken.is_none() {
                notes.push(recovered(
                    "text-after-calls",
                    format!("{} after the list of calls was kept in the prose", excerpt(rest)),
                ));
            }
            pythonic::add_calls(list, notes, out);
            out.prose.push_str(rest);
        }
        Err(why) => out.not_a_call(OPEN, whole, &why),
    }
}

/// Streamed: a call list runs from `<|tool_call_start|>` to
/// `<|tool_call_end|>`, or to the next `<|tool_call_start|>` when its end
/// token is missing; its calls are announced and their arguments sent as
/// the pythonic family's are ([`LiveCalls`]). A list at the start without
/// the tokens is the pythonic family's region; a `<|tool_call_end|>` that
/// ends no call is a region of its own, which the parser removes.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN, CLOSE],
    bare: pythonic::STREAM.bare,
    region,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => Box::new(CallList {
            until: Until::new(OPEN.len(), &[CLOSE], &[OPEN], &[]),
            calls: LiveCalls::new(OPEN.len(), None),
        }),
        Some(_) => Box::new(Token(CLOSE.len())),
        None => (pythonic::STREAM.region)(None),
    }
}

/// One pair of tokens being read.
struct CallList {
    until: Until,
    calls: LiveCalls,
}

impl Region for CallList {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let end = self.until.end(text, done);
        let body = &text[..self.until.body_end(text, end)];
        self.calls.read(body, done, live, out);
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        self.calls.wakes(text)?.and(self.until.waits(text))
    }
}
