//! `toolbridge convert`.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use toolbridge::{Format, WriteOptions};

use crate::cli::ConvertArgs;
use crate::input;
use crate::output;

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
    let style = args.notes.notes;
    let inputs = input::load(&args.input)?;
    for err in &inputs.errors {
        output::print_error(err);
    }
    let unreadable = !inputs.errors.is_empty();
    let mut denied = false;
    if unreadable && inputs.reads.iter().all(|read| read.ok_tools().next().is_none()) {
        for finding in inputs.reads.iter().flat_map(toolbridge::Read::findings) {
            denied |= finding.is_denied(deny);
            output::print_finding(style, &finding)?;
        }
        return Ok(super::exit_code(true, denied));
    }
    let options = WriteOptions::default()
        .with_strict(args.strict)
        .with_annotation_defaults(args.annotation_defaults)
        .with_list(args.list);
    let count = targets.len();
    for (index, format) in targets.into_iter().enumerate() {
        let conversion = toolbridge::convert_read(&inputs.reads, format, &options);
        // Reading's findings come with every target; print them once.
        let findings = conversion
            .findings
            .iter()
            .filter(|finding| index == 0 || finding.place.format.is_some());
        for finding in findings {
            denied |= finding.is_denied(deny);
            output::print_finding(style, finding)?;
        }
        let path = if all {
            let dir = args.output.as_ref().expect("checked above");
            Some(dir.join(format!("{}.{}", format.id(), format.info().extension)))
        } else {
            args.output.clone()
        };
        output::emit(path.as_deref(), &conversion.text).context("cannot write the output")?;
        if index + 1 == count {
            // The process ends next, and the system takes its memory back
            // at once: freeing every read and written value one by one
            // costs about a seventh of converting a big file (as rustc,
            // the last structures are left to the exit).
            std::mem::forget(conversion);
        }
    }
    std::mem::forget(inputs);
    Ok(super::exit_code(unreadable, denied))
}
