//! Streams driven: the [`Assembler`] (a provider's decoder and its
//! [`Calls`], fed parsed events) and the [`CallStream`] (an assembler
//! behind a [`Framer`], fed raw bytes). The rules they keep are in
//! `assemble.rs`.

use serde_json::Value;

use crate::call::assemble::{CallEvent, Calls, Decode};
use crate::call::sse::{Frame, Framer, Framing};
use crate::call::CallOptions;
use crate::error::{Error, ErrorKind, Result};
use crate::json::check_depth;

/// Puts one provider's streamed calls together from its parsed events.
///
/// Made by [`Format::assembler`](crate::Format::assembler). Events go in
/// one by one ([`push`](Assembler::push), or [`push_frame`](Assembler::push_frame)
/// for a framed event); [`finish`](Assembler::finish) says the stream ended.
/// Every method appends the [`CallEvent`]s it produced to `out`, even when
/// it then fails; an error (a malformed event, a provider's error event, a
/// limit) normally ends the stream, but the assembler stays usable.
#[derive(Debug)]
pub struct Assembler {
    decoder: Box<dyn Decode>,
    calls: Calls,
}

impl Assembler {
    /// An assembler driving `decoder`.
    pub(crate) fn new(decoder: Box<dyn Decode>, opts: &CallOptions) -> Assembler {
        Assembler {
            decoder,
            calls: Calls::new(opts),
        }
    }

    /// How this provider's stream is framed.
    pub fn framing(&self) -> Framing {
        self.decoder.framing()
    }

    /// One parsed event, with its SSE event name if it had one.
    pub fn push(&mut self, event: Option<&str>, data: &Value, out: &mut Vec<CallEvent>) -> Result<()> {
        let result = self.decoder.event(event, data, &mut self.calls);
        out.append(&mut self.calls.events);
        result
    }

    /// One framed event: `[DONE]` ends every open call, blank data is
    /// skipped, anything else must be JSON. Errors carry the frame's line.
    pub fn push_frame(&mut self, frame: &Frame, out: &mut Vec<CallEvent>) -> Result<()> {
        if frame.is_done() {
            self.calls.close_all();
            out.append(&mut self.calls.events);
            return Ok(());
        }
        if frame.data.trim().is_empty() {
            return Ok(());
        }
        let value = parse_event(frame, &self.calls.opts)?;
        self.push(frame.event.as_deref(), &value, out)
            .map_err(|err| match frame.offset {
                _ if err.position().is_some() => err,
                None => err.with_position(frame.line, 1),
                Some(offset) => Error::new(
                    err.kind(),
                    format!(
                        "{} (event-stream message {} at byte {offset})",
                        err.detail(),
                        frame.line
                    ),
                ),
            })
    }

    /// The partial arguments of the call at stream position `index` (the
    /// `index` of its events), borrowed: what its deltas so far parse to,
    /// as they stand after the last event pushed. `None` once the call has
    /// finished (its [`ToolCall`](crate::call::ToolCall) has the arguments), before it has started,
    /// or before its text begins a value.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolbridge::call::CallOptions;
    /// use toolbridge::Format;
    /// let mut assembler = Format::OpenAi.assembler(&CallOptions::default())?;
    /// let mut events = Vec::new();
    /// let chunk = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
    ///     "id": "call_1", "function": {"name": "write", "arguments": "{\"path\": \"src/ma"}}]}}]});
    /// assembler.push(None, &chunk, &mut events)?;
    /// assert_eq!(assembler.partial(0), Some(&json!({"path": "src/ma"})));
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    pub fn partial(&self, index: usize) -> Option<&Value> {
        self.calls.partial(index)
    }

    /// The stream ended: calls the provider did not end are finished with an
    /// [`ArgumentsErrorKind::Unfinished`](crate::call::ArgumentsErrorKind::Unfinished)
    /// error that keeps their text.
    pub fn finish(&mut self, out: &mut Vec<CallEvent>) -> Result<()> {
        self.calls.end_of_stream();
        out.append(&mut self.calls.events);
        Ok(())
    }
}

/// An event's data as JSON, within the depth limit. Errors carry the
/// frame's line, or name an event-stream message and its offset.
fn parse_event(frame: &Frame, opts: &CallOptions) -> Result<Value> {
    let not_json = |detail: &str, line: usize, column: usize| match frame.offset {
        None => Error::new(
            ErrorKind::InvalidResponse,
            format!("the event at stream line {} is not JSON: {detail}", frame.line),
        )
        .with_position(frame.line + line.saturating_sub(1), column),
        Some(offset) => Error::new(
            ErrorKind::InvalidResponse,
            format!(
                "the payload of event-stream message {} (at byte {offset}) is not JSON: {detail} \
                 (payload line {line}, column {column})",
                frame.line
            ),
        ),
    };
    if let Err(err) = check_depth(&frame.data, opts.limits.max_depth) {
        let (line, column) = err.position().unwrap_or((1, 1));
        return Err(match frame.offset {
            None => Error::new(ErrorKind::LimitExceeded, err.detail())
                .with_position(frame.line + line.saturating_sub(1), column),
            Some(offset) => Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "{} (event-stream message {} at byte {offset})",
                    err.detail(),
                    frame.line
                ),
            ),
        });
    }
    serde_json::from_str(&frame.data).map_err(|err| {
        let json: Error = err.into();
        let (line, column) = json.position().unwrap_or((1, 1));
        not_json(json.detail(), line, column)
    })
}

/// A provider's stream as raw bytes: a [`Framer`] and an [`Assembler`].
///
/// Made by [`Format::call_stream`](crate::Format::call_stream).
#[derive(Debug)]
pub struct CallStream {
    framer: Framer,
    assembler: Assembler,
    frames: Vec<Frame>,
}

impl CallStream {
    /// A stream of `assembler`'s provider, framed as it says.
    pub fn new(assembler: Assembler, opts: &CallOptions) -> CallStream {
        CallStream {
            framer: Framer::new(assembler.framing(), &opts.limits),
            assembler,
            frames: Vec::new(),
        }
    }

    /// The next bytes of the stream, split anywhere.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<CallEvent>) -> Result<()> {
        let framed = self.framer.push(bytes, &mut self.frames);
        self.drain(out)?;
        framed
    }

    /// The partial arguments of an open call (see [`Assembler::partial`]).
    pub fn partial(&self, index: usize) -> Option<&Value> {
        self.assembler.partial(index)
    }

    /// The stream ended (see [`Assembler::finish`]).
    pub fn finish(&mut self, out: &mut Vec<CallEvent>) -> Result<()> {
        let framed = self.framer.finish(&mut self.frames);
        self.drain(out)?;
        framed?;
        self.assembler.finish(out)
    }

    fn drain(&mut self, out: &mut Vec<CallEvent>) -> Result<()> {
        // After an error the frames left are dropped: the stream is broken.
        for frame in std::mem::take(&mut self.frames) {
            self.assembler.push_frame(&frame, out)?;
        }
        Ok(())
    }
}
