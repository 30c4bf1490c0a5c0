//! `toolbridge lint`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use toolbridge::{Format, Level, Note, WriteOptions};

use crate::cli::LintArgs;
use crate::input;
use crate::output::{self, Place};

pub fn run(args: &LintArgs) -> Result<ExitCode> {
    let targets: Vec<Format> = if args.target.is_empty() {
        Format::all()
            .filter(|format| *format != Format::Toolbridge)
            .collect()
    } else {
        args.target
            .iter()
            .map(|id| Format::from_id(id))
            .collect::<Result<_, _>>()?
    };
    let mut tally = Tally {
        show: output::parse_level(&args.show)?,
        deny: args.deny.as_deref().map(output::parse_level).transpose()?,
        json: args.json,
        counts: [0; 4],
        refused: false,
        out: std::io::stdout().lock(),
    };
    let inputs = input::load(&args.input)?;
    for err in &inputs.errors {
        output::print_error(err);
    }
    let options = WriteOptions::default().with_strict(args.strict);
    let mut tool_count = 0;
    for source in &inputs.sources {
        let mut tools = Vec::new();
        for read in &source.read.tools {
            match read {
                Ok(converted) => {
                    let place = Place {
                        format: None,
                        origin: Some(&source.origin),
                        tool: Some(&converted.value.name),
                    };
                    for note in &converted.notes {
                        tally.note(&place, note)?;
                    }
                    tools.push(converted.value.clone());
                }
                Err(err) => tally.error(&format!("{}: error: {err}", source.origin))?,
            }
        }
        tool_count += tools.len();
        for format in &targets {
            let written = toolbridge::write(&tools, *format, &options);
            for tool in &written.tools {
                let place = Place {
                    format: Some(format.id()),
                    origin: Some(&source.origin),
                    tool: Some(&tool.name),
                };
                match &tool.result {
                    Ok(converted) => {
                        for note in &converted.notes {
                            tally.note(&place, note)?;
                        }
                    }
                    Err(err) => tally.error(&format!(
                        "{}: {}: {}: error: {err}",
                        source.origin,
                        tool.name,
                        format.id()
                    ))?,
                }
            }
            let place = Place {
                format: Some(format.id()),
                origin: Some(&source.origin),
                tool: None,
            };
            for note in &written.notes {
                tally.note(&place, note)?;
            }
        }
    }
    let counts = tally.counts;
    writeln!(
        tally.out,
        "lint: {tool_count} tool{} for {} target{}: {} error, {} loss, {} change, {} info",
        if tool_count == 1 { "" } else { "s" },
        targets.len(),
        if targets.len() == 1 { "" } else { "s" },
        counts[Level::Error as usize],
        counts[Level::Loss as usize],
        counts[Level::Change as usize],
        counts[Level::Info as usize],
    )?;
    Ok(super::exit_code(!inputs.errors.is_empty(), tally.refused))
}

/// Prints notes at or above the shown level and counts all of them.
struct Tally<W: Write> {
    show: Level,
    deny: Option<Level>,
    json: bool,
    counts: [usize; 4],
    refused: bool,
    out: W,
}

impl<W: Write> Tally<W> {
    fn note(&mut self, place: &Place<'_>, note: &Note) -> Result<()> {
        self.counts[note.level as usize] += 1;
        if note.level == Level::Error || self.deny.is_some_and(|deny| note.level >= deny) {
            self.refused = true;
        }
        if note.level >= self.show {
            let text = if self.json {
                output::note_json(place, note)
            } else {
                output::note_line(place, note)
            };
            writeln!(self.out, "{text}")?;
        }
        Ok(())
    }

    fn error(&mut self, line: &str) -> Result<()> {
        self.counts[Level::Error as usize] += 1;
        self.refused = true;
        writeln!(self.out, "{line}")?;
        Ok(())
    }
}
