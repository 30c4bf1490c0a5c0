//! `toolbridge calls --text` and `stream --text`: the tool calls in an
//! open-weight model's raw text, whole or as it arrives. (`toolbridge text`
//! is a hidden alias of `calls --text`.)

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::json;
use toolbridge::call::{CallEvent, ToolCall};
use toolbridge::text::{Family, TextStream};
use toolbridge::{Checked, Limits, Tool, Toolbox};

use crate::cli::{CallsArgs, InputArgs, StreamArgs, TextArgs};
use crate::input;
use crate::output;

/// `toolbridge text`: `calls --text` under its old name.
pub fn run(args: &TextArgs) -> Result<ExitCode> {
    calls(args.input.as_deref(), &args.family, &args.tools, args.json)
}

/// `calls --text`.
pub fn run_calls(args: &CallsArgs) -> Result<ExitCode> {
    calls(args.response.as_deref(), &args.family, &args.tools, args.json)
}

fn calls(input: Option<&Path>, family: &str, tools: &[PathBuf], as_json: bool) -> Result<ExitCode> {
    let limits = Limits::default();
    let tools = load_tools(tools)?;
    let (origin, text) = input::read_text(input, &limits)?;
    let family = match family {
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
    let checked = match &tools {
        Some(tools) => Some(Toolbox::new(tools.iter().cloned())?.check_all(calls)),
        None => None,
    };
    for (at, call) in calls.iter().enumerate() {
        failed |= call.arguments.is_err();
        for note in &call.notes {
            eprintln!("{origin}: {}: {family}: {note}", call.name);
        }
        match checked.as_ref().map(|checked| &checked[at]) {
            Some(checked) => {
                failed |= !checked.is_accepted();
                print_checked(&mut out, &origin, checked, as_json)?;
            }
            None if as_json => writeln!(out, "{}", output::call_json(call))?,
            None => writeln!(out, "{}", super::calls::call_line(call))?,
        }
    }
    if as_json {
        writeln!(out, "{}", json!({ "content": prose }))?;
    } else if !prose.is_empty() {
        writeln!(out, "content: {}", serde_json::Value::from(prose))?;
    }
    Ok(super::exit_code(false, failed))
}

/// A call the Toolbox checked: its canonical arguments, or the rejection
/// written for the model.
fn print_checked(out: &mut impl Write, origin: &str, checked: &Checked, as_json: bool) -> Result<()> {
    match checked {
        Checked::Accepted(call) => {
            for note in &call.notes {
                eprintln!("{origin}: {}: {note}", call.id);
            }
            if as_json {
                writeln!(
                    out,
                    "{}",
                    json!({"id": call.id, "name": call.name, "arguments": call.arguments})
                )?;
            } else {
                writeln!(out, "{} {} {}", call.id, call.name, call.arguments)?;
            }
        }
        Checked::Rejected(rejection) => {
            if as_json {
                writeln!(
                    out,
                    "{}",
                    json!({"id": rejection.id, "name": rejection.name, "rejection": rejection.message})
                )?;
            } else {
                write!(out, "{} {} rejected:", rejection.id, rejection.name)?;
                for line in rejection.message.lines() {
                    write!(out, "\n  {line}")?;
                }
                writeln!(out)?;
            }
        }
    }
    Ok(())
}

/// `stream --text`: events printed as the text arrives (read 8 KiB at a
/// time; a UTF-8 sequence cut by a read waits for its end).
pub fn run_stream(args: &StreamArgs) -> Result<ExitCode> {
    let limits = Limits::default();
    let tools = load_tools(&args.tools)?;
    let family = match args.family.as_str() {
        "auto" => None,
        id => Some(Family::from_id(id)?),
    };
    let (origin, mut reader) = input::open_bytes(args.input.as_deref())?;
    let mut stream =
        TextStream::with_limits(family, tools.as_deref(), &limits).send_changes(!args.no_changes);
    let mut out = std::io::stdout().lock();
    let mut events = Vec::new();
    let mut failed = false;
    let mut bytes = Vec::new();
    let mut chunk = vec![0; 8 * 1024];
    let mut announced = family.is_some();
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(read) => read,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err).context("cannot read the text"),
        };
        let pushed = if read == 0 {
            if !bytes.is_empty() {
                anyhow::bail!("{origin}: the text is not UTF-8 (it ends inside a character)");
            }
            events.clear();
            stream.finish(&mut events)
        } else {
            bytes.extend_from_slice(&chunk[..read]);
            let valid = match std::str::from_utf8(&bytes) {
                Ok(text) => text.len(),
                Err(err) if err.error_len().is_none() => err.valid_up_to(),
                Err(err) => anyhow::bail!("{origin}: the text is not UTF-8 (at byte {})", err.valid_up_to()),
            };
            let text = std::str::from_utf8(&bytes[..valid]).expect("checked UTF-8");
            // The last read's events were printed: their buffers take this read's.
            let pushed = stream.push_reusing(text, &mut events);
            bytes.drain(..valid);
            pushed
        };
        if !announced {
            if let Some(family) = stream.family() {
                eprintln!("{origin}: detected {family}");
                announced = true;
            }
        }
        let shown = stream.family().map_or("text", Family::id);
        for event in &events {
            failed |= matches!(event, CallEvent::Finished { call, .. } if call.arguments.is_err());
            print_event(&mut out, &origin, shown, event, args.json)?;
        }
        out.flush()?;
        pushed?;
        if read == 0 {
            break;
        }
    }
    let shown = stream.family().map_or("text", Family::id);
    for note in stream.notes() {
        eprintln!("{origin}: {shown}: {note}");
    }
    Ok(super::exit_code(false, failed))
}

fn print_event(
    out: &mut impl Write,
    origin: &str,
    family: &str,
    event: &CallEvent,
    as_json: bool,
) -> Result<()> {
    match event {
        CallEvent::Text { text } if as_json => writeln!(out, "{}", json!({"event": "text", "text": text}))?,
        CallEvent::Text { text } => writeln!(out, "text {}", serde_json::Value::from(text.as_str()))?,
        CallEvent::Finished { call, .. } => {
            print_notes(origin, family, call);
            super::stream::print_event(out, origin, family, event, as_json, false)?;
        }
        _ => super::stream::print_event(out, origin, family, event, as_json, false)?,
    }
    Ok(())
}

fn print_notes(origin: &str, family: &str, call: &ToolCall) {
    for note in &call.notes {
        eprintln!("{origin}: {}: {family}: {note}", call.name);
    }
}

/// The tools of the `--tools` files, whose schemas type the values.
fn load_tools(files: &[PathBuf]) -> Result<Option<Vec<Tool>>> {
    if files.is_empty() {
        return Ok(None);
    }
    let inputs = input::load(&InputArgs::files(files.to_vec()))?;
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
