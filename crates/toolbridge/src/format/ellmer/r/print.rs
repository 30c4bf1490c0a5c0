//! Writing R: names, string literals and the [`RExpr`] layout.

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
    use super::super::lex::{Source, Tok};
    use super::*;

    fn source(text: &str) -> Source<'_> {
        Source::new(text, 128).unwrap()
    }

    fn toks(text: &str) -> Vec<Tok> {
        source(text).tokens.into_iter().map(|token| token.tok).collect()
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
