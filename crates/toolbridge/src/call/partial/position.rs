//! Where the input is, for the line and column of an error, without
//! keeping the text; and the start of a UTF-8 sequence cut by a delta.

/// Where the input is: enough to give the line and column of an error
/// without keeping the text.
#[derive(Clone, Debug)]
pub(super) struct Position {
    /// Bytes read before the current delta.
    pub(super) offset: usize,
    /// The current line, 1-based.
    line: usize,
    /// The byte offset where the current line starts.
    line_start: usize,
    /// Characters of the current line before the current delta (when the
    /// line started before it).
    columns_before: usize,
}

impl Default for Position {
    fn default() -> Position {
        Position {
            offset: 0,
            line: 1,
            line_start: 0,
            columns_before: 0,
        }
    }
}

impl Position {
    /// Records a line feed at `index` in the current delta.
    pub(super) fn line_feed(&mut self, index: usize) {
        self.line += 1;
        self.line_start = self.offset + index + 1;
    }

    /// The line and column of byte `index` of the current delta `text`.
    pub(super) fn locate(&self, text: &str, index: usize) -> (usize, usize) {
        let before = text.as_bytes().get(..index).unwrap_or(text.as_bytes());
        let column = if self.line_start >= self.offset {
            count_chars(before.get(self.line_start - self.offset..).unwrap_or_default())
        } else {
            self.columns_before + count_chars(before)
        };
        (self.line, column + 1)
    }

    /// Moves past the current delta `text`.
    #[inline]
    pub(super) fn advance(&mut self, text: &str) {
        let bytes = text.as_bytes();
        if self.line_start >= self.offset {
            self.columns_before = count_chars(bytes.get(self.line_start - self.offset..).unwrap_or_default());
        } else {
            self.columns_before += count_chars(bytes);
        }
        self.offset += bytes.len();
    }
}

/// The characters in UTF-8 `bytes`: those that do not continue a sequence.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&byte| byte & 0xC0 != 0x80).count()
}

/// The start of a UTF-8 sequence cut by the end of a delta.
#[derive(Clone, Debug, Default)]
pub(super) struct Carry {
    pub(super) bytes: [u8; 4],
    pub(super) len: usize,
}

/// The byte length of the UTF-8 sequence that `lead` starts.
pub(super) fn utf8_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}
