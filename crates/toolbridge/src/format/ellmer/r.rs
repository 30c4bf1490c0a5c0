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

use std::fmt;

use crate::error::{Error, ErrorKind, Result};

/// How deep brackets may nest, whatever the configured limit: the value
/// parser recurses once per bracket level, and this keeps its stack small.
pub(crate) const MAX_R_DEPTH: usize = 256;

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

/// One token of R source.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A name; `quoted` when written in backticks (then never a keyword).
    Symbol {
        name: String,
        quoted: bool,
    },
    /// A string literal, escapes decoded.
    Str(String),
    /// A number as written (`5`, `1.5e3`, `0x1F`, `5L`).
    Num(String),
    /// An operator (`<-`, `=`, `::`, `%in%`, `\`, …).
    Op(String),
    /// `(`, `[` or `{`.
    Open(char),
    /// `)`, `]` or `}`.
    Close(char),
    Comma,
    Semicolon,
    Newline,
}

impl Tok {
    /// The token as it would be quoted in a message.
    fn describe(&self) -> String {
        match self {
            Tok::Symbol { name, .. } => format!("`{name}`"),
            Tok::Str(_) => "a string".to_string(),
            Tok::Num(text) => format!("the number {text}"),
            Tok::Op(op) => format!("`{op}`"),
            Tok::Open(c) | Tok::Close(c) => format!("`{c}`"),
            Tok::Comma => "`,`".to_string(),
            Tok::Semicolon => "`;`".to_string(),
            Tok::Newline => "the end of the line".to_string(),
        }
    }

    /// True for an unquoted name spelled `name`.
    pub(crate) fn is_word(&self, word: &str) -> bool {
        matches!(self, Tok::Symbol { name, quoted: false } if name == word)
    }

    /// True for the operator `op`.
    pub(crate) fn is_op(&self, op: &str) -> bool {
        matches!(self, Tok::Op(o) if o == op)
    }
}

/// A token with its place.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    /// Byte offsets of the token in the text.
    pub start: usize,
    pub end: usize,
    pub at: Pos,
}

/// Tokenized R source with every bracket paired.
#[derive(Debug)]
pub(crate) struct Source<'a> {
    pub text: &'a str,
    pub tokens: Vec<Token>,
    /// For a bracket token, the index of its partner; `usize::MAX` otherwise.
    partners: Vec<usize>,
}

impl<'a> Source<'a> {
    /// Tokenizes `text` and pairs its brackets; `max_depth` bounds nesting
    /// (never above [`MAX_R_DEPTH`]).
    pub(crate) fn new(text: &'a str, max_depth: usize) -> Result<Source<'a>> {
        let tokens = Lexer::new(text).run()?;
        let limit = max_depth.min(MAX_R_DEPTH);
        let mut partners = vec![usize::MAX; tokens.len()];
        let mut open: Vec<(usize, char)> = Vec::new();
        for (index, token) in tokens.iter().enumerate() {
            match token.tok {
                Tok::Open(opened) => {
                    if open.len() >= limit {
                        return Err(token.at.error(
                            ErrorKind::LimitExceeded,
                            format!("the R code is nested more than {limit} levels deep"),
                        ));
                    }
                    open.push((index, opened));
                }
                Tok::Close(close) => {
                    let Some((opener, opened)) = open.pop() else {
                        return Err(token
                            .at
                            .error(ErrorKind::RSyntax, format!("unexpected `{close}`")));
                    };
                    if closer_of(opened) != close {
                        return Err(token.at.error(
                            ErrorKind::RSyntax,
                            format!(
                                "`{close}` does not close the `{opened}` opened at {}",
                                tokens[opener].at
                            ),
                        ));
                    }
                    partners[opener] = index;
                    partners[index] = opener;
                }
                Tok::Comma if open.is_empty() => {
                    return Err(token
                        .at
                        .error(ErrorKind::RSyntax, "unexpected `,` outside a call"));
                }
                _ => {}
            }
        }
        if let Some(&(opener, opened)) = open.last() {
            let token = &tokens[opener];
            return Err(token.at.error(
                ErrorKind::RSyntax,
                format!("the `{opened}` opened here is never closed (the text ends first)"),
            ));
        }
        if let Some(last) = tokens.iter().rev().find(|token| token.tok != Tok::Newline) {
            if matches!(last.tok, Tok::Op(_)) {
                return Err(last.at.error(
                    ErrorKind::RSyntax,
                    format!(
                        "the text ends after {}, in the middle of an expression",
                        last.tok.describe()
                    ),
                ));
            }
        }
        Ok(Source {
            text,
            tokens,
            partners,
        })
    }

    /// The index of the bracket paired with the bracket at `index`.
    pub(crate) fn partner(&self, index: usize) -> usize {
        self.partners[index]
    }

    /// The place of token `index`, or the end of the text.
    pub(crate) fn pos(&self, index: usize) -> Pos {
        match self.tokens.get(index) {
            Some(token) => token.at,
            None => end_pos(self.text),
        }
    }

    /// The source text of tokens `first..end` (from the first token's start
    /// to the last one's end, so surrounding space and comments are left out).
    pub(crate) fn slice(&self, first: usize, end: usize) -> &'a str {
        if first >= end {
            return "";
        }
        &self.text[self.tokens[first].start..self.tokens[end - 1].end]
    }

