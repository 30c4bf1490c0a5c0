//! The function's parameters: each becomes a field of the arguments struct
//! (its doc comment the parameter's description, through schemars).

use syn::{Attribute, FnArg, Ident, Pat, Type};

/// One parameter, as a field of the arguments struct.
pub struct Param {
    /// The name (without `mut`); the argument's key.
    pub ident: Ident,
    /// The type, deserialised from the argument.
    pub ty: Type,
    /// Doc comments, `#[serde(…)]` and `#[schemars(…)]`, moved onto the field.
    pub attrs: Vec<Attribute>,
}

/// The attributes a parameter may carry; the compiler rejects doc comments
/// on parameters, so they are taken off the function and put on the field.
const FORWARDED: [&str; 3] = ["doc", "serde", "schemars"];

/// Reads the parameters and strips their attributes from `inputs`.
pub fn params(inputs: &mut syn::punctuated::Punctuated<FnArg, syn::Token![,]>) -> syn::Result<Vec<Param>> {
    let mut params = Vec::new();
    for input in inputs.iter_mut() {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                return Err(syn::Error::new_spanned(
                    receiver,
                    "`#[tool]` takes a free function: `self` cannot come from a model's arguments \
                     (write a function that takes the state it needs, or a closure handler)",
                ))
            }
            FnArg::Typed(typed) => typed,
        };
        let ident = match &*typed.pat {
            Pat::Ident(binding) if binding.by_ref.is_none() && binding.subpat.is_none() => binding.ident.clone(),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "a `#[tool]` parameter must be a plain name (`city: String`): its name is the argument's name",
                ))
            }
        };
        check_type(&typed.ty)?;
        let mut attrs = Vec::new();
        for attr in std::mem::take(&mut typed.attrs) {
            if FORWARDED.iter().any(|name| attr.path().is_ident(name)) {
                attrs.push(attr);
            } else {
                return Err(syn::Error::new_spanned(
                    attr,
                    "a `#[tool]` parameter takes only doc comments, `#[serde(…)]` and `#[schemars(…)]`",
                ));
            }
        }
        params.push(Param {
            ident,
            ty: (*typed.ty).clone(),
            attrs,
        });
    }
    Ok(params)
}

/// Refuses types an argument cannot be deserialised into.
fn check_type(ty: &Type) -> syn::Result<()> {
    match ty {
        Type::Reference(reference) => Err(syn::Error::new_spanned(
            reference,
            "a `#[tool]` parameter must own its value (`String`, not `&str`): \
             it is deserialised from the call's arguments",
        )),
        Type::ImplTrait(implementation) => Err(syn::Error::new_spanned(
            implementation,
            "a `#[tool]` parameter needs a concrete type (its JSON Schema comes from the type)",
        )),
        Type::Infer(infer) => Err(syn::Error::new_spanned(
            infer,
            "a `#[tool]` parameter needs a type",
        )),
        _ => Ok(()),
    }
}
