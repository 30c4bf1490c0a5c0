//! Raw-text tool calls of open-weight models: one fixture per markup and
//! garbled variant, written from the families' chat templates and the
//! inference servers' parsers (vLLM `vllm/entrypoints/openai/tool_parsers/`,
//! ollama `model/parsers/`), with the exact calls, prose and notes expected.

use serde_json::json;
use toolbridge::text::{parse, parse_with_limits, Family, FAMILIES};
use toolbridge::{Limits, Tool};

/// `id name arguments` per call, then `prose: …`, then each note as `fix-or-kind: message`.
fn read(text: &str, family: Family, tools: Option<&[Tool]>) -> Vec<String> {
    assert_eq!(Family::detect(text), Some(family), "detected family of {text:?}");
    read_as(text, family, tools)
}

/// [`read`] for a text the family is given for, not detected from.
fn read_as(text: &str, family: Family, tools: Option<&[Tool]>) -> Vec<String> {
    let parsed = parse(text, family, tools).unwrap();
    let mut lines = Vec::new();
    for call in &parsed.calls {
        match &call.arguments {
            Ok(arguments) => lines.push(format!("{} {} {arguments}", call.id, call.name)),
            Err(error) => lines.push(format!("{} {} error: {error}", call.id, call.name)),
        }
        for note in &call.notes {
            lines.push(format!("  {}", note));
        }
    }
    lines.push(format!("prose: {:?}", parsed.prose));
    for note in &parsed.notes {
        lines.push(format!("note: {note}"));
    }
    lines
}

fn weather() -> Vec<Tool> {
    vec![Tool::new(
        "get_weather",
        json!({"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer"},
            "metric": {"type": "boolean"}, "ratio": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}}}}),
    )]
}

#[test]
fn hermes_one_call_with_prose_before_and_after() {
    let text = "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Z\\u00fcrich \\\"old town\\\"\"}}\n</tool_call>\nDone.";
    assert_eq!(
        read(text, Family::Hermes, None),
        [
            r#"call_0 get_weather {"city":"Zürich \"old town\""}"#,
            "prose: \"Let me check.\\n\\nDone.\""
        ]
    );
}

#[test]
fn hermes_parallel_calls_no_arguments_and_a_missing_close_tag() {
    let text = "<tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}";
    assert_eq!(
        read(text, Family::Hermes, None),
        [
            "call_0 now {}",
            r#"call_1 get_weather {"city":"Oslo"}"#,
            "  change: the call's </tool_call> is missing; the call ends with its JSON (at /)",
            "prose: \"\"",
        ]
    );
}

#[test]
fn hermes_truncated_call_is_repaired_and_noted() {
    let text = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par";
    assert_eq!(
        read(text, Family::Hermes, None),
        [
            r#"call_0 get_weather {"city":"Par"}"#,
            "  change: the call's </tool_call> is missing; the call ends with its JSON (at /)",
            "  change: the text ends inside a string; the string was closed (line 1, column 47) (at /arguments/city)",
            "  change: the text ends early; 2 open brackets were closed (line 1, column 51) (at /arguments)",
            "prose: \"\"",
        ]
    );
}

/// A Hermes envelope that names its tool before its arguments is that call,
/// under the first name and id written before the arguments (what a stream
/// announces as they begin; vLLM's Hermes parser streams the same way), even
/// when the JSON around the arguments is broken. An envelope whose arguments
/// come first is read whole.
#[test]
fn hermes_envelope_is_named_by_what_precedes_its_arguments() {
    let text = "<tool_call>{\"id\": \"c7\", \"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}, \"id\": \"z9\", \"name\": \"f\"}</tool_call>";
    assert_eq!(
        read(text, Family::Hermes, None),
        [
            r#"c7 get_weather {"city":"Oslo"}"#,
            "  loss: the envelope's name \"f\" was not used: a call keeps the first name its envelope gives before its arguments, as a stream announces it when the arguments begin (at /name)",
            "  loss: the envelope's id \"z9\" was not used: a call keeps the first id its envelope gives before its arguments, as a stream announces it when the arguments begin (at /id)",
            "prose: \"\"",
        ]
    );
    let text = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}, \"id\": \"z9\"}</tool_call>";
    assert_eq!(
        read(text, Family::Hermes, None),
        [
            r#"call_0 get_weather {"city":"Oslo"}"#,
            "  loss: the envelope's id \"z9\" was not used: a call keeps the first id its envelope gives before its arguments, as a stream announces it when the arguments begin (at /id)",
            "prose: \"\"",
        ]
    );
    let text = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}, \"x\": ]]</tool_call><tool_call>{\"arguments\": {}, \"name\": \"now\"}</tool_call>";
    assert_eq!(
        read(text, Family::Hermes, None),
        [
            r#"call_0 get_weather {"city":"Oslo"}"#,
            "  change: the call's envelope does not read as JSON (invalid JSON: \"x\" has no value (at /x, line 1, column 61)); the call is read from its name and argument object (at /)",
            "call_1 now {}",
            "prose: \"\"",
        ]
    );
    // Named only after its arguments (no head: it comes whole), read as it
    // stands or repaired, an envelope follows the same rule for its id.
    for text in [
        "<tool_call>{\"arguments\": {\"a\": 1}, \"name\": \"f\", \"id\": \"x\"}</tool_call>",
        "<tool_call>{\"arguments\": {\"a\": 1}, \"name\": \"f\", \"id\": \"x\",}</tool_call>",
    ] {
        let lines = read(text, Family::Hermes, None);
        assert_eq!(lines[0], r#"call_0 f {"a":1}"#, "{text}");
        assert!(lines.contains(&"  loss: the envelope's id \"x\" was not used: a call keeps the first id its envelope gives before its arguments, as a stream announces it when the arguments begin (at /id)".to_string()), "{text}");
    }
    // An id before the arguments is the call's, repaired or not; Cohere's
    // `tool_call_id` keeps its place when it is renamed.
    let text = "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"parameters\": {\"a\": 1,}, \"tool_name\": \"f\"}]<|END_ACTION|>";
    assert_eq!(read(text, Family::CommandR7b, None)[0], r#"0 f {"a":1}"#);
}

/// Lists of envelopes (Granite, Hunyuan, Command R7B, Phi-4-mini) follow
/// the same rule item by item: the first items that name their tool before
/// their arguments are those calls, as a stream announces them; an item
/// that is no call is noted and left out, and a list that does not read
/// whole still gives the calls its heads named.
#[test]
fn listed_envelopes_are_named_by_what_precedes_their_arguments() {
    let text = "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}, \"id\": \"z9\"}, {\"arguments\": {}, \"name\": \"now\"}]";
    assert_eq!(
        read(text, Family::Granite, None),
        [
            r#"call_0 get_weather {"city":"Oslo"}"#,
            "  loss: the envelope's id \"z9\" was not used: a call keeps the first id its envelope gives before its arguments, as a stream announces it when the arguments begin (at /id)",
            "call_1 now {}",
            "prose: \"\"",
        ]
    );
    let text = "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"x\": 1}}, 7, {\"name\": \"b\", \"arguments\": {}}]";
    assert_eq!(
        read(text, Family::Granite, None),
        [
            r#"call_0 a {"x":1}"#,
            "call_1 b {}",
            "prose: \"\"",
            "note: loss: item 1 of the list of calls, \"7\", is not a {\"name\", \"arguments\"} object; it was left out (at /1)",
        ]
    );
    let text = "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {}}, {\"tool_call_id\": \"1\", \"tool_name\": \"b\", \"parameters\": {\"k\": 2}, \"tool_call_id\": \"9\"}]<|END_ACTION|>";
    assert_eq!(
        read(text, Family::CommandR7b, None),
        [
            "0 a {}",
            r#"1 b {"k":2}"#,
            "  loss: the envelope's id \"9\" was not used: a call keeps the first id its envelope gives before its arguments, as a stream announces it when the arguments begin (at /id)",
            "prose: \"\"",
        ]
    );
    let text = "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"x\": 1}, \"k\": ]}]";
    assert_eq!(
        read(text, Family::Granite, None),
        [
            r#"call_0 a {"x":1}"#,
            "  change: the list of calls does not read as JSON (invalid JSON: \"k\" has no value (at /0/k, line 1, column 44)); its first call was read from its name and argument object (at /)",
            "prose: \"]\"",
        ]
    );
}

/// Llama's JSON calls follow the same rule, each `;`-separated call alone.
#[test]
fn llama3_json_calls_are_named_by_what_precedes_their_parameters() {
    let text = "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": 1}, \"id\": \"q\"}; {\"parameters\": {}, \"name\": \"b\"}; {\"name\": \"c\", \"parameters\": {}}<|eom_id|>";
    assert_eq!(
        read(text, Family::Llama3, None),
        [
            r#"call_0 a {"x":1}"#,
            "  loss: the envelope's id \"q\" was not used: a call keeps the first id its envelope gives before its arguments, as a stream announces it when the arguments begin (at /id)",
            "call_1 b {}",
            "call_2 c {}",
            "prose: \"\"",
        ]
    );
    let text = "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": 1}, \"k\": ]}<|eom_id|>";
    assert_eq!(
        read(text, Family::Llama3, None),
        [
            r#"call_0 a {"x":1}"#,
            "  change: the call's envelope does not read as JSON (invalid JSON: \"k\" has no value (at /k, line 1, column 44)); the call is read from its name and argument object (at /)",
            "prose: \"}\"",
        ]
    );
}

