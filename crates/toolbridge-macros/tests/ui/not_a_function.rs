use toolbridge_macros::tool;

/// Not a function.
#[tool]
struct Weather;

fn main() {}
