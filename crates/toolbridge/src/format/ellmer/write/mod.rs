//! Writing: a canonical tool as an ellmer `tool()` call.
//!
//! The input schema is planned in `schema.rs` and written as `type_*()`
//! calls in `emit.rs`; `portable.rs` says what `type_from_schema()` may hold.

mod emit;
mod portable;
mod schema;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::note_uncarried;
use crate::format::toolbridge::with_annotation_defaults;
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::lower_tuples;
use crate::tool::{Run, Tool, HINTS};

use super::r::{self, RExpr, Source, Tok};
use super::{ANNOTATION_FORMALS, ID, PLACEHOLDER_END, PLACEHOLDER_START};

use schema::SchemaWriter;

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
    // ellmer has no tuples (no type_*() for them, and neither OpenAI strict
    // mode nor Gemini takes prefixItems).
    let tuples_lowered = lower_tuples(
        &tool.input_schema,
        &Pointer::root().key("inputSchema"),
        "ellmer",
        opts.limits.max_depth,
        notes,
    );
    let input_schema = tuples_lowered.as_ref().unwrap_or(&tool.input_schema);
    let mut writer = SchemaWriter::new(input_schema, &opts.limits, notes);
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
                    keyword: ignored.into(),
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
    if let Some(annotations) = annotations_expr(&tool, &vendor.annotation_code, &opts.limits, notes)? {
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
    /// Annotations that are R code, as source: written back verbatim.
    annotation_code: Vec<(String, String)>,
}

impl VendorFields {
    fn read(tool: &Tool, notes: &mut Notes) -> VendorFields {
        let mut fields = VendorFields {
            convert: None,
            ignore: Vec::new(),
            annotation_code: Vec::new(),
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
                ("annotation_code", Value::Object(code)) if code.values().all(Value::is_string) => {
                    for (name, source) in code {
                        let source = source.as_str().unwrap_or_default();
                        match one_expression(source) {
                            Ok(text) if r::is_writable_name(name) => fields.annotation_code.push((name.clone(), text)),
                            outcome => notes.push(
                                NoteKind::Dropped { keyword: name.into() },
                                at.key(key).key(name),
                                format!(
                                    "the annotation code cannot be a tool_annotations() argument ({}); left out",
                                    outcome.err().unwrap_or_else(|| format!("{name:?} is not an R name"))
                                ),
                            ),
                        }
                    }
                }
                _ => notes.push(
                    NoteKind::Dropped { keyword: key.into() },
                    at.key(key),
                    format!(
                        "vendor.ellmer.{key} is not an ellmer setting toolbridge knows (convert: true/false, \
                         ignore: [names], annotation_code: {{name: R source}}); left out"
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
                        keyword: language.into(),
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
    match one_expression(source) {
        Ok(text) => {
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
        Err(why) => {
            notes.push(
                NoteKind::Dropped { keyword: "r".into() },
                at.clone(),
                format!(
                    "the R handler cannot be tool()'s first argument ({why}); wrote a placeholder instead"
                ),
            );
            None
        }
    }
}

/// `source` if it is one R expression that can stand as a call argument
/// (no top-level `,`, `;` or `=`), trimmed of space and comments; else why not.
fn one_expression(source: &str) -> std::result::Result<String, String> {
    let parsed = Source::new(source, r::MAX_R_DEPTH).map_err(|err| err.to_string())?;
    let significant: Vec<usize> = (0..parsed.tokens.len())
        .filter(|index| parsed.tokens[*index].tok != Tok::Newline)
        .collect();
    let (Some(&first), Some(&last)) = (significant.first(), significant.last()) else {
        return Err("it is empty".into());
    };
    let mut index = first;
    while index <= last {
        let tok = &parsed.tokens[index].tok;
        if *tok == Tok::Semicolon || tok.is_op("=") {
            return Err("it is more than one expression".into());
        }
        if matches!(tok, Tok::Open(_)) {
            index = parsed.partner(index);
        }
        index += 1;
    }
    Ok(parsed.slice(first, last + 1).to_string())
}

/// `annotations = tool_annotations(…)` (or `list(…)` when an extra key would
/// be taken for one of `tool_annotations()`'s own arguments).
fn annotations_expr(
    tool: &Tool,
    code: &[(String, String)],
    limits: &Limits,
    notes: &mut Notes,
) -> Result<Option<RExpr>> {
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
                NoteKind::Dropped { keyword: key.into() },
                at,
                format!("the annotation {key:?} cannot be written as an R argument name that reads back as itself"),
            );
            continue;
        }
        if value.is_null() {
            notes.push(
                NoteKind::Dropped { keyword: key.into() },
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
    for (name, source) in code {
        if args
            .iter()
            .any(|(written, _)| written.as_deref() == Some(name.as_str()))
        {
            notes.push(
                NoteKind::Dropped { keyword: name.into() },
                Pointer::root()
                    .key("vendor")
                    .key(ID)
                    .key("annotation_code")
                    .key(name),
                format!("the annotation {name:?} is also data in annotations; the R code was left out"),
            );
            continue;
        }
        if ANNOTATION_FORMALS[..5]
            .iter()
            .any(|formal| formal.starts_with(name.as_str()))
        {
            as_list = true;
        }
        args.push((Some(name.clone()), RExpr::Atom(source.clone())));
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
                        NoteKind::Dropped { keyword: key.into() },
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
                "/inputSchema/properties/days ellmer's type_*() cannot express minimum; written as type_from_schema(), which \
                 OpenAI strict mode and Gemini both take as it is",
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
        assert!(
            text.contains(r#"flag = type_string("A string holding JSON that matches this JSON Schema: {}")"#),
            "{text}"
        );
        assert!(
            text.contains(r#"s = type_from_schema(text = '{"type":"string","enum":["a\\u0000"]}')"#),
            "{text}"
        );
        assert_eq!(
            notes,
            [
                "/vendor/anthropic/cache_control \"cache_control\" (a field of anthropic) has no place in ellmer",
                "/vendor/ellmer/convert convert = TRUE is ellmer's default and is not written",
                "/vendor/ellmer/extra vendor.ellmer.extra is not an ellmer setting toolbridge knows (convert: \
                 true/false, ignore: [names], annotation_code: {name: R source}); left out",
                "/inputSchema/type ellmer's arguments are always an object; reading the R back gives \"type\": \"object\"",
                "/inputSchema/minProperties ellmer builds the arguments object itself; \"minProperties\" at its root has no place",
                "/inputSchema/required ellmer marks each property required on its own, so the required list comes back \
                 in property order",
                "/inputSchema ellmer sends additionalProperties: false for the arguments and every type_object() (to \
                 every provider but Gemini), so the model can no longer add keys that are not declared",
                "/inputSchema/properties/flag neither ellmer's type_*() nor a type_from_schema() that OpenAI strict mode \
                 and Gemini both take can express the boolean schema true: written as type_string() whose description \
                 asks for JSON text matching the schema; the R function receives that text (jsonlite::parse_json() \
                 decodes it), and reading the R back restores the schema",
                "/inputSchema/properties/ \"\" cannot be an R argument name; the argument was left out",
                "/inputSchema/properties/s ellmer's type_*() cannot express enum; written as type_from_schema(), which \
                 OpenAI strict mode and Gemini both take as it is",
                "/run ellmer needs an R function and the tool has none: wrote a placeholder function with the arguments \
                 as formals that stops with a message; replace it with the tool's implementation",
                "/description R strings cannot hold a NUL character; it was written as U+FFFD",
                "/annotations the annotations are empty and are not written",
            ]
        );
    }
}
