//! What a family's reader waits for between reads ([`Region::wakes`](super::markup::Region::wakes),
//! [`Region::streams`](super::markup::Region::streams)): a piece of text that brings none of it is not
//! read, and the events are those of reading every piece.

use super::markup::{ByteSet, FirstBytes};

/// What a reader waits for ([`Region::wakes`](super::markup::Region::wakes), [`Region::streams`](super::markup::Region::streams)).
#[derive(Clone, Copy, Debug)]
pub(in crate::text) struct Waits {
    /// Bytes that end the wait wherever they are: the first bytes of the
    /// tokens looked for, and outside strings the bytes a value's scanner
    /// acts on.
    pub stops: FirstBytes,
    /// Inside a string (of the JSON or Python the reader scans): its
    /// closing quote, one not escaped, ends the wait too.
    pub string: Option<InString>,
    /// The region's length from which it must be read again, whatever the
    /// bytes: a reader whose look stopped where a tag may start (cut by the
    /// end of the text) finds nothing before the region holds the shortest
    /// tag from there.
    pub ready_at: Option<usize>,
}

/// Where a scanner is inside a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::text) struct InString {
    /// The quote that closes it.
    pub quote: u8,
    /// Whether its next byte is escaped by a backslash.
    pub escaped: bool,
}

impl Waits {
    /// The bytes of JSON that could end a value outside strings.
    pub const JSON: FirstBytes = FirstBytes::of_bytes(b"\"{}[]");

    /// A wait for any of `stops`.
    pub fn bytes(stops: FirstBytes) -> Waits {
        Waits {
            stops,
            string: None,
            ready_at: None,
        }
    }

    /// A wait for the region to be `len` bytes long, whatever comes.
    pub fn until(len: usize) -> Waits {
        Waits {
            stops: FirstBytes::NONE,
            string: None,
            ready_at: Some(len),
        }
    }

    /// The wait of a scanner of JSON or Python values where it stopped:
    /// inside a string (`open_string`: its quote, and whether the next byte
    /// is escaped), for its closing quote; outside, for any of `outside`.
    pub fn scanning(open_string: Option<(u8, bool)>, outside: FirstBytes) -> Waits {
        match open_string {
            Some((quote, escaped)) => Waits {
                stops: FirstBytes::NONE,
                string: Some(InString { quote, escaped }),
                ready_at: None,
            },
            None => Waits::bytes(outside),
        }
    }

    /// The bytes [`takes`](Waits::takes) must look at more closely: the
    /// stops and `also` (which holds every `also` that `takes` is given),
    /// and inside a string its quote and the backslash. Worked out once
    /// per wait, so that each byte of a piece gets one look.
    pub fn look(&self, also: &FirstBytes) -> ByteSet {
        match self.string {
            Some(InString { quote, .. }) => self.stops.union(also, &[b'\\', quote]),
            // Unused: outside a string, a byte is looked at once anyway.
            None => ByteSet::default(),
        }
    }

    /// Whether `piece`, making the region `len` bytes long, brings nothing
    /// waited for, nor any of `also`; if so, moves on past it (inside a
    /// string, past its escapes). `look` is [`look`](Waits::look)'s set for
    /// this wait.
    ///
    /// One look at each byte (a piece is a token or a few: a loop costs
    /// less than setting up a vectorised search).
    #[inline]
    pub fn takes(&mut self, piece: &[u8], len: usize, also: &FirstBytes, look: &ByteSet) -> bool {
        if self.ready_at.is_some_and(|ready| len >= ready) {
            return false;
        }
        let stops = |byte: u8| self.stops.contains(byte) || also.contains(byte);
        let Some(InString { quote, mut escaped }) = self.string else {
            return !piece.iter().any(|&byte| stops(byte));
        };
        for &byte in piece {
            if !escaped && !look.contains(byte) {
                continue;
            }
            if stops(byte) {
                return false;
            }
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == quote {
                return false;
            }
        }
        self.string = Some(InString { quote, escaped });
        true
    }

    /// The wait of a reader given the text from byte `start` on, as the
    /// wait of the whole text (its length counted from the whole's start).
    pub fn after(self, start: usize) -> Waits {
        Waits {
            ready_at: self.ready_at.map(|len| start + len),
            ..self
        }
    }

    /// What both `self` and `other` wait for, when they agree on where
    /// they are inside a string (if they are).
    pub fn and(self, other: Waits) -> Option<Waits> {
        let string = match (self.string, other.string) {
            (Some(one), Some(two)) if one != two => return None,
            (one, two) => one.or(two),
        };
        let ready_at = match (self.ready_at, other.ready_at) {
            (Some(one), Some(two)) => Some(one.min(two)),
            (one, two) => one.or(two),
        };
        Some(Waits {
            stops: self.stops.and(other.stops),
            string,
            ready_at,
        })
    }
}

/// What a reader that looks for tags starting with `wakes` (the shortest
/// `shortest` bytes long), and stopped at `from`, waits for: any of
/// `wakes` when none is in `text[from..]`; else, where the first one is, a
/// tag may start (the look stops there when a tag could be cut by the end
/// of the text), and nothing can be found before the region holds the
/// shortest tag from there. A tag already whole there gives a length the
/// region has: it is read again at once.
pub(in crate::text) fn waiting(text: &str, from: usize, wakes: FirstBytes, shortest: usize) -> Waits {
    let rest = text.as_bytes().get(from..).unwrap_or_default();
    match wakes.position_in(rest) {
        None => Waits::bytes(wakes),
        Some(at) => Waits::until(from + at + shortest.max(1)),
    }
}

/// What a call's head that ends with a token (starting with any of
/// `wakes`, `len` bytes long) waits for in its `body` so far: any of
/// `wakes`; once one came, the body long enough to hold the token from
/// there ([`waiting`] from the body's start, its length counted from there).
pub(in crate::text) fn token_waits(body: &str, wakes: FirstBytes, len: usize) -> Waits {
    match wakes.position_in(body.as_bytes()) {
        None => Waits::bytes(wakes),
        Some(at) => Waits::until(at + len),
    }
}

/// The length of the shortest of `tags` (0 for none).
pub(in crate::text) fn shortest<'t>(tags: impl IntoIterator<Item = &'t str>) -> usize {
    tags.into_iter().map(str::len).min().unwrap_or(0)
}

/// What a reader of tagged parameters waits for ([`Region::wakes`](super::markup::Region::wakes)):
/// inside a value starting at `value` (looked at up to `scanned` for its
/// end, as [`value_end`](super::markup::value_end) looks), its `end_tag` or the `next` parameter's
/// tag; between parameters (`value` is `None`), the `next` tag from `at`.
pub(in crate::text) fn parameter_waits(
    text: &str,
    value: Option<usize>,
    scanned: usize,
    at: usize,
    end_tag: &str,
    next: &str,
) -> Waits {
    match value {
        Some(start) => waiting(
            text,
            scanned.max(start),
            FirstBytes::of_list(&[end_tag, next]),
            end_tag.len().min(next.len()),
        ),
        None => waiting(text, at, FirstBytes::of_list(&[next]), next.len()),
    }
}
