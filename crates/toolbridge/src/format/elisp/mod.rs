//! The Emacs Lisp formats `gptel` and `llm` (llm.el): their constructors,
//! `gptel-make-tool` and `llm-make-tool`, take the same tool plist, so one
//! reader and one writer serve both, told apart by a [`Flavor`].
//!
//! A file holds any number of tool forms, at the top level or inside other
//! forms (`setq`, `defvar`, `list`, `add-to-list`, `push`, `use-package`, …);
//! they are read in order. A tool plist passed to another call is a tool too
//! (ellama's `(ellama-tools-define-tool '(:name … :function … :args …))`),
//! quoted or backquoted (a computed `,…` value is left out, noted). The text
//! is read as `load` reads it: CRLF line ends decoded first, strings decoded
//! as `json-serialize` sends them (raw bytes that are UTF-8 as text, others
//! as U+FFFD with a note), every character syntax, `#s(…)`, `#[…]`, `#(…)`;
//! a top-level form that does not read costs only itself. A file with no
//! tool is [`NotATool`](crate::error::ErrorKind::NotATool). The plist maps to
//! the canonical tool like this:
//!
//! | gptel | canonical |
//! | --- | --- |
//! | `:name` | `name` |
//! | `:description` | `description` |
//! | `:function` (`#'fn`, `'fn`, a lambda, …) | `run: {"kind": "action", "handler": {"elisp": "<source text>"}}` |
//! | `:args` (a list of argument plists) | `inputSchema` `{"type": "object", "properties": {…}, "required": […]}` |
//! | `:async` | `async` |
//! | `:category` | `category` |
//! | `:confirm` `t` / `nil` / a predicate | `confirm` `true` / `false` / `{"elisp": "<source>"}` |
//! | `:include` `t` / `'call` / `nil` | `include` `"all"` / `"call"` / `"none"` |
//! | any other keyword | `vendor.gptel.<keyword>` as source text |
//!
//! Each argument plist becomes one property: `:name` is the key, `:optional t`
//! leaves the name out of `required`, every other keyword is a schema keyword
//! under its own spelling (so the seed's typo `:description:` stays the key
//! `"description:"`, with a note). Values: strings, numbers, `t` → `true`,
//! `:json-false` / `:false` → `false`, `:null` → `null`, vectors → arrays,
//! plists → objects, symbols (`:type string`) → strings.
//!
//! `nil` has no single JSON meaning; it is read by place: `:args nil` is no
//! arguments (`{"type": "object", "properties": {}}`), `:optional` / `:async`
//! / `:confirm nil` are false, `:include nil` is `"none"`, `:properties nil`
//! and a property's schema `nil` are `{}`; `nil` as the value of a keyword
//! that takes an array (`:required`, `:enum`, `:anyOf`, …) is `[]` (noted);
//! anywhere else it is `{}`, which is what gptel's `json-serialize` sends
//! (noted, since `:null` or `:json-false` was probably meant).
//!
//! Writing produces the same forms: arguments as `(list '(:name … :type …) …)`,
//! each with one `:type` from the seven and a string `:description` (what
//! `gptel-make-tool`'s docstring requires; see `write::written_argument` for
//! unions, nullable unions and a missing description), names fitted to
//! [`NAME_RULE`],
//! JSON `true`/`false`/`null` as `t`/`:json-false`/`:null`, objects as plists,
//! arrays as vectors (objects inside vectors carry their `:type` as strings,
//! which every gptel version and llm.el serialise). A tool with no Emacs Lisp
//! handler gets `(lambda (&rest _) (error "toolbridge: tool %s has no Emacs Lisp
//! function; define one" "NAME"))`, which needs no other definition and which
//! the reader recognises and reads back as "no handler".
//!
//! Here: the [`Flavor`], the slots both packages know, detection and joining.
//! `sexp/` reads and prints the Emacs Lisp itself; `find.rs` finds the tools
//! in a file and `read.rs` maps each to a canonical tool and `write.rs` maps them back; `gptel.rs` and `llm.rs`
//! hold each package's `CODEC` and what only it does.

pub(crate) mod defun;
mod find;
mod read;
mod sexp;
mod write;

pub(crate) mod gptel;
pub(crate) mod llm;

/// The read syntax the Toolbox prints native values with.
pub(crate) use sexp::{float_text, keyword_text, string_literal, symbol_text};

use crate::options::Format;
use crate::pointer::Pointer;
use crate::schema::NameRule;

/// The package a tool form is written for: gptel and llm.el take the same
/// plist, with a few differences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `gptel-make-tool`.
    Gptel,
    /// `llm-make-tool`.
    Llm,
}

impl Flavor {
    pub(crate) fn format(self) -> Format {
        match self {
            Flavor::Gptel => Format::Gptel,
            Flavor::Llm => Format::Llm,
        }
    }

    pub(crate) fn head(self) -> &'static str {
        match self {
            Flavor::Gptel => "gptel-make-tool",
            Flavor::Llm => "llm-make-tool",
        }
    }

    fn package(self) -> &'static str {
        match self {
            Flavor::Gptel => "gptel",
            Flavor::Llm => "llm.el",
        }
    }

    /// The keyword JSON `false` is written as: gptel encodes with
    /// `:false-object :json-false`; llm.el with `json-serialize`'s default `:false`.
    fn false_keyword(self) -> &'static str {
        match self {
            Flavor::Gptel => ":json-false",
            Flavor::Llm => ":false",
        }
    }

    fn of_head(head: &str) -> Option<Flavor> {
        match head {
            "gptel-make-tool" => Some(Flavor::Gptel),
            "llm-make-tool" => Some(Flavor::Llm),
            _ => None,
        }
    }
}

