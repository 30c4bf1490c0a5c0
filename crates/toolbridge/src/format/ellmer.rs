//! `ellmer`: R tool definitions for the ellmer package (alias `r`, files `.R`).
//!
//! Written in ellmer's current (≥ 0.3.0) API:
//!
//! ```r
//! tool_rnorm <- tool(
//!   rnorm,
//!   "Draw numbers from a random normal distribution",
//!   arguments = list(
//!     n = type_integer("The number of observations."),
//!     sd = type_number("The standard deviation.", required = FALSE)
//!   ),
//!   name = "rnorm",
//!   annotations = tool_annotations(
//!     title = "Draw Random Normal Numbers",
//!     read_only_hint = TRUE
//!   )
//! )
//! ```
//!
//! Read: every `tool()` call in the file (top level, assigned, or inside
//! `list()`), in the current form or the deprecated pre-0.3.0 form
//! (`.description`, `.name`, `.annotations`, argument types in `...`).
//!
//! Mapping decisions:
//!
//! - **Schemas.** `type_boolean/integer/number/string()` hold exactly
//!   `{type, description}`; `type_enum()` a string enum; `type_array()` an
//!   array with `items`; `type_object()` `{type, description, properties,
//!   required}` with optional children marked `required = FALSE`. A sub-schema
//!   with *any* other keyword (`minimum`, `format`, `default`, `anyOf`, `$ref`,
//!   `title`, a type list, a non-string enum, …) is written whole as
//!   `type_from_schema(text = '<json>')`, the smallest enclosing sub-schema
//!   only, with a note: exactness over readability. `type_from_schema()` has
//!   no `required` flag, so ellmer treats it as required: an *optional*
//!   property that needs it sends its parent object to `type_from_schema()`
//!   too (exact); at the top level, where the parent is the tool itself, the
//!   argument becomes required with a note.
//! - **`additionalProperties`.** ellmer sends `additionalProperties: false`
//!   for every `type_object()` and the tool's arguments to every provider but
//!   Gemini; the R code does not say it. Reading never invents it; writing an
//!   object without it notes once per tool that ellmer will forbid extra keys,
//!   and writing `additionalProperties: false` notes that it is implied and
//!   does not come back. An object without properties that does not forbid
//!   extra keys (a free-form object) goes to `type_from_schema()`, since
//!   `type_object()` would forbid every key. `.additional_properties = TRUE/FALSE`
//!   is read as the keyword (never written: it is deprecated).
//! - **Descriptions.** A missing description is read as absent, never as the
//!   `""` ellmer sends.
//! - **`$defs`.** ellmer builds the arguments object itself, so root `$defs`
//!   cannot stay at the root: the definitions an argument uses are embedded in
//!   its `type_from_schema()` JSON with its `$ref`s rewritten to point there
//!   (`#/properties/x/$defs/node`), and reading moves them back.
//! - **Argument order of `type_enum()`/`type_array()`.** Named arguments are
//!   matched as R does. Positional ones follow ellmer ≥ 0.3.0 (`values`/`items`
//!   first) unless the first is a string or `NULL` — for `type_array()` always
//!   then, for `type_enum()` when a second, non-string value follows — which
//!   is 0.2's description-first order (read with a note).
//! - **`fun`.** Kept verbatim as `run.handler.r` (a name, `pkg::fun`, a
//!   function literal, any expression). Without one, a placeholder function
//!   with the arguments as formals (optional ones `= NULL`) that stops with a
//!   message is written, and read back as "no handler".
//! - **Names.** `name = "…"` is always written. When reading without one,
//!   the tool is named as ellmer does after a bare function name, else after
//!   the variable it is assigned to, else `tool_001`, … (noted).
//! - **Annotations.** MCP's camelCase hints map to `tool_annotations()`'s
//!   snake_case; unset hints stay unset (MCP's defaults only with
//!   [`WriteOptions::annotation_defaults`]). ellmer has no tool title: `title`
//!   is written as `tool_annotations(title = …)` when the annotations have
//!   none (noted), and noted as lost when they have a different one.
//! - **ellmer-only settings** travel in `vendor.ellmer`: `convert` (when
//!   `FALSE`) and `ignore` (the `type_ignore()` arguments, hidden from the
//!   model but needed to match the function's formals).

use serde_json::{json, Map, Number, Value};

use crate::check::validate::{check_schema, describe};
use crate::error::{Error, ErrorKind, Result};
use crate::format::r::{self, Arg, Expr, ExprKind, Pos, RExpr, Source, Tok};
use crate::format::shared::{check_json_depth, check_schema_value, note_uncarried};
use crate::format::toolbridge::with_annotation_defaults;
use crate::format::{Format, ReadOptions, TextCodec, WriteOptions};
use crate::limits::Limits;
use crate::note::{Converted, NoteKind, Notes};
use crate::pointer::Pointer;
use crate::schema::names::NameRule;
use crate::tool::{ActionRun, Annotations, Run, Tool, HINTS};

pub(crate) const CODEC: TextCodec = TextCodec {
    detect,
    read,
    write,
    join,
};

/// ellmer's tool-name rule: `^[a-zA-Z0-9_-]+$`, with no length limit.
pub(crate) const NAME_RULE: NameRule = NameRule {
    max_len: usize::MAX,
    extra_chars: "_-",
    letter_first: false,
};

const ID: &str = "ellmer";

const TOOL_FORMALS: [&str; 11] = [
    "fun",
    "description",
    "...",
    "arguments",
    "name",
    "convert",
    "annotations",
    ".name",
    ".description",
    ".convert",
    ".annotations",
];
const ANNOTATION_FORMALS: [&str; 6] = [
    "title",
    "read_only_hint",
    "open_world_hint",
    "idempotent_hint",
    "destructive_hint",
    "...",
];
const BASIC_FORMALS: [&str; 2] = ["description", "required"];
const OBJECT_FORMALS: [&str; 4] = [".description", "...", ".required", ".additional_properties"];

