//! The JSON Schema of the toolbridge tool file.

use std::sync::OnceLock;

use serde_json::Value;

/// The JSON Schema (2020-12) of a tool file: one tool, a list, or
/// `{"tools": [...]}`. `toolbridge schema` prints it.
pub const FILE_SCHEMA: &str = include_str!("file_schema.json");

/// [`FILE_SCHEMA`] as a JSON value.
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::from_str(FILE_SCHEMA).expect("the file schema is valid JSON"))
}

/// The schema of a single tool: [`FILE_SCHEMA`] rooted at `#/$defs/tool`.
pub(crate) fn tool_schema() -> Value {
    let mut root = serde_json::Map::new();
    root.insert("$schema".into(), schema()["$schema"].clone());
    root.insert("$ref".into(), Value::String("#/$defs/tool".into()));
    root.insert("$defs".into(), schema()["$defs"].clone());
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_schema_is_a_valid_schema() {
        crate::check::validate::check_schema(schema()).unwrap();
        assert!(schema()["$defs"]["tool"]["properties"]["inputSchema"].is_object());
    }
}
