//! The one walk every lowering shares, and the state it carries.
//!
//! [`Rules`] is the walk: over each schema node it inlines a `$ref` (or keeps
//! it), turns a boolean schema into an object, combines `allOf`, writes
//! `oneOf` as `anyOf`, then hands the node to the dialect to shape and asks
//! it about each keyword, recursing into subschemas, within the depth limit
//! and the `$ref` expansion budget. A dialect implements the required
//! methods — its decisions — and gets the walk from the provided ones.
//!
//! [`Ctx`] is the state one lowering shares across its walk: the original
//! schema (for `$ref`s), where it sits in the tool, the limits, the notes,
//! and the bookkeeping for inlining (which targets are being expanded, how
//! many nodes inlining has cost so far). [`Place`] says where a node came
//! from, for notes.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;

use super::keywords::{bool_schema, describe, merge_into, rename_key, Object};
use super::refs::Inlined;
use crate::json::Field;

/// What a dialect does with a `$ref` it meets.
pub(super) enum RefRule {
    /// Replace it by its target; the reason completes the note's sentence
    /// ("… was inlined because {reason}").
    Inline(String),
    /// Keep it as it is.
    Keep,
    /// Keep it, written as this spelling (`#` and a JSON Pointer) instead of
    /// one that relies on what lowering removes (`$id`, `$anchor`).
    Respell(String),
}

/// What a dialect that combines `allOf` or rewrites `oneOf` does with what
/// cannot be combined: `allOf` branches that disagree on a keyword, a `oneOf`
/// beside an `anyOf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Conflict {
    /// An error note; the keyword stays as it is (`allOf` uncombined,
    /// `oneOf` kept).
    Refuse,
    /// Written into the description.
    Move,
    /// Dropped with a note (for `allOf`, the first branch's value is kept).
    Drop,
}

/// How a dialect combines a node's `allOf` branches into the node.
pub(super) struct AllOf {
    /// What happens where the branches disagree.
    pub(super) conflict: Conflict,
    /// Why, for the note: "the allOf branches were combined into one schema
    /// ({why})".
    pub(super) why: Cow<'static, str>,
}

/// What happens to one keyword of a node.
pub(super) enum Rule {
    /// Copied as it is.
    Keep,
    /// Written into the description (one note per keyword, at the node).
    Move,
    /// Left out, with a note giving this reason.
    Drop(Cow<'static, str>),
    /// Left out; the rules noted it already, or there is nothing to note.
    Skip,
    /// This value written under this key instead (the rules noted it).
    Write(&'static str, Value),
    /// Walked as one subschema.
    Schema,
    /// Walked as a list of subschemas.
    Schemas,
    /// Walked as a map from names to subschemas.
    SchemaMap,
}

/// Where a subschema sits under its node: `items`, `properties/name`,
/// `anyOf/0`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step<'k> {
    /// The value of keyword `.0`.
    Key(&'k str),
    /// Member `.1` of keyword `.0`.
    Member(&'k str, &'k str),
    /// Index `.1` of keyword `.0`.
    Index(&'k str, usize),
}

/// A node after the dialect shaped it: ready for its keywords, or written.
pub(super) enum Shape<'n, F> {
    /// Walk the keywords of `node`, at `place`, into `out` (which may
    /// already hold keywords the dialect put first); `facts` are what the
    /// dialect learned about the node, for its keyword rules and `finish`.
    Node {
        /// The node, as the dialect rewrote it.
        node: Cow<'n, Object>,
        /// Where it came from.
        place: Place,
        /// What the dialect learned about it.
        facts: F,
        /// The output so far.
        out: Object,
    },
    /// The dialect wrote the node itself (walking what it needed to through
    /// [`Rules::node`]). Only for dialects that never answer
    /// [`Conflict::Move`]: what was moved before shaping would be lost.
    Written(Value),
}

/// A dialect's decisions, and the walk that asks for them.
///
/// The required methods are the dialect's page of rules; the provided
/// methods are the walk, which dialects call ([`Rules::walk_root`],
/// [`Rules::node`], [`Rules::write`]) but do not override, except the two
/// hooks [`Rules::object_schema`] and [`Rules::subschema`].
pub(super) trait Rules<'a> {
    /// What a node hands on to the schema that stands in for it (a `$ref`'s
    /// target, a combined branch); the root starts from what
    /// [`Rules::walk_root`] is given, every other subschema from `Default`.
    type Inherited: Copy + Default;
    /// What [`Rules::shape`] learned about a node, for [`Rules::keyword`] and
    /// [`Rules::finish`].
    type Facts;

    /// The lowering's shared state.
    fn ctx(&mut self) -> &mut Ctx<'a>;

    /// What to do with the `$ref` of `node`, found at `place`.
    fn reference(&mut self, node: &Object, reference: &str, place: &Place) -> Result<RefRule>;

    /// Whether (and how) to combine `node`'s `allOf` `branches` into it;
    /// `None` leaves `allOf` alone.
    fn all_of(&self, node: &Object, branches: &[Value]) -> Option<AllOf>;

    /// Whether `oneOf` is written as `anyOf`, and what happens to a `oneOf`
    /// beside an `anyOf`; `None` leaves `oneOf` alone.
    fn one_of(&self) -> Option<Conflict>;

    /// What `node` hands on, read from its own keywords before `allOf` is
    /// combined; by default what it inherited.
    fn inherit(&self, node: &Object, inherited: Self::Inherited) -> Self::Inherited {
        let _ = node;
        inherited
    }

    /// Rewrites a node before its keywords are walked (types, unions,
    /// nullability), or writes it whole. `any_of_key` is `"oneOf"` when the
    /// node's `anyOf` was written from a `oneOf`, for notes.
    fn shape<'n>(
        &mut self,
        node: Cow<'n, Object>,
        place: Place,
        depth: usize,
        inherited: Self::Inherited,
        any_of_key: &'static str,
    ) -> Result<Shape<'n, Self::Facts>>;

