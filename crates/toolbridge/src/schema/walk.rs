//! The state one lowering shares across its walk: the original schema (for
//! `$ref`s), where it sits in the tool, the limits, the notes, and the
//! bookkeeping for inlining (which targets are being expanded, how many nodes
//! inlining has cost so far).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;

use super::keywords::{bool_schema, describe, merge_into, Object};
use super::refs::Inlined;

/// Where a node of the walk came from.
#[derive(Clone, Debug)]
pub(super) struct Place {
    /// Where notes about this node point: the node itself in the canonical
    /// tool, or — for content copied from elsewhere (an inlined `$ref`, a
    /// merged `allOf`) — the place it was copied to.
    pub(super) note: Pointer,
    /// The node's own location in the original schema, when it is an exact
    /// copy of one (used to detect recursion and to name broken `$ref`s).
    pub(super) src: Option<Pointer>,
    copied: bool,
}

impl Place {
    /// The schema's root, found at `at` in the tool.
    pub(super) fn root(at: &Pointer) -> Place {
        Place {
            note: at.clone(),
            src: Some(Pointer::root()),
            copied: false,
        }
    }

    /// The node at `src` in the original schema, which sits at `at` in the tool.
    pub(super) fn original(at: &Pointer, src: &Pointer) -> Place {
        Place {
            note: at.join(src),
            src: Some(src.clone()),
            copied: false,
        }
    }

    /// The child at object key `key`.
    pub(super) fn key(&self, key: &str) -> Place {
        Place {
            note: if self.copied {
                self.note.clone()
            } else {
                self.note.key(key)
            },
            src: self.src.as_ref().map(|src| src.key(key)),
            copied: self.copied,
        }
    }

    /// The child at array index `index`.
    pub(super) fn index(&self, index: usize) -> Place {
        Place {
            note: if self.copied {
                self.note.clone()
            } else {
                self.note.index(index)
            },
            src: self.src.as_ref().map(|src| src.index(index)),
            copied: self.copied,
        }
    }

    /// Content of `target` (a location in the original schema) copied here.
    pub(super) fn copied_from(&self, target: &Pointer) -> Place {
        Place {
            note: self.note.clone(),
            src: Some(target.clone()),
            copied: true,
        }
    }

    /// Content combined here from several places (`allOf` branches, a `$ref`
    /// with siblings, keywords pushed into `anyOf` branches).
    pub(super) fn merged(&self) -> Place {
        Place {
            note: self.note.clone(),
            src: None,
            copied: true,
        }
    }

    /// The pointer for a note about keyword `key` of this node.
    pub(super) fn at(&self, key: &str) -> Pointer {
        self.key(key).note
    }
}

