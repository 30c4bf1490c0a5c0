//! Writing: a canonical tool as a `(gptel-make-tool …)` or `(llm-make-tool …)`
//! form.

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::note_uncarried;
use crate::note::{NoteKind, Notes};
use crate::options::WriteOptions;
use crate::pointer::Pointer;
use crate::schema::{inferred_type, lower, Dialect};
use crate::tool::{Confirm, Include, Run, Tool};

use super::sexp::{self, keyword_text, string_literal, symbol_text, Doc, Kind, Sexp};
use super::{last_token, Flavor, PLACEHOLDER_MESSAGE, SLOTS};

/// Writes one tool as a `(gptel-make-tool …)` or `(llm-make-tool …)` form.
pub(crate) fn write_as(
    tool: &Tool,
    opts: &WriteOptions,
    notes: &mut Notes,
    flavor: Flavor,
) -> Result<String> {
    let format = flavor.format();
    note_uncarried(
        tool,
        &[
            "name",
            "description",
            "inputSchema",
            "async",
            "category",
            "confirm",
            "include",
            "run",
            "vendor",
        ],
        format,
        notes,
    );
    let writer = ToolWriter { opts, flavor };
    let mut pairs: Vec<(String, Doc)> = vec![(":name".into(), Doc::Atom(string_literal(&tool.name)))];
    let description = match &tool.description {
        Some(text) => text.as_str(),
        None => {
            notes.push(
                NoteKind::Placeholder {
                    field: "description".into(),
                },
                Pointer::root().key("description"),
                format!(
                    "the tool has no description; {} sends the slot as it is (nil would go out as {{}}), so wrote \"\"",
                    flavor.package()
                ),
            );
            ""
        }
    };
    pairs.push((":description".into(), Doc::Atom(string_literal(description))));
    pairs.push((":function".into(), writer.function(tool, notes)));
    pairs.push((":args".into(), writer.args(tool, notes)?));
    if let Some(is_async) = tool.is_async {
        pairs.push((
            ":async".into(),
            Doc::Atom(if is_async { "t" } else { "nil" }.into()),
        ));
    }
    let gptel_slots = [
        (
            "category",
            tool.category
                .as_ref()
                .map(|category| Doc::Atom(string_literal(category))),
        ),
        (
            "confirm",
            tool.confirm
                .as_ref()
                .map(|confirm| writer.confirm(confirm, notes)),
        ),
        (
            "include",
            tool.include.map(|include| {
                Doc::Atom(
                    match include {
                        Include::All => "t",
                        Include::Call => "'call",
                        Include::None => "nil",
                    }
                    .into(),
                )
            }),
        ),
    ];
    for (slot, doc) in gptel_slots {
        let Some(doc) = doc else { continue };
        match flavor {
            Flavor::Gptel => pairs.push((format!(":{slot}"), doc)),
            Flavor::Llm => notes.push(
                NoteKind::Dropped { keyword: slot.into() },
                Pointer::root().key(slot),
                format!("llm.el has no :{slot} (a gptel slot); left out"),
            ),
        }
    }
    if let Some(fields) = tool.vendor_fields(format.id()) {
        for (key, value) in fields {
            let at = Pointer::root().key("vendor").key(format.id()).key(key);
            if SLOTS.contains(&key.as_str()) {
                notes.push(
                    NoteKind::Dropped { keyword: key.into() },
                    at,
                    format!(":{key} is written from the canonical tool; the vendor copy was left out"),
                );
                continue;
            }
            pairs.push((keyword_text(key), writer.vendor_value(value, &at, notes)?));
        }
    }
    let mut text = Doc::Form(flavor.head().into(), pairs).render(0);
    text.push('\n');
    Ok(text)
}

struct ToolWriter<'o> {
    opts: &'o WriteOptions,
    flavor: Flavor,
}

