//! Every open-weight family's fixtures: `fixtures/text/<family>/<case>.txt`
//! holds the model's raw text exactly (no header: every byte is the
//! model's), the folder names the family (its id on the command line), and
//! `fixtures/text/<family>/SOURCES.md` names the chat template and parser
//! sources the texts were written from. Each family has at least `one`,
//! `parallel`, `prose` (prose before and after the calls), `unicode`
//! (unicode and escaped strings in the arguments), `no_arguments` and
//! `truncated`; the snapshot holds the exact calls, prose and notes.
//!
//! Other tests (the streamed parser's split invariance) iterate over the
//! same folder: parse each text with [`tools`]' schemas and the family its
//! folder names.

use toolbridge::text::{parse, Family};
use toolbridge::Tool;

/// The tools the fixtures call (`fixtures/text_tools.json`: each tool's
/// name and input schema); their schemas type the values of the families
/// that write raw text.
fn tools() -> Vec<Tool> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text_tools.json");
    let schemas: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    schemas
        .into_iter()
        .map(|(name, schema)| Tool::new(name, schema))
        .collect()
}

/// `id name arguments` per call with its notes, then the prose and the
/// text's own notes.
fn render(text: &str, family: Family) -> String {
    let parsed = parse(text, family, Some(&tools())).unwrap();
    let mut lines = Vec::new();
    for call in &parsed.calls {
        match &call.arguments {
            Ok(arguments) => lines.push(format!("{} {} {arguments}", call.id, call.name)),
            Err(error) => lines.push(format!("{} {} error: {error}", call.id, call.name)),
        }
        for note in &call.notes {
            lines.push(format!("  {note}"));
        }
    }
    lines.push(format!("prose: {:?}", parsed.prose));
    for note in &parsed.notes {
        lines.push(format!("note: {note}"));
    }
    lines.join("\n")
}

#[test]
fn fixtures() {
    insta::glob!("fixtures/text/*/*.txt", |path| {
        let id = path.parent().unwrap().file_name().unwrap().to_str().unwrap();
        let family = Family::from_id(id).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        assert_eq!(Family::detect(&text), Some(family), "detected family of {path:?}");
        insta::assert_snapshot!(render(&text, family));
    });
}

#[test]
fn every_family_has_every_case() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text");
    for info in toolbridge::text::FAMILIES {
        for case in ["one", "parallel", "prose", "unicode", "no_arguments", "truncated"] {
            let path = root.join(info.id).join(format!("{case}.txt"));
            assert!(path.is_file(), "{} has no {case} fixture", info.id);
        }
        assert!(
            root.join(info.id).join("SOURCES.md").is_file(),
            "{} names no sources",
            info.id
        );
    }
}

/// Streamed a character at a time, and in pieces of 2, 3, 5 and 7 bytes
/// (cut back to character boundaries), every fixture gives the calls and
/// the prose of its whole-text parse.
#[test]
fn fixtures_streamed_in_pieces_give_the_whole_parse() {
    use toolbridge::call::CallEvent;
    use toolbridge::text::TextStream;
    let tools = tools();
    insta::glob!("fixtures/text/*/*.txt", |path| {
        let id = path.parent().unwrap().file_name().unwrap().to_str().unwrap();
        let family = Family::from_id(id).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let whole = parse(&text, family, Some(&tools)).unwrap();
        for size in [1, 2, 3, 5, 7] {
            let mut stream = TextStream::new(Some(family), Some(&tools));
            let mut events = Vec::new();
            let mut at = 0;
            while at < text.len() {
                let mut end = (at + size).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                stream.push(&text[at..end], &mut events).unwrap();
                at = end;
            }
            stream.finish(&mut events).unwrap();
            let mut calls = Vec::new();
            let mut prose = String::new();
            for event in events {
                match event {
                    CallEvent::Finished { call, .. } => calls.push(*call),
                    CallEvent::Text { text } => prose.push_str(&text),
                    _ => {}
                }
            }
            assert_eq!(calls, whole.calls, "calls of {path:?} in pieces of {size}");
            assert_eq!(prose.trim(), whole.prose, "prose of {path:?} in pieces of {size}");
        }
    });
}
