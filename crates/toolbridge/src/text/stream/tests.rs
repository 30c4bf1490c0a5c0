//! A piece the open region's reader does not wait on is appended without
//! reading ([`Region::wakes`](markup::Region::wakes)): the events of every
//! push must be exactly those of a stream that reads every piece.

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde_json::json;

use super::segment::{APPENDED_UNREAD, READ_EVERY_PIECE};
use super::*;

/// The tools of the text fixtures (`tests/fixtures/text_tools.json`),
/// which type the values of the families that write raw text, and the
/// long values' `write`.
fn tools() -> Vec<Tool> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text_tools.json");
    let schemas: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let mut tools: Vec<Tool> = schemas
        .into_iter()
        .map(|(name, schema)| Tool::new(name, schema))
        .collect();
    tools.push(Tool::new(
        "write",
        json!({"type": "object", "properties": {
            "path": {"type": "string"}, "line": {"type": "integer"}, "content": {"type": "string"}}}),
    ));
    tools
}

/// Every fixture text of `tests/fixtures/text`, with its family.
fn fixtures() -> Vec<(Family, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text");
    let mut texts = Vec::new();
    for folder in fs::read_dir(root).unwrap() {
        let folder = folder.unwrap().path();
        let Some(family) = folder
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|id| Family::from_id(id).ok())
        else {
            continue;
        };
        for file in fs::read_dir(&folder).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|extension| extension == "txt") {
                texts.push((family, fs::read_to_string(file).unwrap()));
            }
        }
    }
    texts.sort_by(|a, b| (a.0.id(), &a.1).cmp(&(b.0.id(), &b.1)));
    texts
}