impl ToolWriter<'_> {
    /// `source` trimmed to its one form, or why it is not one.
    fn one_form(&self, source: &str) -> std::result::Result<String, String> {
        match sexp::read_one(source, self.opts.limits.max_depth) {
            Ok(form) => Ok(source[form.span.start..form.span.end].to_string()),
            Err(err) => Err(err.to_string()),
        }
    }

    fn placeholder(name: &str) -> Doc {
        Doc::Raw(format!(
            "(lambda (&rest _) (error {} {}))",
            string_literal(PLACEHOLDER_MESSAGE),
            string_literal(name)
        ))
    }

    fn function(&self, tool: &Tool, notes: &mut Notes) -> Doc {
        let run_at = Pointer::root().key("run");
        let package = self.flavor.package();
        let handler = match &tool.run {
            None => {
                notes.push(
                    NoteKind::Placeholder { field: "function".into() },
                    run_at,
                    format!("the tool has no Emacs Lisp handler; wrote a placeholder :function that signals an error when {package} calls it"),
                );
                return Self::placeholder(&tool.name);
            }
            Some(Run::Action(action)) => action.handler.as_ref(),
            Some(other) => {
                notes.push(
                    NoteKind::Dropped {
                        keyword: "run".into(),
                    },
                    run_at,
                    format!(
                        "{package} runs Emacs Lisp functions only; the {} run has no place, so wrote a placeholder :function",
                        other.kind()
                    ),
                );
                return Self::placeholder(&tool.name);
            }
        };
        let handler_at = run_at.key("handler");
        for (language, _) in handler.into_iter().flatten() {
            if language != "elisp" {
                notes.push(
                    NoteKind::Dropped {
                        keyword: language.into(),
                    },
                    handler_at.key(language),
                    format!("the {language:?} handler has no place in {package}, which runs Emacs Lisp"),
                );
            }
        }
        match handler.and_then(|handler| handler.get("elisp")) {
            Some(source) => match self.one_form(source) {
                Ok(form) => Doc::Raw(form),
                Err(why) => {
                    notes.push(
                        NoteKind::Placeholder { field: "function".into() },
                        handler_at.key("elisp"),
                        format!("the Emacs Lisp handler is not one readable form ({why}); wrote a placeholder :function"),
                    );
                    Self::placeholder(&tool.name)
                }
            },
            // At `/run`: the placeholder reads back as no run at all.
            None => {
                notes.push(
                    NoteKind::Placeholder { field: "function".into() },
                    run_at,
                    format!("the tool has no Emacs Lisp handler; wrote a placeholder :function that signals an error when {package} calls it"),
                );
                Self::placeholder(&tool.name)
            }
        }
    }

    fn confirm(&self, confirm: &Confirm, notes: &mut Notes) -> Doc {
        let at = Pointer::root().key("confirm");
        match confirm {
            Confirm::Always(true) => Doc::Atom("t".into()),
            Confirm::Always(false) => Doc::Atom("nil".into()),
            Confirm::When(code) => match code.get("elisp").map(|source| self.one_form(source)) {
                Some(Ok(form)) => Doc::Raw(form),
                Some(Err(why)) => {
                    notes.push(
                        NoteKind::Rewritten { keyword: "confirm".into() },
                        at.key("elisp"),
                        format!("the Emacs Lisp predicate is not one readable form ({why}); wrote :confirm t (always ask)"),
                    );
                    Doc::Atom("t".into())
                }
                None => {
                    notes.push(
                        NoteKind::Rewritten {
                            keyword: "confirm".into(),
                        },
                        at,
                        "the confirm predicate has no Emacs Lisp version; wrote :confirm t (always ask)",
                    );
                    Doc::Atom("t".into())
                }
            },
        }
    }

    fn vendor_value(&self, value: &Value, at: &Pointer, notes: &mut Notes) -> Result<Doc> {
        if let Value::String(source) = value {
            return Ok(match self.one_form(source) {
                Ok(form) => Doc::Raw(form),
                Err(why) => {
                    notes.push(
                        NoteKind::Rewritten {
                            keyword: last_token(at).into(),
                        },
                        at.clone(),
                        format!("the value is kept as Emacs Lisp source but does not read as one form ({why}); wrote it as a string"),
                    );
                    Doc::Atom(string_literal(source))
                }
            });
        }
        let doc = self.value(value, at, false, 0, notes)?;
        Ok(match doc {
            Doc::Plist(ref pairs) if !pairs.is_empty() => Doc::Quote(Box::new(doc)),
            other => other,
        })
    }

    fn args(&self, tool: &Tool, notes: &mut Notes) -> Result<Doc> {
        let at = Pointer::root().key("inputSchema");
        // An argument plist has no place for `$defs`, so every `$ref` is
        // inlined first (and `$schema`/`$id` dropped), each with a note.
        let lowered = lower(&tool.input_schema, Dialect::Elisp, &at, &self.opts.limits, notes)?;
        let Some(schema) = lowered.schema.as_object() else {
            return Err(Error::new(
                ErrorKind::Unrepresentable,
                "the input schema is not an object, so it has no arguments to write",
            )
            .at(at));
        };
        let package = self.flavor.package();
        let mut properties = None;
        let mut required: Vec<&str> = Vec::new();
        for (key, value) in schema {
            match key.as_str() {
                "type" if value == "object" => {}
                "properties" => match value.as_object() {
                    Some(object) => properties = Some(object),
                    None => {
                        return Err(Error::new(ErrorKind::InvalidSchema, "\"properties\" must be an object")
                            .at(at.key("properties")))
                    }
                },
                "required" => {
                    for (index, name) in value.as_array().into_iter().flatten().enumerate() {
                        match name.as_str() {
                            Some(name) => required.push(name),
                            None => notes.push(
                                NoteKind::Dropped {
                                    keyword: "required".into(),
                                },
                                at.key("required").index(index),
                                "a required entry that is not a string has no place in :args",
                            ),
                        }
                    }
                }
                _ => notes.push(
                    NoteKind::Dropped { keyword: key.into() },
                    at.key(key),
                    format!("{package} builds the argument object itself from :args; it has no place for {key:?} there"),
                ),
            }
        }
        let empty = Map::new();
        let properties = properties.unwrap_or(&empty);
        for (index, name) in required.iter().enumerate() {
            if !properties.contains_key(*name) {
                notes.push(
                    NoteKind::Dropped {
                        keyword: "required".into(),
                    },
                    at.key("required").index(index),
                    format!("{name:?} is required but is not a property; :args cannot say that"),
                );
            }
        }
        let in_order: Vec<&str> = properties
            .keys()
            .map(String::as_str)
            .filter(|name| required.contains(name))
            .collect();
        let listed: Vec<&str> = required
            .iter()
            .copied()
            .filter(|name| properties.contains_key(*name))
            .collect();
        if in_order != listed {
            notes.push(
                NoteKind::Rewritten {
                    keyword: "required".into(),
                },
                at.key("required"),
                format!("{package} lists required arguments in :args order, so \"required\" comes back in property order"),
            );
        }
        if properties.is_empty() {
            if !schema.contains_key("properties") {
                notes.push(
                    NoteKind::Normalized {
                        field: "properties".into(),
                    },
                    at.key("properties"),
                    format!("the tool takes no arguments: :args is nil, which reads back (and {package} sends it) as empty \"properties\""),
                );
            }
            return Ok(Doc::Atom("nil".into()));
        }
        let mut args = Vec::with_capacity(properties.len());
        for (name, property) in properties {
            let prop_at = at.key("properties").key(name);
            let mut pairs = vec![(":name".to_string(), Doc::Atom(string_literal(name)))];
            match property {
                Value::Bool(false) => {
                    notes.push(
                        NoteKind::Dropped { keyword: name.into() },
                        prop_at,
                        "the schema false (no value allowed) has no argument plist; the property was left out",
                    );
                    continue;
                }
                Value::Bool(true) | Value::Object(_) => {
                    let empty = Map::new();
                    let object = property.as_object().unwrap_or(&empty);
                    let is_required = required.contains(&name.as_str());
                    let argument = written_argument(object, is_required, package, &prop_at, notes);
                    for (key, value) in &argument {
                        if key == "name" || key == "optional" {
                            notes.push(
                                NoteKind::Dropped { keyword: key.into() },
                                prop_at.key(key),
                                format!(
                                    "an argument plist uses :{key} itself ({package} strips it before sending), so the schema keyword {key:?} has no place"
                                ),
                            );
                            continue;
                        }
                        let doc = self.keyword_value(key, value, &prop_at.key(key), false, 1, notes)?;
                        pairs.push((keyword_text(key), doc));
                    }
                }
                other => {
                    return Err(Error::new(
                        ErrorKind::InvalidSchema,
                        format!("a property schema must be an object or a boolean, found {other}"),
                    )
                    .at(prop_at))
                }
            }
            if !required.contains(&name.as_str()) {
                pairs.push((":optional".into(), Doc::Atom("t".into())));
            }
            args.push(Doc::Quote(Box::new(Doc::Plist(pairs))));
        }
        Ok(Doc::Call("list".into(), args))
    }

    /// The value of plist keyword `key`: `:type` as a symbol where that is
    /// safe, anything else through [`ToolWriter::value`].
    fn keyword_value(
        &self,
        key: &str,
        value: &Value,
        at: &Pointer,
        in_vector: bool,
        depth: usize,
        notes: &mut Notes,
    ) -> Result<Doc> {
        // llm.el calls symbol-name on an argument's :type, so there any type
        // name that reads back as the same symbol is written as one.
        let argument_type_for_llm = self.flavor == Flavor::Llm && depth == 1;
        match value {
            Value::String(text)
                if key == "type"
                    && !in_vector
                    && (is_plain_symbol(text) || (argument_type_for_llm && is_escapable_symbol(text))) =>
            {
                Ok(Doc::Atom(symbol_text(text)))
            }
            _ => self.value(value, at, in_vector, depth, notes),
        }
    }

    /// A JSON value as Emacs Lisp data: `t`, `:json-false` (`:false` for
    /// llm.el), `:null`, numbers, strings, vectors, plists (`nil` for `{}`).
    fn value(
        &self,
        value: &Value,
        at: &Pointer,
        in_vector: bool,
        depth: usize,
        notes: &mut Notes,
    ) -> Result<Doc> {
        if depth > self.opts.limits.max_depth {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the schema is nested more than {} levels deep",
                    self.opts.limits.max_depth
                ),
            )
            .at(at.clone()));
        }
        Ok(match value {
            Value::Null => Doc::Atom(":null".into()),
            Value::Bool(true) => Doc::Atom("t".into()),
            Value::Bool(false) => Doc::Atom(self.flavor.false_keyword().into()),
            Value::Number(number) => {
                if let Some(int) = number.as_i64() {
                    Doc::Atom(int.to_string())
                } else if let Some(unsigned) = number.as_u64() {
                    notes.push(
                        NoteKind::Unsupported {
                            keyword: last_token(at).into(),
                        },
                        at.clone(),
                        format!("{unsigned} is beyond the 64-bit signed integers json-serialize can send"),
                    );
                    Doc::Atom(unsigned.to_string())
                } else {
                    let float = number.as_f64().unwrap_or_default();
                    Doc::Atom(sexp::float_text(float).unwrap_or_else(|| "0.0".into()))
                }
            }
            Value::String(text) => Doc::Atom(string_literal(text)),
            Value::Array(items) => {
                let mut docs = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    docs.push(self.value(item, &at.index(index), true, depth + 1, notes)?);
                }
                Doc::Vector(docs)
            }
            Value::Object(object) => {
                let mut pairs = Vec::with_capacity(object.len());
                for (key, item) in object {
                    let doc = self.keyword_value(key, item, &at.key(key), in_vector, depth + 1, notes)?;
                    pairs.push((keyword_text(key), doc));
                }
                Doc::Plist(pairs)
            }
        })
    }
}

