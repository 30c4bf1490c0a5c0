//! Writing: a canonical tool as an ellmer `tool()` call.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::note_uncarried;
use crate::format::toolbridge::with_annotation_defaults;
use crate::json::describe;
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, WriteOptions};
use crate::pointer::Pointer;
use crate::tool::{Run, Tool, HINTS};

use super::r::{self, RExpr, Source, Tok};
use super::{
    fragment, refs_of, rewrite_refs, root_def_of, ANNOTATION_FORMALS, DEF_KEYS, ID, PLACEHOLDER_END,
    PLACEHOLDER_START,
};

pub(super) fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<String> {
    let tool = with_annotation_defaults(tool, opts, notes);
    let mut carried = vec![
        "name",
        "title",
        "description",
        "inputSchema",
        "annotations",
        "vendor",
    ];
    if matches!(tool.run, None | Some(Run::Action(_))) {
        carried.push("run");
    }
    note_uncarried(&tool, &carried, Format::Ellmer, notes);

    let vendor = VendorFields::read(&tool, notes);
    let mut writer = SchemaWriter::new(&tool.input_schema, &opts.limits, notes);
    let arguments = writer.root()?;
    writer.finish_defs();

    let mut formals: Vec<String> = arguments
        .iter()
        .map(|argument| {
            if argument.optional {
                format!("{} = NULL", r::name(&argument.name))
            } else {
                r::name(&argument.name)
            }
        })
        .collect();
    let mut list_args: Vec<(Option<String>, RExpr)> = arguments
        .into_iter()
        .map(|argument| (Some(argument.name), argument.expr))
        .collect();
    for ignored in &vendor.ignore {
        if list_args
            .iter()
            .any(|(name, _)| name.as_deref() == Some(ignored.as_str()))
            || !r::is_writable_name(ignored)
        {
            notes.push(
                NoteKind::Dropped {
                    keyword: ignored.clone(),
                },
                Pointer::root().key("vendor").key(ID).key("ignore"),
                format!("the ignored argument {ignored:?} clashes with a schema property or is not an R name; left out"),
            );
            continue;
        }
        formals.push(format!("{} = NULL", r::name(ignored)));
        list_args.push((Some(ignored.clone()), RExpr::call("type_ignore", vec![])));
    }

    let fun = function_source(&tool, &formals, notes);
    let description = match &tool.description {
        Some(description) => r_text(description, &Pointer::root().key("description"), notes),
        None => {
            notes.push(
                NoteKind::Placeholder {
                    field: "description".into(),
                },
                Pointer::root().key("description"),
                "ellmer requires a description; wrote \"\"",
            );
            r::string("")
        }
    };
    let mut args = vec![(None, RExpr::Atom(fun)), (None, RExpr::Atom(description))];
    if !list_args.is_empty() {
        args.push((Some("arguments".into()), RExpr::block("list", list_args)));
    }
    args.push((Some("name".into()), RExpr::Atom(r::string(&tool.name))));
    if vendor.convert == Some(false) {
        args.push((Some("convert".into()), RExpr::Atom("FALSE".into())));
    }
    if let Some(annotations) = annotations_expr(&tool, &opts.limits, notes)? {
        args.push((Some("annotations".into()), annotations));
    }
    let call = RExpr::block("tool", args);
    Ok(format!(
        "{} <- {}\n",
        r::name(&format!("tool_{}", tool.name)),
        call.render(0)
    ))
}

/// A string from the canonical tool as an R literal; a NUL (which R strings
/// cannot hold) becomes U+FFFD, with a note.
fn r_text(text: &str, at: &Pointer, notes: &mut Notes) -> String {
    if r::has_nul(text) {
        notes.push(
            NoteKind::Rewritten {
                keyword: "NUL".into(),
            },
            at.clone(),
            "R strings cannot hold a NUL character; it was written as U+FFFD",
        );
    }
    r::string(text)
}

/// `vendor.ellmer`: the settings only ellmer has.
struct VendorFields {
    convert: Option<bool>,
    ignore: Vec<String>,
}

impl VendorFields {
    fn read(tool: &Tool, notes: &mut Notes) -> VendorFields {
        let mut fields = VendorFields {
            convert: None,
            ignore: Vec::new(),
        };
        let Some(vendor) = tool.vendor_fields(ID) else {
            return fields;
        };
        let at = Pointer::root().key("vendor").key(ID);
        for (key, value) in vendor {
            match (key.as_str(), value) {
                ("convert", Value::Bool(true)) => notes.push(
                    NoteKind::Normalized {
                        field: "convert".into(),
                    },
                    at.key(key),
                    "convert = TRUE is ellmer's default and is not written",
                ),
                ("convert", Value::Bool(false)) => fields.convert = Some(false),
                ("ignore", Value::Array(names)) if names.iter().all(Value::is_string) => {
                    fields.ignore = names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect();
                }
                _ => notes.push(
                    NoteKind::Dropped { keyword: key.clone() },
                    at.key(key),
                    format!(
                        "vendor.ellmer.{key} is not an ellmer setting toolbridge knows (convert: true/false, \
                         ignore: [names]); left out"
                    ),
                ),
            }
        }
        fields
    }
}

