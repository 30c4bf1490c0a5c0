//! `toolbridge calls`: the tool calls in a whole response.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use toolbridge::call::ToolCall;
use toolbridge::Limits;

use crate::cli::CallsArgs;
use crate::input;
use crate::output;

pub fn run(args: &CallsArgs) -> Result<ExitCode> {
    if args.text {
        return super::text::run_calls(args);
    }
    let limits = Limits::default();
    let (origin, response, provider) =
        input::read_response(args.response.as_deref(), args.provider.as_deref(), &limits)?;
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
            shown_raw(error.raw())
        ),
    }
}

/// How many bytes of a broken call's raw text its line shows at most.
const RAW_SHOWN: usize = 400;

/// A broken call's raw text as its line shows it: quoted, and past
/// [`RAW_SHOWN`] bytes its start and its length (a model that never closed
/// a call can send megabytes; `--json` prints them whole).
fn shown_raw(raw: &str) -> String {
    if raw.len() <= RAW_SHOWN {
        return serde_json::Value::String(raw.to_string()).to_string();
    }
    let mut end = RAW_SHOWN;
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    let start = serde_json::Value::String(raw[..end].to_string()).to_string();
    format!("{start}… ({} bytes in all; --json prints them whole)", raw.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_raw_text_shows_its_start_and_length() {
        assert_eq!(shown_raw("[1, \"a\"]"), r#""[1, \"a\"]""#);
        let long = format!("[{}", "é".repeat(300));
        let shown = shown_raw(&long);
        assert_eq!(
            shown,
            format!(
                "\"[{}\"… (601 bytes in all; --json prints them whole)",
                "é".repeat(199)
            )
        );
    }
}
