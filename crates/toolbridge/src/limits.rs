//! Bounds on untrusted input.

/// How large, deep and expansive an input may be before it is refused with
/// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded).
///
/// Every reader and the schema lowering take these; the defaults suit tool
/// definitions seen in practice with a wide margin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest input in bytes (default 16 MiB).
    pub max_bytes: usize,
    /// Deepest nesting of arrays, objects or lists (default 128).
    pub max_depth: usize,
    /// Most schema nodes that inlining `$ref`s may create for one tool
    /// (default 10,000). Guards against `$ref` fan-out ("billion laughs").
    pub max_ref_expansion: usize,
    /// Most tools in one document (default 10,000).
    pub max_tools: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bytes: 16 * 1024 * 1024,
            max_depth: 128,
            max_ref_expansion: 10_000,
            max_tools: 10_000,
        }
    }
}

impl Limits {
    /// Sets [`max_bytes`](Limits::max_bytes).
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Limits {
        self.max_bytes = max_bytes;
        self
    }

    /// Sets [`max_depth`](Limits::max_depth).
    pub fn with_max_depth(mut self, max_depth: usize) -> Limits {
        self.max_depth = max_depth;
        self
    }

    /// Sets [`max_ref_expansion`](Limits::max_ref_expansion).
    pub fn with_max_ref_expansion(mut self, max_ref_expansion: usize) -> Limits {
        self.max_ref_expansion = max_ref_expansion;
        self
    }

    /// Sets [`max_tools`](Limits::max_tools).
    pub fn with_max_tools(mut self, max_tools: usize) -> Limits {
        self.max_tools = max_tools;
        self
    }
}
