//! The function's return type, and how its value becomes an `Output`.
//!
//! A macro sees names, not trait impls, so the type is told apart by its last
//! path segment: `Output` passes through, `String`/`&str`/`Cow<str>` is text,
//! `…Result<T, …>` is success or error (`Err` through `Display`), anything
//! else is serialised (a string value is text; others are JSON text plus
//! structured content).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{GenericArgument, PathArguments, ReturnType, Type};

/// How a returned value becomes an `Output`.
pub enum Returns {
    /// `toolbridge_runtime::Output`, as it is.
    Output,
    /// Text.
    Text,
    /// Anything `Serialize`.
    Serialize,
    /// `Ok` as the inner kind, `Err` as an error result.
    Result(Box<Returns>),
}

impl Returns {
    /// The kind of the function's return type.
    pub fn of(output: &ReturnType) -> Returns {
        match output {
            ReturnType::Default => Returns::Serialize,
            ReturnType::Type(_, ty) => classify(ty),
        }
    }

    /// Tokens turning `value` (an expression of this kind) into an `Output`.
    pub fn convert(&self, value: TokenStream) -> TokenStream {
        let private = quote!(::toolbridge_runtime::__private);
        match self {
            Returns::Output => quote!(#value),
            Returns::Text => quote!(#private::Output::text(#value)),
            Returns::Serialize => quote!(#private::serialized(&#value)),
            Returns::Result(inner) => {
                let ok = inner.convert(quote!(__toolbridge_ok));
                quote! {
                    match #value {
                        ::core::result::Result::Ok(__toolbridge_ok) => #ok,
                        ::core::result::Result::Err(__toolbridge_error) => #private::failed(&__toolbridge_error),
                    }
                }
            }
        }
    }
}

fn classify(ty: &Type) -> Returns {
    match ty {
        Type::Paren(inner) => classify(&inner.elem),
        Type::Group(inner) => classify(&inner.elem),
        Type::Reference(reference) if is_named(&reference.elem, "str") => Returns::Text,
        Type::Path(path) => {
            let Some(last) = path.path.segments.last() else {
                return Returns::Serialize;
            };
            let first_type = match &last.arguments {
                PathArguments::AngleBracketed(angle) => angle.args.iter().find_map(|arg| match arg {
                    GenericArgument::Type(ty) => Some(ty),
                    _ => None,
                }),
                _ => None,
            };
            match (last.ident.to_string().as_str(), first_type) {
                ("Output", None) => Returns::Output,
                ("String", None) => Returns::Text,
                ("Cow", Some(inner)) if is_named(inner, "str") => Returns::Text,
                ("Result", Some(inner)) => Returns::Result(Box::new(classify(inner))),
                _ => Returns::Serialize,
            }
        }
        _ => Returns::Serialize,
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.is_ident(name))
}
