//! JSON Pointers (RFC 6901) naming places in a document.

use std::fmt;
use std::sync::Arc;

/// A JSON Pointer such as `/inputSchema/properties/unit`, already escaped.
///
/// Every [`Error`](crate::Error) and [`Note`](crate::Note) carries one, so that a
/// message can say *where* a problem is. The empty pointer names the whole
/// document. Pointers are cheap to clone.
#[derive(Clone, Eq, PartialOrd, Ord, Default)]
pub struct Pointer(Arc<str>);

impl std::hash::Hash for Pointer {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialEq for Pointer {
    /// Equal text; a clone is equal at once (a stream compares the place it
    /// last changed with the current one at every piece).
    #[inline]
    fn eq(&self, other: &Pointer) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Pointer {
    /// The pointer to the whole document (`""`).
    pub fn root() -> Pointer {
        Pointer::default()
    }

    /// Parses an already escaped pointer such as `/a/b~1c`.
    ///
    /// Returns `None` unless the text is empty or starts with `/`.
    pub fn parse(text: &str) -> Option<Pointer> {
        (text.is_empty() || text.starts_with('/')).then(|| Pointer(Arc::from(text)))
    }

    /// The pointer one level down, at object key `key` (escaped here).
    pub fn key(&self, key: &str) -> Pointer {
        with_buffer(|text| {
            text.push_str(&self.0);
            text.push('/');
            if key.bytes().any(|byte| byte == b'~' || byte == b'/') {
                for c in key.chars() {
                    match c {
                        '~' => text.push_str("~0"),
                        '/' => text.push_str("~1"),
                        c => text.push(c),
                    }
                }
            } else {
                text.push_str(key);
            }
        })
    }

    /// The pointer one level down, at array index `index`.
    pub fn index(&self, index: usize) -> Pointer {
        with_buffer(|text| {
            use std::fmt::Write as _;
            text.push_str(&self.0);
            let _ = write!(text, "/{index}");
        })
    }

    /// Appends another pointer (relative to this one).
    pub fn join(&self, rest: &Pointer) -> Pointer {
        if rest.0.is_empty() {
            return self.clone();
        }
        Pointer(Arc::from(format!("{}{}", self.0, rest.0)))
    }

    /// The escaped text of the pointer.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True for the pointer to the whole document.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// True if `self` is `other` or a place inside it.
    pub fn starts_with(&self, other: &Pointer) -> bool {
        self.0.starts_with(&*other.0)
            && (self.0.len() == other.0.len() || self.0.as_bytes()[other.0.len()] == b'/')
    }

    /// The unescaped reference tokens, borrowed where nothing was escaped.
    pub(crate) fn steps(&self) -> impl Iterator<Item = std::borrow::Cow<'_, str>> + '_ {
        self.0.split('/').skip(1).map(|token| {
            if token.contains('~') {
                std::borrow::Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
            } else {
                std::borrow::Cow::Borrowed(token)
            }
        })
    }

    /// The unescaped reference tokens of the pointer.
    pub fn tokens(&self) -> impl Iterator<Item = String> + '_ {
        self.0
            .split('/')
            .skip(1)
            .map(|token| token.replace("~1", "/").replace("~0", "~"))
    }
}

/// A pointer built in a reused per-thread buffer, so that making one costs
/// the one allocation of its `Arc<str>` (not a `String` and then a copy):
/// the schema walks make a pointer per node.
fn with_buffer(build: impl FnOnce(&mut String)) -> Pointer {
    thread_local! {
        static BUFFER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    BUFFER.with(|buffer| match buffer.try_borrow_mut() {
        Ok(mut text) => {
            text.clear();
            build(&mut text);
            let pointer = Pointer(Arc::from(text.as_str()));
            if text.capacity() > 4096 {
                *text = String::new();
            }
            pointer
        }
        Err(_) => {
            let mut text = String::new();
            build(&mut text);
            Pointer(Arc::from(text))
        }
    })
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("/")
        } else {
            f.write_str(&self.0)
        }
    }
}

impl fmt::Debug for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pointer({:?})", &*self.0)
    }
}

impl serde::Serialize for Pointer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_keys_and_unescapes_tokens() {
        let pointer = Pointer::root().key("a/b").key("c~d").index(3);
        assert_eq!(pointer.as_str(), "/a~1b/c~0d/3");
        assert_eq!(pointer.tokens().collect::<Vec<_>>(), ["a/b", "c~d", "3"]);
    }

    #[test]
    fn prefix_test_respects_token_boundaries() {
        let a = Pointer::parse("/properties/ab").unwrap();
        assert!(a.starts_with(&Pointer::parse("/properties").unwrap()));
        assert!(a.starts_with(&Pointer::root()));
        assert!(!a.starts_with(&Pointer::parse("/properties/a").unwrap()));
    }

    #[test]
    fn root_displays_as_slash() {
        assert_eq!(Pointer::root().to_string(), "/");
        assert_eq!(Pointer::parse("x"), None);
    }
}