/// Llama 3 JSON calls on lines of their own, without the `;` between them
/// (vLLM's `test_llama3_json_tool_parser.py` reads them so), are calls,
/// noted; a JSON after them that is no call ends them.
#[test]
fn llama3_json_calls_without_separators_are_calls() {
    let text = "{\"name\": \"a\", \"parameters\": {\"x\": 1}}\n{\"name\": \"b\", \"parameters\": {}} {\"not\": \"a call\"}";
    assert_eq!(
        read(text, Family::Llama3, None),
        [
            r#"call_0 a {"x":1}"#,
            "call_1 b {}",
            "  change: the call follows the one before it without the `;` between calls (at /)",
            "prose: \"{\\\"not\\\": \\\"a call\\\"}\"",
        ]
    );
}

/// Python as the model writes it: a set is a list of its distinct items;
/// escapes are Python's (one it does not know keeps its backslash); a
/// quote left unescaped inside a string is text when what follows it
/// cannot follow a string there, noted (vLLM's LFM2 tests: shell commands
/// quoted inside quotes).
#[test]
fn python_values_read_as_python_reads_them() {
    let text = r#"[label(tags={'bug', 'urgent', 'bug'}, raw='a\,b\x41\101\N', run='sed -n '1,2p' f.py')]"#;
    assert_eq!(
        read(text, Family::Pythonic, None),
        [
            r#"call_0 label {"tags":["bug","urgent"],"raw":"a\\,bAA\\N","run":"sed -n '1,2p' f.py"}"#,
            "  change: a string held a quote that was not escaped; it was read as part of the string (at /)",
            "prose: \"\"",
        ]
    );
    // A string whose quotes never end it where a value may end: the first
    // quote does, and the call does not read (its sibling still does).
    let text = "[f(a='x 'y' 'z), g(b=1)]";
    assert_eq!(
        read(text, Family::Pythonic, None),
        [
            "call_0 f error: arguments are not valid JSON: , or ) was expected at byte 9 of the call list",
            "call_1 g {\"b\":1}",
            "prose: \"\"",
        ]
    );
}

/// Kimi K2 writing a call's counter alone as its head (`0`, no
/// `functions.NAME:`): the call is to the one declared tool, or the one whose
/// properties hold its arguments' keys, noted; when no declared tool is
/// alone in that, it is no call (vLLM `test_kimi_k2_tool_parser.py`).
#[test]
fn kimi_bare_counter_heads_are_read_by_the_declared_tools() {
    let tools = [
        Tool::new("read_file", json!({"type": "object", "properties": {"path": {}}})),
        Tool::new(
            "get_weather",
            json!({"type": "object", "properties": {"city": {}, "days": {}}}),
        ),
    ];
    let text = "<|tool_calls_section_begin|><|tool_call_begin|>0 <|tool_call_argument_begin|>{\"city\": \"Oslo\"}<|tool_call_end|><|tool_calls_section_end|>";
    assert_eq!(
        read(text, Family::Kimi, Some(&tools)),
        [
            r#"0 get_weather {"city":"Oslo"}"#,
            "  change: the call's head is the counter \"0\" without functions.NAME:; it was read as a call to get_weather, the declared tool its arguments are for (at /)",
            "prose: \"\"",
        ]
    );
    let text = "<|tool_calls_section_begin|><|tool_call_begin|>0 <|tool_call_argument_begin|>{\"mode\": 1}<|tool_call_end|><|tool_calls_section_end|>";
    assert_eq!(
        read(text, Family::Kimi, Some(&tools)),
        [
            "prose: \"<|tool_call_begin|>0 <|tool_call_argument_begin|>{\\\"mode\\\": 1}<|tool_call_end|>\"",
            "note: error: kimi markup \"<|tool_call_begin|>0 <|tool_call_argumen\"… was kept in the prose: its head \"0\" names no tool, and no declared tool is the one its arguments are for (at /)",
        ]
    );
}

/// ollama `gemma4_test.go` (issue 15315): a bare key with spaces, a string
/// in single quotes (a `<|"|>` left after it dropped), and a string whose
/// closing `<|"|>` is missing before the arguments close, each noted.
#[test]
fn gemma4_repairs_of_weak_output() {
    let text =
        "<|tool_call>call:f{Basic Chain:{on:true},pattern:'\\s+'<|\"|>,command:<|\"|>ls -la}<tool_call|>";
    assert_eq!(
        read(text, Family::Gemma4, None),
        [
            r#"call_0 f {"Basic Chain":{"on":true},"pattern":"\\s+","command":"ls -la"}"#,
            "  change: a string's closing <|\"|> is missing; it ends where the arguments around it close (at /)",
            "  change: '\\s+' written without <|\"|> delimiters; read as strings (at /)",
            "prose: \"\"",
        ]
    );
}

/// ollama `gemma4_test.go` (issue 15315): when the strict read fails, a
/// word without delimiters runs past commas to where the arguments go on
/// (a key and its `:`; a declared property's when the tool is declared),
/// kept as written.
#[test]
fn gemma4_text_without_delimiters_runs_past_commas() {
    let text = "<|tool_call>call:send{to:ann,body:Dear Ann, thanks, Bob}<tool_call|>";
    assert_eq!(
        read(text, Family::Gemma4, None),
        [
            r#"call_0 send {"to":"ann","body":"Dear Ann, thanks, Bob"}"#,
            "  change: \"ann\", \"Dear Ann, thanks, Bob\" written without <|\"|> delimiters; read as strings (at /)",
            "prose: \"\"",
        ]
    );
    // Arguments that read strictly stay as they read.
    let text = "<|tool_call>call:send{to:ann,body:Dear Ann}<tool_call|>";
    assert_eq!(
        read(text, Family::Gemma4, None)[0],
        r#"call_0 send {"to":"ann","body":"Dear Ann"}"#
    );
    // A word the strict read took for a key at the end of the text.
    let text = "<|tool_call>call:note{text:\n\nSee a, b and c.<tool_call|>";
    assert_eq!(
        read(text, Family::Gemma4, None)[0],
        r#"call_0 note {"text":"\n\nSee a, b and c."}"#
    );
    // Declared, only a declared property goes on after a comma.
    let tools = [Tool::new(
        "send",
        json!({"type": "object", "properties": {"body": {"type": "string"}, "to": {"type": "string"}}}),
    )];
    let text = "<|tool_call>call:send{body:Note: see a, b, cc: me, to:ann}<tool_call|>";
    assert_eq!(
        read(text, Family::Gemma4, Some(&tools))[0],
        r#"call_0 send {"body":"Note: see a, b, cc: me","to":"ann"}"#
    );
    assert_eq!(
        read(text, Family::Gemma4, None)[0],
        r#"call_0 send {"body":"Note: see a, b","cc":"me","to":"ann"}"#
    );
}

/// vLLM `test_echoed_tool_call_body_not_leaked_to_content`: LFM2 writes a
/// call's list again after it, closed by a second end token; that exact
/// copy is dropped (noted), and text that only starts like it is prose.
#[test]
fn lfm2_echo_of_a_call_is_dropped() {
    let text = "<|tool_call_start|>[now()]<|tool_call_end|>\n[now()] <|tool_call_end|>Done.";
    assert_eq!(
        read(text, Family::Lfm2, None),
        [
            "call_0 now {}",
            "  change: the list of calls was written again after its <|tool_call_end|>, closed by another; the copy was dropped (at /)",
            "prose: \"Done.\"",
        ]
    );
    let text = "<|tool_call_start|>[now()]<|tool_call_end|>[now(), now()]";
    assert_eq!(
        read(text, Family::Lfm2, None),
        ["call_0 now {}", "prose: \"[now(), now()]\""]
    );
}

/// LFM2 through a decoder that skips special tokens: the list of calls at
/// the start without `<|tool_call_start|>`, and a `<|tool_call_end|>` left
/// after it (ollama `lfm2_test.go`). Detected, such a text is pythonic.
#[test]
fn lfm2_list_without_its_tokens() {
    let text = "[bash(command='ls')]<|tool_call_end|> Listed.";
    assert_eq!(
        read_as(text, Family::Lfm2, None),
        [
            r#"call_0 bash {"command":"ls"}"#,
            "  change: the list of calls is not between <|tool_call_start|> and <|tool_call_end|>; it was read as a bare list (at /)",
            "prose: \"Listed.\"",
        ]
    );
}

/// A Qwen3-Coder `<function=` whose name holds markup names no tool: the
/// markup stays prose, noted (ollama `qwen3coder_bare_test.go`).
#[test]
fn qwen3_coder_function_without_a_name_is_prose() {
    let text = "<function=<<not xml>></function> then <function=f>\n</function>";
    assert_eq!(
        read_as(text, Family::Qwen3Coder, None),
        [
            "call_0 f {}",
            "  change: the <tool_call> before <function=…> is missing (at /)",
            "prose: \"<function=<<not xml>></function> then\"",
            "note: error: qwen3-coder markup \"<function=<<not xml>></function>\" was kept in the prose: what it names is not a tool's name (at /)",
        ]
    );
}

