//! InternLM2, 2.5 and 3: `<|action_start|><|plugin|>\n{"name": …,
//! "parameters": {…}}<|action_end|>`, Hermes's envelope between the
//! plugin action's tokens (vLLM `internlm2_tool_parser.py` and its tests;
//! InternLM's chat template). `"arguments"` is read as well as
//! `"parameters"`, as vLLM reads it. An `<|action_start|><|interpreter|>`
//! action is code for the model's interpreter, not a function call: it
//! stays in the prose. vLLM reads one call per message; every block is a
//! call here.

use super::hermes::{self, Tags};

static TAGS: Tags = Tags {
    open: "<|action_start|><|plugin|>",
    close: Some("<|action_end|>"),
    tokens: &[],
};

hermes::tagged_family!(TAGS);
