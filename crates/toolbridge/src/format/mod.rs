//! One module per format, its reader and writer side by side; a format past
//! ~800 lines of non-test code is a folder (`ellmer/`, `elisp/`, …).
//!
//! Each module fills in a `CODEC` for the registry. Modules import only from
//! the layers below (`tool`, `note`, `error`, `json`, `schema`, `codec`,
//! `options`) and from `shared`; a format that builds on another (Ollama on
//! OpenAI Chat) imports that format's functions directly.

pub(crate) mod shared;

mod elisp;

pub(crate) mod anthropic;
pub(crate) mod bedrock;
pub(crate) mod cohere;
pub(crate) mod ellmer;
pub(crate) mod gemini;
pub(crate) mod gemini_json;
pub(crate) mod mcp;
pub(crate) mod mistral;
pub(crate) mod ollama;
pub(crate) mod openai;
pub(crate) mod openai_responses;
pub(crate) mod skydeck;
pub(crate) mod syllable;
pub(crate) mod toolbridge;

pub(crate) use elisp::{gptel, llm};
