use toolbridge_macros::tool;

/// Echoes.
#[tool]
fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