    fn skip_newlines(&self, mut first: usize, end: usize) -> usize {
        while first < end && self.tokens[first].tok == Tok::Newline {
            first += 1;
        }
        first
    }

    fn trim_newlines(&self, first: usize, mut end: usize) -> usize {
        while end > first && self.tokens[end - 1].tok == Tok::Newline {
            end -= 1;
        }
        end
    }

    /// The arguments of the call whose `(` is token `open`, split at
    /// top-level commas. An empty argument is an error.
    pub(crate) fn call_args(&self, open: usize) -> Result<Vec<Arg>> {
        let close = self.partner(open);
        let mut args = Vec::new();
        let mut start = open + 1;
        let mut index = start;
        while index <= close {
            let tok = &self.tokens[index].tok;
            if index == close || *tok == Tok::Comma {
                let first = self.skip_newlines(start, index);
                let end = self.trim_newlines(first, index);
                if first == end {
                    if index == close && args.is_empty() && start == open + 1 {
                        break;
                    }
                    return Err(self.pos(index).error(
                        ErrorKind::InvalidTool,
                        format!("argument {} is empty", args.len() + 1),
                    ));
                }
                args.push(self.arg(first, end)?);
                start = index + 1;
            } else if matches!(tok, Tok::Open(_)) {
                index = self.partner(index);
            }
            index += 1;
        }
        Ok(args)
    }

    fn arg(&self, first: usize, end: usize) -> Result<Arg> {
        let name = match (&self.tokens[first].tok, self.tokens.get(first + 1)) {
            (Tok::Symbol { name, .. } | Tok::Str(name), Some(next))
                if first + 1 < end && next.tok.is_op("=") =>
            {
                name.clone()
            }
            _ => {
                return Ok(Arg {
                    name: None,
                    at: self.pos(first),
                    first,
                    end,
                })
            }
        };
        let value = self.skip_newlines(first + 2, end);
        if value == end {
            return Err(self
                .pos(first)
                .error(ErrorKind::InvalidTool, format!("argument `{name}` has no value")));
        }
        Ok(Arg {
            name: Some(name),
            at: self.pos(first),
            first: value,
            end,
        })
    }

    /// Reads tokens `first..end` as one value of the subset.
    pub(crate) fn parse(&self, first: usize, end: usize) -> Result<Expr> {
        let first = self.skip_newlines(first, end);
        let end = self.trim_newlines(first, end);
        let Some(token) = self.tokens.get(first).filter(|_| first < end) else {
            return Err(self
                .pos(first)
                .error(ErrorKind::InvalidTool, "a value is missing"));
        };
        let at = token.at;
        let (kind, next) = match &token.tok {
            Tok::Str(text) => (ExprKind::Str(text.clone()), first + 1),
            Tok::Num(text) => (ExprKind::Num(text.clone()), first + 1),
            Tok::Op(op) if (op == "-" || op == "+") && first + 1 < end => match &self.tokens[first + 1].tok {
                Tok::Num(text) if op == "-" => (ExprKind::Num(format!("-{text}")), first + 2),
                Tok::Num(text) => (ExprKind::Num(text.clone()), first + 2),
                other => return Err(self.unsupported(first + 1, other)),
            },
            Tok::Open('(') => {
                let close = self.partner(first);
                let inner = self.parse(first + 1, close)?;
                self.expect_end(close + 1, end)?;
                return Ok(inner);
            }
            Tok::Op(op) if op == "\\" => (self.function(first + 1, end)?, end),
            Tok::Symbol { name, quoted } => {
                let keyword = if *quoted { None } else { keyword(name) };
                if let Some(kind) = keyword {
                    (kind, first + 1)
                } else if !quoted && name == "function" {
                    (self.function(first + 1, end)?, end)
                } else {
                    self.symbol_or_call(first, end, name)?
                }
            }
            other => return Err(self.unsupported(first, other)),
        };
        self.expect_end(next, end)?;
        Ok(Expr { kind, at })
    }

    fn symbol_or_call(&self, first: usize, end: usize, name: &str) -> Result<(ExprKind, usize)> {
        let mut next = first + 1;
        let mut namespace = None;
        let mut name = name.to_string();
        if next + 1 < end && (self.tokens[next].tok.is_op("::") || self.tokens[next].tok.is_op(":::")) {
            match &self.tokens[next + 1].tok {
                Tok::Symbol { name: inner, .. } => {
                    namespace = Some(std::mem::replace(&mut name, inner.clone()));
                    next += 2;
                }
                other => return Err(self.unsupported(next + 1, other)),
            }
        }
        if next < end && self.tokens[next].tok == Tok::Open('(') {
            let close = self.partner(next);
            return Ok((
                ExprKind::Call {
                    namespace,
                    name,
                    open: next,
                },
                close + 1,
            ));
        }
        Ok((ExprKind::Symbol { namespace, name }, next))
    }

    /// A function literal: `function(…) body` or `\(…) body`; `open` is the
    /// token after `function` or `\`.
    fn function(&self, open: usize, end: usize) -> Result<ExprKind> {
        if open >= end || self.tokens[open].tok != Tok::Open('(') {
            return Err(self.pos(open).error(
                ErrorKind::InvalidTool,
                "a function literal needs `(` after `function`",
            ));
        }
        let close = self.partner(open);
        if self.skip_newlines(close + 1, end) >= end {
            return Err(self
                .pos(close)
                .error(ErrorKind::InvalidTool, "the function literal has no body"));
        }
        Ok(ExprKind::Function { open })
    }

