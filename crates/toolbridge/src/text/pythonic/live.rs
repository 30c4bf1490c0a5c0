//! A list of calls read as it arrives.

use super::read::{Nesting, Reader};
use crate::text::envelope::HEAD_WINDOW;
use crate::text::scan::Out;
use crate::text::stream::markup::{FirstBytes, Live, LiveCall, Waits};

/// Calls in a list as they arrive (or LFM2's call alone, or OLMo 3's a
/// line each): each announced once its head (`name(` then `)` or `key=`,
/// as the parse reads a head) is read, each keyword argument sent once its
/// `,` or the call's `)` arrives, read as the parse reads it. At an item it
/// cannot read so, it stops: the calls after it come when the region
/// closes, so the announced calls are the list's first ones, in order.
pub(in crate::text) struct LiveCalls {
    /// The next byte to look at.
    at: usize,
    layout: Layout,
    reading: Reading,
}

/// How the calls are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::text) enum Layout {
    /// In a list, `[f(a=1), g()]`.
    List,
    /// A list, or one call alone (not known yet: LFM2 may write either).
    ListOrAlone,
    /// One call alone.
    Alone,
    /// One after another, a line each (OLMo 3).
    Lines,
}

/// Where [`LiveCalls`] is.
enum Reading {
    /// Before the list's `[` (or the lone call).
    Start,
    /// At the head of an item.
    Head,
    /// Inside the arguments of the call last announced; the argument
    /// being read starts at `start`.
    Arguments {
        start: usize,
        nesting: Nesting,
    },
    /// After a call's `)`.
    After,
    Stopped,
}

impl LiveCalls {
    /// Calls from byte `at` of a region's text, laid out as `layout` says.
    pub(in crate::text) fn new(at: usize, layout: Layout) -> LiveCalls {
        LiveCalls {
            at,
            layout,
            reading: Reading::Start,
        }
    }

    /// What the reading waits for ([`Region::wakes`]), once it read all of
    /// `text`: inside an argument, a string's closing quote inside one,
    /// else a quote, a bracket, a comma; nothing once it stopped.
    ///
    /// [`Region::wakes`]: crate::text::stream::markup::Region::wakes
    pub(in crate::text) fn wakes(&self, text: &str) -> Option<Waits> {
        match &self.reading {
            Reading::Stopped => Some(Waits::bytes(FirstBytes::NONE)),
            Reading::Arguments { .. } if self.at < text.len() => None,
            Reading::Arguments { nesting, .. } => Some(Waits::scanning(nesting.open_string(), PYTHON)),
            Reading::Start | Reading::Head | Reading::After => None,
        }
    }

    /// Reads on in `text` (the region's text up to where its calls end).
    pub(in crate::text) fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) {
        let bytes = text.as_bytes();
        loop {
            match &mut self.reading {
                Reading::Stopped => return,
                Reading::Start | Reading::After => {
                    let Some(skipped) = bytes[self.at.min(bytes.len())..]
                        .iter()
                        .position(|byte| !byte.is_ascii_whitespace())
                    else {
                        self.at = bytes.len();
                        return;
                    };
                    self.at += skipped;
                    let byte = bytes[self.at];
                    self.reading = match (&self.reading, byte, self.layout) {
                        (Reading::Start, b'[', Layout::List | Layout::ListOrAlone) => {
                            self.layout = Layout::List;
                            self.at += 1;
                            Reading::Head
                        }
                        (Reading::Start, _, Layout::ListOrAlone) => {
                            self.layout = Layout::Alone;
                            Reading::Head
                        }
                        (Reading::After, b',', Layout::List) => {
                            self.at += 1;
                            Reading::Head
                        }
                        (Reading::Start | Reading::After, _, Layout::Lines) => Reading::Head,
                        _ => Reading::Stopped,
                    };
                }
                Reading::Head => {
                    let rest = &text[self.at..];
                    let mut reader = Reader::new(rest, out.limits.max_depth);
                    match reader.head() {
                        Ok(name) => {
                            live.calls.push(LiveCall::default());
                            if let Some(call) = live.calls.last_mut() {
                                call.open_canonical(&name);
                            }
                            self.at += reader.pos;
                            self.reading = Reading::Arguments {
                                start: self.at,
                                nesting: Nesting::default(),
                            };
                        }
                        // A head is a name and a word: one that does not
                        // come within the window is not waited for.
                        Err(_) if reader.at_end() && !done && rest.len() <= HEAD_WINDOW => return,
                        Err(_) => self.reading = Reading::Stopped,
                    }
                }
                Reading::Arguments { start, nesting } => {
                    let mut next = None;
                    while next.is_none() && self.at < bytes.len() {
                        if !nesting.is_top() {
                            self.at = nesting.step(bytes, self.at);
                            continue;
                        }
                        match bytes[self.at] {
                            byte @ (b',' | b')') => {
                                if !keyword(&text[*start..self.at], live, out) {
                                    next = Some(Reading::Stopped);
                                } else if byte == b')' {
                                    next = Some(match self.layout {
                                        Layout::List | Layout::Lines => Reading::After,
                                        Layout::ListOrAlone | Layout::Alone => Reading::Stopped,
                                    });
                                }
                                self.at += 1;
                                *start = self.at;
                            }
                            // A `]` or `}` that closes nothing: the parse says what it is.
                            b']' | b'}' => {
                                self.at += 1;
                                next = Some(Reading::Stopped);
                            }
                            _ => self.at = nesting.step(bytes, self.at),
                        }
                    }
                    match next {
                        Some(next) => self.reading = next,
                        None => return,
                    }
                }
            }
        }
    }
}

/// The bytes that can change where a scan of Python literals outside its
/// strings is: quotes, brackets and commas.
pub(in crate::text) const PYTHON: FirstBytes = FirstBytes::of_bytes(b"\"'[](){},");

/// Sends one `key=value` argument of the call last announced, read as the
/// parse reads it (blank between a `(` or `,` and the `)`: nothing); false
/// when it does not read.
fn keyword(argument: &str, live: &mut Live, out: &Out<'_>) -> bool {
    if argument.trim().is_empty() {
        return true;
    }
    let mut reader = Reader::new(argument, out.limits.max_depth);
    match reader.keyword() {
        Ok((key, value)) if reader.rest().trim().is_empty() => {
            if let Some(call) = live.calls.last_mut() {
                call.push_parameter(&key, value);
            }
            true
        }
        _ => false,
    }
}
