//! Misuse of `#[tool]` fails to compile, with the error at the offending
//! span (the `.stderr` files next to each case).

#[test]
fn misuse_is_refused_at_its_span() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