/// The `fun` argument: the R handler verbatim, or a placeholder function.
fn function_source(tool: &Tool, formals: &[String], notes: &mut Notes) -> String {
    let handler_at = Pointer::root().key("run").key("handler");
    let mut handler = None;
    if let Some(Run::Action(action)) = &tool.run {
        for (language, source) in action.handler.iter().flatten() {
            if language == "r" {
                handler = checked_handler(source, &handler_at.key("r"), notes);
            } else {
                notes.push(
                    NoteKind::Dropped {
                        keyword: language.clone(),
                    },
                    handler_at.key(language),
                    format!("ellmer runs R; the {language} handler has no place in it"),
                );
            }
        }
    }
    if let Some(handler) = handler {
        return handler;
    }
    notes.push(
        NoteKind::Placeholder { field: "run".into() },
        Pointer::root().key("run"),
        "ellmer needs an R function and the tool has none: wrote a placeholder function with the arguments as \
         formals that stops with a message; replace it with the tool's implementation",
    );
    format!(
        "function({}) stop({})",
        formals.join(", "),
        r::string(&format!("{PLACEHOLDER_START}{}{PLACEHOLDER_END}", tool.name))
    )
}

/// The R handler if it can stand as `tool()`'s first argument: valid R, one
/// argument (no top-level `,`, `;` or `=`); surrounding space and comments
/// are trimmed.
fn checked_handler(source: &str, at: &Pointer, notes: &mut Notes) -> Option<String> {
    let refuse = |notes: &mut Notes, why: String| {
        notes.push(
            NoteKind::Dropped { keyword: "r".into() },
            at.clone(),
            format!("the R handler cannot be tool()'s first argument ({why}); wrote a placeholder instead"),
        );
        None
    };
    let parsed = match Source::new(source, r::MAX_R_DEPTH) {
        Ok(parsed) => parsed,
        Err(err) => return refuse(notes, err.to_string()),
    };
    let significant: Vec<usize> = (0..parsed.tokens.len())
        .filter(|index| parsed.tokens[*index].tok != Tok::Newline)
        .collect();
    let (Some(&first), Some(&last)) = (significant.first(), significant.last()) else {
        return refuse(notes, "it is empty".into());
    };
    let mut index = first;
    while index <= last {
        let tok = &parsed.tokens[index].tok;
        if *tok == Tok::Semicolon || tok.is_op("=") {
            return refuse(notes, "it is more than one expression".into());
        }
        if matches!(tok, Tok::Open(_)) {
            index = parsed.partner(index);
        }
        index += 1;
    }
    let text = parsed.slice(first, last + 1).to_string();
    if text != source {
        notes.push(
            NoteKind::Rewritten {
                keyword: "run/handler/r".into(),
            },
            at.clone(),
            "space or comments around the R handler were trimmed",
        );
    }
    Some(text)
}

/// One written tool argument.
struct WrittenArgument {
    name: String,
    expr: RExpr,
    optional: bool,
}

/// How a sub-schema is written.
enum Plan<'v> {
    Basic {
        ty: &'v str,
        description: Option<&'v str>,
    },
    Enum {
        values: Vec<&'v str>,
        description: Option<&'v str>,
    },
    Array {
        items: Box<Plan<'v>>,
        description: Option<&'v str>,
    },
    Object {
        schema: &'v Map<String, Value>,
        description: Option<&'v str>,
        properties: Vec<(&'v str, Plan<'v>, bool)>,
    },
    FromSchema {
        schema: &'v Value,
        /// The first keyword that type_*() cannot express.
        keyword: String,
        /// Everything that type_*() cannot express, for the note.
        reason: String,
    },
}

fn from_schema<'v>(schema: &'v Value, keyword: &str, reason: String) -> Plan<'v> {
    Plan::FromSchema {
        schema,
        keyword: keyword.to_string(),
        reason,
    }
}

struct SchemaWriter<'v, 'n> {
    root: &'v Value,
    limits: &'v Limits,
    notes: &'n mut Notes,
    /// Root definitions embedded so far: (key, name).
    used_defs: Vec<(&'static str, String)>,
    /// The "ellmer forbids extra keys" note was made.
    closed_noted: bool,
}

impl<'v, 'n> SchemaWriter<'v, 'n> {
    fn new(root: &'v Value, limits: &'v Limits, notes: &'n mut Notes) -> SchemaWriter<'v, 'n> {
        SchemaWriter {
            root,
            limits,
            notes,
            used_defs: Vec::new(),
            closed_noted: false,
        }
    }