    /// The formals of the function literal whose `(` is token `open`: each
    /// name and whether it has a default.
    pub(crate) fn formals(&self, open: usize) -> Result<Vec<(String, bool)>> {
        let mut formals = Vec::new();
        for arg in self.call_args(open)? {
            match arg.name {
                Some(name) => formals.push((name, true)),
                None => match &self.tokens[arg.first].tok {
                    Tok::Symbol { name, .. } if arg.end == arg.first + 1 => {
                        formals.push((name.clone(), false))
                    }
                    other => return Err(self.unsupported(arg.first, other)),
                },
            }
        }
        Ok(formals)
    }

    fn expect_end(&self, next: usize, end: usize) -> Result<()> {
        let next = self.skip_newlines(next, end);
        if next < end {
            return Err(self.unsupported(next, &self.tokens[next].tok));
        }
        Ok(())
    }

    fn unsupported(&self, index: usize, tok: &Tok) -> Error {
        self.pos(index).error(
            ErrorKind::InvalidTool,
            format!(
                "unexpected {} here: toolbridge reads strings, numbers, TRUE/FALSE, NULL, NA, names \
                 and calls such as c(), list() and ellmer's type_*()",
                tok.describe()
            ),
        )
    }
}

fn keyword(name: &str) -> Option<ExprKind> {
    Some(match name {
        "TRUE" | "T" => ExprKind::Bool(true),
        "FALSE" | "F" => ExprKind::Bool(false),
        "NULL" => ExprKind::Null,
        "NA" | "NA_integer_" | "NA_real_" | "NA_character_" => ExprKind::Na,
        _ => return None,
    })
}

fn closer_of(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

fn end_pos(text: &str) -> Pos {
    let line = text.matches('\n').count() + 1;
    let last = text.rsplit('\n').next().unwrap_or("");
    Pos {
        line,
        column: last.chars().count() + 1,
    }
}

/// One argument of a call: its name if it has one, and its value's tokens.
#[derive(Clone, Debug)]
pub(crate) struct Arg {
    pub name: Option<String>,
    /// Where the argument starts (its name, or its value).
    pub at: Pos,
    /// The value's tokens, `first..end`.
    pub first: usize,
    pub end: usize,
}

/// A value of the subset.
#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub at: Pos,
}

/// What a value is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExprKind {
    Str(String),
    /// A number as written, with a leading `-` if negative.
    Num(String),
    Bool(bool),
    Null,
    Na,
    Symbol {
        namespace: Option<String>,
        name: String,
    },
    /// A call; its arguments are read on demand with [`Source::call_args`].
    Call {
        namespace: Option<String>,
        name: String,
        open: usize,
    },
    /// A function literal; `open` is the `(` of its formals.
    Function {
        open: usize,
    },
}

impl Expr {
    /// The function name if this is a call of `name` (optionally `ns::name`
    /// with `ns` one of `namespaces`).
    pub(crate) fn call_of(&self, namespaces: &[&str]) -> Option<(&str, usize)> {
        match &self.kind {
            ExprKind::Call {
                namespace,
                name,
                open,
            } if namespace.as_deref().is_none_or(|ns| namespaces.contains(&ns)) => {
                Some((name.as_str(), *open))
            }
            _ => None,
        }
    }

    /// A short description for messages.
    pub(crate) fn describe(&self) -> String {
        match &self.kind {
            ExprKind::Str(_) => "a string".into(),
            ExprKind::Num(text) => format!("the number {text}"),
            ExprKind::Bool(true) => "TRUE".into(),
            ExprKind::Bool(false) => "FALSE".into(),
            ExprKind::Null => "NULL".into(),
            ExprKind::Na => "NA".into(),
            ExprKind::Symbol {
                namespace: Some(ns),
                name,
            } => format!("`{ns}::{name}`"),
            ExprKind::Symbol { name, .. } => format!("`{name}`"),
            ExprKind::Call {
                namespace: Some(ns),
                name,
                ..
            } => format!("a call of {ns}::{name}()"),
            ExprKind::Call { name, .. } => format!("a call of {name}()"),
            ExprKind::Function { .. } => "a function".into(),
        }
    }
}

/// The arguments of a call bound to a function's formals.
#[derive(Debug)]
pub(crate) struct Matched<'a> {
    /// Per formal (in the order given), the argument bound to it.
    pub bound: Vec<Option<&'a Arg>>,
    /// The arguments that went into `...`, in order.
    pub dots: Vec<&'a Arg>,
}

impl<'a> Matched<'a> {
    /// The argument bound to formal `name`.
    pub(crate) fn get(&self, formals: &[&str], name: &str) -> Option<&'a Arg> {
        formals
            .iter()
            .position(|formal| *formal == name)
            .and_then(|index| self.bound[index])
    }
}

