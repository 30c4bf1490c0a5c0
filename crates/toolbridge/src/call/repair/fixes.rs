//! The fixes a repair makes, each becoming a [`Note`] with
//! [`NoteKind::Repaired`]: a kebab-case name, the place in the repaired value,
//! a sentence, and the line and column in the text where it was made.

use std::fmt::Write;

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

/// One kind of fix. [`Kind::name`] is the `fix` of the note.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    EmptyInput,
    ByteOrderMark,
    CodeFence,
    Prose,
    DoubledBraces,
    MissingBrace,
    TrailingComma,
    ExtraComma,
    MissingComma,
    MissingColon,
    SingleQuotes,
    SmartQuotes,
    UnquotedKey,
    UnquotedString,
    PythonLiteral,
    LiteralCase,
    Undefined,
    NonFinite,
    Comment,
    UnescapedQuote,
    ControlCharacter,
    InvalidEscape,
    EscapedApostrophe,
    WindowsPath,
    LoneSurrogate,
    NumberFormat,
    LeadingZeros,
    Truncated,
    MissingBracket,
    ExtraBracket,
    Ellipsis,
    DoubleEncoded,
    StringToNumber,
    StringToBoolean,
    FloatToInteger,
    WrappedInArray,
    EnumCase,
    UnwrappedArguments,
    /// The fixes past [`MAX_LISTED`], counted in one note.
    More,
}

/// Most fixes listed one by one; the rest are counted in one last note.
const MAX_LISTED: usize = 256;

impl Kind {
    /// The kebab-case name carried by the note.
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::EmptyInput => "empty-input",
            Kind::ByteOrderMark => "byte-order-mark",
            Kind::CodeFence => "code-fence",
            Kind::Prose => "prose",
            Kind::DoubledBraces => "doubled-braces",
            Kind::MissingBrace => "missing-brace",
            Kind::TrailingComma => "trailing-comma",
            Kind::ExtraComma => "extra-comma",
            Kind::MissingComma => "missing-comma",
            Kind::MissingColon => "missing-colon",
            Kind::SingleQuotes => "single-quotes",
            Kind::SmartQuotes => "smart-quotes",
            Kind::UnquotedKey => "unquoted-key",
            Kind::UnquotedString => "unquoted-string",
            Kind::PythonLiteral => "python-literal",
            Kind::LiteralCase => "literal-case",
            Kind::Undefined => "undefined",
            Kind::NonFinite => "non-finite-number",
            Kind::Comment => "comment",
            Kind::UnescapedQuote => "unescaped-quote",
            Kind::ControlCharacter => "control-character",
            Kind::InvalidEscape => "invalid-escape",
            Kind::EscapedApostrophe => "escaped-apostrophe",
            Kind::WindowsPath => "windows-path",
            Kind::LoneSurrogate => "lone-surrogate",
            Kind::NumberFormat => "number-format",
            Kind::LeadingZeros => "leading-zeros",
            Kind::Truncated => "truncated",
            Kind::MissingBracket => "missing-bracket",
            Kind::ExtraBracket => "extra-bracket",
            Kind::Ellipsis => "ellipsis",
            Kind::DoubleEncoded => "double-encoded",
            Kind::StringToNumber => "string-to-number",
            Kind::StringToBoolean => "string-to-boolean",
            Kind::FloatToInteger => "float-to-integer",
            Kind::WrappedInArray => "wrapped-in-array",
            Kind::EnumCase => "enum-case",
            Kind::UnwrappedArguments => "unwrapped-arguments",
            Kind::More => "more-repairs",
        }
    }

    /// Fixes of style, not of data, are one note per document, counting the
    /// places and pointing at the first.
    fn grouped(self) -> bool {
        matches!(
            self,
            Kind::ByteOrderMark
                | Kind::TrailingComma
                | Kind::ExtraComma
                | Kind::SingleQuotes
                | Kind::SmartQuotes
                | Kind::UnquotedKey
                | Kind::PythonLiteral
                | Kind::LiteralCase
                | Kind::Comment
                | Kind::ControlCharacter
                | Kind::EscapedApostrophe
                | Kind::ExtraBracket
        )
    }

    /// The sentence of a grouped fix (or of one without its own message).
    fn sentence(self, count: usize) -> String {
        let (one, many) = match self {
            Kind::ByteOrderMark => (
                "a byte-order mark before the JSON was removed",
                "byte-order marks were removed",
            ),
            Kind::TrailingComma => (
                "a comma before a closing bracket was removed",
                "commas before closing brackets were removed",
            ),
            Kind::ExtraComma => ("a doubled comma was removed", "doubled commas were removed"),
            Kind::SingleQuotes => (
                "a string in single quotes was read as a JSON string",
                "strings in single quotes were read as JSON strings",
            ),
            Kind::SmartQuotes => (
                "a string in typographic quotes (“ ” ‘ ’) was read as a JSON string",
                "strings in typographic quotes (“ ” ‘ ’) were read as JSON strings",
            ),
            Kind::UnquotedKey => (
                "a key without quotes was read as a string",
                "keys without quotes were read as strings",
            ),
            Kind::PythonLiteral => (
                "a Python literal (True, False, None) was read as its JSON twin",
                "Python literals (True, False, None) were read as their JSON twins",
            ),
            Kind::LiteralCase => (
                "a literal in other letter case (TRUE, Null, none) was read as JSON",
                "literals in other letter case (TRUE, Null, none) were read as JSON",
            ),
            Kind::Comment => ("a comment was removed", "comments were removed"),
            Kind::ControlCharacter => (
                "a raw line break or tab inside a string was kept as part of the string",
                "raw line breaks or tabs inside strings were kept as part of the strings",
            ),
            Kind::EscapedApostrophe => ("\\' was read as an apostrophe", "\\' were read as apostrophes"),
            Kind::ExtraBracket => (
                "an extra closing bracket was removed",
                "extra closing brackets were removed",
            ),
            Kind::More => (
                "one more repair was made and is not listed",
                "more repairs were made and are not listed one by one",
            ),
            _ => ("the text was repaired", "the text was repaired"),
        };
        if count <= 1 {
            one.to_string()
        } else {
            format!("{count} {many}")
        }
    }
}

