//! A small Emacs Lisp reader and printer for the subset tool definitions are
//! written in, shared by the `gptel` and `llm` formats (pandoc's
//! `Writers/Shared`).
//!
//! The reader takes a whole file: comments, strings with every escape Emacs
//! knows, character literals, integers (decimal, `#x`, `#o`, `#b`, `#NrDIGITS`,
//! bignums) and floats, symbols with `\` escapes, lists, dotted pairs,
//! vectors, `'` `#'` `` ` `` `,` `,@`, records `#s(…)` and byte-code `#[…]`.
//! Every form keeps its byte span, so that a reader can copy a function's
//! source text verbatim and report line and column. `nil` and `t` stay
//! symbols; nothing is evaluated except the constant forms of
//! [`eval_constant`] (`'x`, `(list …)`, backquote without unquote, …).
//!
//! The printer lays out [`Doc`] trees: plists one pair per line when they do
//! not fit on one, vectors, `(list …)` calls and verbatim source text.
//!
//! We write our own rather than use `lexpr`, which cannot read `#'fn` and
//! loses the difference between `nil`, `()` and `t` (see DESIGN.md).

use crate::error::{Error, ErrorKind, Result};

/// Byte offsets of a form in the source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset just past the last byte.
    pub end: usize,
}

/// One form read from the source, with its span.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sexp {
    pub kind: Kind,
    pub span: Span,
}

/// What a form is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// An integer that fits in 64 bits (character literals too).
    Integer(i64),
    /// An integer beyond `i64`, as its decimal digits (with a leading `-`).
    BigInteger(String),
    /// A float, possibly infinite or NaN (`1.0e+INF`).
    Float(f64),
    /// A string, escapes decoded.
    Str(String),
    /// A symbol, escapes decoded; keywords keep their leading `:`; `nil` and
    /// `t` are symbols too.
    Symbol(String),
    /// A proper list; `()` is the empty list (the same object as `nil` in Emacs).
    List(Vec<Sexp>),
    /// A dotted list `(a b . c)`.
    Dotted(Vec<Sexp>, Box<Sexp>),
    /// A vector `[…]`.
    Vector(Vec<Sexp>),
    /// `'x`.
    Quote(Box<Sexp>),
    /// `#'x`.
    Function(Box<Sexp>),
    /// `` `x ``.
    Backquote(Box<Sexp>),
    /// `,x`.
    Unquote(Box<Sexp>),
    /// `,@x`.
    UnquoteSplicing(Box<Sexp>),
    /// A record `#s(…)` (hash tables are written this way).
    Record(Vec<Sexp>),
    /// A byte-code object `#[…]`.
    ByteCode(Vec<Sexp>),
}

impl Sexp {
    /// True for `nil` and `()`.
    pub fn is_nil(&self) -> bool {
        match &self.kind {
            Kind::Symbol(name) => name == "nil",
            Kind::List(items) => items.is_empty(),
            _ => false,
        }
    }

    /// True for the symbol `t`.
    pub fn is_t(&self) -> bool {
        matches!(&self.kind, Kind::Symbol(name) if name == "t")
    }

    /// The symbol's name, if this is a symbol (keywords included).
    pub fn symbol(&self) -> Option<&str> {
        match &self.kind {
            Kind::Symbol(name) => Some(name),
            _ => None,
        }
    }

    /// A keyword's name without its colon (`:name` → `name`). The symbol
    /// with the empty name (`##`) counts as the keyword for the empty key,
    /// the way `json-serialize` treats it.
    pub fn keyword(&self) -> Option<&str> {
        match &self.kind {
            Kind::Symbol(name) if name.is_empty() => Some(""),
            Kind::Symbol(name) if name.len() > 1 && name.starts_with(':') => Some(&name[1..]),
            _ => None,
        }
    }

    /// The elements of a proper list (`nil` is the empty list).
    pub fn list(&self) -> Option<&[Sexp]> {
        match &self.kind {
            Kind::List(items) => Some(items),
            Kind::Symbol(name) if name == "nil" => Some(&[]),
            _ => None,
        }
    }

    /// A list whose first element is the symbol `head`: its other elements.
    pub fn call_of(&self, head: &str) -> Option<&[Sexp]> {
        match &self.kind {
            Kind::List(items) if items.first().and_then(Sexp::symbol) == Some(head) => Some(&items[1..]),
            _ => None,
        }
    }

    /// The form under a quote, `'x` or `(quote x)`.
    pub fn unquoted(&self) -> Option<&Sexp> {
        match &self.kind {
            Kind::Quote(inner) => Some(inner),
            _ => match self.call_of("quote") {
                Some([inner]) => Some(inner),
                _ => None,
            },
        }
    }

    /// What the form is, for messages: "a string", "the symbol foo", …
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Integer(_) | Kind::BigInteger(_) => "an integer".into(),
            Kind::Float(_) => "a float".into(),
            Kind::Str(_) => "a string".into(),
            Kind::Symbol(name) if name == "nil" => "nil".into(),
            Kind::Symbol(name) if name == "t" => "t".into(),
            Kind::Symbol(name) if name.starts_with(':') => format!("the keyword {name}"),
            Kind::Symbol(name) => format!("the symbol {name}"),
            Kind::List(items) if items.is_empty() => "nil".into(),
            Kind::List(items) => match items.first().and_then(Sexp::symbol) {
                Some(head) if !head.starts_with(':') => format!("a ({head} …) form"),
                _ => "a list".into(),
            },
            Kind::Dotted(..) => "a dotted pair".into(),
            Kind::Vector(_) => "a vector".into(),
            Kind::Quote(_) => "a quoted form".into(),
            Kind::Function(_) => "a #' function form".into(),
            Kind::Backquote(_) => "a backquoted form".into(),
            Kind::Unquote(_) | Kind::UnquoteSplicing(_) => "an unquote".into(),
            Kind::Record(_) => "a record".into(),
            Kind::ByteCode(_) => "a byte-code object".into(),
        }
    }

    /// Every direct sub-form, in source order.
    pub fn children(&self) -> Vec<&Sexp> {
        match &self.kind {
            Kind::List(items) | Kind::Vector(items) | Kind::Record(items) | Kind::ByteCode(items) => {
                items.iter().collect()
            }
            Kind::Dotted(items, tail) => items.iter().chain(std::iter::once(&**tail)).collect(),
            Kind::Quote(inner)
            | Kind::Function(inner)
            | Kind::Backquote(inner)
            | Kind::Unquote(inner)
            | Kind::UnquoteSplicing(inner) => vec![inner],
            _ => Vec::new(),
        }
    }
}

