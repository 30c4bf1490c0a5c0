//! Values: a call's arguments, values of the subset toolbridge reads, and
//! R's matching of arguments to formals.

use crate::error::{Error, ErrorKind, Result};

use super::lex::{Source, Tok};
use super::Pos;

impl<'a> Source<'a> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source<'_> {
        Source::new(text, 128).unwrap()
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
}