/// A Gemma 4 call that names its tool and opens its arguments is a call (a
/// stream announces it then), its arguments an error when they do not read.
#[test]
fn gemma4_arguments_that_do_not_read_are_the_calls_error() {
    let text = "<|tool_call>call:f{a:[1,2}<tool_call|>";
    assert_eq!(
        read(text, Family::Gemma4, None),
        [
            "call_0 f error: arguments are not valid JSON: , or ] was expected at byte 7 of the arguments",
            "prose: \"\"",
        ]
    );
}

#[test]
fn a_call_in_a_closed_reasoning_block_is_not_a_call_in_an_unclosed_one_it_is() {
    let closed = "<think>I could call <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call></think>No call needed.";
    assert_eq!(Family::detect(closed), None);
    let parsed = parse(closed, Family::Hermes, None).unwrap();
    assert!(parsed.calls.is_empty());
    assert_eq!(parsed.prose, closed);
    let open = "<think>Calling now <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>";
    assert_eq!(
        read(open, Family::Hermes, None),
        ["call_0 a {}", "prose: \"<think>Calling now\""]
    );
    // Qwen3's template opens <think> in the prompt: text before a lone </think> is reasoning.
    let lone = "maybe <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call></think>\n\nHi";
    assert!(parse(lone, Family::Hermes, None).unwrap().calls.is_empty());
}

#[test]
fn qwen3_coder_values_are_typed_by_the_schema() {
    let text = "I'll look.\n<tool_call>\n<function=get_weather>\n<parameter=city>\n1984\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n<parameter=ratio>\n0.5\n</parameter>\n<parameter=tags>\n[\"a\", \"b\"]\n</parameter>\n</function>\n</tool_call>";
    let tools = weather();
    assert_eq!(
        read(text, Family::Qwen3Coder, Some(&tools)),
        [
            r#"call_0 get_weather {"city":"1984","days":3,"metric":true,"ratio":0.5,"tags":["a","b"]}"#,
            "  change: \"True\" was read as the boolean the schema asks for (at /arguments/metric)",
            "prose: \"I'll look.\"",
        ]
    );
}

#[test]
fn qwen3_coder_without_a_schema_keeps_strings_and_says_so() {
    let text = "<tool_call>\n<function=add>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\n2\n</function>\n</tool_call>\n<tool_call>\n<function=now>\n</function>\n</tool_call>";
    assert_eq!(
        read(text, Family::Qwen3Coder, None),
        [
            r#"call_0 add {"a":"1","b":"2"}"#,
            "  change: the </parameter> of \"b\" is missing; its value ends at the next tag (at /)",
            "  info: no schema types these parameters (a, b); kept as strings (at /arguments)",
            "call_1 now {}",
            "prose: \"\"",
        ]
    );
}

#[test]
fn qwen3_coder_integer_from_a_float_and_a_non_integer_kept() {
    let text = "<tool_call><function=get_weather><parameter=days>2.0</parameter><parameter=ratio>lots</parameter></function></tool_call>";
    let tools = weather();
    assert_eq!(
        read(text, Family::Qwen3Coder, Some(&tools)),
        [
            r#"call_0 get_weather {"days":2,"ratio":"lots"}"#,
            "  change: \"2.0\" was read as the integer the schema asks for (at /arguments/days)",
            "  info: \"lots\" is not of the type the schema gives (number); it was kept as a string for validation to report (at /arguments/ratio)",
            "prose: \"\"",
        ]
    );
}

