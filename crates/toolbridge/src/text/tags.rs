//! Finding markup tags in text: a tag searched through a whole response
//! ([`Finder`]), the next tag near a place ([`find_tag`]), and the first of
//! several tags in one pass, resumable where a tag could still be cut by the
//! end of a stream's text ([`scan_tags`]).

/// The next place of a tag at or after a position, cached so that the tag
/// is searched through the text once in all, however many times it is asked
/// for (a tag that is missing is not searched for again after each opening
/// tag: many unclosed tags stay linear).
pub(super) struct Finder<'t> {
    text: &'t str,
    /// `None` for a text short enough that setting a searcher up costs more
    /// than looking ([`SHORT_TEXT`]): [`find_tag`] looks instead.
    searcher: Option<memchr::memmem::Finder<'static>>,
    tag: &'static str,
    at: Option<usize>,
}

/// Texts up to this long are searched without a [`Finder`]'s searcher (a
/// region a stream hands to its parser: a section token alone, a call).
/// A searcher set up per tag for each call of a few hundred bytes cost
/// more than the look (2048 rather than 256: Harmony's stream at 16-byte
/// pushes 5.23× → 5.08× the floor, DeepSeek's 5.58× → 5.42×).
const SHORT_TEXT: usize = 2048;

impl<'t> Finder<'t> {
    /// A finder of `tag` in `text`.
    pub fn new(text: &'t str, tag: &'static str) -> Finder<'t> {
        let mut finder = Finder {
            text,
            searcher: (text.len() > SHORT_TEXT).then(|| memchr::memmem::Finder::new(tag)),
            tag,
            at: None,
        };
        finder.at = finder.find(0);
        finder
    }

    /// The first place of the tag at or after `from`.
    pub fn from(&mut self, from: usize) -> Option<usize> {
        if let Some(at) = self.at {
            if at < from {
                self.at = self.find(from);
            }
        }
        self.at
    }

    fn find(&self, from: usize) -> Option<usize> {
        let rest = self.text.get(from..)?;
        let found = match &self.searcher {
            Some(searcher) => searcher.find(rest.as_bytes()),
            None => find_tag(rest, self.tag),
        };
        found.map(|found| found + from)
    }
}

