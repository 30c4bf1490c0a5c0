//! Argument types: ellmer's `type_*()` calls to JSON Schema, and the
//! definitions writing embeds in `type_from_schema()` moved back to the root.

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::json::check_depth;
use crate::json::describe;
use crate::json::validate::check_schema;
use crate::note::NoteKind;
use crate::pointer::Pointer;

use super::super::r::{self, Arg, Expr, ExprKind, Pos};
use super::super::{fragment, refs_of, rewrite_refs, DEF_KEYS, JSON_TEXT_MARKER, KEYWORDS_MARKER};
use super::Reader;

const BASIC_FORMALS: [&str; 2] = ["description", "required"];
const OBJECT_FORMALS: [&str; 4] = [".description", "...", ".required", ".additional_properties"];

/// True for a value that is a string to R: a literal, `NULL`, or a call
/// that builds a string (`paste()`, `glue()`, …).
fn stringish(kind: &ExprKind) -> bool {
    match kind {
        ExprKind::Str(_) | ExprKind::Null => true,
        ExprKind::Call { name, .. } => matches!(name.as_str(), "paste" | "paste0" | "trimws" | "glue"),
        _ => false,
    }
}

impl Reader<'_, '_> {
    /// Reads a `type_*()` call: its schema and whether it is required. `rel`
    /// is its place in the input schema, `rpath` its place in the R call (for
    /// notes).
    pub(super) fn read_type(&mut self, expr: &Expr, rel: &Pointer, rpath: &Pointer) -> Result<(Value, bool)> {
        let Some((function, open)) = expr.call_of(&["ellmer"]) else {
            return Err(self.invalid(
                expr.at,
                format!(
                    "an argument type must be a type_*() call, found {}",
                    expr.describe()
                ),
            ));
        };
        let args = self.args(open)?;
        match function {
            "type_boolean" | "type_integer" | "type_number" | "type_string" => {
                let matched = r::match_args(function, &BASIC_FORMALS, &args)?;
                let mut schema = Map::new();
                schema.insert("type".into(), json!(&function[5..]));
                self.describe_into(&mut schema, matched.bound[0], function)?;
                let required = self.flag(matched.bound[1], "required", function)?;
                Ok((self.restored(schema, function, rel), required))
            }
            "type_enum" => {
                let (formals, old) = self.order(&args, ["values", "description", "required"], |first, second| {
                    stringish(first) && second.is_some_and(|second| !stringish(second))
                })?;
                let matched = r::match_args(function, &formals, &args)?;
                let values_arg = matched.get(&formals, "values");
                let Some(values_arg) = values_arg else {
                    return Err(self.invalid(expr.at, "type_enum() needs its values"));
                };
                let values = self.enum_values(values_arg)?;
                let mut schema = Map::new();
                schema.insert("type".into(), json!("string"));
                self.describe_into(&mut schema, matched.get(&formals, "description"), function)?;
                schema.insert("enum".into(), Value::Array(values));
                if old {
                    self.old_order_note(rpath, expr.at, function);
                }
                let required = self.flag(matched.get(&formals, "required"), "required", function)?;
                Ok((self.restored(schema, function, rel), required))
            }
            "type_array" => {
                let (formals, old) = self.order(&args, ["items", "description", "required"], |first, second| {
                    stringish(first) && second.is_some()
                })?;
                let matched = r::match_args(function, &formals, &args)?;
                let Some(items_arg) = matched.get(&formals, "items") else {
                    return Err(self.invalid(expr.at, "type_array() needs the type of its items"));
                };
                let items_expr = self.value(items_arg)?;
                let (items, _) = self.read_type(&items_expr, &rel.key("items"), &rpath.key("items"))?;
                let mut schema = Map::new();
                schema.insert("type".into(), json!("array"));
                self.describe_into(&mut schema, matched.get(&formals, "description"), function)?;
                schema.insert("items".into(), items);
                if old {
                    self.old_order_note(rpath, expr.at, function);
                }
                let required = self.flag(matched.get(&formals, "required"), "required", function)?;
                Ok((self.restored(schema, function, rel), required))
            }
            "type_object" => {
                let matched = r::match_args(function, &OBJECT_FORMALS, &args)?;
                let mut schema = Map::new();
                schema.insert("type".into(), json!("object"));
                self.describe_into(&mut schema, matched.bound[0], function)?;
                let mut properties = Map::new();
                let mut required = Vec::new();
                for arg in &matched.dots {
                    let Some(name) = arg.name.as_deref() else {
                        return Err(self.invalid(arg.at, "type_object(): every property needs a name"));
                    };
                    if properties.contains_key(name) {
                        return Err(self.invalid(arg.at, format!("type_object(): the property `{name}` is given twice")));
                    }
                    let child = self.value(arg)?;
                    let (child_schema, is_required) =
                        self.read_type(&child, &rel.key("properties").key(name), &rpath.key(name))?;
                    if is_required {
                        required.push(Value::String(name.to_string()));
                    }
                    properties.insert(name.to_string(), child_schema);
                }
                schema.insert("properties".into(), Value::Object(properties));
                if !required.is_empty() {
                    schema.insert("required".into(), Value::Array(required));
                }
                if let Some(arg) = matched.bound[3] {
                    let allowed = self.flag(Some(arg), ".additional_properties", function)?;
                    schema.insert("additionalProperties".into(), Value::Bool(allowed));
                }
                let required = self.flag(matched.bound[2], ".required", function)?;
                Ok((self.restored(schema, function, rel), required))
            }
            "type_from_schema" => {
                let formals = ["text", "path"];
                let matched = r::match_args(function, &formals, &args)?;
                if let Some(path) = matched.bound[1] {
                    return Err(self.invalid(
                        path.at,
                        "type_from_schema(path = …) reads a file, and toolbridge reads no files: put the JSON in \
                         type_from_schema(text = '…')",
                    ));
                }
                let Some(text_arg) = matched.bound[0] else {
                    return Err(self.invalid(expr.at, "type_from_schema() needs text = '<JSON schema>'"));
                };
                let text_expr = self.value(text_arg)?;
                let Some(text) = self.text(&text_expr, "type_from_schema(text = …)")? else {
                    return Err(self.invalid(text_expr.at, "type_from_schema(text = …) must be a string, found NULL"));
                };
                let schema = self.json_schema(&text, text_expr.at)?;
                self.from_schema.push(rel.clone());
                Ok((schema, true))
            }
            "type_ignore" => Err(self.invalid(
                expr.at,
                "type_ignore() marks a tool argument; it cannot appear inside type_array() or type_object()",
            )),
            other => Err(self.invalid(
                expr.at,
                format!(
                    "{other}() is not one of ellmer's types (type_boolean, type_integer, type_number, type_string, \
                     type_enum, type_array, type_object, type_from_schema, type_ignore)"
                ),
            )),
        }
    }

