//! AWS event-stream framing (`application/vnd.amazon.eventstream`), sans-IO:
//! how Bedrock ConverseStream sends its events over HTTP (providers.md §5c).
//!
//! Each message is, big-endian throughout:
//!
//! ```text
//! total length u32 │ headers length u32 │ prelude CRC u32 │ headers │ payload │ message CRC u32
//! ```
//!
//! The prelude CRC covers the two lengths, the message CRC everything
//! before it; both are CRC-32 (the gzip/zlib polynomial). A header is a
//! name (u8 length + UTF-8), a type byte and a value: 0 true, 1 false, 2
//! i8, 3 i16, 4 i32, 5 i64, 6 bytes (u16 length), 7 UTF-8 string (u16
//! length), 8 timestamp (i64 ms), 9 UUID (16 bytes). `:message-type` says
//! what the message is: `event` (the payload is the member named by
//! `:event-type`), `exception` (a modelled error named by
//! `:exception-type`, its payload `{"message": …}`) or `error`
//! (`:error-code`, `:error-message`). Read from botocore's
//! `botocore/eventstream.py` (`EventStreamBuffer`,
//! `EventStreamHeaderParser`, `_MAX_HEADERS_LENGTH` 128 KiB,
//! `_MAX_PAYLOAD_LENGTH` 16 MiB) and the Smithy spec
//! (smithy.io/2.0/aws/amazon-eventstream.html).
//!
//! Bytes come in pieces of any size; a message is given out once all of it
//! has come and both CRCs match. Memory is bounded: a message's length is
//! checked against the limits from its prelude, before its bytes are
//! buffered. Errors name the message and its byte offset in the stream.

use serde_json::Value;

use crate::call::sse::Frame;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;

/// Prelude (two lengths and their CRC) and message CRC: the smallest message.
const PRELUDE: usize = 12;
const OVERHEAD: usize = PRELUDE + 4;
/// The largest headers section and payload AWS clients accept (botocore).
const MAX_HEADERS: usize = 128 * 1024;
const MAX_PAYLOAD: usize = 16 * 1024 * 1024;

/// The CRC-32 table (reflected polynomial 0xEDB88320), built at compile time.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut crc = n as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[n] = crc;
        n += 1;
    }
    table
};

/// The CRC-32 of `bytes` (as zlib's `crc32`).
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &byte| {
        CRC_TABLE[usize::from((crc as u8) ^ byte)] ^ (crc >> 8)
    })
}

/// A header's value, by its type byte.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum HeaderValue {
    Bool(bool),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Bytes(Vec<u8>),
    String(String),
    Timestamp(i64),
    Uuid([u8; 16]),
}

/// One whole message, its CRCs checked.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Message {
    pub headers: Vec<(String, HeaderValue)>,
    pub payload: Vec<u8>,
}

impl Message {
    /// The string header `name`, if there is one.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find_map(|(key, value)| match value {
            HeaderValue::String(text) if key == name => Some(text.as_str()),
            _ => None,
        })
    }
}

/// Reads messages from bytes in pieces of any size.
#[derive(Clone, Debug)]
pub(crate) struct EventStreamReader {
    /// The message being read (its prelude first).
    buffer: Vec<u8>,
    /// The message's total length, once its prelude has been checked.
    total: Option<usize>,
    /// The stream offset of `buffer[0]`.
    offset: usize,
    /// Messages read so far.
    messages: usize,
    max_payload: usize,
    /// The error that stopped the reader: the stream cannot be followed past it.
    failed: Option<Error>,
}

impl EventStreamReader {
    /// A reader whose payloads are at most `limits.max_bytes` (and 16 MiB).
    pub fn new(limits: &Limits) -> EventStreamReader {
        EventStreamReader {
            buffer: Vec::new(),
            total: None,
            offset: 0,
            messages: 0,
            max_payload: limits.max_bytes.min(MAX_PAYLOAD),
            failed: None,
        }
    }

