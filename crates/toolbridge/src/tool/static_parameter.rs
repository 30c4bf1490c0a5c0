//! Parameters set when a tool is configured, never by the model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A parameter whose value is fixed at configuration time and hidden from the
/// model (Syllable's `StaticToolParameter`). It is not part of the input
/// schema; the host fills it in before the call runs.
///
/// JSON form: `{"name": "unit", "type": "string", "required": false,
/// "description": "…", "default": "celsius"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StaticParameter {
    /// The parameter name, unique within the tool.
    pub name: String,
    /// The type its value must have.
    #[serde(rename = "type")]
    pub value_type: StaticParameterType,
    /// A value must be configured (or defaulted) before the tool can run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// What the parameter is for, for the people configuring the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The value used when none is configured; it must fit `type`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

impl StaticParameter {
    /// An optional parameter with no description and no default.
    pub fn new(name: impl Into<String>, value_type: StaticParameterType) -> StaticParameter {
        StaticParameter {
            name: name.into(),
            value_type,
            required: false,
            description: None,
            default: None,
        }
    }
}

/// The type of a [`StaticParameter`]'s value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StaticParameterType {
    /// A string.
    String,
    /// An integer (Syllable `int`).
    Integer,
    /// `true` or `false`.
    Boolean,
    /// A list of data-source names (strings) the tool may search.
    DataSourceList,
}

impl StaticParameterType {
    /// True if `value` is a value of this type.
    pub fn accepts(self, value: &Value) -> bool {
        match self {
            StaticParameterType::String => value.is_string(),
            StaticParameterType::Integer => value.is_i64() || value.is_u64(),
            StaticParameterType::Boolean => value.is_boolean(),
            StaticParameterType::DataSourceList => value
                .as_array()
                .is_some_and(|items| items.iter().all(Value::is_string)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_form_is_camel_case_and_skips_the_unset() {
        let mut parameter = StaticParameter::new("sources", StaticParameterType::DataSourceList);
        assert_eq!(
            serde_json::to_value(&parameter).unwrap(),
            json!({"name": "sources", "type": "dataSourceList"})
        );
        parameter.required = true;
        parameter.default = Some(json!(["faq"]));
        let value =
            json!({"name": "sources", "type": "dataSourceList", "required": true, "default": ["faq"]});
        assert_eq!(serde_json::to_value(&parameter).unwrap(), value);
        assert_eq!(
            serde_json::from_value::<StaticParameter>(value).unwrap(),
            parameter
        );
    }

    #[test]
    fn types_accept_their_values() {
        assert!(StaticParameterType::Integer.accepts(&json!(3)));
        assert!(!StaticParameterType::Integer.accepts(&json!(3.5)));
        assert!(StaticParameterType::DataSourceList.accepts(&json!(["a", "b"])));
        assert!(!StaticParameterType::DataSourceList.accepts(&json!(["a", 1])));
        assert!(!StaticParameterType::Boolean.accepts(&json!("true")));
    }
}
