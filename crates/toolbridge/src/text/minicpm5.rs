//! MiniCPM5 (OpenBMB): one XML element per call, `<function
//! name="NAME"><param name="KEY">VALUE</param></function>`, anywhere in
//! the reply (vLLM `minicpm5xml_tool_parser.py` and its tests). A value is
//! XML text: a `<![CDATA[…]]>` section as written, other text trimmed and
//! its entities decoded; then typed by the tool's schema (a string
//! property keeps the text, anything else is read as JSON or a Python
//! literal, as vLLM's `_coerce_argument_value` reads it).
//!
//! A detokenizer that does not map GPT-2's byte markers back writes the
//! tags `<function\u{0120}name=` (`Ġ` for the space), and weak decoding
//! collapses them to `<functionname=`, `<paramname=`: those tags are read
//! as the plain ones, noted (vLLM's `_normalize_model_output`). In a call
//! whose tags show the byte markers, its values have them too: `Ġ` and `Ċ`
//! there are read as a space and a line break. A call's name is read as
//! written, garbled tags in it and all (as the stream announces it).
//! Elsewhere the text is kept as written (vLLM maps `Ġ` and `Ċ` in the
//! prose and every call too, where `Ġ` may be a letter, Maltese's).
//!
//! Where toolbridge reads differently, on purpose: a call to a tool the
//! request does not list, with a parameter missing, unknown or given twice,
//! is still a call (vLLM keeps such a block as text; the Toolbox says what
//! is wrong), and vLLM's renaming of a few benchmark tools
//! (`get_details_by_phone` to `get_customer_by_phone`) is not done.

use std::borrow::Cow;

use super::invoke::{self, Arguments, Markup, Values};
use super::scan::{recovered, Out};
use super::stream::markup::{Region, Streaming, Until};
use super::tags::scan_tags;

const FUNCTION: &str = "<function name=";
const FUNCTION_END: &str = "</function>";

/// The call's tag as written: plain, with the detokenizer's `Ġ` for the
/// space, collapsed.
const FUNCTIONS: [&str; 3] = [FUNCTION, "<function\u{0120}name=", "<functionname="];

/// A tag as garbled decoding writes it, and the plain tag it stands for.
const GARBLED: [(&str, &str); 4] = [
    ("<function\u{0120}name=", FUNCTION),
    ("<functionname=", FUNCTION),
    ("<param\u{0120}name=", "<param name="),
    ("<paramname=", "<param name="),
];

static MARKUP: Markup = Markup {
    blocks: &[],
    call_ends: &[],
    invoke: FUNCTION,
    invoke_end: FUNCTION_END,
    parameter: "<param name=",
    parameter_end: "</param>",
    head_end: ">",
    escaped: true,
    values: Values::Xml,
    arguments: Arguments::Named,
    // A garbled tag starts the next call, as the parse splits calls.
    stops: &FUNCTIONS,
    doubled_names: false,
    stop_lead: None,
};

pub(super) fn detect(text: &str) -> bool {
    FUNCTIONS.iter().any(|tag| text.contains(tag))
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut pos = 0;
    while let Ok((start, which)) = scan_tags(text, pos, &FUNCTIONS) {
        out.prose.push_str(&text[pos..start]);
        // The call runs to its end tag, or to the next call's tag.
        let body = start + FUNCTIONS[which].len();
        let next = scan_tags(text, body, &FUNCTIONS).map_or(text.len(), |(at, _)| at);
        pos = text[body..next]
            .find(FUNCTION_END)
            .map_or(next, |end| body + end + FUNCTION_END.len());
        let (call, garbled) = plain_tags(&text[start..pos]);
        let (calls, prose, notes) = (out.calls.len(), out.prose.len(), out.notes.len());
        invoke::parse(&call, out, &MARKUP);
        if let Cow::Owned(_) = call {
            if out.calls.len() == calls {
                // No call after all: the text stays as the model wrote it.
                out.prose.truncate(prose);
                out.notes.truncate(notes);
                invoke::parse(&text[start..pos], out, &MARKUP);
            } else if let Some(call) = out.calls.last_mut() {
                if garbled.markers {
                    call.notes.push(recovered(
                        "byte-markers",
                        "the call was written with GPT-2's byte markers (<function\u{0120}name=, \
                         \u{0120} for a space, \u{010a} for a line break), as a detokenizer that \
                         does not map them back writes it; its tags were read as <function name= \
                         and <param name=, its markers as spaces and line breaks",
                    ));
                }
                if garbled.collapsed {
                    call.notes.push(recovered(
                        "garbled-tag",
                        "the call's tags were written <functionname= (<paramname= alike), as \
                         decoding that drops GPT-2's space marker writes them; they were read as \
                         <function name= and <param name=",
                    ));
                }
            }
        }
    }
    out.prose.push_str(&text[pos..]);
}

/// How a call's tags were garbled.
#[derive(Default)]
struct Garbled {
    /// With GPT-2's byte markers (`<function\u{0120}name=`).
    markers: bool,
    /// Collapsed (`<functionname=`).
    collapsed: bool,
}

/// The call `text` with its garbled tags written plainly; where they show
/// GPT-2's byte markers, every marker in it read as the space or line
/// break it stands for. The call's name stays as written (the stream
/// announces a call whose own tag is plain by the name it reads there).
fn plain_tags(text: &str) -> (Cow<'_, str>, Garbled) {
    let mut garbled = Garbled::default();
    let Some(&tag) = FUNCTIONS.iter().find(|tag| text.starts_with(**tag)) else {
        return (Cow::Borrowed(text), garbled);
    };
    let head = tag.len()
        + MARKUP
            .head_len(&text[tag.len()..])
            .unwrap_or(text.len() - tag.len());
    let (name, parameters) = (&text[tag.len()..head], &text[head..]);
    let mut rest = Cow::Borrowed(parameters);
    for (garbled_tag, plain) in GARBLED {
        let in_rest = rest.contains(garbled_tag);
        if in_rest {
            rest = Cow::Owned(rest.replace(garbled_tag, plain));
        }
        if in_rest || tag == garbled_tag {
            match garbled_tag.contains(SPACE_MARKER) {
                true => garbled.markers = true,
                false => garbled.collapsed = true,
            }
        }
    }
    if garbled.markers {
        rest = Cow::Owned(rest.replace(SPACE_MARKER, " ").replace(NEWLINE_MARKER, "\n"));
    }
    if tag == FUNCTION && matches!(rest, Cow::Borrowed(_)) {
        return (Cow::Borrowed(text), garbled);
    }
    (Cow::Owned(format!("{FUNCTION}{name}{rest}")), garbled)
}

/// GPT-2's byte markers for a space and a line break (`Ġ`, `Ċ`).
const SPACE_MARKER: char = '\u{0120}';
const NEWLINE_MARKER: char = '\u{010a}';

/// Streamed: a call runs from its `<function name=` to `</function>` (or
/// the next call), its parameters sent as each closes
/// ([`invoke::region`]); a call whose tag is garbled comes whole when it
/// ends.
pub(super) const STREAM: Streaming = Streaming {
    opens: &FUNCTIONS,
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => invoke::region(&MARKUP, Some(0)),
        Some(garbled) => Box::new(Until::new(
            FUNCTIONS[garbled].len(),
            std::slice::from_ref(&FUNCTION_END),
            &FUNCTIONS,
            &[],
        )),
        None => unreachable!("MiniCPM5 has no bare markup"),
    }
}
