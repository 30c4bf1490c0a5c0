//! `toolbridge repair`: malformed argument JSON made JSON, each fix noted.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::{json, Value};
use toolbridge::Limits;

use crate::cli::RepairArgs;
use crate::input;

pub fn run(args: &RepairArgs) -> Result<ExitCode> {
    let limits = Limits::default();
    let schema: Option<Value> = match &args.schema {
        Some(path) => {
            let (origin, text) = input::read_text(Some(path), &limits)?;
            Some(serde_json::from_str(&text).with_context(|| format!("{origin} is not JSON"))?)
        }
        None => None,
    };
    let (origin, text) = input::read_text(args.input.as_deref(), &limits)?;
    let mut out = std::io::stdout().lock();
    if args.lines {
        let mut refused = false;
        for line in text.lines() {
            let raw = match serde_json::from_str::<Value>(line) {
                Ok(Value::String(raw)) => raw,
                _ => line.to_string(),
            };
            let result = match toolbridge::call::repair(&raw, schema.as_ref(), &limits) {
                Ok(repaired) => json!({"value": repaired.value, "notes": repaired.notes}),
                Err(err) => {
                    refused = true;
                    json!({"error": err.to_string()})
                }
            };
            writeln!(out, "{result}")?;
        }
        return Ok(super::exit_code(false, refused));
    }
    match toolbridge::call::repair(&text, schema.as_ref(), &limits) {
        Ok(repaired) => {
            writeln!(out, "{}", serde_json::to_string_pretty(&repaired.value)?)?;
            for note in &repaired.notes {
                eprintln!("{origin}: {note}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => {
            eprintln!("{origin}: error: {err}");
            Ok(super::exit_code(false, true))
        }
    }
}
