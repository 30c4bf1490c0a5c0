//! Raw-text tool calls streamed: any split of a text into pieces gives the
//! calls and prose of the whole-text parse (the fixtures of `tests/text.rs`,
//! written from the families' chat templates and the inference servers'
//! parsers, and garbled variants), events in order, and linear time on
//! adversarial text.

use proptest::prelude::*;
use serde_json::{json, Value};
use toolbridge::call::{CallEvent, Change, PartialJson, ToolCall};
use toolbridge::text::{parse, Family, TextStream};
use toolbridge::{Pointer, Tool};

// The benchmarks' documents: the adversarial pieces and the cutter.
#[path = "../benches/documents/mod.rs"]
mod documents;

use documents::{deltas, ADVERSARIAL, ADVERSARIAL_FAMILIES, MANY_CALLS};

/// (family, text, whether the tools of `weather` type it).
const FIXTURES: &[(Family, &str, bool)] = &[
    (Family::Hermes, "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Z\\u00fcrich \\\"old town\\\"\"}}\n</tool_call>\nDone.", false),
    (Family::Hermes, "<tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}", false),
    (Family::Hermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par", false),
    // OLMo 3: a later call cut off after its `(` is a call cut off, as in a
    // pythonic list; a name cut before its `(` stays in the prose.
    (Family::Olmo3, "<function_calls>get_weather(city=\"Paris\")\nsearch(", false),
    (Family::Olmo3, "<function_calls>get_weather(city=\"Paris\")\nsear", false),
    (Family::SeedOss, "<seed:think>a <seed:tool_call> b</seed:think><seed:tool_call>\n<function=get_weather>\n<parameter=city>Par\nis\n</parameter>\n</function>\n</seed:tool_call>", true),
    (Family::Hermes, "<think>I could call <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call></think>No call needed.", false),
    (Family::Hermes, "<think>Calling now <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>", false),
    (Family::Hermes, "<tool_call> not json </tool_call> then <tool_call>{\"name\": \"b\", \"arguments\": {\"x\": [1, 2]}}</tool_call> ünïcødé ✓", false),
    (Family::Hermes, "<tool_call>{\"id\": \"c7\", \"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}, \"id\": \"z9\", \"name\": \"f\"}</tool_call>", false),
    (Family::Hermes, "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}, \"x\": ]]</tool_call><tool_call>{\"arguments\": {}, \"name\": \"now\"}</tool_call>", false),
    (Family::Granite, "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}, \"id\": \"z9\"}, {\"arguments\": {}, \"name\": \"now\"}, {\"name\": \"later\", \"arguments\": {}}]", false),
    (Family::Granite, "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"x\": 1}}, 7, {\"name\": \"b\", \"arguments\": {}}]", false),
    (Family::Granite, "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"x\": [1, {\"y\": \"]\"}]}}, {\"name\": \"b\", \"arguments\": {\"z\": tru", false),
    (Family::Hunyuan, "<tool_calls>[{\"name\": \"a\", \"arguments\": {}} {\"name\": \"b\", \"arguments\": {\"q\": \"\\u00e9\"}}]</tool_calls> done", false),
    (Family::CommandR7b, "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {}}, {\"tool_call_id\": \"1\", \"name\": \"b\", \"tool_name\": \"c\", \"parameters\": {\"k\": 2}}]<|END_ACTION|>", false),
    (Family::Phi4Mini, "functools[{\"name\": \"a\", \"arguments\": {\"x\": 1}}, {\"name\": \"a\", \"arguments\": {\"x\": 2}}]", false),
    // A block token inside an unclosed invoke element ends it: nothing past it names the call (cargo-fuzz).
    (Family::MiniMax, "<invoke name=<minimax:tool_call>] then <invoke name=\"f\"><parameter name=\"a\">1</parameter></invoke>", false),
    (Family::MiniMax, "<invoke name=\"f\"><parameter name=\"a\">1<minimax:tool_call></parameter></invoke>", false),
    (Family::DeepSeekDsml, "<｜DSML｜invoke name=\"g\"><｜DSML｜parameter name=\"a\" string=\"true\">x</｜DSML｜parameter><｜DSML｜tool_calls>", false),
    (Family::Gemma4, "<|tool_call>call:get_weather{city:<|\"|>Oslo, {old} [town]<|\"|>,days:3,tags:[<|\"|>a<|\"|>,<|\"|>b}<|\"|>],ratio:{x:[1,{y:2}]}}<tool_call|>", true),
    (Family::Gemma4, "<|tool_call>call:f{a:1,b:[1,2}<tool_call|><|tool_call>call:g{a:<|\"|>x", false),
    // Multi-byte characters in the arguments of a call being read (cargo-fuzz).
    (Family::Gemma4, "<|tool_call>ALLS]{\"]o?9 ɍ(<[0TOOL( é,x:<|\"|>ü<|\"|>}", false),
    // A thought channel inside a call's name ends the call there once it closes (cargo-fuzz).
    (Family::Gemma4, "<|tool_call>U[<|channel>x<channel|>{a:1}<tool_call|>", false),
    // A thought channel opening inside an unclosed call, with a call of its
    // own, closed later (the call ends where the channel opens; the one in
    // the channel is thought) and never closed (all of it is calls).
    (Family::Gemma4, "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|><|channel>thought\nor <|tool_call>call:f{a:1}<tool_call|> <channel|>Done.", false),
    (Family::Gemma4, "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|><|channel>thought\nor <|tool_call>call:f{a:1}<tool_call|> then", false),
    (Family::Qwen3Coder, "I'll look.\n<tool_call>\n<function=get_weather>\n<parameter=city>\n1984\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n<parameter=ratio>\n0.5\n</parameter>\n<parameter=tags>\n[\"a\", \"b\"]\n</parameter>\n</function>\n</tool_call>", true),
    (Family::Qwen3Coder, "<tool_call>\n<function=add>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\n2\n</function>\n</tool_call>\n<tool_call>\n<function=now>\n</function>\n</tool_call>", false),
    (Family::Qwen3Coder, "<tool_call><function=get_weather><parameter=days>2.0</parameter><parameter=ratio>lots</parameter></function></tool_call>", true),
    (Family::Qwen3Coder, "Text <tool_call> plain\n<function=f>\n<parameter=q>\nsé\n</parameter>\n</function>\n after", false),
    // Markup around no name runs as far as a call's body would, whole and streamed,
    // so a `<tool_call>` after its `</tool_call>` is the next call's (cargo-fuzz).
    (Family::Qwen3Coder, "<function=></tool_call><tool_call><function=l>", false),
    (Family::Qwen3Coder, "<function=><tool_call><function=l>", false),
    (Family::Llama3, "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}; {\"name\": \"now\", \"parameters\": {}}<|eom_id|>", false),
    (Family::Llama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"東京\"}}", false),
    (Family::Llama3, "Sure. <function=get_weather>{\"city\": \"Rome\"}</function> Anything else?", false),
    (Family::Llama3, "<function=read={\"path\": \"a.txt\"}</function>", false),
    (Family::Llama3, "Done <|eot_id|> and more <|eom_id|>\n", false),
    (Family::Llama3, "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": 1}}; {\"parameters\": {}, \"name\": \"b\"}; {\"name\": \"c\", \"parameters\": {}}<|eom_id|>", false),
    (Family::Llama3, "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": 1}, \"k\": ]}; {\"name\": \"b\", \"parameters\": {\"y\": \"}\"}}<|eom_id|>", false),
    // A JSON that is no call ends the calls; a `<function=` inside it opens a call (cargo-fuzz).
    (Family::Llama3, "{\"name\"<function=g]t{\"c\": 1}", false),
    (Family::Llama3, "{\"name\": \"a\", \"parameters\": {}}; {\"x\" <function=b>{}</function>]", false),
    (Family::Mistral, "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}, \"id\": \"abc123DEF\"}, {\"name\": \"now\", \"arguments\": {}}]", false),
    (Family::Mistral, "Sure.[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{\"city\": \"Nice\"}[TOOL_CALLS]now[ARGS]{}", false),
    (Family::Mistral, "[TOOL_CALLS]add{\"a\": 1, \"b\": 2}", false),
    (Family::Mistral, "[{\"name\": \"now\", \"arguments\": {}}]", false),
    (Family::Mistral, "[TOOL_CALLS]get_weather[ARGS]{\"days\": \"3\"}", true),
    (Family::Mistral, "[THINK]plan [TOOL_CALLS]x[ARGS]{}[/THINK]Answer.[TOOL_CALLS]y[ARGS]{\"s\": \"a\\nb\"", false),
    (Family::Pythonic, "[get_weather(city='San Francisco', days=3, metric=True, tags=[\"a\", 'b\\'c']), now()]", false),
    (Family::Pythonic, "<|python_start|>[search(query=\"caf\\u00e9\", limit=None, opts={'x': -1.5})]<|python_end|>", false),
    (Family::Pythonic, "[get_weather(city='Par", false),
    (Family::Pythonic, "  [f(a=')')] and then prose", false),
    // Cut after an escaped backslash: the closed text keeps both (cargo-fuzz).
    (Family::Pythonic, "[K(r=\"aarQQQQQQQn_tiC\\\\", false),
    // A list broken after its calls, and inside a call's arguments.
    (Family::Pythonic, "[now(), get_weather(city='Oslo', days=soon), 42, f(x=[1)]", false),
    (Family::Pythonic, "[now(), get_weather(city=\"Oslo\\u12", false),
    (Family::Lfm2, "<|tool_call_start|>[now(), get_weather(city=\"Oslo\")] so<|tool_call_end|> then", false),
    (Family::Lfm2, "<|tool_call_start|>get_weather(city=\"Oslo\", days=3)<|tool_call_end|>", false),
    // A copy of the call's list after it, closed by a second end token, is dropped.
    (Family::Lfm2, "<|tool_call_start|>[now()]<|tool_call_end|>\n[now()] <|tool_call_end|>Done.", false),
    (Family::Lfm2, "<|tool_call_start|>[now()]<|tool_call_end|>[now(), now()]", false),
    (Family::DeepSeek, "Let me see.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Berlin\"}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", false),
    (Family::DeepSeek, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Kraków\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", false),
    (Family::DeepSeek, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Kra", false),
    (Family::Glm, "Checking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>42</arg_value>\n<arg_key>days</arg_key>\n<arg_value>7</arg_value>\n</tool_call>", true),
    (Family::Glm, "<tool_call>now</tool_call><tool_call>add<arg_key>a</arg_key><arg_value>1", false),
    // The call's tags inside a value are text; an unclosed value ends the call at its first one.
    (Family::Glm, "<tool_call>w<arg_key>c</arg_key><arg_value>Wrap in <tool_call> and </tool_call>.</arg_value></tool_call> ok", false),
    (Family::Glm, "<tool_call>w<arg_key>c</arg_key><arg_value>x</tool_call> so <tool_call>v<arg_key>d</arg_key><arg_value>y</arg_value></tool_call>", false),
    (Family::Glm, "<tool_call>w<arg_key>c</arg_key><arg_value>x</tool_call> and prose", false),
    (Family::Qwen3Coder, "<tool_call>\n<function=write>\n<parameter=content>\nWrap it: <tool_call>\n<function=NAME>\n</function>\n</tool_call>\n</parameter>\n</function>\n</tool_call> ok", false),
    (Family::Qwen3Coder, "<tool_call><function=w><parameter=c>x</function></tool_call> so <tool_call><function=v><parameter=d>y</parameter></function></tool_call>", false),
    (Family::Qwen3Coder, "<tool_call><function=w><parameter=c>x</tool_call> and <function=v></function> prose", false),
    (Family::Glm, "<tool_call>w<arg_key>c</arg_key><arg_value>1</arg_value><arg_key>c</arg_key><arg_value>2</arg_value></tool_call>", false),
    // Hy3: GLM's markup with <tool_sep> after the name, inside <tool_calls>.
    (Family::Glm, "Checking.<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>\n<tool_call>now<tool_sep>\n</tool_call>\n</tool_calls> Done.", true),
    // A </parameter> closes its value only before </function>, </tool_call> or a
    // (declared) parameter; markup written in a value at a line's start nests.
    (Family::Qwen3Coder, "<tool_call>\n<function=get_weather>\n<parameter=city>\nclose with </parameter> then\n<parameter=days>\n3\n</parameter>\n</parameter>\n<parameter=days>\n4\n</parameter>\n</function>\n</tool_call> ok", true),
    (Family::Qwen3Coder, "<tool_call><function=get_weather><parameter=city>a</parameter><parameter=mode>b</parameter></function></tool_call><tool_call><function=get_weather><parameter=city>c</parameter>   \n</function></tool_call>", true),
    (Family::Qwen3Coder, "<function=w><parameter=c>x</parameter> and </parameter></function> prose <function=v><parameter=d>y", false),
    (Family::Kimi, "<think>Weather, then time.</think>Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Seoul\"}<|tool_call_end|><|tool_call_begin|>functions.now:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>", false),
    // Muse Glimmer's tool messages, read invoke by invoke as they arrive: two
    // calls in one message; an invoke that names no tool (the calls after it
    // come at the message's end), one whose end tag is missing, a name
    // written twice, a message cut short by the next; framing lost.
    (Family::MuseGlimmer, "<|start|>assistant to=functions<|message|><atem:function_calls><atem:invoke name=\"now\"></atem:invoke>\n<atem:invoke name=\"get_weather\"><atem:parameter name=\"city\">Oslo</atem:parameter><atem:parameter name=\"days\">2</atem:parameter></atem:invoke></atem:function_calls><|eom|>", true),
    (Family::MuseGlimmer, "<|start|>assistant to=x<|message|><atem:invoke name=\"\"></atem:invoke><atem:invoke name=\"now\"><atem:parameter name=\"a\">1</atem:invoke> text <atem:invoke name=\"get_weather.get_weather\"><atem:parameter name=\"city\">Rome<|start|>assistant to=user<|message|>Done.", true),
    (Family::MuseGlimmer, " to=get_weather<|message|><atem:invoke name=\"get_weather.get_weather\"><atem:parameter name=\"city\">Oslo</atem:parameter></atem:invoke><atem:invoke name=\"now\"></atem:function_calls><atem:invoke name=\"later\"><|eot|>", true),
    (Family::MuseGlimmer, "<atem:invoke name=\"now\"></atem:invoke><|start|>assistant to=t<|message|><atem:invoke name=\"a\"><atem:parameter name=\"k\">v</atem:parameter><atem:invoke name=\"b\"><|eom|>", false),
    (Family::MuseGlimmer, " to=self<|message|>Weather first.<|eom|>assistant to=get_weather<|message|><atem:invoke name=\"get_weather\"><atem:parameter name=\"city\">Oslo</atem:parameter></atem:invoke><|eom|>  to=user<|message|>Asking.<|eot|>assistant: to be continued<|eom|>assi", true),
    // Harmony: the rest of a role header after a message, as at the text's
    // start; a <|message|> without a header, its content prose.
    (Family::Harmony, "<|channel|>final<|message|>hi<|end|> to=functions.get_weather<|message|>{\"city\": \"Oslo\"}<|call|>\n assistant<|channel|>final<|message|>ok<|return|> and <|message|>more<|end|> done", true),
    (Family::Harmony, "days<|call|>: <|message|>commentary to=functions.search <|message|><|call|>days: 2<|end|><|message|>}<|channel|>", false),
    // Messages that are prose, sent as they come (an unclosed thought
    // channel's call counts; a closed one's does not).
    (Family::Harmony, "<|channel|>analysis<|message|>Weather <|call|> first.<|end|><|start|>assistant to=browser.search<|channel|>commentary<|message|>{}<|call|><|start|>assistant<|channel|>final<|message|>Sunny.<|return|>", false),
    (Family::MuseGlimmer, "\n to=self<|message|>Think <atem:invoke name=\"now\"></atem:invoke><|eom|>\n\nassistant to=user<|message|>Sunny<|start|>assistant to=user<|message|>Rain.<|eot|>", false),
    (Family::Inkling, "  lookup<|content_thinking|>Think.<|content_invoke_tool_json|>{\"name\": \"now\", \"args\": {}}<|end_message|><|message_model|> <|content_thinking|>More<|end_message|>", false),
    (Family::Gemma4, "<|channel>thought\nA <tool_call|> call <|tool_call>call:now{}<tool_call|><channel|>Then <|channel>thought\nB <|tool_response> <|tool_call>call:now{}<tool_call|>", false),
    // MiniMax-M3: a head's `>` inside a block token cut by a piece is no
    // head's end (fuzz).
    (Family::MiniMaxM3, "I will create it.]<]minimax[>[<invoke name=ate it.\n]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"create_order\">]<]minimax[>[<user_id>42]<]minim!x[>[</user_id>]<]minimax[>[<urgen", false),
    // MiniCPM5: a name whose quote runs past a collapsed tag is read as
    // written, as the stream announces it (fuzz).
    (Family::MiniCpm5, "Sure.\n<function name=\"get_weather><paramname=\"properties\">{'query': 'rain'}</param></function>\n<function\u{0120}name?\"now\"><param name=\"q\">a &$lt; b &#x69; &amp</param>", false),
    (Family::Kimi, "<think>I need the time.<|tool_calls_section_begin|><|tool_call_begin|>functions.now:0<|tool_call_argument_begin|>{}<|tool_call_end|>", false),
];

fn weather() -> Vec<Tool> {
    vec![Tool::new(
        "get_weather",
        json!({"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"},
            "metric": {"type": "boolean"}, "ratio": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}}}}),
    )]
}

