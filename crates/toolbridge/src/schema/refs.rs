//! `$ref`: parsing, resolving against the original schema, inlining with
//! cycle detection and an expansion budget, and finding recursion where refs
//! are kept.
//!
//! Only references into the schema itself are followed: `#`, `#/$defs/X`,
//! `#/definitions/X`, any JSON Pointer fragment (`~0`/`~1` escapes and
//! percent-encoding), `#name` for a `$anchor`, and a reference that starts
//! with the root's own `$id`. Such a fragment is resolved against the root
//! document; an embedded `$id` does not start a new base, as in every
//! provider SDK. Anything else is remote and never fetched.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::json::describe as describe_value;
use crate::note::NoteKind;
use crate::pointer::Pointer;

use super::keywords::{bool_schema, merge_into, reorder_like, Object, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};
use super::walk::{Ctx, Place};
use crate::json::Field;

/// What a `$ref` refers to.
pub(super) enum Target<'a> {
    /// A schema in this document, at a pointer relative to its root.
    Local { at: Pointer, schema: &'a Value },
    /// Another document (never fetched).
    Remote,
}

/// The outcome of inlining a `$ref`.
pub(super) enum Inlined {
    /// The referenced schema (combined with the `$ref`'s siblings), to be
    /// walked in the node's place. Its target stays on the expansion stack
    /// until the caller releases it.
    Schema { schema: Object, place: Place },
    /// What stands in for a reference that cannot be expanded (recursion, a
    /// remote document), already noted.
    Replaced(Object),
}

enum Parsed {
    Local(Pointer),
    Anchor(String),
    Remote,
    Invalid,
}

