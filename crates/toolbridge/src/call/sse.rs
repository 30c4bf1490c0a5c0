//! Raw stream bytes into events, sans-IO: Server-Sent Events (OpenAI,
//! Anthropic, Gemini, Mistral, Cohere), newline-delimited JSON (Ollama) and
//! AWS's binary event stream (Bedrock; see `eventstream.rs`), or Bedrock's
//! events as the AWS SDKs print them, one JSON object per line.
//!
//! Bytes come in arbitrary pieces: a line, or a UTF-8 character, may be
//! split anywhere, `\r\n` may be split between its two bytes. Per the SSE
//! specification lines end with `\r\n`, `\n` or `\r`; lines starting with `:`
//! are comments; `data:` lines of one event are joined with `\n`; one space
//! after the colon is dropped; a blank line ends the event; a byte order mark
//! at the start is skipped. `data: [DONE]` (OpenAI's end marker) comes out as
//! an ordinary frame ([`Frame::is_done`]). Unlike the specification, an event
//! the stream ends inside (no blank line after it) is still given out by
//! [`Framer::finish`]: servers that omit the last blank line exist, and a
//! cut-off event fails visibly when its JSON is read.
//!
//! Memory is bounded: a line, and an event's data, longer than
//! [`Limits::max_bytes`] is an error naming its line.

use crate::call::eventstream::EventStreamReader;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;

/// How a stream is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Framing {
    /// Server-Sent Events (`text/event-stream`).
    Sse,
    /// One JSON value per line (`application/x-ndjson`).
    Ndjson,
    /// AWS's binary event stream (`application/vnd.amazon.eventstream`,
    /// Bedrock ConverseStream): each message's `:event-type` header is the
    /// frame's event and its payload the data; an `exception` or `error`
    /// message is a [`ProviderError`](crate::ErrorKind::ProviderError)
    /// naming it. A stream whose first byte is text (`{`, whitespace, a
    /// byte order mark) is read as [`Ndjson`](Framing::Ndjson) instead: the
    /// `{"<member>": {…}}` lines the AWS SDKs print. (A binary message
    /// starts with the high byte of its big-endian length, 0 for any
    /// message under 16 MiB.)
    EventStream,
}

/// One event of a stream: an SSE event, or one NDJSON line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Frame {
    /// The SSE `event:` name, if one was given.
    pub event: Option<String>,
    /// The data: the `data:` lines joined with `\n`, or the NDJSON line.
    pub data: String,
    /// The 1-based line of the stream where the event's first data line
    /// is; for an event-stream message, its 1-based number in the stream.
    pub line: usize,
    /// For an event-stream message, the byte offset of its start in the
    /// stream; `None` for the line-based framings.
    pub offset: Option<usize>,
}

impl Frame {
    /// A frame with this data and no event name, at line 1.
    pub fn new(data: impl Into<String>) -> Frame {
        Frame {
            event: None,
            data: data.into(),
            line: 1,
            offset: None,
        }
    }

    /// True for OpenAI's end marker, `data: [DONE]`.
    pub fn is_done(&self) -> bool {
        self.data.trim() == "[DONE]"
    }
}

/// Turns raw bytes, in pieces of any size, into [`Frame`]s.
///
/// ```
/// use toolbridge::call::{Framer, Framing};
/// let mut framer = Framer::new(Framing::Sse, &Default::default());
/// let mut frames = Vec::new();
/// framer.push(b"event: ping\r\ndata: {\"a\":\r\ndata: 1}\r", &mut frames)?;
/// assert!(frames.is_empty());
/// framer.push(b"\n\r\n: comment\n\ndata: [DONE]\n\n", &mut frames)?;
/// assert_eq!(frames[0].event.as_deref(), Some("ping"));
/// assert_eq!(frames[0].data, "{\"a\":\n1}");
/// assert!(frames[1].is_done());
/// # Ok::<(), toolbridge::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Framer {
    framing: Framing,
    max_bytes: usize,
    /// The bytes of the line not yet ended.
    line: Vec<u8>,
    /// The last byte was `\r`: a `\n` right after it belongs to the same line end.
    after_cr: bool,
    /// Lines ended so far.
    lines: usize,
    /// At the very start (a byte order mark may follow).
    at_start: bool,
    /// The event being built (SSE).
    event: Option<String>,
    data: String,
    has_data: bool,
    data_line: usize,
    /// The binary reader, for [`Framing::EventStream`] once the first byte
    /// said the stream is binary.
    binary: Option<Box<EventStreamReader>>,
    limits: Limits,
}

