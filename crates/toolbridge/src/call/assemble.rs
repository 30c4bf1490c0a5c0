//! Streamed calls, put together: the [`CallEvent`]s, and the
//! provider-neutral bookkeeping every provider's stream decoder drives
//! ([`Calls`]). The [`Assembler`] and [`CallStream`] that drive them are in
//! `stream.rs`.
//!
//! [`Assembler`]: crate::call::Assembler
//! [`CallStream`]: crate::call::CallStream
//!
//! The rules, from the bugs peers shipped (providers.md §1c, §10.3, §15.3):
//!
//! - A call is finished only on the provider's end event (`finish_reason`,
//!   `[DONE]`, `content_block_stop`, `contentBlockStop`, `tool-call-end`,
//!   `output_item.done`, or the chunk itself for providers that send calls
//!   whole), never because its buffer happens to parse. A call still open
//!   when the stream ends is finished with an [`Unfinished`] error that keeps
//!   its text.
//! - Fragments are keyed by the provider's index; a different non-empty id
//!   on an index already in use opens a new call (parallel calls all sent on
//!   `index: 0`), the same id continues it (ids repeated on every chunk); an
//!   empty id is no id; a fragment without index goes to the open call with
//!   its id, and one with neither index nor id to the most recently opened
//!   call. Names are set once, never concatenated.
//! - A call gets `Started` once its name is known (the text that came before
//!   follows at once as one `ArgumentsDelta`), one `ArgumentsDelta` per
//!   non-empty fragment, and `Finished`. Each event's `index` is the call's
//!   position in the stream, not the provider's index (which repeats).
//! - Arguments streamed as an object, not text, are appended as their JSON
//!   text, with a note. Ids the provider reused are made unique.
//! - Memory is bounded: at most [`Limits::max_tools`] calls, and at most
//!   [`Limits::max_bytes`] of argument text in flight.
//!
//! [`Unfinished`]: crate::call::ArgumentsErrorKind::Unfinished
//! [`Limits::max_tools`]: crate::Limits::max_tools
//! [`Limits::max_bytes`]: crate::Limits::max_bytes

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::call::arguments::{self, Arguments, ArgumentsError, ArgumentsErrorKind, Expect};
use crate::call::ids::Ids;
use crate::call::partial::Change;
use crate::call::read::no_name;
use crate::call::sse::Framing;
use crate::call::{CallOptions, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

/// What happens to one streamed call.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum CallEvent {
    /// A call began and its name is known.
    Started {
        /// The call's position in the stream (0 for the first call).
        index: usize,
        /// The call's id (see [`ToolCall::id`]).
        id: String,
        /// The tool's name, mapped back like [`ToolCall::name`].
        name: String,
        /// The choice the call belongs to, when every choice is read (see
        /// [`ToolCall::choice`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        choice: Option<usize>,
    },
    /// More argument text came for a call.
    ArgumentsDelta {
        /// The call's position in the stream.
        index: usize,
        /// The new text; all of a call's deltas joined are its argument text.
        text: String,
        /// What the new text changed in the call's partial arguments (see
        /// [`Change`]): applied in order, the changes of a call's deltas
        /// rebuild its partial value; the whole value is
        /// [`Assembler::partial`](crate::call::Assembler::partial). Empty when the text completed nothing (a
        /// number cut in half) or once the text stopped being JSON (the
        /// finished call then says what was wrong, or how it was repaired).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        changes: Vec<Change>,
    },
    /// The provider's final copy of a call's arguments differs from the text
    /// streamed so far (OpenAI Responses' `function_call_arguments.done`):
    /// `text` replaces all of the call's earlier deltas.
    ArgumentsReplaced {
        /// The call's position in the stream.
        index: usize,
        /// The whole argument text, as the provider finally sent it.
        text: String,
        /// The new partial value from scratch: the first change sets the
        /// root anew.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        changes: Vec<Change>,
    },
    /// More of the plan the model writes before its calls (Cohere's
    /// `tool-plan-delta`). The whole plan is also kept on the first call
    /// after it, in its extras as `tool_plan` (the assistant message sent
    /// back carries it).
    PlanDelta {
        /// The new text of the plan.
        text: String,
    },
    /// Text the model wrote outside its calls: the prose of a raw-text
    /// stream ([`TextStream`](crate::text::TextStream)). The provider
    /// streams do not send it (their text is not a tool call).
    Text {
        /// The new text.
        text: String,
    },
    /// The provider ended a call (or the stream ended inside it).
    Finished {
        /// The call's position in the stream.
        index: usize,
        /// The whole call (boxed: the other events, sent far more often,
        /// stay small to move).
        call: Box<ToolCall>,
    },
}

