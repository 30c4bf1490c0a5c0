//! Helpers for the lowering tests: run a dialect, list notes compactly, and
//! check that every change is covered by a note at or above it.

use serde_json::Value;

use crate::error::Result;
use crate::limits::Limits;
use crate::note::Notes;
use crate::pointer::Pointer;

use super::{lower, Dialect};

/// A lowering's output, notes as `(kind, pointer)` and absent places.
#[derive(Debug)]
pub(super) struct Run {
    pub(super) schema: Value,
    pub(super) notes: Vec<(String, String)>,
    pub(super) absent: Vec<String>,
    /// The rewrites recorded for the schema, in their JSON form.
    pub(super) rewrites: Vec<Value>,
}

/// Where the tests' schemas sit in the tool.
pub(super) fn at() -> Pointer {
    Pointer::root().key("inputSchema")
}

/// Lowers `schema` with default limits, checks note coverage, and returns
/// the result.
pub(super) fn run(schema: &Value, dialect: Dialect) -> Run {
    run_with(schema, dialect, &Limits::default()).unwrap_or_else(|err| panic!("{dialect:?}: {err}"))
}

/// Like [`run`], with limits, passing errors on.
pub(super) fn run_with(schema: &Value, dialect: Dialect, limits: &Limits) -> Result<Run> {
    let mut notes = Notes::new();
    let lowered = lower(schema, dialect, &at(), limits, &mut notes)?;
    assert_covered(schema, &lowered.schema, &notes);
    Ok(Run {
        rewrites: lowered
            .rewrites
            .iter()
            .map(|rewrite| serde_json::to_value(rewrite).unwrap())
            .collect(),
        schema: lowered.schema,
        notes: notes
            .iter()
            .map(|note| {
                let kind = serde_json::to_value(&note.kind).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_string();
                (kind, note.at.as_str().to_string())
            })
            .collect(),
        absent: lowered
            .null_means_absent
            .iter()
            .map(|p| p.as_str().to_string())
            .collect(),
    })
}

/// Panics unless every place where `output` differs from `input` has a
/// note at it or above it.
pub(super) fn assert_covered(input: &Value, output: &Value, notes: &Notes) {
    let mut changed = Vec::new();
    differences(input, output, at(), &mut changed);
    for place in changed {
        assert!(
            notes.iter().any(|note| place.starts_with(&note.at)),
            "no note covers the change at {place}\ninput:  {input}\noutput: {output}\nnotes: {:#?}",
            notes.as_slice()
        );
    }
}

fn differences(a: &Value, b: &Value, at: Pointer, out: &mut Vec<Pointer>) {
    if a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, value) in x {
                match y.get(key) {
                    Some(other) => differences(value, other, at.key(key), out),
                    None => out.push(at.key(key)),
                }
            }
            for key in y.keys().filter(|key| !x.contains_key(*key)) {
                out.push(at.key(key));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (index, (value, other)) in x.iter().zip(y).enumerate() {
                differences(value, other, at.index(index), out);
            }
        }
        _ => out.push(at),
    }
}

/// `(kind, pointer)` pairs, for comparing with [`Run::notes`].
pub(super) fn notes(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(kind, at)| (kind.to_string(), at.to_string()))
        .collect()
}
