//! Raw-text tool calls of open-weight models.
//!
//! Served without a tool parser (llama.cpp, vLLM without `--tool-call-parser`,
//! MLX, a raw completion endpoint, a Groq `tool_use_failed` answer), a model's
//! tool calls arrive as text in its own markup. [`parse`] reads that text
//! into the assistant's prose and the same [`ToolCall`]s the provider
//! formats give; [`Family::detect`] names the family from the text alone.
//! The markups and their quirks are the ones the inference servers' own
//! parsers read (vLLM `vllm/tool_parsers/`, ollama `model/parsers/`,
//! llama.cpp `common/chat.cpp`, mistral.rs
//! `mistralrs-core/src/tools/parsers/`); each family's file names its
//! sources.
//!
//! ```
//! use toolbridge::text::{parse, Family};
//! let text = "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
//! assert_eq!(Family::detect(text), Some(Family::Hermes));
//! let parsed = parse(text, Family::Hermes, None)?;
//! assert_eq!(parsed.prose, "Let me look.");
//! assert_eq!(parsed.calls[0].name, "get_weather");
//! assert_eq!(parsed.calls[0].arguments, Ok(serde_json::json!({"city": "Paris"})));
//! # Ok::<(), toolbridge::Error>(())
//! ```
//!
//! Reasoning blocks (`<think>…</think>`, `[THINK]…[/THINK]`) stay in the
//! prose; a call inside a closed one is not a call, inside one that never
//! closes it is. Garbled markup that still says plainly what was meant (a
//! missing closing tag, a control token lost in decoding, Groq's
//! `<function=NAME={…}</function>`) is read, with a note of kind
//! [`NoteKind::Repaired`](crate::NoteKind::Repaired) naming the variant.
//! Where the family's values are not JSON (Qwen3-Coder's parameters, GLM's
//! argument values, MiniMax-M2's, MiniCPM5's and DSML's parameter elements, Gemma 4's
//! and FunctionGemma's values, pythonic and LFM2 literals), the tool's
//! input schema types them, with a note when the text had to be coerced.

mod apertus;
mod command_r7b;
mod deepseek;
mod dots;
mod dsml;
mod envelope;
mod function_gemma;
mod gemma4;
mod gigachat;
mod glimmer;
mod glm;
mod granite;
mod granite_fc;
mod harmony;
mod hermes;
mod hunyuan;
mod inkling;
mod internlm;
mod invoke;
mod kimi;
mod kimi_k3;
mod lfm2;
mod listed;
mod llama;
mod longcat;
mod minicpm5;
mod minimax;
mod minimax_m3;
mod mistral;
mod olmo3;
mod phi4_mini;
mod pythonic;
mod qwen3_coder;
mod reasoning;
mod scan;
mod seed_oss;
mod step3;
mod stream;
mod tags;
mod typed;
mod xlam;

use std::fmt;

use crate::call::ToolCall;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::Note;
use crate::tool::Tool;

use reasoning::Segment;
use scan::Out;
use stream::markup::Streaming;

pub use stream::TextStream;