    fn root(&mut self) -> Result<Vec<WrittenArgument>> {
        let at = Pointer::root().key("inputSchema");
        let Some(schema) = self.root.as_object() else {
            return Err(Error::new(ErrorKind::InvalidSchema, "the input schema must be an object").at(at));
        };
        if schema.get("type") != Some(&json!("object")) {
            self.notes.push(
                NoteKind::Normalized { field: "type".into() },
                at.key("type"),
                "ellmer's arguments are always an object; reading the R back gives \"type\": \"object\"",
            );
        }
        for (key, value) in schema {
            match key.as_str() {
                "type" | "properties" | "$defs" | "definitions" => {}
                "required" if value.is_array() => {}
                "additionalProperties" if *value == Value::Bool(false) => self.notes.push(
                    NoteKind::Rewritten {
                        keyword: "additionalProperties".into(),
                    },
                    at.key(key),
                    "ellmer sends additionalProperties: false for the arguments by itself (to every provider but \
                     Gemini); it is not written, and reading the R back does not restore it",
                ),
                _ => self.notes.push(
                    NoteKind::Dropped { keyword: key.clone() },
                    at.key(key),
                    format!("ellmer builds the arguments object itself; {key:?} at its root has no place"),
                ),
            }
        }
        let properties = match schema.get("properties") {
            Some(Value::Object(properties)) => properties,
            Some(_) => {
                return Err(
                    Error::new(ErrorKind::InvalidSchema, "\"properties\" must be an object")
                        .at(at.key("properties")),
                )
            }
            None => empty_map(),
        };
        if properties.is_empty() && schema.contains_key("properties") {
            self.notes.push(
                NoteKind::Normalized {
                    field: "properties".into(),
                },
                at.key("properties"),
                "an empty properties object is not written; the tool simply has no arguments",
            );
        }
        let required = required_names(schema);
        self.note_required(schema, properties, &at, true);
        if !properties.is_empty() && !schema.contains_key("additionalProperties") {
            self.note_closed(&at);
        }
        let mut written = Vec::new();
        for (name, child) in properties {
            let child_at = at.key("properties").key(name);
            if !r::is_writable_name(name) {
                self.notes.push(
                    NoteKind::Dropped {
                        keyword: name.clone(),
                    },
                    child_at,
                    format!("{name:?} cannot be an R argument name; the argument was left out"),
                );
                continue;
            }
            let is_required = required.contains(&name.as_str());
            let plan = self.plan(child, &child_at, 1)?;
            if matches!(plan, Plan::FromSchema { .. }) && !is_required {
                self.notes.push(
                    NoteKind::MadeRequired {
                        property: name.clone(),
                    },
                    at.key("required"),
                    format!(
                        "{name:?} is optional but needs type_from_schema(), which has no required = FALSE; \
                         ellmer lists it as required"
                    ),
                );
            }
            let optional = !is_required && !matches!(plan, Plan::FromSchema { .. });
            let expr = self.emit(plan, &child_at, optional)?;
            written.push(WrittenArgument {
                name: name.clone(),
                expr,
                optional: !is_required,
            });
        }
        Ok(written)
    }

    /// Notes for a `required` list that will come back different: names that
    /// are not properties, an empty list, another order.
    fn note_required(
        &mut self,
        schema: &Map<String, Value>,
        properties: &Map<String, Value>,
        at: &Pointer,
        root: bool,
    ) {
        let Some(Value::Array(listed)) = schema.get("required") else {
            return;
        };
        let at = at.key("required");
        let names: Vec<&str> = listed.iter().filter_map(Value::as_str).collect();
        if root {
            for name in names.iter().filter(|name| !properties.contains_key(**name)) {
                self.notes.push(
                    NoteKind::Dropped {
                        keyword: name.to_string(),
                    },
                    at.clone(),
                    format!("{name:?} is required but is not a property; ellmer cannot say so"),
                );
            }
        }
        let listed_set: HashSet<&str> = names.iter().copied().collect();
        let in_order: Vec<&str> = properties
            .keys()
            .map(String::as_str)
            .filter(|name| listed_set.contains(name) && (!root || r::is_writable_name(name)))
            .collect();
        if names.is_empty() {
            self.notes.push(
                NoteKind::Normalized {
                    field: "required".into(),
                },
                at,
                "an empty required list is not written",
            );
        } else if in_order != names {
            self.notes.push(
                NoteKind::Normalized {
                    field: "required".into(),
                },
                at,
                "ellmer marks each property required on its own, so the required list comes back in property order",
            );
        }
    }

    fn note_closed(&mut self, at: &Pointer) {
        if self.closed_noted {
            return;
        }
        self.closed_noted = true;
        self.notes.push(
            NoteKind::Rewritten {
                keyword: "additionalProperties".into(),
            },
            at.clone(),
            "ellmer sends additionalProperties: false for the arguments and every type_object() (to every provider \
             but Gemini), so the model can no longer add keys that are not declared",
        );
    }

