use toolbridge_macros::tool;

struct Counter;

impl Counter {
    /// Counts.
    #[tool]
    fn count(&self, by: u32) -> u32 {
        by
    }
}

fn main() {}
