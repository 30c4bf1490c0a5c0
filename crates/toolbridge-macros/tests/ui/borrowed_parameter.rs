use toolbridge_macros::tool;

/// Greets.
#[tool]
fn greet(name: &str) -> String {
    format!("Hello, {name}")
}

fn main() {}
