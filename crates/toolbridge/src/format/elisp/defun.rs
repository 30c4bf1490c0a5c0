//! Tool definitions read from Emacs Lisp `defun` / `cl-defun` forms (seed
//! 001's `json-schema-from-defun`).
//!
//! The tool's name is the function's symbol in snake_case (the symbol itself
//! is kept as the gptel `:function`), its description the docstring, its
//! parameters the lambda list: plain arguments are required, `&optional`
//! and `&key` ones optional, `&rest` / `&body` refused. Each parameter's
//! description is the docstring's sentence that names it in UPPERCASE (the
//! Emacs convention, `(elisp) Documentation Tips`); its type comes from
//! `(declare (type …))` / `(cl-declare (type …))`, `(cl-check-type VAR
//! TYPE)`, a `cl-defun` default, or the docstring ("NAME is a string", "If
//! NAME is non-nil"), else it is assumed to be `string`, with a note.

use serde_json::{json, Map, Value};

use super::sexp::{self, Kind, Sexp};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::{Converted, Note, NoteKind};
use crate::pointer::Pointer;
use crate::tool::{ActionRun, Run, Tool};

/// Reads every top-level `defun` and `cl-defun` in `text` as a tool, or
/// only the one whose symbol is `only`.
///
/// Without `only`, a function this reader refuses (a `&rest` argument, a
/// destructuring lambda list) is left out with a note; with it, that is an
/// error naming the form.
///
/// # Errors
///
/// [`ErrorKind::LispSyntax`] if the text does not read and holds no
/// function; [`ErrorKind::NotATool`] if it holds no `defun` (or none named
/// `only`); [`ErrorKind::InvalidTool`] if the function named `only` cannot
/// be a tool; [`ErrorKind::LimitExceeded`] past `limits`.
pub fn read_defuns(text: &str, only: Option<&str>, limits: &Limits) -> Result<Converted<Vec<Tool>>> {
    let (tools, mut notes) = read_defun_tools(text, only, limits)?;
    let mut value = Vec::with_capacity(tools.len());
    for tool in tools {
        notes.extend(tool.notes);
        value.push(tool.value);
    }
    Ok(Converted { value, notes })
}

