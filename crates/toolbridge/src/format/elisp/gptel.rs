//! `gptel`: Emacs Lisp `(gptel-make-tool …)` forms (gptel 0.9.9).
//!
//! A file holds any number of tool forms, at the top level or inside other
//! forms (`setq`, `defvar`, `list`, `add-to-list`, `push`, `use-package`, …);
//! they are read in order. The plist maps to the canonical tool like this:
//!
//! | gptel | canonical |
//! | --- | --- |
//! | `:name` | `name` |
//! | `:description` | `description` |
//! | `:function` (`#'fn`, `'fn`, a lambda, …) | `run: {"kind": "action", "handler": {"elisp": "<source text>"}}` |
//! | `:args` (a list of argument plists) | `inputSchema` `{"type": "object", "properties": {…}, "required": […]}` |
//! | `:async` | `async` |
//! | `:category` | `category` |
//! | `:confirm` `t` / `nil` / a predicate | `confirm` `true` / `false` / `{"elisp": "<source>"}` |
//! | `:include` `t` / `'call` / `nil` | `include` `"all"` / `"call"` / `"none"` |
//! | any other keyword | `vendor.gptel.<keyword>` as source text |
//!
//! Each argument plist becomes one property: `:name` is the key, `:optional t`
//! leaves the name out of `required`, every other keyword is a schema keyword
//! under its own spelling (so the seed's typo `:description:` stays the key
//! `"description:"`, with a note). Values: strings, numbers, `t` → `true`,
//! `:json-false` / `:false` → `false`, `:null` → `null`, vectors → arrays,
//! plists → objects, symbols (`:type string`) → strings.
//!
//! `nil` has no single JSON meaning; it is read by place: `:args nil` is no
//! arguments (`{"type": "object", "properties": {}}`), `:optional` / `:async`
//! / `:confirm nil` are false, `:include nil` is `"none"`, `:properties nil`
//! and a property's schema `nil` are `{}`; `nil` as the value of a keyword
//! that takes an array (`:required`, `:enum`, `:anyOf`, …) is `[]` (noted);
//! anywhere else it is `{}`, which is what gptel's `json-serialize` sends
//! (noted, since `:null` or `:json-false` was probably meant).
//!
//! Writing produces the same forms: arguments as `(list '(:name … :type …) …)`,
//! JSON `true`/`false`/`null` as `t`/`:json-false`/`:null`, objects as plists,
//! arrays as vectors (objects inside vectors carry their `:type` as strings,
//! which every gptel version and llm.el serialise). A tool with no Emacs Lisp
//! handler gets `(lambda (&rest _) (error "toolbridge: tool %s has no Emacs Lisp
//! function; define one" "NAME"))`, which needs no other definition and which
//! the reader recognises and reads back as "no handler".
//!
//! What gptel does to the JSON it sends (gptel--parse-tools, documented in
//! `reference/seeds.md` §1.3, so not noted per tool): it always sends
//! `required` (`[]` when every argument is optional), gives object-typed
//! arguments `required: []` when they have none; for OpenAI, Ollama and
//! Bedrock it adds `additionalProperties: false` to the root and to
//! object-typed arguments and sends a no-argument tool as `{"type": "object",
//! "properties": {}}`; for Anthropic a no-argument tool is `{"type": "object",
//! "properties": {}, "required": []}`; for Gemini it removes
//! `additionalProperties` everywhere, removes `format` from top-level string
//! arguments, and sends a no-argument tool with `parameters: null`.

use serde_json::{json, Map, Value};

use crate::codec::TextCodec;
use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::{check_schema_value, note_uncarried};
use crate::note::{Converted, NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{inferred_type, lower, Dialect};
use crate::suggest::closest;
use crate::tool::{ActionRun, Confirm, Include, Run, Tool};

use super::sexp::{self, eval_constant, keyword_text, string_literal, symbol_text, Doc, Kind, Sexp, Span};

pub(crate) const CODEC: TextCodec = TextCodec {
    detect,
    read,
    write,
    join,
};

/// The package a tool form is written for: gptel and llm.el take the same
/// plist, with a few differences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `gptel-make-tool`.
    Gptel,
    /// `llm-make-tool`.
    Llm,
}