const PLACEHOLDER_START: &str = "toolbridge: tool '";
const PLACEHOLDER_END: &str = "' has no R function; define one";

/// True if `text` holds a `tool(` call (at a word boundary).
fn detect(text: &str) -> bool {
    text.match_indices("tool(").any(|(at, _)| {
        let before = &text[..at];
        let boundary = |prefix: &str| {
            !prefix
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ':' | '$' | '@'))
        };
        match before.strip_suffix("ellmer::") {
            Some(rest) => boundary(rest),
            None => boundary(before),
        }
    })
}

fn join(tools: Vec<String>) -> String {
    if tools.is_empty() {
        return String::new();
    }
    format!("library(ellmer)\n\n{}", tools.join("\n"))
}

/// A `tool(` call found in the source.
struct ToolCall {
    /// The `(` token.
    open: usize,
    at: Pos,
    /// The variable (or list element) the tool is assigned to.
    variable: Option<String>,
}

fn read(text: &str, opts: &ReadOptions) -> Result<Vec<Result<Converted<Tool>>>> {
    let source = Source::new(text, opts.limits.max_depth)?;
    let calls = find_tool_calls(&source);
    if calls.is_empty() {
        return Err(Error::new(
            ErrorKind::NotATool,
            "found no ellmer tool() call (such as `tool(fun, \"description\", arguments = list(…))`)",
        ));
    }
    if calls.len() > opts.limits.max_tools {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the document holds {} tools; the limit is {}",
                calls.len(),
                opts.limits.max_tools
            ),
        ));
    }
    let mut unnamed = 0;
    Ok(calls
        .iter()
        .map(|call| {
            let mut notes = Notes::new();
            let mut reader = Reader {
                source: &source,
                notes: &mut notes,
                limits: &opts.limits,
                from_schema: Vec::new(),
                unnamed: &mut unnamed,
            };
            reader.tool(call).map(|tool| Converted {
                value: tool,
                notes: notes.into_vec(),
            })
        })
        .collect())
}

/// Every `tool(` / `ellmer::tool(` call that is not inside another one.
fn find_tool_calls(source: &Source<'_>) -> Vec<ToolCall> {
    let tokens = &source.tokens;
    let mut calls = Vec::new();
    let mut index = 0;
    while index + 1 < tokens.len() {
        let is_tool = matches!(&tokens[index].tok, Tok::Symbol { name, .. } if name == "tool")
            && tokens[index + 1].tok == Tok::Open('(');
        if !is_tool {
            index += 1;
            continue;
        }
        let mut start = index;
        if index > 0 {
            match &tokens[index - 1].tok {
                Tok::Op(op) if op == "$" || op == "@" => {
                    index += 1;
                    continue;
                }
                Tok::Op(op) if op == "::" || op == ":::" => {
                    if index >= 2 && tokens[index - 2].tok.is_word("ellmer") {
                        start = index - 2;
                    } else {
                        index += 1;
                        continue;
                    }
                }
                _ => {}
            }
        }
        let open = index + 1;
        let close = source.partner(open);
        calls.push(ToolCall {
            open,
            at: tokens[start].at,
            variable: assigned_name(source, start, close),
        });
        index = close + 1;
    }
    calls
}

