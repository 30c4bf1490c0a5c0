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
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        column += 1;
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth > max_depth {
                    return Err(Error::new(
                        ErrorKind::LimitExceeded,
                        format!("the document is nested more than {max_depth} levels deep"),
                    )
                    .with_position(line, column));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            '\n' => {
                line += 1;
                column = 0;
            }
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
    }
}
