//! `toolbridge call`: one tool's `run` through the whole pipeline.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::{json, Map, Value};
use toolbridge::call::ToolCall;
use toolbridge::{Checked, Tool, Toolbox};
use toolbridge_runtime::run::{run as run_tool, RunContext, NOTES_META_KEY};

use crate::cli::InputArgs;
use crate::input;

/// Arguments of `toolbridge call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool file (any format toolbridge reads).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The tool to call.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The arguments, a JSON object (default `{}`).
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub args: String,
    /// Print the whole result as one JSON object: {"name", "arguments",
    /// "text", "structuredContent", "isError", "_meta"} (a rejection:
    /// {"name", "rejection", "violations", "isError": true}).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &CallArgs) -> Result<ExitCode> {
    let origin = args.file.display().to_string();
    let tools = load(&args.file)?;
    let Some(tool) = tools.iter().find(|tool| tool.name == args.name) else {
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
        bail!(
            "{origin} has no tool named {:?}; it has {}",
            args.name,
            names.join(", ")
        );
    };
    let arguments: Value = serde_json::from_str(&args.args).context("--args is not JSON")?;
    if !arguments.is_object() {
        bail!("--args must be a JSON object");
    }
    let call = ToolCall::new("call_0", &args.name, arguments);
    let toolbox = Toolbox::new(tools.iter().cloned())?;
    let accepted = match toolbox.check(&call) {
        Checked::Accepted(accepted) => accepted,
        Checked::Rejected(rejection) => {
            for note in &rejection.notes {
                eprintln!("{origin}: {}: {note}", args.name);
            }
            let mut out = std::io::stdout().lock();
            if args.json {
                let value = json!({"name": rejection.name, "rejection": rejection.message,
                    "violations": rejection.violations, "isError": true});
                writeln!(out, "{value}")?;
            } else {
                writeln!(out, "{}", rejection.message)?;
            }
            return Ok(ExitCode::from(1));
        }
    };
    for note in &accepted.notes {
        eprintln!("{origin}: {}: {note}", args.name);
    }
    let arguments = accepted.arguments.as_object().cloned().unwrap_or_default();
    let mut context = RunContext::new();
    if let Some(dir) = base_dir(&args.file) {
        context = context.with_base_dir(dir);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let output = runtime.block_on(run_tool(tool, arguments.clone(), &context));
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut value = Map::new();
        value.insert("name".into(), tool.name.clone().into());
        value.insert("arguments".into(), Value::Object(arguments));
        value.insert(
            "text".into(),
            output.text.clone().map_or(Value::Null, Value::String),
        );
        if let Some(structured) = &output.structured {
            value.insert("structuredContent".into(), structured.clone());
        }
        value.insert("isError".into(), output.is_error.into());
        if let Some(meta) = &output.meta {
            value.insert("_meta".into(), Value::Object(meta.clone()));
        }
        writeln!(out, "{}", Value::Object(value))?;
    } else {
        for (key, value) in output.meta.iter().flatten() {
            match (key.as_str(), value) {
                (NOTES_META_KEY, Value::Array(notes)) => {
                    for note in notes {
                        let message = note.get("message").and_then(Value::as_str).unwrap_or_default();
                        let level = note.get("level").and_then(Value::as_str).unwrap_or("info");
                        let at = note.get("at").and_then(Value::as_str).unwrap_or_default();
                        eprintln!("{origin}: {}: {level}: {message} (at {at})", args.name);
                    }
                }
                (key, value) => eprintln!("{origin}: {}: _meta {key}: {value}", args.name),
            }
        }
        let text = match (&output.text, &output.structured) {
            (Some(text), _) => text.clone(),
            (None, Some(value)) => value.to_string(),
            (None, None) => String::new(),
        };
        writeln!(out, "{text}")?;
    }
    Ok(if output.is_error {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The tools of the file; any that cannot be read stops the call.
fn load(file: &Path) -> Result<Vec<Tool>> {
    let inputs = input::load(&InputArgs {
        files: vec![file.to_path_buf()],
        from: None,
    })?;
    if let Some(err) = inputs.errors.into_iter().next() {
        return Err(err);
    }
    let mut tools = Vec::new();
    for read in &inputs.reads {
        for tool in &read.tools {
            match tool {
                Ok(tool) => tools.push(tool.value.clone()),
                Err(err) => bail!("a tool in {} could not be read: {err}", file.display()),
            }
        }
    }
    Ok(tools)
}

/// The folder relative commands resolve against: the file's own.
fn base_dir(file: &Path) -> Option<PathBuf> {
    let parent = file.parent()?;
    if parent.as_os_str().is_empty() {
        return std::env::current_dir().ok();
    }
    Some(parent.to_path_buf())
}
