//! What a writer changed in meaning and a call coming back must undo.
//!
//! Some lowerings cannot keep a schema's meaning in the target's dialect
//! without changing the shape of the arguments the model sends: strict mode
//! makes an optional property required and nullable, so "absent" arrives as
//! `null`. Each such rewrite is recorded when the tool is written, and an
//! [`Inverse`] turns the model's arguments back into the shape the canonical
//! schema describes.

use serde::Serialize;
use serde_json::Value;

use crate::pointer::Pointer;

/// One meaning-changing rewrite of a tool's input schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Rewrite {
    /// An optional property was made required and nullable (strict mode): a
    /// `null` at `at` in the arguments means "absent". In `at`, `*` stands for
    /// any array index and `**` for any number of steps (a recursive schema).
    NullMeansAbsent {
        /// The place in the arguments.
        at: Pointer,
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

impl Inverse {
    /// Undoes every rewrite on arguments a model sent for this tool.
    ///
    /// ```
    /// use toolbridge::{Format, WriteOptions};
    /// let tool = toolbridge::Tool::new("f", serde_json::json!({"type": "object",
    ///     "properties": {"unit": {"type": "string"}}}));
    /// let written = toolbridge::write(&[tool], Format::OpenAi, &WriteOptions::default().with_strict(true));
    /// let mut arguments = serde_json::json!({"unit": null});
    /// written.tools[0].inverse.restore(&mut arguments);
    /// assert_eq!(arguments, serde_json::json!({}));
    /// ```
    pub fn restore(&self, arguments: &mut Value) {
        for rewrite in &self.rewrites {
            match rewrite {
                Rewrite::NullMeansAbsent { at } => remove_null_at(arguments, at),
            }
        }
    }
}

/// Removes a `null` member at `place` (with `*` and `**` steps).
pub(crate) fn remove_null_at(value: &mut Value, place: &Pointer) {
    let tokens: Vec<String> = place.tokens().collect();
    remove_null_at_tokens(value, &tokens);
}

fn remove_null_at_tokens(value: &mut Value, tokens: &[String]) {
    let Some((first, rest)) = tokens.split_first() else {
        return;
    };
    if first == "**" {
        remove_null_at_tokens(value, rest);
        match value {
            Value::Object(object) => object
                .values_mut()
                .for_each(|child| remove_null_at_tokens(child, tokens)),
            Value::Array(items) => items
                .iter_mut()
                .for_each(|item| remove_null_at_tokens(item, tokens)),
            _ => {}
        }
        return;
    }
    match value {
        Value::Object(object)
            if rest.is_empty() && object.get(first.as_str()).is_some_and(Value::is_null) =>
        {
            object.shift_remove(first.as_str());
        }
        Value::Object(_) if rest.is_empty() => {}
        Value::Object(object) => {
            if let Some(child) = object.get_mut(first.as_str()) {
                remove_null_at_tokens(child, rest);
            }
        }
        Value::Array(items) if first == "*" => {
            for item in items {
                remove_null_at_tokens(item, rest);
            }
        }
        _ => {}
    }
}