/// The name a call is assigned to: `x <- call`, `x = call` (also a list
/// element's name), or `call -> x`.
fn assigned_name(source: &Source<'_>, start: usize, close: usize) -> Option<String> {
    let tokens = &source.tokens;
    let mut before = start;
    while before > 0 && tokens[before - 1].tok == Tok::Newline {
        before -= 1;
    }
    if before >= 2 {
        let arrow = &tokens[before - 1].tok;
        if arrow.is_op("<-") || arrow.is_op("<<-") || arrow.is_op("=") {
            if let Tok::Symbol { name, .. } | Tok::Str(name) = &tokens[before - 2].tok {
                return Some(name.clone());
            }
        }
    }
    match (tokens.get(close + 1), tokens.get(close + 2)) {
        (Some(arrow), Some(target)) if arrow.tok.is_op("->") || arrow.tok.is_op("->>") => match &target.tok {
            Tok::Symbol { name, .. } => Some(name.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The argument bound to `current` or to its deprecated dotted spelling.
fn pick<'m>(
    matched: &r::Matched<'m>,
    current: &str,
    deprecated: &mut Vec<String>,
) -> Result<Option<&'m Arg>> {
    let dotted = format!(".{current}");
    match (
        matched.get(&TOOL_FORMALS, current),
        matched.get(&TOOL_FORMALS, &dotted),
    ) {
        (Some(_), Some(old)) => Err(old.at.error(
            ErrorKind::InvalidTool,
            format!("tool() got both `{current}` and the deprecated `{dotted}`"),
        )),
        (Some(arg), None) => Ok(Some(arg)),
        (None, Some(arg)) => {
            deprecated.push(dotted);
            Ok(Some(arg))
        }
        (None, None) => Ok(None),
    }
}

/// What one argument type read to.
enum ArgType {
    Schema {
        schema: Value,
        required: bool,
    },
    /// `type_ignore()`: not part of the schema.
    Ignored,
}

struct Reader<'s, 'a> {
    source: &'s Source<'a>,
    notes: &'s mut Notes,
    limits: &'s Limits,
    /// Places (relative to the input schema) of `type_from_schema()` values.
    from_schema: Vec<Pointer>,
    /// How many tools so far were named `tool_NNN`.
    unnamed: &'s mut usize,
}

impl Reader<'_, '_> {
    fn invalid(&self, at: Pos, detail: impl Into<String>) -> Error {
        at.error(ErrorKind::InvalidTool, detail)
    }

    fn note(&mut self, kind: NoteKind, at: Pointer, pos: Pos, message: impl Into<String>) {
        let message = format!("{} ({pos})", message.into());
        self.notes.push(kind, at, message);
    }

    fn value(&self, arg: &Arg) -> Result<Expr> {
        self.source.parse(arg.first, arg.end)
    }

    fn args(&self, open: usize) -> Result<Vec<Arg>> {
        self.source.call_args(open)
    }

    fn tool(&mut self, call: &ToolCall) -> Result<Tool> {
        let args = self.args(call.open)?;
        let matched = r::match_args("tool", &TOOL_FORMALS, &args)?;
        let get = |name: &str| matched.get(&TOOL_FORMALS, name);
        let mut deprecated = Vec::new();
        let description_arg = pick(&matched, "description", &mut deprecated)?;
        let name_arg = pick(&matched, "name", &mut deprecated)?;
        let convert_arg = pick(&matched, "convert", &mut deprecated)?;
        let annotations_arg = pick(&matched, "annotations", &mut deprecated)?;
        let Some(fun_arg) = get("fun") else {
            return Err(self.invalid(call.at, "tool() needs the R function as its first argument"));
        };
        let Some(description_arg) = description_arg else {
            return Err(self.invalid(call.at, "tool() needs a description (its second argument)"));
        };

        // Argument types: `arguments = list(…)`, or the deprecated `...`.
        let mut type_args: Vec<&Arg> = Vec::new();
        if let Some(arguments) = get("arguments") {
            if !matched.dots.is_empty() {
                return Err(self.invalid(
                    matched.dots[0].at,
                    "tool() got argument types both in `arguments = list(…)` and, deprecated, as named arguments",
                ));
            }
            let expr = self.value(arguments)?;
            match (&expr.kind, expr.call_of(&["base"])) {
                (_, Some(("list", open))) => {
                    let list_args = self.args(open)?;
                    return self.finish(
                        call,
                        fun_arg,
                        description_arg,
                        name_arg,
                        convert_arg,
                        annotations_arg,
                        &list_args,
                        deprecated,
                    );
                }
                (ExprKind::Null, _) => {}
                _ => {
                    return Err(self.invalid(
                        expr.at,
                        format!(
                            "`arguments` must be list(name = type_…(), …), found {}",
                            expr.describe()
                        ),
                    ))
                }
            }
        } else if !matched.dots.is_empty() {
            deprecated.push("...".to_string());
            type_args = matched.dots.clone();
        }
        let owned: Vec<Arg> = type_args.into_iter().cloned().collect();
        self.finish(
            call,
            fun_arg,
            description_arg,
            name_arg,
            convert_arg,
            annotations_arg,
            &owned,
            deprecated,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        &mut self,
        call: &ToolCall,
        fun_arg: &Arg,
        description_arg: &Arg,
        name_arg: Option<&Arg>,
        convert_arg: Option<&Arg>,
        annotations_arg: Option<&Arg>,
        type_args: &[Arg],
        deprecated: Vec<String>,
    ) -> Result<Tool> {
        if !deprecated.is_empty() {
            let used: Vec<String> = deprecated
                .iter()
                .map(|name| {
                    if name == "..." {
                        "argument types in `...`".to_string()
                    } else {
                        format!("`{name}`")
                    }
                })
                .collect();
            self.note(
                NoteKind::Normalized { field: "tool".into() },
                Pointer::root(),
                call.at,
                format!(
                    "{} belong to ellmer's deprecated pre-0.3.0 tool() form; read as the current form",
                    used.join(", ")
                ),
            );
        }
        let description_expr = self.value(description_arg)?;
        let description = match &description_expr.kind {
            ExprKind::Str(text) => text.clone(),
            _ => {
                return Err(self.invalid(
                    description_expr.at,
                    format!(
                        "the tool description must be a string, found {}",
                        description_expr.describe()
                    ),
                ))
            }
        };

        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut ignored = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        for arg in type_args {
            let Some(name) = arg.name.as_deref() else {
                return Err(self.invalid(arg.at, "every tool argument needs a name (`name = type_…()`)"));
            };
            if names.contains(&name) {
                return Err(self.invalid(arg.at, format!("the tool argument `{name}` is given twice")));
            }
            names.push(name);
            let expr = self.value(arg)?;
            let rel = Pointer::root().key("properties").key(name);
            let rpath = Pointer::root().key("arguments").key(name);
            match self.read_type(&expr, &rel, &rpath, true)? {
                ArgType::Schema {
                    schema,
                    required: is_required,
                } => {
                    if is_required {
                        required.push(Value::String(name.to_string()));
                    }
                    properties.insert(name.to_string(), schema);
                }
                ArgType::Ignored => {
                    self.note(
                        NoteKind::Kept { key: "ignore".into() },
                        rpath,
                        expr.at,
                        format!(
                            "`{name}` = type_ignore() is hidden from the model (the R default is used); \
                             kept under vendor.ellmer.ignore"
                        ),
                    );
                    ignored.push(Value::String(name.to_string()));
                }
            }
        }

        // The function: verbatim source, unless it is our placeholder.
        let fun_text = self.source.slice(fun_arg.first, fun_arg.end).to_string();
        let fun_expr = self.source.parse(fun_arg.first, fun_arg.end).ok();
        let mut placeholder = false;
        let mut fun_symbol = None;
        match fun_expr.as_ref().map(|expr| &expr.kind) {
            Some(ExprKind::Symbol {
                namespace: None,
                name,
            }) => fun_symbol = Some(name.clone()),
            Some(ExprKind::Function { open }) => {
                let open = *open;
                let formals = self.source.formals(open)?;
                if !formals.iter().any(|(formal, _)| formal == "...") {
                    let mut formal_names: Vec<&str> =
                        formals.iter().map(|(formal, _)| formal.as_str()).collect();
                    let mut argument_names = names.clone();
                    formal_names.sort_unstable();
                    argument_names.sort_unstable();
                    if formal_names != argument_names {
                        return Err(self.invalid(
                            fun_arg.at,
                            format!(
                                "the function's formals ({}) and the argument names ({}) differ; ellmer requires \
                                 them to be the same",
                                formals.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>().join(", "),
                                names.join(", ")
                            ),
                        ));
                    }
                }
                placeholder = self.is_placeholder(self.source.partner(open) + 1, fun_arg.end);
            }
            _ => {}
        }

        let name = self.tool_name(call, name_arg, fun_symbol.as_deref())?;
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        if !properties.is_empty() {
            schema.insert("properties".into(), Value::Object(properties));
        }
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        let mut schema = Value::Object(schema);
        self.hoist_defs(&mut schema);
        let schema = check_schema_value(&schema, &Pointer::root().key("inputSchema"), &mut Notes::new())
            .map_err(|err| err.with_position(call.at.line, call.at.column))?;

        let mut tool = Tool::new(name, schema);
        tool.description = Some(description);
        if !placeholder {
            tool.run = Some(Run::Action(ActionRun {
                handler: Some([("r".to_string(), fun_text)].into_iter().collect()),
            }));
        }
        if let Some(arg) = annotations_arg {
            tool.annotations = self.annotations(arg)?;
        }
        let mut vendor = Map::new();
        if let Some(arg) = convert_arg {
            match self.value(arg)?.kind {
                ExprKind::Bool(true) => {}
                ExprKind::Bool(false) => {
                    vendor.insert("convert".into(), json!(false));
                }
                _ => return Err(self.invalid(arg.at, "`convert` must be TRUE or FALSE")),
            }
        }
        if !ignored.is_empty() {
            vendor.insert("ignore".into(), Value::Array(ignored));
        }
        tool.set_vendor_fields(ID, vendor);
        Ok(tool)
    }

    fn is_placeholder(&self, body: usize, end: usize) -> bool {
        let tokens: Vec<&Tok> = self.source.tokens[body..end]
            .iter()
            .map(|token| &token.tok)
            .filter(|tok| **tok != Tok::Newline)
            .collect();
        match tokens.as_slice() {
            [stop, Tok::Open('('), Tok::Str(message), Tok::Close(')')] => {
                stop.is_word("stop")
                    && message.starts_with(PLACEHOLDER_START)
                    && message.ends_with(PLACEHOLDER_END)
            }
            _ => false,
        }
    }

    fn tool_name(
        &mut self,
        call: &ToolCall,
        name_arg: Option<&Arg>,
        fun_symbol: Option<&str>,
    ) -> Result<String> {
        if let Some(arg) = name_arg {
            match self.value(arg)?.kind {
                ExprKind::Str(name) => return self.checked_name(name, arg.at),
                ExprKind::Null => {}
                _ => return Err(self.invalid(arg.at, "the tool name must be a string")),
            }
        }
        if let Some(symbol) = fun_symbol {
            return self.checked_name(symbol.to_string(), call.at);
        }
        let (name, origin) = match &call.variable {
            Some(variable) => (
                NAME_RULE.fit(variable),
                format!("the variable `{variable}` it is assigned to"),
            ),
            None => {
                *self.unnamed += 1;
                (
                    format!("tool_{:03}", self.unnamed),
                    "its place in the file, as ellmer numbers unnamed tools".to_string(),
                )
            }
        };
        self.note(
            NoteKind::Defaulted { field: "name".into() },
            Pointer::root().key("name"),
            call.at,
            format!(
                "the tool has no name and its function is not a plain name; named {name:?} after {origin}"
            ),
        );
        Ok(name)
    }

    fn checked_name(&self, name: String, at: Pos) -> Result<String> {
        if NAME_RULE.accepts(&name) {
            Ok(name)
        } else {
            Err(self.invalid(
                at,
                format!("the tool name {name:?} breaks ellmer's rule ^[a-zA-Z0-9_-]+$"),
            ))
        }
    }

    /// Reads a `type_*()` call. `rel` is its place in the input schema,
    /// `rpath` its place in the R call (for notes).
    fn read_type(&mut self, expr: &Expr, rel: &Pointer, rpath: &Pointer, top: bool) -> Result<ArgType> {
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
                Ok(ArgType::Schema {
                    schema: Value::Object(schema),
                    required,
                })
            }
            "type_enum" => {
                let (formals, old) = self.order(&args, ["values", "description", "required"], |first, second| {
                    matches!(first, ExprKind::Str(_) | ExprKind::Null)
                        && second.is_some_and(|second| !matches!(second, ExprKind::Str(_) | ExprKind::Null))
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
                Ok(ArgType::Schema {
                    schema: Value::Object(schema),
                    required,
                })
            }
            "type_array" => {
                let (formals, old) = self.order(&args, ["items", "description", "required"], |first, second| {
                    matches!(first, ExprKind::Str(_) | ExprKind::Null) && second.is_some()
                })?;
                let matched = r::match_args(function, &formals, &args)?;
                let Some(items_arg) = matched.get(&formals, "items") else {
                    return Err(self.invalid(expr.at, "type_array() needs the type of its items"));
                };
                let items_expr = self.value(items_arg)?;
                let items = match self.read_type(&items_expr, &rel.key("items"), &rpath.key("items"), false)? {
                    ArgType::Schema { schema, .. } => schema,
                    ArgType::Ignored => unreachable!("type_ignore() is refused below the top level"),
                };
                let mut schema = Map::new();
                schema.insert("type".into(), json!("array"));
                self.describe_into(&mut schema, matched.get(&formals, "description"), function)?;
                schema.insert("items".into(), items);
                if old {
                    self.old_order_note(rpath, expr.at, function);
                }
                let required = self.flag(matched.get(&formals, "required"), "required", function)?;
                Ok(ArgType::Schema {
                    schema: Value::Object(schema),
                    required,
                })
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
                    match self.read_type(&child, &rel.key("properties").key(name), &rpath.key(name), false)? {
                        ArgType::Schema { schema, required: is_required } => {
                            if is_required {
                                required.push(Value::String(name.to_string()));
                            }
                            properties.insert(name.to_string(), schema);
                        }
                        ArgType::Ignored => unreachable!("type_ignore() is refused below the top level"),
                    }
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
                Ok(ArgType::Schema {
                    schema: Value::Object(schema),
                    required,
                })
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
                let ExprKind::Str(text) = &text_expr.kind else {
                    return Err(self.invalid(
                        text_expr.at,
                        format!("type_from_schema(text = …) must be a string, found {}", text_expr.describe()),
                    ));
                };
                let schema = self.json_schema(text, text_expr.at)?;
                self.from_schema.push(rel.clone());
                Ok(ArgType::Schema { schema, required: true })
            }
            "type_ignore" => {
                if let Some(arg) = args.first() {
                    return Err(self.invalid(arg.at, "type_ignore() takes no arguments"));
                }
                if !top {
                    return Err(self.invalid(
                        expr.at,
                        "type_ignore() marks a tool argument; it cannot appear inside type_array() or type_object()",
                    ));
                }
                Ok(ArgType::Ignored)
            }
            other => Err(self.invalid(
                expr.at,
                format!(
                    "{other}() is not one of ellmer's types (type_boolean, type_integer, type_number, type_string, \
                     type_enum, type_array, type_object, type_from_schema, type_ignore)"
                ),
            )),
        }
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
                field: function.to_string(),
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
        match expr.kind {
            ExprKind::Str(text) => {
                schema.insert("description".into(), Value::String(text));
                Ok(())
            }
            ExprKind::Null => Ok(()),
            _ => Err(self.invalid(
                expr.at,
                format!(
                    "{function}(): the description must be a string or NULL, found {}",
                    expr.describe()
                ),
            )),
        }
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
        check_json_depth(text, self.limits.max_depth).map_err(|err| {
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
    fn hoist_defs(&mut self, schema: &mut Value) {
        for place in std::mem::take(&mut self.from_schema) {
            for key in DEF_KEYS {
                let prefix = format!("#{}/{key}/", fragment(&place));
                let Some(node) = pointer_mut(schema, &place) else {
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
                let Some(node) = pointer_mut(schema, &place) else {
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

    fn annotations(&mut self, arg: &Arg) -> Result<Option<Annotations>> {
        let expr = self.value(arg)?;
        let entries: Vec<(String, Arg)> = match (&expr.kind, expr.call_of(&["ellmer", "base"])) {
            (ExprKind::Null, _) => return Ok(None),
            (_, Some(("tool_annotations", open))) => {
                let args = self.args(open)?;
                let matched = r::match_args("tool_annotations", &ANNOTATION_FORMALS, &args)?;
                let mut entries: Vec<(String, Arg)> = ANNOTATION_FORMALS[..5]
                    .iter()
                    .zip(&matched.bound)
                    .filter_map(|(name, arg)| arg.map(|arg| (name.to_string(), arg.clone())))
                    .collect();
                for extra in &matched.dots {
                    let Some(name) = &extra.name else {
                        return Err(self.invalid(
                            extra.at,
                            "tool_annotations(): every extra annotation needs a name",
                        ));
                    };
                    entries.push((name.clone(), (*extra).clone()));
                }
                entries
            }
            (_, Some(("list", open))) => {
                let mut entries = Vec::new();
                for entry in self.args(open)? {
                    let Some(name) = entry.name.clone() else {
                        return Err(self.invalid(entry.at, "every annotation in list(…) needs a name"));
                    };
                    entries.push((name, entry));
                }
                entries
            }
            _ => {
                return Err(self.invalid(
                    expr.at,
                    format!(
                        "`annotations` must be tool_annotations(…) or list(…), found {}",
                        expr.describe()
                    ),
                ))
            }
        };
        let mut annotations = Annotations::default();
        let mut seen: Vec<String> = Vec::new();
        for (name, entry) in entries {
            if seen.contains(&name) {
                return Err(self.invalid(entry.at, format!("the annotation `{name}` is given twice")));
            }
            seen.push(name.clone());
            let value = self.value(&entry)?;
            if name == "title" {
                match value.kind {
                    ExprKind::Str(title) => annotations.title = Some(title),
                    ExprKind::Null => {}
                    _ => {
                        return Err(self.invalid(
                            value.at,
                            format!(
                                "the annotation title must be a string, found {}",
                                value.describe()
                            ),
                        ))
                    }
                }
            } else if let Some((camel, _, _)) = HINTS.iter().find(|(_, snake, _)| *snake == name) {
                match value.kind {
                    ExprKind::Bool(flag) => {
                        annotations.set_hint(camel, Some(flag));
                    }
                    ExprKind::Null => {}
                    _ => {
                        return Err(self.invalid(
                            value.at,
                            format!("`{name}` must be TRUE, FALSE or NULL, found {}", value.describe()),
                        ))
                    }
                }
            } else if let Some((camel, snake, _)) = HINTS.iter().find(|(camel, _, _)| *camel == name) {
                return Err(self.invalid(
                    entry.at,
                    format!("ellmer spells the MCP hint {camel} as `{snake}`"),
                ));
            } else if let Some(json) = self.json_value(&value, 0)? {
                annotations.extra.insert(name, json);
            }
        }
        Ok((!annotations.is_empty()).then_some(annotations))
    }

    /// An R value as JSON: strings, numbers, TRUE/FALSE, `c()` of scalars,
    /// `list()` (an array, or an object when every element is named).
    /// `NULL` (and an empty `c()`) is "absent".
    fn json_value(&self, expr: &Expr, depth: usize) -> Result<Option<Value>> {
        if depth > self.limits.max_depth {
            return Err(expr.at.error(
                ErrorKind::LimitExceeded,
                "the annotation value is nested too deeply",
            ));
        }
        Ok(Some(match &expr.kind {
            ExprKind::Str(text) => Value::String(text.clone()),
            ExprKind::Bool(flag) => Value::Bool(*flag),
            ExprKind::Num(text) => Value::Number(self.number(text, expr.at)?),
            ExprKind::Null => return Ok(None),
            _ => match expr.call_of(&["base"]) {
                Some(("c", open)) => {
                    let mut items = Vec::new();
                    for element in self.args(open)? {
                        if element.name.is_some() {
                            return Err(self.invalid(element.at, "named elements in c() are not supported; use list()"));
                        }
                        let value = self.value(&element)?;
                        if matches!(value.call_of(&["base"]), Some(("c" | "list", _))) {
                            return Err(self.invalid(value.at, "c() here may hold only strings, numbers and TRUE/FALSE"));
                        }
                        if let Some(item) = self.json_value(&value, depth + 1)? {
                            items.push(item);
                        }
                    }
                    match items.len() {
                        0 => return Ok(None),
                        1 => items.remove(0),
                        _ => Value::Array(items),
                    }
                }
                Some(("list", open)) => {
                    let elements = self.args(open)?;
                    let named = elements.iter().filter(|element| element.name.is_some()).count();
                    if named == 0 {
                        let mut items = Vec::new();
                        for element in &elements {
                            let value = self.value(element)?;
                            items.push(self.json_value(&value, depth + 1)?.unwrap_or(Value::Null));
                        }
                        Value::Array(items)
                    } else if named == elements.len() {
                        let mut object = Map::new();
                        for element in &elements {
                            let value = self.value(element)?;
                            let item = self.json_value(&value, depth + 1)?.unwrap_or(Value::Null);
                            object.insert(element.name.clone().unwrap_or_default(), item);
                        }
                        Value::Object(object)
                    } else {
                        return Err(self.invalid(expr.at, "a list() here must name all of its elements or none"));
                    }
                }
                _ => {
                    return Err(self.invalid(
                        expr.at,
                        format!(
                            "an annotation value must be a string, number, TRUE/FALSE, NULL, c() or list(), found {}",
                            expr.describe()
                        ),
                    ))
                }
            },
        }))
    }

    fn number(&self, text: &str, at: Pos) -> Result<Number> {
        parse_number(text)
            .ok_or_else(|| self.invalid(at, format!("the number {text} has no JSON equivalent")))
    }
}

/// An R number literal as a JSON number (`5L` → 5, `0x1F` → 31, `.5` → 0.5).
fn parse_number(text: &str) -> Option<Number> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let digits = digits.strip_suffix('L').unwrap_or(digits);
    if digits.ends_with('i') {
        return None;
    }
    if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        let value = i64::from_str_radix(hex, 16).ok()?;
        return Some(Number::from(if negative { -value } else { value }));
    }
    let mut json = String::new();
    if negative {
        json.push('-');
    }
    if digits.starts_with('.') {
        json.push('0');
    }
    json.push_str(digits);
    let json = json.replace(".e", ".0e").replace(".E", ".0E");
    let json = if json.ends_with('.') {
        format!("{json}0")
    } else {
        json
    };
    serde_json::from_str::<Number>(&json).ok()
}

/// The keys root definitions live under.
const DEF_KEYS: [&str; 2] = ["$defs", "definitions"];

/// A JSON Pointer as a URI fragment (percent-encoding what a fragment cannot hold).
fn fragment(pointer: &Pointer) -> String {
    let mut out = String::new();
    for byte in pointer.as_str().bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn pointer_mut<'v>(value: &'v mut Value, pointer: &Pointer) -> Option<&'v mut Value> {
    value.pointer_mut(pointer.as_str())
}

/// Every `$ref` string in a schema (iteratively, so depth costs no stack).
fn refs_of(value: &Value) -> Vec<String> {
    let mut refs = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                for (key, child) in object {
                    match (key.as_str(), child) {
                        ("$ref", Value::String(reference)) => refs.push(reference.clone()),
                        _ => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    refs
}

/// Replaces the prefix `from` of every `$ref` in `value` with `to`.
fn rewrite_refs(value: &mut Value, from: &str, to: &str) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                for (key, child) in object.iter_mut() {
                    match child {
                        Value::String(reference) if key == "$ref" => {
                            if let Some(rest) = reference.strip_prefix(from) {
                                *reference = format!("{to}{rest}");
                            }
                        }
                        child => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// The definition a `$ref` into root `$defs`/`definitions` names.
fn root_def_of(reference: &str) -> Option<(&'static str, String)> {
    for key in DEF_KEYS {
        if let Some(rest) = reference.strip_prefix(&format!("#/{key}/")) {
            let token = rest.split('/').next().unwrap_or("");
            let decoded = percent_decode(token);
            return Some((key, decoded.replace("~1", "/").replace("~0", "~")));
        }
    }
    None
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' && index + 2 < bytes.len() {
            let digit = |byte: u8| (byte as char).to_digit(16);
            if let (Some(high), Some(low)) = (digit(bytes[index + 1]), digit(bytes[index + 2])) {
                out.push((high * 16 + low) as u8);
                index += 3;
                continue;
            }
        }
        out.push(bytes[index]);
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

// ---------------------------------------------------------------- writing

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<String> {
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
    if tool.vendor.is_some() && tool.vendor_fields(ID).is_none_or(Map::is_empty) {
        // The per-format notes point below /vendor; the whole field goes.
        notes.push(
            NoteKind::Dropped {
                keyword: "vendor".into(),
            },
            Pointer::root().key("vendor"),
            "ellmer keeps none of these vendor fields",
        );
    }

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
                ("convert", Value::Bool(convert)) => fields.convert = Some(*convert),
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
        for (key, value) in schema {
            match key.as_str() {
                "type" | "properties" | "required" | "$defs" | "definitions" => {}
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
        let in_order: Vec<&str> = properties
            .keys()
            .map(String::as_str)
            .filter(|name| names.contains(name) && (!root || r::is_writable_name(name)))
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

fn required_names(schema: &Map<String, Value>) -> Vec<&str> {
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
    use super::*;
    use crate::format::{Output, ReadOptions};

    fn read_one(text: &str) -> Result<Converted<Tool>> {
        let mut tools = read(text, &ReadOptions::default())?;
        assert_eq!(tools.len(), 1, "{text}");
        tools.remove(0)
    }

    fn read_value(text: &str) -> Value {
        match read_one(text) {
            Ok(converted) => converted.value.to_value(),
            Err(err) => panic!("{text}\n{err}"),
        }
    }

    fn read_error(text: &str) -> String {
        match read(text, &ReadOptions::default()) {
            Err(err) => err.to_string(),
            Ok(tools) => match tools.into_iter().find_map(|tool| tool.err()) {
                Some(err) => err.to_string(),
                None => panic!("{text} was read without error"),
            },
        }
    }

    fn tool_from(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    fn written(tool: &Tool) -> (String, Vec<String>) {
        let mut notes = Notes::new();
        let text = write(tool, &WriteOptions::default(), &mut notes).unwrap();
        (
            text,
            notes
                .iter()
                .map(|note| format!("{} {}", note.at, note.message))
                .collect(),
        )
    }

    const SEED: &str = r#"
tool_rnorm <- tool(
  rnorm,
  # Describe the tool function to the LLM
  .description = "Drawn numbers from a random normal distribution",
  n = type_integer("The number of observations. Must be a positive integer."),
  mean = type_number("The mean value of the distribution."),
  sd = type_number("The standard deviation of the distribution. Must be a non-negative number."),
  .annotations = tool_annotations(
    title = "Draw Random Normal Numbers",
    read_only_hint = TRUE, # the tool does not modify any state
    open_world_hint = FALSE
  )
)
"#;

    #[test]
    fn reads_the_seed_in_the_dotted_form() {
        let converted = read_one(SEED).unwrap();
        assert_eq!(
            converted.value.to_value(),
            json!({
                "name": "rnorm",
                "description": "Drawn numbers from a random normal distribution",
                "inputSchema": {"type": "object", "properties": {
                    "n": {"type": "integer", "description": "The number of observations. Must be a positive integer."},
                    "mean": {"type": "number", "description": "The mean value of the distribution."},
                    "sd": {"type": "number", "description": "The standard deviation of the distribution. Must be a non-negative number."}
                }, "required": ["n", "mean", "sd"]},
                "annotations": {"title": "Draw Random Normal Numbers", "readOnlyHint": true, "openWorldHint": false},
                "run": {"kind": "action", "handler": {"r": "rnorm"}}
            })
        );
        let notes: Vec<String> = converted.notes.iter().map(|note| note.message.clone()).collect();
        assert_eq!(
            notes,
            ["`.description`, `.annotations`, argument types in `...` belong to ellmer's deprecated pre-0.3.0 tool() \
              form; read as the current form (line 2, column 15)"]
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

    #[test]
    fn reader_errors_name_line_and_column() {
        let cases = [
            ("tool(f, \"d\", arguments = list(x = type_strin()))", "invalid tool: type_strin() is not one of ellmer's types (type_boolean, type_integer, type_number, type_string, type_enum, type_array, type_object, type_from_schema, type_ignore) (line 1, column 35)"),
            ("tool(f, \"d\",\n  arguments = list(x = type_string(paste(\"a\", \"b\"))))", "invalid tool: type_string(): the description must be a string or NULL, found a call of paste() (line 2, column 36)"),
            ("tool(f, \"d\", arguments = list(x = type_from_schema(path = \"s.json\")))", "invalid tool: type_from_schema(path = …) reads a file, and toolbridge reads no files: put the JSON in type_from_schema(text = '…') (line 1, column 52)"),
            ("tool(f, \"d\", arguments = list(x = type_from_schema('{\"type\": 1}')))", "invalid schema: type_from_schema(): must be a JSON type name (string, number, integer, boolean, object, array, null) or a list of them; found 1 (at /type in its JSON) (line 1, column 52)"),
            ("tool(f, \"d\", arguments = list(x = type_from_schema('{\"type\": ')))", "invalid JSON: type_from_schema(): EOF while parsing a value (JSON line 1, column 9) (line 1, column 52)"),
            ("tool(f)", "invalid tool: tool() needs a description (its second argument) (line 1, column 1)"),
            ("tool(f, 'd', name = 'a b')", "invalid tool: the tool name \"a b\" breaks ellmer's rule ^[a-zA-Z0-9_-]+$ (line 1, column 14)"),
            ("tool(f, 'd', description = 'e')", "invalid tool: every tool argument needs a name (`name = type_…()`) (line 1, column 9)"),
            ("tool(f, 'd', .description = 'e')", "invalid tool: tool() got both `description` and the deprecated `.description` (line 1, column 14)"),
            ("tool(f, 'd', x = type_string(), arguments = list())", "invalid tool: tool() got argument types both in `arguments = list(…)` and, deprecated, as named arguments (line 1, column 14)"),
            ("tool(function(x) x, 'd', arguments = list(y = type_string()))", "invalid tool: the function's formals (x) and the argument names (y) differ; ellmer requires them to be the same (line 1, column 6)"),
            ("tool(f, 'd', arguments = list(x = type_enum(c(1, 2))))", "invalid tool: type_enum(): every value must be a string, found the number 1 (line 1, column 47)"),
            ("tool(f, 'd', arguments = list(x = type_array(type_ignore())))", "invalid tool: type_ignore() marks a tool argument; it cannot appear inside type_array() or type_object() (line 1, column 46)"),
            ("tool(f, 'd', arguments = list(x = type_string() + 1))", "invalid tool: unexpected `+` here: toolbridge reads strings, numbers, TRUE/FALSE, NULL, NA, names and calls such as c(), list() and ellmer's type_*() (line 1, column 49)"),
            ("tool(f, 'd', annotations = tool_annotations(read_only_hint = 'yes'))", "invalid tool: `read_only_hint` must be TRUE, FALSE or NULL, found a string (line 1, column 62)"),
            ("tool(f, 'd', annotations = list(readOnlyHint = TRUE))", "invalid tool: ellmer spells the MCP hint readOnlyHint as `read_only_hint` (line 1, column 33)"),
            ("x <- 1\ny <- f(2)\n", "not a tool definition: found no ellmer tool() call (such as `tool(fun, \"description\", arguments = list(…))`)"),
            ("tool(f, 'd'", "R syntax error: the `(` opened here is never closed (the text ends first) (line 1, column 5)"),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(text, expected)| read_error(text) != *expected)
            .map(|(text, _)| format!("{text}\n  gives: {}", read_error(text)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn finds_tools_anywhere_and_names_them() {
        let text = r#"
library(ellmer)
# tool(commented, "out")
tools <- list(
  first = tool(function() 1, "First."),
  ellmer::tool(stats::rnorm, 'Second.')
)
chat$tool(not_a_tool)
tool(\() 3, "Third.") -> third
"#;
        let tools: Vec<(String, Vec<String>)> = read(text, &ReadOptions::default())
            .unwrap()
            .into_iter()
            .map(|tool| {
                let tool = tool.unwrap();
                (
                    tool.value.name,
                    tool.notes.into_iter().map(|note| note.message).collect(),
                )
            })
            .collect();
        assert_eq!(
            tools,
            vec![
                ("first".to_string(), vec!["the tool has no name and its function is not a plain name; named \"first\" after the variable `first` it is assigned to (line 5, column 11)".to_string()]),
                ("tool_001".to_string(), vec!["the tool has no name and its function is not a plain name; named \"tool_001\" after its place in the file, as ellmer numbers unnamed tools (line 6, column 3)".to_string()]),
                ("third".to_string(), vec!["the tool has no name and its function is not a plain name; named \"third\" after the variable `third` it is assigned to (line 9, column 1)".to_string()]),
            ]
        );
        assert!(detect(text));
        assert!(!detect("(gptel-make-tool :name \"x\")"));
        assert!(!detect("make_tool(x)"));
    }

    #[test]
    fn ignored_arguments_travel_in_vendor_fields() {
        let text = "tool(function(x, verbose = FALSE) x, 'd', arguments = list(x = type_string(), verbose = type_ignore()))";
        let converted = read_one(text).unwrap();
        let tool = converted.value;
        assert_eq!(tool.vendor_fields(ID).unwrap()["ignore"], json!(["verbose"]));
        assert_eq!(
            tool.input_schema,
            json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]})
        );
        let (text, _) = written(&tool);
        assert!(text.contains("    verbose = type_ignore()\n"), "{text}");
        assert_eq!(read_value(&text), tool.to_value());
    }

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
    fn round_trips_what_ellmer_expresses() {
        let tool = tool_from(json!({
            "name": "search-issues",
            "description": "Search issues. 'Quotes', \"doubles\", back\\slash, tab\t, é😀.",
            "inputSchema": {"type": "object", "properties": {
                "query": {"type": "string", "description": ""},
                "state": {"type": "string", "enum": ["open", "closed"], "description": "State."},
                "labels": {"type": "array", "items": {"type": "string"}},
                "page": {"type": "object", "properties": {"size": {"type": "integer"}, "after": {"type": "string"}},
                         "required": ["size"], "description": "Paging."},
                "if": {"type": "boolean"},
                "with space": {"type": ["string", "null"]}
            }, "required": ["query", "with space"]},
            "annotations": {"title": "Search", "readOnlyHint": true, "openWorldHint": true, "idempotentHint": true, "destructiveHint": false},
            "run": {"kind": "action", "handler": {"r": "gh::search_issues"}},
            "vendor": {"ellmer": {"convert": false}}
        }));
        let (text, _) = written(&tool);
        assert_eq!(read_value(&text), tool.to_value(), "{text}");
        let written = crate::format::write_tool(&tool, Format::Ellmer, &WriteOptions::default()).unwrap();
        let Output::Text(again) = written.value else {
            panic!()
        };
        assert_eq!(again, text);
    }

    #[test]
    fn numbers_from_r() {
        for (text, json) in [
            ("5", "5"),
            ("-5L", "-5"),
            ("0x1F", "31"),
            (".5", "0.5"),
            ("5.", "5.0"),
            ("1e3", "1e3"),
            ("1.e3", "1.0e3"),
        ] {
            assert_eq!(
                parse_number(text),
                Some(serde_json::from_str(json).unwrap()),
                "{text}"
            );
        }
        assert_eq!(parse_number("1i"), None);
    }

    #[test]
    fn adversarial_input_errors_cleanly() {
        let deep = format!(
            "tool(f, 'd', arguments = list(x = {}type_string(){}))",
            "type_array(".repeat(300),
            ")".repeat(300)
        );
        assert_eq!(
            read_error(&deep),
            "limit exceeded: the R code is nested more than 128 levels deep (line 1, column 1431)"
        );
        assert_eq!(
            read_error(&"(".repeat(100_000)),
            "limit exceeded: the R code is nested more than 128 levels deep (line 1, column 129)"
        );
        for cut in 0..SEED.len() {
            if SEED.is_char_boundary(cut) {
                let _ = read(&SEED[..cut], &ReadOptions::default());
            }
        }
    }
}
