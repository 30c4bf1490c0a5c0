//! How large and how deep a call's arguments are, checked before anything
//! walks them (the validator and the renderers recurse).

use serde_json::{Map, Value};

use crate::limits::Limits;

/// Checks that `value` is at most `max_depth` deep and roughly `max_bytes`
/// long as compact JSON, without recursion. Scalars are counted where they
/// are met, so only nested objects and arrays wait on the stack (arguments
/// without any allocate nothing).
pub(super) fn within(value: &Value, limits: &Limits) -> std::result::Result<(), String> {
    if let Value::Object(map) = value {
        let mut size = Shallow::default();
        if map.iter().all(|(key, member)| size.add(key, member).is_some()) && size.fits(limits) {
            return Ok(());
        }
    }
    // The walk also says which limit a value breaks first.
    walk(value, limits)
}

/// [`within`] for any value: a walk with a stack of the objects and arrays
/// still to look into.
fn walk(value: &Value, limits: &Limits) -> std::result::Result<(), String> {
    let mut stack = Waiting::new(value);
    let mut next = Some((value, 1usize));
    let mut bytes = 0usize;
    while let Some((node, depth)) = next.take().or_else(|| stack.pop()) {
        if depth > limits.max_depth {
            return Err(too_deep(limits));
        }
        match node {
            Value::Object(map) => {
                bytes += 2;
                for (key, child) in map {
                    bytes += key.len() + 4 + member(child, depth, &mut stack, limits)?;
                }
            }
            Value::Array(items) => {
                bytes += items.len() + 2;
                for item in items {
                    bytes += member(item, depth, &mut stack, limits)?;
                }
            }
            scalar => bytes += scalar_bytes(scalar),
        }
        if bytes > limits.max_bytes {
            return Err(too_large(limits));
        }
    }
    Ok(())
}

/// The depth and size, as [`within`] counts them, of an object whose
/// members are scalars, or objects and arrays of scalars (most arguments),
/// added up a member at a time, for a caller that walks the members itself.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Shallow {
    /// The members' bytes.
    bytes: usize,
    /// Whether there is a member (a node at depth 2).
    members: bool,
    /// Whether a member holds a value (a node at depth 3).
    nested: bool,
}

impl Shallow {
    /// Adds the member `key: value`; `None` (and nothing added) when the
    /// member is an object or array holding an object or array.
    #[inline]
    pub(super) fn add(&mut self, key: &str, value: &Value) -> Option<()> {
        let bytes = match value {
            Value::Object(map) => self.object(map)?,
            Value::Array(items) => self.array(items)?,
            scalar => scalar_bytes(scalar),
        };
        self.members = true;
        self.bytes += key.len() + 4 + bytes;
        Some(())
    }

    /// The bytes of a member that is an object, if it holds only scalars.
    /// Kept out of line, as [`Shallow::array`]: most members are scalars,
    /// and their path stays short.
    #[inline(never)]
    fn object(&mut self, map: &Map<String, Value>) -> Option<usize> {
        let mut bytes = 2;
        for (key, member) in map {
            bytes += key.len() + 4 + scalar_only(member)?;
        }
        self.nested |= !map.is_empty();
        Some(bytes)
    }

    /// The bytes of a member that is an array, if it holds only scalars.
    #[inline(never)]
    fn array(&mut self, items: &[Value]) -> Option<usize> {
        let mut bytes = items.len() + 2;
        for item in items {
            bytes += scalar_only(item)?;
        }
        self.nested |= !items.is_empty();
        Some(bytes)
    }

    /// Whether the object is within `limits`, as [`within`] finds it.
    pub(super) fn fits(&self, limits: &Limits) -> bool {
        let depth = 1 + usize::from(self.members) + usize::from(self.nested);
        depth <= limits.max_depth && self.bytes + 2 <= limits.max_bytes
    }
}

/// A scalar's bytes as [`within`] counts them; `None` for an object or array.
fn scalar_only(value: &Value) -> Option<usize> {
    (!matches!(value, Value::Object(_) | Value::Array(_))).then(|| scalar_bytes(value))
}

/// A member of a node at `depth` for [`within`]: an object or array is
/// left on the stack (0 bytes so far), a scalar is counted.
fn member<'v>(
    value: &'v Value,
    depth: usize,
    stack: &mut Waiting<'v>,
    limits: &Limits,
) -> std::result::Result<usize, String> {
    if matches!(value, Value::Object(_) | Value::Array(_)) {
        stack.push((value, depth + 1));
        Ok(0)
    } else if depth + 1 > limits.max_depth {
        Err(too_deep(limits))
    } else {
        Ok(scalar_bytes(value))
    }
}

/// The nodes [`within`] has still to walk: the first few in place, the
/// rest in a `Vec` (arguments rarely nest more than a few objects or arrays
/// at once, and an allocation would cost more than the walk).
struct Waiting<'v> {
    inline: [(&'v Value, usize); 8],
    len: usize,
    spilled: Vec<(&'v Value, usize)>,
}

impl<'v> Waiting<'v> {
    /// An empty stack (`filler` only fills the unused slots).
    fn new(filler: &'v Value) -> Waiting<'v> {
        Waiting {
            inline: [(filler, 0); 8],
            len: 0,
            spilled: Vec::new(),
        }
    }

    fn push(&mut self, node: (&'v Value, usize)) {
        match self.inline.get_mut(self.len) {
            Some(slot) => {
                *slot = node;
                self.len += 1;
            }
            None => self.spilled.push(node),
        }
    }

    fn pop(&mut self) -> Option<(&'v Value, usize)> {
        self.spilled.pop().or_else(|| {
            self.len = self.len.checked_sub(1)?;
            Some(self.inline[self.len])
        })
    }
}

fn scalar_bytes(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len() + 2,
        _ => 8,
    }
}

fn too_deep(limits: &Limits) -> String {
    format!("nested deeper than {} levels", limits.max_depth)
}

fn too_large(limits: &Limits) -> String {
    format!("larger than {} bytes", limits.max_bytes)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::*;

    /// Scalars, and objects and arrays nested up to three deep.
    fn value() -> impl Strategy<Value = Value> {
        let scalar = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(Value::from),
            "[a-z]{0,12}".prop_map(Value::String),
        ];
        scalar.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[a-z]{0,4}", inner), 0..4)
                    .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        /// The count a member at a time says what the walk says.
        #[test]
        fn shallow_objects_fit_as_the_walk_finds(value in value(), depth in 0usize..5, bytes in 0usize..120) {
            let limits = Limits::default().with_max_depth(depth).with_max_bytes(bytes);
            prop_assert_eq!(within(&value, &limits), walk(&value, &limits));
            if let Value::Object(map) = &value {
                let mut size = Shallow::default();
                if map.iter().all(|(key, member)| size.add(key, member).is_some()) {
                    prop_assert_eq!(size.fits(&limits), walk(&value, &limits).is_ok());
                }
            }
        }
    }
}
