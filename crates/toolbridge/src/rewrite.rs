//! What a writer changed in meaning and a call coming back must undo.
//!
//! Some lowerings cannot keep a schema's meaning in the target's dialect
//! without changing the shape of the arguments the model sends: strict mode
//! makes an optional property required and nullable, so "absent" arrives as
//! `null`; Gemini has no free-form object, so one arrives as a string of
//! JSON. Each such rewrite is recorded when the tool is written, and an
//! [`Inverse`] turns the model's arguments back into the shape the canonical
//! schema describes.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::pointer::Pointer;

/// One meaning-changing rewrite of a tool's input schema.
///
/// In each `at`, `*` stands for any array index and `**` for any number of
/// steps (a recursive schema).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Rewrite {
    /// An optional property was made required and nullable (strict mode): a
    /// `null` at `at` in the arguments means "absent".
    NullMeansAbsent {
        /// The place in the arguments.
        at: Pointer,
    },
    /// A value the target's dialect cannot describe (a free-form object, a
    /// map, a recursive object, an "any" value) was written as a string
    /// holding its JSON: a string at `at` is parsed back into the value.
    JsonEncoded {
        /// The place in the arguments.
        at: Pointer,
        /// Whether the value is always an object: then only a string holding
        /// a JSON object is parsed (the place may also take plain strings).
        object: bool,
    },
    /// The arguments were written as the one property `key` of the object
    /// the target needs at the root (a root that takes any keys has no
    /// properties to list): the value at `key` is the arguments.
    Nested {
        /// The property that holds the arguments.
        key: String,
    },
}

/// What turns a call made against a written tool back into a call of the
/// canonical tool: the name it was written under and the rewrites to undo.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Inverse {
    /// The tool's canonical name.
    pub name: String,
    /// The name the target got (differs when the target's rules renamed it).
    pub written_name: String,
    /// The rewrites of the input schema, in the order they were made.
    pub rewrites: Vec<Rewrite>,
}

/// A place where [`Inverse::restore`] found a value it could not turn back:
/// the value was left as the model sent it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Unrestored {
    /// The place in the arguments (a concrete pointer, no `*`).
    pub at: Pointer,
    /// What was expected and what came, as a sentence.
    pub message: String,
}

impl fmt::Display for Unrestored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at {})", self.message, self.at)
    }
}

impl Inverse {
    /// Undoes every rewrite on arguments a model sent for this tool, and
    /// returns the places it could not undo (a string that should hold JSON
    /// and does not: it stays as it is, and validation will say more).
    ///
    /// ```
    /// use toolbridge::{Format, WriteOptions};
    /// let tool = toolbridge::Tool::new("f", serde_json::json!({"type": "object",
    ///     "properties": {"unit": {"type": "string"}}}));
    /// let written = toolbridge::write(&[tool], Format::OpenAi, &WriteOptions::default().with_strict(true));
    /// let mut arguments = serde_json::json!({"unit": null});
    /// let unrestored = written.tools[0].inverse.restore(&mut arguments);
    /// assert_eq!(arguments, serde_json::json!({}));
    /// assert!(unrestored.is_empty());
    /// ```
    pub fn restore(&self, arguments: &mut Value) -> Vec<Unrestored> {
        self.restore_noting(arguments, &mut Vec::new())
    }

    /// [`restore`](Inverse::restore), also recording in `changed` each
    /// place it changed (a removed `null`, a decoded string, the unwrapped
    /// root), so a caller can say where without comparing copies.
    pub(crate) fn restore_noting(
        &self,
        arguments: &mut Value,
        changed: &mut Vec<Pointer>,
    ) -> Vec<Unrestored> {
        let mut unrestored = Vec::new();
        if !self.may_change(arguments) {
            return unrestored;
        }
        // Nulls first: an optional encoded value arrives as `null` when
        // absent and as the string "null" when it is a present `null`.
        for rewrite in &self.rewrites {
            if let Rewrite::NullMeansAbsent { at } = rewrite {
                let tokens: Vec<Cow<'_, str>> = at.steps().collect();
                remove_null_at_tokens(arguments, &tokens, &mut Vec::new(), changed);
            }
        }
        for rewrite in &self.rewrites {
            if let Rewrite::JsonEncoded { at, object } = rewrite {
                let tokens: Vec<Cow<'_, str>> = at.steps().collect();
                let mut decoding = Decoding {
                    object: *object,
                    unrestored: &mut unrestored,
                    changed,
                };
                decode_at(arguments, &tokens, Pointer::root(), &mut decoding);
            }
        }
        for rewrite in &self.rewrites {
            if let Rewrite::Nested { key } = rewrite {
                match arguments.get_mut(key.as_str()).map(Value::take) {
                    Some(inner @ Value::Object(_)) => {
                        *arguments = inner;
                        changed.push(Pointer::root());
                    }
                    Some(other) => {
                        unrestored.push(Unrestored {
                            at: Pointer::root().key(key),
                            message: "expected the arguments as an object here; they were left as they are"
                                .into(),
                        });
                        if let Some(slot) = arguments.get_mut(key.as_str()) {
                            *slot = other;
                        }
                    }
                    None => unrestored.push(Unrestored {
                        at: Pointer::root().key(key),
                        message: "expected the arguments under this key, and it is missing".into(),
                    }),
                }
            }
        }
        unrestored
    }
}