impl Framer {
    /// A framer for `framing`, bounded by `limits`.
    pub fn new(framing: Framing, limits: &Limits) -> Framer {
        Framer {
            framing,
            max_bytes: limits.max_bytes,
            line: Vec::new(),
            after_cr: false,
            lines: 0,
            at_start: true,
            event: None,
            data: String::new(),
            has_data: false,
            data_line: 0,
            binary: None,
            limits: limits.clone(),
        }
    }

    /// The framing this framer reads ([`Framing::EventStream`] becomes
    /// [`Framing::Ndjson`] once the stream's first byte is text).
    pub fn framing(&self) -> Framing {
        self.framing
    }

    /// Takes the next piece of the stream; every event it completes is
    /// appended to `out` (even when a later line in the piece fails).
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<Frame>) -> Result<()> {
        if self.framing == Framing::EventStream {
            match bytes.first() {
                None => return Ok(()),
                Some(0xEF | b'{' | b'[' | b' ' | b'\t' | b'\r' | b'\n') if self.binary.is_none() => {
                    self.framing = Framing::Ndjson;
                }
                Some(_) => {
                    let limits = &self.limits;
                    let reader = self
                        .binary
                        .get_or_insert_with(|| Box::new(EventStreamReader::new(limits)));
                    return reader.push(bytes, out);
                }
            }
        }
        if self.at_start {
            // A byte order mark may itself arrive split; wait for three bytes.
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            let have = self.line.len() + bytes.len();
            let mut head = self.line.clone();
            head.extend_from_slice(&bytes[..bytes.len().min(3)]);
            if have < 3 && BOM.starts_with(&head) {
                self.line = head;
                return Ok(());
            }
            self.at_start = false;
            if head.starts_with(BOM) {
                let from_bytes = 3 - self.line.len();
                self.line.clear();
                bytes = &bytes[from_bytes..];
            }
        }
        while !bytes.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            match bytes.iter().position(|&byte| byte == b'\n' || byte == b'\r') {
                Some(end) => {
                    self.extend_line(&bytes[..end])?;
                    self.after_cr = bytes[end] == b'\r';
                    bytes = &bytes[end + 1..];
                    self.end_line(out)?;
                }
                None => {
                    self.extend_line(bytes)?;
                    bytes = &[];
                }
            }
        }
        Ok(())
    }

    /// Ends the stream: the last line and event, if unfinished, are given out.
    pub fn finish(&mut self, out: &mut Vec<Frame>) -> Result<()> {
        if let Some(reader) = &mut self.binary {
            return reader.finish();
        }
        if self.at_start {
            // Fewer than three bytes, all a prefix of a byte order mark.
            self.at_start = false;
            if self.line.iter().all(|&byte| byte >= 0x80) {
                self.line.clear();
            }
        }
        if !self.line.is_empty() {
            self.end_line(out)?;
        }
        self.after_cr = false;
        self.dispatch(out);
        Ok(())
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<()> {
        if self.line.len() + bytes.len() > self.max_bytes {
            let line = self.lines + 1;
            self.line.clear();
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("stream line {line} is longer than {} bytes", self.max_bytes),
            )
            .with_position(line, self.max_bytes + 1));
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<Frame>) -> Result<()> {
        self.lines += 1;
        let bytes = std::mem::take(&mut self.line);
        match self.framing {
            Framing::Ndjson | Framing::EventStream => {
                let text = self.text(bytes)?;
                if !text.trim().is_empty() {
                    out.push(Frame {
                        event: None,
                        data: text,
                        line: self.lines,
                        offset: None,
                    });
                }
            }
            Framing::Sse => {
                if bytes.is_empty() {
                    self.dispatch(out);
                } else if bytes[0] != b':' {
                    let text = self.text(bytes)?;
                    self.field(&text)?;
                }
            }
        }
        Ok(())
    }

    fn text(&self, bytes: Vec<u8>) -> Result<String> {
        String::from_utf8(bytes).map_err(|err| {
            let valid = err.utf8_error().valid_up_to();
            let column = String::from_utf8_lossy(&err.as_bytes()[..valid]).chars().count() + 1;
            Error::new(
                ErrorKind::InvalidResponse,
                format!("stream line {} is not valid UTF-8", self.lines),
            )
            .with_position(self.lines, column)
        })
    }

    fn field(&mut self, line: &str) -> Result<()> {
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match name {
            "event" => self.event = Some(value.to_string()),
            "data" => {
                let added = value.len() + usize::from(self.has_data);
                if self.data.len() + added > self.max_bytes {
                    let line = self.lines;
                    self.reset();
                    return Err(Error::new(
                        ErrorKind::LimitExceeded,
                        format!(
                            "the event at stream line {line} has more than {} bytes of data",
                            self.max_bytes
                        ),
                    )
                    .with_position(line, 1));
                }
                if self.has_data {
                    self.data.push('\n');
                } else {
                    self.data_line = self.lines;
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            // `id`, `retry` and unknown fields carry nothing about calls.
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<Frame>) {
        if self.has_data {
            out.push(Frame {
                event: self.event.take(),
                data: std::mem::take(&mut self.data),
                line: self.data_line,
                offset: None,
            });
        }
        self.reset();
    }

    fn reset(&mut self) {
        self.event = None;
        self.data.clear();
        self.has_data = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(framing: Framing, pieces: &[&[u8]]) -> Vec<Frame> {
        let mut framer = Framer::new(framing, &Limits::default());
        let mut out = Vec::new();
        for piece in pieces {
            framer.push(piece, &mut out).unwrap();
        }
        framer.finish(&mut out).unwrap();
        out
    }

    fn data(frames: &[Frame]) -> Vec<&str> {
        frames.iter().map(|frame| frame.data.as_str()).collect()
    }

    #[test]
    fn sse_fields_comments_and_multi_line_data() {
        let out = frames(
            Framing::Sse,
            &[b": hello\nevent: a\nid: 7\nretry: 10\ndata:x\ndata: y\ndata\n\n\n\ndata: z\n\n"],
        );
        assert_eq!(data(&out), ["x\ny\n", "z"]);
        assert_eq!(out[0].event.as_deref(), Some("a"));
        assert_eq!((out[0].line, out[1].line), (5, 11));
        assert_eq!(out[1].event, None);
    }

    #[test]
    fn every_line_end_and_every_split() {
        let whole: &[u8] = "data: é1\r\n\r\ndata: 中2\r\rdata: 3\n\n".as_bytes();
        let expected = ["é1", "中2", "3"];
        assert_eq!(data(&frames(Framing::Sse, &[whole])), expected);
        for split in 0..=whole.len() {
            let (a, b) = whole.split_at(split);
            assert_eq!(data(&frames(Framing::Sse, &[a, b])), expected, "split at {split}");
        }
        let bytes: Vec<&[u8]> = whole.chunks(1).collect();
        assert_eq!(data(&frames(Framing::Sse, &bytes)), expected);
    }

    #[test]
    fn a_byte_order_mark_is_skipped_even_when_split() {
        let whole = b"\xEF\xBB\xBFdata: 1\n\n";
        for split in 0..=whole.len() {
            let (a, b) = whole.split_at(split);
            assert_eq!(data(&frames(Framing::Sse, &[a, b])), ["1"], "split at {split}");
        }
        assert_eq!(data(&frames(Framing::Ndjson, &[b"\xEF\xBB\xBF{}\n"])), ["{}"]);
    }

    #[test]
    fn an_unfinished_last_event_is_still_given_out() {
        assert_eq!(data(&frames(Framing::Sse, &[b"data: [DONE]"])), ["[DONE]"]);
        assert!(frames(Framing::Sse, &[b"data: [DONE]"])[0].is_done());
        assert_eq!(
            data(&frames(Framing::Ndjson, &[b"{\"a\":1}\r\n\n{\"b\":2}"])),
            ["{\"a\":1}", "{\"b\":2}"]
        );
    }

    #[test]
    fn lines_and_events_are_bounded() {
        let limits = Limits::default().with_max_bytes(12);
        let mut framer = Framer::new(Framing::Sse, &limits);
        let mut out = Vec::new();
        framer.push(b"data: 1234", &mut out).unwrap();
        let err = framer.push(b"567\n", &mut out).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        assert_eq!(
            err.to_string(),
            "limit exceeded: stream line 1 is longer than 12 bytes (line 1, column 13)"
        );
        let mut framer = Framer::new(Framing::Sse, &limits);
        let err = framer.push(b"data:1234567\ndata:123456\n", &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit exceeded: the event at stream line 2 has more than 12 bytes of data (line 2, column 1)"
        );
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let mut framer = Framer::new(Framing::Sse, &Limits::default());
        let err = framer
            .push(b"data: ok\n\ndata: a\xFFb\n", &mut Vec::new())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid response: stream line 3 is not valid UTF-8 (line 3, column 8)"
        );
    }
}