    fn plan(&mut self, schema: &'v Value, at: &Pointer, depth: usize) -> Result<Plan<'v>> {
        if depth > self.limits.max_depth {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the schema is nested more than {} levels deep",
                    self.limits.max_depth
                ),
            )
            .at(at.clone()));
        }
        let object = match schema {
            Value::Bool(_) => {
                return Ok(from_schema(
                    schema,
                    "boolean schema",
                    format!("the boolean schema {schema}"),
                ))
            }
            Value::Object(object) => object,
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidSchema,
                    format!(
                        "a schema must be an object or a boolean, found {}",
                        describe(other)
                    ),
                )
                .at(at.clone()))
            }
        };
        let ty = object.get("type").and_then(Value::as_str);
        let allowed: &[&str] = match ty {
            Some("string") if object.contains_key("enum") => &["type", "description", "enum"],
            Some("string" | "integer" | "number" | "boolean") => &["type", "description"],
            Some("array") => &["type", "description", "items"],
            Some("object") => &[
                "type",
                "description",
                "properties",
                "required",
                "additionalProperties",
            ],
            _ => &[],
        };
        let mut keywords: Vec<String> = Vec::new();
        let mut phrases: Vec<String> = Vec::new();
        match object.get("type") {
            None => {
                keywords.push("type".into());
                phrases.push("a schema without \"type\"".into());
            }
            Some(other) if allowed.is_empty() => {
                keywords.push("type".into());
                phrases.push(format!("\"type\": {other}"));
            }
            _ => {}
        }
        for key in object.keys() {
            if !allowed.contains(&key.as_str()) && key != "type" {
                keywords.push(key.clone());
                phrases.push(key.clone());
            }
        }
        let description = match object.get("description") {
            None => None,
            Some(Value::String(text)) if !r::has_nul(text) => Some(text.as_str()),
            Some(_) => {
                keywords.push("description".into());
                phrases.push("a description that is not a plain string".into());
                None
            }
        };
        if !keywords.is_empty() {
            return Ok(Plan::FromSchema {
                schema,
                keyword: keywords.swap_remove(0),
                reason: phrases.join(", "),
            });
        }
        match ty.unwrap_or_default() {
            "array" => {
                let Some(items) = object
                    .get("items")
                    .filter(|items| items.is_object() || items.is_boolean())
                else {
                    return Ok(from_schema(
                        schema,
                        "items",
                        "an array without a single items schema".into(),
                    ));
                };
                let items = self.plan(items, &at.key("items"), depth + 1)?;
                Ok(Plan::Array {
                    items: Box::new(items),
                    description,
                })
            }
            "object" => self.plan_object(schema, object, description, at, depth),
            "string" if object.contains_key("enum") => {
                let values: Option<Vec<&str>> = object
                    .get("enum")
                    .and_then(Value::as_array)
                    .filter(|values| !values.is_empty())
                    .and_then(|values| {
                        values
                            .iter()
                            .map(|value| value.as_str().filter(|text| !r::has_nul(text)))
                            .collect()
                    });
                match values {
                    Some(values) => Ok(Plan::Enum { values, description }),
                    None => Ok(from_schema(
                        schema,
                        "enum",
                        "an enum that is not a list of strings".into(),
                    )),
                }
            }
            ty => Ok(Plan::Basic { ty, description }),
        }
    }

    fn plan_object(
        &mut self,
        schema: &'v Value,
        object: &'v Map<String, Value>,
        description: Option<&'v str>,
        at: &Pointer,
        depth: usize,
    ) -> Result<Plan<'v>> {
        let closed = match object.get("additionalProperties") {
            None => false,
            Some(Value::Bool(false)) => true,
            Some(_) => {
                return Ok(from_schema(
                    schema,
                    "additionalProperties",
                    "additionalProperties other than false".into(),
                ))
            }
        };
        let properties = match object.get("properties") {
            None => empty_map(),
            Some(Value::Object(properties)) => properties,
            Some(_) => {
                return Ok(from_schema(
                    schema,
                    "properties",
                    "properties that are not an object".into(),
                ))
            }
        };
        if properties.is_empty() && !closed {
            return Ok(from_schema(
                schema,
                "properties",
                "an object without properties that allows any key (type_object() would forbid every key)"
                    .into(),
            ));
        }
        let required: Vec<&str> = match object.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) => match names.iter().map(Value::as_str).collect::<Option<Vec<&str>>>()
            {
                Some(names) => names,
                None => {
                    return Ok(from_schema(
                        schema,
                        "required",
                        "a required list that is not a list of names".into(),
                    ))
                }
            },
            Some(_) => {
                return Ok(from_schema(
                    schema,
                    "required",
                    "a required list that is not a list of names".into(),
                ))
            }
        };
        if let Some(missing) = required.iter().find(|name| !properties.contains_key(**name)) {
            return Ok(from_schema(
                schema,
                "required",
                format!("{missing:?} required without being a property"),
            ));
        }
        let required: HashSet<&str> = required.into_iter().collect();
        if let Some(name) = properties.keys().find(|name| !object_property_name(name)) {
            return Ok(from_schema(
                schema,
                "properties",
                format!("the property name {name:?}, which type_object() cannot take"),
            ));
        }
        let mut planned = Vec::new();
        for (name, child) in properties {
            let child_plan = self.plan(child, &at.key("properties").key(name), depth + 1)?;
            let is_required = required.contains(&name.as_str());
            if matches!(child_plan, Plan::FromSchema { .. }) && !is_required {
                return Ok(from_schema(
                    schema,
                    "required",
                    format!("the optional property {name:?}, which needs type_from_schema() (it has no required = FALSE)"),
                ));
            }
            planned.push((name.as_str(), child_plan, is_required));
        }
        Ok(Plan::Object {
            schema: object,
            description,
            properties: planned,
        })
    }

    fn emit(&mut self, plan: Plan<'v>, at: &Pointer, optional: bool) -> Result<RExpr> {
        let described =
            |description: Option<&str>| description.map(|text| (None, RExpr::Atom(r::string(text))));
        let optional_flag =
            |flag: &str| optional.then(|| (Some(flag.to_string()), RExpr::Atom("FALSE".into())));
        Ok(match plan {
            Plan::Basic { ty, description } => {
                let args = described(description)
                    .into_iter()
                    .chain(optional_flag("required"))
                    .collect();
                RExpr::call(&format!("type_{ty}"), args)
            }
            Plan::Enum { values, description } => {
                let values = RExpr::call(
                    "c",
                    values
                        .iter()
                        .map(|value| (None, RExpr::Atom(r::string(value))))
                        .collect(),
                );
                let args = std::iter::once((None, values))
                    .chain(described(description))
                    .chain(optional_flag("required"))
                    .collect();
                RExpr::call("type_enum", args)
            }
            Plan::Array { items, description } => {
                let items = self.emit(*items, &at.key("items"), false)?;
                let args = std::iter::once((None, items))
                    .chain(described(description))
                    .chain(optional_flag("required"))
                    .collect();
                RExpr::call("type_array", args)
            }
            Plan::Object {
                schema,
                description,
                properties,
            } => {
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
                if !schema.contains_key("properties") {
                    self.notes.push(
                        NoteKind::Normalized {
                            field: "properties".into(),
                        },
                        at.key("properties"),
                        "type_object() always declares its properties; reading back gives \"properties\": {}",
                    );
                }
                let mut args: Vec<(Option<String>, RExpr)> = described(description).into_iter().collect();
                let has_properties = !properties.is_empty();
                for (name, child, is_required) in properties {
                    let child_at = at.key("properties").key(name);
                    let expr = self.emit(child, &child_at, !is_required)?;
                    args.push((Some(name.to_string()), expr));
                }
                args.extend(optional_flag(".required"));
                if has_properties {
                    RExpr::block("type_object", args)
                } else {
                    RExpr::call("type_object", args)
                }
            }
            Plan::FromSchema {
                schema,
                keyword,
                reason,
            } => {
                let mut json = match schema {
                    Value::Bool(true) => json!({}),
                    Value::Bool(false) => json!({"not": {}}),
                    other => other.clone(),
                };
                let rel = Pointer::parse(at.as_str().strip_prefix("/inputSchema").unwrap_or(""))
                    .unwrap_or_default();
                self.embed_defs(&mut json, at, &rel)?;
                let kind = NoteKind::Rewritten { keyword };
                let message = if schema.is_boolean() {
                    format!(
                        "ellmer's type_from_schema() needs a JSON object; the boolean schema {schema} was written as {json}"
                    )
                } else {
                    format!(
                        "ellmer's type_*() functions cannot express {reason}; written as type_from_schema()"
                    )
                };
                self.notes.push(kind, at.clone(), message);
                let text = serde_json::to_string(&json).expect("JSON values always serialize");
                RExpr::call(
                    "type_from_schema",
                    vec![(Some("text".into()), RExpr::Atom(r::single_quoted(&text)))],
                )
            }
        })
    }

    /// Copies the root definitions `json` refers to into it, with its `$ref`s
    /// rewritten to point at the copies (`rel` is its place in the input schema).
    fn embed_defs(&mut self, json: &mut Value, at: &Pointer, rel: &Pointer) -> Result<()> {
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
    fn finish_defs(&mut self) {
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
                        NoteKind::Dropped {
                            keyword: name.clone(),
                        },
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
                        "ellmer builds the arguments object itself, so the {key} an argument uses are embedded in its \
                         type_from_schema() JSON (reading the R back moves them here again)"
                    ),
                );
            }
        }
    }
}

