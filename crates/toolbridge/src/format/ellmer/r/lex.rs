//! Tokens: R source to [`Tok`]s, with every bracket paired in a [`Source`].

use crate::error::{Error, ErrorKind, Result};

use super::Pos;

/// How deep brackets may nest, whatever the configured limit: the value
/// parser recurses once per bracket level, and this keeps its stack small.
pub(crate) const MAX_R_DEPTH: usize = 256;

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
    pub(super) fn describe(&self) -> String {
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
}