#[test]
fn llama3_python_tag_bare_json_and_function_tags() {
    let tagged = "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}; {\"name\": \"now\", \"parameters\": {}}<|eom_id|>";
    assert_eq!(
        read(tagged, Family::Llama3, None),
        [
            r#"call_0 get_weather {"city":"Paris"}"#,
            "call_1 now {}",
            "prose: \"\""
        ]
    );
    let bare = "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"東京\"}}";
    assert_eq!(
        read(bare, Family::Llama3, None),
        [r#"call_0 get_weather {"city":"東京"}"#, "prose: \"\""]
    );
    let function = "Sure. <function=get_weather>{\"city\": \"Rome\"}</function> Anything else?";
    assert_eq!(
        read(function, Family::Llama3, None),
        [
            r#"call_0 get_weather {"city":"Rome"}"#,
            "prose: \"Sure.  Anything else?\""
        ]
    );
}

#[test]
fn llama3_groq_garbled_function_shape_is_read_and_noted() {
    // The shape Groq returns in `tool_use_failed` errors' `failed_generation`.
    let text = "<function=read={\"path\": \"a.txt\"}</function>";
    assert_eq!(
        read(text, Family::Llama3, None),
        [
            r#"call_0 read {"path":"a.txt"}"#,
            "  change: the call was written <function=NAME={…} (as Groq reports in tool_use_failed) and read as <function=NAME>{…} (at /)",
            "prose: \"\"",
        ]
    );
}

#[test]
fn mistral_list_name_args_call_id_and_lost_tokens() {
    let list = "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}, \"id\": \"abc123DEF\"}, {\"name\": \"now\", \"arguments\": {}}]";
    assert_eq!(
        read(list, Family::Mistral, None),
        [
            r#"abc123DEF get_weather {"city":"Lyon"}"#,
            "call_1 now {}",
            "prose: \"\""
        ]
    );
    let args =
        "Checking.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Nice\"}[TOOL_CALLS]now[CALL_ID]x9Y8z7W6v[ARGS]{}";
    assert_eq!(
        read(args, Family::Mistral, None),
        [
            r#"call_0 get_weather {"city":"Nice"}"#,
            "x9Y8z7W6v now {}",
            "prose: \"Checking.\""
        ]
    );
    let lost = "[TOOL_CALLS]add{\"a\": 1, \"b\": 2}";
    assert_eq!(
        read(lost, Family::Mistral, None),
        [
            r#"call_0 add {"a":1,"b":2}"#,
            "  change: the [ARGS] token is missing (decoded with special tokens skipped); the JSON after the name was read (at /)",
            "prose: \"\"",
        ]
    );
    let bare = "[{\"name\": \"now\", \"arguments\": {}}]";
    assert_eq!(
        read(bare, Family::Mistral, None),
        [
            "call_0 now {}",
            "  change: the [TOOL_CALLS] token is missing (decoded with special tokens skipped); the list of calls was read (at /)",
            "prose: \"\"",
        ]
    );
    // A stray word before a v0.3 list (vLLM's regex fallback reads the
    // list); a list after a name that reads as no calls stays that name's
    // arguments.
    let stray = "[TOOL_CALLS]  junk [{\"name\": \"add\", \"arguments\":{\"a\": 1, \"b\": 2}}] trail";
    assert_eq!(
        read(stray, Family::Mistral, None),
        [
            r#"call_0 add {"a":1,"b":2}"#,
            "  change: \"junk\" between [TOOL_CALLS] and the list of calls names no call; it was left out (at /)",
            "prose: \"trail\"",
        ]
    );
    assert_eq!(
        read("[TOOL_CALLS]f[1, 2]", Family::Mistral, None),
        [
            "call_0 f error: arguments are not a JSON object: the arguments are an array, not an object",
            "  change: the [ARGS] token is missing (decoded with special tokens skipped); the JSON after the name was read (at /)",
            "prose: \"\"",
        ]
    );
}

#[test]
fn mistral_arguments_are_fitted_to_the_schema() {
    let tools = weather();
    assert_eq!(
        read("[TOOL_CALLS]get_weather[ARGS]{\"days\": \"3\"}", Family::Mistral, Some(&tools)),
        [
            r#"call_0 get_weather {"days":3}"#,
            "  change: the string \"3\" was read as the number 3, as the schema expects an integer (at /arguments/days)",
            "prose: \"\"",
        ]
    );
}

#[test]
fn pythonic_calls_with_python_literals() {
    let text = "[get_weather(city='San Francisco', days=3, metric=True, tags=[\"a\", 'b\\'c']), now()]";
    assert_eq!(
        read(text, Family::Pythonic, None),
        [
            r#"call_0 get_weather {"city":"San Francisco","days":3,"metric":true,"tags":["a","b'c"]}"#,
            "call_1 now {}",
            "prose: \"\"",
        ]
    );
    let llama4 = "<|python_start|>[search(query=\"caf\\u00e9\", limit=None, opts={'x': -1.5})]<|python_end|>";
    assert_eq!(
        read(llama4, Family::Pythonic, None),
        [
            r#"call_0 search {"query":"café","limit":null,"opts":{"x":-1.5}}"#,
            "prose: \"\""
        ]
    );
    // Cut off, the open string and brackets are closed and the call kept (noted).
    // The call the text ends inside is noted as cut (the Toolbox does not
    // run it); the list, on the response.
    let cut = "[get_weather(city='Par";
    assert_eq!(
        read(cut, Family::Pythonic, None),
        [
            r#"call_0 get_weather {"city":"Par"}"#,
            "  change: the text ends inside this call; its open strings and brackets were closed (at /)",
            "prose: \"\"",
            "note: change: the text ends inside the list of calls; the open strings and brackets were closed (at /)",
        ]
    );
    // Cut after its last call, the list cut no call.
    let cut = "[now(), get_weather(city='Oslo')";
    assert_eq!(
        read(cut, Family::Pythonic, None),
        [
            "call_0 now {}",
            r#"call_1 get_weather {"city":"Oslo"}"#,
            "prose: \"\"",
            "note: change: the text ends inside the list of calls; the open strings and brackets were closed (at /)",
        ]
    );
    // Cut after a call's head (`name(key=`): a stream announced the call
    // then, so it is a call whose arguments do not read.
    let cut = "[get_weather(city=";
    assert_eq!(
        read(cut, Family::Pythonic, None),
        [
            "call_0 get_weather error: arguments are not valid JSON: a Python literal was expected at byte 18 of the call list",
            "  change: the text ends inside this call; its open strings and brackets were closed (at /)",
            "prose: \"\"",
            "note: change: the text ends inside the list of calls; the open strings and brackets were closed (at /)",
        ]
    );
    // Cut before a head: no call, the text stays prose.
    let cut = "[get_weather(cit";
    let parsed = parse(cut, Family::Pythonic, None).unwrap();
    assert!(parsed.calls.is_empty());
    assert_eq!(parsed.prose, cut);
    assert_eq!(
        parsed.notes[0].to_string(),
        "error: pythonic markup \"[get_weather(cit\" was kept in the prose: the call list ends early (cut off?) where a keyword argument (name=value) was expected (at /)"
    );
}

/// A pythonic list is a list of calls once its first item has a call's
/// head, `name(` then `)` or `key=` (as a stream announces it): a later
/// call whose arguments do not read is a call with that error, an item
/// that is no call is noted and left out, and Python's trailing comma is
/// allowed. A first item without a head keeps the list in the prose.
#[test]
fn pythonic_lists_are_calls_from_their_first_head() {
    let text = "[get_weather(city='Paris'), now(when=soon), 42, get_weather(city='Oslo'),]";
    assert_eq!(
        read(text, Family::Pythonic, None),
        [
            r#"call_0 get_weather {"city":"Paris"}"#,
            "call_1 now error: arguments are not valid JSON: a Python literal was expected at byte 41 of the call list",
            r#"call_2 get_weather {"city":"Oslo"}"#,
            "prose: \"\"",
            "note: loss: item 2 of the list of calls, \"42\", is not a call (name(key=value, …)); it was left out (at /2)",
        ]
    );
    // A list that breaks off after a call keeps it; the rest is prose, noted once.
    assert_eq!(
        read("[now()) and then", Family::Pythonic, None),
        [
            "call_0 now {}",
            "  change: the list of calls breaks off after its item 0: the call list ends early (cut off?) where , or ] was expected; what follows was kept in the prose (at /)",
            "prose: \") and then\"",
        ]
    );
    let prose = "[see(above)] for the details.";
    let parsed = parse(prose, Family::Pythonic, None).unwrap();
    assert!(parsed.calls.is_empty());
    assert_eq!(parsed.prose, prose);
    // LFM2 reads the same list between its tokens; text after the list
    // stays prose, noted, and the calls stay calls.
    let lfm2 = "<|tool_call_start|>[now(), get_weather(city=\"Rome\")] done<|tool_call_end|>";
    assert_eq!(
        read(lfm2, Family::Lfm2, None),
        [
            "call_0 now {}",
            "  change: \"done\" after the list of calls was kept in the prose (at /)",
            r#"call_1 get_weather {"city":"Rome"}"#,
            "prose: \"done\"",
        ]
    );
}

#[test]
fn deepseek_v3_and_v31() {
    let v3 = "Let me see.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Berlin\"}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    assert_eq!(
        read(v3, Family::DeepSeek, None),
        [
            r#"call_0 get_weather {"city":"Berlin"}"#,
            "call_1 now {}",
            "prose: \"Let me see.\""
        ]
    );
    let v31 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Kraków\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    assert_eq!(
        read(v31, Family::DeepSeek, None),
        [r#"call_0 get_weather {"city":"Kraków"}"#, "prose: \"\""]
    );
    let cut = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Kra";
    assert_eq!(
        read(cut, Family::DeepSeek, None),
        [
            r#"call_0 get_weather {"city":"Kra"}"#,
            "  change: the call's <｜tool▁call▁end｜> is missing (at /)",
            "  change: the text ends inside a string; the string was closed (line 1, column 10) (at /arguments/city)",
            "  change: the text ends early; the open bracket was closed (line 1, column 14) (at /arguments)",
            "prose: \"\"",
        ]
    );
}

#[test]
fn glm_arg_key_arg_value_typed_by_the_schema() {
    let text = "Checking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>42</arg_value>\n<arg_key>days</arg_key>\n<arg_value>7</arg_value>\n</tool_call>";
    let tools = weather();
    assert_eq!(
        read(text, Family::Glm, Some(&tools)),
        [
            r#"call_0 get_weather {"city":"42","days":7}"#,
            "prose: \"Checking.\""
        ]
    );
    // GLM-4.7 drops the line breaks; a no-argument call; a missing </arg_value> and </tool_call>.
    let text = "<tool_call>now</tool_call><tool_call>add<arg_key>a</arg_key><arg_value>1";
    assert_eq!(
        read(text, Family::Glm, None),
        [
            "call_0 now {}",
            r#"call_1 add {"a":"1"}"#,
            "  change: the call's </tool_call> is missing (at /)",
            "  change: the </arg_value> of \"a\" is missing; its value ends at the next tag (at /)",
            "  info: no schema types a; kept as strings (at /arguments)",
            "prose: \"\"",
        ]
    );
}

#[test]
fn kimi_k2_calls_with_their_ids() {
    let text = "<think>Weather, then time.</think>Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Seoul\"}<|tool_call_end|><|tool_call_begin|>functions.now:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
    assert_eq!(
        read(text, Family::Kimi, None),
        [
            r#"functions.get_weather:0 get_weather {"city":"Seoul"}"#,
            "functions.now:1 now {}",
            "prose: \"<think>Weather, then time.</think>Sure.\"",
        ]
    );
    // Kimi K2 Thinking calls inside a <think> that never closes.
    let open = "<think>I need the time.<|tool_calls_section_begin|><|tool_call_begin|>functions.now:0<|tool_call_argument_begin|>{}<|tool_call_end|>";
    assert_eq!(
        read(open, Family::Kimi, None),
        ["functions.now:0 now {}", "prose: \"<think>I need the time.\""]
    );
}

#[test]
fn detection_order_handles_shared_prefixes() {
    assert_eq!(
        Family::detect("<|tool_call>call:f{}<tool_call|>"),
        Some(Family::Gemma4),
        "Gemma 4 is not Hermes"
    );
    assert_eq!(
        Family::detect("<|tool_call|>[{\"name\": \"f\", \"arguments\": {}}]"),
        Some(Family::Granite)
    );
    assert_eq!(
        Family::detect("<tool_call>[{\"name\": \"f\", \"arguments\": {}}]</tool_call>"),
        Some(Family::Granite),
        "Granite 3.1's list is neither GLM's name nor Hermes' object"
    );
    assert_eq!(
        Family::detect("<tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>"),
        Some(Family::Hunyuan),
        "<tool_calls> is not <tool_call>"
    );
    assert_eq!(
        Family::detect("<|tool_call_start|>[f()]<|tool_call_end|>"),
        Some(Family::Lfm2),
        "LFM2 shares <|tool_call_end|> with Kimi"
    );
    assert_eq!(
        Family::detect("<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>"),
        Some(Family::Harmony)
    );
    assert_eq!(
        Family::detect(
            "<|start|>assistant to=w.get<|message|><atem:invoke name=\"w.get\"></atem:invoke><|eom|>"
        ),
        Some(Family::MuseGlimmer),
        "<|message|> without Harmony's <|channel|>"
    );
    assert_eq!(
        Family::detect("<function name=\"f\"><param name=\"a\">1</param></function>"),
        Some(Family::MiniCpm5),
        "<function name= is not Qwen3-Coder's or Llama's <function="
    );
    assert_eq!(
        Family::detect(
            "<|message_model|>f<|content_invoke_tool_json|>{\"name\": \"f\", \"args\": {}}<|end_message|>"
        ),
        Some(Family::Inkling)
    );
    assert_eq!(
        Family::detect("functools[{\"name\": \"f\"}]"),
        Some(Family::Phi4Mini)
    );
    assert_eq!(
        Family::detect("<function=f>{\"a\": 1}</function>"),
        Some(Family::Llama3)
    );
    assert_eq!(
        Family::detect("<function=f>\n<parameter=a>1</parameter></function>"),
        Some(Family::Qwen3Coder)
    );
    assert_eq!(Family::detect("[f(a=1)]"), Some(Family::Pythonic));
    assert_eq!(
        Family::detect("<function_calls>f(a=1)\ng()</function_calls>"),
        Some(Family::Olmo3)
    );
    // Kimi K3's tokens, and a call in its closed think channel is not one.
    assert_eq!(
        Family::detect("<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|close|>call<|sep|>"),
        Some(Family::KimiK3)
    );
    assert_eq!(
        Family::detect(
            "<|open|>think<|sep|><|open|>call tool=\"f\"<|sep|><|close|>call<|sep|><|close|>think<|sep|>"
        ),
        None
    );
    // Step3's tokens write `_` where DeepSeek's write `▁`; its invoke element
    // alone (the wrapper lost) is enough.
    assert_eq!(
        Family::detect("<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"),
        Some(Family::Step3)
    );
    assert_eq!(
        Family::detect("<steptml:invoke name=\"f\"></steptml:invoke>"),
        Some(Family::Step3)
    );
    assert_eq!(
        Family::detect("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>"),
        Some(Family::DeepSeek)
    );
    // MiniMax-M3's marker comes before M2's `<invoke name=`, which it holds;
    // a call in its closed `<mm:think>` is not one.
    assert_eq!(
        Family::detect("]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>"),
        Some(Family::MiniMaxM3)
    );
    assert_eq!(
        Family::detect("<mm:think>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[</invoke></mm:think>Done."),
        None
    );
    // dots.llm writes MiniMax-M2's `<invoke name=` in blocks of its own.
    assert_eq!(
        Family::detect("<dots_function_call>\n<invoke name=\"f\">\n</invoke>\n</dots_function_call>"),
        Some(Family::Dots)
    );
    assert_eq!(
        Family::detect("<dots_function_call>{\"name\": \"f\", \"arguments\": {}}</dots_function_call>"),
        Some(Family::Dots)
    );
    // LongCat's tag holds `tool_call>` but not Hermes's `<tool_call>`;
    // InternLM's interpreter action is no call.
    assert_eq!(
        Family::detect("<longcat_tool_call>{\"name\": \"f\", \"arguments\": {}}</longcat_tool_call>"),
        Some(Family::LongCat)
    );
    assert_eq!(
        Family::detect("<|action_start|><|plugin|>\n{\"name\": \"f\", \"parameters\": {}}<|action_end|>"),
        Some(Family::InternLm)
    );
    assert_eq!(
        Family::detect("<|action_start|><|interpreter|>\nprint(1)<|action_end|>"),
        None
    );
    // xLAM is told by a code fence holding a list of calls (its bare list
    // is Mistral's whose token was lost); a fence of code is prose.
    assert_eq!(
        Family::detect("Sure.\n```json\n[{\"name\": \"f\", \"arguments\": {}}]\n```"),
        Some(Family::Xlam)
    );
    assert_eq!(Family::detect("```python\nprint([1])\n```"), None);
    assert_eq!(
        Family::detect("[{\"name\": \"f\", \"arguments\": {}}]"),
        Some(Family::Mistral)
    );
    // GigaChat's headers, 3's and 3.1's.
    assert_eq!(
        Family::detect(
            "Sure.<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {}}"
        ),
        Some(Family::GigaChat)
    );
    assert_eq!(
        Family::detect("<|function_call|>{\"name\": \"f\", \"arguments\": {}}"),
        Some(Family::GigaChat)
    );
    // Granite 20B FC's token, which OLMo 3's `<function_calls>` does not hold.
    assert_eq!(
        Family::detect("<function_call> {\"name\": \"f\", \"arguments\": {}}"),
        Some(Family::GraniteFc)
    );
    // Apertus's prefix.
    assert_eq!(
        Family::detect("<|tools_prefix|>[{\"f\": {}}]<|tools_suffix|>"),
        Some(Family::Apertus)
    );
    // Seed-OSS writes Qwen3-Coder's calls in a wrapper of its own.
    assert_eq!(
        Family::detect(
            "<seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n</seed:tool_call>"
        ),
        Some(Family::SeedOss)
    );
    // A call inside Seed-OSS's closed reasoning is not one.
    assert_eq!(
        Family::detect(
            "<seed:think><seed:tool_call>\n<function=f>\n</function>\n</seed:tool_call></seed:think>"
        ),
        None
    );
    // FunctionGemma writes Gemma 4's syntax under tokens of its own.
    assert_eq!(
        Family::detect("<start_function_call>call:f{a:1}<end_function_call>"),
        Some(Family::FunctionGemma)
    );
    assert_eq!(
        Family::detect("<tool_call>f\n<arg_key>a</arg_key>"),
        Some(Family::Glm)
    );
    assert_eq!(
        Family::detect("<tool_call>\n{\"name\": \"f\"}</tool_call>"),
        Some(Family::Hermes)
    );
    assert_eq!(Family::detect("Just prose [with brackets] and {braces}."), None);
    assert_eq!(Family::from_id("hermes").unwrap(), Family::Hermes);
    assert_eq!(
        Family::from_id("gemma").unwrap_err().to_string(),
        "unknown format: no model family is called \"gemma\" (known: deepseek-dsml, deepseek, step3, kimi, kimi-k3, harmony, inkling, muse-glimmer, gemma4, function-gemma, minimax-m3, minimax, dots, minicpm5, seed-oss, command-r7b, hunyuan, longcat, internlm, gigachat, apertus, lfm2, olmo3, mistral, granite, granite-20b-fc, qwen3-coder, glm, hermes, phi4-mini, llama3, pythonic, xlam)"
    );
}

#[test]
fn adversarial_text_stays_linear_and_bounded() {
    let pieces = [
        "<tool_call>",
        "<function=a>",
        "<parameter=b>",
        "<|python_tag|>",
        "[TOOL_CALLS]",
        "<｜tool▁call▁begin｜>",
        "<think>",
        "</think>",
        "[f(a=[",
        "<|tool_call>call:f{a:[",
        "<|\"|>",
        "<|channel|>",
        "<|message|>",
        "<invoke name=\"f\">",
        "<parameter name=",
        "<｜DSML｜invoke name=",
        "<|START_ACTION|>[",
        "functools[",
        "<|tool_call_start|>",
        "<tool_calls>",
        "<|tool_call|>",
        "<|python_tag|>brave_search.call(",
    ];
    for piece in pieces {
        let text = piece.repeat(20_000);
        for family in FAMILIES.iter().map(|info| info.family) {
            // Linear time is the text benchmark's to measure (a wall-clock
            // bound here fails on a loaded machine); this holds the output
            // bounded by the input.
            let parsed = parse(&text, family, None).unwrap();
            assert!(parsed.prose.len() <= text.len(), "{family} on {piece:?}");
        }
    }
    let limits = Limits::default().with_max_tools(2);
    let text = "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>".repeat(3);
    let parsed = parse_with_limits(&text, Family::Hermes, None, &limits).unwrap();
    assert_eq!(parsed.calls.len(), 2);
    assert_eq!(
        parsed.notes[0].to_string(),
        "error: 1 more calls were not read: the text holds more than 2 calls (at /)"
    );
    let small = Limits::default().with_max_bytes(4);
    assert_eq!(
        parse_with_limits("hello", Family::Hermes, None, &small)
            .unwrap_err()
            .to_string(),
        "limit exceeded: the text is larger than 4 bytes"
    );
}

/// GLM's template writes a value with no line break around it
/// (`<arg_value>{{ v }}</arg_value>`), so the text between the tags is the
/// value as it stands: vLLM's `glm4_moe_tool_parser.py` keeps it (its tests
/// keep a file's final line break), where ollama's `glm46.go` drops one
/// line break at each end. A number or boolean is read past the spaces
/// around it.
#[test]
fn glm_values_are_the_text_between_the_tags() {
    let text = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>\nSão Paulo\n</arg_value>\n<arg_key>days</arg_key>\n<arg_value>\n3\n</arg_value>\n</tool_call>";
    assert_eq!(
        read(text, Family::Glm, Some(&weather())),
        [
            r#"call_0 get_weather {"city":"\nSão Paulo\n","days":3}"#,
            "prose: \"\""
        ]
    );
}

/// ollama `glm47_test.go`: between `<arg_value>` and its `</arg_value>`
/// the call's tags are text. A value whose `</arg_value>` does not come
/// before the next `<arg_key>` or `<arg_value>` is unclosed, and the first
/// call tag in it ends the call, as it did before.
#[test]
fn glm_call_tags_inside_a_value_are_text() {
    let text = "<tool_call>w<arg_key>c</arg_key><arg_value>Wrap in <tool_call> and </tool_call>.</arg_value></tool_call> ok";
    assert_eq!(
        read(text, Family::Glm, None),
        [
            r#"call_0 w {"c":"Wrap in <tool_call> and </tool_call>."}"#,
            "  info: no schema types c; kept as strings (at /arguments)",
            "prose: \"ok\"",
        ]
    );
    let text = "<tool_call>w<arg_key>c</arg_key><arg_value>x</tool_call> so <tool_call>v<arg_key>d</arg_key><arg_value>y</arg_value></tool_call>";
    assert_eq!(
        read(text, Family::Glm, None),
        [
            r#"call_0 w {"c":"x"}"#,
            "  change: the </arg_value> of \"c\" is missing; its value ends at the next tag (at /)",
            "  info: no schema types c; kept as strings (at /arguments)",
            r#"call_1 v {"d":"y"}"#,
            "  info: no schema types d; kept as strings (at /arguments)",
            "prose: \"so\"",
        ]
    );
    let text = "<tool_call>w<arg_key>c</arg_key><arg_value>x</tool_call> and prose";
    assert_eq!(
        read(text, Family::Glm, None),
        [
            r#"call_0 w {"c":"x"}"#,
            "  change: the </arg_value> of \"c\" is missing; its value ends at the next tag (at /)",
            "  info: no schema types c; kept as strings (at /arguments)",
            "prose: \"and prose\"",
        ]
    );
}

/// Between `<parameter=K>` and its `</parameter>` the call's tags are
/// text: a coding model writing a chat template or a document about this
/// markup. As vLLM's `qwen3coder_tool_parser.py` reads it now (ollama's
/// `qwen3coder.go` cuts the value at the first `</function>`), a
/// `</parameter>` closes its value only when `</function>`, `</tool_call>`
/// or the next `<parameter=` follows it, so a value missing its
/// `</parameter>` runs on to one that does; a value never closed is read
/// as before: the first call tag in it ends the call.
#[test]
fn qwen3_coder_call_tags_inside_a_value_are_text() {
    let text = "<tool_call>\n<function=write>\n<parameter=content>\nWrap it: <tool_call>\n<function=NAME>\n</function>\n</tool_call>\n</parameter>\n</function>\n</tool_call> ok";
    assert_eq!(
        read(text, Family::Qwen3Coder, None),
        [
            r#"call_0 write {"content":"Wrap it: <tool_call>\n<function=NAME>\n</function>\n</tool_call>"}"#,
            "  info: no schema types this parameter (content); kept as strings (at /arguments)",
            "prose: \"ok\"",
        ]
    );
    let text = "<tool_call><function=w><parameter=c>x</function></tool_call> so <tool_call><function=v><parameter=d>y</parameter></function></tool_call>";
    assert_eq!(
        read(text, Family::Qwen3Coder, None),
        [
            r#"call_0 w {"c":"x</function></tool_call> so <tool_call><function=v><parameter=d>y"}"#,
            "  info: no schema types this parameter (c); kept as strings (at /arguments)",
            "prose: \"\"",
        ]
    );
    let text = "<tool_call><function=w><parameter=c>x</function></tool_call> so <tool_call><function=v></function></tool_call>";
    assert_eq!(
        read(text, Family::Qwen3Coder, None),
        [
            r#"call_0 w {"c":"x"}"#,
            "  change: the </parameter> of \"c\" is missing; its value ends at the next tag (at /)",
            "  info: no schema types this parameter (c); kept as strings (at /arguments)",
            "call_1 v {}",
            "prose: \"so\"",
        ]
    );
    // A `</parameter>` that text follows is text; a declared parameter's
    // `<parameter=` after it closes the value, an undeclared one's does not.
    let text = "<tool_call>\n<function=write>\n<parameter=content>\nclose with </parameter> then\n<parameter=path>\nx\n</parameter>\n</parameter>\n<parameter=path>\na.py\n</parameter>\n</function>\n</tool_call>";
    let tools = [Tool::new(
        "write",
        json!({"type": "object", "properties": {"content": {"type": "string"}, "path": {"type": "string"}}}),
    )];
    assert_eq!(
        read(text, Family::Qwen3Coder, Some(&tools)),
        [
            r#"call_0 write {"content":"close with </parameter> then\n<parameter=path>\nx\n</parameter>","path":"a.py"}"#,
            "prose: \"\"",
        ]
    );
    let text = "<tool_call><function=write><parameter=content>a</parameter><parameter=mode>b</parameter></function></tool_call>";
    assert_eq!(
        read(text, Family::Qwen3Coder, Some(&tools)),
        [
            r#"call_0 write {"content":"a</parameter><parameter=mode>b"}"#,
            "prose: \"\"",
        ]
    );
    let text = "<tool_call><function=w><parameter=c>x</tool_call> and <function=v></function> prose";
    assert_eq!(
        read(text, Family::Qwen3Coder, None),
        [
            r#"call_0 w {"c":"x"}"#,
            "  change: the call's </function> is missing (at /)",
            "  change: the </parameter> of \"c\" is missing; its value ends at the next tag (at /)",
            "  info: no schema types this parameter (c); kept as strings (at /arguments)",
            "call_1 v {}",
            "  change: the <tool_call> before <function=…> is missing (at /)",
            "prose: \"and  prose\"",
        ]
    );
}

/// A parameter given twice keeps its last value with a note (vLLM's
/// parsers build a dict, so the last wins silently), and the note on
/// untyped parameters names it once.
#[test]
fn a_parameter_given_twice_keeps_the_last_with_a_note() {
    let text = "<tool_call>w<arg_key>c</arg_key><arg_value>1</arg_value><arg_key>c</arg_key><arg_value>2</arg_value></tool_call>";
    assert_eq!(
        read(text, Family::Glm, None),
        [
            r#"call_0 w {"c":"2"}"#,
            "  loss: the argument \"c\" was given twice; the last value was kept (at /arguments/c)",
            "  info: no schema types c; kept as strings (at /arguments)",
            "prose: \"\"",
        ]
    );
    let text =
        "<tool_call><function=w><parameter=c>1</parameter><parameter=c>2</parameter></function></tool_call>";
    assert_eq!(
        read(text, Family::Qwen3Coder, None),
        [
            r#"call_0 w {"c":"2"}"#,
            "  loss: the parameter \"c\" was given twice; the last value was kept (at /arguments/c)",
            "  info: no schema types this parameter (c); kept as strings (at /arguments)",
            "prose: \"\"",
        ]
    );
}

/// vLLM `granite_tool_parser.py`: Granite 3.1 writes `<tool_call>` and a
/// JSON list with no closing tag; before the Granite family it was taken
/// for a GLM call named `[…]`.
#[test]
fn granite_31_list_after_tool_call_string() {
    let text = "<tool_call>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}, {\"name\": \"now\", \"arguments\": {}}]";
    assert_eq!(
        read(text, Family::Granite, None),
        [
            r#"call_0 get_weather {"city":"Oslo"}"#,
            "call_1 now {}",
            "prose: \"\""
        ]
    );
}

/// Meta's Llama 3.1 prompt format and llama.cpp `common/chat.cpp`
/// (`common_chat_parse_llama_3_1`): built-in tools after `<|python_tag|>`
/// were kept in the prose before; now they are calls.
#[test]
fn llama3_builtin_tools() {
    let text = "<|python_tag|>wolfram_alpha.call(query=\"solve x^2 + 2x = 3\")<|eom_id|>";
    assert_eq!(
        read(text, Family::Llama3, None),
        [
            r#"call_0 wolfram_alpha {"query":"solve x^2 + 2x = 3"}"#,
            "prose: \"\""
        ]
    );
    let text = "Here is the plan.\n<|python_tag|>print(sum(range(10)))<|eom_id|>";
    assert_eq!(
        read(text, Family::Llama3, None),
        [
            r#"call_0 code_interpreter {"code":"print(sum(range(10)))"}"#,
            "prose: \"Here is the plan.\""
        ]
    );
}

/// openai/harmony `docs/format.md`: the recipient in the role header, a
/// `<|constrain|>` without a space, and a built-in recipient.
#[test]
fn harmony_recipients_and_channels() {
    let text = "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary<|constrain|>json<|message|>{\"city\": \"Rome\"}<|call|>";
    assert_eq!(
        read(text, Family::Harmony, None),
        [
            r#"call_0 get_weather {"city":"Rome"}"#,
            "prose: \"<|channel|>analysis<|message|>Need weather.<|end|>\""
        ]
    );
    let text = "<|channel|>analysis<|message|>Let me think.<|end|><|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>";
    assert_eq!(
        read(text, Family::Harmony, None),
        ["prose: \"<|channel|>analysis<|message|>Let me think.<|end|>It is sunny.\""]
    );
}

/// A Harmony header is short (a role, a channel, a recipient, a
/// `<|constrain|>`): a header token, or the rest of a role header, with no
/// `<|message|>` within 256 bytes of it is text, kept as written, and the
/// header tokens after it are read as usual.
#[test]
fn harmony_header_tokens_far_from_a_message_are_text() {
    let filler = "word ".repeat(60);
    let text = format!(
        "<|start|>assistant {filler}<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{{\"city\": \"Oslo\"}}<|call|>"
    );
    assert_eq!(
        read(&text, Family::Harmony, None),
        [
            r#"call_0 get_weather {"city":"Oslo"}"#.to_string(),
            format!("prose: \"<|start|>assistant {}\"", filler.trim_end()),
        ]
    );
    // The rest of a role header too far from its message: a message without a header.
    let text = format!(" to=functions.now {filler}<|message|>Hello.<|end|>");
    assert_eq!(
        read_as(&text, Family::Harmony, None),
        [format!("prose: \"to=functions.now {}Hello.\"", filler)]
    );
    // Within 256 bytes, it is a header.
    let text = format!(
        "<|start|>assistant to=functions.now {}<|message|>{{}}<|call|>",
        "x".repeat(200)
    );
    assert_eq!(
        read(&text, Family::Harmony, None),
        ["call_0 now {}", "prose: \"\""]
    );
}

/// vLLM `parser/inkling.py`: the header before a content token is the
/// message's author (left out, noted unless it names the block's call);
/// other text there is prose; a thinking block stays in the prose as
/// written, and a call inside one that never closes is a call; the
/// arguments are under `args` (or `arguments`), wherever the name stands.
#[test]
fn inkling_headers_blocks_and_envelopes() {
    let text = "<|message_model|>hello world<|end_message|><|message_model|>lookup<|content_text|>Sure.<|end_message|><|message_model|>get_weather<|content_invoke_tool_json|>{\"name\": \"search\", \"args\": {\"query\": \"rain\"}}<|end_message|>";
    assert_eq!(
        read(text, Family::Inkling, None),
        [
            r#"call_0 search {"query":"rain"}"#,
            "prose: \"hello worldSure.\"",
            "note: loss: \"lookup\" before <|content_text|> is the message's header (its author's name); it was left out (at /)",
            "note: loss: \"get_weather\" before <|content_invoke_tool_json|> is the message's header (its author's name); it was left out (at /)",
        ]
    );
    // An unclosed thinking block ends where the call starts; the envelope
    // gives its arguments first, then its name; `arguments` stands for `args`.
    let text = "<|content_thinking|>Both.<|content_invoke_tool_json|>{\"args\": {\"query\": \"rain\"}, \"name\": \"search\"}<|end_message|><|message_model|>now<|content_invoke_tool_json|>{\"name\": \"now\", \"arguments\": {}}<|content_model_end_sampling|>";
    assert_eq!(
        read(text, Family::Inkling, None),
        [
            r#"call_0 search {"query":"rain"}"#,
            r#"call_1 now {}"#,
            "prose: \"<|content_thinking|>Both.\"",
        ]
    );
    // Not a header: a space, a name longer than 128 bytes.
    let long = "n".repeat(129);
    let text = format!("Hi there<|content_text|>a<|end_message|><|message_model|>{long}<|content_text|>b");
    assert_eq!(
        read(&text, Family::Inkling, None),
        [format!("prose: \"Hi therea{long}b\"")]
    );
    // Broken JSON in a closed block is repaired; no JSON is prose, noted.
    let text = "<|content_invoke_tool_json|>{'name': 'now', 'args': {}}<|end_message|><|content_invoke_tool_json|>no json<|end_message|>";
    assert_eq!(
        read(text, Family::Inkling, None),
        [
            "call_0 now {}",
            "  change: 3 strings in single quotes were read as JSON strings (first at line 1, column 2) (at /)",
            "prose: \"<|content_invoke_tool_json|>no json<|end_message|>\"",
            "note: error: inkling markup \"<|content_invoke_tool_json|>no json<|end\"… was kept in the prose: invalid JSON: no JSON object or array found in the text (line 1, column 1) (at /)",
        ]
    );
}

/// vLLM `deepseekv32_tool_parser.py`: `string="true"` keeps the text as
/// written (a number-looking string stays a string), `string="false"` is
/// JSON; a value marked JSON that is not is typed by the schema, noted.
#[test]
fn dsml_string_attribute() {
    let text = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">10115</｜DSML｜parameter>\n<｜DSML｜parameter name=\"tags\" string=\"false\">[\"a\", \"b\"]</｜DSML｜parameter>\n<｜DSML｜parameter name=\"days\" string=\"false\">three</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    assert_eq!(
        read(text, Family::DeepSeekDsml, Some(&weather())),
        [
            r#"call_0 get_weather {"city":"10115","tags":["a","b"],"days":"three"}"#,
            "  info: \"three\" is marked string=\"false\" but is not JSON; it was read as the schema types it (at /arguments/days)",
            "  info: \"three\" is not of the type the schema gives (integer); it was kept as a string for validation to report (at /arguments/days)",
            "prose: \"\"",
        ]
    );
}