impl<'a> Ctx<'a> {
    /// Resolves `reference`, found in the node at `place`.
    pub(super) fn resolve(&mut self, reference: &str, place: &Place) -> Result<Target<'a>> {
        let pointer = match self.parse(reference) {
            Parsed::Remote => return Ok(Target::Remote),
            Parsed::Local(pointer) => Some(pointer),
            Parsed::Anchor(name) => self.anchor(&name),
            Parsed::Invalid => None,
        };
        let unresolved = |detail: String| {
            let at = match &place.src {
                Some(src) => self.at.join(src).key("$ref"),
                None => place.note.clone(),
            };
            Error::new(ErrorKind::UnresolvedRef, detail).at(at)
        };
        let Some(pointer) = pointer else {
            return Err(unresolved(format!(
                "{reference:?} points at nothing in this schema"
            )));
        };
        match lookup(self.root, &pointer) {
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => Ok(Target::Local { at: pointer, schema }),
            Some(other) => Err(unresolved(format!(
                "{reference:?} points at {}, not at a schema",
                describe_value(other)
            ))),
            None => Err(unresolved(format!(
                "{reference:?} points at nothing in this schema"
            ))),
        }
    }

    fn parse(&self, reference: &str) -> Parsed {
        let (base, fragment) = match reference.split_once('#') {
            Some((base, fragment)) => (base, fragment),
            None => (reference, ""),
        };
        if !base.is_empty() && !self.is_root_id(base) {
            return Parsed::Remote;
        }
        let Some(fragment) = percent_decode(fragment) else {
            return Parsed::Invalid;
        };
        if fragment.is_empty() {
            return Parsed::Local(Pointer::root());
        }
        if !fragment.starts_with('/') {
            return Parsed::Anchor(fragment);
        }
        let mut pointer = Pointer::root();
        for token in fragment.split('/').skip(1) {
            pointer = pointer.key(&token.replace("~1", "/").replace("~0", "~"));
        }
        Parsed::Local(pointer)
    }

    fn is_root_id(&self, base: &str) -> bool {
        self.root
            .field("$id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.trim_end_matches('#') == base)
    }

    fn anchor(&mut self, name: &str) -> Option<Pointer> {
        let anchors = self.anchors.get_or_insert_with(|| find_anchors(self.root));
        anchors.get(name).cloned()
    }

    /// Replaces the node at `place`, which holds `"$ref": reference`, by what
    /// it refers to. `why` completes the note's sentence ("… was inlined
    /// because {why}").
    pub(super) fn inline(
        &mut self,
        node: &Object,
        reference: &str,
        place: &Place,
        why: &str,
    ) -> Result<Inlined> {
        let siblings: Object = node
            .iter()
            .filter(|(key, _)| *key != "$ref")
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let (target, schema) = match self.resolve(reference, place)? {
            Target::Remote => {
                self.note(
                    NoteKind::Dropped {
                        keyword: "$ref".into(),
                    },
                    place.at("$ref"),
                    format!(
                        "the remote $ref {reference:?} was dropped: {} needs it inlined and remote documents are never fetched, so any value is accepted here",
                        self.target
                    ),
                );
                return Ok(Inlined::Replaced(siblings));
            }
            Target::Local { at, schema } => (at, schema),
        };
        if self.expanding.contains(&target) || place.src.as_ref().is_some_and(|src| src.starts_with(&target))
        {
            let mut cut = siblings;
            if let Some(ty) = schema.field("type").filter(|_| !cut.has_field("type")) {
                cut.insert("type".into(), ty.clone());
            }
            let text = format!("Recursive reference to {reference}; not expanded further.");
            let description = match cut.field("description").and_then(Value::as_str) {
                Some(existing) => format!("{existing}\n\n{text}"),
                None => text,
            };
            cut.insert("description".into(), Value::String(description));
            self.note(
                NoteKind::Dropped {
                    keyword: "$ref".into(),
                },
                place.note.clone(),
                format!(
                    "{reference:?} refers back into itself; {} cannot express recursion, so it was expanded once and cut here",
                    self.target
                ),
            );
            return Ok(Inlined::Replaced(cut));
        }
        let target_schema = match schema {
            Value::Object(object) => object.clone(),
            Value::Bool(accepts) => bool_schema(*accepts),
            _ => Object::new(),
        };
        self.note(
            NoteKind::Inlined {
                reference: reference.into(),
            },
            place.note.clone(),
            format!("{reference:?} was inlined because {why}"),
        );
        let (schema, place) = if siblings.is_empty() {
            (target_schema, place.copied_from(&target))
        } else {
            let mut merged = siblings;
            for (keyword, _) in merge_into(&mut merged, &target_schema) {
                self.note(
                    NoteKind::Dropped {
                        keyword: keyword.as_str().into(),
                    },
                    place.note.clone(),
                    format!(
                        "the {keyword:?} of {reference:?} conflicts with the one beside the $ref; the one beside it was kept"
                    ),
                );
            }
            (reorder_like(merged, &target_schema), place.merged())
        };
        self.expanding.push(target);
        Ok(Inlined::Schema { schema, place })
    }

    /// Checks a `$ref` that stays in the output. Returns the spelling to write
    /// instead when the original relies on what lowering removes (the root's
    /// `$id`, an `$anchor`): `#` followed by the JSON Pointer.
    pub(super) fn keep_ref(&mut self, reference: &str, place: &Place) -> Result<Option<String>> {
        match self.resolve(reference, place)? {
            Target::Remote => Ok(None),
            Target::Local { .. } if reference == "#" || reference.starts_with("#/") => Ok(None),
            Target::Local { at, .. } => Ok(Some(pointer_fragment(&at))),
        }
    }

    /// How many targets are being expanded; pass it to [`Ctx::release`]
    /// after walking what [`Ctx::inline`] returned.
    pub(super) fn mark(&self) -> usize {
        self.expanding.len()
    }

    /// Ends the expansions begun since `mark`.
    pub(super) fn release(&mut self, mark: usize) {
        self.expanding.truncate(mark);
    }

    /// The `$ref`s that close a recursion, as pointers (in the tool) to the
    /// `$ref` keyword, found by following every local reference from the
    /// root. Each cycle is reported at least once.
    pub(super) fn recursive_refs(&mut self) -> Result<Vec<Pointer>> {
        let mut search = RecursionSearch {
            frames: vec![Frame {
                target: Pointer::root(),
                site: Pointer::root(),
            }],
            done: HashSet::new(),
            found: Vec::new(),
        };
        let root = self.root;
        search.visit(self, root, Pointer::root(), 0)?;
        Ok(search.found)
    }
}