/// Binds `args` to `formals` (`"..."` marks the dots) the way R does: exact
/// names first, then unique prefixes of formals before `...`, then
/// positions; what is left goes to `...` or is an error.
pub(crate) fn match_args<'a>(function: &str, formals: &[&str], args: &'a [Arg]) -> Result<Matched<'a>> {
    let dots = formals.iter().position(|formal| *formal == "...");
    let mut bound: Vec<Option<&Arg>> = vec![None; formals.len()];
    let mut used = vec![false; args.len()];
    for (index, arg) in args.iter().enumerate() {
        let Some(name) = &arg.name else { continue };
        if let Some(slot) = formals
            .iter()
            .position(|formal| formal == name && *formal != "...")
        {
            if bound[slot].is_some() {
                return Err(arg.at.error(
                    ErrorKind::InvalidTool,
                    format!("{function}(): formal argument `{name}` matched by multiple actual arguments"),
                ));
            }
            bound[slot] = Some(arg);
            used[index] = true;
        }
    }
    let partial_end = dots.unwrap_or(formals.len());
    for (index, arg) in args.iter().enumerate() {
        let Some(name) = arg.name.as_deref().filter(|_| !used[index]) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        let candidates: Vec<usize> = (0..partial_end)
            .filter(|slot| bound[*slot].is_none() && formals[*slot].starts_with(name))
            .collect();
        match candidates.as_slice() {
            [] => {}
            [slot] => {
                bound[*slot] = Some(arg);
                used[index] = true;
            }
            _ => {
                return Err(arg.at.error(
                    ErrorKind::InvalidTool,
                    format!("{function}(): argument `{name}` matches several formal arguments"),
                ))
            }
        }
    }
    let mut open_slots = (0..partial_end).filter(|slot| formals[*slot] != "...");
    let mut leftover = Vec::new();
    let mut first_unused = None;
    for (index, arg) in args.iter().enumerate() {
        if used[index] {
            continue;
        }
        if arg.name.is_none() {
            if let Some(slot) = open_slots.by_ref().find(|slot| bound[*slot].is_none()) {
                bound[slot] = Some(arg);
                continue;
            }
        }
        first_unused.get_or_insert(index);
        leftover.push(arg);
    }
    if dots.is_none() {
        if let Some(index) = first_unused {
            let arg = &args[index];
            let what = match &arg.name {
                Some(name) => format!("`{name}`"),
                None => format!("number {}", index + 1),
            };
            return Err(arg.at.error(
                ErrorKind::InvalidTool,
                format!("{function}(): unused argument {what}"),
            ));
        }
    }
    Ok(Matched {
        bound,
        dots: leftover,
    })
}

