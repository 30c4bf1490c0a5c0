//! What `#[tool]` expands to: the function unchanged (parameter attributes
//! moved off it), a braced struct of the same name (type namespace only, so
//! it sits beside the function) whose `tool()` and `handler()` give the
//! definition and the handler, and a private arguments struct deriving
//! `Deserialize` and `JsonSchema`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, ExprLit, ItemFn, Lit, Meta};

use crate::args::ToolArgs;
use crate::params::params;
use crate::returns::Returns;

/// Expands `#[tool(attr)] item`.
pub fn expand(attr: TokenStream, mut item: ItemFn) -> syn::Result<TokenStream> {
    let args = ToolArgs::parse(attr)?;
    check_signature(&item)?;
    let params = params(&mut item.sig.inputs)?;
    let returns = Returns::of(&item.sig.output);

    let private = quote!(::toolbridge_runtime::__private);
    let function = &item.sig.ident;
    let visibility = &item.vis;
    let name = match &args.name {
        Some(name) => name.value(),
        None => function.to_string().trim_start_matches("r#").to_string(),
    };
    let description = option_str(doc(&item.attrs).as_deref());
    let title = option_str(args.title.as_ref().map(|title| title.value()).as_deref());
    let category = option_str(args.category.as_ref().map(|category| category.value()).as_deref());
    let [read_only, destructive, idempotent, open_world, confirm] = [
        args.read_only,
        args.destructive,
        args.idempotent,
        args.open_world,
        args.confirm,
    ]
    .map(option_bool);

    let idents: Vec<_> = params.iter().map(|param| &param.ident).collect();
    let fields = params.iter().map(|param| {
        let (attrs, ident, ty) = (&param.attrs, &param.ident, &param.ty);
        quote!(#(#attrs)* #ident: #ty)
    });
    let call = if item.sig.asyncness.is_some() {
        quote!(__toolbridge_function(#(#idents),*).await)
    } else {
        quote!(__toolbridge_function(#(#idents),*))
    };
    let convert = returns.convert(quote!(__toolbridge_value));
    // The function is bound before the parameters are, which may shadow its name.
    let unpack = quote! {
        let __toolbridge_function = #function;
        let __ToolbridgeArguments { #(#idents),* } =
            match #private::arguments::<__ToolbridgeArguments>(#name, __toolbridge_arguments) {
                ::core::result::Result::Ok(parsed) => parsed,
                ::core::result::Result::Err(output) => return output,
            };
    };
    let handler = if item.sig.asyncness.is_some() {
        quote! {
            #private::Handler::from_async(|__toolbridge_arguments| {
                ::std::boxed::Box::pin(async move {
                    #unpack
                    let __toolbridge_value = #call;
                    #convert
                })
            })
        }
    } else {
        quote! {
            #private::Handler::from_sync(|__toolbridge_arguments| {
                #unpack
                let __toolbridge_value = #call;
                #convert
            })
        }
    };
    let struct_doc = format!(
        "The tool `{name}`, made by `#[tool]` from the function [`{function}()`]({function}()): \
         `tool()` is its definition, `handler()` the definition with its handler."
    );
    let serde_crate = format!("{}::serde", private_path());
    let schemars_crate = format!("{}::schemars", private_path());

    Ok(quote! {
        #item

        #[doc = #struct_doc]
        #[allow(non_camel_case_types, dead_code)]
        #visibility struct #function {}

        const _: () = {
            #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
            #[serde(crate = #serde_crate, deny_unknown_fields)]
            #[schemars(crate = #schemars_crate)]
            struct __ToolbridgeArguments {
                #(#fields,)*
            }

            #[allow(dead_code)]
            impl #function {
                /// The tool's name.
                pub const NAME: &'static str = #name;

                /// The tool's canonical definition.
                pub fn tool() -> #private::Tool {
                    #private::definition::<__ToolbridgeArguments>(#private::Definition {
                        name: #name,
                        description: #description,
                        title: #title,
                        category: #category,
                        read_only: #read_only,
                        destructive: #destructive,
                        idempotent: #idempotent,
                        open_world: #open_world,
                        confirm: #confirm,
                    })
                }

                /// The definition with the handler that runs the function,
                /// for a `toolbridge_runtime::Registry`.
                pub fn handler() -> #private::RustTool {
                    #private::RustTool::new(Self::tool(), #handler)
                }
            }
        };
    })
}

/// The path of the runtime's hidden module, as text for `crate = "…"`.
fn private_path() -> &'static str {
    "::toolbridge_runtime::__private"
}

/// Refuses what cannot become a tool, at the offending part of the signature.
fn check_signature(item: &ItemFn) -> syn::Result<()> {
    let sig = &item.sig;
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "a `#[tool]` function cannot be generic: its JSON Schema is made from the parameter types, \
             which must be known",
        ));
    }
    if let Some(clause) = &sig.generics.where_clause {
        return Err(syn::Error::new_spanned(
            clause,
            "a `#[tool]` function cannot have a `where` clause",
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        return Err(syn::Error::new_spanned(
            unsafety,
            "a `#[tool]` function cannot be `unsafe`: a model's call cannot uphold its contract",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        return Err(syn::Error::new_spanned(
            variadic,
            "a `#[tool]` function cannot be variadic",
        ));
    }
    Ok(())
}

/// The doc comment's text: the `#[doc = "…"]` lines, each less the one space
/// `///` leaves, joined and trimmed; `None` when empty.
fn doc(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text), ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            // `split`, not `lines`: an empty `///` line is a paragraph break.
            text.split('\n')
                .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let text = lines.join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

fn option_bool(value: Option<bool>) -> TokenStream {
    match value {
        Some(flag) => quote!(::core::option::Option::Some(#flag)),
        None => quote!(::core::option::Option::None),
    }
}
