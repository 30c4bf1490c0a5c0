//! Reading: every `(gptel-make-tool …)` and `(llm-make-tool …)` form in
//! Emacs Lisp to a canonical tool.

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::check_schema_value;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;
use crate::suggest::closest;
use crate::tool::{ActionRun, Confirm, Include, Run, Tool};

use super::find::Found;
use super::sexp::{self, eval_constant, keyword_text, Kind, Sexp, Span};
use super::{last_token, Flavor, GPTEL_ONLY, SLOTS};

/// Schema keywords whose value maps names to schemas.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "$defs",
    "definitions",
    "patternProperties",
    "dependentSchemas",
];

/// Schema keywords whose value is an array, so that `nil` there means `[]`.
const ARRAY_KEYWORDS: [&str; 8] = [
    "required",
    "enum",
    "anyOf",
    "oneOf",
    "allOf",
    "prefixItems",
    "examples",
    "type",
];

/// Where a value sits, which decides what `nil` means there.
#[derive(Clone, Copy)]
enum Place<'k> {
    /// The value of a plist keyword.
    Key(&'k str),
    /// A schema in a map of schemas (a property's schema).
    Schema,
    /// An element of a vector or list.
    Element,
}

/// Reads one tool found by [`find`](super::find) into a canonical tool.
pub(super) struct ToolReader<'t> {
    pub text: &'t str,
    pub flavor: Flavor,
    /// The tool plist is quoted data: its values are not evaluated.
    pub quoted: bool,
    /// Strings the reader decoded only approximately, with why.
    pub inexact: &'t [(Span, String)],
    /// The file's `read-symbol-shorthands` (short prefix, long prefix).
    pub shorthands: &'t [(String, String)],
    /// What reading the tool changed or lost.
    pub notes: Notes,
}

/// One `:key value` pair of a plist, with the key as written.
struct Pair<'s> {
    key: String,
    value: &'s Sexp,
}

