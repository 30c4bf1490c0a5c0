//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::Path;

use serde_json::{Map, Value};
use toolbridge::{Format, Note, Pointer, Tool};

/// The format a fixture belongs to: its directory name is the format id.
pub fn fixture_format(path: &Path) -> Format {
    let dir = path
        .parent()
        .and_then(|dir| dir.file_name())
        .and_then(|name| name.to_str())
        .expect("fixtures live in a directory named for their format");
    Format::from_id(dir).unwrap_or_else(|err| panic!("fixture directory {dir:?}: {err}"))
}

/// True for a fixture that must fail to read (`err_*`).
pub fn is_error_fixture(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("err_"))
}

/// Notes as stable text lines for snapshots.
pub fn note_lines<'a>(notes: impl IntoIterator<Item = &'a Note>) -> String {
    notes
        .into_iter()
        .map(|note| format!("{} {}: {}\n", note.level(), note.at, note.message))
        .collect()
}

/// Places where `a` and `b` differ, as deep as both sides have structure.
pub fn differences(a: &Value, b: &Value, at: Pointer, out: &mut Vec<Pointer>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            // A member missing on one side is compared with an empty object,
            // so that the places inside it are reported one by one.
            let empty = Value::Object(Map::new());
            for (key, value) in x {
                match y.get(key) {
                    Some(other) => differences(value, other, at.key(key), out),
                    None if is_nonempty_object(value) => differences(value, &empty, at.key(key), out),
                    None => out.push(at.key(key)),
                }
            }
            for (key, value) in y.iter().filter(|(key, _)| !x.contains_key(*key)) {
                if is_nonempty_object(value) {
                    differences(&empty, value, at.key(key), out);
                } else {
                    out.push(at.key(key));
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (index, (value, other)) in x.iter().zip(y).enumerate() {
                differences(value, other, at.index(index), out);
            }
        }
        _ if a == b => {}
        _ => out.push(at),
    }
}

/// True for an object with at least one member.
fn is_nonempty_object(value: &Value) -> bool {
    value.as_object().is_some_and(|object| !object.is_empty())
}

/// Places where `before` and `after` differ that no note covers (a note
/// covers its own place and everything under it).
/// The tool file, without fields that hold the value their absence means
/// (`async: false`): dropping those loses nothing.
fn without_defaults(tool: &Tool) -> Value {
    let mut value = tool.to_value();
    if let Value::Object(object) = &mut value {
        for field in toolbridge::tool::FIELDS {
            if tool.holds_default(field.key) {
                object.shift_remove(field.key);
            }
        }
    }
    value
}

pub fn unexplained(before: &Tool, after: &Tool, notes: &[Note]) -> Vec<Pointer> {
    let mut found = Vec::new();
    differences(
        &without_defaults(before),
        &without_defaults(after),
        Pointer::root(),
        &mut found,
    );
    found
        .into_iter()
        .filter(|place| !notes.iter().any(|note| place.starts_with(&note.at)))
        .collect()
}
