//! The arguments of `#[tool(…)]`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitBool, LitStr, Meta, Token};

/// The names `#[tool(…)]` accepts, as listed in the error for any other.
const KNOWN: &str =
    "`name`, `title`, `category`, `read_only`, `destructive`, `idempotent`, `open_world`, `confirm`";

/// What `#[tool(…)]` said.
#[derive(Default)]
pub struct ToolArgs {
    /// `name = "…"`: the tool's name instead of the function's.
    pub name: Option<LitStr>,
    /// `title = "…"`.
    pub title: Option<LitStr>,
    /// `category = "…"`.
    pub category: Option<LitStr>,
    /// `read_only` or `read_only = bool`.
    pub read_only: Option<bool>,
    /// `destructive` or `destructive = bool`.
    pub destructive: Option<bool>,
    /// `idempotent` or `idempotent = bool`.
    pub idempotent: Option<bool>,
    /// `open_world` or `open_world = bool`.
    pub open_world: Option<bool>,
    /// `confirm` or `confirm = bool`.
    pub confirm: Option<bool>,
}

impl ToolArgs {
    /// Parses the attribute's tokens, each error at the offending argument.
    pub fn parse(tokens: TokenStream) -> syn::Result<ToolArgs> {
        let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens)?;
        let mut args = ToolArgs::default();
        let mut seen: Vec<String> = Vec::new();
        for meta in metas {
            let Some(key) = meta.path().get_ident().map(ToString::to_string) else {
                return Err(syn::Error::new_spanned(
                    meta.path(),
                    format!("unknown `#[tool]` argument; expected one of {KNOWN}"),
                ));
            };
            if seen.contains(&key) {
                return Err(syn::Error::new_spanned(
                    meta.path(),
                    format!("`{key}` is given twice"),
                ));
            }
            seen.push(key.clone());
            match key.as_str() {
                "name" => {
                    let name = string(&meta)?;
                    if name.value().trim().is_empty() {
                        return Err(syn::Error::new_spanned(&name, "the tool's name cannot be empty"));
                    }
                    args.name = Some(name);
                }
                "title" => args.title = Some(string(&meta)?),
                "category" => args.category = Some(string(&meta)?),
                "read_only" => args.read_only = Some(flag(&meta)?),
                "destructive" => args.destructive = Some(flag(&meta)?),
                "idempotent" => args.idempotent = Some(flag(&meta)?),
                "open_world" => args.open_world = Some(flag(&meta)?),
                "confirm" => args.confirm = Some(flag(&meta)?),
                _ => {
                    return Err(syn::Error::new_spanned(
                        meta.path(),
                        format!("unknown `#[tool]` argument `{key}`; expected one of {KNOWN}"),
                    ))
                }
            }
        }
        Ok(args)
    }
}

/// `key = "text"`.
fn string(meta: &Meta) -> syn::Result<LitStr> {
    if let Meta::NameValue(pair) = meta {
        if let Expr::Lit(ExprLit {
            lit: Lit::Str(text), ..
        }) = &pair.value
        {
            return Ok(text.clone());
        }
    }
    let key = key_of(meta);
    Err(misused(
        meta,
        format!("`{key}` takes a string literal: `{key} = \"…\"`"),
    ))
}

/// `key` (true) or `key = true|false`.
fn flag(meta: &Meta) -> syn::Result<bool> {
    match meta {
        Meta::Path(_) => return Ok(true),
        Meta::NameValue(pair) => {
            if let Expr::Lit(ExprLit {
                lit: Lit::Bool(LitBool { value, .. }),
                ..
            }) = &pair.value
            {
                return Ok(*value);
            }
        }
        Meta::List(_) => {}
    }
    let key = key_of(meta);
    Err(misused(
        meta,
        format!("`{key}` is a flag: write `{key}` or `{key} = true|false`"),
    ))
}

/// The argument's name (`read_only` in `read_only = 1`).
fn key_of(meta: &Meta) -> String {
    meta.path()
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// An error at the part of `meta` that is wrong: the value of `key = value`,
/// else the whole argument.
fn misused(meta: &Meta, message: String) -> syn::Error {
    match meta {
        Meta::NameValue(pair) => syn::Error::new_spanned(&pair.value, message),
        other => syn::Error::new_spanned(other, message),
    }
}
