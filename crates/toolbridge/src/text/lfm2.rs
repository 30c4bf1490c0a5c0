//! LFM2 (Liquid): `<|tool_call_start|>[get_weather(city="Paris")]
//! <|tool_call_end|>`, a Python list of calls between the tokens (ollama
//! `model/parsers/lfm2.go`, vLLM `lfm2_tool_parser.py`; llama.cpp
//! `common/chat-parsers/lfm2.cpp`). Values are Python literals, read as
//! the [`Pythonic`](super::Family::Pythonic) family reads them; ollama also
//! takes one call without the list brackets, and so does this. A list at
//! the start of the text without the tokens around it (a decoder that
//! skips special tokens drops them) is read as the pythonic family reads
//! one, noted, and so is it by ollama; a `<|tool_call_end|>` that ends no
//! call is removed from the prose. LFM2 often writes a call's list again
//! after it, closed by a second `<|tool_call_end|>` (vLLM
//! `test_echoed_tool_call_body_not_leaked_to_content`): that exact copy is
//! dropped, noted on the call.

use std::cell::Cell;

use super::pythonic;
use super::pythonic::{Layout, LiveCalls};
use super::scan::{delimited_calls, push_prose_without, recovered, Out};
use super::stream::markup::{could_be, End, Live, Region, Streaming, Token, Until, Waits};

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
    // The list of the call before the prose, when its end token closed it.
    let last = Cell::new(None);
    delimited_calls(
        &text[taken..],
        OPEN,
        CLOSE,
        out,
        |_| None,
        |prose, out| {
            let prose = match last.take() {
                Some(list) => without_echo(prose, list, out),
                None => prose,
            };
            push_prose_without(prose, &[CLOSE], out)
        },
        |body, whole, out, notes| {
            last.set(
                whole
                    .ends_with(CLOSE)
                    .then(|| body.trim())
                    .filter(|list| !list.is_empty()),
            );
            calls(body, whole, out, notes)
        },
    );
}

/// `prose` without the copy of the call `list` before it that the model
/// wrote again, closed by a second `<|tool_call_end|>` (see [`echo_len`]);
/// the copy is noted on the last call.
fn without_echo<'t>(prose: &'t str, list: &str, out: &mut Out<'_>) -> &'t str {
    let Echo::Whole(len) = echo_len(prose, list, &mut 0) else {
        return prose;
    };
    if let Some(call) = out.calls.last_mut() {
        call.notes.push(recovered(
            "echoed-call",
            "the list of calls was written again after its <|tool_call_end|>, closed by another; the copy was dropped",
        ));
    }
    &prose[len..]
}

/// What the text after a call's `<|tool_call_end|>` holds of a copy of its
/// `list`: space, the list exactly, space, `<|tool_call_end|>`.
enum Echo {
    /// The whole copy, this long.
    Whole(usize),
    /// Its start, cut by the end of the text.
    Cut,
    /// No copy.
    No,
}

/// `matched` is how many bytes of the copy an earlier look at a shorter
/// `after` found equal to the list (0 for none), so that a stream looks at
/// each byte once; it grows with what this look finds.
fn echo_len(after: &str, list: &str, matched: &mut usize) -> Echo {
    let spaced = |text: &str| text.len() - text.trim_start().len();
    let at = spaced(after);
    let (rest, list) = (&after.as_bytes()[at..], list.as_bytes());
    let upto = rest.len().min(list.len());
    let from = (*matched).min(upto);
    if rest[from..upto] != list[from..upto] {
        return Echo::No;
    }
    *matched = upto;
    if rest.len() < list.len() {
        return Echo::Cut;
    }
    let end = at + list.len() + spaced(&after[at + list.len()..]);
    match &after[end..] {
        tail if tail.starts_with(CLOSE) => Echo::Whole(end + CLOSE.len()),
        tail if could_be(tail, CLOSE) || tail.is_empty() => Echo::Cut,
        _ => Echo::No,
    }
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
    pythonic::add_block(read, trimmed, (OPEN, whole), "the list of calls", notes, out);
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
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => Box::new(CallList {
            until: Until::new(OPEN.len(), &[CLOSE], &[OPEN], &[]),
            calls: LiveCalls::new(OPEN.len(), Layout::ListOrAlone),
            closed: false,
            matched: 0,
        }),
        Some(_) => Box::new(Token(CLOSE.len())),
        None => (pythonic::STREAM.region)(None),
    }
}

/// One pair of tokens being read; once its end token came, a copy of its
/// list after it (see [`echo_len`]) is held until it is whole (then the
/// region runs to the copy's end token, which the parse drops) or is not one.
struct CallList {
    until: Until,
    calls: LiveCalls,
    /// Whether the end token came.
    closed: bool,
    /// How much of a copy after it matched so far (see [`echo_len`]).
    matched: usize,
}

impl Region for CallList {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let end = self.until.end(text, done);
        let body_end = self.until.body_end(text, end);
        if !self.closed {
            self.calls.read(&text[..body_end], done, live, out);
        }
        let End::Call(len) = end else {
            return end;
        };
        if body_end == len {
            return end;
        }
        self.closed = true;
        let list = text[OPEN.len()..body_end].trim();
        if list.is_empty() {
            return end;
        }
        match echo_len(&text[len..], list, &mut self.matched) {
            Echo::Whole(echo) => End::Call(len + echo),
            Echo::Cut if !done => End::More,
            Echo::Cut | Echo::No => end,
        }
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        if self.closed {
            return None;
        }
        self.calls.wakes(text)?.and(self.until.waits(text))
    }
}
