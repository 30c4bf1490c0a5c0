//! Values written as raw text (Qwen3-Coder's parameters), typed by the
//! tool's input schema: a string stays a string even when it looks like a
//! number, an integer parameter gets an integer. The rule is vLLM's
//! `qwen3coder_tool_parser.py` (`_convert_param_value`): the property's
//! `type` decides; objects and arrays are read as JSON.

use serde_json::{Number, Value};

use crate::call::repair;
use crate::limits::Limits;
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

/// The value of property `key` written as `raw`, typed by `property` (its
/// schema); notes point at `/arguments/<key>`.
pub(super) fn value(
    key: &str,
    raw: &str,
    property: Option<&Value>,
    limits: &Limits,
    notes: &mut Vec<Note>,
) -> Value {
    let at = Pointer::root().key("arguments").key(key);
    let types: Vec<&str> = match property.and_then(|schema| schema.get("type")) {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let trimmed = raw.trim();
    if types.contains(&"string") || types.is_empty() {
        return Value::String(raw.to_string());
    }
    if types.contains(&"null") && matches!(trimmed, "null" | "None") {
        return Value::Null;
    }
    if types.contains(&"integer") {
        if let Ok(integer) = trimmed.parse::<i64>() {
            return Value::Number(integer.into());
        }
        if let Some(float) = trimmed
            .parse::<f64>()
            .ok()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
        {
            notes.push(coerced(&at, raw, "integer"));
            return Value::Number((float as i64).into());
        }
    }
    if types.contains(&"number") {
        if let Ok(integer) = trimmed.parse::<i64>() {
            return Value::Number(integer.into());
        }
        if let Some(number) = trimmed.parse::<f64>().ok().and_then(Number::from_f64) {
            return Value::Number(number);
        }
    }
    if types.contains(&"boolean") {
        match trimmed {
            "true" => return Value::Bool(true),
            "false" => return Value::Bool(false),
            _ if trimmed.eq_ignore_ascii_case("true") => {
                notes.push(coerced(&at, raw, "boolean"));
                return Value::Bool(true);
            }
            _ if trimmed.eq_ignore_ascii_case("false") => {
                notes.push(coerced(&at, raw, "boolean"));
                return Value::Bool(false);
            }
            _ => {}
        }
    }
    if types.contains(&"object") || types.contains(&"array") {
        if let Ok(repaired) = repair(trimmed, property, limits) {
            if repaired.value.is_object() || repaired.value.is_array() {
                notes.extend(
                    repaired
                        .notes
                        .into_iter()
                        .map(|note| Note::new(note.kind, at.join(&note.at), note.message)),
                );
                return repaired.value;
            }
        }
    }
    notes.push(Note::new(
        NoteKind::Normalized { field: key.into() },
        at,
        format!(
            "{raw:?} is not of the type the schema gives ({}); it was kept as a string for validation to report",
            types.join(" or ")
        ),
    ));
    Value::String(raw.to_string())
}

fn coerced(at: &Pointer, raw: &str, to: &str) -> Note {
    Note::new(
        NoteKind::Coerced {
            from: "text".into(),
            to: to.into(),
        },
        at.clone(),
        format!("{raw:?} was read as the {to} the schema asks for"),
    )
}
