//! `#[tool]`: the definitions it generates (exact JSON) and what its
//! handlers make of arguments and return values.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use toolbridge_runtime::{tool, Output, RustTool};

/// A sort order. (Doc comments on the variants would make schemars write
/// a `oneOf` of `const`s, each with its description, instead of an `enum`.)
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    Newest,
    Oldest,
}

/// A date range.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Range {
    /// The first day, `YYYY-MM-DD`.
    pub from: String,
    /// The last day, if any.
    pub to: Option<String>,
}

/// A search hit.
#[derive(Debug, Serialize)]
pub struct Hit {
    title: String,
    score: f64,
}

/// Searches the notes.
///
/// Returns the best hits first.
#[tool(
    name = "search_notes",
    title = "Search notes",
    read_only,
    idempotent,
    open_world = false,
    category = "notes"
)]
pub async fn search(
    /// Words to look for.
    query: String,
    /// How many hits, at most.
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
    /// The order of the hits.
    order: Order,
    /// Only notes written in this range.
    range: Option<Range>,
) -> Vec<Hit> {
    let limit = limit.unwrap_or(2) as usize;
    let mut hits = vec![
        Hit {
            title: format!("{query} ({order:?})"),
            score: 0.5,
        },
        Hit {
            title: range.map_or("any time".to_string(), |range| range.from),
            score: 0.25,
        },
    ];
    hits.truncate(limit);
    hits
}

/// Deletes a file.
#[tool(destructive, confirm)]
fn delete_file(
    /// The path.
    path: String,
    #[serde(rename = "dryRun", default)] dry_run: bool,
) -> Result<String, std::io::Error> {
    if dry_run {
        Ok(format!("would delete {path}"))
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{path}: permission denied"),
        ))
    }
}

#[tool]
fn now() -> Output {
    Output::text("12:00").with_meta("clock", json!("fake"))
}

#[tool(read_only = false)]
fn r#type(mut r#type: String) -> &'static str {
    r#type.push('!');
    if r#type.len() > 3 {
        "long"
    } else {
        "short"
    }
}

#[tool]
fn nothing() {}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("the tests pass objects"),
    }
}

async fn run(tool: RustTool, value: Value) -> Output {
    tool.handler.call(arguments(value)).await
}

#[test]
fn the_definition_comes_from_the_signature_doc_comments_and_attribute() {
    insta::assert_json_snapshot!("search_notes", search::tool().to_value());
    insta::assert_json_snapshot!("delete_file", delete_file::tool().to_value());
    assert_eq!(search::NAME, "search_notes");
    assert_eq!(
        now::tool().to_value(),
        json!({"name": "now", "inputSchema": {"type": "object", "additionalProperties": false}})
    );
    assert_eq!(
        r#type::tool().to_value(),
        json!({"name": "type", "inputSchema": {"type": "object", "properties": {"type": {"type": "string"}},
            "required": ["type"], "additionalProperties": false}, "annotations": {"readOnlyHint": false}})
    );
}

#[tokio::test]
async fn handlers_deserialise_the_arguments_and_convert_the_result() {
    let output = run(
        search::handler(),
        json!({"query": "rust", "order": "oldest", "limit": 1}),
    )
    .await;
    assert_eq!(
        output,
        Output::json(json!([{"title": "rust (Oldest)", "score": 0.5}]))
    );
    let output = run(
        search::handler(),
        json!({"query": "rust", "order": "newest", "range": {"from": "2026-01-01"}}),
    )
    .await;
    assert_eq!(output.structured.unwrap()[1]["title"], "2026-01-01");

    let output = run(delete_file::handler(), json!({"path": "a.txt", "dryRun": true})).await;
    assert_eq!(output, Output::text("would delete a.txt"));
    let output = run(delete_file::handler(), json!({"path": "a.txt"})).await;
    assert_eq!(output, Output::error("a.txt: permission denied"));

    assert_eq!(
        run(now::handler(), json!({})).await,
        Output::text("12:00").with_meta("clock", json!("fake"))
    );
    assert_eq!(
        run(r#type::handler(), json!({"type": "ab"})).await,
        Output::text("short")
    );
    assert_eq!(run(nothing::handler(), json!({})).await, Output::text("null"));
}

#[tokio::test]
async fn arguments_that_do_not_fit_are_an_error_result_not_a_panic() {
    let output = run(search::handler(), json!({"query": 5, "order": "newest"})).await;
    assert_eq!(
        output,
        Output::error("The arguments of `search_notes` do not fit its parameters: invalid type: integer `5`, expected a string")
    );
    let output = run(search::handler(), json!({"query": "x", "order": "sideways"})).await;
    assert_eq!(
        output,
        Output::error(
            "The arguments of `search_notes` do not fit its parameters: unknown variant `sideways`, expected `newest` or `oldest`"
        )
    );
    let output = run(delete_file::handler(), json!({"path": "a", "force": true})).await;
    assert_eq!(
        output,
        Output::error(
            "The arguments of `delete_file` do not fit its parameters: unknown field `force`, expected `path` or `dryRun`"
        )
    );
}
