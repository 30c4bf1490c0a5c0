//! Checking values against schemas, and the suggestions used in messages.
//!
//! This is the only module that talks to the `jsonschema` crate.

pub(crate) mod suggest;
pub(crate) mod validate;
