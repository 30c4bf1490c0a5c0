//! The model texts the inference servers' own parser tests check, and the
//! calls those tests expect: text no one here wrote, read as the servers
//! read it.
//!
//! `fixtures/text_servers/<server>/<family>.json` holds the cases of one
//! server's test file for one family (the folder names the server, the file
//! the family's id on the command line; a second test file of the same
//! family is `<family>.<more>.json` with a `"family"` field):
//!
//! ```json
//! {
//!   "source": "the test file, as a GitHub address at a commit",
//!   "license": "the test file's license",
//!   "tools": {"get_weather": {"type": "object", "properties": {}}},
//!   "cases": [
//!     {
//!       "test": "the test (and its parameter id) the case comes from",
//!       "text": "the model's text, exactly",
//!       "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
//!       "content": "the prose the test expects (absent when it checks none)"
//!     }
//!   ]
//! }
//! ```
//!
//! `tools` (a name → input schema map, as the test's request declares them;
//! a case may have its own) types the values of the families that write raw
//! text. Where toolbridge answers otherwise on purpose, the case says why in
//! `differs`, holds toolbridge's answer in `calls` / `content` (a call whose
//! arguments toolbridge does not read has `"error"`, the message, instead of
//! `arguments`), and the server's in `server_calls` / `server_content`.
//!
//! A case toolbridge still reads wrongly says how in `gap` (its `calls` /
//! `content` are the server's, the right answer): the test checks that it
//! still differs, so that a mend shows, and counts the gaps.
//!
//! Each case is read whole, and streamed a character at a time and in
//! pieces of 7 bytes (with and without the arguments' changes): all give
//! the expected calls, in order (a gap's streamed calls are those of its
//! whole parse).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use toolbridge::call::{CallEvent, ToolCall};
use toolbridge::text::{parse, Family, TextStream};
use toolbridge::Tool;

// The benchmarks' cutter of a text into pieces.
#[path = "../benches/documents/mod.rs"]
mod documents;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text_servers")
}

/// Every case file: (server, file stem, path).
fn case_files() -> Vec<(String, String, PathBuf)> {
    let mut files = Vec::new();
    let Ok(servers) = std::fs::read_dir(root()) else {
        return files;
    };
    for server in servers {
        let server = server.unwrap().path();
        for file in std::fs::read_dir(&server).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|extension| extension == "json") {
                let name = |path: &Path| path.file_stem().unwrap().to_str().unwrap().to_string();
                files.push((name(&server), name(&path), path));
            }
        }
    }
    files.sort();
    files
}

/// The tools a name → schema map declares.
fn tools_of(schemas: Option<&Value>) -> Vec<Tool> {
    let Some(Value::Object(schemas)) = schemas else {
        return Vec::new();
    };
    schemas
        .iter()
        .map(|(name, schema)| Tool::new(name.clone(), schema.clone()))
        .collect()
}

/// `name arguments` per call (the arguments' error when they are not read).
fn lines_of(calls: &[ToolCall]) -> Vec<String> {
    calls
        .iter()
        .map(|call| match &call.arguments {
            Ok(arguments) => format!("{} {arguments}", call.name),
            Err(error) => format!("{} error: {error}", call.name),
        })
        .collect()
}

/// The expected calls in the form of [`lines_of`].
fn expected_lines(calls: &Value) -> Vec<String> {
    calls
        .as_array()
        .expect("`calls` is a list")
        .iter()
        .map(|call| {
            let name = call["name"].as_str().expect("a call has a name");
            if let Some(error) = call.get("error") {
                return format!("{name} error: {}", error.as_str().expect("an error is a message"));
            }
            let arguments = call
                .get("arguments")
                .cloned()
                .unwrap_or(Value::Object(Map::new()));
            format!("{name} {arguments}")
        })
        .collect()
}

/// The calls of `text` streamed in pieces of `size` bytes (cut back to
/// character boundaries; at least one character), the argument events
/// saying what they changed or not (`changes`).
fn streamed(text: &str, family: Family, tools: Option<&[Tool]>, size: usize, changes: bool) -> Vec<ToolCall> {
    let mut stream = TextStream::new(Some(family), tools).send_changes(changes);
    let mut events = Vec::new();
    for piece in documents::deltas(text, size) {
        stream.push(piece, &mut events).unwrap();
    }
    stream.finish(&mut events).unwrap();
    events
        .into_iter()
        .filter_map(|event| match event {
            CallEvent::Finished { call, .. } => Some(*call),
            _ => None,
        })
        .collect()
}

#[test]
fn servers_test_cases_read_as_the_servers_read_them() {
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut gaps = 0;
    for (server, stem, path) in case_files() {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|error| panic!("{path:?}: {error}"));
        let family_id = file["family"].as_str().unwrap_or(&stem).to_string();
        let family = Family::from_id(&family_id).unwrap_or_else(|error| panic!("{path:?}: {error}"));
        let source = file["source"].as_str().expect("a case file names its source");
        assert!(
            source.starts_with("https://github.com/"),
            "{path:?}: source {source:?}"
        );
        assert!(file["license"].is_string(), "{path:?} names no license");
        for case in file["cases"].as_array().expect("`cases` is a list") {
            cases += 1;
            let test = case["test"].as_str().expect("a case names its test");
            let text = case["text"].as_str().expect("a case has a text");
            assert!(
                case.get("server_calls").is_none() && case.get("server_content").is_none()
                    || case["differs"].is_string(),
                "{server}/{family_id} {test}: the server's answer is kept only with `differs`"
            );
            let tools = tools_of(case.get("tools").or(file.get("tools")));
            let tools = (!tools.is_empty()).then_some(tools.as_slice());
            let expected = expected_lines(&case["calls"]);
            let place = format!("{server}/{stem} {test}");
            let parsed = parse(text, family, tools).unwrap();
            let got = lines_of(&parsed.calls);
            let mut wrong = Vec::new();
            if got != expected {
                wrong.push(format!("{place}\n  expected {expected:#?}\n  got      {got:#?}"));
            } else if let Some(content) = case.get("content") {
                let content = content.as_str().unwrap_or_default();
                if parsed.prose.trim() != content.trim() {
                    wrong.push(format!(
                        "{place}\n  expected prose {content:?}\n  got prose      {:?}",
                        parsed.prose
                    ));
                }
            }
            for (size, changes) in [(1, true), (7, true), (7, false)] {
                // Streamed, a text gives the calls of its whole parse, gap or not.
                let pieces = lines_of(&streamed(text, family, tools, size, changes));
                if pieces != got {
                    failures.push(format!(
                        "{place}, streamed in pieces of {size} (changes: {changes})\n  whole    {got:#?}\n  streamed {pieces:#?}"
                    ));
                }
            }
            match case.get("gap") {
                None => failures.extend(wrong),
                Some(gap) => {
                    assert!(gap.is_string(), "{place}: a gap is a sentence");
                    gaps += 1;
                    if wrong.is_empty() {
                        failures.push(format!(
                            "{place} reads as the server reads it now: drop its `gap`"
                        ));
                    }
                }
            }
        }
    }
    eprintln!("{cases} cases, {gaps} of them known gaps");
    assert!(cases > 0, "no case files under {:?}", root());
    assert!(
        failures.is_empty(),
        "{} of {cases} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
