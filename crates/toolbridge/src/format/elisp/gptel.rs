//! `gptel`: Emacs Lisp `(gptel-make-tool …)` forms (gptel 0.9.9).
//!
//! Reading and writing are shared with llm.el (the mapping is documented in
//! [`super`]).
//!
//! What gptel does to the JSON it sends (`gptel--parse-tools` of the
//! generic method in gptel-request.el and of gptel-anthropic.el and
//! gptel-gemini.el, with `gptel--gemini-filter-schema`; read in github
//! karthink/gptel and checked by `tests/emacs/real_check.el`; not noted per
//! tool): it sends `:name` unchanged (hence [`NAME_RULE`]) and every other
//! argument key but `:name` and `:optional` as it is; it always sends
//! `required` (`[]` when every argument is optional), gives object-typed
//! arguments `required: []` when they have none; for OpenAI, Ollama and
//! Bedrock it adds `additionalProperties: false` to the root and to
//! object-typed arguments and sends a no-argument tool as `{"type": "object",
//! "properties": {}}`; for Anthropic a no-argument tool is `{"type": "object",
//! "properties": {}, "required": []}`; for Gemini it removes
//! `additionalProperties` everywhere, removes `format` from top-level string
//! arguments, and sends a no-argument tool with `parameters: null`.

use crate::codec::TextCodec;
use crate::error::Result;
use crate::note::{Converted, Notes};
use crate::options::{ReadOptions, WriteOptions};
use crate::tool::Tool;

use super::find::read_as;
use super::write::write_as;
use super::{first_head, join, looks_like_lisp, Flavor};

pub(crate) use super::NAME_RULE;

pub(crate) const CODEC: TextCodec = TextCodec {
    detect,
    read,
    write,
    join,
};

/// A file with a `(gptel-make-tool …)` form, or Emacs Lisp with neither
/// constructor (it may pass tool plists to a wrapper; if it holds no tool,
/// the reader says so rather than a JSON parser failing on Lisp).
fn detect(text: &str) -> bool {
    match first_head(text) {
        Some(flavor) => flavor == Flavor::Gptel,
        None => looks_like_lisp(text),
    }
}

fn read(text: &str, opts: &ReadOptions) -> Result<Vec<Result<Converted<Tool>>>> {
    read_as(text, opts, Flavor::Gptel)
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<String> {
    write_as(tool, opts, notes, Flavor::Gptel)
}