/// [`read_defuns`] with each tool's notes kept with it, and the notes about
/// the file as a whole (forms that did not read, functions left out) apart.
pub(crate) fn read_defun_tools(
    text: &str,
    only: Option<&str>,
    limits: &Limits,
) -> Result<(Vec<Converted<Tool>>, Vec<Note>)> {
    if text.len() > limits.max_bytes {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the Emacs Lisp is {} bytes, over the limit of {}",
                text.len(),
                limits.max_bytes
            ),
        ));
    }
    let file = sexp::read_file(text, limits.max_depth);
    let mut tools = Vec::new();
    let mut notes = Vec::new();
    for failure in &file.failures {
        if only.is_none() {
            notes.push(Note::new(
                NoteKind::Dropped {
                    keyword: "form".into(),
                },
                Pointer::root(),
                format!("a form that does not read was skipped: {}", failure.error),
            ));
        }
    }
    for form in &file.forms {
        let Some((head, items)) = defun_parts(form) else {
            continue;
        };
        let Some(symbol) = items.first().and_then(Sexp::symbol) else {
            continue;
        };
        if only.is_some_and(|only| only != symbol) {
            continue;
        }
        let at = Pointer::root().index(tools.len());
        match read_one(text, head, items, &at) {
            Ok((tool, tool_notes)) => tools.push(Converted {
                value: tool,
                notes: tool_notes,
            }),
            Err(err) if only.is_some() => return Err(err),
            Err(err) => notes.push(Note::new(
                NoteKind::Dropped {
                    keyword: symbol.into(),
                },
                Pointer::root(),
                format!("({head} {symbol} …) was left out: {}", err.detail()),
            )),
        }
    }
    if tools.is_empty() {
        if let (None, Some(failure)) = (only, file.failures.first()) {
            return Err(failure.error.clone());
        }
        let detail = match only {
            Some(name) => format!("the Emacs Lisp holds no (defun {name} …) or (cl-defun {name} …)"),
            None if notes.is_empty() => "the Emacs Lisp holds no (defun …) or (cl-defun …) form".to_string(),
            None => format!(
                "no (defun …) or (cl-defun …) could be read as a tool: {}",
                notes
                    .iter()
                    .map(|n| n.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        };
        return Err(Error::new(ErrorKind::NotATool, detail));
    }
    Ok((tools, notes))
}

fn defun_parts(form: &Sexp) -> Option<(&'static str, &[Sexp])> {
    if let Some(items) = form.call_of("defun") {
        return Some(("defun", items));
    }
    form.call_of("cl-defun").map(|items| ("cl-defun", items))
}

/// What the lambda list says about one parameter.
struct Param {
    symbol: String,
    /// The JSON property name (the `&key` keyword's name for keys).
    name: String,
    required: bool,
    default: Option<Sexp>,
}

fn read_one(text: &str, head: &str, items: &[Sexp], at: &Pointer) -> Result<(Tool, Vec<Note>)> {
    let symbol = items[0].symbol().unwrap_or_default();
    let fail = |form: &Sexp, detail: String| {
        let (line, column) = sexp::line_column(text, form.span.start);
        Error::new(ErrorKind::InvalidTool, detail)
            .at(at.clone())
            .with_position(line, column)
            .with_tool(symbol)
    };
    let Some(arglist) = items.get(1) else {
        return Err(fail(&items[0], format!("({head} {symbol}) has no argument list")));
    };
    let params = lambda_list(head, symbol, arglist, &fail)?;
    let mut body = &items[2..];
    let mut doc = None;
    if let (
        Some(Sexp {
            kind: Kind::Str(text),
            ..
        }),
        true,
    ) = (body.first(), body.len() > 1)
    {
        doc = Some(strip_fn_line(text));
        body = &body[1..];
    }
    let mut notes = Vec::new();
    let types = declared_types(body);
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &params {
        let prop_at = at.key("inputSchema").key("properties").key(&param.name);
        let sentence = doc.as_deref().and_then(|d| mention(d, &param.symbol));
        let schema = types
            .iter()
            .find(|(var, _)| *var == param.symbol)
            .and_then(|(_, ty)| lisp_type(ty))
            .or_else(|| param.default.as_ref().and_then(default_type))
            .or_else(|| doc.as_deref().and_then(|d| stated_type(d, &param.symbol)));
        if schema.is_none() {
            notes.push(Note::new(
                NoteKind::Defaulted { field: "type".into() },
                prop_at.clone(),
                format!(
                    "the type of `{}` is assumed to be string: no (declare (type …)), cl-check-type, default or docstring says",
                    param.symbol
                ),
            ));
        }
        let mut schema = schema.unwrap_or_else(|| json!({"type": "string"}));
        if let (Some(sentence), Some(object)) = (sentence, schema.as_object_mut()) {
            object.insert("description".into(), Value::String(sentence));
        }
        properties.insert(param.name.clone(), schema);
        if param.required {
            required.push(Value::String(param.name.clone()));
        }
    }
    let mut input_schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        input_schema["required"] = Value::Array(required);
    }
    let mut tool = Tool::new(snake_case(symbol), input_schema);
    tool.description = doc;
    let mut handler = indexmap::IndexMap::new();
    handler.insert("elisp".to_string(), format!("#'{}", sexp::symbol_text(symbol)));
    tool.run = Some(Run::Action(ActionRun {
        handler: Some(handler),
    }));
    if tool.description.is_none() {
        notes.push(Note::new(
            NoteKind::Defaulted {
                field: "description".into(),
            },
            at.key("description"),
            format!("({head} {symbol} …) has no docstring, so the tool has no description"),
        ));
    }
    Ok((tool, notes))
}

fn lambda_list(
    head: &str,
    symbol: &str,
    arglist: &Sexp,
    fail: &dyn Fn(&Sexp, String) -> Error,
) -> Result<Vec<Param>> {
    let Some(args) = arglist.list() else {
        return Err(fail(
            arglist,
            format!("({head} {symbol} …): the argument list is not a list"),
        ));
    };
    #[derive(PartialEq)]
    enum Section {
        Required,
        Optional,
        Key,
        Aux,
    }
    let mut section = Section::Required;
    let mut params = Vec::new();
    for arg in args {
        match arg.symbol() {
            Some("&optional") => section = Section::Optional,
            Some("&key") if head == "cl-defun" => section = Section::Key,
            Some("&aux") if head == "cl-defun" => section = Section::Aux,
            Some("&allow-other-keys") if head == "cl-defun" => {}
            Some(marker @ ("&rest" | "&body")) => {
                return Err(fail(
                    arg,
                    format!(
                        "({head} {symbol} {}) takes {marker} arguments, which a tool's fixed parameters cannot describe",
                        arglist_text(args)
                    ),
                ))
            }
            Some(other) if other.starts_with('&') => {
                return Err(fail(arg, format!("({head} {symbol} …): {other} is not supported in a tool's argument list")))
            }
            _ if section == Section::Aux => {}
            Some(name) => params.push(Param {
                symbol: name.to_string(),
                name: snake_case(name),
                required: section == Section::Required,
                default: None,
            }),
            None if head == "cl-defun" && section != Section::Required => {
                // (VAR DEFAULT [SVAR]) or, for &key, ((KEYWORD VAR) DEFAULT …).
                let parts = arg.list().unwrap_or_default();
                let (var, key) = match parts.first() {
                    Some(first) => match (first.symbol(), first.list()) {
                        (Some(var), _) => (Some(var), None),
                        (None, Some([keyword, var])) => (var.symbol(), keyword.keyword()),
                        _ => (None, None),
                    },
                    None => (None, None),
                };
                let Some(var) = var else {
                    return Err(fail(arg, format!("({head} {symbol} …): cannot read the argument {}", describe(arg))));
                };
                params.push(Param {
                    symbol: var.to_string(),
                    name: snake_case(key.unwrap_or(var)),
                    required: false,
                    default: parts.get(1).cloned(),
                });
            }
            None => {
                return Err(fail(
                    arg,
                    format!("({head} {symbol} …): the destructuring argument {} cannot be a tool parameter", describe(arg)),
                ))
            }
        }
    }
    Ok(params)
}

