//! Every provider fixture reads (or, for `err_*`, fails) as its directory's
//! format says, is detected as that format, and keeps what it holds outside
//! the schemas through a write and a read in the same format.

use std::fs;
use std::path::Path;

use serde_json::Value;
use toolbridge::{read, read_value, write, Format, ReadOptions, Tool, WriteOptions};

const PROVIDER_FORMATS: [&str; 9] = [
    "openai",
    "openai-responses",
    "anthropic",
    "gemini",
    "gemini-json",
    "bedrock",
    "ollama",
    "mistral",
    "cohere",
];

fn fixtures(format: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format);
    let mut files: Vec<(String, String)> = fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{format} has only {} fixtures", files.len());
    files
}

/// The tool without the parts schema lowering may change on the way.
fn outside_schemas(tool: &Tool, format: Format) -> Value {
    let mut tool = tool.clone();
    // Keys the format does not define stay on the canonical tool and are
    // not written back (checked with their notes below).
    tool.extra.clear();
    let mut value = tool.to_value();
    let object = value.as_object_mut().unwrap();
    object.shift_remove("inputSchema");
    object.shift_remove("outputSchema");
    if format == Format::OpenAiResponses && !object.contains_key("strict") {
        // Responses is strict by default, so the writer says "strict": false.
        object.insert("strict".into(), Value::Bool(false));
    }
    value
}

#[test]
fn every_provider_fixture_reads_or_fails_as_named() {
    for id in PROVIDER_FORMATS {
        let format = Format::from_id(id).unwrap();
        for (name, text) in fixtures(id) {
            let opts = ReadOptions::default().with_from(format).with_origin(name.clone());
            let result = read(&text, &opts);
            if name.starts_with("err_") {
                let failed = match &result {
                    Err(_) => true,
                    Ok(read) => read.tools.iter().any(Result::is_err),
                };
                assert!(failed, "{id}/{name} should fail: {result:?}");
                continue;
            }
            let read = result.unwrap_or_else(|err| panic!("{id}/{name}: {err}"));
            assert!(!read.tools.is_empty(), "{id}/{name} holds no tools");
            let tools: Vec<Tool> = read
                .tools
                .into_iter()
                .map(|tool| tool.unwrap_or_else(|err| panic!("{id}/{name}: {err}")).value)
                .collect();

            let detected = toolbridge::read(&text, &ReadOptions::default()).unwrap().format;
            let expected = format.info().same_shape_as.unwrap_or(format);
            assert_eq!(detected, expected, "{id}/{name} detected as {detected}");

            if format == Format::Gemini {
                // A Gemini Schema reads back only once schema lowering writes
                // the OpenAPI subset (type lists become "nullable").
                continue;
            }
            let written = write(&tools, format, &WriteOptions::default());
            assert!(written.is_complete(), "{id}/{name} could not be written");
            for (tool, written) in tools.iter().zip(&written.tools) {
                let notes = &written.result.as_ref().unwrap().notes;
                for key in tool.extra.keys() {
                    assert!(
                        notes.iter().any(|note| note.at.as_str() == format!("/{key}")),
                        "{id}/{name}: {key:?} was not written back and no note says so"
                    );
                }
            }
            let output = written.output();
            let document = output.as_json().unwrap();
            let back = read_value(document, &ReadOptions::default().with_from(format)).unwrap();
            let back: Vec<Tool> = back.into_converted().unwrap().value;
            assert_eq!(back.len(), tools.len(), "{id}/{name}");
            for (before, after) in tools.iter().zip(&back) {
                assert_eq!(
                    outside_schemas(after, format),
                    outside_schemas(before, format),
                    "{id}/{name}: {} changed on a round trip",
                    before.name
                );
            }
        }
    }
}
