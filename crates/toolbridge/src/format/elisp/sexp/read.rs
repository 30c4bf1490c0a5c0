//! The reader: Emacs Lisp text to [`Sexp`] forms.
//!
//! It takes a whole file: comments, strings with every escape Emacs
//! knows, character literals, integers (decimal, `#x`, `#o`, `#b`, `#NrDIGITS`,
//! bignums) and floats, symbols with `\` escapes, lists, dotted pairs,
//! vectors, `'` `#'` `` ` `` `,` `,@`, records `#s(…)` and byte-code `#[…]`.
//! Every form keeps its byte span, so that a reader can copy a function's
//! source text verbatim and report line and column. `nil` and `t` stay
//! symbols; nothing is evaluated except the constant forms of
//! [`eval_constant`](super::eval_constant) (`'x`, `(list …)`, backquote
//! without unquote, …).

use crate::error::{Error, ErrorKind, Result};

use super::number::parse_number;
use super::{line_column, Kind, Sexp, Span};

/// Reads every top-level form of `text`. Forms nested deeper than
/// `max_depth` are refused with [`ErrorKind::LimitExceeded`]; malformed text
/// with [`ErrorKind::LispSyntax`], both with line and column.
pub(crate) fn read_all(text: &str, max_depth: usize) -> Result<Vec<Sexp>> {
    let file = read_file(text, max_depth);
    match file.failures.into_iter().next() {
        Some(failure) => Err(failure.error),
        None => Ok(file.forms),
    }
}

/// What [`read_file`] read: the forms, the forms it could not read, and the
/// strings it could decode only approximately.
#[derive(Debug, Default)]
pub(crate) struct File {
    /// The top-level forms that read, in order.
    pub forms: Vec<Sexp>,
    /// The top-level forms that did not read, in order.
    pub failures: Vec<Failure>,
    /// Strings whose decoded text differs from what Emacs holds (raw bytes
    /// that are not UTF-8, characters beyond Unicode, `\N{NAME}`), with why.
    pub inexact: Vec<(Span, String)>,
}

/// A top-level form that did not read.
#[derive(Debug)]
pub(crate) struct Failure {
    /// Why, with line and column.
    pub error: Error,
    /// The text skipped: from the form's start to where reading went on.
    pub skipped: Span,
}

/// Reads every top-level form of `text` the way `load` would, except that a
/// form that does not read costs only itself: reading goes on at the next
/// line that starts with `(` (where the next top-level form of a
/// conventionally written file begins). Depth is limited as in [`read_all`].
pub(crate) fn read_file(text: &str, max_depth: usize) -> File {
    let mut reader = Reader {
        text,
        pos: 0,
        depth: 0,
        max_depth,
        inexact: Vec::new(),
    };
    if reader.text.starts_with("#!") {
        reader.skip_line();
    }
    let mut file = File::default();
    loop {
        reader.skip_atmosphere();
        let start = reader.pos;
        let result = match reader.peek() {
            None => break,
            Some(')') | Some(']') => {
                Err(reader.error_at(start, "unexpected closing bracket with nothing open"))
            }
            Some(_) => reader.read_form(),
        };
        match result {
            Ok(form) => file.forms.push(form),
            Err(error) => {
                let resume = text[start..].find("\n(").map_or(text.len(), |at| start + at + 1);
                file.failures.push(Failure {
                    error,
                    skipped: Span { start, end: resume },
                });
                reader.pos = resume;
                reader.depth = 0;
            }
        }
    }
    file.inexact = reader.inexact;
    file
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
    inexact: Vec<(Span, String)>,
}