    /// Takes the next bytes; each whole message becomes a frame in `out`
    /// (an `exception` or `error` message is an error).
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<Frame>) -> Result<()> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        while !bytes.is_empty() {
            let want = self.total.unwrap_or(PRELUDE);
            let take = (want - self.buffer.len()).min(bytes.len());
            self.buffer.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.buffer.len() < want {
                break;
            }
            let result = match self.total {
                None => self.prelude().map(|total| self.total = Some(total)),
                Some(_) => self.message(out),
            };
            if let Err(error) = result {
                self.buffer = Vec::new();
                self.failed = Some(error.clone());
                return Err(error);
            }
        }
        Ok(())
    }

    /// The stream ended: an error if it ended inside a message.
    pub fn finish(&mut self) -> Result<()> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.buffer.is_empty() {
            return Ok(());
        }
        let detail = match self.total {
            Some(total) => format!(
                "the stream ended after {} of its {total} bytes",
                self.buffer.len()
            ),
            None => format!(
                "the stream ended after {} of the 12 bytes of its prelude",
                self.buffer.len()
            ),
        };
        Err(self.error(ErrorKind::InvalidResponse, detail))
    }

    /// Checks the prelude in the buffer; the message's total length.
    fn prelude(&self) -> Result<usize> {
        let word = |at: usize| {
            let mut bytes = [0u8; 4];
            bytes.copy_from_slice(&self.buffer[at..at + 4]);
            u32::from_be_bytes(bytes)
        };
        let (total, headers, crc) = (word(0) as usize, word(4) as usize, word(8));
        let computed = crc32(&self.buffer[..8]);
        if crc != computed {
            return Err(self.error(
                ErrorKind::InvalidResponse,
                format!(
                    "prelude CRC mismatch: the message says {crc:#010x}, its bytes give {computed:#010x}"
                ),
            ));
        }
        if total < OVERHEAD || headers > total - OVERHEAD {
            return Err(self.error(
                ErrorKind::InvalidResponse,
                format!("a total length of {total} bytes cannot hold {headers} bytes of headers"),
            ));
        }
        if headers > MAX_HEADERS {
            return Err(self.error(
                ErrorKind::LimitExceeded,
                format!("{headers} bytes of headers, more than {MAX_HEADERS}"),
            ));
        }
        let payload = total - OVERHEAD - headers;
        if payload > self.max_payload {
            return Err(self.error(
                ErrorKind::LimitExceeded,
                format!("a payload of {payload} bytes, more than {}", self.max_payload),
            ));
        }
        Ok(total)
    }

    /// Reads the whole message in the buffer into `out`, and makes room for the next.
    fn message(&mut self, out: &mut Vec<Frame>) -> Result<()> {
        let total = self.buffer.len();
        let (body, tail) = self.buffer.split_at(total - 4);
        let said = u32::from_be_bytes([tail[0], tail[1], tail[2], tail[3]]);
        let computed = crc32(body);
        if said != computed {
            return Err(self.error(
                ErrorKind::InvalidResponse,
                format!(
                    "message CRC mismatch: the message says {said:#010x}, its bytes give {computed:#010x}"
                ),
            ));
        }
        let headers_end = PRELUDE + u32::from_be_bytes([body[4], body[5], body[6], body[7]]) as usize;
        let headers = self.headers(&body[PRELUDE..headers_end])?;
        let message = Message {
            headers,
            payload: body[headers_end..].to_vec(),
        };
        let frame = self.frame(&message);
        self.messages += 1;
        self.offset += total;
        self.buffer.clear();
        self.total = None;
        out.push(frame?);
        Ok(())
    }

    /// The headers section, read by type.
    fn headers(&self, mut bytes: &[u8]) -> Result<Vec<(String, HeaderValue)>> {
        let mut headers: Vec<(String, HeaderValue)> = Vec::new();
        let short = |what: &str| {
            self.error(
                ErrorKind::InvalidResponse,
                format!("the headers end inside {what}"),
            )
        };
        while let Some((&length, rest)) = bytes.split_first() {
            let (name, rest) = take(rest, usize::from(length)).ok_or_else(|| short("a header name"))?;
            let name = std::str::from_utf8(name)
                .map_err(|_| self.error(ErrorKind::InvalidResponse, "a header name is not UTF-8"))?
                .to_string();
            let (&kind, rest) = rest.split_first().ok_or_else(|| short("a header"))?;
            let fixed = |rest: &[u8], width: usize| -> Result<(Vec<u8>, usize)> {
                let (value, _) = take(rest, width).ok_or_else(|| short(&format!("header {name:?}")))?;
                Ok((value.to_vec(), width))
            };
            let signed = |bytes: &[u8]| {
                let mut wide = [if bytes.first().is_some_and(|&b| b >= 0x80) {
                    0xFF
                } else {
                    0
                }; 8];
                wide[8 - bytes.len()..].copy_from_slice(bytes);
                i64::from_be_bytes(wide)
            };
            let (value, used) = match kind {
                0 => (HeaderValue::Bool(true), 0),
                1 => (HeaderValue::Bool(false), 0),
                2 => fixed(rest, 1).map(|(v, n)| (HeaderValue::Byte(signed(&v) as i8), n))?,
                3 => fixed(rest, 2).map(|(v, n)| (HeaderValue::Short(signed(&v) as i16), n))?,
                4 => fixed(rest, 4).map(|(v, n)| (HeaderValue::Int(signed(&v) as i32), n))?,
                5 => fixed(rest, 8).map(|(v, n)| (HeaderValue::Long(signed(&v)), n))?,
                8 => fixed(rest, 8).map(|(v, n)| (HeaderValue::Timestamp(signed(&v)), n))?,
                9 => fixed(rest, 16).map(|(v, n)| {
                    let mut uuid = [0u8; 16];
                    uuid.copy_from_slice(&v);
                    (HeaderValue::Uuid(uuid), n)
                })?,
                6 | 7 => {
                    let (length, after) = take(rest, 2).ok_or_else(|| short(&format!("header {name:?}")))?;
                    let length = usize::from(u16::from_be_bytes([length[0], length[1]]));
                    let (value, _) = take(after, length).ok_or_else(|| short(&format!("header {name:?}")))?;
                    let value = if kind == 6 {
                        HeaderValue::Bytes(value.to_vec())
                    } else {
                        HeaderValue::String(String::from_utf8(value.to_vec()).map_err(|_| {
                            self.error(
                                ErrorKind::InvalidResponse,
                                format!("header {name:?} is not UTF-8"),
                            )
                        })?)
                    };
                    (value, 2 + length)
                }
                other => {
                    return Err(self.error(
                        ErrorKind::InvalidResponse,
                        format!("header {name:?} has the unknown type {other}"),
                    ))
                }
            };
            if headers.iter().any(|(known, _)| *known == name) {
                return Err(self.error(ErrorKind::InvalidResponse, format!("header {name:?} comes twice")));
            }
            headers.push((name, value));
            bytes = &rest[used..];
        }
        Ok(headers)
    }

    /// The frame of an `event` message; the error an `exception` or
    /// `error` message stands for.
    fn frame(&self, message: &Message) -> Result<Frame> {
        let payload = || String::from_utf8_lossy(&message.payload).into_owned();
        match message.header(":message-type").unwrap_or("event") {
            "event" => {
                let data = String::from_utf8(message.payload.clone())
                    .map_err(|_| self.error(ErrorKind::InvalidResponse, "the payload is not UTF-8"))?;
                Ok(Frame {
                    event: message.header(":event-type").map(str::to_string),
                    data,
                    line: self.messages + 1,
                    offset: Some(self.offset),
                })
            }
            "exception" => {
                let name = message.header(":exception-type").unwrap_or("exception");
                let text = payload();
                let said = serde_json::from_str::<Value>(&text)
                    .ok()
                    .and_then(|body| {
                        ["message", "Message"]
                            .iter()
                            .find_map(|key| body.get(key).and_then(Value::as_str).map(str::to_string))
                    })
                    .unwrap_or(text);
                Err(self.error(ErrorKind::ProviderError, format!("{name}: {said}")))
            }
            "error" => {
                let code = message.header(":error-code").unwrap_or("error");
                let said = message.header(":error-message").unwrap_or("");
                Err(self.error(ErrorKind::ProviderError, format!("{code}: {said}")))
            }
            other => Err(self.error(
                ErrorKind::InvalidResponse,
                format!("unknown :message-type {other:?}"),
            )),
        }
    }

    /// An error about the message being read, naming it and its offset.
    fn error(&self, kind: ErrorKind, detail: impl std::fmt::Display) -> Error {
        Error::new(
            kind,
            format!(
                "event-stream message {} (at byte {}): {detail}",
                self.messages + 1,
                self.offset
            ),
        )
    }
}