/// What a stream gave: its calls (from `Finished`), its prose (the `Text`
/// events joined, trimmed), every event, and its notes.
struct Streamed {
    calls: Vec<ToolCall>,
    prose: String,
    events: Vec<CallEvent>,
    notes: Vec<String>,
}

fn stream(pieces: &[&str], family: Option<Family>, tools: Option<&[Tool]>) -> Streamed {
    let mut stream = TextStream::new(family, tools);
    let mut events = Vec::new();
    for piece in pieces {
        stream.push(piece, &mut events).unwrap();
    }
    stream.finish(&mut events).unwrap();
    let mut calls = Vec::new();
    let mut prose = String::new();
    for event in &events {
        match event {
            CallEvent::Finished { call, .. } => calls.push((**call).clone()),
            CallEvent::Text { text } => prose.push_str(text),
            _ => {}
        }
    }
    Streamed {
        calls,
        prose: prose.trim().to_string(),
        events,
        notes: stream.notes().iter().map(ToString::to_string).collect(),
    }
}

/// The events of [`stream`], read through `push_reusing`: each piece's
/// events are copied out before the next piece reuses their buffers.
fn stream_reusing(pieces: &[&str], family: Option<Family>, tools: Option<&[Tool]>) -> Vec<CallEvent> {
    let mut stream = TextStream::new(family, tools);
    let mut events = Vec::new();
    let mut all = Vec::new();
    for piece in pieces {
        stream.push_reusing(piece, &mut events).unwrap();
        all.extend(events.iter().cloned());
    }
    stream.push_reusing("", &mut events).unwrap();
    all.extend(events.iter().cloned());
    events.clear();
    stream.finish(&mut events).unwrap();
    all.extend(events);
    all
}

