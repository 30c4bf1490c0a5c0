//! A restricted R reader and emitter: the source-level pieces the `ellmer`
//! format is built from (pandoc's `Writers/Shared` idea).
//!
//! Reading has three steps. [`Source::new`] turns the whole text into tokens
//! (comments, strings with all of R's escapes, raw strings, numbers, names,
//! operators) and pairs every bracket, iteratively and bounded by a depth
//! limit, so that truncated or absurdly nested input is refused with a
//! line and column instead of overflowing the stack. [`Source::call_args`]
//! splits a call's arguments at top-level commas; [`Source::parse`] reads one
//! argument as a value of the small subset toolbridge understands (strings,
//! numbers, `TRUE`/`FALSE`/`T`/`F`, `NULL`, `NA`, names, `pkg::name`, calls,
//! and function literals, which are kept as source text). [`match_args`]
//! binds arguments to a function's formals by R's rules: exact names, then
//! unique prefixes of the formals before `...`, then position.
//!
//! Writing builds an [`RExpr`] and renders it with a fixed layout: a call
//! stays on one line unless it is a block (`tool()`, `list()`, …) or holds a
//! multi-line argument, in which case each argument gets its own line.
//!
//! `lex.rs` holds the first step (tokens and bracket pairing), `parse.rs`
//! the rest of reading, `print.rs` the writing; this file the [`Pos`] they
//! all report.

mod eval;
mod lex;
mod parse;
mod print;

pub(crate) use eval::Evaluator;
pub(crate) use lex::{Source, Tok, MAX_R_DEPTH};
pub(crate) use parse::{match_args, Arg, Expr, ExprKind, Matched};
pub(crate) use print::{has_nul, is_writable_name, name, single_quoted, string, RExpr};

use std::fmt;

use crate::error::{Error, ErrorKind};

/// A 1-based line and column (in characters) in the source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

impl Pos {
    /// An error of `kind` at this place.
    pub(crate) fn error(self, kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error::new(kind, detail).with_position(self.line, self.column)
    }
}