    /// Undoes what the writer put in a description: keywords `type_*()`
    /// cannot say after `JSON Schema: `, and the schema of JSON text in a
    /// `type_string()`. A description whose JSON does not parse as such
    /// stays as it is.
    fn restored(&mut self, mut schema: Map<String, Value>, function: &str, rel: &Pointer) -> Value {
        let Some(Value::String(description)) = schema.get("description") else {
            return Value::Object(schema);
        };
        let description = description.clone();
        let split = |marker: &str| -> Option<(Option<String>, Map<String, Value>)> {
            let (prefix, json) = match description.strip_prefix(marker) {
                Some(json) => (None, json),
                None => {
                    let at = description.rfind(&format!("\n\n{marker}"))?;
                    (
                        Some(description[..at].to_string()),
                        &description[at + 2 + marker.len()..],
                    )
                }
            };
            check_depth(json, self.limits.max_depth).ok()?;
            match serde_json::from_str(json).ok()? {
                Value::Object(object) if check_schema(&Value::Object(object.clone())).is_ok() => {
                    Some((prefix, object))
                }
                _ => None,
            }
        };
        if function == "type_string" {
            if let Some((prefix, json)) = split(JSON_TEXT_MARKER) {
                let mut out = Map::new();
                if let Some(prefix) = prefix {
                    out.insert("description".into(), Value::String(prefix));
                }
                for (key, value) in json {
                    out.entry(key).or_insert(value);
                }
                let mut value = Value::Object(out);
                for key in DEF_KEYS {
                    rewrite_refs(
                        &mut value,
                        &format!("#/{key}/"),
                        &format!("#{}/{key}/", fragment(rel)),
                    );
                }
                self.from_schema.push(rel.clone());
                return value;
            }
        }
        if let Some((prefix, extra)) = split(KEYWORDS_MARKER) {
            if extra.keys().all(|key| !schema.contains_key(key)) {
                match prefix {
                    Some(prefix) => schema.insert("description".into(), Value::String(prefix)),
                    None => schema.shift_remove("description"),
                };
                schema.extend(extra);
            }
        }
        Value::Object(schema)
    }