/// The 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Reads every top-level form of `text`. Forms nested deeper than
/// `max_depth` are refused with [`ErrorKind::LimitExceeded`]; malformed text
/// with [`ErrorKind::LispSyntax`], both with line and column.
pub(crate) fn read_all(text: &str, max_depth: usize) -> Result<Vec<Sexp>> {
    let mut reader = Reader {
        text,
        pos: 0,
        depth: 0,
        max_depth,
    };
    if reader.text.starts_with("#!") {
        reader.skip_line();
    }
    let mut forms = Vec::new();
    loop {
        reader.skip_atmosphere();
        match reader.peek() {
            None => return Ok(forms),
            Some(')') | Some(']') => {
                let at = reader.pos;
                return Err(reader.error_at(at, "unexpected closing bracket with nothing open"));
            }
            Some(_) => forms.push(reader.read_form()?),
        }
    }
}

/// Reads `text` as exactly one form, with nothing but whitespace and
/// comments around it.
pub(crate) fn read_one(text: &str, max_depth: usize) -> Result<Sexp> {
    let mut forms = read_all(text, max_depth)?;
    match forms.len() {
        1 => Ok(forms.remove(0)),
        0 => Err(Error::new(ErrorKind::LispSyntax, "expected one form, found none")),
        n => Err(Error::new(
            ErrorKind::LispSyntax,
            format!("expected one form, found {n}"),
        )),
    }
}

struct Reader<'t> {
    text: &'t str,
    pos: usize,
    depth: usize,
    max_depth: usize,
}

/// Characters that end a symbol or number.
fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '"' | '\'' | ';' | '`' | ',')
}