fn arglist_text(args: &[Sexp]) -> String {
    let parts: Vec<String> = args.iter().map(describe).collect();
    format!("({})", parts.join(" "))
}

fn describe(form: &Sexp) -> String {
    match &form.kind {
        Kind::Symbol(name) => name.clone(),
        Kind::List(items) => arglist_text(items),
        _ => "…".into(),
    }
}

/// `foo-bar/baz` → `foo_bar_baz`: every character besides ASCII letters,
/// digits and `_` becomes `_`.
fn snake_case(symbol: &str) -> String {
    symbol
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The docstring without the `(fn ARGS)` line Emacs uses for the usage.
fn strip_fn_line(doc: &str) -> String {
    let kept = match doc.rfind("\n\n(fn") {
        Some(index) => &doc[..index],
        None => doc,
    };
    kept.trim().to_string()
}

/// Types declared at the start of the body: `(declare (type TYPE VAR…))`,
/// `(cl-declare (type TYPE VAR…))` and `(cl-check-type VAR TYPE)` among the
/// body's top-level forms.
fn declared_types(body: &[Sexp]) -> Vec<(String, Sexp)> {
    let mut out = Vec::new();
    for form in body {
        if let Some(specs) = form.call_of("declare").or_else(|| form.call_of("cl-declare")) {
            for spec in specs {
                if let Some([ty, vars @ ..]) = spec.call_of("type") {
                    for var in vars.iter().filter_map(Sexp::symbol) {
                        out.push((var.to_string(), ty.clone()));
                    }
                }
            }
        } else if let Some([var, ty, ..]) = form.call_of("cl-check-type") {
            if let Some(var) = var.symbol() {
                out.push((var.to_string(), ty.clone()));
            }
        }
    }
    out
}

/// A Lisp type specifier as a schema (`None` when it says nothing JSON can).
fn lisp_type(ty: &Sexp) -> Option<Value> {
    let ty = match &ty.kind {
        Kind::Quote(inner) => inner.as_ref(),
        _ => ty,
    };
    if let Some(name) = ty.symbol() {
        return Some(match name {
            "string" | "symbol" | "keyword" => json!({"type": "string"}),
            "integer" | "fixnum" | "bignum" => json!({"type": "integer"}),
            "natnum" => json!({"type": "integer", "minimum": 0}),
            "number" | "float" | "real" => json!({"type": "number"}),
            "boolean" => json!({"type": "boolean"}),
            "list" | "vector" | "sequence" | "array" => json!({"type": "array"}),
            _ => return None,
        });
    }
    if let Some(values) = ty.call_of("member") {
        let values: Option<Vec<Value>> = values
            .iter()
            .map(|v| match &v.kind {
                Kind::Str(s) => Some(Value::String(s.clone())),
                Kind::Symbol(s) if s != "nil" => Some(Value::String(s.trim_start_matches(':').to_string())),
                Kind::Integer(i) => Some(json!(i)),
                _ => None,
            })
            .collect();
        let values = values?;
        let kind = if values.iter().all(Value::is_string) {
            "string"
        } else {
            "integer"
        };
        if kind == "integer" && !values.iter().all(Value::is_i64) {
            return None;
        }
        return Some(json!({"type": kind, "enum": values}));
    }
    if let Some(alternatives) = ty.call_of("or") {
        // (or TYPE null): the argument may be nil; the type is TYPE's.
        let rest: Vec<&Sexp> = alternatives
            .iter()
            .filter(|a| a.symbol() != Some("null"))
            .collect();
        if let [one] = rest.as_slice() {
            return lisp_type(one);
        }
        return None;
    }
    if let Some([min, max]) = ty.call_of("integer") {
        let mut schema = json!({"type": "integer"});
        if let Kind::Integer(min) = min.kind {
            schema["minimum"] = json!(min);
        }
        if let Kind::Integer(max) = max.kind {
            schema["maximum"] = json!(max);
        }
        return Some(schema);
    }
    None
}

/// The type a `cl-defun` default implies (`nil` implies nothing).
fn default_type(default: &Sexp) -> Option<Value> {
    Some(match &default.kind {
        Kind::Str(_) => json!({"type": "string"}),
        Kind::Integer(_) | Kind::BigInteger(_) => json!({"type": "integer"}),
        Kind::Float(_) => json!({"type": "number"}),
        Kind::Symbol(name) if name == "t" => json!({"type": "boolean"}),
        Kind::Vector(_) => json!({"type": "array"}),
        Kind::Quote(inner) if inner.list().is_some_and(|items| !items.is_empty()) => json!({"type": "array"}),
        _ => return None,
    })
}

/// The docstring's first sentence naming `symbol` in UPPERCASE as a word.
fn mention(doc: &str, symbol: &str) -> Option<String> {
    let upper = symbol.to_uppercase();
    sentences(doc)
        .into_iter()
        .find(|sentence| has_word(sentence, &upper))
}

/// The type the first docstring sentence that states one gives `symbol`
/// ("Add STEP to COUNT. COUNT is an integer." types COUNT).
fn stated_type(doc: &str, symbol: &str) -> Option<Value> {
    let upper = symbol.to_uppercase();
    sentences(doc)
        .iter()
        .filter(|sentence| has_word(sentence, &upper))
        .find_map(|sentence| docstring_type(sentence, symbol))
}

fn sentences(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    for paragraph in doc.split("\n\n") {
        let flat = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut start = 0;
        let bytes = flat.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'.' && (i + 1 == bytes.len() || bytes[i + 1] == b' ') {
                out.push(flat[start..=i].trim().to_string());
                start = i + 1;
            }
        }
        if start < flat.len() && !flat[start..].trim().is_empty() {
            out.push(flat[start..].trim().to_string());
        }
    }
    out
}