/// The types `gptel-make-tool`'s docstring allows for an argument's `:type`.
const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// The schema of one argument as the writers write it: with one `type` from
/// the seven and a string `description`, which `gptel-make-tool`'s
/// docstring requires of every argument (and which llm.el's
/// `llm-provider-utils-openai-arguments` needs: it calls `symbol-name` on
/// `:type`, so a missing one goes out as `"nil"`). Each change is noted:
///
/// - a nullable union (`"type": ["string", "null"]`, or `anyOf`/`oneOf`
///   with a `{"type": "null"}` branch) becomes its non-null branch: an
///   optional argument keeps its meaning (the model leaves it out instead of
///   sending null); a required one loses null;
/// - a real union gets the nearest single type (`number` for integer and
///   number, else the first branch's) and the union itself goes into the
///   description: gptel passes extra keys through, but `type` beside `anyOf`
///   means both must hold, and Gemini refuses the pair;
/// - a value of any type (`{}`, `true`) gets `string`;
/// - a missing description becomes the schema's `title`, else `""`.
pub(crate) fn written_argument(
    schema: &Map<String, Value>,
    is_required: bool,
    package: &str,
    at: &Pointer,
    notes: &mut Notes,
) -> Map<String, Value> {
    let mut body = schema.clone();
    let mut added_type = None;
    let needs = format!("{package} needs one :type from the seven on every argument");
    let nullable = |keyword: &str, written: &str, notes: &mut Notes| {
        if is_required {
            notes.push(
                NoteKind::Dropped { keyword: "null".into() },
                at.clone(),
                format!("{needs}: wrote the non-null branch, {written}; the argument is required, so null can no longer be sent"),
            );
        } else {
            notes.push(
                NoteKind::Rewritten { keyword: keyword.into() },
                at.clone(),
                format!("{needs}: wrote the non-null branch, {written}; the argument is optional (:optional t), so the model leaves it out instead of sending null"),
            );
        }
    };
    let union = |keyword: &str,
                 union: &Value,
                 written: &str,
                 body: &mut Map<String, Value>,
                 notes: &mut Notes| {
        let sentence = format!("Accepts {}.", json!({keyword: union}));
        let description = match body.get("description").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => format!("{text} {sentence}"),
            _ => sentence,
        };
        body.insert("description".into(), Value::String(description));
        notes.push(
            NoteKind::MovedToDescription { keyword: keyword.into() },
            at.clone(),
            format!("{needs}: the union was written as {written}, with the union in the description (type beside anyOf would mean both; Gemini refuses the pair)"),
        );
    };
    match schema.get("type") {
        Some(Value::Array(types)) => {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let non_null: Vec<&str> = names.iter().copied().filter(|name| *name != "null").collect();
            let written = match non_null.as_slice() {
                [] => "null",
                [one] => one,
                many => nearest(many.iter().map(|name| Some(*name))),
            };
            body.insert("type".into(), Value::String(written.into()));
            if non_null.len() > 1 {
                union(
                    "type",
                    &Value::Array(types.clone()),
                    &format!(":type {written}"),
                    &mut body,
                    notes,
                );
            } else if non_null.len() < names.len() && !non_null.is_empty() {
                nullable("type", &format!(":type {written}"), notes);
            }
        }
        Some(_) => {}
        None => {
            let combinator = ["anyOf", "oneOf"]
                .into_iter()
                .find_map(|keyword| Some((keyword, schema.get(keyword)?.as_array()?)));
            if let Some((keyword, branches)) = combinator {
                let is_null = |branch: &Value| branch.get("type").and_then(Value::as_str) == Some("null");
                let non_null: Vec<&Value> = branches.iter().filter(|branch| !is_null(branch)).collect();
                let branch_type = |branch: &Value| {
                    branch.as_object().and_then(|object| match object.get("type") {
                        Some(Value::String(name)) => TYPES.into_iter().find(|known| known == name),
                        _ => inferred_type(object),
                    })
                };
                match non_null.as_slice() {
                    [branch] if branch.is_object() => {
                        body.shift_remove(keyword);
                        for (key, value) in branch.as_object().into_iter().flatten() {
                            if !body.contains_key(key) {
                                body.insert(key.clone(), value.clone());
                            }
                        }
                        if !body.contains_key("type") {
                            let written = branch_type(branch).unwrap_or("string");
                            body.insert("type".into(), Value::String(written.into()));
                        }
                        let written = format!("{}", json!(branch));
                        if non_null.len() < branches.len() {
                            nullable(keyword, &written, notes);
                        } else {
                            notes.push(
                                NoteKind::Rewritten { keyword: keyword.into() },
                                at.clone(),
                                format!("{needs}: the {keyword} of one branch was written as that branch, {written}"),
                            );
                        }
                    }
                    _ => {
                        let written = nearest(non_null.iter().map(|branch| branch_type(branch)));
                        body.shift_remove(keyword);
                        body.insert("type".into(), Value::String(written.into()));
                        union(
                            keyword,
                            &Value::Array(branches.clone()),
                            &format!(":type {written}"),
                            &mut body,
                            notes,
                        );
                    }
                }
            } else if let Some(inferred) = inferred_type(schema) {
                notes.push(
                    NoteKind::Rewritten { keyword: "type".into() },
                    at.key("type"),
                    format!("{package} needs a :type on every argument; \"type\": {inferred:?} was added, as the argument's values and keywords point at it"),
                );
                added_type = Some(inferred);
            } else {
                notes.push(
                    NoteKind::Coerced {
                        from: "any".into(),
                        to: "string".into(),
                    },
                    at.key("type"),
                    format!("{needs}; the argument takes a value of any type, so wrote :type string: the model sends text"),
                );
                added_type = Some("string");
            }
        }
    }
    let mut out = Map::new();
    if let Some(name) = added_type {
        out.insert("type".into(), Value::String(name.into()));
    }
    if !body.get("description").is_some_and(Value::is_string) {
        let (text, note) = match schema.get("title").and_then(Value::as_str) {
            Some(title) => (
                title.to_string(),
                NoteKind::Defaulted {
                    field: "description".into(),
                },
            ),
            None => (
                String::new(),
                NoteKind::Placeholder {
                    field: "description".into(),
                },
            ),
        };
        let message = match note {
            NoteKind::Defaulted { .. } => format!(
                "no description: wrote the title, as gptel-make-tool's docstring wants a string on every argument: {text:?}"
            ),
            _ => "no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)".to_string(),
        };
        notes.push(note, at.key("description"), message);
        body.shift_remove("description");
        let type_first = body.shift_remove("type");
        if let Some(name) = type_first {
            out.insert("type".into(), name);
        }
        out.insert("description".into(), Value::String(text));
    }
    for (key, value) in body {
        out.entry(key).or_insert(value);
    }
    out
}