/// vLLM `kimi_k3_tool_parser.py`: `type="string"` keeps the text as
/// written (a number-looking string stays a string), any other type is
/// JSON; a value typed as JSON that is not is typed by the schema, noted
/// (vLLM keeps it a string); an argument without `type=` is typed by the
/// schema; attribute values are unescaped.
#[test]
fn kimi_k3_type_attribute() {
    let text = "<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>10115<|close|>argument<|sep|><|open|>argument key=\"tags\" type=\"array\"<|sep|>[\"a&amp;b\"]<|close|>argument<|sep|><|open|>argument key=\"days\" type=\"integer\"<|sep|>three<|close|>argument<|sep|><|open|>argument key=\"metric\"<|sep|> true <|close|>argument<|sep|><|open|>argument key=\"a&quot;b&amp;c\" type=\"number\"<|sep|>1.5<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>";
    assert_eq!(
        read(text, Family::KimiK3, Some(&weather())),
        [
            r#"call_0 get_weather {"city":"10115","tags":["a&amp;b"],"days":"three","metric":true,"a\"b&c":1.5}"#,
            "  info: \"three\" is marked a JSON value (its type is not \"string\") but is not JSON; it was read as the schema types it (at /arguments/days)",
            "  info: \"three\" is not of the type the schema gives (integer); it was kept as a string for validation to report (at /arguments/days)",
            "prose: \"\"",
        ]
    );
}