/// A family of models that write tool calls in one markup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Family {
    /// Hermes, Qwen2.5, Qwen3: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`.
    Hermes,
    /// Qwen3-Coder, Qwen3.5: `<tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>`.
    Qwen3Coder,
    /// Llama 3.1–3.3: `<|python_tag|>{"name": …, "parameters": {…}}`, bare
    /// JSON, or `<function=NAME>{…}</function>`.
    Llama3,
    /// Llama 4 and Llama 3.2 pythonic: `[fn(a=1, b="x")]`.
    Pythonic,
    /// Mistral: `[TOOL_CALLS][{…}]`, `[TOOL_CALLS]NAME[ARGS]{…}`,
    /// `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}`.
    Mistral,
    /// GLM-4.5, 4.6, 4.7: `<tool_call>NAME\n<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>`.
    Glm,
    /// Step3 (StepFun): `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter name="K">V</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`.
    Step3,
    /// Kimi K2: `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>`.
    Kimi,
    /// Kimi K3 (XTML): `<|open|>tools<|sep|><|open|>call tool="NAME" index="1"<|sep|><|open|>argument key="K" type="string"<|sep|>V<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`.
    KimiK3,
    /// DeepSeek V3, R1 and V3.1: `<｜tool▁call▁begin｜>…<｜tool▁sep｜>…<｜tool▁call▁end｜>`.
    DeepSeek,
    /// DeepSeek V3.2 and V4 (DSML): `<｜DSML｜invoke name="NAME"><｜DSML｜parameter name="K" string="true">V</｜DSML｜parameter></｜DSML｜invoke>`.
    DeepSeekDsml,
    /// gpt-oss (Harmony): `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`.
    Harmony,
    /// Inkling: `<|message_model|>NAME<|content_invoke_tool_json|>{"name": …, "args": {…}}<|end_message|>`
    /// among thinking and text blocks.
    Inkling,
    /// Muse Glimmer: `<|start|>assistant to=TOOL<|message|><atem:function_calls><atem:invoke name="NAME"><atem:parameter name="K">V</atem:parameter></atem:invoke></atem:function_calls><|eom|>`.
    MuseGlimmer,
    /// Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>`.
    Gemma4,
    /// FunctionGemma: `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`.
    FunctionGemma,
    /// Granite 3.0 and 3.1: `<|tool_call|>[{"name": …, "arguments": {…}}]`.
    Granite,
    /// Granite 20B FunctionCalling: `<function_call> {"name": …, "arguments": {…}}`.
    GraniteFc,
    /// Hunyuan A13B: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`.
    Hunyuan,
    /// MiniMax-M2: `<minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter></invoke></minimax:tool_call>`.
    MiniMax,
    /// dots.llm: `<dots_function_call><invoke name="NAME"><parameter name="K">V</parameter></invoke></dots_function_call>`,
    /// or a JSON call in the block.
    Dots,
    /// MiniCPM5: `<function name="NAME"><param name="K">V</param></function>`.
    MiniCpm5,
    /// MiniMax-M3: `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="NAME">]<]minimax[>[<K>V]<]minimax[>[</K>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>`,
    /// nested elements for objects and lists.
    MiniMaxM3,
    /// Command R7B: `<|START_ACTION|>[{"tool_call_id": …, "tool_name": …, "parameters": {…}}]<|END_ACTION|>`.
    CommandR7b,
    /// LongCat-Flash: `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`.
    LongCat,
    /// InternLM2, 2.5, 3: `<|action_start|><|plugin|>{"name": …, "parameters": {…}}<|action_end|>`.
    InternLm,
    /// GigaChat 3 and 3.1: `function call<|role_sep|>\n{"name": …, "arguments": {…}}`,
    /// `<|function_call|>{…}`.
    GigaChat,
    /// Apertus: `<|tools_prefix|>[{"NAME": {…}}]<|tools_suffix|>`.
    Apertus,
    /// Phi-4-mini: `functools[{"name": …, "arguments": {…}}]`.
    Phi4Mini,
    /// LFM2: `<|tool_call_start|>[fn(a=1)]<|tool_call_end|>`.
    Lfm2,
    /// OLMo 3: `<function_calls>fn(a=1)\nfn2(b="x")</function_calls>`.
    Olmo3,
    /// xLAM: a JSON list of `{"name": …, "arguments": {…}}` calls, bare, in a
    /// Markdown code fence, in `<tool_call>…</tool_call>` or after `[TOOL_CALLS]`.
    Xlam,
    /// Seed-OSS: `<seed:tool_call><function=NAME><parameter=K>V</parameter></function></seed:tool_call>`.
    SeedOss,
}