/// One provider's stream events, mapped onto [`Calls`].
pub(crate) trait Decode: Send + fmt::Debug {
    /// How this provider's stream is framed.
    fn framing(&self) -> Framing;

    /// One parsed event (`name` is the SSE event name, if any).
    fn event(&mut self, name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()>;
}

/// A piece of a call whose place is found by the keying rules (OpenAI
/// Chat's deltas and everything shaped like them).
#[derive(Debug, Default)]
pub(crate) struct Fragment<'a> {
    /// The provider's index for the call.
    pub key: Option<u64>,
    /// The provider's id (empty counts as none).
    pub id: Option<&'a str>,
    /// The tool name (set once).
    pub name: Option<&'a str>,
    /// Argument text to append (an object is appended as its JSON, with a note).
    pub arguments: Option<&'a Value>,
    /// Members to echo back (the first value of each key is kept).
    pub extras: Map<String, Value>,
    /// The choice the fragment belongs to, when every choice is read:
    /// fragments are matched only with calls of the same choice.
    pub choice: Option<usize>,
}

/// A call the provider explicitly starts (a start event).
#[derive(Debug, Default)]
pub(crate) struct Opened<'a> {
    /// The provider's index for the call.
    pub key: Option<u64>,
    /// The provider's id.
    pub id: Option<&'a str>,
    /// The tool name.
    pub name: Option<&'a str>,
    /// Members to echo back.
    pub extras: Map<String, Value>,
    /// Arguments the start event carried, used only if no fragment follows.
    pub fallback: Option<Value>,
    /// The choice the call belongs to, when every choice is read.
    pub choice: Option<usize>,
}

/// A call in flight.
#[derive(Debug)]
struct Open {
    index: usize,
    key: Option<u64>,
    provider_id: Option<String>,
    id: String,
    name: Option<String>,
    arguments: Arguments,
    extras: Map<String, Value>,
    started: bool,
    fallback: Option<Value>,
    noted_object: bool,
    notes: Vec<Note>,
    choice: Option<usize>,
}

/// The calls of one stream: those in flight, the ids given out, and the
/// events not yet handed to the caller.
#[derive(Debug)]
pub(crate) struct Calls {
    pub(super) opts: CallOptions,
    ids: Ids,
    open: Vec<Open>,
    opened: usize,
    buffered: usize,
    /// The plan text not yet put on a call.
    plan: String,
    /// The events not yet handed to the caller.
    pub(super) events: Vec<CallEvent>,
}

impl Calls {
    pub(super) fn new(opts: &CallOptions) -> Calls {
        Calls {
            opts: opts.clone(),
            ids: Ids::default(),
            open: Vec::new(),
            opened: 0,
            buffered: 0,
            plan: String::new(),
            events: Vec::new(),
        }
    }

    /// The options calls are read with.
    pub fn options(&self) -> &CallOptions {
        &self.opts
    }