impl<'t> Reader<'t> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        let mut chars = self.text[self.pos..].chars();
        chars.next();
        chars.next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn error_at(&self, offset: usize, detail: impl Into<String>) -> Error {
        let (line, column) = line_column(self.text, offset);
        Error::new(ErrorKind::LispSyntax, detail).with_position(line, column)
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    /// Skips whitespace and comments.
    fn skip_atmosphere(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.bump();
            } else if c == ';' {
                self.skip_line();
            } else {
                break;
            }
        }
    }

    fn enter(&mut self, at: usize) -> Result<()> {
        self.depth += 1;
        if self.depth > self.max_depth {
            let (line, column) = line_column(self.text, at);
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the Emacs Lisp is nested more than {} levels deep",
                    self.max_depth
                ),
            )
            .with_position(line, column));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn read_form(&mut self) -> Result<Sexp> {
        self.skip_atmosphere();
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Err(self.error_at(start, "unexpected end of input: a form was expected"));
        };
        let kind = match c {
            '(' => {
                self.bump();
                self.enter(start)?;
                let kind = self.read_list_body(start)?;
                self.leave();
                kind
            }
            '[' => {
                self.bump();
                self.enter(start)?;
                let items = self.read_sequence(start, ']', "vector")?;
                self.leave();
                Kind::Vector(items)
            }
            ')' | ']' => return Err(self.error_at(start, format!("unexpected {c:?}"))),
            '"' => {
                self.bump();
                Kind::Str(self.read_string_body(start)?)
            }
            '?' => {
                self.bump();
                Kind::Integer(self.read_character(start)?)
            }
            '\'' | '`' | ',' => {
                self.bump();
                let splice = c == ',' && self.peek() == Some('@');
                if splice {
                    self.bump();
                }
                let inner = Box::new(self.read_prefixed(start)?);
                match c {
                    '\'' => Kind::Quote(inner),
                    '`' => Kind::Backquote(inner),
                    _ if splice => Kind::UnquoteSplicing(inner),
                    _ => Kind::Unquote(inner),
                }
            }
            '#' => self.read_hash(start)?,
            _ => self.read_atom(start)?,
        };
        Ok(Sexp {
            kind,
            span: Span { start, end: self.pos },
        })
    }

    /// The form after a prefix (`'`, `#'`, …), counted as one level deeper.
    fn read_prefixed(&mut self, start: usize) -> Result<Sexp> {
        self.enter(start)?;
        self.skip_atmosphere();
        if self.peek().is_none() {
            return Err(self.error_at(start, "unexpected end of input after a quote"));
        }
        let form = self.read_form()?;
        self.leave();
        Ok(form)
    }

    fn read_list_body(&mut self, start: usize) -> Result<Kind> {
        let mut items = Vec::new();
        loop {
            self.skip_atmosphere();
            match self.peek() {
                None => return Err(self.error_at(start, "unterminated list: this ( is never closed")),
                Some(')') => {
                    self.bump();
                    return Ok(Kind::List(items));
                }
                Some(']') => {
                    let at = self.pos;
                    return Err(self.error_at(at, "unexpected ] inside a list"));
                }
                Some('.') if self.peek_second().is_none_or(is_delimiter) => {
                    let dot = self.pos;
                    self.bump();
                    if items.is_empty() {
                        return Err(self.error_at(dot, "a dotted pair needs an element before the dot"));
                    }
                    let tail = self.read_form()?;
                    self.skip_atmosphere();
                    if self.peek() != Some(')') {
                        let at = self.pos;
                        return Err(self.error_at(at, "a dotted pair takes exactly one form after the dot"));
                    }
                    self.bump();
                    return Ok(Kind::Dotted(items, Box::new(tail)));
                }
                Some(_) => items.push(self.read_form()?),
            }
        }
    }

    fn read_sequence(&mut self, start: usize, close: char, what: &str) -> Result<Vec<Sexp>> {
        let mut items = Vec::new();
        loop {
            self.skip_atmosphere();
            match self.peek() {
                None => {
                    return Err(self.error_at(start, format!("unterminated {what}: it is never closed")));
                }
                Some(c) if c == close => {
                    self.bump();
                    return Ok(items);
                }
                Some(c @ (')' | ']')) => {
                    let at = self.pos;
                    return Err(self.error_at(at, format!("unexpected {c:?} inside a {what}")));
                }
                Some(_) => items.push(self.read_form()?),
            }
        }
    }

    fn read_hash(&mut self, start: usize) -> Result<Kind> {
        self.bump();
        let Some(c) = self.peek() else {
            return Err(self.error_at(start, "unexpected end of input after #"));
        };
        match c {
            '\'' => {
                self.bump();
                Ok(Kind::Function(Box::new(self.read_prefixed(start)?)))
            }
            's' if self.peek_second() == Some('(') => {
                self.bump();
                self.bump();
                self.enter(start)?;
                let items = self.read_sequence(start, ')', "record")?;
                self.leave();
                Ok(Kind::Record(items))
            }
            '[' => {
                self.bump();
                self.enter(start)?;
                let items = self.read_sequence(start, ']', "byte-code object")?;
                self.leave();
                Ok(Kind::ByteCode(items))
            }
            ':' | '_' => {
                self.bump();
                let name = self.read_symbol_name()?;
                Ok(Kind::Symbol(name))
            }
            '#' => {
                self.bump();
                Ok(Kind::Symbol(String::new()))
            }
            '$' => {
                self.bump();
                Ok(Kind::Symbol("#$".into()))
            }
            '&' => {
                self.bump();
                self.take_digits(10);
                if self.peek() != Some('"') {
                    return Err(self.error_at(start, "a bool-vector #&N must be followed by a string"));
                }
                self.bump();
                self.read_string_body(start)?;
                Ok(Kind::Symbol("#&bool-vector".into()))
            }
            'x' | 'X' | 'o' | 'O' | 'b' | 'B' => {
                self.bump();
                let radix = match c.to_ascii_lowercase() {
                    'x' => 16,
                    'o' => 8,
                    _ => 2,
                };
                self.read_radix_integer(start, radix)
            }
            '0'..='9' => {
                let digits = self.take_digits(10);
                match self.peek() {
                    Some('r') | Some('R') => {
                        self.bump();
                        let radix: u32 = digits.parse().unwrap_or(0);
                        if !(2..=36).contains(&radix) {
                            return Err(
                                self.error_at(start, format!("#{digits}r: the radix must be 2 to 36"))
                            );
                        }
                        self.read_radix_integer(start, radix)
                    }
                    Some('=') => {
                        self.bump();
                        let form = self.read_prefixed(start)?;
                        Ok(form.kind)
                    }
                    Some('#') => {
                        self.bump();
                        Ok(Kind::Symbol(format!("#{digits}#")))
                    }
                    _ => Err(self.error_at(
                        start,
                        format!("#{digits} is not Emacs Lisp syntax toolbridge reads"),
                    )),
                }
            }
            other => Err(self.error_at(
                start,
                format!("#{other} is not Emacs Lisp syntax toolbridge reads"),
            )),
        }
    }

    fn take_digits(&mut self, radix: u32) -> String {
        let mut digits = String::new();
        while let Some(c) = self.peek().filter(|c| c.is_digit(radix)) {
            digits.push(c);
            self.bump();
        }
        digits
    }

    fn read_radix_integer(&mut self, start: usize, radix: u32) -> Result<Kind> {
        let negative = match self.peek() {
            Some('-') => {
                self.bump();
                true
            }
            Some('+') => {
                self.bump();
                false
            }
            _ => false,
        };
        let digits = self.take_digits(radix);
        if digits.is_empty() || self.peek().is_some_and(|c| !is_delimiter(c)) {
            return Err(self.error_at(start, format!("invalid integer in radix {radix}")));
        }
        let magnitude = u128::from_str_radix(&digits, radix).ok();
        let value = magnitude
            .and_then(|m| i128::try_from(m).ok())
            .map(|m| if negative { -m } else { m });
        match value.and_then(|v| i64::try_from(v).ok()) {
            Some(v) => Ok(Kind::Integer(v)),
            None => Ok(Kind::BigInteger(match value {
                Some(v) => v.to_string(),
                None => format!("{}#{radix}r{digits}", if negative { "-" } else { "" }),
            })),
        }
    }

    /// A symbol's characters up to a delimiter, with `\` escapes removed;
    /// also says whether any character was escaped.
    fn read_token(&mut self) -> Result<(String, bool)> {
        let mut name = String::new();
        let mut escaped = false;
        while let Some(c) = self.peek() {
            if is_delimiter(c) {
                break;
            }
            self.bump();
            if c == '\\' {
                let at = self.pos;
                match self.bump() {
                    Some(next) => name.push(next),
                    None => return Err(self.error_at(at, "unexpected end of input after \\ in a symbol")),
                }
                escaped = true;
            } else {
                name.push(c);
            }
        }
        Ok((name, escaped))
    }

    fn read_symbol_name(&mut self) -> Result<String> {
        Ok(self.read_token()?.0)
    }

    fn read_atom(&mut self, start: usize) -> Result<Kind> {
        let (token, escaped) = self.read_token()?;
        if token.is_empty() && !escaped {
            let c = self.peek().unwrap_or(' ');
            return Err(self.error_at(start, format!("unexpected {c:?}")));
        }
        if !escaped {
            if let Some(number) = parse_number(&token) {
                return Ok(number);
            }
            if token == "." {
                return Err(self.error_at(start, "a dot outside a list"));
            }
        }
        Ok(Kind::Symbol(token))
    }

    fn read_string_body(&mut self, start: usize) -> Result<String> {
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(self.error_at(start, "unterminated string: this \" is never closed"));
            };
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let escape_at = self.pos - 1;
                    let Some(e) = self.bump() else {
                        return Err(self.error_at(start, "unterminated string: this \" is never closed"));
                    };
                    match e {
                        '\n' | ' ' => {}
                        _ => {
                            let code = self.read_escape(e, escape_at, true)?;
                            out.push(char_of(code).ok_or_else(|| {
                                self.error_at(
                                    escape_at,
                                    format!("the escape gives {code:#x}, which is not a character"),
                                )
                            })?);
                        }
                    }
                }
                c => out.push(c),
            }
        }
    }

    /// The code of the escape `\e…` whose first character after the
    /// backslash has been consumed.
    fn read_escape(&mut self, e: char, escape_at: usize, in_string: bool) -> Result<u32> {
        let code = match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            'f' => 12,
            'a' => 7,
            'b' => 8,
            'v' => 11,
            'e' => 27,
            'd' => 127,
            's' if self.peek() != Some('-') => 32,
            'x' => {
                let digits = self.take_digits(16);
                if in_string && self.peek() == Some('\\') && self.peek_second() == Some(' ') {
                    self.bump();
                    self.bump();
                }
                u32::from_str_radix(&digits, 16)
                    .map_err(|_| self.error_at(escape_at, "\\x needs hexadecimal digits"))?
            }
            'u' | 'U' => {
                let count = if e == 'u' { 4 } else { 8 };
                let mut digits = String::new();
                for _ in 0..count {
                    match self.peek().filter(char::is_ascii_hexdigit) {
                        Some(d) => {
                            digits.push(d);
                            self.bump();
                        }
                        None => {
                            return Err(
                                self.error_at(escape_at, format!("\\{e} needs {count} hexadecimal digits"))
                            );
                        }
                    }
                }
                u32::from_str_radix(&digits, 16)
                    .map_err(|_| self.error_at(escape_at, "invalid \\u escape"))?
            }
            'N' => {
                if self.peek() != Some('{') {
                    return Err(self.error_at(escape_at, "\\N must be followed by {"));
                }
                self.bump();
                let mut name = String::new();
                loop {
                    match self.bump() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => return Err(self.error_at(escape_at, "unterminated \\N{…}")),
                    }
                }
                let hex = name.strip_prefix("U+").ok_or_else(|| {
                    self.error_at(
                        escape_at,
                        "toolbridge reads \\N{U+XXXX} only, not character names",
                    )
                })?;
                u32::from_str_radix(hex, 16)
                    .map_err(|_| self.error_at(escape_at, "invalid \\N{U+…} escape"))?
            }
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            self.bump();
                        }
                        None => break,
                    }
                }
                value
            }
            'C' | '^' => {
                if e == 'C' {
                    if self.peek() != Some('-') {
                        return Ok('C' as u32);
                    }
                    self.bump();
                }
                let base = self.read_char_code(escape_at, in_string)?;
                control(base)
            }
            'M' | 'S' | 'H' | 'A' | 's' if self.peek() == Some('-') => {
                if in_string {
                    return Err(self.error_at(
                        escape_at,
                        format!("\\{e}- modifiers are not allowed in strings toolbridge reads"),
                    ));
                }
                self.bump();
                let bit = match e {
                    'A' => 1 << 22,
                    's' => 1 << 23,
                    'H' => 1 << 24,
                    'S' => 1 << 25,
                    _ => 1 << 27,
                };
                self.read_char_code(escape_at, in_string)? | bit
            }
            other => other as u32,
        };
        Ok(code)
    }

    /// One character, possibly escaped, as a code (for `?x` and after `\C-`).
    fn read_char_code(&mut self, at: usize, in_string: bool) -> Result<u32> {
        match self.bump() {
            None => Err(self.error_at(at, "unexpected end of input in a character")),
            Some('\\') => {
                let escape_at = self.pos - 1;
                let e = self
                    .bump()
                    .ok_or_else(|| self.error_at(at, "unexpected end of input in a character"))?;
                self.read_escape(e, escape_at, in_string)
            }
            Some(c) => Ok(c as u32),
        }
    }

    fn read_character(&mut self, start: usize) -> Result<i64> {
        let code = self.read_char_code(start, false)?;
        if self.peek().is_some_and(|c| !is_delimiter(c) && c != '.') {
            return Err(self.error_at(
                start,
                "invalid character literal: ? followed by more than one character",
            ));
        }
        Ok(i64::from(code))
    }
}