impl<'t> ToolReader<'t> {
    fn source(&self, span: Span) -> &'t str {
        &self.text[span.start..span.end]
    }

    /// The source text of `form` with the file's symbol shorthands expanded,
    /// as Emacs reads it (each expansion noted at `at`).
    fn source_of(&mut self, form: &Sexp, at: &Pointer) -> String {
        let mut symbols = Vec::new();
        form.symbol_spans(&mut symbols);
        let mut out = String::new();
        let mut done = form.span.start;
        for span in symbols {
            let token = &self.text[span.start..span.end];
            let Some((short, long)) = self
                .shorthands
                .iter()
                .find(|(short, _)| token.starts_with(short.as_str()))
            else {
                continue;
            };
            out.push_str(&self.text[done..span.start]);
            let expanded = format!("{long}{}", &token[short.len()..]);
            self.note(
                NoteKind::Normalized {
                    field: last_token(at).into(),
                },
                at.clone(),
                span,
                format!("read {token} as {expanded}, as Emacs does under the file's read-symbol-shorthands"),
            );
            out.push_str(&expanded);
            done = span.end;
        }
        out.push_str(&self.text[done..form.span.end]);
        out
    }

    fn position(&self, span: Span) -> (usize, usize) {
        sexp::line_column(self.text, span.start)
    }

    fn note(&mut self, kind: NoteKind, at: Pointer, span: Span, message: impl Into<String>) {
        let (line, column) = self.position(span);
        self.notes.push(
            kind,
            at,
            format!("{} (line {line}, column {column})", message.into()),
        );
    }

    fn fail(&self, at: Pointer, span: Span, detail: impl Into<String>) -> Error {
        let (line, column) = self.position(span);
        Error::new(ErrorKind::InvalidTool, detail)
            .at(at)
            .with_position(line, column)
    }

    /// The keyword/value pairs of a plist; a repeated key keeps its first
    /// value (as `plist-get`, `&key` and `json-serialize` do), with a note.
    fn plist<'s>(&mut self, items: &'s [Sexp], at: &Pointer, what: &str) -> Result<Vec<Pair<'s>>> {
        let mut pairs: Vec<Pair<'s>> = Vec::new();
        let mut chunks = items.chunks(2);
        for chunk in chunks.by_ref() {
            let key_form = &chunk[0];
            let Some(key) = key_form.keyword() else {
                return Err(self.fail(
                    at.clone(),
                    key_form.span,
                    format!(
                        "{what} must be a plist of :keyword value pairs; found {} where a keyword belongs",
                        key_form.describe()
                    ),
                ));
            };
            let Some(value) = chunk.get(1) else {
                return Err(self.fail(
                    at.key(key),
                    key_form.span,
                    format!("{} has no value in {what}", keyword_text(key)),
                ));
            };
            if pairs.iter().any(|pair| pair.key == key) {
                self.note(
                    NoteKind::Dropped { keyword: key.into() },
                    at.key(key),
                    key_form.span,
                    format!(
                        "{} appears twice in {what}; the first value counts, as in Emacs",
                        keyword_text(key)
                    ),
                );
                continue;
            }
            pairs.push(Pair {
                key: key.to_string(),
                value,
            });
        }
        Ok(pairs)
    }

    fn constant(&self, value: &Sexp, at: &Pointer) -> Result<Sexp> {
        if self.quoted {
            return Ok(value.clone());
        }
        eval_constant(value).map_err(|refused| self.fail(at.clone(), refused.span, refused.detail))
    }

    /// Notes a string the reader could not decode exactly.
    fn note_inexact(&mut self, datum: &Sexp, at: &Pointer) {
        let inexact = self.inexact;
        for (span, why) in inexact {
            if span.start >= datum.span.start && span.end <= datum.span.end {
                self.note(
                    NoteKind::Coerced {
                        from: "Emacs string".into(),
                        to: "Unicode text".into(),
                    },
                    at.clone(),
                    *span,
                    format!("the string is not exact Unicode text: {why}"),
                );
            }
        }
    }

    pub(super) fn read_tool(&mut self, found: &Found<'_>, base: Pointer) -> Result<Tool> {
        let span = found.span;
        let what = match (found.head, found.wrapper) {
            (Some(head), _) => format!("({} …)", head.head()),
            (None, wrapper) => format!("the tool plist passed to ({} …)", wrapper.unwrap_or("…")),
        };
        match found.head {
            Some(head) if head != self.flavor => self.note(
                NoteKind::Normalized { field: "form".into() },
                base.clone(),
                span,
                format!(
                    "read a ({} …) form as {}; both take the same plist",
                    head.head(),
                    self.flavor.format().id()
                ),
            ),
            Some(_) => {}
            None => self.note(
                NoteKind::Normalized { field: "form".into() },
                base.clone(),
                span,
                format!(
                    "read {what} as a tool: it has :name, :function and :args or :description, the plist {} takes",
                    self.flavor.head()
                ),
            ),
        }
        let pairs = self.plist(found.items, &base, &what)?;
        let slot = |name: &str| pairs.iter().find(|pair| pair.key == name).map(|pair| pair.value);

        let Some(name_form) = slot("name") else {
            return Err(self.fail(base.key("name"), span, format!("{what} has no :name")));
        };
        let evaluated_name = self.constant(name_form, &base.key("name"))?;
        self.note_inexact(&evaluated_name, &base.key("name"));
        let name = match evaluated_name.kind {
            Kind::Str(name) => name,
            _ => {
                return Err(self.fail(
                    base.key("name"),
                    name_form.span,
                    format!(":name must be a string, found {}", name_form.describe()),
                ))
            }
        };

        let schema = match slot("args") {
            Some(args) => self.read_args(args, &base.key("args"))?,
            None => json!({"type": "object", "properties": {}}),
        };
        let schema_at = base.key("args");
        let mut schema_notes = Notes::new();
        let schema = check_schema_value(&schema, &schema_at, &mut schema_notes).map_err(|err| {
            let at = Self::schema_pointer(&schema, err.pointer(), &schema_at);
            let span = slot("args").map_or(span, |args| args.span);
            let (line, column) = self.position(span);
            Error::new(err.kind(), err.detail())
                .at(at)
                .with_position(line, column)
        })?;
        self.notes.extend(schema_notes);

        let mut tool = Tool::new(name, schema);
        if let Some(value) = slot("description") {
            let at = base.key("description");
            let evaluated = self.constant(value, &at)?;
            self.note_inexact(&evaluated, &at);
            match &evaluated.kind {
                Kind::Str(text) => tool.description = Some(text.clone()),
                _ if evaluated.is_nil() => {}
                _ => {
                    return Err(self.fail(
                        at,
                        value.span,
                        format!(":description must be a string, found {}", value.describe()),
                    ))
                }
            }
        }
        if let Some(value) = slot("function") {
            tool.run = self.read_function(value, &base.key("function"));
        }
        if let Some(value) = slot("async") {
            tool.is_async = Some(self.read_flag(value, &base.key("async"), "async")?);
        }
        for gptel_slot in GPTEL_ONLY {
            if let Some(value) = slot(gptel_slot) {
                let at = base.key(gptel_slot);
                match gptel_slot {
                    "category" => tool.category = self.read_category(value, &at)?,
                    "confirm" => tool.confirm = Some(self.read_confirm(value, &at)),
                    _ => tool.include = Some(self.read_include(value, &at)?),
                }
                if self.flavor == Flavor::Llm {
                    self.note(
                        NoteKind::Kept {
                            key: gptel_slot.into(),
                        },
                        at,
                        value.span,
                        format!("llm.el ignores :{gptel_slot}, a gptel slot; kept"),
                    );
                }
            }
        }
        let mut vendor = Map::new();
        for pair in &pairs {
            if SLOTS.contains(&pair.key.as_str()) {
                continue;
            }
            let hint = match closest(&pair.key, SLOTS) {
                Some(near) => format!("; did you mean :{near}?"),
                None => String::new(),
            };
            self.note(
                NoteKind::Kept {
                    key: pair.key.as_str().into(),
                },
                base.key(&pair.key),
                pair.value.span,
                format!(
                    "{} is not a {} slot ({} ignores it); kept as source text in vendor.{}{hint}",
                    keyword_text(&pair.key),
                    self.flavor.head(),
                    self.flavor.package(),
                    self.flavor.format().id()
                ),
            );
            let source = self.source_of(pair.value, &base.key(&pair.key));
            let self_evaluating = pair.value.is_nil()
                || pair.value.is_t()
                || pair.value.keyword().is_some()
                || !matches!(
                    pair.value.kind,
                    Kind::Symbol(_) | Kind::List(_) | Kind::Dotted(..)
                );
            let source = if self.quoted && !self_evaluating {
                format!("'{source}")
            } else {
                source
            };
            vendor.insert(pair.key.clone(), Value::String(source));
        }
        tool.set_vendor_fields(self.flavor.format().id(), vendor);
        Ok(tool)
    }

    /// Maps a pointer into the built input schema back to the argument plists
    /// (`/properties/unit/enum` → `/args/1/enum`).
    fn schema_pointer(schema: &Value, inner: &Pointer, schema_at: &Pointer) -> Pointer {
        let tokens: Vec<String> = inner.tokens().skip(schema_at.tokens().count()).collect();
        let mut at = schema_at.clone();
        let mut rest = tokens.as_slice();
        if let [first, name, tail @ ..] = rest {
            let index = schema
                .get("properties")
                .and_then(Value::as_object)
                .and_then(|properties| properties.keys().position(|key| key == name));
            if let (true, Some(index)) = (first == "properties", index) {
                at = at.index(index);
                rest = tail;
            }
        }
        for token in rest {
            at = at.key(token);
        }
        at
    }

    fn read_flag(&mut self, value: &Sexp, at: &Pointer, slot: &str) -> Result<bool> {
        let evaluated = self.constant(value, at)?;
        if evaluated.is_t() {
            Ok(true)
        } else if evaluated.is_nil() {
            Ok(false)
        } else {
            Err(self.fail(
                at.clone(),
                value.span,
                format!(":{slot} must be t or nil, found {}", value.describe()),
            ))
        }
    }

    fn read_category(&mut self, value: &Sexp, at: &Pointer) -> Result<Option<String>> {
        let evaluated = self.constant(value, at)?;
        match evaluated.kind {
            Kind::Str(text) => Ok(Some(text)),
            _ if evaluated.is_nil() => Ok(None),
            _ => Err(self.fail(
                at.clone(),
                value.span,
                format!(":category must be a string, found {}", value.describe()),
            )),
        }
    }

    fn read_confirm(&mut self, value: &Sexp, at: &Pointer) -> Confirm {
        if value.is_t() {
            Confirm::Always(true)
        } else if value.is_nil() {
            Confirm::Always(false)
        } else {
            let mut code = indexmap::IndexMap::new();
            code.insert("elisp".to_string(), self.source_of(value, at));
            Confirm::When(code)
        }
    }

    fn read_include(&mut self, value: &Sexp, at: &Pointer) -> Result<Include> {
        if value.is_t() {
            return Ok(Include::All);
        }
        if value.is_nil() {
            return Ok(Include::None);
        }
        if value.unquoted().and_then(Sexp::symbol) == Some("call") {
            return Ok(Include::Call);
        }
        if value.symbol() == Some("call") && self.quoted {
            return Ok(Include::Call);
        }
        if value.symbol() == Some("call") {
            self.note(
                NoteKind::Normalized {
                    field: "include".into(),
                },
                at.clone(),
                value.span,
                ":include call refers to a variable named call (the value is evaluated); read as 'call",
            );
            return Ok(Include::Call);
        }
        Err(self.fail(
            at.clone(),
            value.span,
            format!(":include must be t, 'call or nil, found {}", value.describe()),
        ))
    }

    fn read_function(&mut self, value: &Sexp, at: &Pointer) -> Option<Run> {
        if value.is_nil() {
            return None;
        }
        if super::write::is_placeholder(value) {
            self.note(
                NoteKind::Placeholder { field: "function".into() },
                at.clone(),
                value.span,
                "the placeholder toolbridge writes for a tool without an Emacs Lisp function; read as no handler",
            );
            return None;
        }
        if self.quoted && sexp::find_unquote(value).is_some() {
            self.note(
                NoteKind::Dropped {
                    keyword: "function".into(),
                },
                at.clone(),
                value.span,
                "the function is built when Emacs evaluates the backquote (it holds , or ,@), so it has no fixed source; read as no handler",
            );
            return None;
        }
        let mut handler = indexmap::IndexMap::new();
        let source = match value.symbol() {
            // In quoted data a symbol is the function's name, `#'name` in code.
            Some(_) if self.quoted && !value.is_t() && value.keyword().is_none() => {
                format!("#'{}", self.source_of(value, at))
            }
            _ => self.source_of(value, at),
        };
        handler.insert("elisp".to_string(), source);
        Some(Run::Action(ActionRun {
            handler: Some(handler),
        }))
    }

    fn read_args(&mut self, value: &Sexp, at: &Pointer) -> Result<Value> {
        let evaluated = self.constant(value, at)?;
        let Some(args) = evaluated.list() else {
            return Err(self.fail(
                at.clone(),
                value.span,
                format!(
                    ":args must be a list of argument plists, found {}",
                    evaluated.describe()
                ),
            ));
        };
        if args.first().is_some_and(|first| first.keyword().is_some()) {
            return Err(self.fail(
                at.clone(),
                value.span,
                ":args holds one plist, not a list of them; write (list '(:name …)) or '((:name …))",
            ));
        }
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (index, arg) in args.iter().enumerate() {
            let arg_at = at.index(index);
            let Some(items) = arg.list() else {
                return Err(self.fail(
                    arg_at,
                    arg.span,
                    format!(
                        "each argument must be a plist (:name … :type …), found {}",
                        arg.describe()
                    ),
                ));
            };
            let what = format!("argument {}", index + 1);
            let pairs = self.plist(items, &arg_at, &what)?;
            let Some(name_pair) = pairs.iter().find(|pair| pair.key == "name") else {
                return Err(self.fail(arg_at.key("name"), arg.span, format!("{what} has no :name")));
            };
            let name = match &name_pair.value.kind {
                Kind::Str(name) => name.clone(),
                _ => match name_pair.value.keyword() {
                    Some(keyword) => keyword.to_string(),
                    None => {
                        return Err(self.fail(
                            arg_at.key("name"),
                            name_pair.value.span,
                            format!(
                                "an argument's :name must be a string, found {}",
                                name_pair.value.describe()
                            ),
                        ))
                    }
                },
            };
            let is_object = pairs.iter().any(|pair| {
                pair.key == "type"
                    && matches!(&pair.value.kind, Kind::Symbol(t) | Kind::Str(t) if t == "object")
            });
            let mut optional = false;
            let mut schema = Map::new();
            for pair in &pairs {
                let key_at = arg_at.key(&pair.key);
                match pair.key.as_str() {
                    "name" => {}
                    "optional" => {
                        optional = !pair.value.is_nil();
                        if optional && !pair.value.is_t() {
                            self.note(
                                NoteKind::Coerced {
                                    from: pair.value.describe().into(),
                                    to: "true".into(),
                                },
                                key_at,
                                pair.value.span,
                                format!(
                                    ":optional is a flag: {} is not nil, so the argument is optional",
                                    pair.value.describe()
                                ),
                            );
                        }
                    }
                    "required" if pair.value.is_t() || (pair.value.is_nil() && !is_object) => {
                        self.note(
                            NoteKind::Dropped { keyword: "required".into() },
                            key_at,
                            pair.value.span,
                            "a per-argument :required flag is an old llm.el marker that llm.el ignores (gptel would send it as is); arguments are required unless :optional t",
                        );
                    }
                    key if matches!(pair.value.kind, Kind::Unquote(_) | Kind::UnquoteSplicing(_)) => {
                        self.note(
                            NoteKind::Dropped { keyword: key.into() },
                            key_at,
                            pair.value.span,
                            format!(
                                "the value of :{key} is computed when Emacs evaluates the backquote ({}); toolbridge does not run Emacs Lisp, so it was left out",
                                self.source(pair.value.span)
                            ),
                        );
                    }
                    key => {
                        let value = self.datum_json(pair.value, &key_at, Place::Key(key))?;
                        if key.ends_with(':') && key.len() > 1 {
                            self.note_typo(key, &key_at, pair.value.span);
                        }
                        schema.insert(key.to_string(), value);
                    }
                }
            }
            if properties.contains_key(&name) {
                return Err(self.fail(
                    arg_at.key("name"),
                    name_pair.value.span,
                    format!("two arguments are named {name:?}"),
                ));
            }
            if !optional {
                required.push(Value::String(name.clone()));
            }
            properties.insert(name, Value::Object(schema));
        }
        let mut schema = Map::new();
        schema.insert("type".into(), Value::String("object".into()));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        Ok(Value::Object(schema))
    }

    fn note_typo(&mut self, key: &str, at: &Pointer, span: Span) {
        let trimmed = key.trim_end_matches(':');
        self.note(
            NoteKind::Kept { key: key.into() },
            at.clone(),
            span,
            format!(
                "the keyword :{key} ends in a colon, so the JSON key is {key:?}; it looks like a typo of {trimmed:?} (kept as written, as gptel sends it)"
            ),
        );
    }

    /// A value as JSON, the way `json-serialize` sends it (with the readings
    /// of `nil` described in the module docs).
    fn datum_json(&mut self, datum: &Sexp, at: &Pointer, place: Place<'_>) -> Result<Value> {
        let fail_json = |this: &Self, what: &str| {
            this.fail(
                at.clone(),
                datum.span,
                format!("{} cannot be sent as JSON{what}", datum.describe()),
            )
        };
        match &datum.kind {
            Kind::Str(text) => {
                self.note_inexact(datum, at);
                Ok(Value::String(text.clone()))
            }
            Kind::Integer(value) => Ok(Value::from(*value)),
            Kind::BigInteger(digits) => Err(self.fail(
                at.clone(),
                datum.span,
                format!("the integer {digits} is beyond 64 bits; json-serialize cannot send it"),
            )),
            Kind::Float(value) => serde_json::Number::from_f64(*value)
                .map(Value::Number)
                .ok_or_else(|| fail_json(self, " (JSON has no infinity or NaN)")),
            Kind::Symbol(name) => Ok(match name.as_str() {
                "t" => Value::Bool(true),
                "nil" => self.nil_value(at, datum.span, place),
                ":json-false" => Value::Bool(false),
                ":false" => {
                    if self.flavor == Flavor::Gptel {
                        self.note(
                            NoteKind::Normalized { field: "false".into() },
                            at.clone(),
                            datum.span,
                            "gptel sends false as :json-false; its json-serialize fails on :false; read as false",
                        );
                    }
                    Value::Bool(false)
                }
                ":null" => Value::Null,
                other => Value::String(other.to_string()),
            }),
            Kind::List(items) if items.is_empty() => Ok(self.nil_value(at, datum.span, place)),
            Kind::Quote(inner) => {
                self.note_inner_quote(inner, at, datum.span);
                self.datum_json(inner, at, place)
            }
            Kind::List(items) => {
                if let Some(inner) = datum.unquoted() {
                    self.note_inner_quote(inner, at, datum.span);
                    return self.datum_json(inner, at, place);
                }
                if items.len() % 2 == 0 && items.iter().step_by(2).all(|key| key.keyword().is_some()) {
                    let parent = match place {
                        Place::Key(key) => Some(key),
                        _ => None,
                    };
                    return self.plist_object(items, at, parent);
                }
                if items.iter().all(|item| matches!(&item.kind, Kind::Dotted(head, _) if head.len() == 1 && head[0].symbol().is_some())) {
                    let mut object = Map::new();
                    for item in items {
                        let Kind::Dotted(head, tail) = &item.kind else { continue };
                        let key = head[0].symbol().unwrap_or_default();
                        let key = key.strip_prefix(':').unwrap_or(key).to_string();
                        if !object.contains_key(&key) {
                            let value = self.datum_json(tail, &at.key(&key), Place::Key(&key))?;
                            object.insert(key, value);
                        }
                    }
                    return Ok(Value::Object(object));
                }
                self.note(
                    NoteKind::Normalized { field: last_token(at).into() },
                    at.clone(),
                    datum.span,
                    "a list where a vector belongs: json-serialize cannot send a list that is not a plist; read as an array (write [ … ])",
                );
                let mut array = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    array.push(self.datum_json(item, &at.index(index), Place::Element)?);
                }
                Ok(Value::Array(array))
            }
            Kind::Vector(items) => {
                let mut array = Vec::with_capacity(items.len());
                for (index, item) in items.iter().enumerate() {
                    array.push(self.datum_json(item, &at.index(index), Place::Element)?);
                }
                Ok(Value::Array(array))
            }
            _ => Err(fail_json(self, "")),
        }
    }

    fn plist_object(&mut self, items: &[Sexp], at: &Pointer, parent: Option<&str>) -> Result<Value> {
        let pairs = self.plist(items, at, "a plist")?;
        let children_are_schemas = parent.is_some_and(|key| SCHEMA_MAPS.contains(&key));
        let mut object = Map::new();
        for pair in pairs {
            let key_at = at.key(&pair.key);
            let place = if children_are_schemas {
                Place::Schema
            } else {
                Place::Key(&pair.key)
            };
            let value = self.datum_json(pair.value, &key_at, place)?;
            if !children_are_schemas && pair.key.ends_with(':') && pair.key.len() > 1 {
                self.note_typo(&pair.key, &key_at, pair.value.span);
            }
            object.insert(pair.key.clone(), value);
        }
        Ok(Value::Object(object))
    }

    fn note_inner_quote(&mut self, inner: &Sexp, at: &Pointer, span: Span) {
        self.note(
            NoteKind::Normalized { field: last_token(at).into() },
            at.clone(),
            span,
            format!(
                "a quote inside quoted data is the list (quote {}), which gptel cannot send (gptel issue #1059); read as {}",
                self.source(inner.span),
                self.source(inner.span)
            ),
        );
    }

    fn nil_value(&mut self, at: &Pointer, span: Span, place: Place<'_>) -> Value {
        match place {
            Place::Schema => Value::Object(Map::new()),
            Place::Key(key) if SCHEMA_MAPS.contains(&key) => Value::Object(Map::new()),
            Place::Key(key) if ARRAY_KEYWORDS.contains(&key) => {
                self.note(
                    NoteKind::Normalized { field: key.into() },
                    at.clone(),
                    span,
                    format!(":{key} nil is an empty list; json-serialize would send it as {{}}; read as []"),
                );
                Value::Array(Vec::new())
            }
            _ => {
                let llm = match self.flavor {
                    Flavor::Llm => " (llm.el sends nil inside :items and :properties as null)",
                    Flavor::Gptel => "",
                };
                self.note(
                    NoteKind::Coerced {
                        from: "nil".into(),
                        to: "object".into(),
                    },
                    at.clone(),
                    span,
                    format!(
                        "nil is the empty plist, which json-serialize sends as {{}}{llm}; read as {{}}; write :null for null or :json-false for false"
                    ),
                );
                Value::Object(Map::new())
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::format::elisp::find::read_as;
    use crate::limits::Limits;
    use crate::note::Converted;
    use crate::options::ReadOptions;
    use serde_json::json;

    /// Reads gptel text that must hold tools (shared with the flavour tests).
    pub(in crate::format::elisp) fn read_tools(text: &str) -> Vec<Result<Converted<Tool>>> {
        read_as(text, &ReadOptions::default(), Flavor::Gptel).unwrap()
    }

    /// The one tool in gptel text, as canonical JSON, with its notes as lines.
    pub(in crate::format::elisp) fn read_one(text: &str) -> (Value, Vec<String>) {
        let mut tools = read_tools(text);
        assert_eq!(tools.len(), 1);
        let converted = tools.remove(0).unwrap_or_else(|err| panic!("{err}"));
        let notes = converted
            .notes
            .iter()
            .map(|note| format!("{} {}: {}", note.level(), note.at, note.message))
            .collect();
        (converted.value.to_value(), notes)
    }

    fn error_of(text: &str) -> String {
        let mut tools = read_tools(text);
        tools.remove(0).unwrap_err().to_string()
    }

    #[test]
    fn reads_the_weather_seed() {
        let text = r#"(gptel-make-tool :function (lambda (location unit) (url-retrieve-synchronously (format "api.weather.com/..." location unit))) :name "get_weather" :description "Get the current weather in a given location" :args (list '(:name "location" :type string :description "The city and state, e.g. San Francisco, CA") '(:name "unit" :type string :enum ["celsius" "farenheit"] :description "The unit of temperature, either 'celsius' or 'fahrenheit'" :optional t)))"#;
        let (tool, notes) = read_one(text);
        assert_eq!(
            tool,
            json!({
                "name": "get_weather",
                "description": "Get the current weather in a given location",
                "inputSchema": {"type": "object", "properties": {
                    "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                    "unit": {"type": "string", "enum": ["celsius", "farenheit"],
                        "description": "The unit of temperature, either 'celsius' or 'fahrenheit'"}
                }, "required": ["location"]},
                "run": {"kind": "action", "handler": {"elisp":
                    "(lambda (location unit) (url-retrieve-synchronously (format \"api.weather.com/...\" location unit)))"}}
            })
        );
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn reader_table() {
        let cases: &[(&str, Value)] = &[
            (
                "(gptel-make-tool :name \"ping\" :function #'ignore :description \"d\" :args nil)",
                json!({"name": "ping", "description": "d", "inputSchema": {"type": "object", "properties": {}},
                    "run": {"kind": "action", "handler": {"elisp": "#'ignore"}}}),
            ),
            (
                "(gptel-make-tool :name \"a\" :args '((:name \"x\" :type integer :minimum 1 :maximum 9.5 :default :null :deprecated :json-false :readOnly t)) :async t :category \"c\" :confirm nil :include 'call)",
                json!({"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "integer",
                    "minimum": 1, "maximum": 9.5, "default": null, "deprecated": false, "readOnly": true}},
                    "required": ["x"]}, "async": true, "confirm": false, "include": "call", "category": "c"}),
            ),
            (
                "(gptel-make-tool :name \"o\" :function 'my-fn :confirm (lambda (p) (string-prefix-p \"/\" p)) :include nil :args `((:name \"opts\" :type object :properties (:a (:type number) :b (:type string :format \"date-time\")) :required [\"a\"] :optional t)))",
                json!({"name": "o", "inputSchema": {"type": "object", "properties": {"opts": {"type": "object",
                    "properties": {"a": {"type": "number"}, "b": {"type": "string", "format": "date-time"}},
                    "required": ["a"]}}}, "confirm": {"elisp": "(lambda (p) (string-prefix-p \"/\" p))"},
                    "include": "none", "run": {"kind": "action", "handler": {"elisp": "'my-fn"}}}),
            ),
            (
                "(gptel-make-tool :name \"v\" :args (list (list :name \"tags\" :type 'array :items '(:type string :enum [\"a\" \"b\"])) '(:name \"u\" :type [\"string\" \"null\"] :anyOf [(:type \"string\") (:type \"null\")])))",
                json!({"name": "v", "inputSchema": {"type": "object", "properties": {
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                    "u": {"type": ["string", "null"], "anyOf": [{"type": "string"}, {"type": "null"}]}},
                    "required": ["tags", "u"]}}),
            ),
            (
                "(gptel-make-tool :name \"w\" :description (concat \"a\" \"b\") :function (lambda (&rest _) (error \"toolbridge: tool %s has no Emacs Lisp function; define one\" \"w\")) :extra-slot (foo 1))",
                json!({"name": "w", "description": "ab", "inputSchema": {"type": "object", "properties": {}},
                    "vendor": {"gptel": {"extra-slot": "(foo 1)"}}}),
            ),
        ];
        for (text, expected) in cases {
            let (tool, _) = read_one(text);
            assert_eq!(&tool, expected, "{text}");
        }
    }

    #[test]
    fn reader_notes_say_what_and_where() {
        let text = "(gptel-make-tool :name \"n\"\n  :args '((:name \"x\" :type 'string :description: \"typo\" :default nil :enum nil\n            :required t :optional :json-false))\n  :descripton \"oops\")";
        let (tool, notes) = read_one(text);
        assert_eq!(
            tool["inputSchema"],
            json!({"type": "object", "properties": {"x": {"type": "string", "description:": "typo", "default": {}, "enum": []}}})
        );
        assert_eq!(
            notes,
            [
                "info /0/args/0/type: a quote inside quoted data is the list (quote string), which gptel cannot send (gptel issue #1059); read as string (line 2, column 28)",
                "info /0/args/0/description:: the keyword :description: ends in a colon, so the JSON key is \"description:\"; it looks like a typo of \"description\" (kept as written, as gptel sends it) (line 2, column 50)",
                "change /0/args/0/default: nil is the empty plist, which json-serialize sends as {}; read as {}; write :null for null or :json-false for false (line 2, column 66)",
                "info /0/args/0/enum: :enum nil is an empty list; json-serialize would send it as {}; read as [] (line 2, column 76)",
                "loss /0/args/0/required: a per-argument :required flag is an old llm.el marker that llm.el ignores (gptel would send it as is); arguments are required unless :optional t (line 3, column 23)",
                "change /0/args/0/optional: :optional is a flag: the keyword :json-false is not nil, so the argument is optional (line 3, column 35)",
                "info /0/descripton: :descripton is not a gptel-make-tool slot (gptel ignores it); kept as source text in vendor.gptel; did you mean :description? (line 4, column 15)",
            ]
        );
    }

    #[test]
    fn tool_errors_have_line_and_column() {
        let cases: &[(&str, &str)] = &[
            ("(gptel-make-tool :name 5)", "invalid tool: :name must be a string, found an integer (at /0/name, line 1, column 24)"),
            ("(gptel-make-tool :description \"x\")", "invalid tool: (gptel-make-tool …) has no :name (at /0/name, line 1, column 1)"),
            ("(gptel-make-tool :name \"a\"\n :args \"x\")", "invalid tool: :args must be a list of argument plists, found a string (at /0/args, line 2, column 8)"),
            ("(gptel-make-tool :name \"a\" :args '((:type string)))", "invalid tool: argument 1 has no :name (at /0/args/0/name, line 1, column 36)"),
            ("(gptel-make-tool :name \"a\" :args my-args)", "invalid tool: my-args is a variable; toolbridge does not evaluate Emacs Lisp, so write the value itself (quote a symbol: 'my-args) (at /0/args, line 1, column 34)"),
            ("(gptel-make-tool :name \"a\" :args '(:name \"x\"))", "invalid tool: :args holds one plist, not a list of them; write (list '(:name …)) or '((:name …)) (at /0/args, line 1, column 34)"),
            ("(gptel-make-tool :name \"a\" :args '((:name \"x\") (:name \"x\")))", "invalid tool: two arguments are named \"x\" (at /0/args/1/name, line 1, column 55)"),
            ("(gptel-make-tool :name \"a\" :async 1)", "invalid tool: :async must be t or nil, found an integer (at /0/async, line 1, column 35)"),
            ("(gptel-make-tool :name \"a\" :include 'all)", "invalid tool: :include must be t, 'call or nil, found a quoted form (at /0/include, line 1, column 37)"),
            ("(gptel-make-tool :name \"a\" :args '((:name \"x\" :type)))", "invalid tool: :type has no value in argument 1 (at /0/args/0/type, line 1, column 47)"),
            ("(gptel-make-tool :name \"a\" \"stray\")", "invalid tool: (gptel-make-tool …) must be a plist of :keyword value pairs; found a string where a keyword belongs (at /0, line 1, column 28)"),
            ("(gptel-make-tool :name \"a\" :args '((:name \"x\" :type 1.0e+INF)))", "invalid tool: a float cannot be sent as JSON (JSON has no infinity or NaN) (at /0/args/0/type, line 1, column 53)"),
            ("(gptel-make-tool :name \"a\" :args '((:name \"x\" :type string :minLength -1)))", "invalid schema: -1 is less than the minimum of 0 (at /0/args/0/minLength, line 1, column 34)"),
        ];
        for (text, message) in cases {
            assert_eq!(error_of(text), *message, "{text}");
        }
    }

    #[test]
    fn one_bad_tool_does_not_fail_the_others() {
        let text = "(setq my-tools (list (gptel-make-tool :name \"a\") (gptel-make-tool :name 5) (gptel-make-tool :name \"c\")))";
        let tools = read_tools(text);
        assert_eq!(tools.len(), 3);
        assert!(tools[0].is_ok() && tools[1].is_err() && tools[2].is_ok());
        let tools = read_as(
            "(gptel-make-tool :name \"a\"",
            &ReadOptions::default(),
            Flavor::Gptel,
        )
        .unwrap();
        assert_eq!(tools.len(), 1);
        assert_eq!(
            tools[0].as_ref().unwrap_err().to_string(),
            "Emacs Lisp syntax error: unterminated list: this ( is never closed; the form at line 1, column 1 holds a tool, which was skipped (line 1, column 1)"
        );
        let err = read_as(";; nothing\n(setq x 1)", &ReadOptions::default(), Flavor::Gptel).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotATool);
    }

    #[test]
    fn crlf_line_ends_are_not_text() {
        // `load' decodes CRLF line ends before reading (checked in Emacs 28,
        // in files with mixed line ends too).
        let text =
            "(gptel-make-tool :name \"a\"\r\n :description \"line one\r\nline two\"\r\n :args nil)\r\n";
        let (tool, notes) = read_one(text);
        assert_eq!(tool["description"], json!("line one\nline two"));
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn tool_plists_passed_to_wrappers_are_tools() {
        let text = "(ellama-tools-define-tool\n '(:function my-read :name \"read\" :args ((:name \"f\" :type string :description \"File.\")) :description \"Read.\" :confirm t :include call :extra (a b)))\n(setq my-tool (list :name \"w\" :function #'my-write :args (list '(:name \"x\" :type string)) :description \"Write.\"))\n(gptel-make-preset 'p :description \"not a tool\" :tools '(\"read\"))\n(my-define `(:name \"b\" :function f :args ((:name \"r\" :type string :enum ,(roles)))))";
        let tools = read_tools(text);
        assert_eq!(tools.len(), 3);
        let third = tools[2].as_ref().unwrap();
        assert_eq!(
            third.value.input_schema,
            json!({"type": "object", "properties": {"r": {"type": "string"}}, "required": ["r"]})
        );
        assert_eq!(
            third.notes[1].message,
            "the value of :enum is computed when Emacs evaluates the backquote (,(roles)); toolbridge does not run Emacs Lisp, so it was left out (line 5, column 73)"
        );
        let first = tools[0].as_ref().unwrap();
        assert_eq!(
            first.value.to_value(),
            json!({"name": "read", "description": "Read.",
                "inputSchema": {"type": "object", "properties": {"f": {"type": "string", "description": "File."}}, "required": ["f"]},
                "confirm": true, "include": "call",
                "run": {"kind": "action", "handler": {"elisp": "#'my-read"}},
                "vendor": {"gptel": {"extra": "'(a b)"}}})
        );
        assert_eq!(
            first.notes[0].message,
            "read the tool plist passed to (ellama-tools-define-tool …) as a tool: it has :name, :function and :args or :description, the plist gptel-make-tool takes (line 2, column 2)"
        );
        let second = tools[1].as_ref().unwrap();
        assert_eq!(
            second.value.to_value(),
            json!({"name": "w", "description": "Write.",
                "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
                "run": {"kind": "action", "handler": {"elisp": "#'my-write"}}})
        );
    }

    #[test]
    fn symbol_shorthands_are_expanded_as_emacs_reads_them() {
        let text = "(gptel-make-tool :name \"c\" :function #'tools/calc :confirm (lambda (x) (tools/ok-p x)))\n\n;; Local Variables:\n;; read-symbol-shorthands: ((\"t/\" . \"short-\") (\"tools/\" . \"my-tools-\"))\n;; End:\n";
        let (tool, notes) = read_one(text);
        assert_eq!(tool["run"]["handler"]["elisp"], json!("#'my-tools-calc"));
        assert_eq!(tool["confirm"]["elisp"], json!("(lambda (x) (my-tools-ok-p x))"));
        assert_eq!(
            notes,
            [
                "info /0/function: read tools/calc as my-tools-calc, as Emacs does under the file's read-symbol-shorthands (line 1, column 40)",
                "info /0/confirm: read tools/ok-p as my-tools-ok-p, as Emacs does under the file's read-symbol-shorthands (line 1, column 73)",
            ]
        );
    }

    #[test]
    fn inexact_strings_are_noted() {
        let (tool, notes) = read_one("(gptel-make-tool :name \"a\" :description \"caf\\303\\251 \\xff\")");
        assert_eq!(tool["description"], json!("café \u{fffd}"));
        assert_eq!(
            notes,
            ["change /0/description: the string is not exact Unicode text: its raw bytes are not UTF-8 (json-serialize refuses such a string); each bad byte read as U+FFFD (line 1, column 41)"]
        );
    }

    #[test]
    fn unreadable_forms_cost_only_themselves() {
        let text = ";; tools\n(gptel-make-tool :name \"a\")\n(defun broken () \"x)\n(gptel-make-tool :name \"b\" :description #<marker>)\n(gptel-make-tool :name \"c\")\n";
        let tools = read_tools(text);
        let summary: Vec<String> = tools
            .iter()
            .map(|tool| match tool {
                Ok(converted) => format!(
                    "{} {:?}",
                    converted.value.name,
                    converted
                        .notes
                        .iter()
                        .map(|note| note.message.clone())
                        .collect::<Vec<_>>()
                ),
                Err(err) => err.to_string(),
            })
            .collect();
        assert_eq!(
            summary,
            [
                "a [\"skipped the form at line 3, column 1: it does not read (Emacs Lisp syntax error: unterminated string: this \\\" is never closed (line 5, column 26)) and holds no tool\"]",
                "Emacs Lisp syntax error: #< is not Emacs Lisp syntax toolbridge reads; the form at line 4, column 1 holds a tool, which was skipped (line 4, column 41)",
                "c []",
            ]
        );
        let err = read_as(
            ";; no tools here\r\n(setq x \"(gptel-make-tool\")\n",
            &ReadOptions::default(),
            Flavor::Gptel,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a tool definition: the Emacs Lisp holds no tool: no (gptel-make-tool …) or (llm-make-tool …) form, and no tool plist (:name … :function … :args …) passed to another call"
        );
    }

    #[test]
    fn limits_are_enforced() {
        let opts = ReadOptions::default().with_limits(Limits::default().with_max_tools(1));
        let err = read_as(
            "(gptel-make-tool :name \"a\") (gptel-make-tool :name \"b\")",
            &opts,
            Flavor::Gptel,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit exceeded: the file holds 2 tools; the limit is 1"
        );
        let deep = format!(
            "(gptel-make-tool :name \"a\" :args '((:name \"x\" :default {}{})))",
            "(:a ".repeat(200),
            ")".repeat(200)
        );
        let tools = read_as(&deep, &ReadOptions::default(), Flavor::Gptel).unwrap();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].as_ref().unwrap_err().kind(), ErrorKind::LimitExceeded);
    }
}
