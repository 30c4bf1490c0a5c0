//! What every provider's whole-response reader shares: turning the parts of
//! one call as the provider sent them into a [`ToolCall`], with ids made
//! unique, names mapped back and arguments normalised, and errors that say
//! "invalid response" at the place.

use serde_json::{Map, Value};

use crate::call::arguments::{self, Expect};
use crate::call::ids::Ids;
use crate::call::{CallOptions, ToolCall};
use crate::error::{Error, ErrorKind, Result};
use crate::json::{describe, Node};
use crate::note::{Converted, Note, NoteKind, Notes};
use crate::pointer::Pointer;

/// The parts of one call as the provider sent them.
#[derive(Debug)]
pub(crate) struct Sent<'a> {
    /// The call's entry (for notes about the call as a whole).
    pub at: Pointer,
    /// The id member, if any.
    pub id: Option<Node<'a>>,
    /// The name member, if any.
    pub name: Option<Node<'a>>,
    /// The arguments member (`None` when absent), and where it would be.
    pub arguments: Option<&'a Value>,
    /// Where the arguments are (or would be).
    pub arguments_at: Pointer,
    /// How this provider sends arguments.
    pub expect: Expect,
    /// The members to echo back (see [`ToolCall::extras`]).
    pub extras: Map<String, Value>,
}

/// The calls of one whole response, read one by one.
#[derive(Debug)]
pub(crate) struct Collector<'o> {
    opts: &'o CallOptions,
    ids: Ids,
    calls: Vec<ToolCall>,
    notes: Notes,
    /// The choice the calls read next belong to.
    choice: Option<usize>,
}

impl<'o> Collector<'o> {
    /// No calls yet.
    pub fn new(opts: &'o CallOptions) -> Collector<'o> {
        Collector {
            opts,
            ids: Ids::default(),
            calls: Vec::new(),
            notes: Notes::new(),
            choice: None,
        }
    }

    /// Reads one call; fails only past [`Limits::max_tools`](crate::Limits::max_tools) calls
    /// or on an id or a name of the wrong type.
    pub fn push(&mut self, sent: Sent<'_>) -> Result<()> {
        if self.calls.len() >= self.opts.limits.max_tools {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("the response has more than {} calls", self.opts.limits.max_tools),
            )
            .at(sent.at));
        }
        let mut notes = Vec::new();
        let provider_id = match &sent.id {
            Some(node) => id_text(node)?,
            None => None,
        };
        let provider_name = match &sent.name {
            Some(node) => invalid_response(node.str())?.to_string(),
            None => {
                notes.push(no_name(sent.at.key("name")));
                String::new()
            }
        };
        let id_at = sent
            .id
            .as_ref()
            .map_or_else(|| sent.at.key("id"), |node| node.at.clone());
        let id = self.ids.assign(
            provider_id.as_deref(),
            self.calls.len(),
            &self.opts.id_prefix,
            &id_at,
            &mut notes,
        );
        let read = arguments::read(sent.arguments, sent.expect, &sent.arguments_at, &self.opts.limits);
        notes.extend(read.notes);
        self.calls.push(ToolCall {
            id,
            name: self.opts.canonical_name(&provider_name),
            arguments: read.value,
            raw_arguments: read.raw,
            provider_id,
            provider_name,
            extras: sent.extras,
            notes,
            choice: self.choice,
        });
        Ok(())
    }

    /// The calls read from now on belong to `choice` (see [`ToolCall::choice`]).
    pub fn set_choice(&mut self, choice: Option<usize>) {
        self.choice = choice;
    }

    /// Notes something about the response as a whole (a call left out).
    pub fn note(&mut self, kind: NoteKind, at: Pointer, message: impl Into<crate::note::SharedStr>) {
        self.notes.push(kind, at, message);
    }

    /// The calls, in order, with the response's own notes.
    pub fn finish(self) -> Converted<Vec<ToolCall>> {
        Converted {
            value: self.calls,
            notes: self.notes.into_vec(),
        }
    }
}

/// The note for a call without a name.
pub(crate) fn no_name(at: Pointer) -> Note {
    Note::new(
        NoteKind::Defaulted { field: "name".into() },
        at,
        "the call has no name; read as \"\", which names no tool",
    )
}