fn empty_map() -> &'static Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

fn required_names(schema: &Map<String, Value>) -> HashSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// True if `name` can be a `type_object()` argument: an R name that R would
/// not bind to `.description`, `.required` or `.additional_properties`.
fn object_property_name(name: &str) -> bool {
    r::is_writable_name(name)
        && !".description".starts_with(name)
        && name != ".required"
        && name != ".additional_properties"
}

/// `annotations = tool_annotations(…)` (or `list(…)` when an extra key would
/// be taken for one of `tool_annotations()`'s own arguments).
fn annotations_expr(tool: &Tool, limits: &Limits, notes: &mut Notes) -> Result<Option<RExpr>> {
    let given = tool.annotations.clone().unwrap_or_default();
    let annotations_at = Pointer::root().key("annotations");
    let mut title = given.title.clone();
    match (&tool.title, &given.title) {
        (Some(tool_title), None) => {
            title = Some(tool_title.clone());
            notes.push(
                NoteKind::Rewritten {
                    keyword: "title".into(),
                },
                Pointer::root().key("title"),
                "ellmer has no tool title; written as tool_annotations(title = …), which reads back as annotations.title",
            );
            let at = if tool.annotations.is_some() {
                annotations_at.key("title")
            } else {
                annotations_at.clone()
            };
            notes.push(
                NoteKind::Defaulted {
                    field: "annotations.title".into(),
                },
                at,
                "annotations.title is filled in from the tool's title",
            );
        }
        (Some(tool_title), Some(annotation_title)) if tool_title == annotation_title => notes.push(
            NoteKind::Normalized { field: "title".into() },
            Pointer::root().key("title"),
            "the title equals annotations.title; ellmer holds it once, as tool_annotations(title = …)",
        ),
        (Some(tool_title), Some(_)) => notes.push(
            NoteKind::Dropped {
                keyword: "title".into(),
            },
            Pointer::root().key("title"),
            format!(
                "ellmer has no tool title and annotations.title differs from it; the title {tool_title:?} was left out"
            ),
        ),
        (None, _) => {}
    }
    let mut args: Vec<(Option<String>, RExpr)> = Vec::new();
    if let Some(title) = &title {
        let at = annotations_at.key("title");
        args.push((Some("title".into()), RExpr::Atom(r_text(title, &at, notes))));
    }
    for formal in &ANNOTATION_FORMALS[1..5] {
        let Some((camel, _, _)) = HINTS.iter().find(|(_, snake, _)| snake == formal) else {
            continue;
        };
        if let Some(flag) = given.hint(camel) {
            let value = if flag { "TRUE" } else { "FALSE" };
            args.push((Some(formal.to_string()), RExpr::Atom(value.into())));
        }
    }
    let mut as_list = false;
    for (key, value) in &given.extra {
        let at = annotations_at.key(key);
        if !r::is_writable_name(key) || HINTS.iter().any(|(_, snake, _)| *snake == key.as_str()) {
            notes.push(
                NoteKind::Dropped { keyword: key.clone() },
                at,
                format!("the annotation {key:?} cannot be written as an R argument name that reads back as itself"),
            );
            continue;
        }
        if value.is_null() {
            notes.push(
                NoteKind::Dropped { keyword: key.clone() },
                at,
                "tool_annotations() drops NULL values, so this null annotation has no place",
            );
            continue;
        }
        if ANNOTATION_FORMALS[..5]
            .iter()
            .any(|formal| formal.starts_with(key.as_str()))
        {
            as_list = true;
        }
        args.push((Some(key.clone()), json_expr(value, &at, limits, notes, 0)?));
    }
    if args.is_empty() {
        if tool.annotations.is_some() {
            notes.push(
                NoteKind::Normalized {
                    field: "annotations".into(),
                },
                annotations_at,
                "the annotations are empty and are not written",
            );
        }
        return Ok(None);
    }
    let function = if as_list { "list" } else { "tool_annotations" };
    Ok(Some(RExpr::block(function, args)))
}

