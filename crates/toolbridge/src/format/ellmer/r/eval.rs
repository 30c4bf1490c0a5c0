//! Strings as R computes them: the value of a description built from string
//! literals with `c()`, `paste()`, `paste0()`, `trimws()` and `glue()`
//! without interpolation (posit-dev/btw builds its tool descriptions with
//! `paste()`). Anything else is an error at its line and column.
//!
//! Values are R atomic vectors of one mode each (logical < integer < double
//! < character, the order `c()` coerces in); `paste()` and friends turn them
//! into character vectors with `as.character()`'s rules: doubles with up to 15
//! significant digits, fixed notation unless scientific is narrower. Every
//! rule here was checked against R 4.2 with `Rscript -e`; the tests at the
//! bottom hold those results.

use crate::error::{Error, ErrorKind, Result};

use super::parse::{Arg, Expr, ExprKind};
use super::{match_args, Pos, Source};

/// The functions this module evaluates, for messages.
const SUPPORTED: &str = "string literals, c(), paste(), paste0(), trimws() and glue() without interpolation";

/// One element of an atomic vector.
#[derive(Clone, Debug, PartialEq)]
enum Elem {
    Lgl(bool),
    Int(i64),
    /// A double as a decimal: `digits` × 10^`exp` with no leading or
    /// trailing zeros in `digits` (empty for zero).
    Dbl {
        negative: bool,
        digits: String,
        exp: i64,
    },
    Str(String),
    Na,
}

/// An atomic vector's mode, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    Null,
    Logical,
    Integer,
    Double,
    Character,
}

#[derive(Clone, Debug)]
struct Vector {
    mode: Mode,
    elems: Vec<Elem>,
}

impl Vector {
    fn null() -> Vector {
        Vector {
            mode: Mode::Null,
            elems: Vec::new(),
        }
    }

    fn strings(items: Vec<Option<String>>) -> Vector {
        Vector {
            mode: Mode::Character,
            elems: items
                .into_iter()
                .map(|item| item.map_or(Elem::Na, Elem::Str))
                .collect(),
        }
    }

    /// `as.character()`: `None` for NA.
    fn as_character(&self) -> Vec<Option<String>> {
        self.elems.iter().map(as_character).collect()
    }
}

fn as_character(elem: &Elem) -> Option<String> {
    Some(match elem {
        Elem::Lgl(true) => "TRUE".into(),
        Elem::Lgl(false) => "FALSE".into(),
        Elem::Int(value) => value.to_string(),
        Elem::Dbl {
            negative,
            digits,
            exp,
        } => format_double(*negative, digits, *exp),
        Elem::Str(text) => text.clone(),
        Elem::Na => return None,
    })
}

/// R's `as.character()` of a double given as significant `digits` (at most
/// 15) × 10^`exp`: fixed notation when it is no wider than scientific
/// (`scipen = 0`), so `1e+05` but `123456`, `0.1` but `1e-04`.
fn format_double(negative: bool, digits: &str, exp: i64) -> String {
    if digits.is_empty() {
        return "0".into();
    }
    let n = digits.len() as i64;
    // The exponent of the leading digit in scientific notation.
    let sci_exp = exp + n - 1;
    let fixed_width = if sci_exp >= 0 {
        let int_digits = sci_exp + 1;
        let frac = (n - int_digits).max(0);
        int_digits + if frac > 0 { 1 + frac } else { 0 }
    } else {
        2 + (-sci_exp - 1) + n
    };
    let exp_digits = sci_exp.unsigned_abs().to_string().len().max(2) as i64;
    let sci_width = n + i64::from(n > 1) + 2 + exp_digits;
    let sign = if negative { "-" } else { "" };
    if fixed_width <= sci_width {
        let body = if sci_exp >= 0 {
            let int_digits = (sci_exp + 1) as usize;
            if digits.len() <= int_digits {
                format!("{digits}{}", "0".repeat(int_digits - digits.len()))
            } else {
                format!("{}.{}", &digits[..int_digits], &digits[int_digits..])
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-sci_exp - 1) as usize))
        };
        format!("{sign}{body}")
    } else {
        let mantissa = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.to_string()
        };
        let exp_sign = if sci_exp < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exp_sign}{:0>2}", sci_exp.unsigned_abs())
    }
}