/// One row of [`FAMILIES`].
#[derive(Debug)]
pub struct FamilyInfo {
    /// The family.
    pub family: Family,
    /// Its name on the command line (`hermes`, `mistral`, …).
    pub id: &'static str,
    /// The models that write it.
    pub models: &'static str,
    /// The markup of one call.
    pub markup: &'static str,
    detect: fn(&str) -> bool,
    parse: fn(&str, &mut Out<'_>),
    /// How the markup streams: the tokens that open a call, and a reader
    /// of one call as it arrives (see `stream/markup.rs`).
    stream: Streaming,
}

/// Every family, in the order [`Family::detect`] tries them.
///
/// The order handles the prefixes families share. Control tokens that are
/// a family's own come first: DSML's `<｜DSML｜`, DeepSeek's, Kimi's,
/// Kimi K3's `<|open|>`, Harmony's `<|channel|>`/`<|message|>`, Inkling's
/// `<|message_model|>` and content tokens, Muse Glimmer's `<atem:invoke` or
/// `<|message|>` with its `<|eom|>`/`<|eot|>`, Gemma 4's `<|tool_call>`,
/// FunctionGemma's `<start_function_call>`,
/// MiniMax-M3's `]<]minimax[>[` marker (before M2, whose `<invoke name=` it
/// holds), MiniMax's `<minimax:tool_call>`, dots.llm's `<dots_function_call>`, MiniCPM5's
/// `<function name=` (which Qwen3-Coder's and Llama's `<function=` is not), Seed-OSS's `<seed:tool_call>` (before
/// Qwen3-Coder, whose calls it wraps), Command R7B's `<|START_ACTION|>`,
/// Hunyuan's `<tool_calls>`, LongCat's `<longcat_tool_call>`, InternLM's
/// `<|action_start|><|plugin|>`, GigaChat's headers, Apertus's
/// `<|tools_prefix|>`, LFM2's `<|tool_call_start|>` (Kimi's
/// `<|tool_call_end|>` closes LFM2's calls too, so Kimi is told by its
/// `<|tool_call_begin|>`), OLMo 3's `<function_calls>`, Mistral's
/// `[TOOL_CALLS]`, Granite 20B FC's `<function_call>` (which OLMo 3's
/// `<function_calls>` does not hold). Then the families
/// that all open with `<tool_call>`: Granite 3.1 (a JSON list follows it;
/// Granite 3.0's `<|tool_call|>` is its own), Qwen3-Coder
/// (`<function=` follows), GLM (a bare name and `<arg_key>` or
/// `</tool_call>`), and Hermes last of them (JSON follows); Qwen3-Coder
/// also comes before Llama 3 (both write `<function=NAME>`; Qwen3-Coder's
/// is followed by `<parameter=` or `</function>`, Llama's by JSON).
/// Hermes matches `<tool_call>` exactly, so Gemma 4's `<|tool_call>`,
/// Granite's `<|tool_call|>` and Hunyuan's `<tool_calls>` are not taken
/// for it. Phi-4-mini's `functools[` comes before the bare forms. Bare
/// JSON (Llama 3, or a Mistral list whose `[TOOL_CALLS]` was lost) and
/// pythonic lists come last: they are only recognised when the text
/// starts with them. xLAM is told only by a code fence holding a list of
/// calls, after every other family.
pub static FAMILIES: &[FamilyInfo] = &[
    FamilyInfo {
        family: Family::DeepSeekDsml,
        id: "deepseek-dsml",
        models: "DeepSeek V3.2, V4",
        markup: "<｜DSML｜function_calls><｜DSML｜invoke name=\"NAME\"><｜DSML｜parameter name=\"K\" string=\"true\">V</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls> (V4: <｜DSML｜tool_calls>)",
        detect: dsml::detect,
        parse: dsml::parse,
        stream: dsml::STREAM,
    },
    FamilyInfo {
        family: Family::DeepSeek,
        id: "deepseek",
        models: "DeepSeek V3, R1, V3.1",
        markup: "<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{…}\\n```<｜tool▁call▁end｜> (V3.1: NAME<｜tool▁sep｜>{…})",
        detect: deepseek::detect,
        parse: deepseek::parse,
        stream: deepseek::STREAM,
    },
    FamilyInfo {
        family: Family::Step3,
        id: "step3",
        models: "Step3 (StepFun; Step-3.5 writes Qwen3-Coder's markup)",
        markup: "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"NAME\"><steptml:parameter name=\"K\">V</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
        detect: step3::detect,
        parse: step3::parse,
        stream: step3::STREAM,
    },
    FamilyInfo {
        family: Family::Kimi,
        id: "kimi",
        models: "Kimi K2, K2 Thinking",
        markup: "<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>",
        detect: kimi::detect,
        parse: kimi::parse,
        stream: kimi::STREAM,
    },
    FamilyInfo {
        family: Family::KimiK3,
        id: "kimi-k3",
        models: "Kimi K3",
        markup: "<|open|>tools<|sep|><|open|>call tool=\"NAME\" index=\"1\"<|sep|><|open|>argument key=\"K\" type=\"string\"<|sep|>V<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
        detect: kimi_k3::detect,
        parse: kimi_k3::parse,
        stream: kimi_k3::STREAM,
    },
    FamilyInfo {
        family: Family::Harmony,
        id: "harmony",
        models: "gpt-oss (OpenAI Harmony format)",
        markup: "<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>",
        detect: harmony::detect,
        parse: harmony::parse,
        stream: harmony::STREAM,
    },
    FamilyInfo {
        family: Family::Inkling,
        id: "inkling",
        models: "Inkling",
        markup: "<|message_model|>NAME<|content_invoke_tool_json|>{\"name\": \"NAME\", \"args\": {…}}<|end_message|>",
        detect: inkling::detect,
        parse: inkling::parse,
        stream: inkling::STREAM,
    },
    FamilyInfo {
        family: Family::MuseGlimmer,
        id: "muse-glimmer",
        models: "Muse Glimmer",
        markup: "<|start|>assistant to=TOOL<|message|><atem:function_calls><atem:invoke name=\"NAME\"><atem:parameter name=\"K\">V</atem:parameter></atem:invoke></atem:function_calls><|eom|>",
        detect: glimmer::detect,
        parse: glimmer::parse,
        stream: glimmer::STREAM,
    },
    FamilyInfo {
        family: Family::Gemma4,
        id: "gemma4",
        models: "Gemma 4",
        markup: "<|tool_call>call:NAME{key:<|\"|>text<|\"|>,n:1}<tool_call|>",
        detect: gemma4::detect,
        parse: gemma4::parse,
        stream: gemma4::STREAM,
    },
    FamilyInfo {
        family: Family::FunctionGemma,
        id: "function-gemma",
        models: "FunctionGemma",
        markup: "<start_function_call>call:NAME{key:<escape>text<escape>,n:1}<end_function_call>",
        detect: function_gemma::detect,
        parse: function_gemma::parse,
        stream: function_gemma::STREAM,
    },
    FamilyInfo {
        family: Family::MiniMaxM3,
        id: "minimax-m3",
        models: "MiniMax-M3",
        markup: "]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"NAME\">]<]minimax[>[<K>V]<]minimax[>[</K>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>",
        detect: minimax_m3::detect,
        parse: minimax_m3::parse,
        stream: minimax_m3::STREAM,
    },
    FamilyInfo {
        family: Family::MiniMax,
        id: "minimax",
        models: "MiniMax-M2",
        markup: "<minimax:tool_call><invoke name=\"NAME\"><parameter name=\"K\">V</parameter></invoke></minimax:tool_call>",
        detect: minimax::detect,
        parse: minimax::parse,
        stream: minimax::STREAM,
    },
    FamilyInfo {
        family: Family::Dots,
        id: "dots",
        models: "dots.llm (rednote hilab)",
        markup: "<dots_function_call><invoke name=\"NAME\"><parameter name=\"K\">V</parameter></invoke></dots_function_call> (or {\"name\": …, \"arguments\": {…}} in the block)",
        detect: dots::detect,
        parse: dots::parse,
        stream: dots::STREAM,
    },
    FamilyInfo {
        family: Family::MiniCpm5,
        id: "minicpm5",
        models: "MiniCPM5 (OpenBMB)",
        markup: "<function name=\"NAME\"><param name=\"K\">V</param></function>",
        detect: minicpm5::detect,
        parse: minicpm5::parse,
        stream: minicpm5::STREAM,
    },
    FamilyInfo {
        family: Family::SeedOss,
        id: "seed-oss",
        models: "Seed-OSS, Doubao Seed",
        markup: "<seed:tool_call><function=NAME><parameter=K>V</parameter></function></seed:tool_call>",
        detect: seed_oss::detect,
        parse: seed_oss::parse,
        stream: seed_oss::STREAM,
    },
    FamilyInfo {
        family: Family::CommandR7b,
        id: "command-r7b",
        models: "Command R7B, Command A",
        markup: "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": …, \"parameters\": {…}}]<|END_ACTION|>",
        detect: command_r7b::detect,
        parse: command_r7b::parse,
        stream: command_r7b::STREAM,
    },
    FamilyInfo {
        family: Family::Hunyuan,
        id: "hunyuan",
        models: "Hunyuan A13B, Jamba (Hy3 writes GLM's markup)",
        markup: "<tool_calls>[{\"name\": …, \"arguments\": {…}}]</tool_calls>",
        detect: hunyuan::detect,
        parse: hunyuan::parse,
        stream: hunyuan::STREAM,
    },
    FamilyInfo {
        family: Family::LongCat,
        id: "longcat",
        models: "LongCat-Flash",
        markup: "<longcat_tool_call>{\"name\": …, \"arguments\": {…}}</longcat_tool_call>",
        detect: longcat::detect,
        parse: longcat::parse,
        stream: longcat::STREAM,
    },
    FamilyInfo {
        family: Family::InternLm,
        id: "internlm",
        models: "InternLM2, 2.5, 3",
        markup: "<|action_start|><|plugin|>{\"name\": …, \"parameters\": {…}}<|action_end|>",
        detect: internlm::detect,
        parse: internlm::parse,
        stream: internlm::STREAM,
    },
    FamilyInfo {
        family: Family::GigaChat,
        id: "gigachat",
        models: "GigaChat 3, 3.1",
        markup: "<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": …, \"arguments\": {…}} (3.1: <|function_call|>{…})",
        detect: gigachat::detect,
        parse: gigachat::parse,
        stream: gigachat::STREAM,
    },
    FamilyInfo {
        family: Family::Apertus,
        id: "apertus",
        models: "Apertus (Swiss AI)",
        markup: "<|tools_prefix|>[{\"NAME\": {…}}]<|tools_suffix|>",
        detect: apertus::detect,
        parse: apertus::parse,
        stream: apertus::STREAM,
    },
    FamilyInfo {
        family: Family::Lfm2,
        id: "lfm2",
        models: "LFM2 (Liquid)",
        markup: "<|tool_call_start|>[fn(a=1, b=\"x\")]<|tool_call_end|>",
        detect: lfm2::detect,
        parse: lfm2::parse,
        stream: lfm2::STREAM,
    },
    FamilyInfo {
        family: Family::Olmo3,
        id: "olmo3",
        models: "OLMo 3, OLMo 3 Think",
        markup: "<function_calls>NAME(key=\"text\", n=1)\nNAME2()</function_calls>",
        detect: olmo3::detect,
        parse: olmo3::parse,
        stream: olmo3::STREAM,
    },
    FamilyInfo {
        family: Family::Mistral,
        id: "mistral",
        models: "Mistral v0.3, Nemo, Small 3.2, Magistral, Devstral, Ministral",
        markup: "[TOOL_CALLS][{\"name\": …, \"arguments\": {…}}] or [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}",
        detect: mistral::detect,
        parse: mistral::parse,
        stream: mistral::STREAM,
    },
    FamilyInfo {
        family: Family::Granite,
        id: "granite",
        models: "Granite 3.0, 3.1 (Granite 4 writes Hermes)",
        markup: "<|tool_call|>[{\"name\": …, \"arguments\": {…}}] (3.1: <tool_call>[…])",
        detect: granite::detect,
        parse: granite::parse,
        stream: granite::STREAM,
    },
    FamilyInfo {
        family: Family::GraniteFc,
        id: "granite-20b-fc",
        models: "Granite 20B FunctionCalling",
        markup: "<function_call> {\"name\": …, \"arguments\": {…}}",
        detect: granite_fc::detect,
        parse: granite_fc::parse,
        stream: granite_fc::STREAM,
    },
    FamilyInfo {
        family: Family::Qwen3Coder,
        id: "qwen3-coder",
        models: "Qwen3-Coder, Qwen3.5, Step-3.5, Nemotron 3",
        markup: "<tool_call><function=NAME><parameter=K>V</parameter></function></tool_call>",
        detect: qwen3_coder::detect,
        parse: qwen3_coder::parse,
        stream: qwen3_coder::STREAM,
    },
    FamilyInfo {
        family: Family::Glm,
        id: "glm",
        models: "GLM-4.5, 4.6, 4.7, Hy3 (Hunyuan), Poolside, Ling 3",
        markup: "<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>",
        detect: glm::detect,
        parse: glm::parse,
        stream: glm::STREAM,
    },
    FamilyInfo {
        family: Family::Hermes,
        id: "hermes",
        models: "Hermes 2/3, Qwen2.5, Qwen3, Granite 4, Ernie 4.5",
        markup: "<tool_call>{\"name\": …, \"arguments\": {…}}</tool_call>",
        detect: hermes::detect,
        parse: hermes::parse,
        stream: hermes::STREAM,
    },
    FamilyInfo {
        family: Family::Phi4Mini,
        id: "phi4-mini",
        models: "Phi-4-mini",
        markup: "functools[{\"name\": …, \"arguments\": {…}}]",
        detect: phi4_mini::detect,
        parse: phi4_mini::parse,
        stream: phi4_mini::STREAM,
    },
    FamilyInfo {
        family: Family::Llama3,
        id: "llama3",
        models: "Llama 3.1, 3.2, 3.3",
        markup: "<|python_tag|>{\"name\": …, \"parameters\": {…}}, bare JSON, or <function=NAME>{…}</function>; built-ins <|python_tag|>brave_search.call(query=\"…\")",
        detect: llama::detect,
        parse: llama::parse,
        stream: llama::STREAM,
    },
    FamilyInfo {
        family: Family::Pythonic,
        id: "pythonic",
        models: "Llama 4, Llama 3.2 (pythonic template)",
        markup: "[fn(a=1, b=\"x\"), g()]",
        detect: pythonic::detect,
        parse: pythonic::parse,
        stream: pythonic::STREAM,
    },
    FamilyInfo {
        family: Family::Xlam,
        id: "xlam",
        models: "xLAM (Salesforce)",
        markup: "[{\"name\": …, \"arguments\": {…}}], in a ```json fence, <tool_call>[…]</tool_call> or [TOOL_CALLS][…]",
        detect: xlam::detect,
        parse: xlam::parse,
        stream: xlam::STREAM,
    },
];

impl Family {
    /// The family's row in [`FAMILIES`].
    pub fn info(self) -> &'static FamilyInfo {
        FAMILIES
            .iter()
            .find(|info| info.family == self)
            .expect("every family has a row")
    }