/// The events are well formed: each call starts once, under the id and
/// name it finishes with, its deltas (and a replacement) rebuild the
/// finished arguments, and it finishes once.
fn check_events(events: &[CallEvent]) {
    let mut open: Vec<Option<((String, String), PartialJson)>> = Vec::new();
    for event in events {
        match event {
            CallEvent::Started { index, id, name, .. } => {
                assert_eq!(*index, open.len(), "indexes in order");
                open.push(Some(((id.clone(), name.clone()), PartialJson::new())));
            }
            CallEvent::ArgumentsDelta { index, text, .. } => {
                let (_, partial) = open[*index].as_mut().expect("a delta of an open call");
                let _ = partial.feed(text, &mut Vec::new());
            }
            CallEvent::ArgumentsReplaced { index, text, .. } => {
                let mut partial = PartialJson::new();
                let _ = partial.feed(text, &mut Vec::new());
                open[*index].as_mut().expect("a replacement of an open call").1 = partial;
            }
            CallEvent::Finished { index, call } => {
                let ((id, name), partial) = open[*index].take().expect("finished once");
                assert_eq!(id, call.id, "the started id is the finished one");
                assert_eq!(name, call.name, "the started name is the finished one");
                if let Ok(arguments) = &call.arguments {
                    assert_eq!(partial.value(), Some(arguments), "deltas rebuild {}", call.name);
                }
            }
            _ => {}
        }
    }
    assert!(open.iter().all(Option::is_none), "every call finished");
}

fn whole(text: &str, family: Family, typed: bool) -> (Vec<ToolCall>, String) {
    let tools = weather();
    let parsed = parse(text, family, typed.then_some(&tools[..])).unwrap();
    (parsed.calls, parsed.prose)
}

/// `text` cut at the char boundaries nearest `cuts` (fractions of its length).
fn split<'t>(text: &'t str, cuts: &[usize]) -> Vec<&'t str> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|cut| {
            let mut at = cut % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        })
        .collect();
    at.push(0);
    at.push(text.len());
    at.sort_unstable();
    at.dedup();
    at.windows(2).map(|w| &text[w[0]..w[1]]).collect()
}

#[test]
fn every_fixture_whole_and_char_by_char_gives_the_whole_parse() {
    let tools = weather();
    for &(family, text, typed) in FIXTURES {
        let expected = whole(text, family, typed);
        let tools = typed.then_some(&tools[..]);
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        for pieces in [vec![text], chars] {
            let got = stream(&pieces, Some(family), tools);
            assert_eq!(got.calls, expected.0, "calls of {family} {text:?}");
            assert_eq!(got.prose, expected.1, "prose of {family} {text:?}");
            check_events(&got.events);
            let reused = stream_reusing(&pieces, Some(family), tools);
            assert_eq!(
                reused, got.events,
                "events of {family} {text:?} with buffers reused"
            );
        }
    }
}

#[test]
fn detected_while_streaming_as_whole() {
    let tools = weather();
    for &(family, text, typed) in FIXTURES {
        if Family::detect(text) != Some(family) {
            continue;
        }
        let expected = whole(text, family, typed);
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        let got = stream(&chars, None, typed.then_some(&tools[..]));
        assert_eq!(got.calls, expected.0, "calls of auto {text:?}");
        assert_eq!(got.prose, expected.1, "prose of auto {text:?}");
    }
}

#[test]
fn prose_goes_out_before_the_call_ends_and_arguments_stream() {
    let mut stream = TextStream::new(Some(Family::Hermes), None);
    let mut events = Vec::new();
    stream.push("Hello there <tool", &mut events).unwrap();
    assert_eq!(
        events,
        [CallEvent::Text {
            text: "Hello there ".into()
        }]
    );
    events.clear();
    stream
        .push("_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x", &mut events)
        .unwrap();
    // The envelope named the tool: the call is announced and its arguments
    // stream before the block closes.
    assert_eq!(
        events,
        [
            CallEvent::Started {
                index: 0,
                id: "call_0".into(),
                name: "f".into(),
                choice: None,
            },
            CallEvent::ArgumentsDelta {
                index: 0,
                text: "{\"a\": \"x".into(),
                changes: vec![
                    Change::Set {
                        at: Pointer::root(),
                        value: json!({}),
                    },
                    Change::Set {
                        at: Pointer::parse("/a").unwrap(),
                        value: json!("x"),
                    },
                ],
            },
        ]
    );
    events.clear();
    stream.push("y\"}}</tool_call>", &mut events).unwrap();
    stream.finish(&mut events).unwrap();
    let kinds: Vec<Value> = events
        .iter()
        .map(|event| serde_json::to_value(event).unwrap()["event"].clone())
        .collect();
    assert_eq!(kinds, [json!("arguments-delta"), json!("finished")]);
    let CallEvent::Finished { call, .. } = &events[1] else {
        panic!("{events:?}");
    };
    assert_eq!(call.arguments.as_ref().unwrap(), &json!({"a": "xy"}));
}

/// A family's fixture texts cut into the pieces random texts of its
/// markup are made of: before each `<`, `[`, `{`, `}`, `"` and line break,
/// after each `>` and `]` (at most 60 bytes each), and reasoning tags, a
/// space, a line break, a letter.
fn fragments(family: Family) -> Vec<String> {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/text")
        .join(family.id());
    let mut fragments: Vec<String> = ["<think>", "</think>", " ", "\n", "é"].map(String::from).to_vec();
    let mut files: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    for file in files
        .iter()
        .filter(|file| file.extension().is_some_and(|e| e == "txt"))
    {
        let text = std::fs::read_to_string(file).unwrap();
        let mut start = 0;
        for (at, c) in text.char_indices() {
            let cut = match c {
                '<' | '[' | '{' | '}' | '"' | '\n' => Some(at),
                '>' | ']' => Some(at + 1),
                _ => None,
            };
            if let Some(cut) = cut.filter(|&cut| cut > start) {
                fragments.push(text[start..cut].to_string());
                start = cut;
            } else if at - start >= 60 {
                fragments.push(text[start..at].to_string());
                start = at;
            }
        }
        fragments.push(text[start..].to_string());
    }
    fragments.retain(|fragment| !fragment.is_empty());
    fragments.sort();
    fragments.dedup();
    fragments
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random texts of each family's own markup (its fixtures' fragments
    /// in any order), cut anywhere, stream as they parse whole: the calls,
    /// the prose, each call started as it finishes. A lone closing
    /// reasoning tag after markup read is the one difference, and noted.
    #[test]
    fn random_markup_of_each_family_streams_as_whole(
        which in 0..toolbridge::text::FAMILIES.len(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 2..10),
        cuts in prop::collection::vec(any::<usize>(), 0..4),
        typed in any::<bool>(),
    ) {
        let family = toolbridge::text::FAMILIES[which].family;
        let fragments = fragments(family);
        let text: String = picks.iter().map(|pick| pick.get(&fragments).as_str()).collect();
        let tools = weather();
        let got = stream(&split(&text, &cuts), Some(family), typed.then_some(&tools[..]));
        check_events(&got.events);
        if !got.notes.iter().any(|note| note.contains("no opening one")) {
            let (calls, prose) = whole(&text, family, typed);
            prop_assert_eq!(got.calls, calls, "{} {:?}", family, text);
            prop_assert_eq!(got.prose, prose.trim(), "{} {:?}", family, text);
        }
    }
}

#[test]
fn a_lone_closing_tag_after_a_call_is_noted() {
    let text = "maybe <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call></think>\n\nHi";
    let mut stream = TextStream::new(Some(Family::Hermes), None);
    let mut events = Vec::new();
    stream.push(text, &mut events).unwrap();
    stream.finish(&mut events).unwrap();
    assert_eq!(stream.notes().len(), 1);
    assert!(stream.notes()[0]
        .to_string()
        .contains("closing reasoning tag with no opening one"));
}