/// A number literal as R reads it (with a leading `-` when negated), or
/// `None` for what this module does not model (complex numbers, more than
/// 15 significant digits, integers out of range).
fn number(text: &str) -> Option<Elem> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if text.ends_with('i') {
        return None;
    }
    let (body, integer) = match text.strip_suffix('L') {
        Some(body) => (body, true),
        None => (text, false),
    };
    let (digits, exp) = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let value = u64::from_str_radix(hex, 16).ok()?;
        normalize(&value.to_string(), 0)
    } else {
        let (mantissa, exp) = match body.find(['e', 'E']) {
            Some(at) => (&body[..at], body[at + 1..].parse::<i64>().ok()?),
            None => (body, 0),
        };
        let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        normalize(&format!("{int_part}{frac_part}"), exp - frac_part.len() as i64)
    };
    if digits.len() > 15 || exp.abs() > 400 {
        return None;
    }
    if integer {
        // `5L`: an integer if the value is one and fits in 32 bits.
        if exp < 0 {
            return None;
        }
        let value: i64 = format!("{digits}{}", "0".repeat(exp as usize)).parse().ok()?;
        let value = if negative { -value } else { value };
        return (i64::from(i32::MIN) < value && value <= i64::from(i32::MAX)).then_some(Elem::Int(value));
    }
    Some(Elem::Dbl {
        negative: negative && !digits.is_empty(),
        digits,
        exp,
    })
}

/// Significant digits (no leading or trailing zeros) and the exponent of
/// the last one.
fn normalize(all: &str, exp: i64) -> (String, i64) {
    let trimmed = all.trim_start_matches('0');
    let kept = trimmed.trim_end_matches('0');
    let exp = exp + (trimmed.len() - kept.len()) as i64;
    (kept.to_string(), exp)
}

/// Converts `elem` of `from` mode to `to` (`to` ≥ `from`), as `c()` does.
fn coerce(elem: Elem, to: Mode) -> Elem {
    match (elem, to) {
        (Elem::Na, _) => Elem::Na,
        (elem, Mode::Character) => as_character(&elem).map_or(Elem::Na, Elem::Str),
        (Elem::Lgl(flag), Mode::Integer) => Elem::Int(i64::from(flag)),
        (Elem::Lgl(flag), Mode::Double) => Elem::Dbl {
            negative: false,
            digits: if flag { "1".into() } else { String::new() },
            exp: 0,
        },
        (Elem::Int(value), Mode::Double) => {
            let (digits, exp) = normalize(&value.unsigned_abs().to_string(), 0);
            Elem::Dbl {
                negative: value < 0,
                digits,
                exp,
            }
        }
        (elem, _) => elem,
    }
}

/// Evaluates string expressions in `source`, within a byte budget.
pub(crate) struct Evaluator<'s, 'a> {
    source: &'s Source<'a>,
    /// The most bytes (counting each element as at least one) a value may hold.
    budget: usize,
}

impl<'s, 'a> Evaluator<'s, 'a> {
    /// An evaluator whose values stay within `budget` bytes.
    pub(crate) fn new(source: &'s Source<'a>, budget: usize) -> Evaluator<'s, 'a> {
        Evaluator { source, budget }
    }