/// A DSML call's values are fitted to the tool's schema as a JSON call's
/// are (vLLM `test_deepseekv32_tool_parser.py`: a number written as a
/// string for an integer parameter), noted.
#[test]
fn dsml_values_are_fitted_to_the_schema() {
    let text = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"days\" string=\"true\">3</｜DSML｜parameter>\n<｜DSML｜parameter name=\"ratio\" string=\"false\">2</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
    assert_eq!(
        read(text, Family::DeepSeekDsml, Some(&weather())),
        [
            r#"call_0 get_weather {"days":3,"ratio":2}"#,
            "  change: the string \"3\" was read as the number 3, as the schema expects an integer (at /arguments/days)",
            "prose: \"\"",
        ]
    );
}

/// ollama `model/parsers/gemma4_test.go`: strings between `<|"|>` are
/// taken as written (backslashes and quotes stay), JSON strings mixed in
/// are unescaped, nested objects and lists, and a bare word is noted.
#[test]
fn gemma4_values() {
    let text = "<|tool_call>call:plan{path:<|\"|>C:\\users\\bob<|\"|>,note:\"raw \\\"q\\\"\",steps:[{title:<|\"|>say \"hi\"<|\"|>,done:false}],mode:fast}<tool_call|>";
    assert_eq!(
        read(text, Family::Gemma4, None),
        [
            r#"call_0 plan {"path":"C:\\users\\bob","note":"raw \"q\"","steps":[{"title":"say \"hi\"","done":false}],"mode":"fast"}"#,
            "  change: \"fast\" written without <|\"|> delimiters; read as strings (at /)",
            "prose: \"\"",
        ]
    );
}