/// The single type nearest to a union of these branch types: `number` when
/// all are numbers, else the first known one (`string` when none is known).
fn nearest<'a>(types: impl Iterator<Item = Option<&'a str>>) -> &'a str {
    let types: Vec<Option<&str>> = types.collect();
    if !types.is_empty()
        && types
            .iter()
            .all(|name| matches!(name, Some("integer" | "number")))
    {
        return "number";
    }
    types.into_iter().flatten().next().unwrap_or("string")
}

/// A name [`symbol_text`] writes as a symbol with that name: not empty, not
/// `nil` or `t`, not a keyword.
pub(crate) fn is_escapable_symbol(text: &str) -> bool {
    !text.is_empty() && text != "nil" && text != "t" && !text.starts_with(':')
}

/// A type name that reads back as the same symbol (`string`, `my-type`), and
/// is not `nil` or `t`.
fn is_plain_symbol(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && text != "nil"
        && text != "t"
}

/// True for the placeholder function [`write_as`]
/// writes for a tool without an Emacs Lisp handler.
pub(super) fn is_placeholder(form: &Sexp) -> bool {
    let Some([params, body]) = form.call_of("lambda") else {
        return false;
    };
    let params_ok = matches!(params.list(), Some([rest, ignored])
        if rest.symbol() == Some("&rest") && ignored.symbol() == Some("_"));
    let body_ok = matches!(body.call_of("error"), Some([message, name])
        if message.kind == Kind::Str(PLACEHOLDER_MESSAGE.into()) && matches!(name.kind, Kind::Str(_)));
    params_ok && body_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Format;
    use serde_json::json;

    fn write_one(tool: &Value, flavor: Flavor) -> (String, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool.clone()).unwrap();
        let mut notes = Notes::new();
        let text = write_as(&tool, &WriteOptions::default(), &mut notes, flavor).unwrap();
        let notes = notes
            .iter()
            .map(|note| format!("{} {}: {}", note.level(), note.at, note.message))
            .collect();
        (text, notes)
    }

    #[test]
    fn writes_the_weather_seed() {
        let tool = json!({
            "name": "get_weather",
            "description": "Get the current weather in a given location",
            "inputSchema": {"type": "object", "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "enum": ["celsius", "farenheit"], "description": "The unit of temperature, either 'celsius' or 'fahrenheit'"}
            }, "required": ["location"]},
            "run": {"kind": "action", "handler": {"elisp": "(lambda (location unit)\n  (url-retrieve-synchronously (format \"api.weather.com/...\" location unit)))"}}
        });
        let (text, notes) = write_one(&tool, Flavor::Gptel);
        assert_eq!(
            text,
            r#"(gptel-make-tool
 :name "get_weather"
 :description "Get the current weather in a given location"
 :function (lambda (location unit)
  (url-retrieve-synchronously (format "api.weather.com/..." location unit)))
 :args (list '(:name "location"
               :type string
               :description "The city and state, e.g. San Francisco, CA")
             '(:name "unit"
               :type string
               :enum ["celsius" "farenheit"]
               :description "The unit of temperature, either 'celsius' or 'fahrenheit'"
               :optional t)))