/// Long values in each family's markup, with what a value can hold that
/// looks like markup (`<`, quotes, brackets, commas).
fn long_values() -> Vec<(Family, String)> {
    let body = "fn main() {\n    if a < b && c[0] == 'x' { println!(\"a, b\"); }\n}\n".repeat(4);
    let quoted = body
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    let json = format!(
        "{{\"path\": \"src/a.rs\", \"line\": 7, \"content\": \"{quoted}\", \"more\": {{\"list\": [1, \"]\", {{}}]}}}}"
    );
    vec![
        (
            Family::Qwen3Coder,
            format!("Now.\n<tool_call>\n<function=write>\n<parameter=path>\nsrc/a.rs\n</parameter>\n<parameter=line>\n7\n</parameter>\n<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>\nDone."),
        ),
        (
            Family::SeedOss,
            format!("<seed:think>Call <seed:tool_call> later.</seed:think>Now.\n<seed:tool_call>\n<function=write>\n<parameter=path>src/a.rs</parameter>\n<parameter=line>7</parameter>\n<parameter=content>{body}</parameter>\n</function>\n</seed:tool_call><seed:eos>"),
        ),
        (
            Family::KimiK3,
            format!("<|open|>think<|sep|>Call <|open|>call tool=\"x\"<|sep|> later.<|close|>think<|sep|>Now.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool=\"write\" index=\"1\"<|sep|><|open|>argument key=\"path\" type=\"string\"<|sep|>src/a.rs<|close|>argument<|sep|><|open|>argument key=\"line\" type=\"integer\"<|sep|>7<|close|>argument<|sep|><|open|>argument key=\"content\" type=\"string\"<|sep|>{body}<|close|>argument<|sep|><|open|>argument key=\"more\" type=\"object\"<|sep|>{{\"list\": [1, \"]\", {{}}]}}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>"),
        ),
        (
            Family::Step3,
            format!("Now.<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"write\">\n<steptml:parameter name=\"path\">src/a.rs</steptml:parameter>\n<steptml:parameter name=\"line\">7</steptml:parameter>\n<steptml:parameter name=\"content\">{body}</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"),
        ),
        (
            Family::MiniMaxM3,
            format!("<mm:think>Call ]<]minimax[>[<invoke name=\"x\"> later.</mm:think>Now.\n]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"write\">]<]minimax[>[<path>src/a.rs]<]minimax[>[</path>]<]minimax[>[<line>7]<]minimax[>[</line>]<]minimax[>[<content>{body}]<]minimax[>[</content>]<]minimax[>[<more>]<]minimax[>[<list>1]<]minimax[>[</list>]<]minimax[>[<list>]<]minimax[>[</list>]<]minimax[>[</more>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>"),
        ),
        (
            // A head's `>` inside a block token: no head's end.
            Family::MiniMaxM3,
            format!("Now.]<]minimax[>[<invoke name=ate it.\n]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"write\">]<]minimax[>[<content>{body}]<]minimax[>[</content>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>]<]minimax[>[<invoke name=write ]<]minimax[>X]<]minimax[>[<line>7]<]minimax[>[</line>]<]minimax[>[</invoke>"),
        ),
        (
            Family::Glm,
            format!("Now.\n<tool_call>write\n<arg_key>path</arg_key>\n<arg_value>src/a.rs</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{body}</arg_value>\n</tool_call>"),
        ),
        (
            Family::MiniMax,
            format!("<minimax:tool_call>\n<invoke name=\"write\">\n<parameter name=\"line\">7</parameter>\n<parameter name=\"content\">{body}</parameter>\n</invoke>\n</minimax:tool_call>"),
        ),
        (
            // An invoke block, then a block holding JSON.
            Family::Dots,
            format!("Now.<dots_function_call>\n<invoke name=\"write\">\n<parameter name=\"line\">7</parameter>\n<parameter name=\"content\">{body}</parameter>\n</invoke>\n</dots_function_call>\n<dots_function_call> \n{{\"name\": \"write\", \"arguments\": {{\"content\": \"{quoted}\"}}}}</dots_function_call> after"),
        ),
        (
            Family::DeepSeekDsml,
            format!("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write\">\n<｜DSML｜parameter name=\"content\" string=\"true\">{body}</｜DSML｜parameter>\n<｜DSML｜parameter name=\"line\" string=\"false\">7</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"),
        ),
        (
            Family::Gemma4,
            format!("<|tool_call>call:write{{path:<|\"|>src/a.rs<|\"|>,content:<|\"|>{body}<|\"|>,line:7}}<tool_call|>"),
        ),
        (
            Family::FunctionGemma,
            format!("Now.<start_function_call>call:write{{path:<escape>src/a.rs<escape>,content:<escape>{body}<escape>,line:7}}<end_function_call>"),
        ),
        (
            Family::Olmo3,
            format!("Now.<function_calls>write(path=\"src/a.rs\", content=\"{quoted}\", line=7)\nnow()</function_calls> after"),
        ),
        (
            Family::Pythonic,
            format!("[write(path='src/a.rs', content=\"{quoted}\", line=7), write(content='{}', line=[1, (2, 3)])]", quoted.replace('\'', "\\'")),
        ),
        (
            Family::Lfm2,
            format!("<|tool_call_start|>[write(path=\"src/a.rs\", content=\"{quoted}\")]<|tool_call_end|> after"),
        ),
        (
            Family::Hermes,
            format!("<tool_call>\n{{\"name\": \"write\", \"arguments\": {{\"content\": \"{quoted}\"}}}}   \n\n </tool_call>"),
        ),
        (
            Family::Hermes,
            format!("<tool_call>{{\"name\": \"write\", \"arguments\": {{\"line\": 12, \"tags\": [{{\"a\": [1, 2.5e3, true, null]}}], \"content\": \"{quoted}\"}}}}</tool_call>"),
        ),
        (
            // A head with escapes in its strings (and a tag's first byte).
            Family::Hermes,
            format!("<tool_call>{{\"id\": \"c\\\"1\\\\\", \"note\": \"a \\\"long\\\" <note>\", \"name\": \"wr\\u0069te\", \"arguments\": {json}}}</tool_call>"),
        ),
        (
            // A head that runs past its window: the call comes whole.
            Family::Hermes,
            format!("<tool_call>{{\"note\": \"{}\", \"name\": \"write\", \"arguments\": {json}}}</tool_call>", "\\\"x".repeat(200)),
        ),
        (
            Family::Kimi,
            format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>{json}<|tool_call_end|><|tool_calls_section_end|>"),
        ),
        (
            Family::DeepSeek,
            format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>{json}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        ),
        (Family::Llama3, format!("Sure. <function=write>{json}</function> Done.")),
        (
            Family::Llama3,
            format!("<|python_tag|>{{\"name\": \"write\", \"parameters\": {json}}}; {{\"name\": \"write\", \"parameters\": {json}}}<|eom_id|>"),
        ),
        (Family::Mistral, format!("Sure.[TOOL_CALLS]write[ARGS]{json}[TOOL_CALLS]write[CALL_ID]a1B2c3D4e[ARGS]{json}")),
        (
            Family::Harmony,
            format!("<|start|>assistant<|channel|>commentary to=functions.write <|constrain|>json<|message|>{json}<|call|>"),
        ),
        (
            Family::MuseGlimmer,
            format!(" to=self<|message|>Write it.<|eom|><|start|>assistant to=write<|message|><atem:function_calls>\n<atem:invoke name=\"write\">\n<atem:parameter name=\"path\">src/a.rs</atem:parameter>\n<atem:parameter name=\"content\">{body}</atem:parameter>\n</atem:invoke>\n<atem:invoke name=\"write\"><atem:parameter name=\"line\">7</atem:parameter><atem:parameter name=\"content\">{body}</atem:parameter></atem:invoke>\n</atem:function_calls><|eom|><|start|>assistant to=user<|message|>Done.<|eot|>"),
        ),
        (
            Family::MuseGlimmer,
            format!("<atem:function_calls><atem:invoke name=\"write\"><atem:parameter name=\"content\">{body}</atem:parameter><atem:parameter name=\"more\">{{\"list\": [1]}}</atem:parameter></atem:invoke></atem:function_calls>"),
        ),
        (
            Family::MiniCpm5,
            format!("Sure.\n<function name=\"write\"><param name=\"path\">src/a.rs</param><param name=\"content\"><![CDATA[{body}]]></param><param name=\"note\">a &lt; b &amp;&amp; c</param></function>\n<functionname=\"now\"></function>"),
        ),
        (
            Family::Inkling,
            format!("<|content_thinking|>Write it.<|end_message|><|message_model|>write<|content_invoke_tool_json|>{{\"name\":\"write\",\"args\":{json}}}<|end_message|><|message_model|><|content_text|>Done.<|end_message|>"),
        ),
        (
            Family::Xlam,
            format!("Run `x` first:\n```python\nprint([1])\n```\nThen:\n```json\n[{{\"name\": \"write\", \"arguments\": {json}}}, {{\"name\": \"now\", \"arguments\": {{}}}}]\n```\nDone."),
        ),
        (
            Family::Xlam,
            format!("[{{\"name\": \"write\", \"arguments\": {json}}}] then <tool_call>[{{\"name\": \"now\", \"arguments\": {{}}}}]</tool_call>"),
        ),
        (
            Family::GigaChat,
            format!("Sure, <|function_call|> is next.<|message_sep|>\n\nfunction call<|role_sep|>\n{{\"name\": \"write\", \"arguments\": {json}}}</s>"),
        ),
        (
            Family::Apertus,
            format!("Sure: <|tools_prefix|>[{{\"write\": {json}}}, 7, {{\"now\": {{}}}}]  <|tools_suffix|> done"),
        ),
        (
            Family::GraniteFc,
            format!("Sure.\n<function_call> {{\"name\": \"write\", \"arguments\": {json}}}\n<function_call> {{\"name\": \"now\", \"arguments\": {{}}}} done"),
        ),
        (
            Family::Granite,
            format!("<|tool_call|>[{{\"name\": \"write\", \"arguments\": {json}}}, {{\"name\": \"write\", \"arguments\": {json}}}]"),
        ),
        (
            Family::CommandR7b,
            format!("<|START_ACTION|>[{{\"tool_call_id\": \"0\", \"tool_name\": \"write\", \"parameters\": {json}}}]<|END_ACTION|>"),
        ),
        (
            Family::Hunyuan,
            format!("<tool_calls>[{{\"name\": \"write\", \"arguments\": {json}}}]</tool_calls>"),
        ),
        (Family::Phi4Mini, format!("functools[{{\"name\": \"write\", \"arguments\": {json}}}]")),
    ]
}

