//! The printer: the read syntax of strings, symbols, keywords and floats, and
//! [`Doc`] trees laid out as text (plists one pair per line when they do not
//! fit on one, vectors, `(list …)` calls and verbatim source text).

use super::number::parse_number;

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
    use super::super::{read_one, Kind, Sexp};
    use super::*;

    fn read(text: &str) -> Sexp {
        read_one(text, 128).unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    fn kind(text: &str) -> Kind {
        read(text).kind
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
