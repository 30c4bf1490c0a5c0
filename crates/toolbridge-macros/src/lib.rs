//! `#[tool]`: a Rust function becomes a toolbridge tool definition and a handler.
//!
//! Use it through `toolbridge_runtime::tool`; the generated code names only
//! `::toolbridge_runtime`, so that crate is the one dependency a user needs.
//! The attribute is documented there, with examples.

mod args;
mod expand;
mod params;
mod returns;

use proc_macro::TokenStream;

/// Makes a tool of a function: a definition the model sees and a handler
/// that runs the function.
///
/// ```ignore
/// use toolbridge_runtime::tool;
///
/// /// Current weather for a city.
/// #[tool(read_only, idempotent, title = "Weather")]
/// async fn get_weather(
///     /// The city, such as "Paris".
///     city: String,
///     /// The unit; Celsius when absent.
///     unit: Option<Unit>,
/// ) -> Result<Weather, String> { /* … */ }
///
/// let definition: toolbridge::Tool = get_weather::tool();
/// registry.add(get_weather::handler())?;
/// ```
///
/// - **name**: the function's (`r#` removed), or `name = "…"`.
/// - **description**: the function's doc comment.
/// - **parameters**: one argument per parameter, named as it is. Its doc
///   comment is its description: the compiler refuses doc comments on
///   parameters only after attribute macros ran, so `#[tool]` moves them
///   (as llm-tool's `#[llm_tool]` does; rmcp's `#[tool]` instead takes one
///   `Parameters<T>` struct whose field docs describe the arguments).
///   `#[serde(…)]` and `#[schemars(…)]` on a parameter apply to it
///   (`#[serde(rename = "dryRun", default)]`, `#[schemars(range(max = 23))]`).
///   The types give the JSON Schema through schemars 1 (2020-12):
///   `Option<T>` is optional, an enum of unit variants is an `enum` (a
///   `oneOf` of `const`s keeping each description when its variants have
///   doc comments), a struct is an object under `$defs`; an argument the function does not
///   take is refused (`additionalProperties: false`).
/// - **annotations and behaviour**: `title = "…"`, `category = "…"`, and
///   the flags `read_only`, `destructive`, `idempotent`, `open_world`
///   (MCP hints) and `confirm` (ask before running), each also as
///   `flag = true|false`.
/// - **return**: `Output` as it is; `String`, `&str` or `Cow<str>` as text;
///   `Result<T, E>` with `Err` as an error result (its `Display`); any
///   other `Serialize` value as JSON text with the value as structured
///   content (a string value as text alone).
///
/// It generates, beside the function (which stays callable as written), a
/// braced struct of the same name with `NAME`, `tool()` (the canonical
/// `toolbridge::Tool`) and `handler()` (a `RustTool` for a `Registry`).
/// Arguments that do not deserialise into the parameters give an error
/// result, never a panic. Refused at compile time, at the offending span:
/// `self` receivers, generic or `unsafe` functions, parameters that are not
/// plain names or that borrow (`&str`), other parameter attributes, and
/// unknown or ill-typed attribute arguments.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match syn::parse_macro_input!(item as syn::Item) {
        syn::Item::Fn(function) => function,
        other => {
            return syn::Error::new_spanned(other, "`#[tool]` goes on a function")
                .to_compile_error()
                .into()
        }
    };
    match expand::expand(attr.into(), item) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}