/// Markup read before a lone closing tag, with no call in it, is noted
/// too: the stream took its tokens out of the prose it sent, which the
/// whole parse keeps as written (the text before the tag is reasoning).
#[test]
fn a_lone_closing_tag_after_markup_without_calls_is_noted() {
    let text = "Let me see.<|tool_calls_section_begin|><|tool_calls_section_end|>rain</think>Sunny.";
    let streamed = stream(&[text], Some(Family::Kimi), None);
    let (_, prose) = whole(text, Family::Kimi, false);
    assert_eq!(
        prose,
        "Let me see.<|tool_calls_section_begin|><|tool_calls_section_end|>rain</think>Sunny."
    );
    assert_eq!(streamed.prose, "Let me see.rain</think>Sunny.");
    let mut stream = TextStream::new(Some(Family::Kimi), None);
    let mut events = Vec::new();
    stream.push(text, &mut events).unwrap();
    stream.finish(&mut events).unwrap();
    let notes: Vec<String> = stream.notes().iter().map(ToString::to_string).collect();
    assert_eq!(
        notes,
        ["error: a closing reasoning tag with no opening one follows markup the stream already read (its tokens are out of the prose sent); read whole, the text before it is reasoning, kept in the prose as written (at /)"]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_split_gives_the_whole_parse(
        which in 0..FIXTURES.len(),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        auto in any::<bool>(),
    ) {
        let (family, text, typed) = FIXTURES[which];
        let tools = weather();
        let expected = whole(text, family, typed);
        let pieces = split(text, &cuts);
        let detect = auto && Family::detect(text) == Some(family);
        let got = stream(&pieces, if detect { None } else { Some(family) }, typed.then_some(&tools[..]));
        prop_assert_eq!(&got.calls, &expected.0);
        prop_assert_eq!(&got.prose, &expected.1);
        check_events(&got.events);
        let family = if detect { None } else { Some(family) };
        let reused = stream_reusing(&pieces, family, typed.then_some(&tools[..]));
        prop_assert_eq!(&reused, &got.events);
    }
}

/// A region of many calls under one id streams to the whole-text parse:
/// each call announced as it begins, its id made unique as the parse makes it.
#[test]
fn many_calls_in_one_region_stream_as_whole() {
    for (family, open, call) in MANY_CALLS {
        let text = format!("{open}{}", call.repeat(200));
        let streamed = stream(&deltas(&text, 3), Some(family), None);
        let (calls, prose) = whole(&text, family, false);
        assert_eq!(calls.len(), 200, "{family}");
        assert_eq!(streamed.calls, calls, "{family}");
        assert_eq!(streamed.prose, prose.trim(), "{family}");
        check_events(&streamed.events);
    }
}

/// Adversarial text pushed three bytes at a time gives the calls and
/// prose of the whole-text parse, with well-formed events.
#[test]
fn adversarial_text_streams_as_whole() {
    for family in ADVERSARIAL_FAMILIES {
        for piece in ADVERSARIAL {
            let text = piece.repeat(300);
            let streamed = stream(&deltas(&text, 3), Some(family), None);
            let (calls, prose) = whole(&text, family, false);
            assert_eq!(streamed.calls, calls, "{family} {piece:?}");
            assert_eq!(streamed.prose, prose.trim(), "{family} {piece:?}");
            check_events(&streamed.events);
        }
    }
}

/// The prose a stream of `family` has sent once `pieces` were pushed,
/// before the text ends.
fn released_before_the_end(family: Family, pieces: &[&str]) -> String {
    let mut text_stream = TextStream::new(Some(family), None);
    let mut events = Vec::new();
    for piece in pieces {
        text_stream.push(piece, &mut events).unwrap();
    }
    events
        .iter()
        .map(|event| match event {
            CallEvent::Text { text } => text.as_str(),
            _ => "",
        })
        .collect()
}

/// A message that is prose goes out as it comes, not when it ends: the
/// final answer of gpt-oss and Muse Glimmer, reasoning kept as written
/// (Harmony's analysis channel, Glimmer's `to=self`, Inkling's thinking
/// block, Gemma 4's thought channel up to its first call, which counts only
/// if the channel never closes). What is sent before the end is the start
/// of the whole parse's prose.
#[test]
fn prose_messages_stream_as_they_come() {
    let cases = [
        (Family::Harmony, "<|start|>assistant<|channel|>final<|message|>The weather in Paris is sunny.", "The weather in Paris is sunny."),
        (Family::Harmony, "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>final<|message|>Sun", "<|channel|>analysis<|message|>Need the weather.<|end|>Sun"),
        (Family::Harmony, "<|start|>assistant to=browser.search<|channel|>commentary<|message|>{\"q\": \"rain\"", "<|start|>assistant to=browser.search<|channel|>commentary<|message|>{\"q\": \"rain\""),
        (Family::MuseGlimmer, " to=self<|message|>Think.<|eom|>\n\nassistant to=user<|message|>Sunny in Oslo", " to=self<|message|>Think.<|eom|>\n\nSunny in Oslo"),
        (Family::MuseGlimmer, "<|message|>Sunny <|eo", "Sunny "),
        (Family::Inkling, "<|message_model|> <|content_thinking|>Weather first.", " <|content_thinking|>Weather first."),
        (Family::Inkling, "<|message_model|> lookup<|content_thinking|>Weather first.", " <|content_thinking|>Weather first."),
        (Family::Gemma4, "<|channel>thought\nThe user wants <|tool_call>call:get_weather{city:<|\"|>Oslo<|\"|>}<tool_call|>", "<|channel>thought\nThe user wants "),
    ];
    for (family, text, sent) in cases {
        assert_eq!(
            released_before_the_end(family, &deltas(text, 3)),
            sent,
            "{family} {text:?}"
        );
        let (calls, prose) = whole(text, family, false);
        let streamed = stream(&deltas(text, 3), Some(family), None);
        assert_eq!(streamed.calls, calls, "{family} {text:?}");
        assert_eq!(streamed.prose, prose.trim(), "{family} {text:?}");
    }
}

/// A Harmony header token with no `<|message|>` within 256 bytes of it is
/// text: the stream holds no more than that before it releases the prose,
/// and reads what follows as the whole parse does, at any cut.
#[test]
fn harmony_holds_a_header_only_so_long() {
    let filler = "word ".repeat(60);
    let text = format!("<|start|>assistant {filler}");
    // Nothing is held: the text is out before it ends.
    assert_eq!(released_before_the_end(Family::Harmony, &deltas(&text, 1)), text);
    let texts = [
        format!("<|start|>assistant {filler}<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{{\"city\": \"Oslo\"}}<|call|>"),
        format!(" to=functions.now {filler}<|message|>Hello.<|end|><|start|>assistant to=functions.now{filler}<|channel|>x<|message|>{{}}"),
        format!("<|message|>hi<|end|> to=functions.now<|channel|>{filler}{filler}<|message|>{{}}<|call|>assistant to=functions.now {}<|message|>{{}}<|call|>", "x".repeat(200)),
    ];
    for text in &texts {
        streams_as_whole_at_every_cut(text, Family::Harmony);
    }
    assert_eq!(
        whole(&texts[2], Family::Harmony, false)
            .0
            .iter()
            .map(|call| call.name.as_str())
            .collect::<Vec<_>>(),
        ["now"]
    );
}

/// Streams `text` cut in two at every place, and one byte at a time: each
/// gives the calls and prose of the whole parse.
fn streams_as_whole_at_every_cut(text: &str, family: Family) {
    let (calls, prose) = whole(text, family, false);
    for cut in (0..=text.len()).filter(|&cut| text.is_char_boundary(cut)) {
        let streamed = stream(&[&text[..cut], &text[cut..]], Some(family), None);
        assert_eq!(streamed.calls, calls, "cut at {cut} of {text:?}");
        assert_eq!(streamed.prose, prose.trim(), "cut at {cut} of {text:?}");
        check_events(&streamed.events);
    }
    let streamed = stream(&deltas(text, 1), Some(family), None);
    assert_eq!(streamed.calls, calls, "{text:?} byte by byte");
    assert_eq!(streamed.prose, prose.trim(), "{text:?} byte by byte");
}

/// A Muse Glimmer header in the middle of the text (`to=NAME` just before
/// `<|message|>`, vLLM's `_MSG_HEADER_RE`) streams as whole: the prose
/// before it goes out as it comes, holding only what may still become a
/// header (`to=NAME`, `to=`, `to` or `t` at the end), as vLLM's stream holds
/// an open ` to=NAME` tail.
#[test]
fn glimmer_header_in_the_middle_streams_as_whole() {
    let sent = |text: &str| released_before_the_end(Family::MuseGlimmer, &deltas(text, 3));
    assert_eq!(sent("Let me check. to=get_wea"), "Let me check. ");
    assert_eq!(sent("Let me check. to"), "Let me check. ");
    assert_eq!(sent("Let me check. t"), "Let me check. ");
    assert_eq!(sent("Let me check."), "Let me check.");
    assert_eq!(sent("See to=a b"), "See to=a b");
    assert_eq!(
        sent("<|start|>assistant to=user<|message|>Let me check. to=get"),
        "Let me check. "
    );
    let call = "<atem:function_calls><atem:invoke name=\"get_weather\"><atem:parameter name=\"city\">Paris</atem:parameter></atem:invoke></atem:function_calls><|eom|>";
    let texts = [
        format!("Let me check. to=get_weather<|message|>{call}"),
        format!("<|start|>assistant to=user<|message|>Let me check. to=get_weather<|message|>{call} to=user<|message|>Done.<|eot|>"),
        format!(" to=self<|message|>Checking. to=get_weather<|message|>{call}"),
        format!("<atem:invoke name=\"f\"> to=get_weather<|message|>{call}"),
        format!("Note to=get_weather <|message|>{call}"),
        "Sure.to=self<|message|>Hmm. to=user<|message|>Hi.".to_string(),
    ];
    for text in &texts {
        streams_as_whole_at_every_cut(text, Family::MuseGlimmer);
    }
    let names = |text: &str| -> Vec<String> {
        let (calls, _) = whole(text, Family::MuseGlimmer, false);
        calls.into_iter().map(|call| call.name).collect()
    };
    assert_eq!(names(&texts[0]), ["get_weather"]);
    assert_eq!(names(&texts[3]), ["f", "get_weather"]);
    assert_eq!(names(&texts[4]), Vec::<String>::new());
}

/// A reasoning tag's start held across pushes is looked at again only
/// against the tags it began (Kimi K3's tokens all start as its reasoning
/// tag does; Command R7B's as its thinking token): whatever the cut, the
/// calls and prose are the whole parse's.
#[test]
fn reasoning_tag_starts_held_across_pushes_stream_as_whole() {
    let call = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"0\"<|sep|><|open|>argument key=\"n\" type=\"integer\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>";
    let texts = [
        (Family::KimiK3, format!("<|open|>think<|sep|>Hmm.<|close|>think<|sep|>{call}")),
        (Family::KimiK3, format!("<|open|>thin<|open|>think<|sep|>{call}<|close|>think<|sep|>{call}")),
        (Family::KimiK3, format!("<|open|><|close|>think<|sep|>{call}<|START_")),
        (Family::CommandR7b, "<|START_THINKING|>plan<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {}}]<|END_ACTION|><|START_".to_string()),
    ];
    for (family, text) in &texts {
        streams_as_whole_at_every_cut(text, *family);
    }
    let calls = |family: Family, text: &str| -> usize { whole(text, family, false).0.len() };
    assert_eq!(calls(texts[0].0, &texts[0].1), 1);
    assert_eq!(calls(texts[1].0, &texts[1].1), 1);
    assert_eq!(calls(texts[3].0, &texts[3].1), 1);
}

/// Whitespace between `[TOOL_CALLS]` and the name is skipped, streamed as
/// whole (ollama's ministral.go reads the name after it). Found by the
/// `text_stream` fuzz target: the stream took the token alone as prose.
#[test]
fn mistral_name_after_whitespace_streams_as_whole() {
    let text = "[TOOL_CALLS]\tget_weather[ARGS]{\"city\": \"Paris\"}";
    let (calls, prose) = whole(text, Family::Mistral, false);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "get_weather");
    assert_eq!(calls[0].arguments, Ok(json!({"city": "Paris"})));
    assert_eq!(prose, "");
    for cut in 0..=text.len() {
        let streamed = stream(&[&text[..cut], &text[cut..]], Some(Family::Mistral), None);
        assert_eq!(streamed.calls, calls, "cut at {cut}");
        check_events(&streamed.events);
    }
}