/// The events of each push (and of the finish), `text` cut into pieces of
/// `sizes` bytes in turn (each end moved on to a char boundary).
fn events_per_piece(
    family: Family,
    text: &str,
    sizes: &[usize],
    tools: Option<&[Tool]>,
    every: bool,
) -> Vec<Vec<CallEvent>> {
    events_of(TextStream::new(Some(family), tools), text, sizes, every)
}

/// [`events_per_piece`] from `stream`.
fn events_of(mut stream: TextStream<'_>, text: &str, sizes: &[usize], every: bool) -> Vec<Vec<CallEvent>> {
    READ_EVERY_PIECE.with(|flag| flag.set(every));
    let mut all = Vec::new();
    let mut start = 0;
    for size in sizes.iter().cycle() {
        if start >= text.len() {
            break;
        }
        let mut end = (start + size.max(&1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let mut events = Vec::new();
        stream.push(&text[start..end], &mut events).unwrap();
        all.push(events);
        start = end;
    }
    let mut events = Vec::new();
    stream.finish(&mut events).unwrap();
    all.push(events);
    READ_EVERY_PIECE.with(|flag| flag.set(false));
    all
}

#[test]
fn pieces_appended_without_reading_change_no_event() {
    let tools = tools();
    let mut texts = fixtures();
    assert!(texts.len() >= 17 * 6, "{} fixtures", texts.len());
    texts.extend(long_values());
    APPENDED_UNREAD.with(|count| count.set(0));
    for (family, text) in &texts {
        for typed in [None, Some(&tools[..])] {
            for size in [1, 2, 3, 4, 5, 7, 16, 64] {
                let read = events_per_piece(*family, text, &[size], typed, true);
                let appended = events_per_piece(*family, text, &[size], typed, false);
                assert_eq!(appended, read, "{family} in {size}-byte pieces: {text:?}");
            }
        }
    }
    // The shortcut was taken (the long values alone give thousands of pieces).
    let appended = APPENDED_UNREAD.with(std::cell::Cell::get);
    assert!(appended > 5_000, "{appended} pieces appended unread");
}

/// Without changes, a stream sends the events it sends with them, their
/// changes left out, piece for piece.
#[test]
fn a_stream_without_changes_sends_the_same_events_without_them() {
    let tools = tools();
    let mut texts = fixtures();
    texts.extend(long_values());
    for (family, text) in &texts {
        for typed in [None, Some(&tools[..])] {
            for size in [1, 3, 4, 16] {
                let mut with = events_per_piece(*family, text, &[size], typed, false);
                for event in with.iter_mut().flatten() {
                    if let CallEvent::ArgumentsDelta { changes, .. }
                    | CallEvent::ArgumentsReplaced { changes, .. } = event
                    {
                        changes.clear();
                    }
                }
                let stream = TextStream::new(Some(*family), typed).send_changes(false);
                let without = events_of(stream, text, &[size], false);
                assert_eq!(without, with, "{family} in {size}-byte pieces: {text:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The same for pieces of any sizes.
    #[test]
    fn any_pieces_appended_without_reading_change_no_event(
        which in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(1..24usize, 1..16),
        typed in any::<bool>(),
    ) {
        let mut texts = fixtures();
        texts.extend(long_values());
        let (family, text) = which.get(&texts);
        let tools = tools();
        let typed = typed.then_some(&tools[..]);
        let read = events_per_piece(*family, text, &sizes, typed, true);
        let appended = events_per_piece(*family, text, &sizes, typed, false);
        prop_assert_eq!(appended, read);
    }
}

/// A call's head waits for what decides it (an envelope's string for its
/// closing quote, a token for its first byte and then its length): every
/// cut of the head, with any piece after it, sends the events of reading
/// every piece.
#[test]
fn a_head_cut_anywhere_sends_the_events_of_reading_every_piece() {
    for (family, text) in [
        (Family::Hermes, "<tool_call>{\"name\": \"write\", \"arguments\": {\"a\": 1}}</tool_call>"),
        (
            Family::Hermes,
            "<tool_call>{\"id\": \"c\\\"\\\\\", \"\": 0, \"name\": \"wr\\u0069te\", \"arguments\": {}}</tool_call>",
        ),
        (
            Family::Kimi,
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>",
        ),
        (
            Family::Kimi,
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.a<b:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>",
        ),
        (
            Family::DeepSeek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
    ] {
        for size in 1..text.len() {
            for first in 1..=size {
                let read = events_per_piece(family, text, &[first, size], None, true);
                let appended = events_per_piece(family, text, &[first, size], None, false);
                assert_eq!(appended, read, "{family} in pieces of {first} and {size} bytes: {text}");
            }
        }
    }
}