/// One fix, before it becomes a note.
#[derive(Clone, Debug)]
pub(super) struct Fix {
    kind: Kind,
    at: Pointer,
    /// Byte offset in the text, when the text is the caller's (not a decoded
    /// inner string).
    offset: Option<usize>,
    count: usize,
    message: Option<String>,
}

/// The fixes of one repair, in the order they were made.
#[derive(Clone, Debug, Default)]
pub(super) struct Fixes {
    list: Vec<Fix>,
    /// Where each grouped kind's note is in `list`.
    grouped: Vec<(Kind, usize)>,
    /// Fixes past [`MAX_LISTED`], not listed.
    more: usize,
    locate: bool,
}

impl Fixes {
    /// No fixes yet; `locate` says whether offsets refer to the caller's text.
    pub(super) fn new(locate: bool) -> Fixes {
        Fixes {
            locate,
            ..Fixes::default()
        }
    }

    /// True when offsets refer to the caller's text.
    pub(super) fn locate(&self) -> bool {
        self.locate
    }

    /// True when further fixes are only counted, not listed (their
    /// sentences need not be written).
    pub(super) fn full(&self) -> bool {
        self.list.len() >= MAX_LISTED
    }

    /// True when a fix of `kind` was made.
    pub(super) fn has(&self, kind: Kind) -> bool {
        self.list.iter().any(|fix| fix.kind == kind)
    }

    /// Counts one more place for a grouped kind already recorded, or one
    /// more fix past the listed ones; false when a new note is needed.
    pub(super) fn bump(&mut self, kind: Kind) -> bool {
        if kind.grouped() {
            if let Some(&(_, index)) = self.grouped.iter().find(|(grouped, _)| *grouped == kind) {
                if let Some(fix) = self.list.get_mut(index) {
                    fix.count += 1;
                    return true;
                }
            }
        }
        if self.list.len() >= MAX_LISTED {
            self.more += 1;
            return true;
        }
        false
    }

    /// Records a fix. `at` is only called when a new note is made (a grouped
    /// kind already recorded just counts one more place).
    pub(super) fn add(
        &mut self,
        kind: Kind,
        at: impl FnOnce() -> Pointer,
        offset: Option<usize>,
        message: Option<String>,
    ) {
        if self.bump(kind) {
            return;
        }
        let offset = offset.filter(|_| self.locate);
        self.push(Fix {
            kind,
            at: at(),
            offset,
            count: 1,
            message,
        });
    }

    fn push(&mut self, fix: Fix) {
        if fix.kind.grouped() {
            self.grouped.push((fix.kind, self.list.len()));
        }
        self.list.push(fix);
    }