/// `text.find(tag)` for a tag of markup inside one call's body, where the
/// next tag is near (a call's next parameter, a value's end tag): the
/// tag's first byte is looked for, then the rest compared. `str::find` sets
/// up a substring searcher on every call, which costs more than such a
/// search; over a whole response, where the next tag may be far, its
/// searcher (which skips ahead by the tag's length) is faster, so
/// [`Finder`] keeps it. Linear: each place is compared with at most the
/// tag's length.
pub(super) fn find_tag(text: &str, tag: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let Some((&first, rest)) = tag.as_bytes().split_first() else {
        return Some(0);
    };
    let mut from = 0;
    while let Some(offset) = memchr::memchr(first, &bytes[from..]) {
        let at = from + offset;
        if bytes[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The largest char boundary of `text` at or before `at`.
pub(in crate::text) fn floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A set of bytes, a bit each.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::text) struct ByteSet([u64; 4]);

impl ByteSet {
    /// No byte.
    const EMPTY: ByteSet = ByteSet([0; 4]);

    /// Whether the set holds `byte`.
    #[inline]
    pub const fn contains(&self, byte: u8) -> bool {
        self.0[(byte >> 6) as usize] & (1 << (byte & 63)) != 0
    }

    /// The set with `byte` added.
    const fn with(mut self, byte: u8) -> ByteSet {
        self.0[(byte >> 6) as usize] |= 1 << (byte & 63);
        self
    }

    /// The bytes of both sets.
    const fn or(self, other: ByteSet) -> ByteSet {
        let (a, b) = (self.0, other.0);
        ByteSet([a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]])
    }
}

/// The set of bytes tags start with.
#[derive(Clone, Copy, Debug)]
pub(in crate::text) struct FirstBytes {
    /// The bytes.
    set: ByteSet,
    /// The first [`FirstBytes::FEW`] bytes added, in order, so that a long
    /// text is searched for a set this small with `memchr` (most sets are
    /// `<` alone, or `<` and `[`).
    few: [u8; FirstBytes::FEW],
    /// How many bytes the set holds, up to `FEW + 1` (more than `few`
    /// lists).
    count: u8,
}

impl FirstBytes {
    /// No byte.
    pub const NONE: FirstBytes = FirstBytes {
        set: ByteSet::EMPTY,
        few: [0; FirstBytes::FEW],
        count: 0,
    };

    /// How many bytes `few` lists.
    const FEW: usize = 3;

    /// Texts from this long are searched with `memchr` (below, setting the
    /// search up costs more than a look at each byte).
    const SEARCHED: usize = 16;

    /// The set with `byte` added (usable in a `const`).
    const fn with(mut self, byte: u8) -> FirstBytes {
        if self.set.contains(byte) {
            return self;
        }
        self.set = self.set.with(byte);
        if (self.count as usize) < FirstBytes::FEW {
            self.few[self.count as usize] = byte;
        }
        if (self.count as usize) <= FirstBytes::FEW {
            self.count += 1;
        }
        self
    }

    /// The first bytes of `tags` (usable in a `const`).
    pub const fn of_list(tags: &[&str]) -> FirstBytes {
        let mut set = FirstBytes::NONE;
        let mut i = 0;
        while i < tags.len() {
            if let Some(&first) = tags[i].as_bytes().first() {
                set = set.with(first);
            }
            i += 1;
        }
        set
    }

    /// The first bytes of `tags`.
    pub fn of<I: Iterator<Item = T>, T: AsRef<str>>(tags: I) -> FirstBytes {
        let mut set = FirstBytes::NONE;
        for tag in tags {
            if let Some(&first) = tag.as_ref().as_bytes().first() {
                set = set.with(first);
            }
        }
        set
    }

    /// The set of `bytes` (usable in a `const`).
    pub const fn of_bytes(bytes: &[u8]) -> FirstBytes {
        let mut set = FirstBytes::NONE;
        let mut i = 0;
        while i < bytes.len() {
            set = set.with(bytes[i]);
            i += 1;
        }
        set
    }

    /// The bytes of both sets.
    pub const fn and(self, other: FirstBytes) -> FirstBytes {
        if other.count as usize > FirstBytes::FEW {
            return FirstBytes {
                set: self.set.or(other.set),
                few: self.few,
                count: FirstBytes::FEW as u8 + 1,
            };
        }
        let mut set = self;
        let mut i = 0;
        while i < other.count as usize {
            set = set.with(other.few[i]);
            i += 1;
        }
        set
    }

    /// Whether `byte` is in the set.
    pub fn contains(&self, byte: u8) -> bool {
        self.set.contains(byte)
    }

    /// The bytes of `self` and `other`, and `extra`, as a set that is
    /// only asked whether it holds a byte: for a loop that looks at each
    /// byte of a piece once, with one look instead of one per set.
    #[inline]
    pub fn union(&self, other: &FirstBytes, extra: &[u8]) -> ByteSet {
        extra
            .iter()
            .fold(self.set.or(other.set), |set, &byte| set.with(byte))
    }

    /// Where the first byte of `bytes` in the set is.
    #[inline]
    pub fn position_in(&self, bytes: &[u8]) -> Option<usize> {
        if bytes.len() < FirstBytes::SEARCHED {
            return bytes.iter().position(|&byte| self.contains(byte));
        }
        self.search(bytes)
    }

    /// [`position_in`](FirstBytes::position_in) for a long text: with
    /// `memchr` when the set is small.
    fn search(&self, bytes: &[u8]) -> Option<usize> {
        match (self.count, self.few) {
            (0, _) => None,
            (1, [a, ..]) => memchr::memchr(a, bytes),
            (2, [a, b, _]) => memchr::memchr2(a, b, bytes),
            (3, [a, b, c]) => memchr::memchr3(a, b, c, bytes),
            _ => bytes.iter().position(|&byte| self.contains(byte)),
        }
    }
}

/// The first of `tags` in `text` at or after `from`: its position and
/// which tag (the first listed when two start at the same place).
///
/// One pass over the bytes for all the tags: a stream calls this on every
/// push, and building a substring searcher per tag per push cost more
/// than the text it looked at (tags are short, the text new since the
/// last look is a few bytes).
pub(in crate::text) fn first_of<I>(text: &str, from: usize, tags: I) -> Option<(usize, usize)>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
    I::IntoIter: Clone,
{
    let tags = tags.into_iter();
    let starts = FirstBytes::of(tags.clone());
    let bytes = text.as_bytes();
    // A tag starts with a whole character, so it can only match at a char
    // boundary: no boundary check is needed.
    (floor(text, from)..bytes.len())
        .filter(|&at| starts.contains(bytes[at]))
        .find_map(|at| {
            let rest = &bytes[at..];
            let which = tags
                .clone()
                .position(|tag| tag_at(rest, tag.as_ref().as_bytes()) == TagAt::Whole)?;
            Some((at, which))
        })
}

/// Where a block whose body starts at `from` ends, as the first of
/// `tags` after it says ([`block_end`]).
pub(in crate::text) struct BlockEnd {
    /// Where its body ends.
    pub body: usize,
    /// Where the block ends: after its closing token, or where the next
    /// block starts (or the text ends) when that token is missing.
    pub end: usize,
    pub closed: bool,
}

/// Where a block whose body starts at `from` ends: at the first of `tags`
/// after it, those from `closes` on closing it (the block ends after
/// them), the others starting the next block (it ends before them); at
/// the text's end when none comes.
pub(in crate::text) fn block_end(text: &str, from: usize, tags: &[&str], closes: usize) -> BlockEnd {
    match scan_tags(text, from, tags) {
        Ok((at, which)) if which >= closes => BlockEnd {
            body: at,
            end: at + tags[which].len(),
            closed: true,
        },
        Ok((at, _)) => BlockEnd {
            body: at,
            end: at,
            closed: false,
        },
        Err(_) => BlockEnd {
            body: text.len(),
            end: text.len(),
            closed: false,
        },
    }
}

/// The first of `tags` at or after `from` (`from` a char boundary):
/// `Ok((at, which))`, the first listed when two start at one place; or
/// `Err(resume)`, the earliest place at or after `from` where one of them
/// could still start once more text comes (the text's length when none
/// can) — where the next look at the grown text starts, so that no byte is
/// looked at again and again.
pub(in crate::text) fn scan_tags(text: &str, from: usize, tags: &[&str]) -> Result<(usize, usize), usize> {
    scan_tags_with(text, from, tags, FirstBytes::of_list(tags))
}

/// [`scan_tags`] with the first bytes of `tags` worked out beforehand.
#[inline]
pub(in crate::text) fn scan_tags_with(
    text: &str,
    from: usize,
    tags: &[&str],
    starts: FirstBytes,
) -> Result<(usize, usize), usize> {
    scan_tags_noting_cut(text, from, tags, starts).map_err(|(resume, _)| resume)
}

/// What a text's start is to some of a list of tags ([`start_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::text) enum StartOf {
    /// The tag at this index, whole (the first listed of those there).
    Whole(usize),
    /// The start of these tags (a bit per index), cut by the text's end.
    Cut(u32),
    /// None of them.
    No,
}