/// The tool slots both constructors know, in the order they are written.
const SLOTS: [&str; 8] = [
    "name",
    "description",
    "function",
    "args",
    "async",
    "category",
    "confirm",
    "include",
];

/// Slots only gptel has; llm.el accepts and ignores them.
const GPTEL_ONLY: [&str; 3] = ["category", "confirm", "include"];

/// The error format of the placeholder function written for a tool without
/// an Emacs Lisp handler.
const PLACEHOLDER_MESSAGE: &str = "toolbridge: tool %s has no Emacs Lisp function; define one";

/// Joins written forms into one file, a blank line between forms.
pub(crate) fn join(forms: Vec<String>) -> String {
    if forms.is_empty() {
        return String::new();
    }
    let mut out =
        String::from(";;; -*- lexical-binding: t -*-\n;; Tool definitions written by toolbridge.\n\n");
    out.push_str(&forms.join("\n"));
    out
}

/// The constructor of the first tool form in `text`, found by a light scan
/// that skips comments, strings and character literals and never fails, so
/// that a file with a syntax error is still recognised (and the reader then
/// reports the error with its position).
pub(crate) fn first_head(text: &str) -> Option<Flavor> {
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            ';' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '"' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '?' => {
                if let Some((_, '\\')) = chars.next() {
                    chars.next();
                }
            }
            '(' => {
                let rest = text[at + 1..].trim_start();
                for flavor in [Flavor::Gptel, Flavor::Llm] {
                    if let Some(after) = rest.strip_prefix(flavor.head()) {
                        if after
                            .chars()
                            .next()
                            .is_none_or(|c| c.is_whitespace() || "()[]\";'`,".contains(c))
                        {
                            return Some(flavor);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// True when `text` starts (after whitespace) with a comment or a list, as
/// Emacs Lisp files do and JSON and R files do not.
pub(crate) fn looks_like_lisp(text: &str) -> bool {
    text.trim_start().starts_with([';', '('])
}

/// The tool names gptel and llm.el can send: they send `:name` unchanged to
/// whichever backend is in use (`gptel--parse-tools` in gptel-openai.el,
/// gptel-anthropic.el, gptel-gemini.el; `llm-provider-utils-openai-tool-spec`,
/// `llm-claude--tool-call`, `llm-vertex--chat-request`), so a name must fit
/// every backend: OpenAI, Anthropic and Bedrock take `[a-zA-Z0-9_-]{1,64}`,
/// Gemini also wants a letter or `_` first and 63 characters at most.
pub(crate) const NAME_RULE: NameRule = NameRule::GEMINI;

fn last_token(at: &Pointer) -> String {
    at.tokens().last().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::read::tests::read_one;
    use super::write::write_as;
    use super::*;
    use crate::note::Notes;
    use crate::options::WriteOptions;
    use crate::tool::Tool;
    use serde_json::{json, Value};

    fn write_one(tool: &Value, flavor: Flavor) -> (String, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool.clone()).unwrap();
        let mut notes = Notes::new();
        let text = write_as(&tool, &WriteOptions::default(), &mut notes, flavor).unwrap();
        let notes = notes
            .iter()
            .map(|note| format!("{} {}: {}", note.level(), note.at, note.message))
            .collect();
        (text, notes)
    }

    #[test]
    fn detection_skips_comments_and_strings() {
        assert_eq!(
            first_head("; (llm-make-tool\n\"(llm-make-tool\" ?\\( (gptel-make-tool :name"),
            Some(Flavor::Gptel)
        );
        assert_eq!(
            first_head("(setq x (llm-make-tool\n :name \"a\"))"),
            Some(Flavor::Llm)
        );
        assert_eq!(first_head("(gptel-make-tools)"), None);
        assert_eq!(first_head("(gptel-make-tool"), Some(Flavor::Gptel));
    }

    #[test]
    fn round_trip_keeps_what_gptel_can_express() {
        let tools = [
            json!({"name": "get_weather", "description": "Weather.",
                "inputSchema": {"type": "object", "properties": {
                    "city": {"type": "string", "description": "City, \"quoted\" \\ and\nnewline é →", "minLength": 2},
                    "unit": {"type": "string", "description": "", "enum": ["c", "f"], "default": "c"},
                    "when": {"type": "string", "description": "When.", "format": "date-time"},
                    "opts": {"type": "object", "description": "Options.", "properties": {"deep": {"type": "array", "items": {"type": "object",
                        "properties": {"x": {"type": "boolean", "const": false}}, "required": ["x"]}}},
                        "required": [], "additionalProperties": false},
                    "my key": {"type": "integer", "description": "A key.", "examples": [1, 2.5, null, true, {"a": "b"}]}
                }, "required": ["city", "opts"]},
                "async": true, "confirm": {"elisp": "(lambda (city &rest _) (string= city \"Paris\"))"},
                "include": "call", "category": "weather",
                "run": {"kind": "action", "handler": {"elisp": "#'my-weather"}},
                "vendor": {"gptel": {"extra": "'(1 2)"}}}),
            json!({"name": "ping", "description": "", "inputSchema": {"type": "object", "properties": {}},
                "async": false, "confirm": true, "include": "none"}),
        ];
        for original in tools {
            let (text, write_notes) = write_one(&original, Flavor::Gptel);
            let placeholder_only = write_notes.iter().all(|note| note.contains("placeholder"));
            assert!(placeholder_only, "{write_notes:?}");
            let (back, _) = read_one(&text);
            assert_eq!(back, original, "{text}");
        }
    }
}