    /// Applies a fragment to the call the keying rules pick, opening one if
    /// none fits.
    pub fn fragment(&mut self, fragment: Fragment<'_>) -> Result<()> {
        let id = fragment.id.filter(|id| !id.is_empty());
        let choice = fragment.choice;
        let target = match (fragment.key, id) {
            (Some(key), Some(id)) => self
                .latest(|call| call.choice == choice && call.key == Some(key))
                .filter(|&slot| self.open[slot].provider_id.as_deref() == Some(id)),
            (Some(key), None) => self.latest(|call| call.choice == choice && call.key == Some(key)),
            (None, Some(id)) => {
                self.latest(|call| call.choice == choice && call.provider_id.as_deref() == Some(id))
            }
            (None, None) => self.latest(|call| call.choice == choice),
        };
        let slot = match target {
            Some(slot) => slot,
            // A fragment that carries nothing opens nothing.
            None if id.is_none() && fragment.name.is_none() && fragment.arguments.is_none() => return Ok(()),
            None => self.open_call(fragment.key, id, None, Map::new(), None, choice)?,
        };
        if let Some(name) = fragment.name {
            self.set_name(slot, name);
        }
        for (key, value) in fragment.extras {
            self.open[slot].extras.entry(key).or_insert(value);
        }
        if let Some(arguments) = fragment.arguments {
            self.append_value(slot, arguments)?;
        }
        Ok(())
    }

    /// Opens a new call (a provider's start event).
    pub fn open(&mut self, opened: Opened<'_>) -> Result<()> {
        let id = opened.id.filter(|id| !id.is_empty());
        let slot = self.open_call(
            opened.key,
            id,
            opened.name,
            opened.extras,
            opened.fallback,
            opened.choice,
        )?;
        self.start_if_named(slot);
        Ok(())
    }