/// A thought channel that opens inside a call without its `<tool_call|>`
/// and closes later ends the call where it opens; the call written in the
/// channel is thought, kept in the prose (a closed channel is read before
/// calls are looked for). Streamed the same way (`text_stream.rs`
/// fixtures; the stream disagreed until cargo-fuzz found it).
#[test]
fn gemma4_call_cut_by_a_closed_thought_channel() {
    let text = "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|><|channel>thought\nor <|tool_call>call:f{a:1}<tool_call|> <channel|>Done.";
    assert_eq!(
        read(text, Family::Gemma4, None),
        [
            r#"call_0 get_weather {"city":"Paris"}"#,
            "  change: the call's <tool_call|> is missing (at /)",
            "  change: the text ends inside the call's arguments; what was open was closed (at /)",
            "prose: \"<|channel>thought\\nor <|tool_call>call:f{a:1}<tool_call|> <channel|>Done.\"",
        ]
    );
}

/// vLLM `minimax_m2_tool_parser.py`: values are stripped and typed by the
/// schema; names may be quoted with ' too.
#[test]
fn minimax_values_typed_by_the_schema() {
    let text = "<minimax:tool_call>\n<invoke name='get_weather'>\n<parameter name=\"city\">\n  Lyon \n</parameter>\n<parameter name=\"days\">5</parameter>\n<parameter name=\"metric\">True</parameter>\n</invoke>\n</minimax:tool_call>";
    assert_eq!(
        read(text, Family::MiniMax, Some(&weather())),
        [
            r#"call_0 get_weather {"city":"Lyon","days":5,"metric":true}"#,
            "  change: \"True\" was read as the boolean the schema asks for (at /arguments/metric)",
            "prose: \"\"",
        ]
    );
}

