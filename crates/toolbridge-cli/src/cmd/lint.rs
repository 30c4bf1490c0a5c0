//! `toolbridge lint`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use toolbridge::{Format, Report, WriteOptions};

use crate::cli::LintArgs;
use crate::input;
use crate::output;

pub fn run(args: &LintArgs) -> Result<ExitCode> {
    let targets: Vec<Format> = args
        .target
        .iter()
        .map(|id| Format::from_id(id))
        .collect::<Result<_, _>>()?;
    let show = output::parse_level(&args.show)?;
    let deny = args.deny.as_deref().map(output::parse_level).transpose()?;
    let inputs = input::load(&args.input)?;
    for err in &inputs.errors {
        output::print_error(err);
    }
    let options = WriteOptions::default().with_strict(args.strict);
    let mut out = std::io::stdout().lock();
    let mut report = Report::new(&targets);
    for read in &inputs.reads {
        let found = toolbridge::lint_read(read, &targets, &options);
        for finding in found.findings.iter().filter(|finding| finding.level() >= show) {
            if args.json {
                writeln!(out, "{}", finding.to_json())?;
            } else {
                writeln!(out, "{finding}")?;
            }
        }
        report.extend(found);
    }
    writeln!(out, "{}", report.summary())?;
    Ok(super::exit_code(
        !inputs.errors.is_empty(),
        report.is_denied(deny),
    ))
}