/// A dots.llm block token inside an invoke element (its `</invoke>` after
/// it) is the invoke's text, whole as streamed. Found by the `text_stream`
/// fuzz target: the whole parse read a JSON block there, which ran past
/// the `</invoke>` where the stream's invoke region ended.
#[test]
fn dots_block_inside_an_invoke_streams_as_whole() {
    let text = "<invoke name=\"f\"><parameter name=\"a\"><dots_function_call>{\"name\": \"g\"}</parameter></invoke> then <dots_function_call>{\"name\": \"h\", \"arguments\": {}}</dots_function_call><invoke name=<dots_function_call>{\"name\"\"</invoke><";
    let (calls, prose) = whole(text, Family::Dots, false);
    let named: Vec<(&str, String)> = calls
        .iter()
        .map(|call| (call.name.as_str(), format!("{:?}", call.arguments)))
        .collect();
    assert_eq!(
        named,
        [
            (
                "f",
                r#"Ok(Object {"a": String("<dots_function_call>{\"name\": \"g\"}")})"#.to_string()
            ),
            ("h", "Ok(Object {})".to_string()),
            ("<dots_function_call", "Ok(Object {})".to_string()),
        ]
    );
    for cut in 0..=text.len() {
        if !text.is_char_boundary(cut) {
            continue;
        }
        let streamed = stream(&[&text[..cut], &text[cut..]], Some(Family::Dots), None);
        assert_eq!(streamed.calls, calls, "cut at {cut}");
        assert_eq!(streamed.prose, prose.trim(), "cut at {cut}");
        check_events(&streamed.events);
    }
}

/// A garbled MiniCPM5 tag (`<functionname=`) starts the next call inside
/// a call's head too, in the stream as in the whole parse (found by the
/// `text_stream` fuzz target: the stream announced the call
/// `<functionname=g|`, which the parse named `g|`); a garbled tag that
/// makes no call stays as written.
#[test]
fn minicpm5_garbled_tags_stream_as_whole() {
    let text = "<function name=<functionname=\"g\"><param name=\"a\">1</param></function> <functionname=x";
    let (calls, prose) = whole(text, Family::MiniCpm5, false);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "g");
    assert_eq!(calls[0].arguments, Ok(json!({"a": "1"})));
    assert_eq!(prose, "<function name= <functionname=x");
    for cut in 0..=text.len() {
        let streamed = stream(&[&text[..cut], &text[cut..]], Some(Family::MiniCpm5), None);
        assert_eq!(streamed.calls, calls, "cut at {cut}");
        assert_eq!(streamed.prose, prose, "cut at {cut}");
        check_events(&streamed.events);
    }
}

/// Granite's two tokens each open a list wherever they are, in the whole
/// text as in a stream (found by the `text_stream` fuzz target: the whole
/// parse read only `<|tool_call|>` once it was anywhere in the text, so a
/// `<tool_call>` before it was prose there and a call's region in the
/// stream, which cut the call after it short).
#[test]
fn granite_tokens_both_open_lists_whole_as_streamed() {
    let text = "Sure <tool_call>{\"name\": \"a\", \"arguments\": {}} then <|tool_call|>[{\"name\": \"b\", \"arguments\": {\"x\": 1}}]";
    let (calls, prose) = whole(text, Family::Granite, false);
    let read: Vec<_> = calls
        .iter()
        .map(|call| (call.name.as_str(), call.arguments.clone()))
        .collect();
    assert_eq!(read, [("a", Ok(json!({}))), ("b", Ok(json!({"x": 1})))]);
    assert_eq!(prose, "Sure  then");
    for text in [text, "<tool_call>{\"<|tool_call|>{\"name\"\"}i"] {
        let (calls, prose) = whole(text, Family::Granite, false);
        for cut in 0..=text.len() {
            let streamed = stream(&[&text[..cut], &text[cut..]], Some(Family::Granite), None);
            assert_eq!(
                (&streamed.calls, &streamed.prose),
                (&calls, &prose),
                "{text} cut at {cut}"
            );
            check_events(&streamed.events);
        }
    }
}

/// A bare call at the start of the text whose first piece is longer than
/// the 256 bytes a stream waits to see bare markup is still read (found by
/// the `text_stream` fuzz target: a pythonic call with a long argument,
/// pushed whole, went out as prose).
#[test]
fn a_bare_call_in_one_long_piece_streams_as_whole() {
    for (family, text) in [
        (
            Family::Pythonic,
            format!("[write(content=\"{}\")]", "a".repeat(300)),
        ),
        (
            Family::Llama3,
            format!(
                "{{\"name\": \"write\", \"parameters\": {{\"content\": \"{}\"}}}}",
                "a".repeat(300)
            ),
        ),
        (
            Family::Mistral,
            format!(
                "[{{\"name\": \"write\", \"arguments\": {{\"content\": \"{}\"}}}}]",
                "a".repeat(300)
            ),
        ),
    ] {
        let (calls, prose) = whole(&text, family, false);
        assert_eq!(calls.len(), 1, "{family}");
        assert_eq!(
            calls[0].arguments,
            Ok(json!({"content": "a".repeat(300)})),
            "{family}"
        );
        let streamed = stream(&[&text], Some(family), None);
        assert_eq!(streamed.calls, calls, "{family}");
        assert_eq!(streamed.prose, prose.trim(), "{family}");
    }
}

/// Command R7B's plan is a reasoning block: an action inside a closed plan
/// is not a call, whole or streamed; the action after it is.
#[test]
fn command_r7b_plan_is_reasoning() {
    let text = "<|START_THINKING|>I could write <|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"search\", \"parameters\": {\"q\": \"a\"}}]<|END_ACTION|> but first<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"1\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]<|END_ACTION|>";
    let (calls, prose) = whole(text, Family::CommandR7b, false);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "get_weather");
    assert_eq!(calls[0].arguments, Ok(json!({"city": "Paris"})));
    assert!(
        prose.starts_with("<|START_THINKING|>I could write <|START_ACTION|>"),
        "{prose}"
    );
    for size in [1, 3, 7] {
        let streamed = stream(&deltas(text, size), Some(Family::CommandR7b), None);
        assert_eq!(streamed.calls, calls, "pieces of {size}");
        assert_eq!(streamed.prose, prose.trim(), "pieces of {size}");
    }
}

