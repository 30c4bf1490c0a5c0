//! A small Emacs Lisp reader and printer for the subset tool definitions are
//! written in, shared by the `gptel` and `llm` formats (pandoc's
//! `Writers/Shared`).
//!
//! This file holds the forms ([`Sexp`], each with its byte span) and the only
//! evaluation toolbridge does, [`eval_constant`]; `read.rs` reads text into
//! forms, `print.rs` writes read syntax and lays out [`Doc`] trees, and
//! `number.rs` holds the number syntax both need.
//!
//! We write our own rather than use `lexpr`, which cannot read `#'fn` and
//! loses the difference between `nil`, `()` and `t` (see DESIGN.md).

mod number;
mod print;
mod read;

pub(crate) use print::{float_text, keyword_text, string_literal, symbol_text, Doc};
pub(crate) use read::{read_file, read_one};

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

    /// The spans of the symbols in this form, in source order, added to
    /// `spans`.
    pub fn symbol_spans(&self, spans: &mut Vec<Span>) {
        match &self.kind {
            Kind::Symbol(_) => spans.push(self.span),
            _ => self
                .children()
                .into_iter()
                .for_each(|child| child.symbol_spans(spans)),
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

/// The first `,` or `,@` in `form` outside a nested backquote.
pub(crate) fn find_unquote(form: &Sexp) -> Option<Span> {
    match &form.kind {
        Kind::Unquote(_) | Kind::UnquoteSplicing(_) => Some(form.span),
        Kind::Backquote(_) => None,
        _ => form.children().into_iter().find_map(find_unquote),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Sexp {
        read_one(text, 128).unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    fn sym(name: &str) -> Kind {
        Kind::Symbol(name.into())
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
}