/// One piece of a string literal: a character, or a raw byte (`\x80`–`\xff`,
/// `\200`–`\377`, `\M-` and the raw-byte characters `\x3fff80`–`\x3fffff`).
enum Piece {
    Char(char),
    Byte(u8),
    /// A character Emacs has but Unicode lacks, or one named by `\N{NAME}`.
    Unknown(&'static str),
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
            // A string with text properties: `#("text" 0 4 (face bold))`
            // evaluates to the string; the properties are not tool data.
            '(' => {
                self.bump();
                self.enter(start)?;
                let items = self.read_sequence(start, ')', "propertized string")?;
                self.leave();
                match items.into_iter().next() {
                    Some(Sexp {
                        kind: Kind::Str(text),
                        ..
                    }) => Ok(Kind::Str(text)),
                    _ => Err(self.error_at(start, "#( must begin with a string")),
                }
            }
            // Char-tables `#^[…]` and sub-char-tables `#^^[…]`.
            '^' => {
                self.bump();
                if self.peek() == Some('^') {
                    self.bump();
                }
                if self.peek() != Some('[') {
                    return Err(self.error_at(start, "#^ must be followed by ["));
                }
                self.bump();
                self.enter(start)?;
                let items = self.read_sequence(start, ']', "char-table")?;
                self.leave();
                Ok(Kind::Record(items))
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
        let mut pieces = Vec::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(self.error_at(start, "unterminated string: this \" is never closed"));
            };
            match c {
                '"' => break,
                '\\' => {
                    let escape_at = self.pos - 1;
                    let Some(e) = self.bump() else {
                        return Err(self.error_at(start, "unterminated string: this \" is never closed"));
                    };
                    match e {
                        '\n' | ' ' => {}
                        // In a string, `\s` is a space even before `-` (Emacs 28).
                        's' => pieces.push(Piece::Char(' ')),
                        'N' if self.peek() == Some('{') && !self.text[self.pos..].starts_with("{U+") => {
                            self.read_character_name(escape_at)?;
                            pieces.push(Piece::Unknown("a character given by its Unicode name"));
                        }
                        _ => {
                            let byte_escape = matches!(e, 'x' | '0'..='7' | 'M');
                            let code = self.read_escape(e, escape_at, true)?;
                            pieces.push(match code {
                                0x80..=0xff if byte_escape => Piece::Byte(code as u8),
                                0x3f_ff80..=0x3f_ffff => Piece::Byte((code - 0x3f_ff00) as u8),
                                _ => match char_of(code) {
                                    Some(c) => Piece::Char(c),
                                    None => Piece::Unknown("a character beyond Unicode"),
                                },
                            });
                        }
                    }
                }
                c => pieces.push(Piece::Char(c)),
            }
        }
        Ok(self.decode_pieces(pieces, Span { start, end: self.pos }))
    }

    /// The text of a string literal as `json-serialize` sends it. A string
    /// of ASCII and raw bytes is unibyte in Emacs: `json-serialize` sends its
    /// bytes when they are UTF-8 (`"caf\303\251"` is "café") and refuses
    /// them otherwise; a raw byte among other characters is a raw-byte
    /// character it refuses too. What is not exact becomes U+FFFD and is
    /// recorded in `inexact`.
    fn decode_pieces(&mut self, pieces: Vec<Piece>, span: Span) -> String {
        let has_bytes = pieces.iter().any(|piece| matches!(piece, Piece::Byte(_)));
        let unibyte = has_bytes
            && pieces.iter().all(|piece| match piece {
                Piece::Char(c) => c.is_ascii(),
                Piece::Byte(_) => true,
                Piece::Unknown(_) => false,
            });
        if unibyte {
            let bytes: Vec<u8> = pieces
                .iter()
                .map(|piece| match piece {
                    Piece::Char(c) => *c as u8,
                    Piece::Byte(byte) => *byte,
                    Piece::Unknown(_) => b'?',
                })
                .collect();
            return match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(err) => {
                    self.inexact.push((
                        span,
                        "its raw bytes are not UTF-8 (json-serialize refuses such a string); each bad byte read as U+FFFD".into(),
                    ));
                    String::from_utf8_lossy(err.as_bytes()).into_owned()
                }
            };
        }
        let mut out = String::with_capacity(pieces.len());
        let mut why = None;
        for piece in pieces {
            match piece {
                Piece::Char(c) => out.push(c),
                Piece::Byte(_) => {
                    why.get_or_insert("a raw byte among other characters (json-serialize refuses it)");
                    out.push('\u{fffd}');
                }
                Piece::Unknown(what) => {
                    why.get_or_insert(what);
                    out.push('\u{fffd}');
                }
            }
        }
        if let Some(why) = why {
            self.inexact
                .push((span, format!("it holds {why}, read as U+FFFD")));
        }
        out
    }

    /// Skips `{NAME}` after `\N`: toolbridge has no table of Unicode names.
    fn read_character_name(&mut self, escape_at: usize) -> Result<()> {
        self.bump();
        loop {
            match self.bump() {
                Some('}') => return Ok(()),
                Some(_) => {}
                None => return Err(self.error_at(escape_at, "unterminated \\N{…}")),
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
                match name.strip_prefix("U+") {
                    Some(hex) => u32::from_str_radix(hex, 16)
                        .map_err(|_| self.error_at(escape_at, "invalid \\N{U+…} escape"))?,
                    // A character name: toolbridge has no table of them; the
                    // value of a character literal is never tool data.
                    None => 0xfffd,
                }
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
            'M' if in_string && self.peek() == Some('-') => {
                self.bump();
                let base = self.read_char_code(escape_at, in_string)?;
                if base > 0x7f {
                    return Err(self.error_at(escape_at, "\\M- in a string takes an ASCII character"));
                }
                base | 0x80
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

/// `\C-` / `\^` applied to a character code: on the character itself,
/// keeping the modifier bits (`?\C-\M-x` is `?\M-\C-x`).
fn control(code: u32) -> u32 {
    const MODIFIERS: u32 = !((1 << 22) - 1);
    let modifiers = code & MODIFIERS;
    let base = code & !MODIFIERS;
    modifiers
        | match base {
            0x3f => 127,
            0x40..=0x5f => base - 0x40,
            0x61..=0x7a => base - 0x60,
            _ => base | (1 << 26),
        }
}

fn char_of(code: u32) -> Option<char> {
    char::from_u32(code)
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

    /// The string a literal reads as, and why it is inexact (if it is).
    fn string_of(text: &str) -> (String, Option<String>) {
        let file = read_file(text, 128);
        assert!(file.failures.is_empty(), "{text}: {:?}", file.failures);
        let Kind::Str(value) = &file.forms[0].kind else {
            panic!("{text}")
        };
        (value.clone(), file.inexact.first().map(|(_, why)| why.clone()))
    }

    #[test]
    fn strings_hold_what_emacs_reads() {
        // Each checked with emacs --batch (GNU Emacs 28.2): (read TEXT), then
        // json-serialize on it, which sends a unibyte string's bytes when they
        // are UTF-8 and refuses them otherwise.
        let not_utf8 = "its raw bytes are not UTF-8 (json-serialize refuses such a string); each bad byte read as U+FFFD";
        let raw_among =
            "it holds a raw byte among other characters (json-serialize refuses it), read as U+FFFD";
        let cases: &[(&str, &str, Option<&str>)] = &[
            (r#""caf\303\251""#, "café", None),
            (r#""caf\xc3\xa9""#, "café", None),
            (r#""\xe9""#, "\u{fffd}", Some(not_utf8)),
            (r#""\x3fff80""#, "\u{fffd}", Some(not_utf8)),
            (r#""a\M-a""#, "a\u{fffd}", Some(not_utf8)),
            ("\"é\\xe9\"", "é\u{fffd}", Some(raw_among)),
            (r#""\u00e9\x41""#, "éA", None),
            (r#""\s-a""#, " -a", None),
            (
                r#""\N{LATIN SMALL LETTER E WITH ACUTE}""#,
                "\u{fffd}",
                Some("it holds a character given by its Unicode name, read as U+FFFD"),
            ),
            (
                r#""\x110000""#,
                "\u{fffd}",
                Some("it holds a character beyond Unicode, read as U+FFFD"),
            ),
            (
                r#""[^\x3fff80-\x3fffff]""#,
                "[^\u{fffd}-\u{fffd}]",
                Some(not_utf8),
            ),
        ];
        for (text, value, why) in cases {
            assert_eq!(
                string_of(text),
                (value.to_string(), why.map(str::to_string)),
                "{text}"
            );
        }
    }

    #[test]
    fn characters_with_modifiers_are_what_emacs_reads() {
        // (list ?\C-\M-x ?\C-% ?\s-a ?\H-a ?\A-a ?\S-a ?\M-\C-a ?\C-? ?\^? ?\d ?\^M ?)) in Emacs 28.
        let cases: &[(&str, i64)] = &[
            ("?\\C-\\M-x", 134_217_752),
            ("?\\C-%", 67_108_901),
            ("?\\s-a", 8_388_705),
            ("?\\H-a", 16_777_313),
            ("?\\A-a", 4_194_401),
            ("?\\S-a", 33_554_529),
            ("?\\M-\\C-a", 134_217_729),
            ("?\\C-?", 127),
            ("?\\^?", 127),
            ("?\\d", 127),
            ("?\\^M", 13),
            ("?)", 41),
            ("?\\N{LATIN SMALL LETTER E WITH ACUTE}", 0xfffd),
        ];
        for (text, code) in cases {
            assert_eq!(kind(text), Kind::Integer(*code), "{text}");
        }
    }

    #[test]
    fn printed_representations_read() {
        assert_eq!(kind("#(\"foo\" 0 3 (face bold))"), Kind::Str("foo".into()));
        assert!(matches!(kind("#^[nil nil x]"), Kind::Record(items) if items.len() == 3));
        assert!(matches!(kind("#^^[3 0 nil]"), Kind::Record(items) if items.len() == 3));
        assert!(
            matches!(kind("#s(hash-table size 65 test eql data (a 1))"), Kind::Record(items) if items.len() == 7)
        );
    }

    #[test]
    fn a_form_that_does_not_read_costs_only_itself() {
        let text = "(a \"x)\n(b #<buffer>)\n  (inner)\n(c 1)\n)\n(d)";
        let file = read_file(text, 128);
        let heads: Vec<&str> = file
            .forms
            .iter()
            .map(|form| match &form.kind {
                Kind::List(items) => items[0].symbol().unwrap_or("?"),
                _ => "?",
            })
            .collect();
        // After each failure reading goes on at the next line that starts
        // with "(" after the failed form's start (not at "  (inner)").
        assert_eq!(heads, ["c", "d"]);
        let failures: Vec<(String, Span)> = file
            .failures
            .iter()
            .map(|failure| (failure.error.to_string(), failure.skipped))
            .collect();
        assert_eq!(
            failures,
            [
                (
                    "Emacs Lisp syntax error: unterminated string: this \" is never closed (line 1, column 4)".to_string(),
                    Span { start: 0, end: 7 }
                ),
                (
                    "Emacs Lisp syntax error: #< is not Emacs Lisp syntax toolbridge reads (line 2, column 4)".to_string(),
                    Span { start: 7, end: 31 }
                ),
                (
                    "Emacs Lisp syntax error: unexpected closing bracket with nothing open (line 5, column 1)".to_string(),
                    Span { start: 37, end: 39 }
                ),
            ]
        );
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
}
