//! The `rust_tools` example's output, exactly: three `#[tool]` definitions
//! for OpenAI, Anthropic and Gemini, and a captured response of each
//! provider dispatched end to end.

#[allow(dead_code)]
#[path = "../examples/rust_tools.rs"]
mod rust_tools;

#[tokio::test]
async fn the_rust_tools_example_prints_definitions_and_result_messages() {
    insta::assert_snapshot!(rust_tools::transcript().await);
}
