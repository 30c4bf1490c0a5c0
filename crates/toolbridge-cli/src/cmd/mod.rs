//! One module per command.

pub mod call;
mod calls;
mod check;
mod convert;
mod formats;
mod import;
mod lint;
mod repair;
mod serve;
mod stream;
mod text;
mod write;

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::output;

/// Runs the command; `Err` is a fatal error (exit 2).
pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Convert(args) => convert::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Calls(args) => calls::run(&args),
        Command::Stream(args) => stream::run(&args),
        Command::Repair(args) => repair::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Text(args) => text::run(&args),
        Command::Call(args) => call::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Import(args) => import::run(&args),
        Command::Formats(args) => formats::run(&args),
        Command::Schema => {
            output::emit(None, toolbridge::tool::file::FILE_SCHEMA)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The exit status of a command that ran to the end: 2 when some input could
/// not be read, else 1 when something was refused, else 0.
pub fn exit_code(unreadable: bool, refused: bool) -> ExitCode {
    if unreadable {
        ExitCode::from(2)
    } else if refused {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