impl Flavor {
    pub(crate) fn format(self) -> Format {
        match self {
            Flavor::Gptel => Format::Gptel,
            Flavor::Llm => Format::Llm,
        }
    }

    pub(crate) fn head(self) -> &'static str {
        match self {
            Flavor::Gptel => "gptel-make-tool",
            Flavor::Llm => "llm-make-tool",
        }
    }

    fn package(self) -> &'static str {
        match self {
            Flavor::Gptel => "gptel",
            Flavor::Llm => "llm.el",
        }
    }

    /// The keyword JSON `false` is written as: gptel encodes with
    /// `:false-object :json-false`; llm.el with `json-serialize`'s default `:false`.
    fn false_keyword(self) -> &'static str {
        match self {
            Flavor::Gptel => ":json-false",
            Flavor::Llm => ":false",
        }
    }

    fn of_head(head: &str) -> Option<Flavor> {
        match head {
            "gptel-make-tool" => Some(Flavor::Gptel),
            "llm-make-tool" => Some(Flavor::Llm),
            _ => None,
        }
    }
}

/// The tool slots both constructors know, in the order they are written.
const SLOTS: [&str; 8] = [
    "name",
    "description",
    "function",
    "args",
    "async",
    "category",
    "confirm",
    "include",
];

/// Slots only gptel has; llm.el accepts and ignores them.
const GPTEL_ONLY: [&str; 3] = ["category", "confirm", "include"];

/// The error format of the placeholder function written for a tool without
/// an Emacs Lisp handler.
const PLACEHOLDER_MESSAGE: &str = "toolbridge: tool %s has no Emacs Lisp function; define one";

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

fn detect(text: &str) -> bool {
    first_head(text) == Some(Flavor::Gptel)
}