    /// The value of `expr` if it is one string; `None` for `NULL`. `what`
    /// names the value in messages ("the tool description").
    pub(crate) fn string(&self, expr: &Expr, what: &str) -> Result<Option<String>> {
        let value = self.eval(expr)?;
        if value.mode == Mode::Null {
            return Ok(None);
        }
        if value.mode != Mode::Character {
            return Err(self.invalid(
                expr.at,
                format!("{what} must be a string, found {}", expr.describe()),
            ));
        }
        match value.as_character().as_slice() {
            [Some(text)] => Ok(Some(text.clone())),
            [None] => Err(self.invalid(expr.at, format!("{what} is NA, not a string"))),
            items => Err(self.invalid(
                expr.at,
                format!(
                    "{what} must be one string; R evaluates this to {} strings",
                    items.len()
                ),
            )),
        }
    }

    fn invalid(&self, at: Pos, detail: impl Into<String>) -> Error {
        at.error(ErrorKind::InvalidTool, detail)
    }

    fn unsupported(&self, expr: &Expr) -> Error {
        self.invalid(
            expr.at,
            format!(
                "{} is not evaluated: toolbridge computes strings only from {SUPPORTED}",
                expr.describe()
            ),
        )
    }

    fn checked(&self, at: Pos, value: Vector) -> Result<Vector> {
        let size: usize = value
            .elems
            .iter()
            .map(|elem| match elem {
                Elem::Str(text) => text.len().max(1),
                Elem::Dbl { digits, .. } => digits.len().max(1),
                _ => 1,
            })
            .sum();
        if size > self.budget {
            return Err(at.error(
                ErrorKind::LimitExceeded,
                format!("the string R builds here is larger than {} bytes", self.budget),
            ));
        }
        Ok(value)
    }

    fn eval(&self, expr: &Expr) -> Result<Vector> {
        let single = |elem| Vector {
            mode: match &elem {
                Elem::Lgl(_) | Elem::Na => Mode::Logical,
                Elem::Int(_) => Mode::Integer,
                Elem::Dbl { .. } => Mode::Double,
                Elem::Str(_) => Mode::Character,
            },
            elems: vec![elem],
        };
        match &expr.kind {
            ExprKind::Str(text) => Ok(single(Elem::Str(text.clone()))),
            ExprKind::Bool(flag) => Ok(single(Elem::Lgl(*flag))),
            ExprKind::Na => Ok(single(Elem::Na)),
            ExprKind::Null => Ok(Vector::null()),
            ExprKind::Num(text) => match number(text) {
                Some(elem) => Ok(single(elem)),
                None => Err(self.invalid(
                    expr.at,
                    format!(
                        "the number {text} is not evaluated: toolbridge turns into text only numbers with at most \
                         15 significant digits"
                    ),
                )),
            },
            ExprKind::Call {
                namespace,
                name,
                open,
            } => {
                let namespace = namespace.as_deref();
                let base = namespace.is_none_or(|ns| ns == "base");
                let args = self.source.call_args(*open)?;
                let value = match name.as_str() {
                    "c" if base => self.combine(&args)?,
                    "paste" if base => self.paste(&args, Some(" "))?,
                    "paste0" if base => self.paste(&args, None)?,
                    "trimws" if base => self.trimws(expr, &args)?,
                    "glue" if namespace.is_none_or(|ns| ns == "glue") => self.glue(expr, &args)?,
                    _ => return Err(self.unsupported(expr)),
                };
                self.checked(expr.at, value)
            }
            _ => Err(self.unsupported(expr)),
        }
    }

    fn arg_value(&self, arg: &Arg) -> Result<(Expr, Vector)> {
        let expr = self.source.parse(arg.first, arg.end)?;
        let value = self.eval(&expr)?;
        Ok((expr, value))
    }

    /// `c(...)`: the elements of every argument, coerced to the highest mode.
    fn combine(&self, args: &[Arg]) -> Result<Vector> {
        let mut parts = Vec::new();
        for arg in args {
            if let Some(name @ ("recursive" | "use.names")) = arg.name.as_deref() {
                return Err(self.invalid(arg.at, format!("c(): `{name}` is not evaluated")));
            }
            parts.push(self.arg_value(arg)?.1);
        }
        let mode = parts.iter().map(|part| part.mode).max().unwrap_or(Mode::Null);
        let elems = parts
            .into_iter()
            .flat_map(|part| part.elems)
            .map(|elem| coerce(elem, mode))
            .collect();
        Ok(Vector { mode, elems })
    }

