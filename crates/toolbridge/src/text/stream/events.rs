//! The events of a text stream: prose, and the calls of each region as
//! its reader sees them ([`Live`]) and as the family's parser finally reads
//! them.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::call::{
    changes_of, fast_path_depth, ArgumentsError, ArgumentsErrorKind, CallEvent, Change, PartialJson,
    SpareTexts, ToolCall,
};
use crate::json;
use crate::limits::Limits;
use crate::pointer::Pointer;

use super::super::scan::{Out, Streamed};
use super::markup::Live;

/// The largest argument buffer kept for the next region, in bytes of
/// capacity.
const SPARE_ARGUMENTS: usize = 1 << 16;

/// A call whose `Started` was sent while its region was still open.
struct Started {
    index: usize,
    id: String,
    name: String,
    /// How much of the live argument text was sent.
    sent: usize,
    partial: PartialJson,
    canonical: bool,
    /// For canonical arguments, the parameters sent so far.
    built: Map<String, Value>,
}

/// Where events go, and the calls of the open region already started.
pub(super) struct Sink {
    pub events: Vec<CallEvent>,
    /// The index of the next call started.
    next: usize,
    started: Vec<Started>,
    /// The ids of the open region's started calls, and for an id sent
    /// more than once the suffix to try first: a region of many calls under
    /// one id stays linear.
    announced: HashSet<String>,
    suffixes: HashMap<String, usize>,
    limits: Limits,
    /// Buffers of the events the caller handed back
    /// ([`TextStream::push_reusing`](super::TextStream::push_reusing)),
    /// taken for new events: text, and change lists (with their old changes,
    /// whose strings the partial parser takes back when it is fed them).
    spare_texts: SpareTexts,
    /// As many change lists as [`SpareTexts`] keeps texts.
    spare_changes: Vec<Vec<Change>>,
    /// Whether argument events carry their changes (and the partial
    /// parser runs); see [`TextStream::send_changes`](super::TextStream::send_changes).
    pub changes: bool,
    /// The emptied argument buffer of an ended region's call, for the next
    /// region's first call ([`Live::spare`]).
    pub spare_arguments: String,
}

impl Sink {
    pub fn new(limits: &Limits) -> Sink {
        Sink {
            events: Vec::new(),
            next: 0,
            started: Vec::new(),
            announced: HashSet::new(),
            suffixes: HashMap::new(),
            limits: limits.clone(),
            spare_texts: SpareTexts::default(),
            spare_changes: Vec::new(),
            changes: true,
            spare_arguments: String::new(),
        }
    }

    /// Takes back the buffers of `events` (emptied) for the events to come.
    pub fn reclaim(&mut self, events: &mut Vec<CallEvent>) {
        for event in events.drain(..) {
            match event {
                CallEvent::ArgumentsDelta { text, changes, .. }
                | CallEvent::ArgumentsReplaced { text, changes, .. } => {
                    self.spare_texts.keep(text);
                    if self.spare_changes.len() < SpareTexts::KEPT && changes.capacity() > 0 {
                        self.spare_changes.push(changes);
                    }
                }
                CallEvent::Text { text } | CallEvent::PlanDelta { text } => self.spare_texts.keep(text),
                CallEvent::Started { id, name, .. } => {
                    self.spare_texts.keep(id);
                    self.spare_texts.keep(name);
                }
                _ => {}
            }
        }
    }

    /// Prose: added to the last event when that is prose too.
    pub fn prose(&mut self, text: &str) {
        if let Some(CallEvent::Text { text: last }) = self.events.last_mut() {
            last.push_str(text);
            return;
        }
        let text = self.spare_texts.copy_of(text);
        self.events.push(CallEvent::Text { text });
    }

    pub fn event(&mut self, event: CallEvent) {
        if let (CallEvent::Text { text }, Some(CallEvent::Text { text: last })) =
            (&event, self.events.last_mut())
        {
            last.push_str(text);
            return;
        }
        self.events.push(event);
    }

    /// Whether a piece appended to the arguments of `live`'s last call is
    /// sent as one `ArgumentsDelta` of its text, the one [`live`](Sink::live)
    /// would send: the call was started (as `index`), its arguments are the
    /// model's JSON text, and all of it before was sent.
    #[inline]
    pub fn streams_last(&self, live: &Live, index: Option<usize>) -> bool {
        let (Some(started), Some(call)) = (self.started.last(), live.calls.last()) else {
            return false;
        };
        live.calls.len() == self.started.len()
            && !started.canonical
            && call.arguments.len() == started.sent
            && index.is_none_or(|index| index == started.index)
    }

