//! `toolbridge stream`: tool-call events of a captured SSE, NDJSON or AWS event stream.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolbridge::call::{CallEvent, PartialJson};
use toolbridge::{Format, Limits};

use crate::cli::{PartialStyle, StreamArgs};
use crate::input;
use crate::output;

/// How much of a stream is read at a time (and looked at to detect it).
const CHUNK: usize = 8 * 1024;

pub fn run(args: &StreamArgs) -> Result<ExitCode> {
    let limits = Limits::default();
    if args.text {
        return super::text::run_stream(args);
    }
    if args.deltas {
        return deltas(args, &limits);
    }
    let (origin, mut reader) = input::open_bytes(args.input.as_deref())?;
    let mut first = vec![0; CHUNK];
    let read = read_some(&mut reader, &mut first)?;
    first.truncate(read);
    let provider = match &args.provider {
        Some(id) => Format::from_id(id)?,
        None => Format::detect_stream(&first)
            .with_context(|| format!("{origin}: not the stream of any provider; name one with --provider"))?,
    };
    let options = input::call_options(&args.tools, provider)?
        .with_limits(limits)
        .with_all_choices(args.all_choices);
    let mut stream = provider.call_stream(&options)?;
    let mut out = std::io::stdout().lock();
    let mut events = Vec::new();
    let mut failed = false;
    let mut chunk = first;
    loop {
        // The events before an error are printed before it.
        let pushed = if chunk.is_empty() {
            stream.finish(&mut events)
        } else {
            stream.push(&chunk, &mut events)
        };
        for event in events.drain(..) {
            failed |= matches!(&event, CallEvent::Finished { call, .. } if call.arguments.is_err());
            print_event(&mut out, &origin, provider.id(), &event, args.json, true)?;
        }
        pushed?;
        if chunk.is_empty() {
            break;
        }
        chunk.resize(CHUNK, 0);
        let read = read_some(&mut reader, &mut chunk)?;
        chunk.truncate(read);
    }
    Ok(super::exit_code(false, failed))
}

fn read_some(reader: &mut dyn std::io::Read, buffer: &mut [u8]) -> Result<usize> {
    loop {
        match reader.read(buffer) {
            Ok(read) => return Ok(read),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err).context("cannot read the stream"),
        }
    }
}

/// One event, as a line (`as_json`: a JSON object); `notes`: the notes of
/// a finished call go to stderr (the text stream prints its own).
pub(super) fn print_event(
    out: &mut impl Write,
    origin: &str,
    provider: &str,
    event: &CallEvent,
    as_json: bool,
    notes: bool,
) -> Result<()> {
    match event {
        CallEvent::Started {
            index,
            id,
            name,
            choice,
        } => {
            if as_json {
                let mut line = json!({"event": "started", "index": index, "id": id, "name": name});
                if let Some(choice) = choice {
                    line["choice"] = json!(choice);
                }
                writeln!(out, "{line}")?;
            } else {
                let choice = choice.map(|choice| format!("#{choice} ")).unwrap_or_default();
                writeln!(out, "started {index} {choice}{id} {name}")?;
            }
        }
        CallEvent::ArgumentsDelta { index, text, changes } => {
            if as_json {
                let mut line = json!({"event": "delta", "index": index, "text": text});
                if !changes.is_empty() {
                    line["changes"] = json!(changes);
                }
                writeln!(out, "{line}")?;
            } else {
                writeln!(out, "delta {index} {}", Value::String(text.clone()))?;
            }
        }
        CallEvent::ArgumentsReplaced { index, text, changes } => {
            if as_json {
                writeln!(
                    out,
                    "{}",
                    json!({"event": "replaced", "index": index, "text": text, "changes": changes})
                )?;
            } else {
                writeln!(out, "replaced {index} {}", Value::String(text.clone()))?;
            }
        }
        CallEvent::PlanDelta { text } => {
            if as_json {
                writeln!(out, "{}", json!({"event": "plan", "text": text}))?;
            } else {
                writeln!(out, "plan {}", Value::String(text.clone()))?;
            }
        }
        CallEvent::Finished { index, call } => {
            for note in call.notes.iter().filter(|_| notes) {
                eprintln!("{origin}: {}: {provider}: {note}", call.name);
            }
            if as_json {
                writeln!(
                    out,
                    "{}",
                    json!({"event": "finished", "index": index, "call": output::call_json(call)})
                )?;
            } else {
                writeln!(out, "finished {index} {}", super::calls::call_line(call))?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `stream --deltas`: one call's argument text, one JSON string per line,
/// through the partial parser.
fn deltas(args: &StreamArgs, limits: &Limits) -> Result<ExitCode> {
    let (origin, text) = input::read_text(args.input.as_deref(), limits)?;
    let mut pieces = Vec::new();
    for (number, line) in text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
    {
        let piece: String = serde_json::from_str(line)
            .with_context(|| format!("{origin}:{}: each line must be a JSON string", number + 1))?;
        pieces.push(piece);
    }
    let mut parser = PartialJson::with_limits(limits.clone());
    let mut changes = Vec::new();
    let mut out = std::io::stdout().lock();
    let (mut change_count, mut bytes) = (0usize, 0usize);
    let mut parse_time = Duration::ZERO;
    for piece in &pieces {
        bytes += piece.len();
        let started = Instant::now();
        let fed = parser.feed(piece, &mut changes);
        parse_time += started.elapsed();
        if let Err(err) = fed {
            eprintln!("{origin}: error: {err}");
            return Ok(super::exit_code(false, true));
        }
        change_count += changes.len();
        match args.partial {
            Some(PartialStyle::Changes) => {
                for change in &changes {
                    writeln!(out, "{}", json!(change))?;
                }
            }
            Some(PartialStyle::Full) => {
                writeln!(out, "{}", parser.value().cloned().unwrap_or(Value::Null))?;
            }
            None => {}
        }
        changes.clear();
    }
    let complete = parser.is_complete();
    let value = parser.finish();
    if args.stats {
        let value_bytes = value.as_ref().map(|value| value.to_string().len()).unwrap_or(0);
        writeln!(
            out,
            "{}",
            json!({"deltas": pieces.len(), "bytes": bytes, "changes": change_count,
                "value_bytes": value_bytes, "parse_us": parse_time.as_micros() as u64})
        )?;
    }
    match value {
        Ok(value) => {
            if args.partial.is_none() && !args.stats {
                writeln!(out, "{value}")?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => {
            let what = if complete { "error" } else { "unfinished" };
            eprintln!("{origin}: {what}: {err}");
            Ok(super::exit_code(false, true))
        }
    }
}