/// What the start of `text` is to those of `tags` whose bit is set in
/// `among` (bit `i` for `tags[i]`; at most 32 tags): for a scan that looks
/// again at a place where some tags were cut by the end of the text, with
/// only those.
pub(in crate::text) fn start_of(text: &str, tags: &[&str], among: u32) -> StartOf {
    let mut cut = 0;
    let mut left = among;
    while left != 0 {
        let which = left.trailing_zeros() as usize;
        left &= left - 1;
        let Some(tag) = tags.get(which) else {
            break;
        };
        match tag_at(text.as_bytes(), tag.as_bytes()) {
            TagAt::Whole => return StartOf::Whole(which),
            TagAt::Cut => cut |= 1 << which,
            TagAt::No => {}
        }
    }
    match cut {
        0 => StartOf::No,
        cut => StartOf::Cut(cut),
    }
}

/// [`scan_tags_with`], and where none is whole, which tags the text is the
/// start of where one may start (a bit per index; the first 32 tags only).
pub(in crate::text) fn scan_tags_noting_cut(
    text: &str,
    from: usize,
    tags: &[&str],
    starts: FirstBytes,
) -> Result<(usize, usize), (usize, u32)> {
    let bytes = text.as_bytes();
    let mut resume: Option<(usize, u32)> = None;
    let mut at = from;
    while let Some(skip) = bytes.get(at..).and_then(|rest| starts.position_in(rest)) {
        at += skip;
        let rest = &bytes[at..];
        for (which, tag) in tags.iter().enumerate() {
            match tag_at(rest, tag.as_bytes()) {
                TagAt::Whole => return Ok((at, which)),
                TagAt::Cut => {
                    let bit = if which < 32 { 1 << which } else { 0 };
                    match &mut resume {
                        None => resume = Some((at, bit)),
                        Some((first, cut)) if *first == at => *cut |= bit,
                        Some(_) => {}
                    }
                }
                TagAt::No => {}
            }
        }
        at += 1;
    }
    Err(resume.unwrap_or((bytes.len(), 0)))
}