    /// The family's name on the command line.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// The family named `id`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnknownFormat`] naming the known families.
    pub fn from_id(id: &str) -> Result<Family> {
        FAMILIES
            .iter()
            .find(|info| info.id == id)
            .map(|info| info.family)
            .ok_or_else(|| {
                let known: Vec<&str> = FAMILIES.iter().map(|info| info.id).collect();
                Error::new(
                    ErrorKind::UnknownFormat,
                    format!("no model family is called {id:?} (known: {})", known.join(", ")),
                )
            })
    }

    /// The family whose markup the text holds, trying [`FAMILIES`] in
    /// order; text in closed reasoning blocks is not looked at. `None`
    /// when the text holds no markup of any family (it is all prose).
    ///
    /// ```
    /// use toolbridge::text::Family;
    /// assert_eq!(Family::detect("[TOOL_CALLS]add[ARGS]{\"a\": 1}"), Some(Family::Mistral));
    /// assert_eq!(Family::detect("<tool_call><function=f></function></tool_call>"), Some(Family::Qwen3Coder));
    /// assert_eq!(Family::detect("<think><tool_call>{}</tool_call></think>Hello"), None);
    /// ```
    pub fn detect(text: &str) -> Option<Family> {
        let segments = reasoning::segments(text);
        FAMILIES
            .iter()
            .find(|info| {
                segments.iter().any(|segment| match segment {
                    Segment::Text(text) => (info.detect)(text),
                    Segment::Reasoning(_) => false,
                })
            })
            .map(|info| info.family)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// What [`parse`] found in a text.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Parsed {
    /// The text outside the calls, markup removed, trimmed at both ends;
    /// reasoning blocks stay in it as they were written.
    pub prose: String,
    /// The calls, in order: ids are the model's own (Mistral's `[CALL_ID]`,
    /// a JSON `"id"`) or `call_<n>` for the call at position `n`.
    pub calls: Vec<ToolCall>,
    /// What was recovered or left out in the text as a whole; notes about
    /// one call are in its [`ToolCall::notes`].
    pub notes: Vec<Note>,
}

/// Reads the prose and the tool calls in `text`, written in `family`'s
/// markup, with the default [`Limits`].
///
/// `tools`, when given, type the values the markup does not (a Qwen3-Coder
/// parameter is a string, an integer, … as the tool's schema says), and fit
/// every call's arguments to its tool's schema (see
/// [`repair`](crate::call::repair)).
///
/// # Errors
///
/// [`ErrorKind::LimitExceeded`] for text longer than [`Limits::max_bytes`].
pub fn parse(text: &str, family: Family, tools: Option<&[Tool]>) -> Result<Parsed> {
    parse_with_limits(text, family, tools, &Limits::default())
}

/// [`parse`] with other limits: text at most [`Limits::max_bytes`], at
/// most [`Limits::max_tools`] calls (the rest are counted in a note),
/// arguments at most [`Limits::max_depth`] deep.
///
/// # Errors
///
/// [`ErrorKind::LimitExceeded`] for text longer than [`Limits::max_bytes`].
pub fn parse_with_limits(
    text: &str,
    family: Family,
    tools: Option<&[Tool]>,
    limits: &Limits,
) -> Result<Parsed> {
    if text.len() > limits.max_bytes {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("the text is larger than {} bytes", limits.max_bytes),
        ));
    }
    let mut out = Out::new(family, tools, limits);
    for segment in reasoning::segments(text) {
        match segment {
            Segment::Reasoning(block) => out.prose.push_str(block),
            Segment::Text(text) => (family.info().parse)(text, &mut out),
        }
    }
    out.finish();
    Ok(Parsed {
        prose: out.prose.trim().to_string(),
        calls: out.calls,
        notes: out.notes,
    })
}