fn control(base: u32) -> u32 {
    match base {
        0x3f => 127,
        0x40..=0x5f => base - 0x40,
        0x61..=0x7a => base - 0x60,
        _ => base | (1 << 26),
    }
}

fn char_of(code: u32) -> Option<char> {
    char::from_u32(code)
}

/// An integer or float in Emacs's read syntax, or `None` for a symbol.
fn parse_number(token: &str) -> Option<Kind> {
    let body = token.strip_prefix(['+', '-']).unwrap_or(token);
    let negative = token.starts_with('-');
    if body.is_empty() {
        return None;
    }
    let int_part = body.strip_suffix('.').unwrap_or(body);
    if !int_part.is_empty() && int_part.bytes().all(|b| b.is_ascii_digit()) {
        let text = format!("{}{int_part}", if negative { "-" } else { "" });
        return Some(match text.parse::<i64>() {
            Ok(value) => Kind::Integer(value),
            Err(_) => Kind::BigInteger(text.trim_start_matches('+').to_string()),
        });
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !fraction.is_none_or(digits) {
        return None;
    }
    let has_fraction = fraction.is_some_and(|f| !f.is_empty());
    match exponent {
        None if has_fraction => {}
        None => return None,
        Some("+INF") | Some("INF") if whole.chars().chain(fraction.unwrap_or("").chars()).any(|_| true) => {
            return Some(Kind::Float(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }));
        }
        Some("+NaN") | Some("NaN") if !whole.is_empty() || has_fraction => {
            return Some(Kind::Float(f64::NAN))
        }
        Some(exp) => {
            let exp_digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if exp_digits.is_empty() || !digits(exp_digits) || (whole.is_empty() && !has_fraction) {
                return None;
            }
        }
    }
    if whole.is_empty() && !has_fraction {
        return None;
    }
    token.parse::<f64>().ok().map(Kind::Float)
}

