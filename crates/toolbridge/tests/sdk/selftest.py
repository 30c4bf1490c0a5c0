"""Self-test of the SDK checks, without pytest: every check must accept its
good sample (samples/<format>.json), reject every entry of its bad sample
(samples/<format>_bad.json) and say why in the words listed below. Run it
with the venv's interpreter:

  .venv/bin/python crates/toolbridge/tests/sdk/selftest.py

tests/sdk.rs runs it too. Prints one line per check and exits 1 if any failed.
"""

import contextlib
import importlib
import io
import re
import sys

import common

SAMPLES = common.HERE / "samples"

# For each format: a few messages the bad sample must produce (substrings).
EXPECTED = {
    "openai": [
        "entry 0 (unknown_key): /function/input_schema: Extra inputs are not permitted",
        "entry 1 (wrong_type_literal): /type: Input should be 'function'",
        "entry 2 (strict_as_string): /function/strict: Input should be a valid boolean",
        "entry 3 (server.get weather): /function/name: 'server.get weather' does not match",
        "entry 4 (not_an_object): /function/parameters/type: the root schema's type must be \"object\"",
        "entry 5 (strict_optional): /function/parameters/required: not strict-ready",
        "entry 6 (strict_oneof): /function/parameters/properties/a/oneOf: strict mode does not support 'oneOf'",
        "entry 7 (?): /function: Field required",
        "entry 9 (root_one_of): /function/parameters/oneOf: oneOf at the top level of the parameters is refused",
        "entry 10 (strict_untyped): /function/parameters/properties/any: strict mode needs a type on every schema",
        "entry 10 (strict_untyped): /function/parameters/properties/list: strict mode needs items on an array",
    ],
    "openai-responses": [
        "entry 0 (missing_strict): /strict: Field required",
        "entry 1 (missing_parameters): /parameters: Field required",
        "entry 2 (?): /function: Extra inputs are not permitted",
        "entry 3 (strict_by_default): /parameters/additionalProperties: not strict-ready",
        "entry 4 (has.dot): /name: 'has.dot' does not match",
    ],
    "anthropic": [
        "entry 0 (camel_case_key): /inputSchema: Extra inputs are not permitted",
        "entry 1 (openai_key): /parameters: Extra inputs are not permitted",
        "entry 2 (root_not_object): /input_schema/type: Input should be 'object'",
        "entry 3 (strict_as_string): /strict: Input should be a valid boolean",
        "entry 4 (a/b): /name: 'a/b' does not match",
        "entry 5 (strict_bounds): /input_schema/properties/n/minimum: strict tool use does not support 'minimum'",
        "entry 6 (?): /function: Extra inputs are not permitted",
        "entry 7 (root_any_of): /input_schema/anyOf: anyOf at the top level of the parameters is refused",
    ],
    "gemini": [
        "(lowercase_type): /parameters/properties/a/type: must be one uppercase types.Type name",
        "(type_list): /parameters/properties/a/type: must be one uppercase types.Type name",
        "(snake_case_key): /parameters/properties/a/max_length: Extra inputs are not permitted",
        "(json_schema_keys): /parameters/properties/a/exclusiveMinimum: Extra inputs are not permitted",
        "(json_schema_keys): /parameters/$schema: Extra inputs are not permitted",
        "(9starts_with_digit): /name: '9starts_with_digit' does not match",
        "(9starts_with_digit): /parameters/properties/bad-name: property name 'bad-name' breaks the rule",
        "(both_schemas): /: parameters and parametersJsonSchema are mutually exclusive",
        "(wrong_value_type): /parameters/required: Input should be a valid array",
        "entry 0.functionDeclarations[7] (?): /name: a FunctionDeclaration needs a name",
        "Tool 1: /function_declarations: Extra inputs are not permitted",
        "(empty_object): /parameters/properties/meta/properties: an OBJECT needs properties",
    ],
    "gemini-json": [
        "(snake_case_field): /parameters_json_schema: Extra inputs are not permitted",
        "(root_not_object): /parametersJsonSchema/type: the root schema's type must be \"object\"",
        "(both_schemas): /: parameters and parametersJsonSchema are mutually exclusive",
        "(unknown_declaration_key): /strict: Extra inputs are not permitted",
        "(has space): /name: 'has space' does not match",
    ],
    "bedrock": [
        "entry 0 (unknown_key): Unknown parameter in tools[0].toolSpec: \"parameters\"",
        "entry 1 (no_input_schema): Missing required parameter in tools[1].toolSpec: \"inputSchema\"",
        "entry 2 (empty_description): Invalid length for parameter tools[2].toolSpec.description",
        "entry 3 (strict_as_string): Invalid type for parameter tools[3].toolSpec.strict",
        "entry 4 (a.b): /toolSpec/name: 'a.b' does not match",
        "entry 5 (root_not_object): /toolSpec/inputSchema/json/type: the root schema's type must be \"object\"",
        "entry 6 (schema_not_wrapped): Unknown parameter in tools[6].toolSpec.inputSchema: \"type\"",
        "entry 7 (?): Unknown parameter in tools[7]: \"name\"",
        "entry 8 (root_all_of): /toolSpec/inputSchema/json/allOf: allOf at the top level of the parameters is refused",
    ],
    "mcp": [
        "the tools/list result: /next_cursor: the SDK model has no field 'next_cursor'",
        "entry 0 (snake_case): /inputSchema: Field required",
        "entry 1 (unknown_key): /strict: the SDK model has no field 'strict'",
        "entry 2 (root_not_object): /inputSchema/type: the root schema's type must be \"object\"",
        "entry 3 (hint_as_string): /annotations/readOnlyHint: Input should be a valid boolean",
        "entry 4 (unknown_annotation): /annotations/costHint: the SDK model has no field 'costHint'",
        "entry 5 (has space/slash): /name: 'has space/slash' does not match",
        "entry 6 (?): /name: Input should be a valid string",
        "entry 7 (dangling_ref): /inputSchema/properties/a/$ref: '#/$defs/missing' points at nothing in the schema",
    ],
    "ollama": [
        "entry 0 (unknown_function_key): /function/strict: the SDK model has no field 'strict'",
        "entry 1 (root_not_object): /function/parameters/type: Input should be 'object'",
        "entry 2 (dropped_keywords): /function/parameters/additionalProperties: the server's ToolFunctionParameters has no 'additionalProperties'",
        "entry 2 (dropped_keywords): /function/parameters/properties/n/minimum: the server's ToolProperty has no 'minimum'",
        "entry 2 (dropped_keywords): /function/parameters/properties/o/properties/s/format: the server's ToolProperty has no 'format'",
        "entry 3 (type_not_string): /function/parameters/properties/a/type",
        "entry 4 (wrong_top_key): /strict: the SDK model has no field 'strict'",
    ],
    "mistral": [
        "entry 0 (no_parameters): /function/parameters: Field required",
        "entry 1 (unknown_key): /function/input_schema: Extra inputs are not permitted",
        "entry 2 (wrong_type): /type",
        "entry 3 (strict_as_string): /function/strict: Input should be a valid boolean",
        "entry 4 (a.b): /function/name: 'a.b' does not match",
    ],
    "cohere": [
        "entry 0 (per_tool_strict): /function/strict: ToolV2Function has no field 'strict'",
        "entry 1 (no_parameters): /function/parameters: Field required",
        "entry 2 (has-hyphen): /function/name: 'has-hyphen' does not match",
        "entry 3 (description_not_string): /function/description: Input should be a valid string",
        "entry 4 (unknown_top_key): /name: ToolV2 has no field 'name'",
    ],
}

