//! Small JSON helpers every layer above uses: a located view of an input
//! document ([`Node`]), the nesting check that runs before parsing, the
//! phrase for a value's type, and the one door to the `jsonschema` crate
//! ([`validate`]).

mod node;
pub(crate) mod validate;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};

pub(crate) use node::Node;

/// Refuses JSON text nested deeper than `max_depth`, before parsing it, with
/// the line and column where the limit is passed.
pub(crate) fn check_depth(text: &str, max_depth: usize) -> Result<()> {
    // Bytes, not chars: every byte that matters here is ASCII, and a UTF-8
    // continuation byte is never one of them. The column is counted only
    // when the limit is passed.
    let bytes = text.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (offset, &byte) in bytes.iter().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    let before = &text[..offset];
                    let line = before.matches('\n').count() + 1;
                    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
                    let column = text[line_start..=offset].chars().count();
                    return Err(Error::new(
                        ErrorKind::LimitExceeded,
                        format!("the document is nested more than {max_depth} levels deep"),
                    )
                    .with_position(line, column));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// "a number", "an object", … for a value.
pub(crate) fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_check_reports_position_and_ignores_strings() {
        assert!(check_depth(r#"{"a": "[[[[[[[["}"#, 2).is_ok());
        let err = check_depth("[\n [[[", 3).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        assert_eq!(err.position(), Some((2, 4)));
        // Columns count characters, not bytes.
        let err = check_depth("[\"é\", [", 1).unwrap_err();
        assert_eq!(err.position(), Some((1, 7)));
    }
}