    /// A `sep`/`collapse` argument: the first string of a character vector.
    fn separator(&self, arg: &Arg, function: &str, what: &str) -> Result<Option<String>> {
        let (expr, value) = self.arg_value(arg)?;
        match (value.mode, value.as_character().first()) {
            (Mode::Null, _) if what == "collapse" => Ok(None),
            (Mode::Character, Some(Some(text))) => Ok(Some(text.clone())),
            _ => Err(self.invalid(
                expr.at,
                format!("{function}(): invalid `{what}` argument (R needs a string)"),
            )),
        }
    }

    /// `paste(..., sep = " ", collapse = NULL)` and `paste0(..., collapse =
    /// NULL)`: arguments recycled to the longest (a zero-length one counts
    /// as "" unless all are), pasted element-wise, then collapsed.
    fn paste(&self, args: &[Arg], default_sep: Option<&str>) -> Result<Vector> {
        let function = if default_sep.is_some() { "paste" } else { "paste0" };
        let mut sep = default_sep.unwrap_or("").to_string();
        let mut collapse = None;
        let mut columns: Vec<Vec<Option<String>>> = Vec::new();
        for arg in args {
            match arg.name.as_deref() {
                Some("sep") if default_sep.is_some() => {
                    sep = self.separator(arg, function, "sep")?.unwrap_or_default();
                }
                Some("collapse") => collapse = self.separator(arg, function, "collapse")?,
                Some("recycle0") => {
                    return Err(self.invalid(arg.at, format!("{function}(): `recycle0` is not evaluated")))
                }
                _ => columns.push(self.arg_value(arg)?.1.as_character()),
            }
        }
        let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
        let mut pasted = Vec::with_capacity(rows);
        let mut size = 0usize;
        for row in 0..rows {
            let mut line = String::new();
            for (index, column) in columns.iter().enumerate() {
                if index > 0 {
                    line.push_str(&sep);
                }
                if !column.is_empty() {
                    line.push_str(column[row % column.len()].as_deref().unwrap_or("NA"));
                }
            }
            size += line.len().max(1) + collapse.as_ref().map_or(0, String::len);
            if size > self.budget {
                return Err(self.invalid(
                    args.first().map_or(Pos { line: 1, column: 1 }, |arg| arg.at),
                    format!("{function}() builds a string larger than {} bytes", self.budget),
                ));
            }
            pasted.push(Some(line));
        }
        Ok(match collapse {
            Some(collapse) => {
                let joined: Vec<String> = pasted.into_iter().flatten().collect();
                Vector::strings(vec![Some(joined.join(&collapse))])
            }
            None => Vector::strings(pasted),
        })
    }