/// Whether one of `tags` (starting with `starts`) starts in `text`, whole
/// or cut by its end: [`scan_tags_with`] from 0 not answering
/// `Err(text.len())`, in a form cheap enough to ask of every piece a stream
/// gets (a token or a few bytes; most of the places it stops at differ
/// from every tag in their first two bytes).
#[inline]
pub(in crate::text) fn holds_tag(text: &str, tags: &[&str], starts: FirstBytes) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(at, &byte)| {
        starts.contains(byte)
            && tags
                .iter()
                .any(|tag| tag_at(&bytes[at..], tag.as_bytes()) != TagAt::No)
    })
}

/// What `rest` (the text from a place on) holds of `tag` there.
#[derive(PartialEq)]
enum TagAt {
    /// The whole tag.
    Whole,
    /// Its start, cut by the end of the text.
    Cut,
    /// Not the tag (an empty tag is never found).
    No,
}

/// [`TagAt`] for `tag` at the start of `rest`. Most places a scan stops at
/// share the tag's first byte only: the first two bytes are compared in
/// place before the rest is (any more work here is paid at every place a
/// stream's scan stops: comparing the first word too made the typed
/// families' streams 2–3 % dearer).
#[inline]
fn tag_at(rest: &[u8], tag: &[u8]) -> TagAt {
    let (Some(&first), Some(&head)) = (tag.first(), rest.first()) else {
        return TagAt::No;
    };
    if first != head {
        return TagAt::No;
    }
    if let (Some(second), Some(next)) = (tag.get(1), rest.get(1)) {
        if second != next {
            return TagAt::No;
        }
    }
    if rest.starts_with(tag) {
        TagAt::Whole
    } else if rest.len() < tag.len() && tag.starts_with(rest) {
        TagAt::Cut
    } else {
        TagAt::No
    }
}

