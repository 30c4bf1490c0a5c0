//! OLMo 3 (AllenAI): `<function_calls>get_weather(city="Paris", days=3)
//! \nnow()</function_calls>`, Python calls a line each between the tags
//! (ollama `model/parsers/olmo3.go`, vLLM `olmo3_tool_parser.py`). Values
//! are read as the [`Pythonic`](super::Family::Pythonic) family reads
//! them, JSON's `true`, `false` and `null` too (OLMo writes both). OLMo 3
//! Think's `<think>…</think>` is reasoning, as every family's is.

use super::pythonic;
use super::pythonic::{Layout, LiveCalls};
use super::scan::{delimited_calls, Out};
use super::stream::markup::{End, Live, Region, Streaming, Until, Waits};

const OPEN: &str = "<function_calls>";
const CLOSE: &str = "</function_calls>";

pub(super) fn detect(text: &str) -> bool {
    text.contains(OPEN)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    delimited_calls(
        text,
        OPEN,
        CLOSE,
        out,
        |_| None,
        |prose, out| out.prose.push_str(prose),
        calls,
    );
}

fn calls(body: &str, whole: &str, out: &mut Out<'_>, notes: Vec<super::Note>) {
    let trimmed = body.trim();
    let read = pythonic::read_call_lines(trimmed, out.limits.max_depth);
    pythonic::add_block(read, trimmed, (OPEN, whole), "the calls", notes, out);
}

/// Streamed: the calls between `<function_calls>` and `</function_calls>`
/// (or the next `<function_calls>` when the end tag is missing) are
/// announced and their arguments sent as the pythonic family's are
/// ([`LiveCalls`], a line each).
pub(super) const STREAM: Streaming = Streaming {
    opens: &[OPEN],
    bare: None,
    region,
    lead: None,
};

fn region(_: Option<usize>) -> Box<dyn Region> {
    Box::new(Calls {
        until: Until::new(OPEN.len(), &[CLOSE], &[OPEN], &[]),
        calls: LiveCalls::new(OPEN.len(), Layout::Lines),
    })
}

/// One `<function_calls>` block being read.
struct Calls {
    until: Until,
    calls: LiveCalls,
}

impl Region for Calls {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let end = self.until.end(text, done);
        let body_end = self.until.body_end(text, end);
        self.calls.read(&text[..body_end], done, live, out);
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        self.calls.wakes(text)?.and(self.until.waits(text))
    }
}