    /// `trimws(x, which = c("both", "left", "right"))` with R's default
    /// `whitespace = "[ \t\r\n]"`.
    fn trimws(&self, expr: &Expr, args: &[Arg]) -> Result<Vector> {
        let formals = ["x", "which", "whitespace"];
        let matched = match_args("trimws", &formals, args)?;
        let Some(x) = matched.bound[0] else {
            return Err(self.invalid(expr.at, "trimws(): argument \"x\" is missing"));
        };
        if let Some(whitespace) = matched.bound[2] {
            return Err(self.invalid(
                whitespace.at,
                "trimws(): only the default `whitespace` (\"[ \\t\\r\\n]\") is evaluated",
            ));
        }
        let (left, right) = match matched.bound[1] {
            None => (true, true),
            Some(which) => {
                let (which_expr, value) = self.arg_value(which)?;
                let given = match (value.mode, value.as_character().as_slice()) {
                    (Mode::Character, [Some(given)]) => given.clone(),
                    _ => {
                        return Err(self.invalid(
                            which_expr.at,
                            "trimws(): `which` must be \"both\", \"left\" or \"right\"",
                        ))
                    }
                };
                // match.arg(): an exact or unique partial match.
                let choices = ["both", "left", "right"];
                let found: Vec<&str> = choices
                    .iter()
                    .copied()
                    .filter(|choice| !given.is_empty() && choice.starts_with(given.as_str()))
                    .collect();
                match found.as_slice() {
                    ["both"] => (true, true),
                    ["left"] => (true, false),
                    ["right"] => (false, true),
                    _ => {
                        return Err(self.invalid(
                            which_expr.at,
                            "trimws(): 'arg' should be one of \"both\", \"left\", \"right\"",
                        ))
                    }
                }
            }
        };
        let is_space = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
        let x = self.arg_value(x)?.1;
        let trimmed = x
            .as_character()
            .into_iter()
            .map(|item| {
                item.map(|text| {
                    let text = if left {
                        text.trim_start_matches(is_space)
                    } else {
                        &text
                    };
                    let text = if right {
                        text.trim_end_matches(is_space)
                    } else {
                        text
                    };
                    text.to_string()
                })
            })
            .collect();
        Ok(Vector::strings(trimmed))
    }

    /// `glue()` / `glue::glue()` of literal text: the unnamed arguments
    /// (each one string) joined with `.sep`, trimmed as glue trims (with
    /// `.trim = TRUE`, the default), `{{` and `}}` unescaped; a single `{`
    /// would interpolate R code and is an error.
    fn glue(&self, expr: &Expr, args: &[Arg]) -> Result<Vector> {
        let mut sep = String::new();
        let mut trim = true;
        let mut parts = Vec::new();
        let mut empty = false;
        for arg in args {
            match arg.name.as_deref() {
                None => {
                    let (part_expr, value) = self.arg_value(arg)?;
                    if value.mode == Mode::Null || value.elems.is_empty() {
                        empty = true;
                        continue;
                    }
                    match value.as_character().as_slice() {
                        [item] => parts.push(item.clone().unwrap_or_else(|| "NA".into())),
                        _ => {
                            return Err(
                                self.invalid(part_expr.at, "glue(): all unnamed arguments must be length 1")
                            )
                        }
                    }
                }
                Some(".sep") => {
                    sep = self.separator(arg, "glue", ".sep")?.unwrap_or_default();
                }
                Some(".trim") => {
                    let (flag_expr, value) = self.arg_value(arg)?;
                    trim = match value.elems.as_slice() {
                        [Elem::Lgl(flag)] => *flag,
                        _ => return Err(self.invalid(flag_expr.at, "glue(): `.trim` must be TRUE or FALSE")),
                    };
                }
                Some(name) => {
                    return Err(self.invalid(
                        arg.at,
                        format!(
                            "glue(): the argument `{name}` is not evaluated (toolbridge reads glue() only \
                             without interpolation)"
                        ),
                    ))
                }
            }
        }
        if empty || parts.is_empty() {
            return Ok(Vector::strings(Vec::new()));
        }
        let mut text = parts.join(&sep);
        if trim && text.contains('\n') {
            text = glue_trim(&text);
        }
        match unescape_braces(&text) {
            Some(text) => Ok(Vector::strings(vec![Some(text)])),
            None => Err(self.invalid(
                expr.at,
                "glue() interpolates the R code in `{…}` here; toolbridge reads glue() only without \
                 interpolation (write `{{` for a literal brace)",
            )),
        }
    }
}