fn read(text: &str, opts: &ReadOptions) -> Result<Vec<Result<Converted<Tool>>>> {
    read_as(text, opts, Flavor::Gptel)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<String> {
    write_as(tool, opts, notes, Flavor::Gptel)
}

/// Joins written forms into one file, a blank line between forms.
pub(crate) fn join(forms: Vec<String>) -> String {
    if forms.is_empty() {
        return String::new();
    }
    let mut out =
        String::from(";;; -*- lexical-binding: t -*-\n;; Tool definitions written by toolbridge.\n\n");
    out.push_str(&forms.join("\n"));
    out
}

/// The constructor of the first tool form in `text`, found by a light scan
/// that skips comments, strings and character literals and never fails, so
/// that a file with a syntax error is still recognised (and the reader then
/// reports the error with its position).
pub(crate) fn first_head(text: &str) -> Option<Flavor> {
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            ';' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '"' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '?' => {
                if let Some((_, '\\')) = chars.next() {
                    chars.next();
                }
            }
            '(' => {
                let rest = text[at + 1..].trim_start();
                for flavor in [Flavor::Gptel, Flavor::Llm] {
                    if let Some(after) = rest.strip_prefix(flavor.head()) {
                        if after
                            .chars()
                            .next()
                            .is_none_or(|c| c.is_whitespace() || "()[]\";'`,".contains(c))
                        {
                            return Some(flavor);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    None
}

// ---------------------------------------------------------------------------
// Reading

/// Reads every `(gptel-make-tool …)` and `(llm-make-tool …)` form in `text`
/// (both constructors take the same plist; `flavor` decides how slots only
/// one of them has are treated and where unknown keys are kept).
pub(crate) fn read_as(
    text: &str,
    opts: &ReadOptions,
    flavor: Flavor,
) -> Result<Vec<Result<Converted<Tool>>>> {
    let forms = sexp::read_all(text, opts.limits.max_depth)?;
    let mut found = Vec::new();
    for form in &forms {
        collect_tool_forms(form, &mut found);
    }
    if found.is_empty() {
        return Err(Error::new(
            ErrorKind::NotATool,
            format!(
                "found no ({} …) form (nor its {} twin) in the Emacs Lisp",
                flavor.head(),
                match flavor {
                    Flavor::Gptel => Flavor::Llm.head(),
                    Flavor::Llm => Flavor::Gptel.head(),
                }
            ),
        ));
    }
    if found.len() > opts.limits.max_tools {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the file holds {} tools; the limit is {}",
                found.len(),
                opts.limits.max_tools
            ),
        ));
    }
    Ok(found
        .into_iter()
        .enumerate()
        .map(|(index, (head, form))| {
            let mut reader = ToolReader {
                text,
                flavor,
                notes: Notes::new(),
            };
            reader
                .read_tool(form, head, Pointer::root().index(index))
                .map(|tool| Converted {
                    value: tool,
                    notes: reader.notes.into_vec(),
                })
        })
        .collect())
}

fn collect_tool_forms<'s>(form: &'s Sexp, found: &mut Vec<(Flavor, &'s Sexp)>) {
    if let Kind::List(items) = &form.kind {
        if let Some(flavor) = items.first().and_then(Sexp::symbol).and_then(Flavor::of_head) {
            found.push((flavor, form));
            return;
        }
    }
    for child in form.children() {
        collect_tool_forms(child, found);
    }
}

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

struct ToolReader<'t> {
    text: &'t str,
    flavor: Flavor,
    notes: Notes,
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
                    NoteKind::Dropped {
                        keyword: key.to_string(),
                    },
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
        eval_constant(value).map_err(|refused| self.fail(at.clone(), refused.span, refused.detail))
    }

    fn read_tool(&mut self, form: &Sexp, head: Flavor, base: Pointer) -> Result<Tool> {
        let Kind::List(items) = &form.kind else {
            unreachable!("tool forms are lists");
        };
        if head != self.flavor {
            self.note(
                NoteKind::Normalized { field: "form".into() },
                base.clone(),
                form.span,
                format!(
                    "read a ({} …) form as {}; both take the same plist",
                    head.head(),
                    self.flavor.format().id()
                ),
            );
        }
        let what = format!("({} …)", head.head());
        let pairs = self.plist(&items[1..], &base, &what)?;
        let slot = |name: &str| pairs.iter().find(|pair| pair.key == name).map(|pair| pair.value);

        let Some(name_form) = slot("name") else {
            return Err(self.fail(base.key("name"), form.span, format!("{what} has no :name")));
        };
        let name = match self.constant(name_form, &base.key("name"))?.kind {
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
            let span = slot("args").map_or(form.span, |args| args.span);
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
                    "confirm" => tool.confirm = Some(self.read_confirm(value)),
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
                    key: pair.key.clone(),
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
            vendor.insert(
                pair.key.clone(),
                Value::String(self.source(pair.value.span).to_string()),
            );
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

    fn read_confirm(&mut self, value: &Sexp) -> Confirm {
        if value.is_t() {
            Confirm::Always(true)
        } else if value.is_nil() {
            Confirm::Always(false)
        } else {
            let mut code = indexmap::IndexMap::new();
            code.insert("elisp".to_string(), self.source(value.span).to_string());
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
        if is_placeholder(value) {
            self.note(
                NoteKind::Placeholder { field: "function".into() },
                at.clone(),
                value.span,
                "the placeholder toolbridge writes for a tool without an Emacs Lisp function; read as no handler",
            );
            return None;
        }
        let mut handler = indexmap::IndexMap::new();
        handler.insert("elisp".to_string(), self.source(value.span).to_string());
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
                                    from: pair.value.describe(),
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
            Kind::Str(text) => Ok(Value::String(text.clone())),
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
                    NoteKind::Normalized { field: last_token(at) },
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
            NoteKind::Normalized { field: last_token(at) },
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

fn last_token(at: &Pointer) -> String {
    at.tokens().last().unwrap_or_default()
}

/// True for the placeholder function [`write_as`] writes for a tool without
/// an Emacs Lisp handler.
fn is_placeholder(form: &Sexp) -> bool {
    let Some([params, body]) = form.call_of("lambda") else {
        return false;
    };
    let params_ok = matches!(params.list(), Some([rest, ignored])
        if rest.symbol() == Some("&rest") && ignored.symbol() == Some("_"));
    let body_ok = matches!(body.call_of("error"), Some([message, name])
        if message.kind == Kind::Str(PLACEHOLDER_MESSAGE.into()) && matches!(name.kind, Kind::Str(_)));
    params_ok && body_ok
}

// ---------------------------------------------------------------------------
// Writing

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
                    NoteKind::Dropped { keyword: key.clone() },
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
                        keyword: language.clone(),
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
                            keyword: last_token(at),
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
                    NoteKind::Dropped { keyword: key.clone() },
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
                Value::Bool(true) => notes.push(
                    NoteKind::Rewritten { keyword: name.clone() },
                    prop_at.clone(),
                    "the schema true (any value) is written as an argument without :type, which reads back as {}",
                ),
                Value::Bool(false) => {
                    notes.push(
                        NoteKind::Dropped { keyword: name.clone() },
                        prop_at,
                        "the schema false (no value allowed) has no argument plist; the property was left out",
                    );
                    continue;
                }
                Value::Object(object) => {
                    if !object.contains_key("type") {
                        if let Some(inferred) = inferred_type(object) {
                            notes.push(
                                NoteKind::Rewritten { keyword: "type".into() },
                                prop_at.key("type"),
                                format!("{package} needs a :type on every argument; \"type\": {inferred:?} was added, as the argument's values and keywords point at it"),
                            );
                            pairs.push((":type".into(), Doc::Atom(inferred.into())));
                        }
                    }
                    for (key, value) in object {
                        if key == "name" || key == "optional" {
                            notes.push(
                                NoteKind::Dropped { keyword: key.clone() },
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
                            keyword: last_token(at),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use crate::options::Format;
    use serde_json::json;

    fn read_tools(text: &str) -> Vec<Result<Converted<Tool>>> {
        read_as(text, &ReadOptions::default(), Flavor::Gptel).unwrap()
    }

    fn read_one(text: &str) -> (Value, Vec<String>) {
        let mut tools = read_tools(text);
        assert_eq!(tools.len(), 1);
        let converted = tools.remove(0).unwrap_or_else(|err| panic!("{err}"));
        let notes = converted
            .notes
            .iter()
            .map(|note| format!("{} {}: {}", note.level, note.at, note.message))
            .collect();
        (converted.value.to_value(), notes)
    }

    fn error_of(text: &str) -> String {
        let mut tools = read_tools(text);
        tools.remove(0).unwrap_err().to_string()
    }

    fn write_one(tool: &Value, flavor: Flavor) -> (String, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool.clone()).unwrap();
        let mut notes = Notes::new();
        let text = write_as(&tool, &WriteOptions::default(), &mut notes, flavor).unwrap();
        let notes = notes
            .iter()
            .map(|note| format!("{} {}: {}", note.level, note.at, note.message))
            .collect();
        (text, notes)
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
        let err = read_as(
            "(gptel-make-tool :name \"a\"",
            &ReadOptions::default(),
            Flavor::Gptel,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Emacs Lisp syntax error: unterminated list: this ( is never closed (line 1, column 1)"
        );
        let err = read_as(";; nothing\n(setq x 1)", &ReadOptions::default(), Flavor::Gptel).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotATool);
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
        let err = read_as(&deep, &ReadOptions::default(), Flavor::Gptel).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    }

    #[test]
    fn detection_skips_comments_and_strings() {
        assert_eq!(
            first_head("; (llm-make-tool\n\"(llm-make-tool\" ?\\( (gptel-make-tool :name"),
            Some(Flavor::Gptel)
        );
        assert_eq!(
            first_head("(setq x (llm-make-tool\n :name \"a\"))"),
            Some(Flavor::Llm)
        );
        assert_eq!(first_head("(gptel-make-tools)"), None);
        assert_eq!(first_head("(gptel-make-tool"), Some(Flavor::Gptel));
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
               :minimum 1
               :default :null
               :deprecated :json-false
               :x-ok t
               :big 1.5e300)
             '(:name "u"
               :anyOf [(:type "string" :format "date-time") (:type "null")]
               :optional t)
             '(:name "o"
               :type object
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
        assert!(notes.is_empty(), "{notes:?}");
        let (text, notes) = write_one(&tool, Flavor::Llm);
        assert!(text.starts_with("(llm-make-tool\n"), "{text}");
        assert!(text.contains(":deprecated :false"), "{text}");
        assert!(!text.contains(":category") && !text.contains(":extra"), "{text}");
        assert_eq!(
            notes,
            [
                "loss /vendor/gptel: fields kept for gptel have no place in llm",
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
                text.contains("'(:name \"state\" :type string :enum [\"open\" \"closed\"])"),
                "{text}"
            );
            assert!(
                text.contains(
                    "'(:name \"when\" :type object :properties (:from (:type string)) :optional t)"
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
            "(gptel-make-tool\n :name \"n\"\n :description \"\"\n :function (lambda (&rest _) (error \"toolbridge: tool %s has no Emacs Lisp function; define one\" \"n\"))\n :args (list '(:name \"b\" :type string) '(:name \"a\")))\n"
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
                "loss /inputSchema/properties/b/name: an argument plist uses :name itself (gptel strips it before sending), so the schema keyword \"name\" has no place",
                "change /inputSchema/properties/a: the schema true (any value) is written as an argument without :type, which reads back as {}",
                "loss /inputSchema/properties/z: the schema false (no value allowed) has no argument plist; the property was left out",
            ]
        );
    }

    #[test]
    fn round_trip_keeps_what_gptel_can_express() {
        let tools = [
            json!({"name": "get_weather", "description": "Weather.",
                "inputSchema": {"type": "object", "properties": {
                    "city": {"type": "string", "description": "City, \"quoted\" \\ and\nnewline é →", "minLength": 2},
                    "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
                    "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
                    "opts": {"type": "object", "properties": {"deep": {"type": "array", "items": {"type": "object",
                        "properties": {"x": {"type": "boolean", "const": false}}, "required": ["x"]}}},
                        "required": [], "additionalProperties": false},
                    "my key": {"type": ["integer", "null"], "examples": [1, 2.5, null, true, {"a": "b"}]}
                }, "required": ["city", "opts"]},
                "async": true, "confirm": {"elisp": "(lambda (city &rest _) (string= city \"Paris\"))"},
                "include": "call", "category": "weather",
                "run": {"kind": "action", "handler": {"elisp": "#'my-weather"}},
                "vendor": {"gptel": {"extra": "'(1 2)"}}}),
            json!({"name": "ping", "description": "", "inputSchema": {"type": "object", "properties": {}},
                "async": false, "confirm": true, "include": "none"}),
        ];
        for original in tools {
            let (text, write_notes) = write_one(&original, Flavor::Gptel);
            let placeholder_only = write_notes.iter().all(|note| note.contains("placeholder"));
            assert!(placeholder_only, "{write_notes:?}");
            let (back, _) = read_one(&text);
            assert_eq!(back, original, "{text}");
        }
    }

    #[test]
    fn llm_argument_types_are_always_symbols_where_they_can_be() {
        let tool = json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "my type"}, "b": {"type": "1"}, "c": {"type": "nil"},
            "d": {"type": "array", "items": {"type": "my type"}}
        }, "required": ["a", "b", "c", "d"]},
            "run": {"kind": "action", "handler": {"elisp": "#'ignore"}}});
        let (text, _) = write_one(&tool, Flavor::Llm);
        assert!(text.contains("'(:name \"a\" :type my\\ type)"), "{text}");
        assert!(text.contains("'(:name \"b\" :type \\1)"), "{text}");
        assert!(text.contains("'(:name \"c\" :type \"nil\")"), "{text}");
        assert!(text.contains(":items (:type \"my type\")"), "{text}");
        let (gptel, _) = write_one(&tool, Flavor::Gptel);
        assert!(gptel.contains("'(:name \"a\" :type \"my type\")"), "{gptel}");
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