    /// The event for `text`, appended to the arguments of the last call
    /// started ([`streams_last`](Sink::streams_last)): its text and changes
    /// are written into `delta` and `changes` (a reused event's buffers).
    #[inline]
    pub fn streamed_into(&mut self, text: &str, delta: &mut String, changes: &mut Vec<Change>) {
        let started = self.started.last_mut().expect("the call was started");
        started.sent += text.len();
        delta.clear();
        delta.push_str(text);
        feed_changes(self.changes, &mut started.partial, text, changes);
    }

    /// [`streamed_into`](Sink::streamed_into) as a new event.
    pub fn streamed(&mut self, text: &str) {
        let mut delta = self.spare_texts.copy_of("");
        let mut changes = self.spare_changes.pop().unwrap_or_else(|| Vec::with_capacity(1));
        self.streamed_into(text, &mut delta, &mut changes);
        let index = self.started.last().expect("the call was started").index;
        self.events.push(CallEvent::ArgumentsDelta {
            index,
            text: delta,
            changes,
        });
    }

    /// How many calls were started in all.
    pub fn started(&self) -> usize {
        self.next
    }

    /// The events for what the open region's reader knows now: `Started`
    /// once a call's name is known, then its argument text as it grows.
    pub fn live(&mut self, live: &mut Live, out: &Out<'_>) {
        // Only a region's last call grows: the ones before the last started
        // sent all their text when the next one started (a list of a
        // thousand calls stays linear).
        let from = self.started.len().saturating_sub(1);
        for (at, call) in live.calls.iter_mut().enumerate().skip(from) {
            if at == self.started.len() {
                let Some(name) = &call.name else { break };
                if out.calls.len() + at >= out.limits.max_tools {
                    break;
                }
                // The id the call gets when the parse adds it: unique among
                // the calls added and those of this region announced before it.
                let base = match call.id.as_deref().filter(|id| !id.is_empty()) {
                    Some(id) => id.to_string(),
                    None => format!("call_{}", out.calls.len() + at),
                };
                let announced = &self.announced;
                let from = self.suffixes.get(&base).copied().unwrap_or(2);
                let (suffix, id) = out.unique_id(&base, from, |id| announced.contains(id));
                if let Some(suffix) = suffix {
                    self.suffixes.insert(base, suffix + 1);
                }
                self.announced.insert(id.clone());
                self.events.push(CallEvent::Started {
                    index: self.next,
                    id: id.clone(),
                    name: name.clone(),
                    choice: None,
                });
                self.started.push(Started {
                    index: self.next,
                    id,
                    name: name.clone(),
                    sent: 0,
                    partial: PartialJson::with_limits(self.limits.clone()),
                    canonical: call.canonical,
                    built: Map::new(),
                });
                self.next += 1;
            }
            let Some(started) = self.started.get_mut(at) else {
                break;
            };
            if call.arguments.len() > started.sent {
                let text = self.spare_texts.copy_of(&call.arguments[started.sent..]);
                // A piece of argument text mostly changes one value: room for
                // one change, without the growth a first push would go through.
                // A reclaimed list keeps its old changes for the partial
                // parser to take their strings back.
                let mut changes = self.spare_changes.pop().unwrap_or_else(|| Vec::with_capacity(1));
                if started.canonical {
                    changes.clear();
                    // The parameters as they were written: their changes are
                    // known without reading the JSON back.
                    if self.changes && started.sent == 0 {
                        changes.push(Change::Set {
                            at: Pointer::root(),
                            value: Value::Object(Map::new()),
                        });
                    }
                    for (key, value) in call.parameters.drain(..) {
                        if self.changes {
                            changes.push(Change::Set {
                                at: Pointer::root().key(&key),
                                value: value.clone(),
                            });
                        }
                        started.built.insert(key, value);
                    }
                } else {
                    feed_changes(self.changes, &mut started.partial, &text, &mut changes);
                }
                started.sent = call.arguments.len();
                self.events.push(CallEvent::ArgumentsDelta {
                    index: started.index,
                    text,
                    changes,
                });
            }
        }
    }