/// glue's `{{` → `{` and `}}` → `}`; `None` at a single `{`.
fn unescape_braces(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '{' => return None,
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// glue's `.trim` (tidyverse/glue `src/trim.c`, `trim_`): blanks before the
/// first line's text go, and the first line with them when it is empty; the
/// smallest indent of the later lines (a blank last line counts, other blank
/// lines do not) comes off every line; a backslash before a newline joins
/// the lines; and a last line of blanks goes with the newline before it.
fn glue_trim(text: &str) -> String {
    let bytes = text.as_bytes();
    let len = bytes.len();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut start = 0;
    while start < len && blank(bytes[start]) {
        start += 1;
    }
    let first_line_empty = start < len && bytes[start] == b'\n';
    if first_line_empty {
        start += 1;
    }
    // The smallest indent of the lines after the first.
    let mut i = start;
    if !first_line_empty {
        while i < len && bytes[i] != b'\n' {
            i += 1;
        }
    }
    let mut new_line = true;
    let mut indent = 0usize;
    let mut min_indent: Option<usize> = None;
    while i < len {
        if bytes[i] == b'\n' {
            new_line = true;
            indent = 0;
        } else if new_line {
            if blank(bytes[i]) {
                indent += 1;
            } else {
                min_indent = Some(min_indent.map_or(indent, |min| min.min(indent)));
                indent = 0;
                new_line = false;
            }
        }
        i += 1;
    }
    if len > 0 && bytes[len - 1] != b'\n' && new_line {
        min_indent = Some(min_indent.map_or(indent, |min| min.min(indent)));
    }
    let min_indent = min_indent.unwrap_or(usize::MAX);
    // Copy, taking the indent off every line.
    let mut out: Vec<u8> = Vec::with_capacity(len);
    let mut i = start;
    let mut new_line = true;
    while i < len {
        if bytes[i] == b'\n' {
            new_line = true;
        } else if bytes[i] == b'\\' && i + 1 < len && bytes[i + 1] == b'\n' {
            new_line = true;
            i += 2;
            continue;
        } else if new_line {
            let skipped = bytes[i..].iter().take_while(|b| blank(**b)).count();
            if i + skipped < len && bytes[i + skipped] == b'\n' && skipped < min_indent {
                out.extend_from_slice(&bytes[i..i + skipped]);
                i += skipped;
            } else if blank(bytes[i]) && min_indent != usize::MAX && i + min_indent < len {
                i += min_indent;
            }
            new_line = false;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    // A last line of blanks goes, with the newline before it.
    let mut end = out.len();
    let mut j = out.len();
    while j > 0 {
        let b = if j == out.len() { 0 } else { out[j] };
        if b == b'\n' {
            end = j;
            break;
        } else if b == 0 || blank(b) {
            j -= 1;
        } else {
            break;
        }
    }
    out.truncate(end);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The string vector R gives for `text` (NA as "<NA>").
    fn eval(text: &str) -> Result<Vec<String>> {
        let source = Source::new(text, 128)?;
        let expr = source.parse(0, source.tokens.len())?;
        let evaluator = Evaluator::new(&source, 1 << 20);
        let value = evaluator.eval(&expr)?;
        Ok(value
            .as_character()
            .into_iter()
            .map(|item| item.unwrap_or_else(|| "<NA>".into()))
            .collect())
    }

    fn one(text: &str) -> String {
        match eval(text) {
            Ok(mut items) if items.len() == 1 => items.remove(0),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn error(text: &str) -> String {
        match eval(text) {
            Ok(items) => panic!("{text} evaluated to {items:?}"),
            Err(err) => err.to_string(),
        }
    }

    // Every expected value below is what R 4.2.2 prints for the same code
    // (`Rscript -e 'deparse(…)'`).

    #[test]
    fn paste_recycles_and_collapses_as_r_does() {
        assert_eq!(one(r#"paste("a", NULL, "b")"#), "a  b");
        assert_eq!(one(r#"paste("a", c(), "b")"#), "a  b");
        assert_eq!(eval("paste(NULL)").unwrap(), Vec::<String>::new());
        assert_eq!(one(r#"paste(NULL, collapse = "")"#), "");
        assert_eq!(
            eval(r#"paste(c("a","b","c"), c("x","y"))"#).unwrap(),
            ["a x", "b y", "c x"]
        );
        assert_eq!(one(r#"paste0(c("a","b"), "-", collapse = "+")"#), "a-+b-");
        assert_eq!(one(r#"paste("a", "b", sep = "")"#), "ab");
        assert_eq!(
            eval(r#"paste(c("a", "b"), collapse = NULL)"#).unwrap(),
            ["a", "b"]
        );
        assert_eq!(one(r#"paste("a", "b", sep = c("-", "+"))"#), "a-b");
        assert_eq!(one(r#"paste("a", "b", collapse = c("x", "y"))"#), "a b");
        assert_eq!(one(r#"paste(c(a = "x"), "y")"#), "x y");
        assert_eq!(one(r#"paste(c(), collapse = ", ")"#), "");
        assert_eq!(eval(r#"paste0(c("a", NA), "b")"#).unwrap(), ["ab", "NAb"]);
        assert_eq!(eval("paste0()").unwrap(), Vec::<String>::new());
        assert_eq!(one(r#"paste0(collapse = "x")"#), "");
        assert_eq!(one(r#"base::paste0("a", c())"#), "a");
        assert_eq!(
            error(r#"paste("a", sep = NULL)"#),
            "invalid tool: paste(): invalid `sep` argument (R needs a string) (line 1, column 18)"
        );
    }

    #[test]
    fn numbers_and_logicals_become_text_as_in_r() {
        assert_eq!(
            one("paste(1, 2L, TRUE, 1.5, 100000, 123456, 1e5, 0.1, 1e-4, 0.0001, 1e15, 0x10, 1e3L, NA)"),
            "1 2 TRUE 1.5 1e+05 123456 1e+05 0.1 1e-04 1e-04 1e+15 16 1000 NA"
        );
        assert_eq!(one("paste(-1, -0.5)"), "-1 -0.5");
        assert_eq!(
            one("paste(.5, 5., 1e-300, 1.23e-5, 2.50, 5L, 1e5L)"),
            "0.5 5 1e-300 1.23e-05 2.5 5 100000"
        );
        assert_eq!(eval(r#"c(1.5, "a")"#).unwrap(), ["1.5", "a"]);
        // c() coerces each argument to the result's mode directly …
        assert_eq!(eval(r#"c(TRUE, 1, "a")"#).unwrap(), ["TRUE", "1", "a"]);
        // … and a nested c() first to its own.
        assert_eq!(eval(r#"c(c(TRUE, 1), "a")"#).unwrap(), ["1", "1", "a"]);
        assert_eq!(eval("c(100000L, 1.5)").unwrap(), ["1e+05", "1.5"]);
        assert_eq!(
            error("paste(123456789012345678)"),
            "invalid tool: the number 123456789012345678 is not evaluated: toolbridge turns into text only numbers \
             with at most 15 significant digits (line 1, column 7)"
        );
    }

    #[test]
    fn trimws_trims_rs_default_whitespace() {
        assert_eq!(one("trimws(\"  \\t a b \\n\\r \")"), "a b");
        assert_eq!(one(r#"trimws("  a  ", "left")"#), "a  ");
        assert_eq!(one(r#"trimws("  a  ", which = "r")"#), "  a");
        assert_eq!(one(r#"trimws("a", which = "b")"#), "a");
        // Only [ \t\r\n]: a no-break space, \v and \f stay.
        assert_eq!(one("trimws(\"\u{a0}a\\v\\f\")"), "\u{a0}a\u{b}\u{c}");
        assert_eq!(eval(r#"trimws(c(" a ", " b"))"#).unwrap(), ["a", "b"]);
        assert_eq!(
            error(r#"trimws("a", which = "x")"#),
            "invalid tool: trimws(): 'arg' should be one of \"both\", \"left\", \"right\" (line 1, column 21)"
        );
        assert_eq!(
            error(r#"trimws("a", whitespace = "[\\h\\v]")"#),
            "invalid tool: trimws(): only the default `whitespace` (\"[ \\t\\r\\n]\") is evaluated (line 1, column 13)"
        );
    }

    #[test]
    fn raw_strings_are_literal() {
        assert_eq!(one(r#"r"(a\nb)""#), "a\\nb");
        assert_eq!(one(r#"R"[x]""#), "x");
        assert_eq!(one(r#"r"---(a)"b)---""#), "a)\"b");
        assert_eq!(one(r#"r'{q}'"#), "q");
        assert_eq!(one(r#"paste0(r"(C:\)", "dir")"#), "C:\\dir");
    }

    #[test]
    fn glue_without_interpolation_trims_as_glue_does() {
        // R: library(glue) 1.6.2; the same rules as glue's src/trim.c today.
        assert_eq!(one(r#"glue("  a  ")"#), "  a  ");
        assert_eq!(
            one("glue::glue(\"\n    Line one\n      indented\n    Last {{braces}} }} }\n  \")"),
            "  Line one\n    indented\n  Last {braces} } }"
        );
        assert_eq!(
            one("glue(\"first line\n    second\n  third\")"),
            "first line\n  second\nthird"
        );
        assert_eq!(one(r#"glue("a", "b", .sep = "-")"#), "a-b");
        assert_eq!(one("glue(\"x\n\n  y\n   \n  z\")"), "x\n\ny\n \nz");
        assert_eq!(one(r#"glue("")"#), "");
        assert_eq!(eval(r#"glue("a", NULL)"#).unwrap(), Vec::<String>::new());
        assert_eq!(one(r#"glue("a", NA)"#), "aNA");
        assert_eq!(one("glue(\"a\\\\\n  b\")"), "ab");
        assert_eq!(one("glue(\"\n\tA\n\t\tB\n\", .trim = FALSE)"), "\n\tA\n\t\tB\n");
        assert_eq!(one("glue(\"  \n  a\n  b  \")"), "a\nb  ");
        assert_eq!(one("glue(\"\n  a\n  b\n  \")"), "a\nb");
        assert_eq!(
            error(r#"glue("Hello {name}")"#),
            "invalid tool: glue() interpolates the R code in `{…}` here; toolbridge reads glue() only without \
             interpolation (write `{{` for a literal brace) (line 1, column 1)"
        );
        assert_eq!(
            error(r#"glue("a", name = "x")"#),
            "invalid tool: glue(): the argument `name` is not evaluated (toolbridge reads glue() only without \
             interpolation) (line 1, column 11)"
        );
    }

    #[test]
    fn anything_else_is_refused_where_it_is() {
        assert_eq!(
            error("paste(\"a\",\n  sprintf(\"%d\", 1))"),
            "invalid tool: a call of sprintf() is not evaluated: toolbridge computes strings only from string \
             literals, c(), paste(), paste0(), trimws() and glue() without interpolation (line 2, column 3)"
        );
        assert_eq!(
            error("paste(description)"),
            "invalid tool: `description` is not evaluated: toolbridge computes strings only from string literals, \
             c(), paste(), paste0(), trimws() and glue() without interpolation (line 1, column 7)"
        );
        assert_eq!(
            error("stringr::str_c(\"a\")"),
            "invalid tool: a call of stringr::str_c() is not evaluated: toolbridge computes strings only from \
             string literals, c(), paste(), paste0(), trimws() and glue() without interpolation (line 1, column 1)"
        );
    }

    #[test]
    fn values_stay_within_the_budget() {
        let source = Source::new(r#"paste0(c("aaaa", "bbbb"), collapse = "----")"#, 128).unwrap();
        let expr = source.parse(0, source.tokens.len()).unwrap();
        let err = Evaluator::new(&source, 8).eval(&expr).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid tool: paste0() builds a string larger than 8 bytes (line 1, column 8)"
        );
    }
}
