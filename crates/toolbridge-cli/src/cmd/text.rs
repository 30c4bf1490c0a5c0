//! `toolbridge text`: the tool calls in an open-weight model's raw text.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use toolbridge::text::Family;
use toolbridge::{Limits, Tool};

use crate::cli::{InputArgs, TextArgs};
use crate::input;
use crate::output;

pub fn run(args: &TextArgs) -> Result<ExitCode> {
    let limits = Limits::default();
    let tools = load_tools(args)?;
    let (origin, text) = input::read_text(args.input.as_deref(), &limits)?;
    let family = match args.family.as_str() {
        "auto" => match Family::detect(&text) {
            Some(family) => {
                eprintln!("{origin}: detected {family}");
                Some(family)
            }
            None => None,
        },
        id => Some(Family::from_id(id)?),
    };
    let parsed = match family {
        Some(family) => Some(toolbridge::text::parse_with_limits(
            &text,
            family,
            tools.as_deref(),
            &limits,
        )?),
        None => None,
    };
    let (prose, calls, notes) = match &parsed {
        Some(parsed) => (
            parsed.prose.as_str(),
            parsed.calls.as_slice(),
            parsed.notes.as_slice(),
        ),
        None => (text.trim(), &[][..], &[][..]),
    };
    let family = family.map_or("text", Family::id);
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for note in notes {
        eprintln!("{origin}: {family}: {note}");
    }
    for call in calls {
        failed |= call.arguments.is_err();
        for note in &call.notes {
            eprintln!("{origin}: {}: {family}: {note}", call.name);
        }
        if args.json {
            writeln!(out, "{}", output::call_json(call))?;
        } else {
            writeln!(out, "{}", super::calls::call_line(call))?;
        }
    }
    if args.json {
        writeln!(out, "{}", serde_json::json!({ "content": prose }))?;
    } else if !prose.is_empty() {
        writeln!(out, "content: {}", serde_json::Value::from(prose))?;
    }
    Ok(super::exit_code(false, failed))
}

/// The tools of the `--tools` files, whose schemas type the values.
fn load_tools(args: &TextArgs) -> Result<Option<Vec<Tool>>> {
    if args.tools.is_empty() {
        return Ok(None);
    }
    let inputs = input::load(&InputArgs::files(args.tools.clone()))?;
    if let Some(err) = inputs.errors.into_iter().next() {
        return Err(err.context("cannot read the --tools files"));
    }
    Ok(Some(
        inputs
            .reads
            .iter()
            .flat_map(|read| read.ok_tools().cloned())
            .collect(),
    ))
}