    /// Appends text to the open call with provider index `key`; false when
    /// there is none.
    pub fn append(&mut self, key: u64, arguments: &Value) -> Result<bool> {
        match self.latest(|call| call.key == Some(key)) {
            Some(slot) => {
                self.append_value(slot, arguments)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Sets the final, authoritative arguments text of the open call with
    /// provider index `key` (OpenAI Responses' `.done` events): the missing
    /// end is appended; text that differs from what streamed replaces it,
    /// with a note. False when there is no such call.
    pub fn settle(&mut self, key: u64, text: &str) -> Result<bool> {
        let Some(slot) = self.latest(|call| call.key == Some(key)) else {
            return Ok(false);
        };
        let so_far = self.open[slot].arguments.text();
        if let Some(rest) = text.strip_prefix(so_far) {
            if !rest.is_empty() || !self.open[slot].arguments.was_sent() {
                let rest = rest.to_string();
                self.push_text(slot, &rest)?;
            }
        } else {
            let grow = text.len().saturating_sub(so_far.len());
            self.reserve(grow)?;
            let call = &mut self.open[slot];
            self.buffered = self.buffered + text.len() - call.arguments.len();
            call.arguments.replace(text);
            if call.started {
                let mut changes = Vec::new();
                call.arguments.feed(&mut changes);
                self.events.push(CallEvent::ArgumentsReplaced {
                    index: call.index,
                    text: text.to_string(),
                    changes,
                });
            }
            call.notes.push(Note::new(
                NoteKind::Normalized {
                    field: "arguments".into(),
                },
                Pointer::root().key("arguments"),
                "the final arguments differ from the streamed fragments; the final ones were kept",
            ));
        }
        Ok(true)
    }

    /// Takes the provider's final copy of the open call with provider index
    /// `key` (OpenAI Responses' `output_item.done`): its name if none came,
    /// its extras (final values win), and its id — one that differs from the
    /// id streamed replaces it (as the call's id too, made unique), with a
    /// note; `Started` announced the earlier one.
    pub fn settle_item(
        &mut self,
        key: u64,
        id: Option<&str>,
        name: Option<&str>,
        extras: Map<String, Value>,
    ) {
        let Some(slot) = self.latest(|call| call.key == Some(key)) else {
            return;
        };
        if let Some(name) = name {
            self.set_name(slot, name);
        }
        let call = &mut self.open[slot];
        call.extras.extend(extras);
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            if call.provider_id.as_deref() != Some(id) {
                call.notes.push(Note::new(
                    NoteKind::Normalized { field: "id".into() },
                    Pointer::root().key("id"),
                    format!(
                        "the provider's final copy of the call has id {id:?}, not {:?}; the final one was kept",
                        call.provider_id.as_deref().unwrap_or("")
                    ),
                ));
                call.provider_id = Some(id.to_string());
                call.id = self.ids.assign(
                    Some(id),
                    call.index,
                    &self.opts.id_prefix,
                    &Pointer::root().key("id"),
                    &mut call.notes,
                );
            }
        }
    }

    /// More of the model's plan (Cohere's `tool_plan`): an event, and the
    /// text kept until [`take_plan`](Calls::take_plan), within the byte limit.
    pub fn plan(&mut self, text: &str) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        self.reserve(text.len())?;
        self.buffered += text.len();
        self.plan.push_str(text);
        self.events.push(CallEvent::PlanDelta {
            text: text.to_string(),
        });
        Ok(())
    }

    /// The plan so far, taken (for the extras of the call it comes before).
    pub fn take_plan(&mut self) -> Option<String> {
        self.buffered -= self.plan.len();
        Some(std::mem::take(&mut self.plan)).filter(|plan| !plan.is_empty())
    }

    /// True when a call with provider index `key` is open.
    pub fn is_open(&self, key: u64) -> bool {
        self.latest(|call| call.key == Some(key)).is_some()
    }

    /// Finishes the open call with provider index `key`; false when there is none.
    pub fn close(&mut self, key: u64) -> Result<bool> {
        match self.latest(|call| call.key == Some(key)) {
            Some(slot) => {
                self.finish_slot(slot, false);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Finishes every open call, in the order they were opened (the
    /// provider's end of the message).
    pub fn close_all(&mut self) {
        while !self.open.is_empty() {
            self.finish_slot(0, false);
        }
    }

    /// Finishes every open call of `choice`, in the order they were opened
    /// (the end of that choice, when every choice is read).
    pub fn close_choice(&mut self, choice: Option<usize>) {
        while let Some(slot) = self.open.iter().position(|call| call.choice == choice) {
            self.finish_slot(slot, false);
        }
    }

    /// A call that arrives whole (Gemini, Ollama): started, its arguments as
    /// one delta, finished.
    pub fn whole(
        &mut self,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<&Value>,
        expect: Expect,
        extras: Map<String, Value>,
    ) -> Result<()> {
        self.check_count()?;
        let index = self.opened;
        self.opened += 1;
        let provider_id = id.filter(|id| !id.is_empty()).map(str::to_string);
        let mut notes = Vec::new();
        let id = self.ids.assign(
            provider_id.as_deref(),
            index,
            &self.opts.id_prefix,
            &Pointer::root().key("id"),
            &mut notes,
        );
        let provider_name = name.map(str::to_string).unwrap_or_else(|| {
            notes.push(no_name(Pointer::root().key("name")));
            String::new()
        });
        let name = self.opts.canonical_name(&provider_name);
        self.events.push(CallEvent::Started {
            index,
            id: id.clone(),
            name: name.clone(),
            choice: None,
        });
        let text = match arguments {
            Some(Value::String(text)) => text.clone(),
            Some(value) => crate::json::compact(value),
            None => String::new(),
        };
        if !text.is_empty() {
            let changes = changes_of(&text, &self.opts.limits);
            self.events
                .push(CallEvent::ArgumentsDelta { index, text, changes });
        }
        let read = arguments::read(
            arguments,
            expect,
            &Pointer::root().key("arguments"),
            &self.opts.limits,
        );
        notes.extend(read.notes);
        self.events.push(CallEvent::Finished {
            index,
            call: Box::new(ToolCall {
                id,
                name,
                arguments: read.value,
                raw_arguments: read.raw,
                provider_id,
                provider_name,
                extras,
                notes,
                choice: None,
            }),
        });
        Ok(())
    }

    /// The stream ended: every call still open is finished with an
    /// [`ArgumentsErrorKind::Unfinished`] error holding its text.
    pub(super) fn end_of_stream(&mut self) {
        while !self.open.is_empty() {
            self.finish_slot(0, true);
        }
    }

    /// The partial arguments of the open call at stream position `index`.
    pub(super) fn partial(&self, index: usize) -> Option<&Value> {
        let call = self.open.iter().find(|call| call.index == index)?;
        call.arguments.partial()
    }

    fn latest(&self, wanted: impl Fn(&Open) -> bool) -> Option<usize> {
        self.open.iter().rposition(wanted)
    }

    fn check_count(&self) -> Result<()> {
        if self.opened >= self.opts.limits.max_tools {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("the stream has more than {} calls", self.opts.limits.max_tools),
            ));
        }
        Ok(())
    }

    fn open_call(
        &mut self,
        key: Option<u64>,
        provider_id: Option<&str>,
        name: Option<&str>,
        extras: Map<String, Value>,
        fallback: Option<Value>,
        choice: Option<usize>,
    ) -> Result<usize> {
        self.check_count()?;
        let index = self.opened;
        self.opened += 1;
        let mut notes = Vec::new();
        let id = self.ids.assign(
            provider_id,
            index,
            &self.opts.id_prefix,
            &Pointer::root().key("id"),
            &mut notes,
        );
        self.open.push(Open {
            index,
            key,
            provider_id: provider_id.map(str::to_string),
            id,
            name: name.map(str::to_string),
            arguments: Arguments::new(&self.opts.limits),
            extras,
            started: false,
            fallback,
            noted_object: false,
            notes,
            choice,
        });
        Ok(self.open.len() - 1)
    }

    fn set_name(&mut self, slot: usize, name: &str) {
        let call = &mut self.open[slot];
        match &call.name {
            None => {
                call.name = Some(name.to_string());
                self.start_if_named(slot);
            }
            Some(known) if known == name || name.is_empty() => {}
            Some(known) => {
                let message =
                    format!("the provider also sent the name {name:?} for this call; {known:?} was kept");
                call.notes.push(Note::new(
                    NoteKind::Normalized { field: "name".into() },
                    Pointer::root().key("name"),
                    message,
                ));
            }
        }
    }

    fn start_if_named(&mut self, slot: usize) {
        let call = &mut self.open[slot];
        if call.started || call.name.is_none() {
            return;
        }
        call.started = true;
        let name = self.opts.canonical_name(call.name.as_deref().unwrap_or(""));
        self.events.push(CallEvent::Started {
            index: call.index,
            id: call.id.clone(),
            name,
            choice: call.choice,
        });
        if !call.arguments.text().is_empty() {
            let mut changes = Vec::new();
            call.arguments.feed(&mut changes);
            self.events.push(CallEvent::ArgumentsDelta {
                index: call.index,
                text: call.arguments.text().to_string(),
                changes,
            });
        }
    }

    fn append_value(&mut self, slot: usize, value: &Value) -> Result<()> {
        match value {
            Value::String(text) => self.push_text(slot, text),
            Value::Null => Ok(()),
            other => {
                let call = &mut self.open[slot];
                if !call.noted_object {
                    call.noted_object = true;
                    call.notes.push(Note::new(
                        NoteKind::Normalized {
                            field: "arguments".into(),
                        },
                        Pointer::root().key("arguments"),
                        format!(
                            "arguments were streamed as {}, not as text; appended as JSON text",
                            crate::json::describe(other)
                        ),
                    ));
                }
                self.push_text(slot, &other.to_string())
            }
        }
    }

    fn reserve(&self, bytes: usize) -> Result<()> {
        if self.buffered + bytes > self.opts.limits.max_bytes {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the arguments of the calls in flight exceed {} bytes",
                    self.opts.limits.max_bytes
                ),
            ));
        }
        Ok(())
    }

