//! How large and how deep a call's arguments are, checked before anything
//! walks them (the validator and the renderers recurse).

use serde_json::Value;

use crate::limits::Limits;

/// Checks that `value` is at most `max_depth` deep and roughly `max_bytes`
/// long as compact JSON, without recursion. Scalars are counted where they
/// are met, so only nested objects and arrays wait on the stack (arguments
/// without any allocate nothing).
pub(super) fn within(value: &Value, limits: &Limits) -> std::result::Result<(), String> {
    if let Some((depth, bytes)) = flat(value) {
        return if depth > limits.max_depth {
            Err(too_deep(limits))
        } else if bytes > limits.max_bytes {
            Err(too_large(limits))
        } else {
            Ok(())
        };
    }
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

/// The depth and size of an object holding only scalars (most arguments),
/// counted as [`within`] counts them in one look at its members; `None`
/// for anything else.
fn flat(value: &Value) -> Option<(usize, usize)> {
    let Value::Object(map) = value else {
        return None;
    };
    let mut bytes = 0;
    for (key, member) in map {
        bytes += flat_member(key, member)?;
    }
    Some(flat_size(map.len(), bytes))
}

/// The depth and size, as [`within`] counts them, of an object of
/// `members` scalars whose members add `bytes` (from [`flat_member`]).
fn flat_size(members: usize, bytes: usize) -> (usize, usize) {
    (if members == 0 { 1 } else { 2 }, bytes + 2)
}

/// What a scalar member `key: value` of an object adds to its size as
/// [`within`] counts it; `None` for an object or array (for a caller that
/// walks a flat object's members itself).
#[inline]
pub(super) fn flat_member(key: &str, value: &Value) -> Option<usize> {
    if matches!(value, Value::Object(_) | Value::Array(_)) {
        return None;
    }
    Some(key.len() + 4 + scalar_bytes(value))
}

/// Whether an object of scalars whose members added `bytes` (from
/// [`flat_member`]) is within `limits`, as [`within`] would find it.
pub(super) fn flat_within(members: usize, bytes: usize, limits: &Limits) -> bool {
    let (depth, bytes) = flat_size(members, bytes);
    depth <= limits.max_depth && bytes <= limits.max_bytes
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