/// The first `n` bytes and the rest, if there are `n`.
fn take(bytes: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    (bytes.len() >= n).then(|| bytes.split_at(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn crc32_is_zlibs() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    /// A message from awslabs/aws-c-event-stream's test vectors (quoted in
    /// emblica/aws-event-stream-parser-rs, readme.md): one `content-type`
    /// header, payload `{'foo':'bar'}`.
    const VECTOR: &str = "0000003d0000002007fd83960c636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e7b27666f6f273a27626172277d8d9c08b1";

    #[test]
    fn a_published_message_reads_in_any_split() {
        let bytes = hex(VECTOR);
        for split in 0..=bytes.len() {
            let mut reader = EventStreamReader::new(&Limits::default());
            let mut out = Vec::new();
            reader.push(&bytes[..split], &mut out).unwrap();
            reader.push(&bytes[split..], &mut out).unwrap();
            reader.finish().unwrap();
            assert_eq!(out.len(), 1, "split at {split}");
            assert_eq!(out[0].data, "{'foo':'bar'}");
            assert_eq!(
                (out[0].event.as_deref(), out[0].line, out[0].offset),
                (None, 1, Some(0))
            );
        }
    }

    #[test]
    fn corrupt_and_cut_messages_name_the_message_and_its_offset() {
        let bytes = hex(VECTOR);
        let read = |bytes: &[u8]| {
            let mut reader = EventStreamReader::new(&Limits::default());
            let mut out = Vec::new();
            reader
                .push(bytes, &mut out)
                .and_then(|()| reader.finish())
                .unwrap_err()
                .to_string()
        };
        let mut two = bytes.clone();
        two.extend_from_slice(&bytes);
        let mut corrupt = two.clone();
        corrupt[61 + 20] ^= 1;
        assert_eq!(
            read(&corrupt),
            "invalid response: event-stream message 2 (at byte 61): message CRC mismatch: \
             the message says 0x8d9c08b1, its bytes give 0x0d6c1fae"
        );
        let mut prelude = bytes.clone();
        prelude[3] = 0x3e;
        assert_eq!(
            read(&prelude),
            "invalid response: event-stream message 1 (at byte 0): prelude CRC mismatch: \
             the message says 0x07fd8396, its bytes give 0x405df946"
        );
        assert_eq!(
            read(&two[..70]),
            "invalid response: event-stream message 2 (at byte 61): the stream ended after 9 of the 12 bytes of its prelude"
        );
        assert_eq!(
            read(&bytes[..40]),
            "invalid response: event-stream message 1 (at byte 0): the stream ended after 40 of its 61 bytes"
        );
    }
}