    fn push_text(&mut self, slot: usize, text: &str) -> Result<()> {
        self.reserve(text.len())?;
        self.buffered += text.len();
        let call = &mut self.open[slot];
        call.arguments.push(text);
        if call.started && !text.is_empty() {
            let mut changes = Vec::new();
            call.arguments.feed(&mut changes);
            self.events.push(CallEvent::ArgumentsDelta {
                index: call.index,
                text: text.to_string(),
                changes,
            });
        }
        Ok(())
    }

    fn finish_slot(&mut self, slot: usize, unfinished: bool) {
        if !self.open[slot].started {
            if self.open[slot].name.is_none() {
                let note = no_name(Pointer::root().key("name"));
                self.open[slot].notes.push(note);
                self.open[slot].name = Some(String::new());
            }
            self.start_if_named(slot);
        }
        let mut call = self.open.remove(slot);
        self.buffered -= call.arguments.len();
        let at = Pointer::root().key("arguments");
        let (value, raw) = if unfinished {
            let text = call.arguments.text().to_string();
            let error = ArgumentsError::new(
                ArgumentsErrorKind::Unfinished,
                "the stream ended before the provider ended this call",
                text.clone(),
            );
            (Err(error), call.arguments.was_sent().then_some(text))
        } else if let (false, Some(fallback)) = (call.arguments.was_sent(), call.fallback.take()) {
            let text = fallback.to_string();
            self.events.push(CallEvent::ArgumentsDelta {
                index: call.index,
                changes: changes_of(&text, &self.opts.limits),
                text,
            });
            let read = arguments::read(Some(&fallback), Expect::Object, &at, &self.opts.limits);
            call.notes.extend(read.notes);
            (read.value, None)
        } else {
            let raw = call
                .arguments
                .was_sent()
                .then(|| call.arguments.text().to_string());
            let arguments = std::mem::replace(&mut call.arguments, Arguments::new(&self.opts.limits));
            match arguments.finish(&at, &self.opts.limits) {
                Ok(converted) => {
                    call.notes.extend(converted.notes);
                    (Ok(converted.value), raw)
                }
                Err(error) => (Err(error), raw),
            }
        };
        let provider_name = call.name.unwrap_or_default();
        self.events.push(CallEvent::Finished {
            index: call.index,
            call: Box::new(ToolCall {
                id: call.id,
                name: self.opts.canonical_name(&provider_name),
                arguments: value,
                raw_arguments: raw,
                provider_id: call.provider_id,
                provider_name,
                extras: call.extras,
                notes: call.notes,
                choice: call.choice,
            }),
        });
    }
}