"#
        );
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn writer_covers_every_slot_and_value() {
        let tool = json!({
            "name": "all", "description": "say \"hi\"\\\n",
            "inputSchema": {"type": "object", "properties": {
                "n": {"type": "integer", "minimum": 1, "default": null, "deprecated": false, "x-ok": true, "big": 1.5e300},
                "u": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
                "o": {"type": "object", "properties": {}, "additionalProperties": false}
            }, "required": ["n"]},
            "async": false, "confirm": {"elisp": "(lambda (n &rest _) (> n 3)) ; trailing comment"},
            "include": "call", "category": "misc",
            "run": {"kind": "action", "handler": {"elisp": "#'my-all"}},
            "vendor": {"gptel": {"extra": "(my-extra)", "data": {"a": [1, "b"]}}}
        });
        let (text, notes) = write_one(&tool, Flavor::Gptel);
        assert_eq!(
            text,
            r#"(gptel-make-tool
 :name "all"
 :description "say \"hi\"\\\n"
 :function #'my-all
 :args (list '(:name "n"
               :type integer
               :description ""
               :minimum 1
               :default :null
               :deprecated :json-false
               :x-ok t
               :big 1.5e300)
             '(:name "u"
               :type string
               :description ""
               :format "date-time"
               :optional t)
             '(:name "o"
               :type object
               :description ""
               :properties nil
               :additionalProperties :json-false
               :optional t))
 :async nil
 :category "misc"
 :confirm (lambda (n &rest _) (> n 3))
 :include 'call
 :extra (my-extra)
 :data '(:a [1 "b"]))