# The good samples' notes: what a check says without rejecting.
EXPECTED_NOTES = {
    "gemini-json": [
        "(get_weather): note: /parametersJsonSchema/properties/source/const: Extra inputs are not permitted"
    ],
    "ollama": ["entry 1 (nested): note: /function/parameters/properties/when/anyOf: the ollama Python client has no field 'anyOf'"],
}


def run(module, path):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = module.main([str(path)])
    return status, out.getvalue(), err.getvalue()


def check(format_id):
    """The problems of one check's self-test (empty when it passes)."""
    module = importlib.import_module("check_" + format_id.replace("-", "_"))
    module.sdk()  # raises MissingSdk, reported once instead of per sample
    problems = []
    good, bad = SAMPLES / f"{format_id}.json", SAMPLES / f"{format_id}_bad.json"
    status, out, err = run(module, good)
    if status != 0:
        problems.append(f"the good sample was not accepted (exit {status}):\n{err}")
    for note in EXPECTED_NOTES.get(format_id, []):
        if note not in out:
            problems.append(f"the good sample's output lacks {note!r}:\n{out}")
    status, out, err = run(module, bad)
    if status != common.EXIT_REJECTED:
        problems.append(f"the bad sample did not exit {common.EXIT_REJECTED} (exit {status}):\n{err}")
    summary = re.search(r"rejected (\d+) of (\d+) entries", err)
    if not summary or summary.group(1) != summary.group(2):
        problems.append(f"not every entry of the bad sample was rejected:\n{err}")
    missing = [expected for expected in EXPECTED[format_id] if expected not in err]
    if missing:
        lacks = "".join(f"\n  {expected!r}" for expected in missing)
        problems.append(f"the bad sample's output lacks{lacks}\nIt was:\n{err}")
    return problems


def check_missing_sdk():
    """A package that is not installed is an error that says how to install it."""
    try:
        common.require("toolbridge-no-such-package")
    except common.MissingSdk as err:
        if "pip install -r crates/toolbridge/tests/sdk/requirements.txt" in str(err):
            return []
        return [f"the missing-package message does not say how to install: {err}"]
    return ["a missing package was not reported"]


def main(argv):
    formats = argv or sorted(EXPECTED)
    failed = 0
    for format_id in formats:
        if format_id not in EXPECTED:
            print(f"selftest: no check named {format_id!r} (known: {', '.join(sorted(EXPECTED))})")
            return 2
        try:
            problems = check(format_id)
        except common.MissingSdk as err:
            problems = [str(err)]
        print(f"selftest {format_id}: {'ok' if not problems else 'FAILED'}")
        for problem in problems:
            print("  " + problem.replace("\n", "\n  "))
        failed += bool(problems)
    problems = check_missing_sdk()
    print(f"selftest missing-sdk message: {'ok' if not problems else 'FAILED'}")
    for problem in problems:
        print("  " + problem)
    failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