/// The changes that reading `text` from scratch makes (those before any
/// error): a call that arrives whole announces its value the same way a
/// streamed one does.
fn changes_of(text: &str, limits: &crate::limits::Limits) -> Vec<Change> {
    let mut arguments = Arguments::new(limits);
    arguments.push(text);
    let mut changes = Vec::new();
    arguments.feed(&mut changes);
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::sse::Frame;
    use crate::call::Assembler;
    use serde_json::json;

    /// A decoder taking `{"k"?, "id"?, "name"?, "args"?}` fragments, `{"end": k}` and `{"stop": true}`.
    #[derive(Debug)]
    struct Test;

    impl Decode for Test {
        fn framing(&self) -> Framing {
            Framing::Ndjson
        }

        fn event(&mut self, _name: Option<&str>, data: &Value, calls: &mut Calls) -> Result<()> {
            if let Some(key) = data.get("end").and_then(Value::as_u64) {
                calls.close(key)?;
            } else if data.get("stop").is_some() {
                calls.close_all();
            } else {
                calls.fragment(Fragment {
                    key: data.get("k").and_then(Value::as_u64),
                    id: data.get("id").and_then(Value::as_str),
                    name: data.get("name").and_then(Value::as_str),
                    arguments: data.get("args"),
                    extras: Map::new(),
                    choice: None,
                })?;
            }
            Ok(())
        }
    }

    fn run(events: &[Value]) -> Vec<CallEvent> {
        run_with(events, &CallOptions::default())
    }

    fn run_with(events: &[Value], opts: &CallOptions) -> Vec<CallEvent> {
        let mut assembler = Assembler::new(Box::new(Test), opts);
        let mut out = Vec::new();
        for event in events {
            assembler.push(None, event, &mut out).unwrap();
        }
        assembler.finish(&mut out).unwrap();
        out
    }

    fn finished(events: &[CallEvent]) -> Vec<(String, String, Value)> {
        events
            .iter()
            .filter_map(|event| match event {
                CallEvent::Finished { call, .. } => Some((
                    call.id.clone(),
                    call.name.clone(),
                    call.arguments
                        .clone()
                        .unwrap_or_else(|err| json!({"error": err.raw()})),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn index_keys_and_id_changes_open_calls() {
        let events = run(&[
            json!({"k": 0, "id": "a", "name": "f", "args": ""}),
            json!({"k": 0, "args": "{\"x\":"}),
            json!({"k": 0, "id": "b", "name": "g", "args": "{"}),
            json!({"k": 0, "id": "", "args": "}"}),
            json!({"k": 0, "id": "a"}),
            json!({"args": "1}"}),
            json!({"stop": true}),
        ]);
        // `"a"` again on index 0 is a different id from the open call's ("b"): a new call.
        assert_eq!(
            finished(&events),
            [
                ("a".into(), "f".into(), json!({"error": "{\"x\":"})),
                ("b".into(), "g".into(), json!({})),
                ("a_2".into(), "".into(), json!({"error": "1}"})),
            ]
        );
    }

    #[test]
    fn started_waits_for_the_name_and_deltas_follow() {
        let events = run(&[
            json!({"k": 3, "args": "{\"a\""}),
            json!({"k": 3, "name": "f", "args": ": 1"}),
            json!({"k": 3, "name": "f", "args": "}"}),
            json!({"end": 3}),
        ]);
        let kinds: Vec<String> = events
            .iter()
            .map(|event| match event {
                CallEvent::Started { index, id, name, .. } => format!("start {index} {id} {name}"),
                CallEvent::ArgumentsDelta { index, text, .. } => format!("delta {index} {text}"),
                CallEvent::ArgumentsReplaced { index, text, .. } => format!("replaced {index} {text}"),
                CallEvent::PlanDelta { text } => format!("plan {text}"),
                CallEvent::Text { text } => format!("text {text}"),
                CallEvent::Finished { call, .. } => {
                    format!("finish {}", call.raw_arguments.as_deref().unwrap())
                }
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "start 0 call_0 f",
                "delta 0 {\"a\"",
                "delta 0 : 1",
                "delta 0 }",
                "finish {\"a\": 1}"
            ]
        );
    }

    /// A change as one line: `/a = 1` for a set, `/a + "x"` for an append.
    fn line(change: &Change) -> String {
        match change {
            Change::Set { at, value } => format!("{} = {value}", at.as_str()),
            Change::Appended { at, text } => format!("{} + {}", at.as_str(), Value::String(text.clone())),
        }
    }

    #[test]
    fn deltas_carry_their_changes_and_the_partial_value_is_borrowed() {
        let mut assembler = Assembler::new(Box::new(Test), &CallOptions::default());
        let mut out = Vec::new();
        let mut seen = Vec::new();
        // Text before the name is parsed once the call starts, as one delta.
        for event in [
            json!({"k": 0, "args": "{\"path\": \"a"}),
            json!({"k": 0, "name": "write", "args": "b\", \"n\": 1"}),
            json!({"k": 0, "args": "2, \"tags\": [\"x"}),
            json!({"k": 0, "args": "\"]}"}),
        ] {
            assembler.push(None, &event, &mut out).unwrap();
            for event in out.drain(..) {
                if let CallEvent::ArgumentsDelta { changes, .. } = event {
                    seen.push(changes.iter().map(line).collect::<Vec<_>>());
                }
            }
            seen.push(vec![format!(
                "partial {}",
                assembler.partial(0).map_or("-".into(), Value::to_string)
            )]);
        }
        let expected: [&[&str]; 8] = [
            &["partial -"],
            &[" = {}", r#"/path = "a""#],
            &[r#"/path + "b""#],
            &[r#"partial {"path":"ab"}"#],
            &["/n = 12", "/tags = []", r#"/tags/0 = "x""#],
            &[r#"partial {"path":"ab","n":12,"tags":["x"]}"#],
            &[],
            &[r#"partial {"path":"ab","n":12,"tags":["x"]}"#],
        ];
        assert_eq!(seen, expected);
        assembler.push(None, &json!({"end": 0}), &mut out).unwrap();
        assert_eq!(assembler.partial(0), None, "a finished call has no partial value");
        let CallEvent::Finished { call, .. } = &out[0] else {
            panic!("{out:?}")
        };
        assert_eq!(call.arguments, Ok(json!({"path": "ab", "n": 12, "tags": ["x"]})));
    }

    #[test]
    fn open_calls_at_the_end_of_the_stream_are_unfinished() {
        let events = run(&[json!({"k": 0, "id": "a", "name": "f", "args": "{}"})]);
        let CallEvent::Finished { call, .. } = events.last().unwrap() else {
            panic!("{events:?}")
        };
        let err = call.arguments.as_ref().unwrap_err();
        assert_eq!((err.kind(), err.raw()), (ArgumentsErrorKind::Unfinished, "{}"));
    }

    #[test]
    fn object_arguments_are_appended_as_text_with_a_note() {
        let events = run(&[
            json!({"k": 0, "id": "a", "name": "f", "args": {"city": "Zürich"}}),
            json!({"stop": true}),
        ]);
        let CallEvent::Finished { call, .. } = events.last().unwrap() else {
            panic!()
        };
        assert_eq!(call.arguments, Ok(json!({"city": "Zürich"})));
        assert_eq!(call.raw_arguments.as_deref(), Some("{\"city\":\"Zürich\"}"));
        assert_eq!(call.notes.len(), 1);
    }

    #[test]
    fn limits_bound_calls_and_text() {
        let opts =
            CallOptions::default().with_limits(crate::Limits::default().with_max_bytes(4).with_max_tools(2));
        let mut assembler = Assembler::new(Box::new(Test), &opts);
        let mut out = Vec::new();
        assembler
            .push(None, &json!({"k": 0, "name": "f", "args": "{}"}), &mut out)
            .unwrap();
        let err = assembler
            .push(None, &json!({"k": 0, "args": "   "}), &mut out)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit exceeded: the arguments of the calls in flight exceed 4 bytes"
        );
        assembler
            .push(None, &json!({"k": 1, "name": "g"}), &mut out)
            .unwrap();
        let err = assembler
            .push(None, &json!({"k": 2, "name": "h"}), &mut out)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit exceeded: the stream has more than 2 calls"
        );
    }

    #[test]
    fn names_map_back() {
        let opts = CallOptions::default().with_name("a_b", "a.b");
        let events = run_with(&[json!({"k": 0, "name": "a_b"}), json!({"stop": true})], &opts);
        let CallEvent::Started { name, .. } = &events[0] else {
            panic!()
        };
        assert_eq!(name, "a.b");
        let CallEvent::Finished { call, .. } = &events[1] else {
            panic!()
        };
        assert_eq!((call.name.as_str(), call.provider_name.as_str()), ("a.b", "a_b"));
    }

    #[test]
    fn frames_that_are_not_json_name_their_line() {
        let mut assembler = Assembler::new(Box::new(Test), &CallOptions::default());
        let frame = Frame {
            event: None,
            data: "{\"k\": 0,\n \"id\": }".into(),
            line: 7,
            offset: None,
        };
        let err = assembler.push_frame(&frame, &mut Vec::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid response: the event at stream line 7 is not JSON: expected value (line 8, column 8)"
        );
    }
}