/// A JSON value as R: `list()` for arrays and objects.
fn json_expr(value: &Value, at: &Pointer, limits: &Limits, notes: &mut Notes, depth: usize) -> Result<RExpr> {
    if depth > limits.max_depth {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            "the annotation value is nested too deeply",
        )
        .at(at.clone()));
    }
    Ok(match value {
        Value::Null => RExpr::Atom("NULL".into()),
        Value::Bool(true) => RExpr::Atom("TRUE".into()),
        Value::Bool(false) => RExpr::Atom("FALSE".into()),
        Value::Number(number) => RExpr::Atom(number.to_string()),
        Value::String(text) => RExpr::Atom(r_text(text, at, notes)),
        Value::Array(items) => {
            let mut args = Vec::new();
            for (index, item) in items.iter().enumerate() {
                args.push((None, json_expr(item, &at.index(index), limits, notes, depth + 1)?));
            }
            RExpr::call("list", args)
        }
        Value::Object(object) => {
            if object.is_empty() {
                notes.push(
                    NoteKind::Rewritten { keyword: "{}".into() },
                    at.clone(),
                    "an empty object is written as list(), which reads back as an empty array",
                );
            }
            let mut args = Vec::new();
            for (key, item) in object {
                if !r::is_writable_name(key) {
                    notes.push(
                        NoteKind::Dropped { keyword: key.clone() },
                        at.key(key),
                        format!("{key:?} cannot be an R name; left out"),
                    );
                    continue;
                }
                args.push((
                    Some(key.clone()),
                    json_expr(item, &at.key(key), limits, notes, depth + 1)?,
                ));
            }
            RExpr::call("list", args)
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testing::*;
    use super::*;

    #[test]
    fn writes_the_current_api() {
        let tool = tool_from(json!({
            "name": "get_weather",
            "title": "Weather",
            "description": "Current weather for a \"city\".\nUse sparingly.",
            "inputSchema": {"type": "object", "properties": {
                "city": {"type": "string", "description": "City name."},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1},
                "stops": {"type": "array", "items": {"type": "object", "properties": {
                    "place": {"type": "string"}, "note": {"type": "string"}
                }, "required": ["place"]}},
            }, "required": ["city", "days"]},
            "annotations": {"readOnlyHint": true, "x-owner": "weather-team"},
        }));
        let (text, notes) = written(&tool);
        assert_eq!(
            text,
            r#"tool_get_weather <- tool(
  function(city, unit = NULL, days, stops = NULL) stop("toolbridge: tool 'get_weather' has no R function; define one"),
  "Current weather for a \"city\".\nUse sparingly.",
  arguments = list(
    city = type_string("City name."),
    unit = type_enum(c("celsius", "fahrenheit"), required = FALSE),
    days = type_from_schema(text = '{"type":"integer","minimum":1}'),
    stops = type_array(
      type_object(
        place = type_string(),
        note = type_string(required = FALSE)
      ),
      required = FALSE
    )
  ),
  name = "get_weather",
  annotations = tool_annotations(
    title = "Weather",
    read_only_hint = TRUE,
    `x-owner` = "weather-team"
  )
)
"#
        );
        assert_eq!(
            notes,
            [
                "/inputSchema ellmer sends additionalProperties: false for the arguments and every type_object() (to \
                 every provider but Gemini), so the model can no longer add keys that are not declared",
                "/inputSchema/properties/days ellmer's type_*() functions cannot express minimum; written as type_from_schema()",
                "/run ellmer needs an R function and the tool has none: wrote a placeholder function with the arguments as formals that stops with a message; replace it with the tool's implementation",
                "/title ellmer has no tool title; written as tool_annotations(title = …), which reads back as annotations.title",
                "/annotations/title annotations.title is filled in from the tool's title",
            ]
        );
        let mut expected = tool.to_value();
        expected.as_object_mut().unwrap().shift_remove("title");
        expected["annotations"] =
            json!({"title": "Weather", "readOnlyHint": true, "x-owner": "weather-team"});
        let mut back = read_value(&text);
        assert_eq!(back.as_object_mut().unwrap().shift_remove("run"), None);
        assert_eq!(back, expected);
    }

    #[test]
    fn optional_children_that_need_from_schema_take_their_parent_along() {
        let tool = tool_from(
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {
                "opts": {"type": "object", "properties": {"a": {"type": "string", "format": "date"}}},
                "when": {"type": "string", "format": "date"}
            }}}),
        );
        let (text, notes) = written(&tool);
        assert!(text.contains(r#"opts = type_from_schema(text = '{"type":"object","properties":{"a":{"type":"string","format":"date"}}}')"#), "{text}");
        assert!(notes.contains(&"/inputSchema/required \"when\" is optional but needs type_from_schema(), which has no required = FALSE; ellmer lists it as required".to_string()), "{notes:#?}");
        let back = read_value(&text);
        assert_eq!(back["inputSchema"]["required"], json!(["opts", "when"]));
        assert_eq!(back["inputSchema"]["properties"], tool.input_schema["properties"]);
    }

    #[test]
    fn root_definitions_are_embedded_and_come_back() {
        let tool = tool_from(json!({"name": "render_tree", "description": "d", "inputSchema": {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/node"}, "label": {"type": "string"}},
            "required": ["root"],
            "$defs": {
                "node": {"type": "object", "properties": {
                    "label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                }, "required": ["label"]},
                "unused": {"type": "string"}
            }
        }}));
        let (text, notes) = written(&tool);
        assert!(
            text.contains(r##"root = type_from_schema(text = '{"$ref":"#/properties/root/$defs/node","$defs":{"node":{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/properties/root/$defs/node"}}},"required":["label"]}}}')"##),
            "{text}"
        );
        assert!(
            notes
                .iter()
                .any(|note| note.starts_with("/inputSchema/$defs/unused no argument uses")),
            "{notes:#?}"
        );
        let back = read_value(&text);
        let mut expected = tool.input_schema.clone();
        expected["$defs"].as_object_mut().unwrap().shift_remove("unused");
        assert_eq!(back["inputSchema"], expected);
    }

    #[test]
    fn handlers_are_verbatim_and_checked() {
        let mut tool = tool_from(
            json!({"name": "add", "description": "Add.", "inputSchema": {"type": "object",
            "properties": {"x": {"type": "number"}}, "required": ["x"]},
            "run": {"kind": "action", "handler": {"r": "  function(x) {\n  x + 1 # one more\n}  # trailing\n", "elisp": "#'add"}}}),
        );
        let (text, notes) = written(&tool);
        assert!(
            text.contains("tool(\n  function(x) {\n  x + 1 # one more\n},\n"),
            "{text}"
        );
        assert_eq!(
            notes,
            [
                "/inputSchema ellmer sends additionalProperties: false for the arguments and every type_object() (to \
                 every provider but Gemini), so the model can no longer add keys that are not declared",
                "/run/handler/r space or comments around the R handler were trimmed",
                "/run/handler/elisp ellmer runs R; the elisp handler has no place in it",
            ]
        );
        let back = read_value(&text);
        assert_eq!(
            back["run"],
            json!({"kind": "action", "handler": {"r": "function(x) {\n  x + 1 # one more\n}"}})
        );
        tool.run =
            Some(serde_json::from_value(json!({"kind": "action", "handler": {"r": "x = 1"}})).unwrap());
        let (text, notes) = written(&tool);
        assert!(text.contains("function(x) stop("), "{text}");
        assert_eq!(notes[1], "/run/handler/r the R handler cannot be tool()'s first argument (it is more than one expression); wrote a placeholder instead");
    }

    #[test]
    fn annotations_and_title_precedence() {
        let tool = tool_from(json!({"name": "t", "title": "Tool title", "description": "d",
            "inputSchema": {"type": "object"},
            "annotations": {"title": "Annotation title", "destructiveHint": false, "read": 1, "tags": ["a", "b"], "gone": null}}));
        let (text, notes) = written(&tool);
        assert!(text.contains(
            "  annotations = list(\n    title = \"Annotation title\",\n    destructive_hint = FALSE,\n    read = 1,\n    tags = list(\"a\", \"b\")\n  )\n"
        ), "{text}");
        assert_eq!(
            notes,
            [
                "/run ellmer needs an R function and the tool has none: wrote a placeholder function with the arguments as formals that stops with a message; replace it with the tool's implementation",
                "/title ellmer has no tool title and annotations.title differs from it; the title \"Tool title\" was left out",
                "/annotations/gone tool_annotations() drops NULL values, so this null annotation has no place",
            ]
        );
        let back = read_value(&text);
        assert_eq!(
            back["annotations"],
            json!({"title": "Annotation title", "destructiveHint": false, "read": 1, "tags": ["a", "b"]})
        );
        let mut defaults = Notes::new();
        let filled = write(
            &tool,
            &WriteOptions::default().with_annotation_defaults(true),
            &mut defaults,
        )
        .unwrap();
        assert!(filled.contains("read_only_hint = FALSE,\n    open_world_hint = TRUE,\n    idempotent_hint = FALSE,\n    destructive_hint = FALSE"), "{filled}");
    }

    #[test]
    fn small_rules_are_noted() {
        let tool = tool_from(json!({
            "name": "t",
            "description": "nul\u{0}here",
            "inputSchema": {"properties": {"flag": true, "": {"type": "string"}, "s": {"type": "string", "enum": ["a\u{0}"]}},
                "required": ["s", "flag"], "minProperties": 1},
            "annotations": {},
            "vendor": {"ellmer": {"convert": true, "extra": 1}, "anthropic": {"cache_control": {}}}
        }));
        let (text, notes) = written(&tool);
        assert!(text.contains("  \"nul\u{fffd}here\",\n"), "{text}");
        assert!(text.contains("flag = type_from_schema(text = '{}')"), "{text}");
        assert!(
            text.contains(r#"s = type_from_schema(text = '{"type":"string","enum":["a\\u0000"]}')"#),
            "{text}"
        );
        assert_eq!(
            notes,
            [
                "/vendor/anthropic fields kept for anthropic have no place in ellmer",
                "/vendor/ellmer/convert convert = TRUE is ellmer's default and is not written",
                "/vendor/ellmer/extra vendor.ellmer.extra is not an ellmer setting toolbridge knows (convert: \
                 true/false, ignore: [names]); left out",
                "/inputSchema/type ellmer's arguments are always an object; reading the R back gives \"type\": \"object\"",
                "/inputSchema/minProperties ellmer builds the arguments object itself; \"minProperties\" at its root has no place",
                "/inputSchema/required ellmer marks each property required on its own, so the required list comes back \
                 in property order",
                "/inputSchema ellmer sends additionalProperties: false for the arguments and every type_object() (to \
                 every provider but Gemini), so the model can no longer add keys that are not declared",
                "/inputSchema/properties/flag ellmer's type_from_schema() needs a JSON object; the boolean schema true \
                 was written as {}",
                "/inputSchema/properties/ \"\" cannot be an R argument name; the argument was left out",
                "/inputSchema/properties/s ellmer's type_*() functions cannot express an enum that is not a list of \
                 strings; written as type_from_schema()",
                "/run ellmer needs an R function and the tool has none: wrote a placeholder function with the arguments \
                 as formals that stops with a message; replace it with the tool's implementation",
                "/description R strings cannot hold a NUL character; it was written as U+FFFD",
                "/annotations the annotations are empty and are not written",
            ]
        );
    }
}