/// JSON after `<|python_tag|>` that is no call is code for the interpreter,
/// up to the end-of-message token — streamed too, whatever the pieces
/// (found by the `text_stream` fuzz target: the stream ended the code at
/// the bracket that closed the JSON-looking start).
#[test]
fn llama_code_that_starts_like_json_streams_as_whole() {
    let text = "<|python_tag|>{\"a\": 1} + [2]<|eom_id|>";
    let (calls, prose) = whole(text, Family::Llama3, false);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "code_interpreter");
    assert_eq!(calls[0].arguments, Ok(json!({"code": "{\"a\": 1} + [2]"})));
    for size in 1..=8 {
        let streamed = stream(&deltas(text, size), Some(Family::Llama3), None);
        assert_eq!(streamed.calls, calls, "pieces of {size}");
        assert_eq!(streamed.prose, prose.trim(), "pieces of {size}");
    }
}

/// Pythonic lists are read wherever a stream opens one — bare at the start
/// and at every `<|python_start|>` — whole and streamed alike: a second
/// tagged list is read too, and a first list that is no call does not hide
/// the tagged one after it (found by the `text_stream` fuzz target: the
/// whole-text parse read one list and left the rest as prose).
#[test]
fn pythonic_lists_after_the_first_stream_as_whole() {
    for (text, names, expected_prose) in [
        (
            "<|python_start|>[f(a=1)]<|python_end|> then <|python_start|>[g(b=2)]<|python_end|>",
            &["f", "g"][..],
            "then",
        ),
        // A list that breaks off after a call keeps the call; the rest is prose.
        ("[.()) <|python_start|>[g(b=2)]", &[".", "g"][..], ")"),
        (
            "ok <|python_start|>[f(a=1)]<|python_end|> then [g(b=2)]",
            &["f"][..],
            "ok  then [g(b=2)]",
        ),
    ] {
        let (calls, prose) = whole(text, Family::Pythonic, false);
        assert_eq!(
            calls.iter().map(|call| call.name.as_str()).collect::<Vec<_>>(),
            names,
            "{text}"
        );
        assert_eq!(prose.trim(), expected_prose, "{text}");
        for size in 1..=8 {
            let streamed = stream(&deltas(text, size), Some(Family::Pythonic), None);
            assert_eq!(streamed.calls, calls, "{text} in pieces of {size}");
            assert_eq!(streamed.prose, prose.trim(), "{text} in pieces of {size}");
        }
    }
}

/// The argument text a stream sent for each call, its deltas joined.
fn sent_text(events: &[CallEvent]) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    for event in events {
        match event {
            CallEvent::Started { .. } => texts.push(String::new()),
            CallEvent::ArgumentsDelta { index, text, .. } => texts[*index].push_str(text),
            CallEvent::ArgumentsReplaced { index, text, .. } => texts[*index] = text.clone(),
            _ => {}
        }
    }
    texts
}

#[test]
fn arguments_read_as_written_stream_as_the_model_wrote_them() {
    // Envelopes that read as they stand (Hermes, Llama, and the lists of
    // Granite, Mistral, Phi-4-mini and Command R7B, whose envelopes name
    // the call `tool_name`): the model's own text (its spacing
    // kept) is what streams and what `raw_arguments` holds.
    let cases = [
        (
            Family::Hermes,
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":  \"Paris\",\n \"days\": 2}}\n</tool_call>",
            "{\"city\":  \"Paris\",\n \"days\": 2}",
        ),
        (
            Family::Llama3,
            "{\"name\": \"get_weather\", \"parameters\": {\"city\" : \"Rome\"}}",
            "{\"city\" : \"Rome\"}",
        ),
        (
            Family::Granite,
            "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Oslo\"}}, {\"name\": \"now\", \"arguments\": { }}]",
            "{\"city\":\"Oslo\"}",
        ),
        (
            Family::Mistral,
            "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Lyon\"}, \"id\": \"abc123DEF\"}]",
            "{\"city\":\"Lyon\"}",
        ),
        (
            Family::Phi4Mini,
            "functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lima\"}}]",
            "{\"city\": \"Lima\"}",
        ),
        (
            Family::CommandR7b,
            "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\":  \"Kyiv\"}}]<|END_ACTION|>",
            "{\"city\":  \"Kyiv\"}",
        ),
    ];
    for (family, text, written) in cases {
        let streamed = stream(&deltas(text, 3), Some(family), None);
        assert_eq!(sent_text(&streamed.events)[0], written, "{family}");
        let raw = streamed.calls[0].raw_arguments.as_deref();
        assert_eq!(raw, Some(written), "{family}");
        let (calls, _) = whole(text, family, false);
        assert_eq!(calls[0].raw_arguments.as_deref(), Some(written), "{family}");
        assert_eq!(streamed.calls, calls, "{family}");
        check_events(&streamed.events);
    }
    // Granite's second call, `{ }`, goes out as written too.
    let granite = stream(&deltas(cases[2].1, 5), Some(Family::Granite), None);
    assert_eq!(sent_text(&granite.events), ["{\"city\":\"Oslo\"}", "{ }"]);
}

#[test]
fn repaired_or_typed_arguments_stream_as_their_json() {
    // A trailing comma and single quotes are repaired: the text that
    // streams is the JSON of the arguments as read.
    let cases = [
        (
            "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\",}}</tool_call>",
            false,
            "{\"city\":\"Oslo\"}",
        ),
        (
            "<tool_call>{\"name\": \"get_weather\", \"arguments\": {'city': 'Nice', 'days': 2}}</tool_call>",
            true,
            "{\"city\":\"Nice\",\"days\":2}",
        ),
    ];
    let tools = weather();
    for (text, typed, sent) in cases {
        let streamed = stream(
            &deltas(text, 3),
            Some(Family::Hermes),
            typed.then_some(&tools[..]),
        );
        assert_eq!(sent_text(&streamed.events), [sent], "{text}");
        check_events(&streamed.events);
    }
}

/// A second `[CALL_ID]` after a Mistral call's id is where its JSON
/// starts, streamed as read whole: the stream took it for another id and
/// then read the next `[TOOL_CALLS]` as the first call's arguments (found by
/// the `text_stream` fuzz target).
#[test]
fn a_mistral_call_has_one_id_streamed_as_whole() {
    let text = "[TOOL_CALLS]a[CALL_ID]b[CALL_ID]55[TOOL_CALLS]c{}";
    let (calls, _) = whole(text, Family::Mistral, false);
    assert_eq!(
        calls.iter().map(|call| call.name.as_str()).collect::<Vec<_>>(),
        ["a", "c"]
    );
    assert_eq!(calls[0].provider_id.as_deref(), Some("b"));
    for size in [1, 3, 7, text.len()] {
        let streamed = stream(&deltas(text, size), Some(Family::Mistral), None);
        assert_eq!(streamed.calls, calls, "{size}-byte pieces");
        check_events(&streamed.events);
    }
}

/// How many `ArgumentsReplaced` events a stream sent.
fn replacements(events: &[CallEvent]) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, CallEvent::ArgumentsReplaced { .. }))
        .count()
}

/// Arguments streamed live (Mistral's `[ARGS]`, Llama's `<function=…>`)
/// are read once, by the partial parser, and the finished call takes that
/// value: the same call as the whole parse, replaced only when the schema
/// typed a value (and then with the typed JSON), at any nesting the whole
/// parse reads through `serde_json` and past it.
#[test]
fn live_arguments_finish_with_the_value_streamed() {
    let tools = weather();
    let typed = "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\", \"days\": \"3\"}";
    for (tools, sent, replaced) in [
        (None, "{\"city\": \"Paris\", \"days\": \"3\"}", 0),
        (Some(&tools[..]), "{\"city\":\"Paris\",\"days\":3}", 1),
    ] {
        for size in [1, 4, typed.len()] {
            let streamed = stream(&deltas(typed, size), Some(Family::Mistral), tools);
            let (calls, _) = whole(typed, Family::Mistral, tools.is_some());
            assert_eq!(streamed.calls, calls, "{size}-byte pieces");
            assert_eq!(sent_text(&streamed.events), [sent], "{size}-byte pieces");
            assert_eq!(replacements(&streamed.events), replaced, "{size}-byte pieces");
            check_events(&streamed.events);
        }
    }
    let streamed = stream(
        &deltas("<function=get_weather>{\"days\": 2}</function>", 5),
        Some(Family::Llama3),
        Some(&tools),
    );
    assert_eq!(streamed.calls[0].arguments, Ok(json!({"days": 2})));
    assert_eq!(replacements(&streamed.events), 0);
    // serde_json refuses the 128th nested container; the whole parse then
    // reads the text its own way, and so must the stream.
    for depth in [126, 127, 128] {
        let text = format!(
            "[TOOL_CALLS]f[ARGS]{{\"a\": {}{}}}",
            "[".repeat(depth - 1),
            "]".repeat(depth - 1)
        );
        let (calls, _) = whole(&text, Family::Mistral, false);
        let streamed = stream(&deltas(&text, 16), Some(Family::Mistral), None);
        assert_eq!(streamed.calls, calls, "nested {depth} deep");
        check_events(&streamed.events);
    }
}