/// Why a form could not be evaluated as a constant, and where.
#[derive(Debug)]
pub(crate) struct NotConstant {
    pub span: Span,
    pub detail: String,
}

/// The value of a form that only builds data: self-evaluating atoms and
/// vectors, `'x` / `(quote x)`, backquote without unquote, `(list …)`,
/// `(vector …)`, `(concat "…" …)`. Anything else (a variable, a function
/// call) is refused, since toolbridge does not run Emacs Lisp.
pub(crate) fn eval_constant(form: &Sexp) -> std::result::Result<Sexp, NotConstant> {
    let refuse = |detail: String| NotConstant {
        span: form.span,
        detail,
    };
    match &form.kind {
        Kind::Integer(_) | Kind::BigInteger(_) | Kind::Float(_) | Kind::Str(_) | Kind::Vector(_) => {
            Ok(form.clone())
        }
        Kind::Symbol(name) if name == "nil" || name == "t" || name.starts_with(':') => Ok(form.clone()),
        Kind::Symbol(name) => Err(refuse(format!(
            "{name} is a variable; toolbridge does not evaluate Emacs Lisp, so write the value itself (quote a symbol: '{name})"
        ))),
        Kind::Quote(inner) => Ok((**inner).clone()),
        Kind::Backquote(inner) => match find_unquote(inner) {
            Some(span) => Err(NotConstant {
                span,
                detail: "a backquote with , or ,@ needs evaluation; toolbridge reads backquoted data without unquotes only".into(),
            }),
            None => Ok((**inner).clone()),
        },
        Kind::List(items) if items.is_empty() => Ok(form.clone()),
        Kind::List(items) => {
            let args = &items[1..];
            match items[0].symbol() {
                Some("quote") if args.len() == 1 => Ok(args[0].clone()),
                Some("list") => Ok(Sexp {
                    kind: Kind::List(args.iter().map(eval_constant).collect::<std::result::Result<_, _>>()?),
                    span: form.span,
                }),
                Some("vector") => Ok(Sexp {
                    kind: Kind::Vector(args.iter().map(eval_constant).collect::<std::result::Result<_, _>>()?),
                    span: form.span,
                }),
                Some("concat") => {
                    let mut joined = String::new();
                    for arg in args {
                        match eval_constant(arg)?.kind {
                            Kind::Str(part) => joined.push_str(&part),
                            _ => {
                                return Err(NotConstant {
                                    span: arg.span,
                                    detail: "concat takes strings here".into(),
                                })
                            }
                        }
                    }
                    Ok(Sexp {
                        kind: Kind::Str(joined),
                        span: form.span,
                    })
                }
                _ => Err(refuse(format!(
                    "{} is code that toolbridge cannot evaluate; write the value itself, quoted or built with (list …)",
                    form.describe()
                ))),
            }
        }
        _ => Err(refuse(format!("{} is not a constant value", form.describe()))),
    }
}

fn find_unquote(form: &Sexp) -> Option<Span> {
    match &form.kind {
        Kind::Unquote(_) | Kind::UnquoteSplicing(_) => Some(form.span),
        Kind::Backquote(_) => None,
        _ => form.children().into_iter().find_map(find_unquote),
    }
}

// ---------------------------------------------------------------------------
// Printing

