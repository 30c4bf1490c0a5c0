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

/// Makes a tool of a function: see `toolbridge_runtime::tool` for the
/// attribute arguments and what is generated.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(item as syn::ItemFn);
    match expand::expand(attr.into(), item) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}