/// ollama `model/parsers/ministral.go` reads the name as everything before
/// `[ARGS]`: a space after `[TOOL_CALLS]` was kept as prose before.
#[test]
fn mistral_space_after_tool_calls_token() {
    let text = "[TOOL_CALLS] get_weather[ARGS]{\"city\": \"Oslo\"}";
    assert_eq!(
        read(text, Family::Mistral, None),
        [r#"call_0 get_weather {"city":"Oslo"}"#, "prose: \"\""]
    );
}

/// A dotted tool name (an MCP server's `github.search_issues`) keeps its
/// dots: only the `functions.` prefix and the `:IDX` suffix go.
#[test]
fn kimi_dotted_name_stays_whole() {
    let text = "<|tool_calls_section_begin|><|tool_call_begin|>functions.github.search_issues:0<|tool_call_argument_begin|>{\"query\": \"ice\"}<|tool_call_end|><|tool_calls_section_end|>";
    assert_eq!(
        read(text, Family::Kimi, None),
        [
            r#"functions.github.search_issues:0 github.search_issues {"query":"ice"}"#,
            "prose: \"\""
        ]
    );
}

/// vLLM `xlam_tool_parser.py`: xLAM's list of calls is read bare (the
/// whole answer, or after the reasoning the prompt opened), after
/// `[TOOL_CALLS]`, in `<tool_call>…</tool_call>` (the tags leave the
/// prose), and in a code fence with or without `json`; a fence of other
/// code is prose.
#[test]
fn xlam_shapes() {
    let call = r#"[{"name": "get_weather", "arguments": {"city": "Oslo"}}]"#;
    let read = |text: &str| read_as(text, Family::Xlam, None);
    let one = [r#"call_0 get_weather {"city":"Oslo"}"#];
    assert_eq!(read(call), [one[0], "prose: \"\""]);
    assert_eq!(
        read(&format!("plan</think>\n{call}")),
        [one[0], "prose: \"plan</think>\""]
    );
    assert_eq!(
        read(&format!("Checking.[TOOL_CALLS]{call}")),
        [one[0], "prose: \"Checking.\""]
    );
    assert_eq!(
        read(&format!("Checking.<tool_call>{call}</tool_call> Done.")),
        [one[0], "prose: \"Checking. Done.\""]
    );
    assert_eq!(read(&format!("```\n{call}\n```")), [one[0], "prose: \"\""]);
    assert_eq!(
        read("Run:\n```python\nprint([1])\n```"),
        ["prose: \"Run:\\n```python\\nprint([1])\\n```\""]
    );
}

/// vLLM `test_apertus_tool_parser.py` (`test_incomplete_tool_call`): a list
/// cut off after its last call closed is still that call, and the cut is
/// the text's note, not the call's (the Toolbox runs the call; one the
/// text ends inside keeps the truncation notes, at their place in its
/// arguments).
#[test]
fn apertus_list_cut_after_a_call() {
    assert_eq!(
        read(
            r#"<|tools_prefix|>[{"get_weather": {"location": "London"}}"#,
            Family::Apertus,
            None
        ),
        [
            r#"call_0 get_weather {"location":"London"}"#,
            "  change: the calls' <|tools_suffix|> is missing (at /)",
            "prose: \"\"",
            "note: change: the text ends early; the open bracket was closed (line 1, column 41) (at /)",
        ]
    );
    assert_eq!(
        read(
            r#"<|tools_prefix|>[{"a": {}}, {"b": {"x": [1"#,
            Family::Apertus,
            None
        ),
        [
            "call_0 a {}",
            "  change: the calls' <|tools_suffix|> is missing (at /)",
            "call_1 b {\"x\":[1]}",
            "  change: the text ends early; 4 open brackets were closed (line 1, column 27) (at /arguments/x)",
            "prose: \"\"",
        ]
    );
}

/// MiniMax-M3: the text ending inside nested elements is noted once (every
/// element around the cut ends with it), and nesting past `max_depth` ends
/// the arguments with one note, not one per element around it.
#[test]
fn minimax_m3_cut_inside_nested_elements_noted_once() {
    let nested = |depth: usize| {
        format!(
            "]<]minimax[>[<invoke name=\"f\">{}x",
            "]<]minimax[>[<a>".repeat(depth)
        )
    };
    assert_eq!(
        read(&nested(3), Family::MiniMaxM3, None),
        [
            r#"call_0 f {"a":{"a":{"a":"x"}}}"#,
            "  change: the call's ]<]minimax[>[</invoke> is missing (at /)",
            "  change: the closing tag of \"a\" is missing; its value ends with the text (at /)",
            "  info: no schema types a; kept as the text and elements give them (at /arguments)",
            "prose: \"\"",
        ]
    );
    let deep = read(&nested(200), Family::MiniMaxM3, None);
    assert_eq!(
        deep[1..],
        [
            "  change: the call's ]<]minimax[>[</invoke> is missing (at /)",
            "  change: the element \"a\" is nested deeper than 128 elements; the arguments end at it (at /)",
            "  info: no schema types a; kept as the text and elements give them (at /arguments)",
            "prose: \"\"",
        ]
    );
}

/// A Muse Glimmer header whose `<|start|>` was lost after an end token is
/// still the message's header (vLLM's `_MSG_HEADER_RE` needs no
/// `<|start|>`): its recipient decides what the body is.
#[test]
fn glimmer_header_after_an_end_token_without_its_start() {
    let text = " to=self<|message|>Weather first.<|eom|>assistant to=get_weather<|message|><atem:invoke name=\"get_weather\"><atem:parameter name=\"city\">Oslo</atem:parameter></atem:invoke><|eom|> to=user<|message|>Asking.<|eot|>";
    assert_eq!(
        read(text, Family::MuseGlimmer, None),
        [
            r#"call_0 get_weather {"city":"Oslo"}"#,
            "prose: \"to=self<|message|>Weather first.<|eom|>Asking.\"",
        ]
    );
    // After an end token, text that is no header is prose.
    let text = "<|start|>assistant to=user<|message|>Hi.<|eom|>assistant: to be continued";
    assert_eq!(
        read(text, Family::MuseGlimmer, None),
        ["prose: \"Hi.assistant: to be continued\""]
    );
}

/// MiniCPM5: GPT-2's byte markers are read as a space and a line break
/// only in a call whose tags show them; elsewhere `Ġ` is a letter
/// (Maltese's Ġgantija).
#[test]
fn minicpm5_byte_markers_only_where_the_tags_show_them() {
    let text = "<function name=\"search\"><param name=\"query\">Ġgantija</param></function>\n<function\u{0120}name=\"search\"><param\u{0120}name=\"query\">Ġgantija\u{0120}temples\u{010a}</param></function>";
    assert_eq!(
        read(text, Family::MiniCpm5, None),
        [
            r#"call_0 search {"query":"Ġgantija"}"#,
            "  info: no schema types query; kept as strings (at /arguments)",
            r#"call_1 search {"query":"gantija temples"}"#,
            "  info: no schema types query; kept as strings (at /arguments)",
            "  change: the call was written with GPT-2's byte markers (<functionĠname=, Ġ for a space, Ċ for a line break), as a detokenizer that does not map them back writes it; its tags were read as <function name= and <param name=, its markers as spaces and line breaks (at /)",
            "prose: \"\"",
        ]
    );
}

/// vLLM's `_MSG_HEADER_RE` finds a Muse Glimmer header anywhere: `to=NAME`
/// just before a `<|message|>`, in prose or in a message's body, is the
/// next message's header (the `<|eom|><|start|>assistant` before it were
/// lost), and ends the message it interrupts.
#[test]
fn glimmer_header_in_the_middle_of_the_text() {
    let call = "<atem:function_calls><atem:invoke name=\"get_weather\"><atem:parameter name=\"city\">Paris</atem:parameter></atem:invoke></atem:function_calls><|eom|>";
    let read = |text: String| read(&text, Family::MuseGlimmer, None);
    let weather = r#"call_0 get_weather {"city":"Paris"}"#;
    // In prose outside any message, and in a message to the user.
    assert_eq!(
        read(format!("Let me check. to=get_weather<|message|>{call}")),
        [weather, "prose: \"Let me check.\""]
    );
    assert_eq!(
        read(format!(
            "<|start|>assistant to=user<|message|>Let me check. to=get_weather<|message|>{call}"
        )),
        [weather, "prose: \"Let me check.\""]
    );
    // Reasoning, kept as written, ends before it.
    assert_eq!(
        read(format!(
            " to=self<|message|>Checking. to=get_weather<|message|>{call}"
        )),
        [weather, "prose: \"to=self<|message|>Checking.\""]
    );
    // No space is needed before `to=`; the recipient decides the body.
    assert_eq!(
        read("Sure.to=self<|message|>Hmm.<|eom|>".to_string()),
        ["prose: \"Sure.to=self<|message|>Hmm.<|eom|>\""]
    );
    // Not a header: a space before the token, or a name longer than a header.
    assert_eq!(
        read(format!("Note to=get_weather <|message|>{call}")),
        [format!(
            "prose: {:?}",
            format!("Note to=get_weather {}", call.trim_end_matches("<|eom|>"))
        )]
    );
    let long = "x".repeat(200);
    assert_eq!(
        read(format!("Note to={long}<|message|>{call}")),
        [format!(
            "prose: {:?}",
            format!("Note to={long}{}", call.trim_end_matches("<|eom|>"))
        )]
    );
}