struct Lexer<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
    column: usize,
    tokens: Vec<Token>,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            text,
            offset: 0,
            line: 1,
            column: 1,
            tokens: Vec::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.offset..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.text[self.offset..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.offset += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn here(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn syntax(&self, at: Pos, detail: impl Into<String>) -> Error {
        at.error(ErrorKind::RSyntax, detail)
    }

    fn run(mut self) -> Result<Vec<Token>> {
        while let Some(c) = self.peek() {
            let start = self.offset;
            let at = self.here();
            let tok = match c {
                ' ' | '\t' | '\r' | '\u{c}' | '\u{a0}' | '\u{feff}' => {
                    self.bump();
                    continue;
                }
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                    continue;
                }
                '\n' => {
                    self.bump();
                    Tok::Newline
                }
                '"' | '\'' => {
                    self.bump();
                    Tok::Str(self.quoted(c, at)?)
                }
                '`' => {
                    self.bump();
                    let name = self.quoted('`', at)?;
                    if name.is_empty() {
                        return Err(self.syntax(at, "a backquoted name is empty"));
                    }
                    Tok::Symbol { name, quoted: true }
                }
                'r' | 'R' if matches!(self.peek_at(1), Some('"' | '\'')) => {
                    self.bump();
                    Tok::Str(self.raw_string(at)?)
                }
                c if c.is_ascii_digit()
                    || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit())) =>
                {
                    self.number(at)?
                }
                c if c.is_alphabetic() || c == '.' => Tok::Symbol {
                    name: self.name(),
                    quoted: false,
                },
                '(' | '[' | '{' => {
                    self.bump();
                    Tok::Open(c)
                }
                ')' | ']' | '}' => {
                    self.bump();
                    Tok::Close(c)
                }
                ',' => {
                    self.bump();
                    Tok::Comma
                }
                ';' => {
                    self.bump();
                    Tok::Semicolon
                }
                '%' => self.special_op(at)?,
                _ => self.operator(at)?,
            };
            self.tokens.push(Token {
                tok,
                start,
                end: self.offset,
                at,
            });
        }
        Ok(self.tokens)
    }

    fn name(&mut self) -> String {
        let start = self.offset;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_')
        {
            self.bump();
        }
        self.text[start..self.offset].to_string()
    }

    fn number(&mut self, at: Pos) -> Result<Tok> {
        let start = self.offset;
        let hex = self.peek() == Some('0') && matches!(self.peek_at(1), Some('x' | 'X'));
        if hex {
            self.bump();
            self.bump();
            let digits = self.offset;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.bump();
            }
            if self.offset == digits {
                return Err(self.syntax(at, "a hexadecimal number needs digits after 0x"));
            }
        } else {
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
            if self.peek() == Some('.') {
                self.bump();
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.bump();
                }
            }
            if matches!(self.peek(), Some('e' | 'E')) {
                self.bump();
                if matches!(self.peek(), Some('+' | '-')) {
                    self.bump();
                }
                let digits = self.offset;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.bump();
                }
                if self.offset == digits {
                    return Err(self.syntax(at, "a number's exponent needs digits"));
                }
            }
        }
        if matches!(self.peek(), Some('L' | 'i')) {
            self.bump();
        }
        if self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            return Err(self.syntax(self.here(), "unexpected character after a number"));
        }
        Ok(Tok::Num(self.text[start..self.offset].to_string()))
    }

    /// The rest of a quoted string or name after its opening `quote`.
    fn quoted(&mut self, quote: char, at: Pos) -> Result<String> {
        let mut out = String::new();
        loop {
            let escape_at = self.here();
            let Some(c) = self.bump() else {
                let what = if quote == '`' { "backquoted name" } else { "string" };
                return Err(self.syntax(at, format!("the {what} starting here is never closed")));
            };
            match c {
                c if c == quote => return Ok(out),
                '\\' => out.push(self.escape(escape_at)?),
                c => out.push(c),
            }
        }
    }

    fn escape(&mut self, at: Pos) -> Result<char> {
        let Some(c) = self.bump() else {
            return Err(self.syntax(at, "the text ends inside an escape"));
        };
        let simple = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '"' | '\'' | '`' => Some(c),
            _ => None,
        };
        if let Some(simple) = simple {
            return Ok(simple);
        }
        let code = match c {
            '0'..='7' => {
                let mut value = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(digit) => {
                            value = value * 8 + digit;
                            self.bump();
                        }
                        None => break,
                    }
                }
                value
            }
            'x' => self.hex_digits(at, 2, false)?,
            'u' => self.hex_digits(at, 4, true)?,
            'U' => self.hex_digits(at, 8, true)?,
            other => return Err(self.syntax(at, format!("'\\{other}' is an unrecognized escape"))),
        };
        if code == 0 {
            return Err(self.syntax(at, "nul character not allowed"));
        }
        if matches!(c, '0'..='7' | 'x') && code > 0x7f {
            return Err(self.syntax(
                at,
                format!("'\\{c}' escapes above 0x7f make bytes, not characters; use \\u{{…}}"),
            ));
        }
        char::from_u32(code).ok_or_else(|| self.syntax(at, format!("invalid \\u{{{code:x}}} value")))
    }

    fn hex_digits(&mut self, at: Pos, max: usize, braces_allowed: bool) -> Result<u32> {
        let braced = braces_allowed && self.peek() == Some('{');
        if braced {
            self.bump();
        }
        let mut value: u32 = 0;
        let mut count = 0;
        while count < max {
            match self.peek().and_then(|d| d.to_digit(16)) {
                Some(digit) => {
                    value = value * 16 + digit;
                    count += 1;
                    self.bump();
                }
                None => break,
            }
        }
        if count == 0 {
            return Err(self.syntax(at, "an escape needs hexadecimal digits"));
        }
        if braced && self.bump() != Some('}') {
            return Err(self.syntax(at, "invalid \\u{xxxx} sequence (missing `}`)"));
        }
        Ok(value)
    }

    /// A raw string `r"(...)"`, with `[]` or `{}` instead of `()` and any
    /// number of dashes before the bracket.
    fn raw_string(&mut self, at: Pos) -> Result<String> {
        let quote = self.bump().unwrap_or('"');
        let mut dashes = 0;
        while self.peek() == Some('-') {
            self.bump();
            dashes += 1;
        }
        let close = match self.bump() {
            Some('(') => ')',
            Some('[') => ']',
            Some('{') => '}',
            _ => {
                return Err(self.syntax(
                    at,
                    "a raw string needs `(`, `[` or `{` after its quote and dashes",
                ))
            }
        };
        let terminator: String = std::iter::once(close)
            .chain(std::iter::repeat_n('-', dashes))
            .chain(std::iter::once(quote))
            .collect();
        let rest = &self.text[self.offset..];
        let Some(length) = rest.find(&terminator) else {
            return Err(self.syntax(at, "the raw string starting here is never closed"));
        };
        let content = rest[..length].to_string();
        for _ in content.chars().chain(terminator.chars()) {
            self.bump();
        }
        if content.contains('\0') {
            return Err(self.syntax(at, "nul character not allowed"));
        }
        Ok(content)
    }

    fn special_op(&mut self, at: Pos) -> Result<Tok> {
        let start = self.offset;
        self.bump();
        loop {
            match self.bump() {
                Some('%') => return Ok(Tok::Op(self.text[start..self.offset].to_string())),
                Some('\n') | None => {
                    return Err(self.syntax(at, "the %…% operator starting here is never closed"))
                }
                Some(_) => {}
            }
        }
    }

    fn operator(&mut self, at: Pos) -> Result<Tok> {
        const OPERATORS: [&str; 30] = [
            ":::", "<<-", "->>", "::", "<-", "->", "<=", ">=", "==", "!=", "&&", "||", "|>", "+", "-", "*",
            "/", "^", "<", ">", "!", "&", "|", "~", "?", ":", "=", "$", "@", "\\",
        ];
        let rest = &self.text[self.offset..];
        let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) else {
            let c = self.peek().unwrap_or(' ');
            return Err(self.syntax(at, format!("unexpected character {c:?}")));
        };
        for _ in op.chars() {
            self.bump();
        }
        Ok(Tok::Op(op.to_string()))
    }
}