    /// Appends the fixes of `other` (an inner repair), merging grouped kinds.
    pub(super) fn extend(&mut self, other: Fixes) {
        if self.list.is_empty() && self.more == 0 {
            // The common case: nothing here yet, so take the list as it is.
            let locate = self.locate;
            *self = other;
            self.locate = locate;
            return;
        }
        self.more += other.more;
        for fix in other.list {
            if fix.kind.grouped() {
                if let Some(&(_, index)) = self.grouped.iter().find(|(grouped, _)| *grouped == fix.kind) {
                    if let Some(mine) = self.list.get_mut(index) {
                        mine.count += fix.count;
                        continue;
                    }
                }
            }
            if self.list.len() >= MAX_LISTED {
                self.more += fix.count;
                continue;
            }
            self.push(fix);
        }
    }

    /// The fixes with places inside a decoded string: pointers below `at`, no
    /// text positions.
    pub(super) fn nested_at(mut self, at: &Pointer) -> Fixes {
        for fix in &mut self.list {
            fix.at = at.join(&fix.at);
            fix.offset = None;
        }
        self.locate = false;
        self
    }

    /// The notes, with line and column in `text` where known.
    pub(super) fn into_notes(mut self, text: &str) -> Vec<Note> {
        if self.more > 0 {
            self.list.push(Fix {
                kind: Kind::More,
                at: Pointer::root(),
                offset: None,
                count: self.more,
                message: None,
            });
        }
        let mut cursor = Cursor::default();
        self.list
            .into_iter()
            .map(|fix| {
                let mut message = fix.message.unwrap_or_else(|| fix.kind.sentence(fix.count));
                if let Some(offset) = fix.offset {
                    let (line, column) = cursor.locate(text, offset);
                    let first = if fix.count > 1 { "first at " } else { "" };
                    let _ = write!(message, " ({first}line {line}, column {column})");
                }
                Note::new(
                    NoteKind::Repaired {
                        fix: fix.kind.name().into(),
                    },
                    fix.at,
                    message,
                )
            })
            .collect()
    }
}

/// Turns byte offsets into 1-based lines and columns (in characters), moving
/// forward from the last offset asked for, so that locating every note of a
/// long one-line text stays linear.
#[derive(Default)]
struct Cursor {
    offset: usize,
    line: usize,
    line_start: usize,
}

impl Cursor {
    fn locate(&mut self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset);
        if offset < self.offset || self.line == 0 {
            *self = Cursor {
                offset: 0,
                line: 1,
                line_start: 0,
            };
        }
        let between = text.get(self.offset..offset).unwrap_or_default();
        for (at, byte) in between.bytes().enumerate() {
            if byte == b'\n' {
                self.line += 1;
                self.line_start = self.offset + at + 1;
            }
        }
        self.offset = offset;
        let column = text
            .get(self.line_start..offset)
            .unwrap_or_default()
            .chars()
            .count()
            + 1;
        (self.line, column)
    }
}

/// The 1-based line and column of byte `offset` in `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    Cursor::default().locate(text, offset)
}

fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// A value quoted in a sentence, cut to a readable length.
pub(super) fn excerpt(text: &str) -> String {
    const MAX: usize = 40;
    let mut out: String = text.chars().take(MAX).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        let text = "{\n  \"é\": 1,\n}";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 2), (2, 1));
        assert_eq!(line_column(text, text.find(',').unwrap()), (2, 9));
        assert_eq!(line_column(text, text.len()), (3, 2));
    }

    #[test]
    fn grouped_fixes_count_places() {
        let mut fixes = Fixes::new(true);
        fixes.add(Kind::TrailingComma, Pointer::root, Some(3), None);
        fixes.add(Kind::TrailingComma, || Pointer::root().key("a"), Some(9), None);
        let notes = fixes.into_notes("{\"a\":[1,],}");
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].to_string(),
            "change: 2 commas before closing brackets were removed (first at line 1, column 4) (at /)"
        );
    }

    #[test]
    fn fixes_past_the_listed_ones_are_counted() {
        let mut fixes = Fixes::new(false);
        for index in 0..MAX_LISTED + 10 {
            fixes.add(Kind::MissingComma, || Pointer::root().index(index), None, None);
            fixes.add(Kind::SingleQuotes, Pointer::root, None, None);
        }
        let notes = fixes.into_notes("");
        assert_eq!(notes.len(), MAX_LISTED + 1);
        assert_eq!(
            notes.last().map(ToString::to_string).as_deref(),
            Some("change: 11 more repairs were made and are not listed one by one (at /)")
        );
        assert_eq!(
            notes[1].to_string(),
            "change: 266 strings in single quotes were read as JSON strings (at /)"
        );
    }
}