/// The read syntax of a string: `"` and `\` escaped, control characters as
/// escapes, everything else (non-ASCII included) as it is.
pub(crate) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{c}' => out.push_str("\\f"),
            '\u{1b}' => out.push_str("\\e"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The read syntax of a symbol named `name`, escaping what would otherwise
/// end it or read as something else.
pub(crate) fn symbol_text(name: &str) -> String {
    if name.is_empty() {
        return "##".into();
    }
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.chars().enumerate() {
        let special = c.is_whitespace()
            || matches!(
                c,
                '(' | ')' | '[' | ']' | '"' | '\'' | ';' | '`' | ',' | '\\' | '#'
            )
            || (i == 0 && c == '?')
            || c.is_control();
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    if parse_number(&out).is_some() || out == "." {
        out.insert(0, '\\');
    }
    out
}

/// The read syntax of the keyword for JSON key `key` (`:key`); the empty key
/// is the symbol `##`, which `json-serialize` writes as `""`.
pub(crate) fn keyword_text(key: &str) -> String {
    if key.is_empty() {
        return "##".into();
    }
    format!(":{}", symbol_text_after_colon(key))
}

fn symbol_text_after_colon(key: &str) -> String {
    let mut text = symbol_text(key);
    // After the colon nothing reads as a number, so a leading escape added
    // for that reason is not needed.
    if text.starts_with('\\') && parse_number(&text[1..]).is_some() {
        text.remove(0);
    }
    text
}

/// The read syntax of a float (`None` for infinities and NaN, which JSON lacks).
pub(crate) fn float_text(value: f64) -> Option<String> {
    if !value.is_finite() {
        return None;
    }
    // Debug formatting always has a `.` or an exponent, which Emacs needs to
    // read a float rather than an integer ("1." is an integer in Emacs).
    Some(format!("{value:?}"))
}

/// A layout tree for the printer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Doc {
    /// Text printed as it is on one line (a string, symbol or number).
    Atom(String),
    /// Source text copied verbatim (it may span lines).
    Raw(String),
    /// A plist of `(keyword-text, value)` pairs; empty prints as `nil`.
    Plist(Vec<(String, Doc)>),
    /// A vector.
    Vector(Vec<Doc>),
    /// A call `(head arg …)`, arguments aligned under the first.
    Call(String, Vec<Doc>),
    /// A call `(head :key value …)` with every pair on its own line.
    Form(String, Vec<(String, Doc)>),
    /// `'doc`.
    Quote(Box<Doc>),
}

/// Lines are kept within this many columns where the content allows.
pub(crate) const WIDTH: usize = 80;

impl Doc {
    /// The document on one line (verbatim source keeps its own newlines).
    pub fn flat(&self) -> String {
        match self {
            Doc::Atom(text) | Doc::Raw(text) => text.clone(),
            Doc::Plist(pairs) if pairs.is_empty() => "nil".into(),
            Doc::Plist(pairs) => format!("({})", flat_pairs(pairs)),
            Doc::Vector(items) => format!("[{}]", items.iter().map(Doc::flat).collect::<Vec<_>>().join(" ")),
            Doc::Call(head, args) if args.is_empty() => format!("({head})"),
            Doc::Call(head, args) => {
                format!(
                    "({head} {})",
                    args.iter().map(Doc::flat).collect::<Vec<_>>().join(" ")
                )
            }
            Doc::Form(head, pairs) if pairs.is_empty() => format!("({head})"),
            Doc::Form(head, pairs) => format!("({head} {})", flat_pairs(pairs)),
            Doc::Quote(inner) => format!("'{}", inner.flat()),
        }
    }

    /// The document laid out starting at column `column`.
    pub fn render(&self, column: usize) -> String {
        let flat = self.flat();
        let fits = !flat.contains('\n') && column + flat.chars().count() <= WIDTH;
        if fits && !matches!(self, Doc::Form(..)) {
            return flat;
        }
        match self {
            Doc::Atom(_) | Doc::Raw(_) => flat,
            Doc::Plist(pairs) if pairs.is_empty() => flat,
            Doc::Plist(pairs) => {
                let mut out = String::from("(");
                render_pairs(pairs, column + 1, false, &mut out);
                out.push(')');
                out
            }
            Doc::Vector(items) => {
                let mut out = String::from("[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push('\n');
                        out.push_str(&" ".repeat(column + 1));
                    }
                    out.push_str(&item.render(column + 1));
                }
                out.push(']');
                out
            }
            Doc::Call(head, args) => {
                let mut out = format!("({head}");
                let arg_column = column + 2 + head.chars().count();
                for (i, arg) in args.iter().enumerate() {
                    if i == 0 {
                        out.push(' ');
                    } else {
                        out.push('\n');
                        out.push_str(&" ".repeat(arg_column));
                    }
                    out.push_str(&arg.render(arg_column));
                }
                out.push(')');
                out
            }
            Doc::Form(head, pairs) => {
                let mut out = format!("({head}");
                render_pairs(pairs, column + 1, true, &mut out);
                out.push(')');
                out
            }
            Doc::Quote(inner) => format!("'{}", inner.render(column + 1)),
        }
    }
}

