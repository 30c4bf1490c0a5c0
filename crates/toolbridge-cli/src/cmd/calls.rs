//! `toolbridge calls`: the tool calls in a whole response.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use toolbridge::call::ToolCall;
use toolbridge::{Format, Limits};

use crate::cli::CallsArgs;
use crate::input;
use crate::output;

pub fn run(args: &CallsArgs) -> Result<ExitCode> {
    let limits = Limits::default();
    let (origin, text) = input::read_text(args.response.as_deref(), &limits)?;
    let response: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{origin} is not JSON"))?;
    let provider = match &args.provider {
        Some(id) => Format::from_id(id)?,
        None => Format::detect_response(&response).with_context(|| {
            format!("{origin}: not a response shape of any provider; name one with --provider")
        })?,
    };
    let options = input::call_options(&args.tools, provider)?.with_all_choices(args.all_choices);
    let read = provider.read_calls(&response, &options)?;
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    for note in &read.notes {
        eprintln!("{origin}: {provider}: {note}");
    }
    for call in &read.value {
        failed |= call.arguments.is_err();
        for note in &call.notes {
            eprintln!("{origin}: {}: {provider}: {note}", call.name);
        }
        if args.json {
            writeln!(out, "{}", output::call_json(call))?;
        } else {
            writeln!(out, "{}", call_line(call))?;
        }
    }
    Ok(super::exit_code(false, failed))
}

/// `id name arguments`, or `id name error: … raw: …`; `#n id …` for a
/// call of choice n when every choice was read.
pub fn call_line(call: &ToolCall) -> String {
    let line = call_text(call);
    match call.choice {
        Some(choice) => format!("#{choice} {line}"),
        None => line,
    }
}

fn call_text(call: &ToolCall) -> String {
    match &call.arguments {
        Ok(arguments) => format!("{} {} {arguments}", call.id, call.name),
        Err(error) => format!(
            "{} {} error: {error}; raw: {}",
            call.id,
            call.name,
            serde_json::Value::String(error.raw().to_string())
        ),
    }
}
