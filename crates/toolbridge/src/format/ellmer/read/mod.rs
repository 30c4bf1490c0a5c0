//! Reading: every `tool()` call in R source to a canonical tool.
//!
//! The argument types, ellmer's `type_*()` calls, are read in `types.rs`.

mod types;

use std::collections::HashSet;

use serde_json::{json, Map, Number, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::check_schema_value;
use crate::limits::Limits;
use crate::note::{Converted, NoteKind, Notes};
use crate::options::ReadOptions;
use crate::pointer::Pointer;
use crate::tool::{ActionRun, Annotations, Run, Tool, HINTS};

use super::r::{self, Arg, Evaluator, Expr, ExprKind, Pos, Source, Tok};
use super::{ANNOTATION_FORMALS, ID, NAME_RULE, PLACEHOLDER_END, PLACEHOLDER_START};

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

/// A `tool(` call found in the source.
struct ToolCall {
    /// The `(` token.
    open: usize,
    at: Pos,
    /// The variable (or list element) the tool is assigned to.
    variable: Option<String>,
}

pub(super) fn read(text: &str, opts: &ReadOptions) -> Result<Vec<Result<Converted<Tool>>>> {
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

    /// The string `expr` evaluates to as R would (literals, `paste()`, …);
    /// `None` for `NULL`.
    fn text(&self, expr: &Expr, what: &str) -> Result<Option<String>> {
        Evaluator::new(self.source, self.limits.max_bytes).string(expr, what)
    }

    fn args(&self, open: usize) -> Result<Vec<Arg>> {
        self.source.call_args(open)
    }

    fn tool(&mut self, call: &ToolCall) -> Result<Tool> {
        let args = self.args(call.open)?;
        let matched = r::match_args("tool", &TOOL_FORMALS, &args)?;
        let mut deprecated = Vec::new();
        let description_arg = pick(&matched, "description", &mut deprecated)?;
        let name_arg = pick(&matched, "name", &mut deprecated)?;
        let convert_arg = pick(&matched, "convert", &mut deprecated)?;
        let annotations_arg = pick(&matched, "annotations", &mut deprecated)?;
        let Some(fun_arg) = matched.get(&TOOL_FORMALS, "fun") else {
            return Err(self.invalid(call.at, "tool() needs the R function as its first argument"));
        };
        let Some(description_arg) = description_arg else {
            return Err(self.invalid(call.at, "tool() needs a description (its second argument)"));
        };
        // Argument types: `arguments = list(…)`, or (deprecated) named arguments in `...`.
        let type_args: Vec<Arg> = match matched.get(&TOOL_FORMALS, "arguments") {
            Some(_) if !matched.dots.is_empty() => return Err(self.invalid(
                matched.dots[0].at,
                "tool() got argument types both in `arguments = list(…)` and, deprecated, as named arguments",
            )),
            Some(arguments) => {
                let expr = self.value(arguments)?;
                match (&expr.kind, expr.call_of(&["base"])) {
                    (_, Some(("list", open))) => self.args(open)?,
                    (ExprKind::Null, _) => Vec::new(),
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
            }
            None if matched.dots.is_empty() => Vec::new(),
            None => {
                deprecated.push("...".to_string());
                matched.dots.iter().map(|arg| (*arg).clone()).collect()
            }
        };
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
        let Some(description) = self.text(&description_expr, "the tool description")? else {
            return Err(self.invalid(
                description_expr.at,
                "the tool description must be a string, found NULL",
            ));
        };

        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut ignored = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        let mut seen = HashSet::new();
        for arg in &type_args {
            let Some(name) = arg.name.as_deref() else {
                return Err(self.invalid(arg.at, "every tool argument needs a name (`name = type_…()`)"));
            };
            if !seen.insert(name) {
                return Err(self.invalid(arg.at, format!("the tool argument `{name}` is given twice")));
            }
            names.push(name);
            let expr = self.value(arg)?;
            let rel = Pointer::root().key("properties").key(name);
            let rpath = Pointer::root().key("arguments").key(name);
            if let Some(("type_ignore", open)) = expr.call_of(&["ellmer"]) {
                if let Some(extra) = self.args(open)?.first() {
                    return Err(self.invalid(extra.at, "type_ignore() takes no arguments"));
                }
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
                continue;
            }
            let (schema, is_required) = self.read_type(&expr, &rel, &rpath)?;
            if is_required {
                required.push(Value::String(name.to_string()));
            }
            properties.insert(name.to_string(), schema);
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
        let mut annotation_code = Map::new();
        if let Some(arg) = annotations_arg {
            tool.annotations = self.annotations(arg, &mut annotation_code)?;
        }
        let mut vendor = Map::new();
        if !annotation_code.is_empty() {
            vendor.insert("annotation_code".into(), Value::Object(annotation_code));
        }
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
            let expr = self.value(arg)?;
            if let Some(name) = self.text(&expr, "the tool name")? {
                return self.checked_name(name, arg.at);
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

    /// The annotations; R code among them (a function, a name) goes to
    /// `code` as its source text.
    fn annotations(&mut self, arg: &Arg, code: &mut Map<String, Value>) -> Result<Option<Annotations>> {
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
        let mut seen = HashSet::new();
        for (name, entry) in entries {
            if !seen.insert(name.clone()) {
                return Err(self.invalid(entry.at, format!("the annotation `{name}` is given twice")));
            }
            let value = self.value(&entry)?;
            if name == "title" {
                annotations.title = self.text(&value, "the annotation title")?;
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
            } else if matches!(value.kind, ExprKind::Function { .. } | ExprKind::Symbol { .. }) {
                // R code, not data (posit-dev/btw's `btw_can_register = function() TRUE`):
                // kept as source for ellmer, noted for the formats that cannot hold it.
                self.note(
                    NoteKind::Kept {
                        key: "annotation_code".into(),
                    },
                    Pointer::root().key("annotations").key(&name),
                    value.at,
                    format!(
                        "the annotation `{name}` is R code ({}), not data; kept as source under \
                         vendor.ellmer.annotation_code",
                        value.describe()
                    ),
                );
                code.insert(
                    name.clone(),
                    Value::String(self.source.slice(entry.first, entry.end).to_string()),
                );
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testing::*;
    use super::*;

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
        let notes: Vec<String> = converted
            .notes
            .iter()
            .map(|note| note.message.to_string())
            .collect();
        assert_eq!(
            notes,
            ["`.description`, `.annotations`, argument types in `...` belong to ellmer's deprecated pre-0.3.0 tool() \
              form; read as the current form (line 2, column 15)"]
        );
    }

    #[test]
    fn reader_errors_name_line_and_column() {
        let cases = [
            ("tool(f, \"d\", arguments = list(x = type_strin()))", "invalid tool: type_strin() is not one of ellmer's types (type_boolean, type_integer, type_number, type_string, type_enum, type_array, type_object, type_from_schema, type_ignore) (line 1, column 35)"),
            ("tool(f, \"d\",\n  arguments = list(x = type_string(sprintf(\"%s\", \"b\"))))", "invalid tool: a call of sprintf() is not evaluated: toolbridge computes strings only from string literals, c(), paste(), paste0(), trimws() and glue() without interpolation (line 2, column 36)"),
            ("tool(f, \"d\", arguments = list(x = type_string(c(\"a\", \"b\"))))", "invalid tool: type_string(): the description must be one string; R evaluates this to 2 strings (line 1, column 47)"),
            ("tool(f, NA_character_)", "invalid tool: the tool description must be a string, found NA (line 1, column 9)"),
            ("tool(f, 1)", "invalid tool: the tool description must be a string, found the number 1 (line 1, column 9)"),
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
                    tool.notes
                        .into_iter()
                        .map(|note| note.message.to_string())
                        .collect(),
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
        assert!(super::super::detect(text));
        assert!(!super::super::detect("(gptel-make-tool :name \"x\")"));
        assert!(!super::super::detect("make_tool(x)"));
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