    /// The region ended and is about to be parsed: each started call's
    /// argument text goes to `out` with the value its partial parser built,
    /// if the text closed (see [`Streamed`]), so that the parse need not
    /// read the same text again; [`settle`](Sink::settle) takes the texts
    /// back.
    pub fn lend(&mut self, live: &mut Live, before: usize, out: &mut Out<'_>) {
        out.streamed.clear();
        out.streamed_from = before;
        let depth = fast_path_depth(&self.limits);
        for (state, call) in self.started.iter_mut().zip(&mut live.calls) {
            let whole = !state.canonical && state.sent == call.arguments.len();
            let value = match whole {
                false => None,
                true if self.changes => state.partial.take_complete(depth),
                // No partial parser ran: the text read once here, as it
                // would have read it (strict JSON, within the depth).
                true => json::value_of(&call.arguments, depth),
            };
            out.streamed.push(Streamed {
                text: std::mem::take(&mut call.arguments),
                value,
                taken: false,
            });
        }
    }

    /// The region ended and the parser read it: `out.calls[before..]` are
    /// its calls, `out.prose` its prose. Each call gets what is left of its
    /// events — `Started` if it has none, the rest of its argument text, an
    /// `ArgumentsReplaced` when the parser's arguments differ from the text
    /// streamed (repaired, or typed by the schema), and `Finished`, which
    /// takes the call (an empty one is left in its place, so that the count
    /// of calls, which numbers ids and bounds them, stays).
    pub fn settle(&mut self, mut live: Live, before: usize, out: &mut Out<'_>) {
        for (call, streamed) in live.calls.iter_mut().zip(&mut out.streamed) {
            call.arguments = std::mem::take(&mut streamed.text);
        }
        // Drained, not taken: the list keeps its room for the next region.
        let mut started_list = std::mem::take(&mut self.started);
        let mut started = started_list.drain(..);
        self.announced.clear();
        self.suffixes.clear();
        for at in before..out.calls.len() {
            let call = &out.calls[at];
            let state = started.next();
            if let (None, Ok(value)) = (&state, &call.arguments) {
                // Nothing of this call went out yet and its arguments are read:
                // the model's own text goes out whole when it was read as it
                // stands (its canonical JSON otherwise), and what it changes
                // is known without reading it back.
                let index = self.start(call);
                let exact = out.exact_raw.get(at).copied().unwrap_or(false);
                let text = match call.raw_arguments.as_deref() {
                    Some(raw) if exact => raw.to_string(),
                    _ => json::compact(value),
                };
                if !text.is_empty() {
                    let changes = set_whole(self.changes, value);
                    self.events
                        .push(CallEvent::ArgumentsDelta { index, text, changes });
                }
                self.finish(index, out, at);
                continue;
            }
            let live_text = state.as_ref().and_then(|state| {
                let text = &live.calls.get(at - before)?.arguments;
                (!state.canonical).then_some(text.as_str())
            });
            let mut state = match state {
                Some(state) => state,
                None => {
                    let index = self.start(call);
                    Started {
                        index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                        sent: 0,
                        partial: PartialJson::with_limits(self.limits.clone()),
                        canonical: true,
                        built: Map::new(),
                    }
                }
            };
            if state.canonical && state.sent > 0 {
                self.settle_canonical(&state, call);
                self.finish(state.index, out, at);
                continue;
            }
            // The model's own text for JSON arguments, the canonical JSON otherwise
            // (its rest sent only when what was sent is its start).
            let sent = live
                .calls
                .get(at - before)
                .map_or("", |call| &call.arguments[..state.sent.min(call.arguments.len())]);
            let canonical;
            let text = match live_text {
                Some(text) => text,
                None => {
                    canonical = canonical_text(call);
                    canonical.as_str()
                }
            };
            let rest = text
                .get(state.sent..)
                .filter(|rest| !rest.is_empty() && text.starts_with(sent));
            if let Some(rest) = rest {
                let mut changes = Vec::new();
                feed_changes(self.changes, &mut state.partial, rest, &mut changes);
                self.events.push(CallEvent::ArgumentsDelta {
                    index: state.index,
                    text: rest.to_string(),
                    changes,
                });
            }
            if let Ok(value) = &call.arguments {
                let replaced = match out.streamed.get(at - before) {
                    // A value the parse took from the partial parser is what
                    // was streamed, unless fitting it to the schema changed it.
                    Some(lent) if lent.taken => !out.exact_raw.get(at).copied().unwrap_or(false),
                    // Lent and not taken (the parse read other text): the
                    // partial parser's value is the one lent.
                    Some(Streamed {
                        value: Some(streamed),
                        ..
                    }) => streamed != value,
                    // No partial parser ran: what it would hold, read now.
                    _ if !self.changes => json::value_of(text, self.limits.max_depth).as_ref() != Some(value),
                    _ => state.partial.value() != Some(value) || !state.partial.is_complete(),
                };
                if replaced {
                    self.replace(state.index, value);
                }
            }
            self.finish(state.index, out, at);
        }
        out.streamed.clear();
        let rest: Vec<Started> = started.collect();
        self.started = started_list;
        self.finish_orphans(rest);
        self.keep_arguments(live);
        if !out.prose.is_empty() {
            let text = std::mem::take(&mut out.prose);
            self.event(CallEvent::Text { text });
        }
    }