/// A call streamed live is announced under the id the parse gives it: an
/// id an earlier call has gets `_2` in `Started` as in `Finished` (the
/// stream announced `x` and finished `x_2`).
#[test]
fn a_repeated_id_is_announced_as_made_unique() {
    let text = "[TOOL_CALLS]a[CALL_ID]x[ARGS]{\"q\": 1}[TOOL_CALLS]b[CALL_ID]x[ARGS]{\"q\": 2}[TOOL_CALLS]c[CALL_ID]x_2[ARGS]{}";
    let (calls, _) = whole(text, Family::Mistral, false);
    let ids: Vec<&str> = calls.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(ids, ["x", "x_2", "x_2_2"]);
    for size in [1, 3, 8, text.len()] {
        let streamed = stream(&deltas(text, size), Some(Family::Mistral), None);
        assert_eq!(streamed.calls, calls, "{size}-byte pieces");
        check_events(&streamed.events);
    }
}

/// Families whose arguments follow a head as JSON stream them as they
/// arrive: before the call's closing token comes, `Started` (with the
/// parser's name and id) and the argument text so far are out; the finished
/// call is the whole parse's, without a replacement.
#[test]
fn arguments_stream_before_the_call_closes() {
    let cases = [
        (
            Family::Hermes,
            "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Os",
            "lo\"}}\n</tool_call>",
            ("call_0", "get_weather"),
        ),
        (
            Family::Hermes,
            "<tool_call>{\"id\": \"c7\", \"name\": \"get_weather\", \"arguments\": {\"city\": \"Os",
            "lo\"}}</tool_call>",
            ("c7", "get_weather"),
        ),
        (
            Family::Llama3,
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Os",
            "lo\"}}<|eom_id|>",
            ("call_0", "get_weather"),
        ),
        (
            Family::Llama3,
            "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Os",
            "lo\"}}",
            ("call_0", "get_weather"),
        ),
        (
            Family::Granite,
            "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Os",
            "lo\"}}]",
            ("call_0", "get_weather"),
        ),
        (
            Family::Phi4Mini,
            "functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Os",
            "lo\"}}]",
            ("call_0", "get_weather"),
        ),
        (
            Family::Hunyuan,
            "<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Os",
            "lo\"}}]</tool_calls>",
            ("call_0", "get_weather"),
        ),
        (
            Family::CommandR7b,
            "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Os",
            "lo\"}}\n]<|END_ACTION|>",
            ("0", "get_weather"),
        ),
        (
            Family::Kimi,
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Os",
            "lo\"}<|tool_call_end|><|tool_calls_section_end|>",
            ("functions.get_weather:0", "get_weather"),
        ),
        (
            Family::DeepSeek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Os",
            "lo\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            ("call_0", "get_weather"),
        ),
        (
            Family::DeepSeek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Os",
            "lo\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            ("call_0", "get_weather"),
        ),
        (
            Family::Mistral,
            "[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{\"city\": \"Os",
            "lo\"}",
            ("a1b2c3d4e", "get_weather"),
        ),
        (
            Family::Llama3,
            "<function=get_weather>{\"city\": \"Os",
            "lo\"}</function>",
            ("call_0", "get_weather"),
        ),
        (
            Family::Harmony,
            "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Os",
            "lo\"}<|call|>",
            ("call_0", "get_weather"),
        ),
        (
            Family::Harmony,
            " to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Os",
            "lo\"}<|call|>",
            ("call_0", "get_weather"),
        ),
        (
            Family::Inkling,
            "get_weather<|content_invoke_tool_json|>{\"name\":\"get_weather\",\"args\":{\"city\": \"Os",
            "lo\"}}<|end_message|>",
            ("call_0", "get_weather"),
        ),
    ];
    for (family, before, after, (id, name)) in cases {
        let mut stream = TextStream::new(Some(family), None);
        let mut events = Vec::new();
        for piece in deltas(before, 5) {
            stream.push(piece, &mut events).unwrap();
        }
        let started = CallEvent::Started {
            index: 0,
            id: id.into(),
            name: name.into(),
            choice: None,
        };
        let first_call = events
            .iter()
            .find(|event| !matches!(event, CallEvent::Text { .. }));
        assert_eq!(first_call, Some(&started), "{family}");
        assert_eq!(sent_text(&events), ["{\"city\": \"Os"], "{family}");
        for piece in deltas(after, 5) {
            stream.push(piece, &mut events).unwrap();
        }
        stream.finish(&mut events).unwrap();
        assert_eq!(replacements(&events), 0, "{family}");
        assert_eq!(sent_text(&events), ["{\"city\": \"Oslo\"}"], "{family}");
        let text = format!("{before}{after}");
        let (calls, _) = whole(&text, family, false);
        let Some(CallEvent::Finished { call, .. }) = events.last() else {
            panic!("{family}: the call finishes last")
        };
        assert_eq!(&**call, &calls[0], "{family}");
        check_events(&events);
    }
}

/// Families whose values are not JSON send each argument, typed by the
/// schema, as canonical JSON once its closing tag (or, in a Python call,
/// its `,`) arrives.
#[test]
fn typed_arguments_stream_one_by_one_before_the_call_closes() {
    let tools = weather();
    let cases = [(
        Family::Glm,
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n<arg_key>tags</arg_key><arg_value>[\"a\"",
        "]</arg_value>\n</tool_call>",
        "{\"city\":\"Oslo\",\"days\":3",
    ), (
        Family::Gemma4,
        "<|tool_call>call:get_weather{city:<|\"|>Oslo, {old}<|\"|>,days:3,tags:[<|\"|>a<|\"|>",
        "]}<tool_call|>",
        "{\"city\":\"Oslo, {old}\",\"days\":3",
    ), (
        Family::MiniMax,
        "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Oslo</parameter>\n<parameter name=\"days\">3</parameter>\n<parameter name=\"tags\">[\"a\"",
        "]</parameter>\n</invoke>\n</minimax:tool_call>",
        "{\"city\":\"Oslo\",\"days\":3",
    ), (
        Family::DeepSeekDsml,
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Oslo</｜DSML｜parameter>\n<｜DSML｜parameter name=\"days\" string=\"false\">3</｜DSML｜parameter>\n<｜DSML｜parameter name=\"tags\" string=\"false\">[\"a\"",
        "]</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        "{\"city\":\"Oslo\",\"days\":3",
    ), (
        // A tool message: its invokes read as they arrive; the name written
        // twice, as the template offers a bare tool, is announced once.
        Family::MuseGlimmer,
        " to=self<|message|>Check.<|eom|><|start|>assistant to=get_weather.get_weather<|message|><atem:function_calls>\n<atem:invoke name=\"get_weather.get_weather\">\n<atem:parameter name=\"city\">Oslo</atem:parameter>\n<atem:parameter name=\"days\">3</atem:parameter>\n<atem:parameter name=\"tags\">[\"a\"",
        "]</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|><|start|>assistant to=user<|message|>Done.<|eot|>",
        "{\"city\":\"Oslo\",\"days\":3",
    ), (
        Family::Pythonic,
        "<|python_start|>[get_weather(city='Oslo, (old)', days=3, tags=[\"a\"",
        "])]<|python_end|>",
        "{\"city\":\"Oslo, (old)\",\"days\":3",
    ), (
        Family::Lfm2,
        "<|tool_call_start|>[get_weather(city=\"Oslo\", days=3, tags=['a'",
        "])]<|tool_call_end|>",
        "{\"city\":\"Oslo\",\"days\":3",
    )];
    for (family, before, after, sent) in cases {
        let mut stream = TextStream::new(Some(family), Some(&tools));
        let mut events = Vec::new();
        for piece in deltas(before, 5) {
            stream.push(piece, &mut events).unwrap();
        }
        let started = CallEvent::Started {
            index: 0,
            id: "call_0".into(),
            name: "get_weather".into(),
            choice: None,
        };
        let first_call = events
            .iter()
            .find(|event| !matches!(event, CallEvent::Text { .. }));
        assert_eq!(first_call, Some(&started), "{family}");
        assert_eq!(sent_text(&events), [sent], "{family}");
        for piece in deltas(after, 5) {
            stream.push(piece, &mut events).unwrap();
        }
        stream.finish(&mut events).unwrap();
        let text = format!("{before}{after}");
        let (calls, _) = whole(&text, family, true);
        assert_eq!(sent_text(&events), [json_text(&calls[0])], "{family}");
        assert_eq!(replacements(&events), 0, "{family}");
        let finished = events.iter().rev().find_map(|event| match event {
            CallEvent::Finished { call, .. } => Some(call),
            _ => None,
        });
        let Some(call) = finished else {
            panic!("{family}: the call finishes")
        };
        assert_eq!(&**call, &calls[0], "{family}");
        check_events(&events);
    }
}

/// A Python list of calls announces each call once its head is read
/// (`name(` then `)` or `key=`), before the list closes; a call whose
/// arguments then do not read finishes with that error, as the whole
/// parse reads it, and `[see(above)]` is never announced.
#[test]
fn pythonic_calls_are_announced_as_their_heads_arrive() {
    let before = "[now(), get_weather(city=\"Oslo\", days=";
    let mut stream = TextStream::new(Some(Family::Pythonic), None);
    let mut events = Vec::new();
    for piece in deltas(before, 3) {
        stream.push(piece, &mut events).unwrap();
    }
    let names: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            CallEvent::Started { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["now", "get_weather"]);
    // A call's closing brace comes with the parse, when the list closes.
    assert_eq!(sent_text(&events), ["{", "{\"city\":\"Oslo\""]);
    for piece in deltas("soon)]", 3) {
        stream.push(piece, &mut events).unwrap();
    }
    stream.finish(&mut events).unwrap();
    let finished: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            CallEvent::Finished { call, .. } => Some(match &call.arguments {
                Ok(arguments) => format!("{} {arguments}", call.name),
                Err(error) => format!("{} error: {error}", call.name),
            }),
            _ => None,
        })
        .collect();
    assert_eq!(
        finished,
        [
            "now {}",
            "get_weather error: arguments are not valid JSON: a Python literal was expected at byte 42 of the call list",
        ]
    );
    check_events(&events);

    let mut stream = TextStream::new(Some(Family::Pythonic), None);
    let mut events = Vec::new();
    for piece in deltas("[see(above)] for more.", 2) {
        stream.push(piece, &mut events).unwrap();
    }
    stream.finish(&mut events).unwrap();
    assert!(events.iter().all(|event| matches!(event, CallEvent::Text { .. })));
}