/// R's reserved words, which must be backquoted to be used as names.
const RESERVED: [&str; 20] = [
    "if",
    "else",
    "repeat",
    "while",
    "function",
    "for",
    "next",
    "break",
    "TRUE",
    "FALSE",
    "NULL",
    "Inf",
    "NaN",
    "NA",
    "NA_integer_",
    "NA_real_",
    "NA_character_",
    "NA_complex_",
    "in",
    "...",
];

/// True if `name` can be written without backquotes (ASCII names only, so
/// that the output does not depend on the reader's locale).
pub(crate) fn is_syntactic(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let starts_well =
        first.is_ascii_alphabetic() || (first == '.' && !name[1..].starts_with(|c: char| c.is_ascii_digit()));
    starts_well
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        && !RESERVED.contains(&name)
        && !is_dot_dot_number(name)
}

/// `..1`, `..2`, …: R's names for elements of `...`.
pub(crate) fn is_dot_dot_number(name: &str) -> bool {
    name.strip_prefix("..")
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
}

/// True if R can use `name` as an argument or formal name at all (in
/// backquotes if need be).
pub(crate) fn is_writable_name(name: &str) -> bool {
    !name.is_empty()
        && name != "..."
        && !is_dot_dot_number(name)
        && !name.contains('\0')
        && name.len() <= 10_000
}

/// `name` as R source: bare if syntactic, else in backquotes.
pub(crate) fn name(name: &str) -> String {
    if is_syntactic(name) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 2);
    out.push('`');
    escape_into(&mut out, name, '`');
    out.push('`');
    out
}

/// `text` as a double-quoted R string. R strings cannot hold NUL; callers
/// check with [`has_nul`] first (a NUL here is written as U+FFFD).
pub(crate) fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    escape_into(&mut out, text, '"');
    out.push('"');
    out
}

/// `text` as a single-quoted R string (for JSON, which is full of `"`).
pub(crate) fn single_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    escape_into(&mut out, text, '\'');
    out.push('\'');
    out
}

/// True if `text` holds a NUL character, which no R string can.
pub(crate) fn has_nul(text: &str) -> bool {
    text.contains('\0')
}

fn escape_into(out: &mut String, text: &str, quote: char) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push('\u{fffd}'),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
}

/// R source to be written: a piece of text, or a call laid out by [`RExpr::render`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RExpr {
    /// Text written as it is (a literal, a name, verbatim code).
    Atom(String),
    /// A call `function(args…)`.
    Call {
        function: String,
        args: Vec<(Option<String>, RExpr)>,
        /// Always one argument per line (when there are any).
        block: bool,
    },
}

impl RExpr {
    /// A call laid out inline unless an argument needs more lines.
    pub(crate) fn call(function: &str, args: Vec<(Option<String>, RExpr)>) -> RExpr {
        RExpr::Call {
            function: function.to_string(),
            args,
            block: false,
        }
    }

    /// A call with one argument per line.
    pub(crate) fn block(function: &str, args: Vec<(Option<String>, RExpr)>) -> RExpr {
        RExpr::Call {
            function: function.to_string(),
            args,
            block: true,
        }
    }

    fn is_multiline(&self) -> bool {
        match self {
            RExpr::Atom(text) => text.contains('\n'),
            RExpr::Call { args, block, .. } => {
                (*block && !args.is_empty()) || args.iter().any(|(_, arg)| arg.is_multiline())
            }
        }
    }

    /// The source text, continuation lines indented by `indent` levels of two spaces.
    pub(crate) fn render(&self, indent: usize) -> String {
        let mut out = String::new();
        self.render_into(&mut out, indent);
        out
    }

    fn render_into(&self, out: &mut String, indent: usize) {
        match self {
            RExpr::Atom(text) => out.push_str(text),
            RExpr::Call { function, args, .. } => {
                out.push_str(function);
                out.push('(');
                let multiline = self.is_multiline();
                for (index, (arg_name, value)) in args.iter().enumerate() {
                    if multiline {
                        out.push('\n');
                        push_indent(out, indent + 1);
                    } else if index > 0 {
                        out.push(' ');
                    }
                    if let Some(arg_name) = arg_name {
                        out.push_str(&name(arg_name));
                        out.push_str(" = ");
                    }
                    value.render_into(out, indent + 1);
                    if index + 1 < args.len() {
                        out.push(',');
                    }
                }
                if multiline {
                    out.push('\n');
                    push_indent(out, indent);
                }
                out.push(')');
            }
        }
    }
}

