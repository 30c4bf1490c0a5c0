//! Validation failures rendered for the model: one [`Violation`] per
//! problem, with its place, the keyword, what was expected and what came,
//! and a line of text. Rendered from the validator's structured failures
//! (`json::validate::Failure`), never from its display strings.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::json::describe;
use crate::json::validate::{Failure, FailureKind};
use crate::pointer::Pointer;
use crate::suggest::closest;

use super::signature::type_of;

/// Names longer than this get no "did you mean" (the edit distance is
/// quadratic in the lengths).
const MAX_SUGGEST_LEN: usize = 128;
/// At most this many failures of the closest `anyOf` branch are quoted.
const MAX_BRANCH_REASONS: usize = 3;

/// One problem with a call, for programs and for the model.
///
/// ```
/// # use toolbridge::{call::ToolCall, Tool, Toolbox};
/// let tool = Tool::new("f", serde_json::json!({"type": "object",
///     "properties": {"unit": {"enum": ["celsius", "fahrenheit"]}}}));
/// let toolbox = Toolbox::new([tool])?;
/// let checked = toolbox.check(&ToolCall::new("c1", "f", serde_json::json!({"unit": "kelvin"})));
/// let violation = &checked.rejection().unwrap().violations[0];
/// assert_eq!(
///     serde_json::to_value(violation)?,
///     serde_json::json!({"path": "/unit", "keyword": "enum",
///         "expected": "one of \"celsius\", \"fahrenheit\"", "got": "\"kelvin\"",
///         "message": "/unit: expected one of \"celsius\", \"fahrenheit\"; got \"kelvin\""})
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Violation {
    /// Where in the arguments (a JSON Pointer; empty for the whole call).
    pub path: Pointer,
    /// The JSON Schema keyword that failed (`type`, `enum`, `required`,
    /// `additionalProperties`, …), `unknownParameter` for an undeclared
    /// argument that looks like a misspelt required one, `name` for an
    /// unknown tool and `arguments` for arguments that could not be read.
    pub keyword: String,
    /// What was expected, in words.
    pub expected: String,
    /// What came, in words (`nothing` for a missing member).
    pub got: String,
    /// The line the model reads.
    pub message: String,
}

impl Violation {
    pub(super) fn new(
        path: Pointer,
        keyword: impl Into<String>,
        expected: impl Into<String>,
        got: impl Into<String>,
        message: impl Into<String>,
    ) -> Violation {
        Violation {
            path,
            keyword: keyword.into(),
            expected: expected.into(),
            got: got.into(),
            message: message.into(),
        }
    }
}

/// The value as compact JSON, shortened past 60 characters.
pub(super) fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// `"five" (a string)`.
fn value_and_type(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        other => format!("{} ({})", compact(other), describe(other)),
    }
}

/// "parameter" at the top level, "property" below it.
fn member(at: &Pointer) -> &'static str {
    if at.is_root() {
        "parameter"
    } else {
        "property"
    }
}

/// `where` prefix of a line: `/unit: `, or nothing for the whole call.
fn place(at: &Pointer) -> String {
    if at.is_root() {
        String::new()
    } else {
        format!("{at}: ")
    }
}

/// The schema at `pointer` in `root` (a keyword's location); `None` when it
/// is not a plain place in the root schema (behind a remote `$ref`).
fn schema_at<'s>(root: &'s Value, pointer: &Pointer) -> Option<&'s Value> {
    root.pointer(pointer.as_str())
}

/// The pointer one level up.
fn parent(pointer: &Pointer) -> Pointer {
    let text = pointer.as_str();
    Pointer::parse(&text[..text.rfind('/').unwrap_or(0)]).unwrap_or_default()
}

/// Renders every failure of `arguments` against `schema`.
pub(super) fn violations(failures: &[Failure], schema: &Value, arguments: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    for failure in failures {
        render(failure, schema, arguments, &mut out);
    }
    out
}