"#
        );
        let argument_notes = [
            "change /inputSchema/properties/n/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)",
            "change /inputSchema/properties/u: gptel needs one :type from the seven on every argument: wrote the non-null branch, {\"type\":\"string\",\"format\":\"date-time\"}; the argument is optional (:optional t), so the model leaves it out instead of sending null",
            "change /inputSchema/properties/u/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)",
            "change /inputSchema/properties/o/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)",
        ];
        assert_eq!(notes, argument_notes);
        let (text, notes) = write_one(&tool, Flavor::Llm);
        assert!(text.starts_with("(llm-make-tool\n"), "{text}");
        assert!(text.contains(":deprecated :false"), "{text}");
        assert!(!text.contains(":category") && !text.contains(":extra"), "{text}");
        assert_eq!(
            notes,
            [
                "loss /vendor/gptel/extra: \"extra\" (a field of gptel) has no place in llm",
                "loss /vendor/gptel/data: \"data\" (a field of gptel) has no place in llm",
                "change /inputSchema/properties/n/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)",
                "change /inputSchema/properties/u: llm.el needs one :type from the seven on every argument: wrote the non-null branch, {\"type\":\"string\",\"format\":\"date-time\"}; the argument is optional (:optional t), so the model leaves it out instead of sending null",
                "change /inputSchema/properties/u/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)",
                "change /inputSchema/properties/o/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)",
                "loss /category: llm.el has no :category (a gptel slot); left out",
                "loss /confirm: llm.el has no :confirm (a gptel slot); left out",
                "loss /include: llm.el has no :include (a gptel slot); left out",
            ]
        );
    }

    #[test]
    fn refs_are_inlined_and_missing_types_inferred() {
        let tool = json!({
            "name": "s", "description": "d",
            "inputSchema": {"type": "object", "properties": {
                "state": {"enum": ["open", "closed"]},
                "when": {"$ref": "#/$defs/range"},
                "any": {"description": "Anything."}},
                "required": ["state"],
                "$defs": {"range": {"type": "object", "properties": {"from": {"type": "string"}}}}}
        });
        for flavor in [Flavor::Gptel, Flavor::Llm] {
            let (text, notes) = write_one(&tool, flavor);
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let package = if flavor == Flavor::Gptel {
                "gptel"
            } else {
                "llm.el"
            };
            assert!(
                text.contains(
                    "'(:name \"state\" :type string :description \"\" :enum [\"open\" \"closed\"])"
                ),
                "{text}"
            );
            assert!(
                text.contains(
                    "'(:name \"when\" :type object :description \"\" :properties (:from (:type string)) :optional t)"
                ),
                "{text}"
            );
            assert!(notes.contains(&format!(
                "change /inputSchema/properties/state/type: {package} needs a :type on every argument; \"type\": \"string\" was added, as the argument's values and keywords point at it"
            )), "{notes:?}");
            assert!(notes.contains(&"change /inputSchema/properties/when: \"#/$defs/range\" was inlined because gptel and llm.el build each argument from :args, with no place for $defs".to_string()), "{notes:?}");
        }
    }

    #[test]
    fn writer_notes_what_has_no_place() {
        let tool = json!({
            "name": "n", "title": "T",
            "inputSchema": {"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema",
                "properties": {"b": {"type": "string", "name": "x"}, "a": true, "z": false},
                "required": ["a", "b", "ghost"], "additionalProperties": false},
            "run": {"kind": "command", "program": "date"}
        });
        let (text, notes) = write_one(&tool, Flavor::Gptel);
        assert_eq!(
            text,
            "(gptel-make-tool\n :name \"n\"\n :description \"\"\n :function (lambda (&rest _) (error \"toolbridge: tool %s has no Emacs Lisp function; define one\" \"n\"))\n :args (list '(:name \"b\" :type string :description \"\")\n             '(:name \"a\" :type string :description \"\")))\n"
        );
        assert_eq!(
            notes,
            [
                "loss /title: gptel has no place for \"title\"",
                "change /description: the tool has no description; gptel sends the slot as it is (nil would go out as {}), so wrote \"\"",
                "loss /run: gptel runs Emacs Lisp functions only; the command run has no place, so wrote a placeholder :function",
                "loss /inputSchema/$schema: \"$schema\" was dropped: gptel and llm.el build the argument object themselves, with no place for it",
                "loss /inputSchema/additionalProperties: gptel builds the argument object itself from :args; it has no place for \"additionalProperties\" there",
                "loss /inputSchema/required/2: \"ghost\" is required but is not a property; :args cannot say that",
                "change /inputSchema/required: gptel lists required arguments in :args order, so \"required\" comes back in property order",
                "change /inputSchema/properties/b/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)",
                "loss /inputSchema/properties/b/name: an argument plist uses :name itself (gptel strips it before sending), so the schema keyword \"name\" has no place",
                "change /inputSchema/properties/a/type: gptel needs one :type from the seven on every argument; the argument takes a value of any type, so wrote :type string: the model sends text",
                "change /inputSchema/properties/a/description: no description (nor title): wrote \"\", as gptel-make-tool's docstring wants a string on every argument (a sentence made from the name would tell the model nothing)",
                "loss /inputSchema/properties/z: the schema false (no value allowed) has no argument plist; the property was left out",
            ]
        );
    }

    #[test]
    fn llm_argument_types_are_always_symbols_where_they_can_be() {
        let tool = json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "my type"}, "b": {"type": "1"}, "c": {"type": "nil"},
            "d": {"type": "array", "items": {"type": "my type"}}
        }, "required": ["a", "b", "c", "d"]},
            "run": {"kind": "action", "handler": {"elisp": "#'ignore"}}});
        let (text, _) = write_one(&tool, Flavor::Llm);
        assert!(
            text.contains("'(:name \"a\" :type my\\ type :description \"\")"),
            "{text}"
        );
        assert!(
            text.contains("'(:name \"b\" :type \\1 :description \"\")"),
            "{text}"
        );
        assert!(
            text.contains("'(:name \"c\" :type \"nil\" :description \"\")"),
            "{text}"
        );
        assert!(text.contains(":items (:type \"my type\")"), "{text}");
        let (gptel, _) = write_one(&tool, Flavor::Gptel);
        assert!(
            gptel.contains("'(:name \"a\" :type \"my type\" :description \"\")"),
            "{gptel}"
        );
    }

    #[test]
    fn every_argument_gets_one_type_and_a_description() {
        let tool = json!({"name": "u", "description": "d", "inputSchema": {"type": "object", "properties": {
            "maybe": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}], "description": "Maybe."},
            "must": {"type": ["integer", "null"], "title": "Must"},
            "port": {"oneOf": [{"type": "integer"}, {"type": "number"}], "description": "Port."},
            "either": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]},
            "pair": {"type": ["string", "boolean"], "description": "Pair."},
            "any": {"description": "Anything."}
        }, "required": ["must", "pair"]},
            "run": {"kind": "action", "handler": {"elisp": "#'ignore"}}});
        let (text, notes) = write_one(&tool, Flavor::Gptel);
        assert_eq!(
            text,
            r#"(gptel-make-tool
 :name "u"
 :description "d"
 :function #'ignore
 :args (list '(:name "maybe"
               :description "Maybe."
               :type string
               :minLength 1
               :optional t)
             '(:name "must" :type integer :description "Must" :title "Must")
             '(:name "port"
               :description "Port. Accepts {\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"number\"}]}."
               :type number
               :optional t)
             '(:name "either"
               :type array
               :description "Accepts {\"anyOf\":[{\"type\":\"array\",\"items\":{\"type\":\"string\"}},{\"type\":\"string\"}]}."
               :optional t)
             '(:name "pair"
               :type string
               :description "Pair. Accepts {\"type\":[\"string\",\"boolean\"]}.")
             '(:name "any" :type string :description "Anything." :optional t)))