fn push_indent(out: &mut String, levels: usize) {
    for _ in 0..levels {
        out.push_str("  ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source<'_> {
        Source::new(text, 128).unwrap()
    }

    fn syntax_error(text: &str) -> String {
        match Source::new(text, 128) {
            Ok(_) => panic!("{text:?} was accepted"),
            Err(err) => err.to_string(),
        }
    }

    fn toks(text: &str) -> Vec<Tok> {
        source(text).tokens.into_iter().map(|token| token.tok).collect()
    }

    fn sym(name: &str) -> Tok {
        Tok::Symbol {
            name: name.into(),
            quoted: false,
        }
    }

    #[test]
    fn tokens_of_an_assignment_with_comments() {
        assert_eq!(
            toks("x <- f(1.5e3, 'a', `b c`) # note\n"),
            vec![
                sym("x"),
                Tok::Op("<-".into()),
                sym("f"),
                Tok::Open('('),
                Tok::Num("1.5e3".into()),
                Tok::Comma,
                Tok::Str("a".into()),
                Tok::Comma,
                Tok::Symbol {
                    name: "b c".into(),
                    quoted: true
                },
                Tok::Close(')'),
                Tok::Newline,
            ]
        );
        assert_eq!(
            toks("a %in% b |> c::d"),
            vec![
                sym("a"),
                Tok::Op("%in%".into()),
                sym("b"),
                Tok::Op("|>".into()),
                sym("c"),
                Tok::Op("::".into()),
                sym("d")
            ]
        );
    }

    #[test]
    fn string_escapes_decode_like_r() {
        let cases = [
            (r#""a\"b""#, "a\"b"),
            (r#"'it\'s'"#, "it's"),
            (r#""back\\slash""#, "back\\slash"),
            (r#""\n\t\r\a\b\f\v""#, "\n\t\r\u{7}\u{8}\u{c}\u{b}"),
            (r#""\x41\101\u00e9\u{e9}\U{1F600}\U0001F600\U{41}""#, "AAéé😀😀A"),
            ("\"two\nlines\"", "two\nlines"),
            (r#"r"(a "quoted" \n)""#, "a \"quoted\" \\n"),
            (r#"R'--[x]-]--'"#, "x]-"),
            (r#"r"{}""#, ""),
        ];
        for (text, expected) in cases {
            assert_eq!(toks(text), vec![Tok::Str(expected.into())], "{text}");
        }
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let cases = [
            ("f(\"abc", "R syntax error: the string starting here is never closed (line 1, column 3)"),
            ("x <- '\\q'", "R syntax error: '\\q' is an unrecognized escape (line 1, column 7)"),
            ("'\\0'", "R syntax error: nul character not allowed (line 1, column 2)"),
            ("f(\n  g(1]\n)", "R syntax error: `]` does not close the `(` opened at line 2, column 4 (line 2, column 6)"),
            ("tool(rnorm,\n  \"d\"", "R syntax error: the `(` opened here is never closed (the text ends first) (line 1, column 5)"),
            ("x)", "R syntax error: unexpected `)` (line 1, column 2)"),
            ("x <-\n", "R syntax error: the text ends after `<-`, in the middle of an expression (line 1, column 3)"),
            ("1, 2", "R syntax error: unexpected `,` outside a call (line 1, column 2)"),
            ("a %in b", "R syntax error: the %…% operator starting here is never closed (line 1, column 3)"),
            ("x <- 1e", "R syntax error: a number's exponent needs digits (line 1, column 6)"),
            ("``", "R syntax error: a backquoted name is empty (line 1, column 1)"),
            ("r\"(abc\"", "R syntax error: the raw string starting here is never closed (line 1, column 1)"),
            ("é <- 1\n  ¤", "R syntax error: unexpected character '¤' (line 2, column 3)"),
            ("'\\xe9'", "R syntax error: '\\x' escapes above 0x7f make bytes, not characters; use \\u{…} (line 1, column 2)"),
            ("'\\u{1F600}'", "R syntax error: invalid \\u{xxxx} sequence (missing `}`) (line 1, column 2)"),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(text, expected)| syntax_error(text) != *expected)
            .map(|(text, _)| format!("{text:?}\n  gives: {}", syntax_error(text)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn nesting_is_bounded_without_recursion() {
        let deep = "(".repeat(100_000);
        let err = Source::new(&deep, 128).unwrap_err();
        assert_eq!(
            err.to_string(),
            "limit exceeded: the R code is nested more than 128 levels deep (line 1, column 129)"
        );
        let err = Source::new(&deep, usize::MAX).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        let closed = format!("{}{}", "f(".repeat(100), ")".repeat(100));
        assert!(Source::new(&closed, 128).is_ok());
    }

    fn parse_one(text: &str) -> Result<ExprKind> {
        let source = source(text);
        source.parse(0, source.tokens.len()).map(|expr| expr.kind)
    }

    #[test]
    fn values_of_the_subset() {
        assert_eq!(parse_one("\"a\"").unwrap(), ExprKind::Str("a".into()));
        assert_eq!(parse_one("-1.5").unwrap(), ExprKind::Num("-1.5".into()));
        assert_eq!(parse_one("(T)").unwrap(), ExprKind::Bool(true));
        assert_eq!(parse_one("NA_character_").unwrap(), ExprKind::Na);
        assert_eq!(
            parse_one("`TRUE`").unwrap(),
            ExprKind::Symbol {
                namespace: None,
                name: "TRUE".into()
            }
        );
        assert_eq!(
            parse_one("stats::rnorm").unwrap(),
            ExprKind::Symbol {
                namespace: Some("stats".into()),
                name: "rnorm".into()
            }
        );
        assert_eq!(
            parse_one("ellmer::type_string(\"x\")").unwrap(),
            ExprKind::Call {
                namespace: Some("ellmer".into()),
                name: "type_string".into(),
                open: 3
            }
        );
        assert_eq!(
            parse_one("function(x) { x + 1 }").unwrap(),
            ExprKind::Function { open: 1 }
        );
        assert_eq!(parse_one("\\(x) x").unwrap(), ExprKind::Function { open: 1 });
        assert_eq!(
            parse_one("1 + 2").unwrap_err().to_string(),
            "invalid tool: unexpected `+` here: toolbridge reads strings, numbers, TRUE/FALSE, NULL, NA, \
             names and calls such as c(), list() and ellmer's type_*() (line 1, column 3)"
        );
        assert_eq!(
            parse_one("function(x)").unwrap_err().to_string(),
            "invalid tool: the function literal has no body (line 1, column 11)"
        );
    }

    #[test]
    fn call_arguments_split_at_top_level_commas() {
        let source = source("f(a = g(1, 2),\n  'b' = c(\"x\"), 3,\n)");
        let err = source.call_args(1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid tool: argument 4 is empty (line 3, column 1)"
        );
        let source = self::source("f(a = g(1, 2),\n  'b' = c(\"x\"), 3)");
        let args = source.call_args(1).unwrap();
        let summary: Vec<(Option<&str>, &str)> = args
            .iter()
            .map(|arg| (arg.name.as_deref(), source.slice(arg.first, arg.end)))
            .collect();
        assert_eq!(
            summary,
            vec![(Some("a"), "g(1, 2)"), (Some("b"), "c(\"x\")"), (None, "3")]
        );
        assert!(self::source("f()").call_args(1).unwrap().is_empty());
    }

    fn matched(text: &str, formals: &[&str]) -> Result<(Vec<Option<String>>, Vec<String>)> {
        let source = source(text);
        let args = source.call_args(1)?;
        let matched = match_args("f", formals, &args)?;
        let show = |arg: &Arg| source.slice(arg.first, arg.end).to_string();
        Ok((
            matched.bound.iter().map(|arg| arg.map(show)).collect(),
            matched.dots.iter().map(|arg| show(arg)).collect(),
        ))
    }

    #[test]
    fn arguments_match_like_r() {
        let formals = ["fun", "description", "...", "arguments", "name"];
        let (bound, dots) = matched("f(desc = 'd', x = 1, rnorm, name = 'n', 2)", &formals).unwrap();
        assert_eq!(
            bound,
            vec![
                Some("rnorm".into()),
                Some("'d'".into()),
                None,
                None,
                Some("'n'".into())
            ]
        );
        assert_eq!(dots, vec!["1", "2"]);
        // Formals after `...` match only exactly.
        let (bound, dots) = matched("f(a, b, arg = 1)", &formals).unwrap();
        assert_eq!(bound[3], None);
        assert_eq!(dots, vec!["1"]);
        let err = matched("f(1, 2, 3)", &["a", "b"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid tool: f(): unused argument number 3 (line 1, column 9)"
        );
        let err = matched("f(a = 1, a = 2)", &["a"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid tool: f(): formal argument `a` matched by multiple actual arguments (line 1, column 10)"
        );
        let err = matched("f(re = 1)", &["read", "rest"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid tool: f(): argument `re` matches several formal arguments (line 1, column 3)"
        );
    }

    #[test]
    fn names_and_strings_are_escaped_for_r() {
        assert_eq!(name("n"), "n");
        assert_eq!(name(".hidden"), ".hidden");
        assert_eq!(name("x-owner"), "`x-owner`");
        assert_eq!(name("if"), "`if`");
        assert_eq!(name("..1"), "`..1`");
        assert_eq!(name(".5a"), "`.5a`");
        assert_eq!(name("_x"), "`_x`");
        assert_eq!(name("naïve"), "`naïve`");
        assert_eq!(name("a`b\\c"), "`a\\`b\\\\c`");
        assert_eq!(
            string("say \"hi\"\n\t\\ é😀\u{7}"),
            "\"say \\\"hi\\\"\\n\\t\\\\ é😀\\u{7}\""
        );
        assert_eq!(
            single_quoted(r#"{"a":"it's \"x\""}"#),
            r#"'{"a":"it\'s \\"x\\""}'"#
        );
        for text in ["a\"b'c\\d\n\r\t\u{1}\u{7f}é😀`", ""] {
            let written = format!("{}\n{}", string(text), single_quoted(text));
            assert_eq!(
                toks(&written),
                vec![Tok::Str(text.into()), Tok::Newline, Tok::Str(text.into())]
            );
        }
        assert!(!is_writable_name("...") && !is_writable_name("") && is_writable_name("x y"));
    }

    #[test]
    fn layout_is_one_argument_per_line_for_blocks() {
        let inner = RExpr::call(
            "type_string",
            vec![
                (None, RExpr::Atom(string("d"))),
                (Some("required".into()), RExpr::Atom("FALSE".into())),
            ],
        );
        assert_eq!(inner.render(0), "type_string(\"d\", required = FALSE)");
        let list = RExpr::block(
            "list",
            vec![(Some("a b".into()), inner.clone()), (Some("c".into()), inner)],
        );
        let call = RExpr::call("type_object", vec![(None, list)]);
        assert_eq!(
            call.render(1),
            "type_object(\n    list(\n      `a b` = type_string(\"d\", required = FALSE),\n      \
             c = type_string(\"d\", required = FALSE)\n    )\n  )"
        );
        assert_eq!(RExpr::block("list", vec![]).render(0), "list()");
    }
}