impl Inverse {
    /// False when restoring certainly leaves `arguments` as they are: every
    /// rewrite removes nulls, and they hold none (the common case of a
    /// strict-mode call that gave every optional argument). Cheaper than
    /// the walk to each place, and allocation-free.
    pub fn may_change(&self, arguments: &Value) -> bool {
        if self.rewrites.is_empty() {
            return false;
        }
        let only_nulls = self
            .rewrites
            .iter()
            .all(|rewrite| matches!(rewrite, Rewrite::NullMeansAbsent { .. }));
        !only_nulls || holds_null(arguments)
    }
}

/// Whether `value` may have a `null` in it: true when it has one, or is
/// nested deeper than the walk goes (without allocating, and with the
/// recursion bounded for values that did not come from parsed text).
fn holds_null(value: &Value) -> bool {
    fn walk(value: &Value, depth: usize) -> bool {
        match value {
            Value::Null => true,
            _ if depth == 0 => true,
            Value::Array(items) => items.iter().any(|item| walk(item, depth - 1)),
            Value::Object(members) => members.values().any(|member| walk(member, depth - 1)),
            _ => false,
        }
    }
    walk(value, 64)
}

/// Removes a `null` member at `place` (with `*` and `**` steps).
pub(crate) fn remove_null_at(value: &mut Value, place: &Pointer) {
    let tokens: Vec<Cow<'_, str>> = place.steps().collect();
    remove_null_at_tokens(value, &tokens, &mut Vec::new(), &mut Vec::new());
}

/// One step of the concrete path walked so far (a place is built from
/// them only when something is removed).
enum Step<'a> {
    Key(&'a str),
    Owned(String),
    Index(usize),
}

