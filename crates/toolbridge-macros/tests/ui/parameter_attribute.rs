use toolbridge_macros::tool;

/// Pings.
#[tool]
fn ping(#[allow(unused)] times: u32) -> u32 {
    times
}

fn main() {}