/// An id member as text: a string (empty means none), or a number written
/// out (JSON-RPC ids are numbers or strings; MCP keeps the number in extras).
pub(crate) fn id_text(node: &Node<'_>) -> Result<Option<String>> {
    match node.value {
        Value::String(id) if id.is_empty() => Ok(None),
        Value::String(id) => Ok(Some(id.clone())),
        Value::Number(number) => Ok(Some(number.to_string())),
        other => Err(Error::new(
            ErrorKind::InvalidResponse,
            format!("{} must be a string, found {}", node.label(), describe(other)),
        )
        .at(node.at.clone())),
    }
}

/// A [`Node`] result whose error is about a response, not a tool.
pub(crate) fn invalid_response<T>(result: Result<T>) -> Result<T> {
    result.map_err(|err| {
        if err.kind() == ErrorKind::InvalidTool {
            Error::new(ErrorKind::InvalidResponse, err.detail()).at(err.pointer().clone())
        } else {
            err
        }
    })
}

/// The entry of `items` for choice (or candidate) `choice`: the one whose
/// `index` member says so, else the one at that position when none has an
/// `index`.
pub(crate) fn choice<'a>(items: Vec<Node<'a>>, choice: usize) -> Option<Node<'a>> {
    let indexed = |item: &Node<'a>| item.value.get("index").and_then(Value::as_u64);
    if items.iter().any(|item| indexed(item).is_some()) {
        items
            .into_iter()
            .find(|item| indexed(item) == Some(choice as u64))
    } else {
        items.into_iter().nth(choice)
    }
}

/// A provider's error event or error body as an [`ErrorKind::ProviderError`]:
/// its `message` (under `error` or at the top) and the whole value.
pub(crate) fn provider_error(value: &Value) -> Error {
    let error = value.get("error").unwrap_or(value);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .or_else(|| value.get("message").and_then(Value::as_str));
    let detail = match message {
        Some(message) => format!("{message} ({value})"),
        None => value.to_string(),
    };
    Error::new(ErrorKind::ProviderError, detail)
}

/// The keys of `node` besides `known`, with the keys of its inner object
/// `inner` (besides `inner_known`) under `inner`'s name when there are any.
pub(crate) fn extras(node: &Node<'_>, known: &[&str], inner: Option<(&str, &[&str])>) -> Map<String, Value> {
    let mut extras = node.other_members(known);
    if let Some((key, inner_known)) = inner {
        extras.shift_remove(key);
        if let Some(inner_node) = node.get(key) {
            let inner_extras = inner_node.other_members(inner_known);
            if !inner_extras.is_empty() {
                extras.insert(key.to_string(), Value::Object(inner_extras));
            }
        }
    }
    extras
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_get_unique_ids_mapped_names_and_notes() {
        let options = CallOptions::default().with_name("github_search", "github.search");
        let mut collector = Collector::new(&options);
        let doc = json!([{"id": "x", "name": "github_search", "arguments": "{}"},
                         {"id": "x", "name": "other", "arguments": {"a": 1}},
                         {"arguments": "[1]"}]);
        for (index, call) in doc.as_array().unwrap().iter().enumerate() {
            let node = Node::new(call, Pointer::root().index(index));
            collector
                .push(Sent {
                    at: node.at.clone(),
                    id: node.get("id"),
                    name: node.get("name"),
                    arguments: call.get("arguments"),
                    arguments_at: node.at.key("arguments"),
                    expect: Expect::Text,
                    extras: Map::new(),
                })
                .unwrap();
        }
        let calls = collector.finish().value;
        assert_eq!(calls[0].name, "github.search");
        assert_eq!(calls[0].provider_name, "github_search");
        assert_eq!(
            (calls[1].id.as_str(), calls[1].provider_id.as_deref()),
            ("x_2", Some("x"))
        );
        assert_eq!(calls[1].notes.len(), 2, "{:?}", calls[1].notes);
        assert_eq!(calls[1].notes[0].at.as_str(), "/1/id");
        assert_eq!(
            (calls[2].id.as_str(), calls[2].provider_id.as_deref()),
            ("call_2", None)
        );
        assert_eq!(calls[2].name, "");
        assert!(calls[2].arguments.is_err());
    }

    #[test]
    fn ids_of_the_wrong_type_are_invalid_responses() {
        let value = json!(true);
        let node = Node::new(&value, Pointer::root().key("id"));
        let err = id_text(&node).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid response: \"id\" must be a string, found a boolean (at /id)"
        );
        let value = json!(7);
        let node = Node::new(&value, Pointer::root().key("id"));
        assert_eq!(id_text(&node).unwrap().as_deref(), Some("7"));
    }
}
