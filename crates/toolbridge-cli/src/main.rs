//! The `toolbridge` command. See `toolbridge --help`.

mod cli;
mod cmd;
mod input;
mod output;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cmd::run(cli) {
        Ok(code) => code,
        Err(err) if output::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            output::print_error(&err);
            ExitCode::from(2)
        }
    }
}