    /// The end of canonical arguments streamed parameter by parameter:
    /// the closing brace when the parse read the parameters that were sent,
    /// a replacement otherwise (a value typed differently, a parameter the
    /// parse dropped or read on from a missing tag).
    fn settle_canonical(&mut self, state: &Started, call: &ToolCall) {
        let Ok(value) = &call.arguments else {
            return;
        };
        if matches!(value, Value::Object(map) if *map == state.built) {
            self.events.push(CallEvent::ArgumentsDelta {
                index: state.index,
                text: "}".into(),
                changes: Vec::new(),
            });
            return;
        }
        self.replace(state.index, value);
    }

    /// Sends `Finished` for call `index`, the parsed call at `at` moved out
    /// into it (an empty one is left in its place, so that the count of
    /// calls, which numbers ids and bounds them, stays).
    fn finish(&mut self, index: usize, out: &mut Out<'_>, at: usize) {
        let call = std::mem::replace(
            &mut out.calls[at],
            ToolCall::new(String::new(), String::new(), Value::Null),
        );
        self.events.push(CallEvent::Finished {
            index,
            call: Box::new(call),
        });
    }

    /// Sends the arguments `value` in place of what was streamed for call `index`.
    fn replace(&mut self, index: usize, value: &Value) {
        self.events.push(CallEvent::ArgumentsReplaced {
            index,
            text: json::compact(value),
            changes: set_whole(self.changes, value),
        });
    }

    /// Sends `Started` for a call read whole; its index.
    fn start(&mut self, call: &ToolCall) -> usize {
        let index = self.next;
        self.next += 1;
        self.events.push(CallEvent::Started {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
            choice: None,
        });
        index
    }

    /// A region that turned out to be prose: calls it started are finished
    /// with an error.
    pub fn orphans(&mut self, live: Live, _out: &Out<'_>) {
        let rest = std::mem::take(&mut self.started);
        self.announced.clear();
        self.suffixes.clear();
        self.finish_orphans(rest);
        self.keep_arguments(live);
    }

    /// Keeps the largest argument buffer of an ended region's calls,
    /// emptied, for the next region ([`Sink::spare_arguments`]); one that
    /// grew past [`SPARE_ARGUMENTS`] is let go, so that one long call does
    /// not pin its memory.
    fn keep_arguments(&mut self, live: Live) {
        let largest = live
            .calls
            .into_iter()
            .map(|call| call.arguments)
            .chain([live.spare])
            .filter(|text| text.capacity() <= SPARE_ARGUMENTS)
            .max_by_key(String::capacity);
        if let Some(mut text) = largest.filter(|text| text.capacity() > self.spare_arguments.capacity()) {
            text.clear();
            self.spare_arguments = text;
        }
    }

    fn finish_orphans(&mut self, rest: Vec<Started>) {
        for state in rest {
            let mut call = ToolCall::new(state.id, state.name, Value::Null);
            call.arguments = Err(ArgumentsError::new(
                ArgumentsErrorKind::InvalidJson,
                "the markup this call started in was not read as a call; it is in the prose",
                String::new(),
            ));
            self.events.push(CallEvent::Finished {
                index: state.index,
                call: Box::new(call),
            });
        }
    }
}

/// The arguments as JSON text: the value's, or the raw text that could not
/// be read.
fn canonical_text(call: &ToolCall) -> String {
    match &call.arguments {
        Ok(value) => json::compact(value),
        Err(err) => err.raw().to_string(),
    }
}

/// Reads `text`, appended to a call's arguments, with the call's partial
/// parser into `changes` when events carry changes (`on`); else leaves
/// `changes` empty. Text that stops being JSON sends no changes: the
/// finished call says what was wrong.
#[inline]
fn feed_changes(on: bool, partial: &mut PartialJson, text: &str, changes: &mut Vec<Change>) {
    if on {
        let _ = partial.feed(text, changes);
    } else {
        changes.clear();
    }
}

/// The changes that set the arguments to `value` whole, when events carry
/// changes (`on`); else none.
fn set_whole(on: bool, value: &Value) -> Vec<Change> {
    let mut changes = Vec::new();
    if on {
        changes_of(value, Pointer::root(), &mut changes);
    }
    changes
}
