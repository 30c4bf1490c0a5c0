//! The documents the `stream` and `text` benchmarks stream, shared with
//! the `stream_cost` example (instruction counts and peak memory) and
//! `tests/text_stream.rs` (the adversarial pieces).

#![allow(dead_code)]

use serde_json::json;
use toolbridge::text::Family;

/// The shapes, by name.
pub const SHAPES: [&str; 2] = ["string", "nested"];

/// The document of `shape` (one of [`SHAPES`]), about `size` bytes long.
pub fn document(shape: &str, size: usize) -> String {
    match shape {
        "string" => string_document(size),
        _ => nested_document(size),
    }
}

/// Source code as a model writes it into a file: quotes, backslashes, tabs,
/// newlines and a little non-ASCII, all escaped once in JSON.
const CODE: &str =
    "fn main() {\n\tlet path = \"C:\\\\tools\\\\bridge\";\n    println!(\"héllo {path} → ✓\");\n    \
                    // a comment with a \"quote\" and a tab\there\n}\n";

/// A file write of about `size` bytes of JSON.
fn string_document(size: usize) -> String {
    let escaped = serde_json::to_string(CODE).map_or(CODE.len(), |text| text.len() - 2);
    let content = CODE.repeat(size.saturating_sub(40) / escaped + 1);
    json!({"path": "src/main.rs", "content": content}).to_string()
}

/// An array of small objects, about `size` bytes of JSON.
fn nested_document(size: usize) -> String {
    let mut items = Vec::new();
    let mut length = 12;
    while length < size {
        let item = json!({
            "id": items.len(),
            "name": format!("item {}", items.len()),
            "tags": ["new", "sale"],
            "price": 12.5 + items.len() as f64,
            "in_stock": items.len() % 3 != 0,
            "dimensions": {"w": 10, "h": -2.5e-3, "unit": null},
        });
        length += item.to_string().len() + 1;
        items.push(item);
    }
    json!({"items": items}).to_string()
}

/// `text` cut into deltas of `chunk` bytes, each cut moved back to a
/// character boundary.
pub fn deltas(text: &str, chunk: usize) -> Vec<&str> {
    let mut deltas = Vec::with_capacity(text.len() / chunk + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + chunk).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end == start {
            end = start + text[start..].chars().next().map_or(1, char::len_utf8);
        }
        deltas.push(&text[start..end]);
        start = end;
    }
    deltas
}

/// Pieces of adversarial model text: partial markers, unclosed calls,
/// reasoning that never closes. Repeated, they must stream in time linear
/// in their length (`text/adversarial/…`) and to the whole-text parse.
pub const ADVERSARIAL: [&str; 9] = [
    "<tool_ca",
    "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"",
    "<function=f><parameter=a>x",
    "[TOOL_CALLS]",
    "<think>[TOOL_CALLS]",
    "<|eot_id|> ",
    "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": \"",
    "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": [",
    "<|channel|>commentary to=functions.f<|message|>{\"a\": \"",
];

/// The families the adversarial pieces are streamed as.
pub const ADVERSARIAL_FAMILIES: [Family; 8] = [
    Family::Hermes,
    Family::Qwen3Coder,
    Family::Mistral,
    Family::Llama3,
    Family::Glm,
    Family::Kimi,
    Family::DeepSeek,
    Family::Harmony,
];

/// One region holding many calls, most under one id (a JSON list, Llama's
/// `;`-joined calls, a Python list): (family, the region's opening, the
/// call repeated). Each call is
/// announced as it begins, so they must stream in time linear in their
/// number (`text/many-calls/…`) and to the whole-text parse.
pub const MANY_CALLS: [(Family, &str, &str); 4] = [
    (
        Family::Granite,
        "<|tool_call|>[",
        "{\"name\": \"f\", \"id\": \"0\", \"arguments\": {\"a\": \"x\"}}, ",
    ),
    (
        Family::CommandR7b,
        "<|START_ACTION|>[",
        "{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {}}, ",
    ),
    (
        Family::Llama3,
        "<|python_tag|>",
        "{\"name\": \"f\", \"parameters\": {\"a\": 1}}; ",
    ),
    (Family::Pythonic, "[", "f(a=1, b=\"xy\"), "),
];
