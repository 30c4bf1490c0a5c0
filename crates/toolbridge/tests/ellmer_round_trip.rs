//! Tools read from R (the ellmer fixtures, the seed `tool_rnorm` among them)
//! go through every format and come back equal, apart from what the writer
//! noted (at the place that changed or above it); through ellmer itself they
//! come back exactly, since everything read from R is expressible in R, but
//! for `$ref`s, which come back written in place.

mod common;

use toolbridge::{Format, Note, Pointer, ReadOptions, Tool, WriteOptions};

fn through(tool: &Tool, format: Format, strict: bool) -> (Tool, Vec<Note>) {
    let written = toolbridge::write(
        std::slice::from_ref(tool),
        format,
        &WriteOptions::default().with_strict(strict),
    );
    let converted = match &written.tools[0].result {
        Ok(converted) => converted,
        Err(err) => panic!("{format}: {} cannot be written: {err}", tool.name),
    };
    let text = converted.value.to_text();
    let back = toolbridge::read(&text, &ReadOptions::default().with_from(format))
        .unwrap_or_else(|err| panic!("{format}: {err}\n{text}"))
        .tools
        .remove(0)
        .unwrap_or_else(|err| panic!("{format}: {err}\n{text}"))
        .value;
    let mut notes = converted.notes.clone();
    notes.extend(written.notes.iter().cloned());
    (back, notes)
}

#[test]
fn r_tools_round_trip_through_every_format() {
    insta::glob!("fixtures/ellmer/*.R", |path| {
        if common::is_error_fixture(path) {
            return;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let tools = toolbridge::read(&text, &ReadOptions::default().with_from(Format::Ellmer))
            .unwrap()
            .into_converted()
            .unwrap()
            .value;
        assert!(!tools.is_empty());
        for tool in &tools {
            for format in Format::all() {
                for strict in [false, true] {
                    let (back, notes) = through(tool, format, strict);
                    // A `$ref` is written in place (ellmer's types have no references), so it
                    // comes back inline; everything else read from R comes back exactly.
                    let inlined = notes.iter().any(|note| note.at.as_str().ends_with("/$ref"));
                    if format == Format::Ellmer && !inlined {
                        assert_eq!(&back, tool, "{}: {} through ellmer", path.display(), tool.name);
                    }
                    let unexplained = common::unexplained(tool, &back, &notes);
                    let unexplained: Vec<&str> = unexplained.iter().map(Pointer::as_str).collect();
                    assert!(
                        unexplained.is_empty(),
                        "{}: {} through {format} changed without a note at {unexplained:?}\nnotes:\n{}",
                        path.display(),
                        tool.name,
                        common::note_lines(&notes)
                    );
                }
            }
        }
    });
}

#[test]
fn the_seed_writes_as_current_ellmer() {
    let seed = include_str!("fixtures/ellmer/tool_rnorm.R");
    let tool = toolbridge::read(seed, &ReadOptions::default().with_origin("tool_rnorm.R"))
        .unwrap()
        .into_converted()
        .unwrap()
        .value
        .remove(0);
    let written = toolbridge::write_tool(&tool, Format::Ellmer, &WriteOptions::default()).unwrap();
    assert_eq!(
        written.value.to_text(),
        r#"tool_rnorm <- tool(
  rnorm,
  "Drawn numbers from a random normal distribution",
  arguments = list(
    n = type_integer("The number of observations. Must be a positive integer."),
    mean = type_number("The mean value of the distribution."),
    sd = type_number("The standard deviation of the distribution. Must be a non-negative number.")
  ),
  name = "rnorm",
  annotations = tool_annotations(
    title = "Draw Random Normal Numbers",
    read_only_hint = TRUE,
    open_world_hint = FALSE
  )
)
"#
    );
    assert_eq!(
        common::note_lines(&written.notes),
        "change /inputSchema: ellmer sends additionalProperties: false for the arguments and every type_object() \
         (to every provider but Gemini), so the model can no longer add keys that are not declared\n"
    );
}
