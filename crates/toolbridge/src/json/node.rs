//! A located view of an input document, for readers that must name the place
//! of every problem.

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::json::describe;
use crate::pointer::Pointer;

/// A tool entry moved out of its input document, with the place it came
/// from: a reader can keep its values without copying them.
#[derive(Debug)]
pub(crate) struct Entry {
    pub value: Value,
    pub at: Pointer,
}

impl Entry {
    /// A whole document as the entry.
    #[cfg(test)]
    pub fn root(value: Value) -> Entry {
        Entry {
            value,
            at: Pointer::root(),
        }
    }

    /// A borrowed, located view of the entry.
    pub fn node(&self) -> Node<'_> {
        Node::new(&self.value, self.at.clone())
    }
}

/// A value in an input document together with its JSON Pointer.
#[derive(Clone, Debug)]
pub(crate) struct Node<'a> {
    pub value: &'a Value,
    pub at: Pointer,
}

impl<'a> Node<'a> {
    /// The whole document.
    pub fn root(value: &'a Value) -> Node<'a> {
        Node {
            value,
            at: Pointer::root(),
        }
    }

    /// A value at a given place.
    pub fn new(value: &'a Value, at: Pointer) -> Node<'a> {
        Node { value, at }
    }

    /// An [`ErrorKind::InvalidTool`] error at this node.
    pub fn error(&self, detail: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidTool, detail).at(self.at.clone())
    }

    /// The last token of the pointer, quoted, for messages (`"name"`), or "the document".
    pub fn label(&self) -> String {
        match self.at.tokens().last() {
            Some(token) => format!("{token:?}"),
            None => "the document".to_string(),
        }
    }

    /// The value as an object.
    pub fn object(&self) -> Result<&'a Map<String, Value>> {
        self.value.as_object().ok_or_else(|| {
            self.error(format!(
                "{} must be an object, found {}",
                self.label(),
                describe(self.value)
            ))
        })
    }

    /// The value as a string.
    pub fn str(&self) -> Result<&'a str> {
        self.value.as_str().ok_or_else(|| {
            self.error(format!(
                "{} must be a string, found {}",
                self.label(),
                describe(self.value)
            ))
        })
    }

    /// The value as a boolean.
    pub fn bool(&self) -> Result<bool> {
        self.value.as_bool().ok_or_else(|| {
            self.error(format!(
                "{} must be true or false, found {}",
                self.label(),
                describe(self.value)
            ))
        })
    }

    /// The value as an array of nodes.
    pub fn array(&self) -> Result<Vec<Node<'a>>> {
        let items = self.value.as_array().ok_or_else(|| {
            self.error(format!(
                "{} must be an array, found {}",
                self.label(),
                describe(self.value)
            ))
        })?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(index, value)| Node::new(value, self.at.index(index)))
            .collect())
    }

    /// The member `key` if this is an object holding it (a `null` counts as absent).
    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        match self.value.get(key) {
            None | Some(Value::Null) => None,
            Some(value) => Some(Node::new(value, self.at.key(key))),
        }
    }

    /// The member `key`, which must be present.
    pub fn field(&self, key: &str) -> Result<Node<'a>> {
        self.object()?;
        self.get(key)
            .ok_or_else(|| self.error(format!("missing required field {key:?}")))
    }

    /// The string member `key`, which must be present.
    pub fn string_field(&self, key: &str) -> Result<String> {
        self.field(key)?.str().map(str::to_string)
    }

    /// The string member `key`, if present.
    pub fn opt_string(&self, key: &str) -> Result<Option<String>> {
        self.get(key)
            .map(|node| node.str().map(str::to_string))
            .transpose()
    }

    /// The boolean member `key`, if present.
    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        self.get(key).map(|node| node.bool()).transpose()
    }

    /// The members of this object whose keys are not in `known`, in order.
    pub fn other_members(&self, known: &[&str]) -> Map<String, Value> {
        self.value
            .as_object()
            .map(|object| {
                object
                    .iter()
                    .filter(|(key, _)| !known.contains(&key.as_str()))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_name_the_field_and_place() {
        let doc = json!({"function": {"name": 5}});
        let root = Node::root(&doc);
        let function = root.field("function").unwrap();
        let err = function.string_field("name").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid tool: \"name\" must be a string, found a number (at /function/name)"
        );
        let err = function.field("parameters").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid tool: missing required field \"parameters\" (at /function)"
        );
        assert!(root.get("missing").is_none());
    }
}