struct Frame {
    target: Pointer,
    site: Pointer,
}

struct RecursionSearch {
    frames: Vec<Frame>,
    done: HashSet<Pointer>,
    found: Vec<Pointer>,
}

impl RecursionSearch {
    fn visit(&mut self, ctx: &mut Ctx<'_>, value: &Value, src: Pointer, depth: usize) -> Result<()> {
        let Value::Object(node) = value else {
            return Ok(());
        };
        let place = Place::original(&ctx.at, &src);
        let depth = ctx.enter(depth, &place)?;
        if let Some(Value::String(reference)) = node.field("$ref") {
            if let Target::Local { at: target, schema } = ctx.resolve(reference, &place)? {
                let Some((last, outer)) = self.frames.split_last_mut() else {
                    return Ok(());
                };
                let repeats = |frame_target: &Pointer, site: &Pointer| {
                    target.starts_with(frame_target) && site.starts_with(&target)
                };
                if repeats(&last.target, &src)
                    || outer.iter().any(|frame| repeats(&frame.target, &frame.site))
                {
                    let site = ctx.at.join(&src).key("$ref");
                    if !self.found.contains(&site) {
                        self.found.push(site);
                    }
                } else if !self.done.contains(&target) {
                    last.site = src.clone();
                    self.frames.push(Frame {
                        target: target.clone(),
                        site: target.clone(),
                    });
                    let result = self.visit(ctx, schema, target.clone(), depth);
                    self.frames.pop();
                    result?;
                    self.done.insert(target);
                }
            }
        }
        for (key, child) in node {
            for (child_src, child) in subschemas(key, child, &src) {
                self.visit(ctx, child, child_src, depth)?;
            }
        }
        Ok(())
    }
}

/// The subschemas keyword `key` holds, with their pointers under `src`.
pub(super) fn subschemas<'v>(key: &str, value: &'v Value, src: &Pointer) -> Vec<(Pointer, &'v Value)> {
    let at = src.key(key);
    let mut found = Vec::new();
    match value {
        Value::Object(_) | Value::Bool(_) if ONE_SCHEMA.contains(&key) => found.push((at, value)),
        Value::Array(items) if SCHEMA_LISTS.contains(&key) => {
            found.extend(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| (at.index(index), item)),
            );
        }
        Value::Object(map) if SCHEMA_MAPS.contains(&key) => {
            found.extend(
                map.iter()
                    .filter(|(_, schema)| schema.is_object() || schema.is_boolean())
                    .map(|(name, schema)| (at.key(name), schema)),
            );
        }
        _ => {}
    }
    found
}