    /// The formals of `type_enum()`/`type_array()`: ≥ 0.3.0's order, or 0.2's
    /// (description first) when `old_order(first, second)` says so for the
    /// first two positional arguments and no name settles it.
    fn order(
        &self,
        args: &[Arg],
        current: [&'static str; 3],
        old_order: impl Fn(&ExprKind, Option<&ExprKind>) -> bool,
    ) -> Result<([&'static str; 3], bool)> {
        let named_first = args.iter().any(|arg| {
            arg.name.as_deref().is_some_and(|name| {
                !name.is_empty() && (current[0].starts_with(name) || current[1].starts_with(name))
            })
        });
        let positional: Vec<&Arg> = args.iter().filter(|arg| arg.name.is_none()).collect();
        if named_first || positional.is_empty() {
            return Ok((current, false));
        }
        let first = self.value(positional[0])?.kind;
        let second = match positional.get(1) {
            Some(arg) => Some(self.value(arg)?.kind),
            None => None,
        };
        if old_order(&first, second.as_ref()) {
            Ok(([current[1], current[0], current[2]], true))
        } else {
            Ok((current, false))
        }
    }

    fn old_order_note(&mut self, rpath: &Pointer, at: Pos, function: &str) {
        self.note(
            NoteKind::Normalized {
                field: function.into(),
            },
            rpath.clone(),
            at,
            format!("{function}() has its description first, as in ellmer 0.2; read in that order"),
        );
    }

    fn describe_into(
        &self,
        schema: &mut Map<String, Value>,
        arg: Option<&Arg>,
        function: &str,
    ) -> Result<()> {
        let Some(arg) = arg else { return Ok(()) };
        let expr = self.value(arg)?;
        if let Some(text) = self.text(&expr, &format!("{function}(): the description"))? {
            schema.insert("description".into(), Value::String(text));
        }
        Ok(())
    }

    fn flag(&self, arg: Option<&Arg>, what: &str, function: &str) -> Result<bool> {
        let Some(arg) = arg else { return Ok(true) };
        let expr = self.value(arg)?;
        match expr.kind {
            ExprKind::Bool(value) => Ok(value),
            _ => Err(self.invalid(
                expr.at,
                format!(
                    "{function}(): `{what}` must be TRUE or FALSE, found {}",
                    expr.describe()
                ),
            )),
        }
    }

    fn enum_values(&self, arg: &Arg) -> Result<Vec<Value>> {
        let expr = self.value(arg)?;
        let elements: Vec<Expr> = match (&expr.kind, expr.call_of(&["base"])) {
            (ExprKind::Str(_), _) => vec![expr.clone()],
            (_, Some(("c", open))) => {
                let mut elements = Vec::new();
                for element in self.args(open)? {
                    if element.name.is_some() {
                        return Err(self.invalid(element.at, "type_enum(): the values must not be named"));
                    }
                    elements.push(self.value(&element)?);
                }
                elements
            }
            _ => {
                return Err(self.invalid(
                    expr.at,
                    format!(
                        "type_enum(): the values must be c(\"a\", \"b\", …), found {}",
                        expr.describe()
                    ),
                ))
            }
        };
        if elements.is_empty() {
            return Err(self.invalid(expr.at, "type_enum(): there must be at least one value"));
        }
        elements
            .into_iter()
            .map(|element| match element.kind {
                ExprKind::Str(text) => Ok(Value::String(text)),
                _ => Err(self.invalid(
                    element.at,
                    format!(
                        "type_enum(): every value must be a string, found {}",
                        element.describe()
                    ),
                )),
            })
            .collect()
    }

    fn json_schema(&self, text: &str, at: Pos) -> Result<Value> {
        check_depth(text, self.limits.max_depth).map_err(|err| {
            at.error(
                ErrorKind::LimitExceeded,
                format!("type_from_schema(): {}", err.detail()),
            )
        })?;
        let value: Value = serde_json::from_str(text).map_err(|err| {
            let (line, column) = (err.line(), err.column());
            let detail = Error::from(err).detail().to_string();
            at.error(
                ErrorKind::InvalidJson,
                format!("type_from_schema(): {detail} (JSON line {line}, column {column})"),
            )
        })?;
        if !value.is_object() {
            return Err(at.error(
                ErrorKind::InvalidSchema,
                format!(
                    "type_from_schema() needs a JSON object, found {}",
                    describe(&value)
                ),
            ));
        }
        check_schema(&value).map_err(|violation| {
            at.error(
                ErrorKind::InvalidSchema,
                format!(
                    "type_from_schema(): {} (at {} in its JSON)",
                    violation.message, violation.at
                ),
            )
        })?;
        Ok(value)
    }

    /// Moves definitions that writing embedded in `type_from_schema()` values
    /// back to the root, and their `$ref`s with them.
    pub(super) fn hoist_defs(&mut self, schema: &mut Value) {
        for place in std::mem::take(&mut self.from_schema) {
            for key in DEF_KEYS {
                let prefix = format!("#{}/{key}/", fragment(&place));
                let Some(node) = schema.pointer_mut(place.as_str()) else {
                    continue;
                };
                let has_refs = refs_of(node)
                    .iter()
                    .any(|reference| reference.starts_with(&prefix));
                let Some(defs) = node
                    .get(key)
                    .and_then(Value::as_object)
                    .filter(|_| has_refs)
                    .cloned()
                else {
                    continue;
                };
                let root_defs = schema.get(key).and_then(Value::as_object);
                let mut moved_value = Value::Object(defs);
                rewrite_refs(&mut moved_value, &prefix, &format!("#/{key}/"));
                let clashes = moved_value.as_object().into_iter().flatten().any(|(name, def)| {
                    root_defs
                        .and_then(|root| root.get(name))
                        .is_some_and(|existing| existing != def)
                });
                if clashes {
                    continue;
                }
                let Some(node) = schema.pointer_mut(place.as_str()) else {
                    continue;
                };
                if let Some(object) = node.as_object_mut() {
                    object.shift_remove(key);
                }
                rewrite_refs(node, &prefix, &format!("#/{key}/"));
                if let Value::Object(root) = schema {
                    let target = root.entry(key).or_insert_with(|| Value::Object(Map::new()));
                    if let (Value::Object(target), Value::Object(moved)) = (target, moved_value) {
                        for (name, def) in moved {
                            target.entry(name).or_insert(def);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::super::testing::*;

    #[test]
    fn description_forms_the_writer_uses_are_restored() {
        let text = r#"tool(f, "d", arguments = list(
  a = type_integer("Count.\n\nJSON Schema: {\"minimum\":1}"),
  b = type_string("A string holding JSON that matches this JSON Schema: {\"type\":\"object\"}"),
  c = type_string("JSON Schema: not JSON"),
  d = type_array(paste("Old", "order."), type_string()),
  e = type_string("JSON Schema: {\"type\":\"number\"}")
))"#;
        assert_eq!(
            read_value(text)["inputSchema"]["properties"],
            json!({
                "a": {"type": "integer", "description": "Count.", "minimum": 1},
                "b": {"type": "object"},
                "c": {"type": "string", "description": "JSON Schema: not JSON"},
                "d": {"type": "array", "description": "Old order.", "items": {"type": "string"}},
                "e": {"type": "string", "description": "JSON Schema: {\"type\":\"number\"}"}
            })
        );
    }

    #[test]
    fn reads_every_type_in_both_argument_orders() {
        let text = r#"
tool(function(a, b, c, d, e, f, g = NULL, h = NULL) NULL, "Every type.", arguments = list(
  a = type_enum(c("x", "y"), "New order."),
  b = type_enum("Old order.", c("x", "y")),
  c = type_array(type_string("Item."), "New order."),
  d = type_array("Old order.", type_boolean()),
  e = ellmer::type_object(.description = NULL, p = type_number(), q = type_integer(required = F)),
  f = type_enum(values = "one", desc = "Partial name."),
  g = type_from_schema(text = '{"type": "string", "format": "date"}'),
  h = type_string(NULL, FALSE)
), name = "every_type", convert = FALSE)
"#;
        let converted = read_one(text).unwrap();
        assert_eq!(
            converted.value.to_value(),
            json!({
                "name": "every_type",
                "description": "Every type.",
                "inputSchema": {"type": "object", "properties": {
                    "a": {"type": "string", "description": "New order.", "enum": ["x", "y"]},
                    "b": {"type": "string", "description": "Old order.", "enum": ["x", "y"]},
                    "c": {"type": "array", "description": "New order.", "items": {"type": "string", "description": "Item."}},
                    "d": {"type": "array", "description": "Old order.", "items": {"type": "boolean"}},
                    "e": {"type": "object", "properties": {"p": {"type": "number"}, "q": {"type": "integer"}}, "required": ["p"]},
                    "f": {"type": "string", "description": "Partial name.", "enum": ["one"]},
                    "g": {"type": "string", "format": "date"},
                    "h": {"type": "string"}
                }, "required": ["a", "b", "c", "d", "e", "f", "g"]},
                "run": {"kind": "action", "handler": {"r": "function(a, b, c, d, e, f, g = NULL, h = NULL) NULL"}},
                "vendor": {"ellmer": {"convert": false}}
            })
        );
        let notes: Vec<String> = converted
            .notes
            .iter()
            .map(|note| format!("{} {}", note.at, note.message))
            .collect();
        assert_eq!(
            notes,
            [
                "/arguments/b type_enum() has its description first, as in ellmer 0.2; read in that order (line 4, column 7)",
                "/arguments/d type_array() has its description first, as in ellmer 0.2; read in that order (line 6, column 7)",
            ]
        );
    }
}