/// The shared state of one call to [`lower`](super::lower).
pub(super) struct Ctx<'a> {
    /// The original schema, which every `$ref` is resolved against.
    pub(super) root: &'a Value,
    pub(super) limits: &'a Limits,
    pub(super) notes: &'a mut Notes,
    /// The target's name, for messages ("Gemini", "OpenAI strict mode").
    pub(super) target: &'static str,
    pub(super) at: Pointer,
    /// The `$ref` targets being expanded, outermost first.
    pub(super) expanding: Vec<Pointer>,
    /// Schema nodes walked inside inlined content.
    pub(super) expanded: usize,
    pub(super) anchors: Option<HashMap<String, Pointer>>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(
        root: &'a Value,
        at: &Pointer,
        limits: &'a Limits,
        notes: &'a mut Notes,
        target: &'static str,
    ) -> Ctx<'a> {
        Ctx {
            root,
            limits,
            notes,
            target,
            at: at.clone(),
            expanding: Vec::new(),
            expanded: 0,
            anchors: None,
        }
    }

    /// Adds a note.
    pub(super) fn note(&mut self, kind: NoteKind, at: Pointer, message: impl Into<String>) {
        self.notes.push(kind, at, message);
    }

    /// A schema node as an object: an object as it is, a boolean schema as
    /// its object form (`true` → `{}`, `false` → `{"not": {}}`) with a note,
    /// anything else `None` (left as it is by the walks).
    pub(super) fn object_schema<'v>(&mut self, value: &'v Value, place: &Place) -> Option<Cow<'v, Object>> {
        match value {
            Value::Object(object) => Some(Cow::Borrowed(object)),
            Value::Bool(accepts) => {
                self.note(
                    NoteKind::Rewritten {
                        keyword: accepts.to_string(),
                    },
                    place.note.clone(),
                    format!(
                        "the boolean schema {accepts} was written as {}",
                        Value::Object(bool_schema(*accepts))
                    ),
                );
                Some(Cow::Owned(bool_schema(*accepts)))
            }
            _ => None,
        }
    }

    /// One level deeper: fails once the walk is deeper than `max_depth`, and
    /// counts the node against the expansion budget while inside inlined
    /// content.
    pub(super) fn enter(&mut self, depth: usize, place: &Place) -> Result<usize> {
        if depth >= self.limits.max_depth {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the schema is nested more than {} levels deep",
                    self.limits.max_depth
                ),
            )
            .at(place.note.clone()));
        }
        if !self.expanding.is_empty() {
            self.expanded += 1;
            if self.expanded > self.limits.max_ref_expansion {
                return Err(fan_out(self.limits.max_ref_expansion, place.note.clone()));
            }
        }
        Ok(depth + 1)
    }

    /// The description of `node` with `moved` keywords appended (see
    /// [`describe`](super::keywords::describe)).
    pub(super) fn describe(&self, node: &Object, moved: &Object, place: &Place) -> Result<String> {
        let description = node.get("description").and_then(Value::as_str);
        describe(description, moved, self.limits.max_depth).ok_or_else(|| {
            Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "a keyword written into the description is nested more than {} levels deep",
                    self.limits.max_depth
                ),
            )
            .at(place.note.clone())
        })
    }

    /// Writes `moved` keywords into `out`'s description, with one note per
    /// keyword at the node (the description changes there too).
    pub(super) fn move_to_description(
        &mut self,
        out: &mut Object,
        moved: Object,
        place: &Place,
    ) -> Result<()> {
        if moved.is_empty() {
            return Ok(());
        }
        let text = self.describe(out, &moved, place)?;
        out.insert("description".into(), Value::String(text));
        for keyword in moved.keys() {
            self.note(
                NoteKind::MovedToDescription {
                    keyword: keyword.clone(),
                },
                place.note.clone(),
                format!(
                    "{} does not support {keyword:?} here; it was written into the description",
                    self.target
                ),
            );
        }
        Ok(())
    }

    /// Combines a node's `allOf` branches (resolving `$ref` branches) into
    /// the node. Returns the result and what could not be combined.
    pub(super) fn flatten(
        &mut self,
        node: &Object,
        place: &Place,
        depth: usize,
    ) -> Result<(Object, Vec<(String, Value)>)> {
        let depth = self.enter(depth, place)?;
        let mut merged: Object = node
            .iter()
            .filter(|(key, _)| *key != "allOf")
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let mut rejected = Vec::new();
        let branches = node
            .get("allOf")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (index, branch) in branches.iter().enumerate() {
            let (branch, more) = self.branch(branch, &place.key("allOf").index(index), depth)?;
            rejected.extend(more);
            rejected.extend(merge_into(&mut merged, &branch));
        }
        Ok((merged, rejected))
    }

    /// One `allOf` branch as a plain schema: `$ref`s inlined, nested `allOf`
    /// combined.
    fn branch(
        &mut self,
        value: &Value,
        place: &Place,
        depth: usize,
    ) -> Result<(Object, Vec<(String, Value)>)> {
        let depth = self.enter(depth, place)?;
        let mut schema = match value {
            Value::Object(object) => object.clone(),
            Value::Bool(accepts) => bool_schema(*accepts),
            _ => Object::new(),
        };
        let mut rejected = Vec::new();
        if let Some(Value::String(reference)) = schema.get("$ref") {
            let reference = reference.clone();
            match self.inline(
                &schema,
                &reference,
                place,
                "allOf branches are combined into one schema",
            )? {
                Inlined::Schema {
                    schema: resolved,
                    place,
                } => {
                    let (resolved, more) = self.branch(&Value::Object(resolved), &place, depth)?;
                    schema = resolved;
                    rejected.extend(more);
                }
                Inlined::Replaced(replacement) => schema = replacement,
            }
        }
        if schema.get("allOf").is_some_and(Value::is_array) {
            let (flat, more) = self.flatten(&schema, place, depth)?;
            schema = flat;
            rejected.extend(more);
        }
        Ok((schema, rejected))
    }

    /// Notes that keyword `key` was left out.
    pub(super) fn dropped(&mut self, key: &str, place: &Place, why: &str) {
        self.note(
            NoteKind::Dropped {
                keyword: key.to_string(),
            },
            place.at(key),
            format!("{key:?} was dropped: {why}"),
        );
    }
}

/// The error for an expansion that grew past the budget.
pub(super) fn fan_out(budget: usize, at: Pointer) -> Error {
    Error::new(
        ErrorKind::LimitExceeded,
        format!("$ref fan-out: expanding the $refs takes more than {budget} schema nodes"),
    )
    .at(at)
}