/// The value at `pointer` (unescaped tokens) in `root`.
pub(super) fn lookup<'v>(root: &'v Value, pointer: &Pointer) -> Option<&'v Value> {
    let mut value = root;
    for token in pointer.tokens() {
        value = match value {
            Value::Object(object) => object.get(token.as_str())?,
            Value::Array(items) => {
                if token.len() > 1 && token.starts_with('0') {
                    return None;
                }
                items.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(value)
}

/// `#` and the pointer, percent-encoding what a URI fragment cannot hold.
pub(super) fn pointer_fragment(pointer: &Pointer) -> String {
    let mut text = String::from("#");
    for byte in pointer.as_str().bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte) {
            text.push(byte as char);
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    text
}

/// Decodes `%XX` escapes; `None` if one is malformed or the result is not UTF-8.
pub(super) fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_string());
    }
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// Every `$anchor` (and draft-07 `"$id": "#name"`) in the document, first
/// one wins. Iterative, so any depth is safe.
fn find_anchors(root: &Value) -> HashMap<String, Pointer> {
    let mut anchors = HashMap::new();
    let mut stack = vec![(Pointer::root(), root)];
    while let Some((at, value)) = stack.pop() {
        let Value::Object(node) = value else {
            continue;
        };
        let anchor = node.field("$anchor").and_then(Value::as_str).or_else(|| {
            node.field("$id")
                .and_then(Value::as_str)
                .and_then(|id| id.strip_prefix('#'))
        });
        if let Some(name) = anchor {
            anchors.entry(name.to_string()).or_insert_with(|| at.clone());
        }
        for (key, child) in node.iter().rev() {
            for (child_at, child) in subschemas(key, child, &at).into_iter().rev() {
                stack.push((child_at, child));
            }
        }
    }
    anchors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use crate::note::Notes;
    use serde_json::json;

    fn resolve_at(schema: &Value, reference: &str) -> Result<Option<String>> {
        let limits = Limits::default();
        let mut notes = Notes::new();
        let at = Pointer::parse("/inputSchema").unwrap();
        let mut ctx = Ctx::new(schema, &at, &limits, &mut notes, "test");
        let place = Place::root(&at).key("properties").key("x");
        Ok(match ctx.resolve(reference, &place)? {
            Target::Local { at, .. } => Some(at.as_str().to_string()),
            Target::Remote => None,
        })
    }

    #[test]
    fn local_references_of_every_spelling_resolve() {
        let schema = json!({"$id": "https://example.com/tool", "$defs": {"a/b": {"$anchor": "ab"}, "c~d": {},
            "e f": {}, "list": {"items": [{}, {"type": "string"}]}}});
        for (reference, expected) in [
            ("#", Some("")),
            ("#/$defs/a~1b", Some("/$defs/a~1b")),
            ("#/$defs/c~0d", Some("/$defs/c~0d")),
            ("#/$defs/e%20f", Some("/$defs/e f")),
            ("#ab", Some("/$defs/a~1b")),
            ("#/$defs/list/items/1", Some("/$defs/list/items/1")),
            ("https://example.com/tool#/$defs/c~0d", Some("/$defs/c~0d")),
            ("https://example.com/other.json", None),
            ("other.json#/x", None),
        ] {
            assert_eq!(
                resolve_at(&schema, reference).unwrap().as_deref(),
                expected,
                "{reference}"
            );
        }
    }

    #[test]
    fn broken_references_name_the_ref() {
        let schema = json!({"$defs": {"n": 5, "list": {"items": [{}]}}});
        for (reference, detail) in [
            (
                "#/$defs/missing",
                "\"#/$defs/missing\" points at nothing in this schema",
            ),
            ("#/$defs/n", "\"#/$defs/n\" points at a number, not at a schema"),
            (
                "#/$defs/list/items/01",
                "\"#/$defs/list/items/01\" points at nothing in this schema",
            ),
            ("#nowhere", "\"#nowhere\" points at nothing in this schema"),
            ("#/bad%zz", "\"#/bad%zz\" points at nothing in this schema"),
        ] {
            let err = resolve_at(&schema, reference).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnresolvedRef);
            assert_eq!(err.detail(), detail);
            assert_eq!(err.pointer().as_str(), "/inputSchema/properties/x/$ref");
        }
    }

    #[test]
    fn recursion_is_found_through_defs_and_the_root() {
        let schema = json!({"type": "object", "properties": {
                "tree": {"$ref": "#/$defs/node"},
                "again": {"$ref": "#"},
                "leaf": {"$ref": "#/$defs/leaf"}},
            "$defs": {
                "node": {"properties": {"children": {"items": {"$ref": "#/$defs/node"}}}},
                "leaf": {"type": "string"}}});
        let limits = Limits::default();
        let mut notes = Notes::new();
        let at = Pointer::parse("/inputSchema").unwrap();
        let mut ctx = Ctx::new(&schema, &at, &limits, &mut notes, "test");
        let found: Vec<String> = ctx
            .recursive_refs()
            .unwrap()
            .iter()
            .map(|p| p.as_str().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "/inputSchema/$defs/node/properties/children/items/$ref",
                "/inputSchema/properties/again/$ref"
            ]
        );
    }
}
