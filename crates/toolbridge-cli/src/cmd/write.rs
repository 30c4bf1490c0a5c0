//! Writing read tools in one format or all, with their notes: the end of
//! `convert` and of `import`.

use anyhow::{bail, Context, Result};
use toolbridge::{Format, Level, Read, WriteOptions};

use crate::cli::WriteArgs;
use crate::output;

/// What the flags ask for, checked before any input is read.
pub struct Plan {
    /// The formats `--to` names (`all`: every one).
    pub targets: Vec<Format>,
    /// The `--deny` level.
    pub deny: Option<Level>,
}

/// The plan of `args`.
///
/// # Errors
///
/// An unknown format, `all` without a directory to write into, or a bad
/// `--deny` level.
pub fn plan(args: &WriteArgs) -> Result<Plan> {
    let targets = if !args.to.eq_ignore_ascii_case("all") {
        vec![Format::from_id(&args.to)?]
    } else if args.output.is_none() {
        bail!("--to all writes one file per format: give a directory with -o DIR");
    } else {
        Format::all().collect()
    };
    let deny = args.notes.deny.as_deref().map(output::parse_level).transpose()?;
    Ok(Plan { targets, deny })
}

/// Writes `reads` in each of the plan's targets (to stdout, `-o FILE`, or
/// one file per format in `-o DIR`), printing the notes; true when a note
/// reached `--deny`.
///
/// # Errors
///
/// An output that cannot be written.
pub fn write(args: &WriteArgs, plan: Plan, reads: &[Read]) -> Result<bool> {
    let Plan { targets, deny } = plan;
    let options = WriteOptions::default()
        .with_strict(args.strict)
        .with_annotation_defaults(args.annotation_defaults)
        .with_list(args.list);
    let all = targets.len() > 1;
    let count = targets.len();
    let mut denied = false;
    for (index, format) in targets.into_iter().enumerate() {
        let conversion = toolbridge::convert_read(reads, format, &options);
        // Reading's findings come with every target; print them once.
        let findings = conversion
            .findings
            .iter()
            .filter(|finding| index == 0 || finding.place.format.is_some());
        for finding in findings {
            denied |= finding.is_denied(deny);
            output::print_finding(args.notes.notes, finding)?;
        }
        let path = match (&args.output, all) {
            (Some(dir), true) => Some(dir.join(format!("{}.{}", format.id(), format.info().extension))),
            (path, _) => path.clone(),
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
    Ok(denied)
}