fn place_of(path: &[Step<'_>], last: &str) -> Pointer {
    let mut place = Pointer::root();
    for step in path {
        place = match step {
            Step::Key(key) => place.key(key),
            Step::Owned(key) => place.key(key),
            Step::Index(index) => place.index(*index),
        };
    }
    place.key(last)
}

fn remove_null_at_tokens<'t>(
    value: &mut Value,
    tokens: &'t [Cow<'t, str>],
    path: &mut Vec<Step<'t>>,
    removed: &mut Vec<Pointer>,
) {
    let Some((first, rest)) = tokens.split_first() else {
        return;
    };
    if first == "**" {
        remove_null_at_tokens(value, rest, path, removed);
        match value {
            Value::Object(object) => {
                for (key, child) in object.iter_mut() {
                    path.push(Step::Owned(key.clone()));
                    remove_null_at_tokens(child, tokens, path, removed);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    path.push(Step::Index(index));
                    remove_null_at_tokens(item, tokens, path, removed);
                    path.pop();
                }
            }
            _ => {}
        }
        return;
    }
    match value {
        Value::Object(object)
            if rest.is_empty() && object.get(first.as_ref()).is_some_and(Value::is_null) =>
        {
            object.shift_remove(first.as_ref());
            removed.push(place_of(path, first));
        }
        Value::Object(_) if rest.is_empty() => {}
        Value::Object(object) => {
            if let Some(child) = object.get_mut(first.as_ref()) {
                path.push(Step::Key(first));
                remove_null_at_tokens(child, rest, path, removed);
                path.pop();
            }
        }
        Value::Array(items) if first == "*" => {
            for (index, item) in items.iter_mut().enumerate() {
                path.push(Step::Index(index));
                remove_null_at_tokens(item, rest, path, removed);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Parses each string at `tokens` (with `*` and `**` steps) below `value`,
/// which sits at `here` in the arguments. A `**` step visits the children
/// before the node itself, so that what a string decodes to is not searched
/// again.
/// What decoding strings records as it goes.
struct Decoding<'a> {
    object: bool,
    unrestored: &'a mut Vec<Unrestored>,
    changed: &'a mut Vec<Pointer>,
}

fn decode_at(value: &mut Value, tokens: &[Cow<'_, str>], here: Pointer, decoding: &mut Decoding<'_>) {
    let Some((first, rest)) = tokens.split_first() else {
        decode(value, &here, decoding);
        return;
    };
    if first == "**" {
        match value {
            Value::Object(members) => {
                for (key, child) in members.iter_mut() {
                    decode_at(child, tokens, here.key(key), decoding);
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    decode_at(item, tokens, here.index(index), decoding);
                }
            }
            _ => {}
        }
        decode_at(value, rest, here, decoding);
        return;
    }
    match value {
        Value::Object(members) => {
            if let Some(child) = members.get_mut(first.as_ref()) {
                decode_at(child, rest, here.key(first), decoding);
            }
        }
        Value::Array(items) if first == "*" => {
            for (index, item) in items.iter_mut().enumerate() {
                decode_at(item, rest, here.index(index), decoding);
            }
        }
        _ => {}
    }
}

/// Replaces a string holding JSON by the value it holds. Anything else is
/// left alone: `null` (an absent optional value), or the value itself (a
/// model that sent the object rather than its encoding).
fn decode(value: &mut Value, at: &Pointer, decoding: &mut Decoding<'_>) {
    let Value::String(text) = value else {
        return;
    };
    let (object, unrestored) = (decoding.object, &mut *decoding.unrestored);
    let expected = if object { "a JSON object" } else { "JSON" };
    // serde_json refuses nesting past 128 levels, so this is bounded by
    // the string the model sent.
    match serde_json::from_str::<Value>(text) {
        Ok(decoded) if !object || decoded.is_object() => {
            *value = decoded;
            decoding.changed.push(at.clone());
        }
        Ok(_) => unrestored.push(Unrestored {
            at: at.clone(),
            message: format!("expected a string holding {expected}, and this one holds another kind of value; it was left as it is"),
        }),
        Err(err) => unrestored.push(Unrestored {
            at: at.clone(),
            message: format!("expected a string holding {expected}, and this one does not parse ({err}); it was left as it is"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn inverse(rewrites: Vec<Rewrite>) -> Inverse {
        Inverse {
            name: "t".into(),
            written_name: "t".into(),
            rewrites,
        }
    }

    fn encoded(at: &str, object: bool) -> Rewrite {
        Rewrite::JsonEncoded {
            at: Pointer::parse(at).unwrap(),
            object,
        }
    }

    #[test]
    fn encoded_values_are_parsed_back_and_bad_ones_reported() {
        let inverse = inverse(vec![
            encoded("/meta", true),
            encoded("/rows/*", false),
            encoded("/any", false),
            Rewrite::NullMeansAbsent {
                at: Pointer::parse("/any").unwrap(),
            },
        ]);
        let mut args =
            json!({"meta": "{\"a\": 1, \"x\": null}", "rows": ["[1, 2]", "\"s\"", "oops", 3], "any": "null"});
        let unrestored = inverse.restore(&mut args);
        assert_eq!(
            args,
            json!({"meta": {"a": 1, "x": null}, "rows": [[1, 2], "s", "oops", 3], "any": null})
        );
        let mut absent = json!({"any": null});
        assert!(inverse.restore(&mut absent).is_empty());
        assert_eq!(absent, json!({}));
        assert_eq!(
            unrestored,
            [Unrestored {
                at: Pointer::parse("/rows/2").unwrap(),
                message: "expected a string holding JSON, and this one does not parse (expected value at line 1 column 1); it was left as it is".into()
            }]
        );
        let mut args = json!({"meta": "[1]"});
        let unrestored = inverse.restore(&mut args);
        assert_eq!(args, json!({"meta": "[1]"}));
        assert_eq!(unrestored[0].to_string(), "expected a string holding a JSON object, and this one holds another kind of value; it was left as it is (at /meta)");
    }

    #[test]
    fn objects_sent_as_they_are_and_nulls_are_left_alone() {
        let inverse = inverse(vec![encoded("/meta", true)]);
        for sent in [json!({"meta": {"a": 1}}), json!({"meta": null}), json!({})] {
            let mut args = sent.clone();
            assert!(inverse.restore(&mut args).is_empty());
            assert_eq!(args, sent);
        }
    }

    #[test]
    fn nested_arguments_come_out_of_their_key() {
        let inverse = inverse(vec![
            encoded("/arguments", true),
            Rewrite::Nested {
                key: "arguments".into(),
            },
        ]);
        let mut args = json!({"arguments": "{\"x\": 1}"});
        assert!(inverse.restore(&mut args).is_empty());
        assert_eq!(args, json!({"x": 1}));
        let mut args = json!({"other": 1});
        assert_eq!(
            inverse.restore(&mut args)[0].to_string(),
            "expected the arguments under this key, and it is missing (at /arguments)"
        );
        let mut args = json!({"arguments": "[1]"});
        assert_eq!(inverse.restore(&mut args).len(), 2);
        assert_eq!(args, json!({"arguments": "[1]"}));
    }

    #[test]
    fn recursive_places_decode_each_level_once() {
        let inverse = inverse(vec![encoded("/**/data", true)]);
        let mut args = json!({"data": "{\"data\": \"{}\"}", "children": [{"data": "{\"k\": 1}"}]});
        assert!(inverse.restore(&mut args).is_empty());
        assert_eq!(
            args,
            json!({"data": {"data": "{}"}, "children": [{"data": {"k": 1}}]})
        );
    }
}