    /// What happens to keyword `key` (with `value`) of the shaped `node`.
    fn keyword(
        &mut self,
        key: &str,
        value: &Value,
        node: &Object,
        facts: &Self::Facts,
        place: &Place,
    ) -> Rule;

    /// Completes `out`, the node's written keywords, before what was moved
    /// goes into its description (closing objects, checking `required`).
    fn finish(
        &mut self,
        out: &mut Object,
        node: &Object,
        facts: Self::Facts,
        place: &Place,
        depth: usize,
    ) -> Result<()>;

    /// Hook: a schema node as an object, or `None` to copy it as it is. By
    /// default a boolean schema becomes its object form, with a note.
    fn object_schema<'v>(&mut self, value: &'v Value, place: &Place) -> Option<Cow<'v, Object>> {
        self.ctx().object_schema(value, place)
    }

    /// Hook: walks the subschema at `step` under the node being written. By
    /// default a plain [`Rules::node`] call; a dialect that tracks where it
    /// writes wraps it.
    fn subschema(&mut self, value: &Value, place: &Place, depth: usize, step: Step<'_>) -> Result<Value> {
        let _ = step;
        self.node(value, place, depth, Self::Inherited::default())
    }

    /// Walks the whole schema.
    fn walk_root(&mut self, inherited: Self::Inherited) -> Result<Value> {
        let ctx = self.ctx();
        let root = ctx.root;
        let place = Place::root(&ctx.at);
        self.node(root, &place, 0, inherited)
    }

    /// Walks one schema node: its `$ref` first, then the node itself.
    fn node(
        &mut self,
        value: &Value,
        place: &Place,
        depth: usize,
        inherited: Self::Inherited,
    ) -> Result<Value> {
        let Some(node) = self.object_schema(value, place) else {
            return Ok(value.clone());
        };
        let depth = self.ctx().enter(depth, place)?;
        let Some(Value::String(reference)) = node.field("$ref") else {
            return self.node_map(node, place, depth, inherited);
        };
        match self.reference(&node, reference, place)? {
            RefRule::Keep => self.node_map(node, place, depth, inherited),
            RefRule::Respell(spelling) => {
                let message = format!(
                    "{reference:?} was written as {spelling:?}, which does not rely on $id or $anchor"
                );
                let mut node = node.into_owned();
                node.insert("$ref".into(), Value::String(spelling));
                self.ctx().note(
                    NoteKind::Rewritten {
                        keyword: "$ref".into(),
                    },
                    place.at("$ref"),
                    message,
                );
                self.node_map(Cow::Owned(node), place, depth, inherited)
            }
            RefRule::Inline(why) => {
                let mark = self.ctx().mark();
                let result = match self.ctx().inline(&node, reference, place, &why)? {
                    Inlined::Schema { schema, place } => {
                        self.node(&Value::Object(schema), &place, depth, inherited)
                    }
                    Inlined::Replaced(schema) => self.node_map(Cow::Owned(schema), place, depth, inherited),
                };
                self.ctx().release(mark);
                result
            }
        }
    }

    /// Walks a node whose `$ref` is dealt with; the `$ref` targets inlined
    /// while combining its `allOf` stay marked as being expanded until it is
    /// done.
    fn node_map(
        &mut self,
        node: Cow<'_, Object>,
        place: &Place,
        depth: usize,
        inherited: Self::Inherited,
    ) -> Result<Value> {
        let mark = self.ctx().mark();
        let result = self.node_body(node, place, depth, inherited);
        self.ctx().release(mark);
        result
    }

    /// Combines `allOf`, writes `oneOf` as `anyOf`, has the dialect shape
    /// the node, then writes it.
    fn node_body(
        &mut self,
        node: Cow<'_, Object>,
        place: &Place,
        depth: usize,
        inherited: Self::Inherited,
    ) -> Result<Value> {
        let inherited = self.inherit(&node, inherited);
        let mut node = node;
        let mut place = place.clone();
        let mut moved = Object::new();
        self.combine_all_of(&mut node, &mut place, &mut moved, depth)?;
        let any_of_key = self.one_of_as_any_of(&mut node, &place, &mut moved);
        match self.shape(node, place, depth, inherited, any_of_key)? {
            Shape::Written(value) => {
                debug_assert!(moved.is_empty(), "keywords moved before a node was written whole");
                Ok(value)
            }
            Shape::Node {
                node,
                place,
                facts,
                out,
            } => self.write(&node, &place, facts, out, moved, depth),
        }
    }

    /// Combines the node's `allOf` branches into it, where the dialect says
    /// so ([`Rules::all_of`]); the node is then at a merged place.
    fn combine_all_of(
        &mut self,
        node: &mut Cow<'_, Object>,
        place: &mut Place,
        moved: &mut Object,
        depth: usize,
    ) -> Result<()> {
        let Some(Value::Array(branches)) = node.field("allOf") else {
            return Ok(());
        };
        let Some(all_of) = self.all_of(node, branches) else {
            return Ok(());
        };
        let ctx = self.ctx();
        let mark = ctx.mark();
        let (merged, rejected) = ctx.flatten(node, place, depth)?;
        if !rejected.is_empty() && all_of.conflict == Conflict::Refuse {
            ctx.release(mark);
            let keywords: Vec<String> = rejected.iter().map(|(k, _)| format!("{k:?}")).collect();
            ctx.note(
                NoteKind::Unsupported {
                    keyword: "allOf".into(),
                },
                place.at("allOf"),
                format!(
                    "{} does not support allOf here, and its branches cannot be combined into one schema (they disagree on {})",
                    ctx.target,
                    keywords.join(", ")
                ),
            );
            return Ok(());
        }
        for (keyword, value) in rejected {
            if all_of.conflict == Conflict::Move {
                moved.entry(keyword).or_insert(value);
            } else {
                ctx.note(
                    NoteKind::Dropped {
                        keyword: keyword.as_str().into(),
                    },
                    place.note.clone(),
                    format!("the allOf branches disagree on {keyword:?}; the first value was kept"),
                );
            }
        }
        ctx.note(
            NoteKind::Rewritten {
                keyword: "allOf".into(),
            },
            place.note.clone(),
            format!(
                "the allOf branches were combined into one schema ({})",
                all_of.why
            ),
        );
        *node = Cow::Owned(merged);
        *place = place.merged();
        Ok(())
    }

    /// Writes the node's `oneOf` as `anyOf`, where the dialect says so
    /// ([`Rules::one_of`]). Returns the keyword the node's `anyOf` was
    /// written as, for notes: `"oneOf"` if it was renamed.
    fn one_of_as_any_of(
        &mut self,
        node: &mut Cow<'_, Object>,
        place: &Place,
        moved: &mut Object,
    ) -> &'static str {
        let Some(conflict) = self.one_of() else {
            return "anyOf";
        };
        if !node.field("oneOf").is_some_and(Value::is_array) {
            return "anyOf";
        }
        let ctx = self.ctx();
        let target = ctx.target;
        if !node.has_field("anyOf") {
            *node = Cow::Owned(rename_key(std::mem::take(node).into_owned(), "oneOf", "anyOf"));
            ctx.note(
                NoteKind::Rewritten {
                    keyword: "oneOf".into(),
                },
                place.note.clone(),
                format!(
                    "oneOf was written as anyOf ({target} has no oneOf; anyOf also accepts a value that matches several branches)"
                ),
            );
            return "oneOf";
        }
        match conflict {
            Conflict::Refuse => ctx.note(
                NoteKind::Unsupported {
                    keyword: "oneOf".into(),
                },
                place.at("oneOf"),
                format!(
                    "{target} does not support oneOf, and this schema already has an anyOf to merge it with"
                ),
            ),
            Conflict::Move => {
                if let Some(one_of) = node.to_mut().shift_remove("oneOf") {
                    moved.insert("oneOf".into(), one_of);
                }
            }
            Conflict::Drop => {
                node.to_mut().shift_remove("oneOf");
                ctx.dropped(
                    "oneOf",
                    place,
                    &format!(
                        "{target} has no oneOf, and this schema already has an anyOf it cannot be combined with"
                    ),
                );
            }
        }
        "anyOf"
    }

    /// Writes a shaped node: each keyword by [`Rules::keyword`], subschemas
    /// walked, then [`Rules::finish`], then the `moved` keywords (and those
    /// the rules moved) written into the description.
    fn write(
        &mut self,
        node: &Object,
        place: &Place,
        facts: Self::Facts,
        mut out: Object,
        mut moved: Object,
        depth: usize,
    ) -> Result<Value> {
        for (key, value) in node {
            match self.keyword(key, value, node, &facts, place) {
                Rule::Keep => {
                    out.insert(key.clone(), value.clone());
                }
                Rule::Move => {
                    moved.insert(key.clone(), value.clone());
                }
                Rule::Drop(why) => self.ctx().dropped(key, place, &why),
                Rule::Skip => {}
                Rule::Write(written, value) => {
                    out.insert(written.into(), value);
                }
                Rule::Schema => {
                    let lowered = self.subschema(value, &place.key(key), depth, Step::Key(key))?;
                    out.insert(key.clone(), lowered);
                }
                Rule::Schemas => {
                    let at = place.key(key);
                    let mut lowered = Vec::new();
                    for (index, item) in value.as_array().into_iter().flatten().enumerate() {
                        lowered.push(self.subschema(
                            item,
                            &at.index(index),
                            depth,
                            Step::Index(key, index),
                        )?);
                    }
                    out.insert(key.clone(), Value::Array(lowered));
                }
                Rule::SchemaMap => {
                    let at = place.key(key);
                    let mut lowered = Object::new();
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        let schema = self.subschema(schema, &at.key(name), depth, Step::Member(key, name))?;
                        lowered.insert(name.clone(), schema);
                    }
                    out.insert(key.clone(), Value::Object(lowered));
                }
            }
        }
        self.finish(&mut out, node, facts, place, depth)?;
        self.ctx().move_to_description(&mut out, moved, place)?;
        Ok(Value::Object(out))
    }
}

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
    pub(super) fn note(&mut self, kind: NoteKind, at: Pointer, message: impl Into<crate::note::SharedStr>) {
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
                        keyword: accepts.to_string().into(),
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
    /// [`super::keywords::describe`]).
    pub(super) fn describe(&self, node: &Object, moved: &Object, place: &Place) -> Result<String> {
        let description = node.field("description").and_then(Value::as_str);
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
                    keyword: keyword.into(),
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
            .field("allOf")
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
        if let Some(Value::String(reference)) = schema.field("$ref") {
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
        if schema.field("allOf").is_some_and(Value::is_array) {
            let (flat, more) = self.flatten(&schema, place, depth)?;
            schema = flat;
            rejected.extend(more);
        }
        Ok((schema, rejected))
    }

    /// Notes that keyword `key` was left out.
    pub(super) fn dropped(&mut self, key: &str, place: &Place, why: &str) {
        self.note(
            NoteKind::Dropped { keyword: key.into() },
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
