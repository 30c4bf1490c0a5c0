//! `toolbridge convert`.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ConvertArgs;
use crate::input;
use crate::output;

pub fn run(args: &ConvertArgs) -> Result<ExitCode> {
    let plan = super::write::plan(&args.write)?;
    let inputs = input::load(&args.input)?;
    for err in &inputs.errors {
        output::print_error(err);
    }
    let unreadable = !inputs.errors.is_empty();
    if unreadable && inputs.reads.iter().all(|read| read.ok_tools().next().is_none()) {
        let mut denied = false;
        for finding in inputs.reads.iter().flat_map(toolbridge::Read::findings) {
            denied |= finding.is_denied(plan.deny);
            output::print_finding(args.write.notes.notes, &finding)?;
        }
        return Ok(super::exit_code(true, denied));
    }
    let denied = super::write::write(&args.write, plan, &inputs.reads)?;
    std::mem::forget(inputs);
    Ok(super::exit_code(unreadable, denied))
}