"#
        );
        let needs = "gptel needs one :type from the seven on every argument";
        assert_eq!(
            notes,
            [
                format!("change /inputSchema/properties/maybe: {needs}: wrote the non-null branch, {{\"type\":\"string\",\"minLength\":1}}; the argument is optional (:optional t), so the model leaves it out instead of sending null"),
                format!("loss /inputSchema/properties/must: {needs}: wrote the non-null branch, :type integer; the argument is required, so null can no longer be sent"),
                "info /inputSchema/properties/must/description: no description: wrote the title, as gptel-make-tool's docstring wants a string on every argument: \"Must\"".to_string(),
                format!("change /inputSchema/properties/port: {needs}: the union was written as :type number, with the union in the description (type beside anyOf would mean both; Gemini refuses the pair)"),
                format!("change /inputSchema/properties/either: {needs}: the union was written as :type array, with the union in the description (type beside anyOf would mean both; Gemini refuses the pair)"),
                format!("change /inputSchema/properties/pair: {needs}: the union was written as :type string, with the union in the description (type beside anyOf would mean both; Gemini refuses the pair)"),
                format!("change /inputSchema/properties/any/type: {needs}; the argument takes a value of any type, so wrote :type string: the model sends text"),
            ]
        );
    }

    #[test]
    fn deep_schemas_are_refused_when_writing() {
        let mut deep = json!({"type": "string"});
        for _ in 0..200 {
            deep = json!({"type": "array", "items": deep});
        }
        let tool = Tool::new("d", json!({"type": "object", "properties": {"x": deep}}));
        let err = write_as(&tool, &WriteOptions::default(), &mut Notes::new(), Flavor::Gptel).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        assert_eq!(Flavor::Gptel.format(), Format::Gptel);
    }
}