fn render(failure: &Failure, schema: &Value, arguments: &Value, out: &mut Vec<Violation>) {
    let at = &failure.at;
    let keyword = failure.keyword.as_str();
    let got = &failure.instance;
    let plain = |expected: String, got: String| {
        let message = format!("{}expected {expected}; got {got}", place(at));
        Violation::new(at.clone(), keyword, expected, got, message)
    };
    let violation = match &failure.kind {
        FailureKind::Type(types) => plain(types_phrase(types), value_and_type(got)),
        FailureKind::Enum(options) => plain(
            format!(
                "one of {}",
                options
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            compact(got),
        ),
        FailureKind::Const(expected) => plain(format!("exactly {}", compact(expected)), compact(got)),
        FailureKind::Required(name) => {
            let object_schema = schema_at(schema, &parent(&failure.schema_at));
            let expected = object_schema
                .and_then(|object| object.get("properties"))
                .and_then(|properties| properties.get(name))
                .map(|property| type_of(property, schema, 0))
                .unwrap_or_else(|| "any".into());
            let message = format!(
                "{}missing required {} `{name}` ({expected})",
                place(at),
                member(at)
            );
            Violation::new(at.key(name), keyword, expected, "nothing", message)
        }
        FailureKind::Unexpected(names) => {
            let object_schema = schema_at(schema, &parent(&failure.schema_at));
            let declared: Vec<&str> = object_schema
                .and_then(|object| object.get("properties"))
                .and_then(Value::as_object)
                .map(|properties| properties.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let given = arguments.pointer(at.as_str()).and_then(Value::as_object);
            for name in names {
                out.push(unknown(at, name, &declared, given, keyword));
            }
            return;
        }
        FailureKind::UnexpectedItems => plain("no more items".into(), format!("{} items", count(got))),
        FailureKind::Branches(branches) => branches_violation(failure, branches, schema, arguments),
        FailureKind::SeveralBranches => plain(
            "a value matching exactly one of the alternatives".into(),
            format!("{}, which matches several", value_and_type(got)),
        ),
        FailureKind::Bound(limit) => {
            let (expected, got) = bound(keyword, limit, got);
            plain(expected, got)
        }
        FailureKind::MultipleOf(step) => plain(format!("a multiple of {step}"), compact(got)),
        FailureKind::Pattern(pattern) => {
            plain(format!("a string matching the pattern {pattern}"), compact(got))
        }
        FailureKind::Format(format) => plain(format!("a valid {format}"), compact(got)),
        FailureKind::UniqueItems => plain(
            "items that are all different".into(),
            format!("{} (an item repeats)", compact(got)),
        ),
        FailureKind::Contains => plain(
            "an array with at least one item matching `contains`".into(),
            compact(got),
        ),
        FailureKind::Not => plain(
            "a value that does not match the `not` schema".into(),
            compact(got),
        ),
        FailureKind::Nothing => {
            let message = format!("{}not allowed here; got {}", place(at), compact(got));
            Violation::new(
                at.clone(),
                keyword,
                "nothing (not allowed)",
                compact(got),
                message,
            )
        }
        FailureKind::PropertyName(inner) => {
            let mut nested = Vec::new();
            render(inner, schema, arguments, &mut nested);
            let reason = nested
                .first()
                .map_or_else(String::new, |v| format!("expected {}", v.expected));
            // The outer failure holds the object; the inner one the name.
            let name = compact(&inner.instance);
            let message = format!("{}the name {name} is not allowed: {reason}", place(at));
            Violation::new(at.clone(), keyword, reason, name, message)
        }
        FailureKind::Other => plain(format!("a value valid under `{keyword}`"), compact(got)),
    };
    out.push(violation);
}

/// An undeclared member `name` of the object at `at`.
pub(super) fn unknown(
    at: &Pointer,
    name: &str,
    declared: &[&str],
    given: Option<&Map<String, Value>>,
    keyword: &str,
) -> Violation {
    let kind = member(at);
    let suggestion = if name.len() <= MAX_SUGGEST_LEN {
        // Prefer a declared name the call left out; then any declared name.
        let missing = declared
            .iter()
            .copied()
            .filter(|candidate| given.is_none_or(|given| !given.contains_key(*candidate)));
        closest(name, missing).or_else(|| closest(name, declared.iter().copied()))
    } else {
        None
    };
    let shown = shorten(name);
    let (expected, message) = match suggestion {
        Some(suggestion) => (
            format!("`{suggestion}`"),
            format!(
                "{}unknown {kind} `{shown}` — did you mean `{suggestion}`?",
                place(at)
            ),
        ),
        None if declared.is_empty() => (
            format!("no {kind}s"),
            format!(
                "{}unknown {kind} `{shown}`; this object takes no {kind}s",
                place(at)
            ),
        ),
        None => {
            let list = declared
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ");
            (
                format!("one of {list}"),
                format!("{}unknown {kind} `{shown}`; the {kind}s are {list}", place(at)),
            )
        }
    };
    Violation::new(at.key(name), keyword, expected, format!("`{shown}`"), message)
}

fn shorten(name: &str) -> String {
    if name.chars().count() > 60 {
        let cut: String = name.chars().take(57).collect();
        format!("{cut}…")
    } else {
        name.to_string()
    }
}

fn count(value: &Value) -> usize {
    match value {
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        Value::String(text) => text.chars().count(),
        _ => 0,
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// What a bound keyword wanted and what came, in words.
fn bound(keyword: &str, limit: &Value, got: &Value) -> (String, String) {
    let n = limit.as_u64().and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
    match keyword {
        "minimum" => (format!("at least {limit}"), compact(got)),
        "maximum" => (format!("at most {limit}"), compact(got)),
        "exclusiveMinimum" => (format!("more than {limit}"), compact(got)),
        "exclusiveMaximum" => (format!("less than {limit}"), compact(got)),
        "minLength" => (
            format!("at least {}", plural(n, "character")),
            format!("{} ({})", compact(got), plural(count(got), "character")),
        ),
        "maxLength" => (
            format!("at most {}", plural(n, "character")),
            format!("{} ({})", compact(got), plural(count(got), "character")),
        ),
        "minItems" => (
            format!("at least {}", plural(n, "item")),
            plural(count(got), "item"),
        ),
        "maxItems" => (
            format!("at most {}", plural(n, "item")),
            plural(count(got), "item"),
        ),
        "minProperties" => (
            format!("at least {}", plural(n, "member")),
            plural(count(got), "member"),
        ),
        "maxProperties" => (
            format!("at most {}", plural(n, "member")),
            plural(count(got), "member"),
        ),
        other => (format!("`{other}` {limit}"), compact(got)),
    }
}

fn types_phrase(types: &[String]) -> String {
    types
        .iter()
        .map(|name| match name.as_str() {
            "array" | "integer" | "object" => format!("an {name}"),
            "null" => "null".to_string(),
            other => format!("a {other}"),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The one reason the non-null branch of an optional value (`anyOf: [X,
/// {type: null}]`, what schemars and Pydantic write for `Option<X>` /
/// `X | None`) failed, saying that null would also do: the model reads
/// `expected one of "a", "b", or null; got "c"` rather than the branch list
/// and the branch's reason again. `None` when the branch failed for more
/// than one reason (the general message lists them).
fn or_null(mut reasons: Vec<Violation>, at: &Pointer) -> Option<Violation> {
    if reasons.len() != 1 {
        return None;
    }
    let mut reason = reasons.pop()?;
    if reason.path == *at {
        reason.expected.push_str(", or null");
        reason.message = format!("{}expected {}; got {}", place(at), reason.expected, reason.got);
    } else {
        let whole = if at.is_root() {
            "the arguments".to_string()
        } else {
            at.to_string()
        };
        reason.message.push_str(&format!(" ({whole} may also be null)"));
    }
    Some(reason)
}

/// `anyOf` / `oneOf` with no match: the alternatives, and the closest one
/// with why it failed: the branch whose type fits the value and that has
/// the fewest failures (the first on a tie); none when no type fits.
fn branches_violation(
    failure: &Failure,
    branches: &[Vec<Failure>],
    schema: &Value,
    arguments: &Value,
) -> Violation {
    let at = &failure.at;
    let branch_schemas = schema_at(schema, &failure.schema_at).and_then(Value::as_array);
    let names: Vec<String> = (0..branches.len())
        .map(|index| match branch_schemas.and_then(|list| list.get(index)) {
            Some(branch) => type_of(branch, schema, 0),
            None => format!("alternative {}", index + 1),
        })
        .collect();
    let expected = names.join(" | ");
    let got = value_and_type(&failure.instance);
    // A branch whose type does not fit the value is no guide to a fix.
    let closest = branches
        .iter()
        .enumerate()
        .filter(|(_, branch_failures)| {
            !branch_failures
                .iter()
                .any(|f| f.at == *at && matches!(f.kind, FailureKind::Type(_)))
        })
        .min_by_key(|(_, branch_failures)| branch_failures.len());
    if let Some((index, branch_failures)) = closest {
        let others_null = names
            .iter()
            .enumerate()
            .all(|(other, name)| other == index || name == "null");
        if others_null && names.len() > 1 {
            if let Some(violation) = or_null(violations(branch_failures, schema, arguments), at) {
                return violation;
            }
        }
    }
    let mut message = format!("{}expected {expected}; got {got}", place(at));
    if let Some((index, branch_failures)) = closest {
        let reasons: Vec<String> = violations(branch_failures, schema, arguments)
            .into_iter()
            .take(MAX_BRANCH_REASONS)
            .map(|v| v.message)
            .collect();
        if !reasons.is_empty() {
            message.push_str(&format!(
                " (closest: {}, which failed: {})",
                names[index],
                reasons.join("; ")
            ));
        }
    }
    Violation::new(at.clone(), failure.keyword.as_str(), expected, got, message)
}