fn flat_pairs(pairs: &[(String, Doc)]) -> String {
    pairs
        .iter()
        .map(|(key, value)| format!("{key} {}", value.flat()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn render_pairs(pairs: &[(String, Doc)], column: usize, break_first: bool, out: &mut String) {
    for (i, (key, value)) in pairs.iter().enumerate() {
        if i > 0 || break_first {
            out.push('\n');
            out.push_str(&" ".repeat(column));
        }
        out.push_str(key);
        out.push(' ');
        out.push_str(&value.render(column + key.chars().count() + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Sexp {
        read_one(text, 128).unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    fn kind(text: &str) -> Kind {
        read(text).kind
    }

    fn sym(name: &str) -> Kind {
        Kind::Symbol(name.into())
    }

    #[test]
    fn numbers_follow_emacs_syntax() {
        let cases: &[(&str, Kind)] = &[
            ("1", Kind::Integer(1)),
            ("-17", Kind::Integer(-17)),
            ("+4", Kind::Integer(4)),
            ("1.", Kind::Integer(1)),
            ("1.5", Kind::Float(1.5)),
            (".5", Kind::Float(0.5)),
            ("-1.5e-3", Kind::Float(-0.0015)),
            ("15e2", Kind::Float(1500.0)),
            ("1.0e+INF", Kind::Float(f64::INFINITY)),
            ("#x1F", Kind::Integer(31)),
            ("#b-101", Kind::Integer(-5)),
            ("#o17", Kind::Integer(15)),
            ("#24r1k", Kind::Integer(44)),
            (
                "123456789012345678901234",
                Kind::BigInteger("123456789012345678901234".into()),
            ),
            ("1+", sym("1+")),
            ("-", sym("-")),
            ("e5", sym("e5")),
            ("\\1", sym("1")),
            ("1e", sym("1e")),
        ];
        for (text, expected) in cases {
            assert_eq!(&kind(text), expected, "{text}");
        }
        assert!(matches!(kind("0.0e+NaN"), Kind::Float(f) if f.is_nan()));
    }

    #[test]
    fn characters_are_integers() {
        let cases: &[(&str, i64)] = &[
            ("?a", 97),
            ("?\\n", 10),
            ("?\\s", 32),
            ("?\\(", 40),
            ("?\\C-a", 1),
            ("?\\^I", 9),
            ("?\\M-a", 97 + (1 << 27)),
            ("?\\x41", 65),
            ("?\\u00e9", 0xe9),
            ("?\\N{U+2192}", 0x2192),
            ("?\\101", 65),
            ("?é", 0xe9),
        ];
        for (text, code) in cases {
            assert_eq!(kind(text), Kind::Integer(*code), "{text}");
        }
    }

    #[test]
    fn strings_decode_every_escape() {
        let cases: &[(&str, &str)] = &[
            (r#""plain""#, "plain"),
            (r#""a\"b\\c""#, "a\"b\\c"),
            (r#""\n\t\r\e\a\s""#, "\n\t\r\u{1b}\u{7}\u{20}"),
            ("\"line one\\\nline two\"", "line oneline two"),
            ("\"raw\nnewline\"", "raw\nnewline"),
            (r#""\u00e9\U0001F600\x41\ b\101""#, "é😀AbA"),
            (r#""\N{U+2192}""#, "→"),
            (r#""\C-a\^b""#, "\u{1}\u{2}"),
            (r#""\q""#, "q"),
            ("\"café\"", "café"),
        ];
        for (text, expected) in cases {
            assert_eq!(kind(text), Kind::Str((*expected).into()), "{text}");
        }
    }

    #[test]
    fn symbols_keywords_and_special_forms() {
        assert_eq!(kind(":name"), sym(":name"));
        assert_eq!(read(":description:").keyword(), Some("description:"));
        assert_eq!(kind("foo\\ bar"), sym("foo bar"));
        assert_eq!(kind("##"), sym(""));
        assert_eq!(read("##").keyword(), Some(""));
        assert_eq!(kind("#:uninterned"), sym("uninterned"));
        assert!(read("nil").is_nil() && read("()").is_nil() && read("t").is_t());
        assert!(matches!(kind("#'identity"), Kind::Function(inner) if inner.kind == sym("identity")));
        assert!(matches!(kind("'x"), Kind::Quote(_)));
        assert!(matches!(kind("`(a ,b ,@c)"), Kind::Backquote(_)));
        assert!(
            matches!(kind("(a . b)"), Kind::Dotted(items, tail) if items.len() == 1 && tail.kind == sym("b"))
        );
        assert!(matches!(kind("[1 \"a\" b]"), Kind::Vector(items) if items.len() == 3));
        assert!(matches!(kind("#s(hash-table data (a 1))"), Kind::Record(items) if items.len() == 3));
        assert!(matches!(kind("#[(x) \"\\300\" [] 1]"), Kind::ByteCode(items) if items.len() == 4));
        assert_eq!(
            kind("#1=(a)"),
            Kind::List(vec![Sexp {
                kind: sym("a"),
                span: Span { start: 4, end: 5 }
            }])
        );
    }

    #[test]
    fn comments_and_spans() {
        let text = ";; header\n(a ; inline\n  \"s\") ; after\n[x]";
        let forms = read_all(text, 128).unwrap();
        assert_eq!(forms.len(), 2);
        assert_eq!(
            &text[forms[0].span.start..forms[0].span.end],
            "(a ; inline\n  \"s\")"
        );
        assert_eq!(line_column(text, forms[1].span.start), (4, 1));
        assert_eq!(line_column("ab\ncé", 6), (2, 3));
        assert_eq!(line_column("ab\ncé", 5), (2, 2));
    }

    #[test]
    fn syntax_errors_have_positions() {
        let cases: &[(&str, &str)] = &[
            ("(a (b)", "Emacs Lisp syntax error: unterminated list: this ( is never closed (line 1, column 1)"),
            ("(a \"b)", "Emacs Lisp syntax error: unterminated string: this \" is never closed (line 1, column 4)"),
            ("a)\n", "Emacs Lisp syntax error: unexpected closing bracket with nothing open (line 1, column 2)"),
            ("(a]", "Emacs Lisp syntax error: unexpected ] inside a list (line 1, column 3)"),
            ("\n  [a)", "Emacs Lisp syntax error: unexpected ')' inside a vector (line 2, column 5)"),
            ("(. a)", "Emacs Lisp syntax error: a dotted pair needs an element before the dot (line 1, column 2)"),
            ("(a . b c)", "Emacs Lisp syntax error: a dotted pair takes exactly one form after the dot (line 1, column 8)"),
            ("'", "Emacs Lisp syntax error: unexpected end of input after a quote (line 1, column 1)"),
            ("#<buffer x>", "Emacs Lisp syntax error: #< is not Emacs Lisp syntax toolbridge reads (line 1, column 1)"),
            ("\"\\u12\"", "Emacs Lisp syntax error: \\u needs 4 hexadecimal digits (line 1, column 2)"),
            ("?ab", "Emacs Lisp syntax error: invalid character literal: ? followed by more than one character (line 1, column 1)"),
            ("#x", "Emacs Lisp syntax error: invalid integer in radix 16 (line 1, column 1)"),
        ];
        for (text, message) in cases {
            let err = read_all(text, 128).unwrap_err();
            assert_eq!(err.to_string(), *message, "{text:?}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        for text in [
            "(".repeat(100_000),
            "'".repeat(100_000) + "x",
            "[".repeat(100_000),
            "#'".repeat(50_000) + "x",
        ] {
            let err = read_all(&text, 128).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{}", &text[..4]);
            assert_eq!(err.detail(), "the Emacs Lisp is nested more than 128 levels deep");
        }
        let ok = format!("{}{}", "(".repeat(128), ")".repeat(128));
        assert!(read_all(&ok, 128).is_ok());
    }

    #[test]
    fn truncated_input_never_panics() {
        let text = "(gptel-make-tool :name \"a\\\"b\" :function #'f :args (list '(:name \"x\" :type string :enum [\"a\" ?\\C-a 1.5e3])) :x `(a ,b) :y #s(h) :z #1=(c) . d)";
        for end in 0..=text.len() {
            if text.is_char_boundary(end) {
                let _ = read_all(&text[..end], 128);
            }
        }
        for end in 0..text.len() {
            let _ = read_all(&text[end..], 128);
        }
    }

    #[test]
    fn constant_evaluation() {
        let value = eval_constant(&read(
            "(list '(:name \"a\") (list :name \"b\" :type 'string) `(:c ,d))",
        ));
        let err = value.unwrap_err();
        assert!(err.detail.starts_with("a backquote with ,"), "{}", err.detail);
        let value = eval_constant(&read(
            "(list '(:name \"a\") (list :type 'string) [x] (concat \"a\" \"b\"))",
        ))
        .unwrap();
        let Kind::List(items) = value.kind else { panic!() };
        assert!(matches!(&items[1].kind, Kind::List(inner) if inner[1].kind == sym("string")));
        assert!(matches!(&items[2].kind, Kind::Vector(inner) if inner[0].kind == sym("x")));
        assert_eq!(items[3].kind, Kind::Str("ab".into()));
        let err = eval_constant(&read("my-args")).unwrap_err();
        assert!(err.detail.starts_with("my-args is a variable"), "{}", err.detail);
        let err = eval_constant(&read("(my-make-args 1)")).unwrap_err();
        assert!(
            err.detail.starts_with("a (my-make-args …) form is code"),
            "{}",
            err.detail
        );
    }

    #[test]
    fn printer_escapes_strings_and_symbols() {
        assert_eq!(
            string_literal("say \"hi\"\\now\n\ttab"),
            r#""say \"hi\"\\now\n\ttab""#
        );
        assert_eq!(string_literal("café → \u{1}"), "\"café → \\u0001\"");
        assert_eq!(symbol_text("string"), "string");
        assert_eq!(symbol_text("a b(c)"), "a\\ b\\(c\\)");
        assert_eq!(symbol_text("1"), "\\1");
        assert_eq!(symbol_text("?x"), "\\?x");
        assert_eq!(symbol_text("x?"), "x?");
        assert_eq!(keyword_text("description:"), ":description:");
        assert_eq!(keyword_text("1"), ":1");
        assert_eq!(keyword_text("my key"), ":my\\ key");
        assert_eq!(keyword_text(""), "##");
        assert_eq!(float_text(1.0).unwrap(), "1.0");
        assert_eq!(float_text(1e300).unwrap(), "1e300");
        assert_eq!(float_text(f64::NAN), None);
        for text in ["\"x\\\"y\"", "\\1", ":my\\ key", "a\\ b\\(c\\)", "\\?x"] {
            let printed = match kind(text) {
                Kind::Str(s) => string_literal(&s),
                Kind::Symbol(s) if s.starts_with(':') => keyword_text(&s[1..]),
                Kind::Symbol(s) => symbol_text(&s),
                other => panic!("{other:?}"),
            };
            assert_eq!(printed, text);
        }
        for value in [0.1, 1.0, -0.0, 1e300, 1e-7, 123456789.123] {
            assert_eq!(kind(&float_text(value).unwrap()), Kind::Float(value));
        }
    }

    #[test]
    fn layout_breaks_long_plists() {
        let pair = |k: &str, v: &str| (k.to_string(), Doc::Atom(v.to_string()));
        let short = Doc::Plist(vec![pair(":name", "\"x\""), pair(":type", "string")]);
        assert_eq!(short.render(0), "(:name \"x\" :type string)");
        let long = Doc::Call(
            "list".into(),
            vec![
                Doc::Quote(Box::new(short.clone())),
                Doc::Quote(Box::new(Doc::Plist(vec![
                    pair(":name", "\"a_rather_long_argument_name\""),
                    pair(":type", "string"),
                    pair(":description", "\"A description long enough to break the line.\""),
                ]))),
            ],
        );
        assert_eq!(
            long.render(7),
            "(list '(:name \"x\" :type string)\n             '(:name \"a_rather_long_argument_name\"\n               :type string\n               :description \"A description long enough to break the line.\"))"
        );
        let form = Doc::Form("f".into(), vec![pair(":a", "1"), pair(":b", "nil")]);
        assert_eq!(form.render(0), "(f\n :a 1\n :b nil)");
        assert_eq!(Doc::Plist(vec![]).render(0), "nil");
    }
}
