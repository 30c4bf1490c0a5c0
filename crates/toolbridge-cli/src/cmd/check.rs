//! `toolbridge check`: the calls of a response run through the Toolbox.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use toolbridge::call::{CallOptions, ToolCall, ToolResult};
use toolbridge::{CheckOptions, Checked, ElispDecoding, Format, Limits, Tool, Toolbox, WriteOptions};

use crate::cli::{CheckArgs, InputArgs};
use crate::input;

pub fn run(args: &CheckArgs) -> Result<ExitCode> {
    let tools = load_tools(args)?;
    let limits = Limits::default();
    let (origin, provider, calls) = match (&args.args, &args.name) {
        (Some(arguments), Some(name)) => {
            let provider = args.provider.as_deref().map(Format::from_id).transpose()?;
            let arguments: Value = serde_json::from_str(arguments).context("--args is not JSON")?;
            (
                "--args".to_string(),
                provider,
                vec![ToolCall::new("call_0", name, arguments)],
            )
        }
        _ => {
            let (origin, response, provider) =
                input::read_response(args.response.as_deref(), args.provider.as_deref(), &limits)?;
            let read = provider.read_calls(&response, &CallOptions::default())?;
            for note in &read.notes {
                eprintln!("{origin}: {provider}: {note}");
            }
            (origin, Some(provider), read.value)
        }
    };
    if args.reply && provider.is_none() {
        bail!("--reply needs the provider to answer: name it with --provider");
    }
    let mut toolbox = Toolbox::new(tools.iter().cloned())?
        .with_options(CheckOptions::default().with_coerce(!args.no_coerce));
    if let Some(provider) = provider {
        toolbox = toolbox.with_written(&toolbridge::write(&tools, provider, &WriteOptions::default()));
    }
    let checked = toolbox.check_all(&calls);
    let rejected = checked.iter().any(|checked| !checked.is_accepted());
    let mut out = std::io::stdout().lock();
    let shown = provider.map_or_else(|| "call".to_string(), |provider| provider.to_string());
    for (call, checked) in calls.iter().zip(&checked) {
        for note in &call.notes {
            eprintln!("{origin}: {}: {shown}: {note}", call.name);
        }
        let notes = match checked {
            Checked::Accepted(accepted) => &accepted.notes[..],
            Checked::Rejected(rejection) => &rejection.notes[..],
        };
        for note in notes {
            eprintln!("{origin}: {}: {note}", call.id);
        }
    }
    if args.reply {
        let results: Vec<ToolResult> = calls
            .iter()
            .zip(&checked)
            .filter_map(|(call, checked)| Some(checked.rejection()?.to_result(call)))
            .collect();
        if let (Some(provider), false) = (provider, results.is_empty()) {
            let written = provider.write_results(&results)?;
            for note in &written.notes {
                eprintln!("{origin}: {provider}: {note}");
            }
            match written.value {
                Value::Array(items) => {
                    for item in items {
                        writeln!(out, "{item}")?;
                    }
                }
                value => writeln!(out, "{value}")?,
            }
        }
        return Ok(super::exit_code(false, rejected));
    }
    for checked in &checked {
        match (checked, args.native.as_deref()) {
            (Checked::Accepted(accepted), Some(language)) => writeln!(
                out,
                "{}",
                native(&toolbox, accepted, language, provider, &origin)?
            )?,
            _ if args.json => writeln!(out, "{}", checked_json(checked))?,
            _ => writeln!(out, "{}", checked_text(checked))?,
        }
    }
    Ok(super::exit_code(false, rejected))
}

/// An accepted call as the value its handler receives: gptel's plist or
/// llm.el's alist (decoded as each package decodes this provider's
/// arguments: a JSON string, or a member of the response body), or the R
/// list ellmer passes (with `convert = TRUE`, its default).
fn native(
    toolbox: &Toolbox,
    accepted: &toolbridge::Accepted,
    language: &str,
    provider: Option<Format>,
    origin: &str,
) -> Result<String> {
    // Anthropic, Gemini and Ollama put the arguments in the body as JSON;
    // the others send them as a string (gptel-request.el, llm-provider-utils.el).
    let in_body = matches!(
        provider,
        Some(Format::Anthropic | Format::Gemini | Format::GeminiJson | Format::Ollama | Format::Mcp)
    );
    Ok(match (language, in_body) {
        ("elisp", false) => accepted.to_elisp(ElispDecoding::GptelString),
        ("elisp", true) => accepted.to_elisp(ElispDecoding::GptelBody),
        ("llm", false) => accepted.to_elisp(ElispDecoding::LlmString),
        ("llm", true) => accepted.to_elisp(ElispDecoding::LlmBody),
        _ => {
            let converted = toolbox.to_r(accepted)?;
            for note in &converted.notes {
                eprintln!("{origin}: {}: r: {note}", accepted.id);
            }
            converted.value
        }
    })
}

/// The tools of the `--tools` files; any that cannot be read stops the check.
fn load_tools(args: &CheckArgs) -> Result<Vec<Tool>> {
    let inputs = input::load(&InputArgs::files(args.tools.clone()))?;
    if let Some(err) = inputs.errors.into_iter().next() {
        return Err(err.context("cannot read the --tools files"));
    }
    let mut tools = Vec::new();
    for read in &inputs.reads {
        for tool in &read.tools {
            match tool {
                Ok(tool) => tools.push(tool.value.clone()),
                Err(err) => bail!("a tool in the --tools files could not be read: {err}"),
            }
        }
    }
    if tools.is_empty() {
        bail!("the --tools files hold no tools");
    }
    Ok(tools)
}

/// `{"id", "name", "arguments", "notes"}` or `{"id", "name", "rejection", "violations"}`.
fn checked_json(checked: &Checked) -> Value {
    match checked {
        Checked::Accepted(call) => {
            json!({"id": call.id, "name": call.name, "arguments": call.arguments, "notes": call.notes})
        }
        Checked::Rejected(rejection) => json!({"id": rejection.id, "name": rejection.name,
            "rejection": rejection.message, "violations": rejection.violations}),
    }
}

/// `id name arguments`, or `id name rejected:` and the message, indented.
fn checked_text(checked: &Checked) -> String {
    match checked {
        Checked::Accepted(call) => format!("{} {} {}", call.id, call.name, call.arguments),
        Checked::Rejected(rejection) => {
            let mut text = format!("{} {} rejected:", rejection.id, rejection.name);
            for line in rejection.message.lines() {
                text.push_str("\n  ");
                text.push_str(line);
            }
            text
        }
    }
}
