use toolbridge_macros::tool;

/// Pings.
#[tool(read_only, dangerous)]
fn ping() -> String {
    "pong".into()
}

fn main() {}
