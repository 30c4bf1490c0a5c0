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
        crate::json::validate::check_schema(schema()).unwrap();
        assert!(schema()["$defs"]["tool"]["properties"]["inputSchema"].is_object());
    }

    #[test]
    fn syllable_fields_are_checked() {
        let validator = crate::json::validate::Compiled::new(&tool_schema()).unwrap();
        let good = serde_json::json!({"name": "t", "inputSchema": {"type": "object"},
            "run": {"kind": "context", "task": [{"type": "import", "name": "x"}]},
            "staticParameters": [{"name": "sources", "type": "dataSourceList", "required": true, "default": ["faq"]}],
            "fixedResult": "done", "propagateResult": true});
        assert_eq!(validator.violations(&good), []);
        let bad = serde_json::json!({"name": "t", "inputSchema": {"type": "object"},
            "run": {"kind": "context", "result": 1},
            "staticParameters": [{"name": "n", "type": "integer", "default": "3"}, {"name": "m", "type": "int"}],
            "propagateResult": "yes"});
        let mut places: Vec<String> = validator
            .violations(&bad)
            .into_iter()
            .map(|violation| violation.at.to_string())
            .collect();
        places.sort();
        assert_eq!(
            places,
            [
                "/propagateResult",
                "/run",
                "/staticParameters/0/default",
                "/staticParameters/1/type"
            ]
        );
    }
}
