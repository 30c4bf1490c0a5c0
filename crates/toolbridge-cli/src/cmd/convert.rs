//! `toolbridge convert`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use toolbridge::{Format, Level, Output, WriteOptions};

use crate::cli::ConvertArgs;
use crate::input::{self, Inputs};
use crate::output::{self, Place};

pub fn run(args: &ConvertArgs) -> Result<ExitCode> {
    let targets: Vec<Format> = if args.to.eq_ignore_ascii_case("all") {
        Format::all().collect()
    } else {
        vec![Format::from_id(&args.to)?]
    };
    let all = targets.len() > 1;
    if all && args.output.is_none() {
        bail!("--to all writes one file per format: give a directory with -o DIR");
    }
    let deny = args.notes.deny.as_deref().map(output::parse_level).transpose()?;
    let inputs = input::load(&args.input)?;
    let mut report = Report {
        style: args.notes.notes,
        deny,
        refused: false,
    };
    for err in &inputs.errors {
        output::print_error(err);
    }
    report_reading(&inputs, &mut report)?;
    let tools = inputs.tools();
    if tools.is_empty() && !inputs.errors.is_empty() {
        return Ok(super::exit_code(true, report.refused));
    }
    let options = WriteOptions::default()
        .with_strict(args.strict)
        .with_annotation_defaults(args.annotation_defaults);
    for format in targets {
        let written = toolbridge::write(&tools, format, &options);
        for tool in &written.tools {
            let place = Place {
                format: Some(format.id()),
                origin: None,
                tool: Some(&tool.name),
            };
            match &tool.result {
                Ok(converted) => {
                    for note in &converted.notes {
                        report.note(&place, note)?;
                    }
                }
                Err(err) => {
                    output::print_tool_error(report.style, &place, err)?;
                    report.refused = true;
                }
            }
        }
        let set_place = Place {
            format: Some(format.id()),
            origin: None,
            tool: None,
        };
        for note in &written.notes {
            report.note(&set_place, note)?;
        }
        let text = output_text(&inputs, &written);
        let path = if all {
            let dir = args.output.as_ref().expect("checked above");
            Some(dir.join(format!("{}.{}", format.id(), format.info().extension)))
        } else {
            args.output.clone()
        };
        emit_output(path, &text)?;
    }
    Ok(super::exit_code(!inputs.errors.is_empty(), report.refused))
}

/// One tool read from a single-tool document comes out as one entry; anything
/// else as the target's list.
fn output_text(inputs: &Inputs, written: &toolbridge::Written) -> String {
    if inputs.is_single_tool() {
        if let [only] = written.tools.as_slice() {
            if let Ok(converted) = &only.result {
                return converted.value.to_text();
            }
        }
    }
    let text = written.output.to_text();
    match &written.output {
        Output::Text(text) if text.is_empty() => String::new(),
        _ => text,
    }
}

fn emit_output(path: Option<PathBuf>, text: &str) -> Result<()> {
    output::emit(path.as_deref(), text).with_context(|| "cannot write the output".to_string())
}

fn report_reading(inputs: &Inputs, report: &mut Report) -> Result<()> {
    for source in &inputs.sources {
        let place = Place {
            format: None,
            origin: Some(&source.origin),
            tool: None,
        };
        for note in &source.read.notes {
            report.note(&place, note)?;
        }
        for tool in &source.read.tools {
            match tool {
                Ok(converted) => {
                    let place = Place {
                        format: None,
                        origin: Some(&source.origin),
                        tool: Some(&converted.value.name),
                    };
                    for note in &converted.notes {
                        report.note(&place, note)?;
                    }
                }
                Err(err) => {
                    output::print_tool_error(report.style, &place, err)?;
                    report.refused = true;
                }
            }
        }
    }
    Ok(())
}

/// Prints notes and remembers whether any reached the refusal level.
struct Report {
    style: crate::cli::NotesStyle,
    deny: Option<Level>,
    refused: bool,
}

impl Report {
    fn note(&mut self, place: &Place<'_>, note: &toolbridge::Note) -> Result<()> {
        if note.level == Level::Error || self.deny.is_some_and(|deny| note.level >= deny) {
            self.refused = true;
        }
        output::print_note(self.style, place, note)
    }
}