/// The names of the calls started in `events`, in order.
fn started_names(events: &[CallEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|event| match event {
            CallEvent::Started { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect()
}

/// A Muse Glimmer tool message announces each invoke once its name is
/// read and sends each parameter as it closes, before the message ends;
/// after an invoke that names no tool, the calls come at the message's end.
#[test]
fn glimmer_tool_messages_stream_invoke_by_invoke() {
    let tools = weather();
    let before = "<|start|>assistant to=functions<|message|><atem:function_calls>\n<atem:invoke name=\"now\">\n</atem:invoke>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Oslo</atem:parameter>\n<atem:parameter name=\"days\">";
    let after = "3</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>";
    let mut reader = TextStream::new(Some(Family::MuseGlimmer), Some(&tools));
    let mut events = Vec::new();
    for piece in deltas(before, 4) {
        reader.push(piece, &mut events).unwrap();
    }
    assert_eq!(started_names(&events), ["now", "get_weather"]);
    assert_eq!(sent_text(&events), ["{", "{\"city\":\"Oslo\""]);
    for piece in deltas(after, 4) {
        reader.push(piece, &mut events).unwrap();
    }
    reader.finish(&mut events).unwrap();
    let text = format!("{before}{after}");
    let (calls, _) = whole(&text, Family::MuseGlimmer, true);
    assert_eq!(sent_text(&events), ["{}", "{\"city\":\"Oslo\",\"days\":3}"]);
    assert_eq!(replacements(&events), 0);
    check_events(&events);
    let streamed = stream(&deltas(&text, 4), Some(Family::MuseGlimmer), Some(&tools));
    assert_eq!(streamed.events, events);
    assert_eq!(streamed.calls, calls);

    let before = "<|start|>assistant to=functions<|message|><atem:invoke name=\" \"></atem:invoke><atem:invoke name=\"now\"></atem:invoke>";
    let mut reader = TextStream::new(Some(Family::MuseGlimmer), Some(&tools));
    let mut events = Vec::new();
    for piece in deltas(before, 4) {
        reader.push(piece, &mut events).unwrap();
    }
    assert!(started_names(&events).is_empty());
    reader.push("<|eom|>", &mut events).unwrap();
    reader.finish(&mut events).unwrap();
    assert_eq!(started_names(&events), ["now"]);
    check_events(&events);
}

/// The canonical JSON of a call's arguments.
fn json_text(call: &ToolCall) -> String {
    serde_json::to_string(call.arguments.as_ref().unwrap()).unwrap()
}

/// Arguments streamed whole that the parse reads from other text (here
/// with text after the JSON, which repair drops) are not replaced when the
/// value read is the value streamed.
#[test]
fn arguments_read_from_other_text_are_replaced_only_when_they_differ() {
    let text = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1} x<|tool_call_end|><|tool_calls_section_end|>";
    let (calls, _) = whole(text, Family::Kimi, false);
    assert_eq!(calls[0].arguments, Ok(json!({"a": 1})));
    for size in [1, 4, text.len()] {
        let streamed = stream(&deltas(text, size), Some(Family::Kimi), None);
        assert_eq!(streamed.calls, calls, "{size}-byte pieces");
        assert_eq!(replacements(&streamed.events), 0, "{size}-byte pieces");
        check_events(&streamed.events);
    }
}

/// A tool whose schema Pydantic wrote: nested models are `$ref`s, an
/// optional one a reference beside `null`.
fn route() -> Vec<Tool> {
    vec![Tool::new(
        "move",
        json!({
            "type": "object",
            "properties": {
                "to": {"$ref": "#/$defs/Point"},
                "via": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}], "default": null},
                "count": {"$ref": "#/$defs/Count"},
            },
            "required": ["to"],
            "$defs": {
                "Point": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}},
                "Count": {"type": "integer"},
            },
        }),
    )]
}

/// Every family whose values the schema types follows a property's
/// references, also inside `anyOf` (vLLM's Dots parser resolves them,
/// `_resolve_param_type`): the values are the objects and integers the
/// references name, with no note, whole and streamed.
#[test]
fn values_are_typed_by_what_their_references_name() {
    let tools = route();
    let texts = [
        (
            Family::Glm,
            "<tool_call>move\n<arg_key>to</arg_key>\n<arg_value>{\"x\": 1, \"y\": 2}</arg_value>\n<arg_key>via</arg_key>\n<arg_value>{\"x\": 3, \"y\": 4}</arg_value>\n<arg_key>count</arg_key>\n<arg_value>5</arg_value>\n</tool_call>",
        ),
        (
            Family::Qwen3Coder,
            "<tool_call>\n<function=move>\n<parameter=to>\n{\"x\": 1, \"y\": 2}\n</parameter>\n<parameter=via>\n{\"x\": 3, \"y\": 4}\n</parameter>\n<parameter=count>\n5\n</parameter>\n</function>\n</tool_call>",
        ),
        (
            Family::SeedOss,
            "<seed:tool_call>\n<function=move>\n<parameter=to>{\"x\": 1, \"y\": 2}</parameter>\n<parameter=via>{\"x\": 3, \"y\": 4}</parameter>\n<parameter=count>5</parameter>\n</function>\n</seed:tool_call>",
        ),
        (
            Family::MiniMax,
            "<minimax:tool_call>\n<invoke name=\"move\">\n<parameter name=\"to\">{\"x\": 1, \"y\": 2}</parameter>\n<parameter name=\"via\">{\"x\": 3, \"y\": 4}</parameter>\n<parameter name=\"count\">5</parameter>\n</invoke>\n</minimax:tool_call>",
        ),
        (
            Family::Dots,
            "<dots_function_call>\n<invoke name=\"move\">\n<parameter name=\"to\">{\"x\": 1, \"y\": 2}</parameter>\n<parameter name=\"via\">{\"x\": 3, \"y\": 4}</parameter>\n<parameter name=\"count\">5</parameter>\n</invoke>\n</dots_function_call>",
        ),
        (
            Family::Step3,
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"move\">\n<steptml:parameter name=\"to\">{\"x\": 1, \"y\": 2}</steptml:parameter>\n<steptml:parameter name=\"via\">{\"x\": 3, \"y\": 4}</steptml:parameter>\n<steptml:parameter name=\"count\">5</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
        ),
        (
            // MiniMax-M3 writes an object as elements: their values are typed
            // by the members of the schema the reference names.
            Family::MiniMaxM3,
            "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"move\">\n]<]minimax[>[<to>]<]minimax[>[<x>1]<]minimax[>[</x>]<]minimax[>[<y>2]<]minimax[>[</y>]<]minimax[>[</to>\n]<]minimax[>[<via>]<]minimax[>[<x>3]<]minimax[>[</x>]<]minimax[>[<y>4]<]minimax[>[</y>]<]minimax[>[</via>\n]<]minimax[>[<count>5]<]minimax[>[</count>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
        ),
    ];
    let expected = json!({"to": {"x": 1, "y": 2}, "via": {"x": 3, "y": 4}, "count": 5});
    for (family, text) in texts {
        let parsed = parse(text, family, Some(&tools)).unwrap();
        assert_eq!(parsed.calls.len(), 1, "{family}");
        assert_eq!(
            parsed.calls[0].arguments.as_ref().ok(),
            Some(&expected),
            "{family}"
        );
        assert!(
            parsed.calls[0].notes.is_empty(),
            "{family}: {:?}",
            parsed.calls[0].notes
        );
        for size in [1, 5] {
            let streamed = stream(&deltas(text, size), Some(family), Some(&tools));
            assert_eq!(streamed.calls, parsed.calls, "{family} in {size}-byte pieces");
            check_events(&streamed.events);
        }
    }
}
