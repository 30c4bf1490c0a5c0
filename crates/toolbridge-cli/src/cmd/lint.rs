//! `toolbridge lint`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use toolbridge::{Finding, Format, Found, Level, Report, WriteOptions};

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
    let mut report = Report::new(&targets);
    for read in &inputs.reads {
        report.extend(toolbridge::lint_read(read, &targets, &options));
    }
    let shown = report.findings.iter().filter(|finding| finding.level() >= show);
    let mut out = std::io::stdout().lock();
    if args.json {
        for finding in shown {
            writeln!(out, "{}", finding.to_json())?;
        }
    } else {
        for line in grouped_lines(shown) {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(out, "{}", report.summary())?;
    Ok(super::exit_code(
        !inputs.errors.is_empty(),
        report.is_denied(deny),
    ))
}

/// Text lines, most severe first; a note repeated for several tools (same
/// format, level, place and sentence) is one line naming how many and which.
fn grouped_lines<'a>(findings: impl Iterator<Item = &'a Finding>) -> Vec<String> {
    let mut groups: Vec<(&Finding, Vec<&str>)> = Vec::new();
    for finding in findings {
        let same = groups.iter_mut().find(|(first, _)| repeats(first, finding));
        match (same, finding.place.tool.as_deref()) {
            (Some((_, tools)), Some(tool)) => tools.push(tool),
            _ => groups.push((finding, finding.place.tool.as_deref().into_iter().collect())),
        }
    }
    // Stable: within a level, groups keep the order they were found in.
    groups.sort_by_key(|(finding, _)| std::cmp::Reverse(finding.level()));
    groups
        .into_iter()
        .map(|(finding, tools)| match tools.as_slice() {
            [_, _, ..] => group_line(finding, &tools),
            _ => finding.to_string(),
        })
        .collect()
}

/// The same note about another tool of the same input and format.
fn repeats(first: &Finding, other: &Finding) -> bool {
    let (Found::Note(a), Found::Note(b)) = (&first.found, &other.found) else {
        return false;
    };
    first.place.tool.is_some()
        && other.place.tool.is_some()
        && first.place.format == other.place.format
        && first.place.origin == other.place.origin
        && a.kind == b.kind
        && a.at == b.at
        && a.message == b.message
}

/// `origin: format: level: message (at pointer) — 9 tools: a, b, c, …`.
fn group_line(finding: &Finding, tools: &[&str]) -> String {
    const NAMED: usize = 5;
    let Found::Note(note) = &finding.found else {
        return finding.to_string();
    };
    let place: Vec<&str> = [
        finding.place.origin.as_deref(),
        finding.place.format.map(Format::id),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut names = tools.iter().take(NAMED).copied().collect::<Vec<_>>().join(", ");
    if tools.len() > NAMED {
        names.push_str(", …");
    }
    let level: Level = note.level();
    format!(
        "{}: {level}: {} (at {}) — {} tools: {names}",
        place.join(": "),
        note.message,
        note.at,
        tools.len()
    )
}