/// How many bytes at the end of `text` could be the start of one of
/// `tags` (the longest such end): text to hold back until the next piece
/// says whether a tag is there.
pub(in crate::text) fn held_suffix<I>(text: &str, tags: I) -> usize
where
    I: IntoIterator,
    I::Item: AsRef<str>,
    I::IntoIter: Clone,
{
    let tags = tags.into_iter();
    let longest = tags.clone().map(|tag| tag.as_ref().len()).max().unwrap_or(0);
    let starts = FirstBytes::of(tags.clone());
    let bytes = text.as_bytes();
    let from = bytes.len() - longest.saturating_sub(1).min(bytes.len());
    (from..bytes.len())
        .find(|&at| {
            let rest = &bytes[at..];
            starts.contains(bytes[at])
                && tags
                    .clone()
                    .any(|tag| tag_at(rest, tag.as_ref().as_bytes()) == TagAt::Cut)
        })
        .map_or(0, |at| bytes.len() - at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set finds exactly the bytes it holds, searched byte by byte or
    /// with `memchr`, however it was built.
    #[test]
    fn first_bytes_find_what_they_hold() {
        let sets = [
            FirstBytes::NONE,
            FirstBytes::of_bytes(b"<"),
            FirstBytes::of_bytes(b"<<["),
            FirstBytes::of_bytes(b"\"{}[]"),
            FirstBytes::of_list(&["<a", "[b", "<c", "|d"]),
            FirstBytes::of(["é", "x"].iter()),
            FirstBytes::of_bytes(b"<").and(FirstBytes::of_bytes(b"[<")),
            FirstBytes::of_bytes(b"ab").and(FirstBytes::of_bytes(b"cdef")),
            FirstBytes::of_bytes(b"abcd").and(FirstBytes::of_bytes(b"e")),
        ];
        let members: [&[u8]; 9] = [
            b"",
            b"<",
            b"<[",
            b"\"{}[]",
            b"<[|",
            &[0xC3, b'x'],
            b"<[",
            b"abcdef",
            b"abcde",
        ];
        let text: Vec<u8> = (0..=255u8).chain(0..=255u8).collect();
        for (set, members) in sets.iter().zip(members) {
            for byte in 0..=255u8 {
                assert_eq!(set.contains(byte), members.contains(&byte), "{set:?} {byte}");
            }
            for from in [0, 1, 30, 60, 91, 200, 250, 300, 500] {
                let rest = &text[from.min(text.len())..];
                for len in [0, 3, 15, 16, 40, rest.len()] {
                    let bytes = &rest[..len.min(rest.len())];
                    let expected = bytes.iter().position(|byte| members.contains(byte));
                    assert_eq!(set.position_in(bytes), expected, "{set:?} from {from} len {len}");
                }
            }
        }
    }

    #[test]
    fn holds_tag_is_a_scan_that_stops() {
        let tag_lists: [&[&str]; 3] = [
            &[
                "<think>",
                "[THINK]",
                "<|START_THINKING|>",
                "</think>",
                "[/THINK]",
                "<|END_THINKING|>",
            ],
            &["</parameter>", "<parameter="],
            &["<", "<<"],
        ];
        let texts = [
            "",
            "<",
            "[",
            "<t",
            "</",
            "</t",
            "<p",
            "</p",
            "[T",
            "[/",
            "[/T",
            "[x",
            "a<b",
            "x<think>y",
            "x<think",
            "<|",
            "<|S",
            "<|E",
            "<|X",
            "</parameter",
            "é<",
            "<é",
            "[THINK] ",
            "]<]",
            "<<",
        ];
        for tags in tag_lists {
            let starts = FirstBytes::of_list(tags);
            for text in texts {
                let scan = scan_tags_with(text, 0, tags, starts);
                assert_eq!(
                    holds_tag(text, tags, starts),
                    scan != Err(text.len()),
                    "{text:?} {tags:?}"
                );
            }
        }
    }

    #[test]
    fn find_tag_is_str_find() {
        let long = format!("{}<parameter=x", "<param".repeat(100));
        let straddling = format!("{}<parameter=", "x".repeat(250));
        let wide = format!("{}<p>", "é".repeat(200));
        let texts = [
            "",
            "<",
            "<<parameter=",
            "a<parameter=b<parameter=c",
            "<paramete",
            "é<p>ü<p>",
            "<<<",
            &long,
            &straddling,
            &wide,
        ];
        for text in texts {
            for tag in ["", "<", "<parameter=", "<p>", "ü<", "<<"] {
                assert_eq!(find_tag(text, tag), text.find(tag), "{text:?} {tag:?}");
            }
        }
    }
}
