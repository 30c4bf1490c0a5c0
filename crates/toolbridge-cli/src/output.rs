//! Everything printed: notes, errors, written files.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::json;
use toolbridge::{Level, Note};

use crate::cli::NotesStyle;

/// Where a note came from, for its printed line.
pub struct Place<'a> {
    /// The format written, or `None` for reading.
    pub format: Option<&'a str>,
    /// The input file.
    pub origin: Option<&'a str>,
    /// The tool's name.
    pub tool: Option<&'a str>,
}

impl Place<'_> {
    fn prefix(&self) -> String {
        [self.origin, self.tool, self.format]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(": ")
    }
}

/// Prints one note on stderr in the chosen style.
pub fn print_note(style: NotesStyle, place: &Place<'_>, note: &Note) -> Result<()> {
    let mut stderr = io::stderr().lock();
    match style {
        NotesStyle::None => Ok(()),
        NotesStyle::Text => Ok(writeln!(stderr, "{}", note_line(place, note))?),
        NotesStyle::Json => Ok(writeln!(stderr, "{}", note_json(place, note))?),
    }
}

/// `PLACE: LEVEL: MESSAGE (at POINTER)`.
pub fn note_line(place: &Place<'_>, note: &Note) -> String {
    let prefix = place.prefix();
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}: ")
    };
    format!("{prefix}{}: {} (at {})", note.level, note.message, note.at)
}

/// The note as one JSON object with its place.
pub fn note_json(place: &Place<'_>, note: &Note) -> String {
    let mut value = serde_json::to_value(note).expect("notes serialize");
    if let Some(object) = value.as_object_mut() {
        let mut with_place = serde_json::Map::new();
        for (key, field) in [
            ("origin", place.origin),
            ("tool", place.tool),
            ("format", place.format),
        ] {
            if let Some(field) = field {
                with_place.insert(key.into(), json!(field));
            }
        }
        with_place.extend(std::mem::take(object));
        *object = with_place;
    }
    value.to_string()
}

/// Prints a tool-level error (the tool was skipped) on stderr.
pub fn print_tool_error(style: NotesStyle, place: &Place<'_>, err: &toolbridge::Error) -> Result<()> {
    let mut stderr = io::stderr().lock();
    if style == NotesStyle::Json {
        let mut value = json!({"level": "error", "message": err.to_string(), "at": err.pointer().as_str()});
        for (key, field) in [
            ("origin", place.origin),
            ("tool", place.tool),
            ("format", place.format),
        ] {
            if let Some(field) = field {
                value[key] = json!(field);
            }
        }
        writeln!(stderr, "{value}")?;
    } else {
        let prefix = place.prefix();
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}: ")
        };
        writeln!(stderr, "{prefix}error: {err}")?;
    }
    Ok(())
}

/// Prints a fatal error as one paragraph: `toolbridge: error: …: cause`.
pub fn print_error(err: &anyhow::Error) {
    let _ = writeln!(io::stderr(), "toolbridge: error: {err:#}");
}

/// True if the error is a closed stdout (`toolbridge … | head`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

/// Writes text to a file, or stdout when `path` is `None`.
pub fn emit(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        Some(path) => {
            if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
                fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
            }
            fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            let mut stdout = io::stdout().lock();
            stdout.write_all(text.as_bytes())?;
            stdout.flush()?;
            Ok(())
        }
    }
}

/// Parses a `--deny`/`--show` level name.
pub fn parse_level(name: &str) -> Result<Level> {
    Level::from_name(name)
        .with_context(|| format!("{name:?} is not a level; use info, change, loss or error"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolbridge::{NoteKind, Pointer};

    fn note() -> Note {
        Note::new(
            NoteKind::Dropped {
                keyword: "title".into(),
            },
            Pointer::root().key("title"),
            "gemini has no place for \"title\"",
        )
    }

    #[test]
    fn text_lines_name_the_place() {
        let place = Place {
            format: Some("gemini"),
            origin: None,
            tool: Some("get_weather"),
        };
        assert_eq!(
            note_line(&place, &note()),
            "get_weather: gemini: loss: gemini has no place for \"title\" (at /title)"
        );
    }

    #[test]
    fn json_lines_start_with_the_place() {
        let place = Place {
            format: Some("gemini"),
            origin: Some("w.json"),
            tool: Some("t"),
        };
        assert_eq!(
            note_json(&place, &note()),
            r#"{"origin":"w.json","tool":"t","format":"gemini","kind":"dropped","keyword":"title","level":"loss","at":"/title","message":"gemini has no place for \"title\""}"#
        );
    }
}
