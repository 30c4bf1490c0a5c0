use toolbridge_macros::tool;

/// Pings.
#[tool(read_only = "yes")]
fn ping() -> String {
    "pong".into()
}

fn main() {}
