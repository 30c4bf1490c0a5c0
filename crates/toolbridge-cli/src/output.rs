//! Everything printed: notes, errors, written files.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};
use toolbridge::{Finding, Level};

use crate::cli::NotesStyle;

/// Prints one finding (a note or a failed tool) on stderr in the chosen style.
pub fn print_finding(style: NotesStyle, finding: &Finding) -> Result<()> {
    let mut stderr = io::stderr().lock();
    match style {
        NotesStyle::None => Ok(()),
        NotesStyle::Text => Ok(writeln!(stderr, "{finding}")?),
        NotesStyle::Json => Ok(writeln!(stderr, "{}", finding.to_json())?),
    }
}

/// A call as one JSON object: `{"id", "name", "arguments"}`, or `"error"`
/// and `"raw"` (the text the provider sent) in place of `"arguments"`; then
/// `"choice"` when every choice was read, and `"extras"` (what must go back
/// to the provider with the call: Gemini's `thoughtSignature`, Cohere's
/// `tool_plan`, …) when there are any.
pub fn call_json(call: &toolbridge::call::ToolCall) -> serde_json::Value {
    let mut json = match &call.arguments {
        Ok(arguments) => serde_json::json!({"id": call.id, "name": call.name, "arguments": arguments}),
        Err(error) => serde_json::json!({"id": call.id, "name": call.name, "error": error.to_string(),
            "raw": error.raw()}),
    };
    if let Some(choice) = call.choice {
        json["choice"] = choice.into();
    }
    if !call.extras.is_empty() {
        json["extras"] = serde_json::Value::Object(call.extras.clone());
    }
    json
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
