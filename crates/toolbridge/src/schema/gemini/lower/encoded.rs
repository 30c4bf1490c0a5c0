//! What the Gemini rules do about values Gemini's `Schema` cannot describe
//! (see [`crate::schema::encode`]): the keywords of a node written as a
//! string of JSON, and the check that no OBJECT without properties is left.

use serde_json::Value;

use crate::note::NoteKind;
use crate::pointer::Pointer;
use crate::schema::encode::encode_value;
use crate::schema::keywords::{Object, META, STANDARD};
use crate::schema::walk::{Place, Rule, Rules};

use super::{Facts, Gemini};

/// True if `node` lists at least one property.
pub(super) fn has_properties(node: &Object) -> bool {
    node.get("properties")
        .and_then(Value::as_object)
        .is_some_and(|props| !props.is_empty())
}

impl Gemini<'_, '_> {
    /// The rule for keyword `key` of a node written as a string of JSON:
    /// what describes the value goes into the description, examples and
    /// defaults are encoded too.
    pub(super) fn encoded_keyword(
        &mut self,
        key: &str,
        value: &Value,
        node: &Object,
        nullable: bool,
        place: &Place,
    ) -> Rule {
        match key {
            "type" | "nullable" | "description" | "title" | "$defs" | "definitions" => {
                let facts = Facts {
                    ty: "string".into(),
                    nullable,
                    encoded: None,
                };
                self.keyword(key, value, node, &facts, place)
            }
            "properties" if value.as_object().is_none_or(|props| props.is_empty()) => Rule::Skip,
            "default" => Rule::Write("default", encode_value(value)),
            "examples" if !node.contains_key("example") => match value.as_array().and_then(|v| v.first()) {
                Some(first) => Rule::Write("example", encode_value(first)),
                None => Rule::Drop("Gemini takes one example, and this schema has no usable one".into()),
            },
            "example" => Rule::Write("example", encode_value(value)),
            _ if META.contains(&key) => {
                Rule::Drop("Gemini rejects it, and it is not meant for the model".into())
            }
            _ if STANDARD.contains(&key) => Rule::Move,
            _ => Rule::Drop("it is not a JSON Schema keyword, and Gemini rejects unknown keys".into()),
        }
    }

    /// Gemini refuses an OBJECT without properties at any depth. Below the
    /// root the walk wrote none (they are strings of JSON); at the root of
    /// the parameters such an OBJECT means a tool without arguments, whose
    /// `parameters` the writer leaves out, so what else it carries is
    /// dropped with a note. Any other left is an error note.
    pub(super) fn check_objects(&mut self, lowered: &mut Value) {
        let empty = |node: &Object| {
            node.get("type").and_then(Value::as_str) == Some("OBJECT")
                && node
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_none_or(|props| props.is_empty())
        };
        let parameters = self.ctx.at.tokens().last().as_deref() == Some("inputSchema");
        if let Value::Object(root) = lowered {
            if parameters && empty(root) && root.len() > 1 {
                let extra: Vec<String> = root.keys().filter(|key| *key != "type").cloned().collect();
                for key in extra {
                    root.shift_remove(&key);
                    self.ctx.note(
                        NoteKind::Dropped { keyword: key.as_str().into() },
                        self.ctx.at.key(&key),
                        format!("{key:?} was dropped: the tool takes no arguments, and Gemini refuses an OBJECT without properties, so parameters are left out"),
                    );
                }
            }
        }
        let mut stack: Vec<(&Value, Pointer)> = vec![(&*lowered, Pointer::root())];
        while let Some((value, at)) = stack.pop() {
            match value {
                Value::Object(node) => {
                    if !at.is_root() && empty(node) {
                        self.ctx.note(
                            NoteKind::Unsupported { keyword: "properties".into() },
                            self.ctx.at.clone(),
                            format!("the OBJECT at {at} of the written schema has no properties, which Gemini refuses (\"should be non-empty for OBJECT type\")"),
                        );
                    }
                    stack.extend(node.iter().map(|(key, child)| (child, at.key(key))));
                }
                Value::Array(items) => {
                    stack.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(index, item)| (item, at.index(index))),
                    );
                }
                _ => {}
            }
        }
    }
}
