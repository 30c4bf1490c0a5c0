//! The seed examples (every Syllable and SkyDeck fixture) read, convert to
//! every format, and read back equal to what was read — except where the
//! writer declared a difference with a note at that place (or around it).

mod common;

use std::fs;
use std::path::Path;

use serde_json::Value;
use toolbridge::{Format, Level, Note, Pointer, ReadOptions, Tool, WriteOptions};

/// The places where `before` and `after` differ: a member present on one
/// side only, an array whose length changed, or a differing value.
fn differences(before: &Value, after: &Value, at: &Pointer, found: &mut Vec<Pointer>) {
    match (before, after) {
        (Value::Object(left), Value::Object(right)) => {
            for key in left
                .keys()
                .chain(right.keys().filter(|key| !left.contains_key(*key)))
            {
                match (left.get(key), right.get(key)) {
                    (Some(left), Some(right)) => differences(left, right, &at.key(key), found),
                    _ => found.push(at.key(key)),
                }
            }
        }
        (Value::Array(left), Value::Array(right)) if left.len() == right.len() => {
            for (index, (left, right)) in left.iter().zip(right).enumerate() {
                differences(left, right, &at.index(index), found);
            }
        }
        _ if before == after => {}
        _ => found.push(at.clone()),
    }
}

fn declared(place: &Pointer, notes: &[Note]) -> bool {
    notes
        .iter()
        .any(|note| place.starts_with(&note.at) || note.at.starts_with(place))
}

fn seed_tools(path: &Path) -> Vec<Tool> {
    let format = common::fixture_format(path);
    let text = fs::read_to_string(path).unwrap();
    let read = toolbridge::read(&text, &ReadOptions::default().with_from(format)).unwrap();
    read.tools
        .into_iter()
        .map(|tool| {
            tool.unwrap_or_else(|err| panic!("{}: {err}", path.display()))
                .value
        })
        .collect()
}

fn check_every_format(path: &Path) {
    let tools = seed_tools(path);
    let case = path.file_name().unwrap().to_string_lossy();
    for format in Format::all() {
        let written = toolbridge::write(&tools, format, &WriteOptions::default());
        let text = written.output().to_text();
        let back = toolbridge::read(&text, &ReadOptions::default().with_from(format))
            .unwrap_or_else(|err| panic!("{case} → {format}: the output does not read back: {err}\n{text}"))
            .into_converted()
            .unwrap()
            .value;
        assert_eq!(back.len(), tools.len(), "{case} → {format}: {text}");
        for ((tool, written_tool), again) in tools.iter().zip(&written.tools).zip(&back) {
            let converted = written_tool
                .result
                .as_ref()
                .unwrap_or_else(|err| panic!("{case} → {format}: {err}"));
            let mut places = Vec::new();
            differences(&tool.to_value(), &again.to_value(), &Pointer::root(), &mut places);
            let undeclared: Vec<String> = places
                .iter()
                .filter(|place| !declared(place, &converted.notes))
                .map(Pointer::to_string)
                .collect();
            assert!(
                undeclared.is_empty(),
                "{case} → {format} → back differs at {undeclared:?} with no note there\nnotes:\n{}output:\n{text}",
                common::note_lines(&converted.notes)
            );
        }
    }
}

#[test]
fn syllable_seed_examples_survive_every_format() {
    insta::glob!("fixtures/syllable/*.json", |path| {
        if !common::is_error_fixture(path) {
            check_every_format(path);
        }
    });
}

#[test]
fn skydeck_seed_examples_survive_every_format() {
    insta::glob!("fixtures/skydeck/*.json", |path| {
        if !common::is_error_fixture(path) {
            check_every_format(path);
        }
    });
}

/// Syllable → toolbridge → Syllable and SkyDeck → toolbridge → SkyDeck lose nothing.
#[test]
fn syllable_and_skydeck_read_back_their_own_output_unchanged() {
    insta::glob!("fixtures/{syllable,skydeck}/*.json", |path| {
        if common::is_error_fixture(path) {
            return;
        }
        let format = common::fixture_format(path);
        let tools = seed_tools(path);
        let written = toolbridge::write(&tools, format, &WriteOptions::default());
        for tool in &written.tools {
            let notes = &tool.result.as_ref().unwrap().notes;
            let losses: Vec<&Note> = notes.iter().filter(|note| note.level() >= Level::Loss).collect();
            assert!(
                losses.is_empty(),
                "{}: {}",
                path.display(),
                common::note_lines(losses)
            );
        }
        let back = toolbridge::read(
            &written.output().to_text(),
            &ReadOptions::default().with_from(format),
        )
        .unwrap()
        .into_converted()
        .unwrap()
        .value;
        assert_eq!(back, tools, "{}", path.display());
    });
}
