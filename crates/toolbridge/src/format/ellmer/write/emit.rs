//! Plans to R: `type_*()` calls, `type_from_schema()` where its JSON is
//! portable, JSON text in a `type_string()`; and the root definitions these
//! embed or write in place.

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::note::NoteKind;
use crate::pointer::Pointer;

use super::super::r::{self, RExpr};
use super::super::{
    fragment, refs_of, rewrite_refs, root_def_of, DEF_KEYS, JSON_TEXT_MARKER, KEYWORDS_MARKER,
};
use super::portable::not_portable;
use super::schema::{empty_map, Kind, Plan, SchemaWriter, Typed};

/// How many JSON values `value` holds (iteratively).
fn node_count(value: &Value) -> usize {
    let mut count = 0;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        count += 1;
        match value {
            Value::Object(object) => stack.extend(object.values()),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    count
}

/// `description`, then `marker` and `json` after a blank line.
fn with_json(description: Option<&str>, marker: &str, json: &Value) -> String {
    let json = serde_json::to_string(json).expect("JSON values always serialize");
    match description {
        Some(description) => format!("{description}\n\n{marker}{json}"),
        None => format!("{marker}{json}"),
    }
}

impl<'v> SchemaWriter<'v, '_> {
    /// The R for `plan` at `at`; `optional` is `Some(true)` for a property
    /// that is not required, `None` where ellmer has no `required` (items).
    pub(super) fn emit(&mut self, plan: Plan<'v>, at: &Pointer, optional: Option<bool>) -> Result<RExpr> {
        match plan {
            Plan::Typed(typed) => self.emit_typed(typed, at, optional),
            Plan::Text {
                schema,
                description,
                keyword,
                reason,
            } => {
                let mut json = match schema {
                    Value::Bool(true) => json!({}),
                    Value::Bool(false) => json!({"not": {}}),
                    other => other.clone(),
                };
                if let (Some(object), Some(_)) = (json.as_object_mut(), description) {
                    object.shift_remove("description");
                }
                self.embed_defs(&mut json, at, &Pointer::root())?;
                self.notes.push(
                    NoteKind::Rewritten { keyword: keyword.into() },
                    at.clone(),
                    format!(
                        "neither ellmer's type_*() nor a type_from_schema() that OpenAI strict mode and Gemini both \
                         take can express {reason}: written as type_string() whose description asks for JSON text \
                         matching the schema; the R function receives that text (jsonlite::parse_json() decodes \
                         it), and reading the R back restores the schema"
                    ),
                );
                let described = with_json(description, JSON_TEXT_MARKER, &json);
                let mut args = vec![(None, RExpr::Atom(r::string(&described)))];
                if optional == Some(true) {
                    args.push((Some("required".into()), RExpr::Atom("FALSE".into())));
                }
                Ok(RExpr::call("type_string", args))
            }
        }
    }

    fn emit_typed(&mut self, typed: Typed<'v>, at: &Pointer, optional: Option<bool>) -> Result<RExpr> {
        let Typed {
            schema,
            description,
            extra,
            nullable,
            kind,
        } = typed;
        if nullable {
            if optional.is_some() {
                self.notes.push(
                    NoteKind::Rewritten {
                        keyword: "null".into(),
                    },
                    at.clone(),
                    "ellmer has no null type, and drops NULL arguments so that R defaults apply (null and absent \
                     are one to the R function): the nullable value is written as required = FALSE, which reads back \
                     as optional and not nullable",
                );
            } else {
                self.notes.push(
                    NoteKind::Dropped {
                        keyword: "null".into(),
                    },
                    at.clone(),
                    "ellmer has no null type and array items have no required = FALSE: null is no longer accepted here",
                );
            }
        }
        let optional = optional == Some(true) || (nullable && optional.is_some());
        let mut description = description.map(str::to_string);
        if !extra.is_empty() {
            let keys: Vec<&str> = extra.keys().map(String::as_str).collect();
            let keyword = keys[0].to_string();
            let why = if nullable {
                Some("it has no null".to_string())
            } else if optional {
                Some("it has no required = FALSE".to_string())
            } else {
                not_portable(schema)
                    .map(|reason| format!("ellmer sends it as written, and it holds {reason}"))
            };
            let Some(why) = why else {
                let mut json = schema.clone();
                self.embed_defs(&mut json, at, &Pointer::root())?;
                self.notes.push(
                    NoteKind::Rewritten { keyword: keyword.into() },
                    at.clone(),
                    format!(
                        "ellmer's type_*() cannot express {}; written as type_from_schema(), which OpenAI strict mode \
                         and Gemini both take as it is",
                        keys.join(", ")
                    ),
                );
                let text = serde_json::to_string(&json).expect("JSON values always serialize");
                return Ok(RExpr::call(
                    "type_from_schema",
                    vec![(Some("text".into()), RExpr::Atom(r::single_quoted(&text)))],
                ));
            };
            self.notes.push(
                NoteKind::Rewritten { keyword: keyword.into() },
                at.clone(),
                format!(
                    "ellmer's type_*() cannot express {} and type_from_schema() cannot hold it here ({why}): written \
                     after the description as \"{}{{…}}\" for the model (ellmer does not enforce it; reading the R \
                     back restores it)",
                    keys.join(", "),
                    KEYWORDS_MARKER
                ),
            );
            description = Some(with_json(
                description.as_deref(),
                KEYWORDS_MARKER,
                &Value::Object(extra),
            ));
        }
        let described = description.map(|text| (None, RExpr::Atom(r::string(&text))));
        let optional_flag =
            |flag: &str| optional.then(|| (Some(flag.to_string()), RExpr::Atom("FALSE".into())));
        Ok(match kind {
            Kind::Basic(ty) => {
                let args = described.into_iter().chain(optional_flag("required")).collect();
                RExpr::call(&format!("type_{ty}"), args)
            }
            Kind::Enum(values) => {
                let values = RExpr::call(
                    "c",
                    values
                        .iter()
                        .map(|value| (None, RExpr::Atom(r::string(value))))
                        .collect(),
                );
                let args = std::iter::once((None, values))
                    .chain(described)
                    .chain(optional_flag("required"))
                    .collect();
                RExpr::call("type_enum", args)
            }
            Kind::Array(items) => {
                let items = self.emit(*items, &at.key("items"), None)?;
                let args = std::iter::once((None, items))
                    .chain(described)
                    .chain(optional_flag("required"))
                    .collect();
                RExpr::call("type_array", args)
            }
            Kind::Object { schema, properties } => {
                let all = match schema.get("properties") {
                    Some(Value::Object(all)) => all,
                    _ => empty_map(),
                };
                self.note_required(schema, all, at, false);
                if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
                    self.notes.push(
                        NoteKind::Rewritten {
                            keyword: "additionalProperties".into(),
                        },
                        at.key("additionalProperties"),
                        "type_object() sends additionalProperties: false by itself (to every provider but Gemini); it \
                         is not written, and reading the R back does not restore it",
                    );
                } else {
                    self.note_closed(at);
                }
                let mut args: Vec<(Option<String>, RExpr)> = described.into_iter().collect();
                for (name, child, is_required) in properties {
                    let child_at = at.key("properties").key(name);
                    let expr = self.emit(child, &child_at, Some(!is_required))?;
                    args.push((Some(name.to_string()), expr));
                }
                args.extend(optional_flag(".required"));
                RExpr::block("type_object", args)
            }
        })
    }

    /// Copies the root definitions `json` refers to into it, with its `$ref`s
    /// rewritten to point at the copies (`rel` is its place in the input schema).
    pub(super) fn embed_defs(&mut self, json: &mut Value, at: &Pointer, rel: &Pointer) -> Result<()> {
        let mut wanted: Vec<(&'static str, String)> = Vec::new();
        let mut queue: Vec<String> = refs_of(json);
        while let Some(reference) = queue.pop() {
            let Some((key, name)) = root_def_of(&reference) else {
                continue;
            };
            if wanted.contains(&(key, name.clone())) {
                continue;
            }
            let Some(def) = self.root.get(key).and_then(|defs| defs.get(&name)) else {
                continue;
            };
            queue.extend(refs_of(def));
            wanted.push((key, name));
        }
        if wanted.is_empty() {
            return Ok(());
        }
        for key in DEF_KEYS {
            if json.get(key).is_some() {
                self.notes.push(
                    NoteKind::Normalized { field: key.into() },
                    at.key(key),
                    format!("reading the R back moves these {key} to the input schema's root"),
                );
            }
        }
        let Some(object) = json.as_object_mut() else {
            return Ok(());
        };
        for (key, name) in &wanted {
            let def = self
                .root
                .get(*key)
                .and_then(|defs| defs.get(name))
                .cloned()
                .unwrap_or(Value::Null);
            self.count_expansion(node_count(&def), at)?;
            let defs = object.entry(*key).or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(defs) = defs else {
                return Err(Error::new(
                    ErrorKind::Unrepresentable,
                    format!(
                        "{key} here is not an object, so the root definitions it uses cannot be embedded"
                    ),
                )
                .at(at.clone()));
            };
            match defs.get(name) {
                Some(existing) if *existing != def => {
                    return Err(Error::new(
                        ErrorKind::Unrepresentable,
                        format!(
                            "this schema has its own {key}/{name}, so the root definition of that name cannot be \
                             embedded next to it"
                        ),
                    )
                    .at(at.clone()))
                }
                Some(_) => {}
                None => {
                    defs.insert(name.clone(), def);
                }
            }
            if !self.used_defs.contains(&(*key, name.clone())) {
                self.used_defs.push((*key, name.clone()));
            }
        }
        for key in DEF_KEYS {
            rewrite_refs(json, &format!("#/{key}/"), &format!("#{}/{key}/", fragment(rel)));
        }
        Ok(())
    }

    /// Notes for the root definitions: embedded where used, dropped where not.
    pub(super) fn finish_defs(&mut self) {
        let at = Pointer::root().key("inputSchema");
        for key in DEF_KEYS {
            let Some(defs) = self.root.get(key) else { continue };
            let Some(defs) = defs.as_object() else { continue };
            let mut any_used = false;
            for name in defs.keys() {
                if self.used_defs.contains(&(key, name.clone())) {
                    any_used = true;
                } else {
                    self.notes.push(
                        NoteKind::Dropped { keyword: name.into() },
                        at.key(key).key(name),
                        format!("no argument uses the definition {name:?}; ellmer has no place for it"),
                    );
                }
            }
            if any_used {
                self.notes.push(
                    NoteKind::Rewritten { keyword: key.into() },
                    at.key(key),
                    format!(
                        "ellmer builds the arguments object itself, so the {key} an argument uses are written in place or \
                         embedded in its JSON (reading the R back moves them here again)"
                    ),
                );
            }
        }
    }
}
