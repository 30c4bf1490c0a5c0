//! The `{{ name }}` placeholder grammar of prompt templates: one grammar for
//! the SkyDeck reader and writer and for rendering a `prompt` run.
//!
//! - `{{name}}` or `{{ name }}` is a placeholder: the text between `{{` and
//!   the next `}}`, trimmed, when it is not empty and holds no `{` or `}`;
//! - `\{{` is a literal `{{` (the backslash is dropped), the escape for a
//!   template that must show braces; a backslash anywhere else is itself;
//! - anything else, `{{}}`, `{{{x}}}` or an unclosed `{{`, is literal text.

/// One piece of a template: literal text or a placeholder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Text rendered as it is (escapes already resolved).
    Literal(&'a str),
    /// A placeholder, by the variable name it holds (trimmed).
    Placeholder(&'a str),
}

/// The template's segments, in order.
///
/// ```
/// use toolbridge::tool::template::{segments, Segment};
/// assert_eq!(
///     segments(r"Hi {{ name }}! \{{literal}}"),
///     [Segment::Literal("Hi "), Segment::Placeholder("name"), Segment::Literal("! "),
///      Segment::Literal("{{"), Segment::Literal("literal}}")]
/// );
/// ```
pub fn segments(template: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        if rest[..start].ends_with('\\') {
            push_literal(&mut out, &rest[..start - 1]);
            out.push(Segment::Literal("{{"));
            rest = &rest[start + 2..];
            continue;
        }
        let after = &rest[start + 2..];
        let name = after.find("}}").map(|end| (end, after[..end].trim()));
        match name {
            Some((end, name)) if !name.is_empty() && !name.contains(['{', '}']) => {
                push_literal(&mut out, &rest[..start]);
                out.push(Segment::Placeholder(name));
                rest = &after[end + 2..];
            }
            // Not a placeholder: the `{{` is text; go on after it.
            _ => {
                push_literal(&mut out, &rest[..start + 2]);
                rest = after;
            }
        }
    }
    push_literal(&mut out, rest);
    out
}

/// The distinct placeholder names of a template, in order of first use.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for segment in segments(template) {
        if let Segment::Placeholder(name) = segment {
            if !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

/// Renders a template, each placeholder replaced by what `value` gives for
/// its name (`None` keeps the placeholder as it was written, braces and all).
pub fn render<'a>(template: &'a str, mut value: impl FnMut(&'a str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    for segment in segments(template) {
        match segment {
            Segment::Literal(text) => out.push_str(text),
            Segment::Placeholder(name) => match value(name) {
                Some(text) => out.push_str(&text),
                None => {
                    out.push_str("{{");
                    out.push_str(name);
                    out.push_str("}}");
                }
            },
        }
    }
    out
}

fn push_literal<'a>(out: &mut Vec<Segment<'a>>, text: &'a str) {
    if !text.is_empty() {
        out.push(Segment::Literal(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_once_in_order() {
        assert_eq!(
            placeholders("{{ a }} and {{b}}, {{a}}, {{}} {{{c}}} {{ d e }} {{unclosed"),
            ["a", "b", "d e"]
        );
        assert_eq!(placeholders("no placeholders {single}"), Vec::<&str>::new());
        assert_eq!(placeholders(r"\{{a}} {{b}}"), ["b"]);
    }

    #[test]
    fn render_replaces_and_unescapes() {
        let rendered = render(r"{{ a }}+{{b}} \{{a}} {{{c}}} {{x}} \n {{", |name| match name {
            "a" => Some("1".into()),
            "b" => Some(String::new()),
            _ => None,
        });
        assert_eq!(rendered, r"1+ {{a}} {{{c}}} {{x}} \n {{");
    }

    #[test]
    fn odd_input_never_panics() {
        for text in ["\\", "\\{{", "{{\\}}", "é{{é}}é", "{{{{", "}}{{", "\\\\{{a}}"] {
            let _ = render(text, |_| Some("v".into()));
        }
        assert_eq!(render("\\\\{{a}}", |_| Some("v".into())), "\\{{a}}");
    }
}
