//! Every response and stream fixture is detected as its provider's (Mistral
//! answers in OpenAI Chat's shape, so it reads as OpenAI).

use std::fs;
use std::path::Path;

use toolbridge::Format;

fn expected(provider: &str) -> Format {
    match Format::from_id(provider).unwrap() {
        Format::Mistral => Format::OpenAi,
        format => format,
    }
}

fn fixtures(kind: &str) -> Vec<(String, std::path::PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind);
    let mut found = Vec::new();
    for provider in fs::read_dir(&root).unwrap() {
        let provider = provider.unwrap().path();
        let id = provider.file_name().unwrap().to_string_lossy().to_string();
        for file in fs::read_dir(&provider).unwrap() {
            let file = file.unwrap().path();
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            if !name.starts_with("err_") && !name.ends_with(".snap") {
                found.push((id.clone(), file));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn responses_are_detected() {
    let cases = fixtures("calls");
    assert!(cases.len() >= 20, "{cases:?}");
    for (provider, file) in cases {
        let value: serde_json::Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(
            Format::detect_response(&value),
            Some(expected(&provider)),
            "{}",
            file.display()
        );
    }
    assert_eq!(Format::detect_response(&serde_json::json!({"hello": 1})), None);
}

#[test]
fn streams_are_detected_from_their_first_bytes() {
    let cases = fixtures("streams");
    assert!(cases.len() >= 25, "{cases:?}");
    for (provider, file) in cases {
        let bytes = fs::read(&file).unwrap();
        let head = &bytes[..bytes.len().min(2048)];
        assert_eq!(
            Format::detect_stream(head),
            Some(expected(&provider)),
            "{}",
            file.display()
        );
    }
    assert_eq!(Format::detect_stream(b": keep-alive\n\n"), None);
}
