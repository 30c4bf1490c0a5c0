//! Defaults and transforms applied to arguments (Syllable semantics).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// What to do for one parameter the model did not give (or gave).
///
/// In JSON a default is either a plain value (`"celsius"`) or an object whose
/// only key is `transform` (`{"transform": {"action": "remove"}}`), exactly as
/// in Syllable's `ToolDefinition.defaults`.
#[derive(Clone, Debug, PartialEq)]
pub enum ParameterDefault {
    /// Use this value when the parameter is missing.
    Value(Value),
    /// Compute, override or remove the parameter.
    Transform(Transform),
}

/// A Syllable parameter transform.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Transform {
    /// What to do (Syllable's default is `default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<TransformAction>,
    /// Apply only when this condition holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Condition>,
    /// A literal value to set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// A Python `str.format` template over the other parameters, such as `"Hello, {name}!"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// The transform's action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TransformAction {
    /// Set only if the parameter is missing or empty.
    Default,
    /// Always set.
    Override,
    /// Delete the parameter.
    Remove,
}

/// When a transform applies: parameter `key` compared with `value`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Condition {
    /// The parameter to test.
    pub key: String,
    /// The value to compare with.
    pub value: Value,
    /// The comparison; only `eq` exists (Syllable's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
}

impl Condition {
    /// `key == value`, with no explicit operator.
    pub fn eq(key: impl Into<String>, value: impl Into<Value>) -> Condition {
        Condition {
            key: key.into(),
            value: value.into(),
            operator: None,
        }
    }
}

impl ParameterDefault {
    /// True when this default always gives the parameter a value the model
    /// left out: a plain default, or a transform with no condition whose
    /// action is `default` or `override` and which has a `value` or a
    /// `format`. Such a parameter is optional for the model.
    pub fn always_fills(&self) -> bool {
        match self {
            ParameterDefault::Value(_) => true,
            ParameterDefault::Transform(transform) => {
                transform.when.is_none()
                    && transform.action != Some(TransformAction::Remove)
                    && (transform.value.is_some() || transform.format.is_some())
            }
        }
    }

    /// The JSON form (plain value or `{"transform": …}`).
    pub fn to_value(&self) -> Value {
        match self {
            ParameterDefault::Value(value) => value.clone(),
            ParameterDefault::Transform(transform) => {
                let mut object = Map::new();
                object.insert(
                    "transform".into(),
                    serde_json::to_value(transform).expect("a Transform always serializes"),
                );
                Value::Object(object)
            }
        }
    }

    /// Reads the JSON form; an object whose only key is `transform` is a transform.
    pub fn from_value(value: Value) -> Result<ParameterDefault, serde_json::Error> {
        match value {
            Value::Object(mut object) if object.len() == 1 && object.contains_key("transform") => {
                let transform = object.remove("transform").unwrap_or(Value::Null);
                Ok(ParameterDefault::Transform(serde_json::from_value(transform)?))
            }
            value => Ok(ParameterDefault::Value(value)),
        }
    }
}

impl Serialize for ParameterDefault {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ParameterDefault {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ParameterDefault::from_value(value).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_values_and_transforms() {
        let plain: ParameterDefault = serde_json::from_value(json!("Queens Hospital")).unwrap();
        assert_eq!(plain, ParameterDefault::Value(json!("Queens Hospital")));
        let transform: ParameterDefault = serde_json::from_value(json!({"transform": {
            "when": {"operator": "eq", "key": "city", "value": "Bronx"},
            "action": "override", "format": "The {city}"}}))
        .unwrap();
        let ParameterDefault::Transform(t) = &transform else {
            panic!("not a transform")
        };
        assert_eq!(t.action, Some(TransformAction::Override));
        assert_eq!(t.when.as_ref().unwrap().key, "city");
        assert_eq!(
            transform.to_value(),
            json!({"transform": {"action": "override",
                "when": {"key": "city", "value": "Bronx", "operator": "eq"}, "format": "The {city}"}})
        );
        let object: ParameterDefault = serde_json::from_value(json!({"a": 1, "transform": 2})).unwrap();
        assert_eq!(object, ParameterDefault::Value(json!({"a": 1, "transform": 2})));
    }
}