fn has_word(text: &str, word: &str) -> bool {
    let is_part = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(index, _)| {
        let before = text[..index].chars().next_back();
        let rest = &text[index + word.len()..];
        let mut after = rest.chars();
        let joined = match after.next() {
            Some('-') => after.next().is_some_and(is_part),
            Some(c) => is_part(c),
            None => false,
        };
        !before.is_some_and(|c| is_part(c) || c == '-') && !joined
    })
}

/// The type the sentence mentioning `symbol` states: "NAME is a string",
/// "NAME, an integer", "NAME should be a list", "If NAME is non-nil".
fn docstring_type(sentence: &str, symbol: &str) -> Option<Value> {
    let upper = symbol.to_uppercase();
    let lower = sentence.to_lowercase();
    let start = sentence.find(&upper)? + upper.len();
    let after = lower.get(start..)?.trim_start_matches([',', ' ']);
    let after = ["is ", "should be ", "must be ", "can be "]
        .iter()
        .find_map(|prefix| after.strip_prefix(prefix))
        .unwrap_or(after);
    if after.starts_with("non-nil") {
        return Some(json!({"type": "boolean"}));
    }
    let after = after
        .strip_prefix("an ")
        .or_else(|| after.strip_prefix("a "))
        .unwrap_or(after);
    let word: String = after
        .chars()
        .take_while(|c| c.is_alphabetic() || *c == '-')
        .collect();
    Some(match word.as_str() {
        "string" => json!({"type": "string"}),
        "integer" | "natural" => json!({"type": "integer"}),
        "number" | "float" => json!({"type": "number"}),
        "boolean" => json!({"type": "boolean"}),
        "list" | "vector" => json!({"type": "array"}),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_and_mentions() {
        let doc = "Return the weather in CITY.\nUNIT is a string, \"c\" or \"f\".\n\nIf VERBOSE is non-nil, say more.";
        assert_eq!(mention(doc, "city").unwrap(), "Return the weather in CITY.");
        assert_eq!(mention(doc, "unit").unwrap(), "UNIT is a string, \"c\" or \"f\".");
        assert_eq!(mention(doc, "cit"), None);
        assert_eq!(
            docstring_type("UNIT is a string.", "unit"),
            Some(json!({"type": "string"}))
        );
        assert_eq!(
            docstring_type("If VERBOSE is non-nil, say more.", "verbose"),
            Some(json!({"type": "boolean"}))
        );
        assert_eq!(docstring_type("Use UNIT.", "unit"), None);
        assert_eq!(snake_case("my-pkg--get/weather"), "my_pkg__get_weather");
        assert!(!has_word("FILE-NAME here", "FILE"));
        assert!(has_word("the FILE.", "FILE"));
    }
}
