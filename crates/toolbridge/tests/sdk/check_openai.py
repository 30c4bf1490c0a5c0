"""Checks an `openai` tool list (Chat Completions `tools`) against the
`openai` SDK: each entry must validate as `ChatCompletionFunctionToolParam`
(with `FunctionDefinition` inside) with no key the SDK does not know, in
pydantic strict mode; and, beyond the types:

- the name must match ^[a-zA-Z0-9_-]{1,64}$ (FunctionDefinition.name
  docstring: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a
  maximum length of 64");
- `parameters` must be a schema of type "object" (the API answers "schema
  must be a JSON Schema of 'type: "object"'" otherwise; browserbase/stagehand#1159);
- `parameters` has no oneOf/anyOf/allOf/enum/not at its root, strict or not
  (langchain-ai/langchainjs#9804);
- with `strict: true`, every schema has a type (or is an anyOf or a $ref:
  API 400 "schema must have a 'type' key"), every array has items, and
  the schema must already be what the SDK's own strict
  transform (openai.lib._pydantic._ensure_strict_json_schema, behind
  openai.pydantic_function_tool) makes of it, and must avoid what the
  Structured Outputs guide ("Supported schemas") lists as unsupported.

usage: check_openai.py FILE.json [FILE.json …]
"""

import copy
import sys

import common

NAME_PATTERN = r"[a-zA-Z0-9_-]{1,64}"
NAME_RULE = "openai FunctionDefinition.name: a-z, A-Z, 0-9, _ and -, at most 64"

# Structured Outputs guide, "Supported schemas": composition keywords the
# strict grammar does not support ("'oneOf' is not permitted" is the API's
# own answer for oneOf).
STRICT_UNSUPPORTED = ("allOf", "not", "oneOf", "if", "then", "else", "dependentRequired", "dependentSchemas")


def sdk():
    version = common.require("openai")
    global ADAPTER
    from pydantic import TypeAdapter

    try:
        from openai.types.chat import ChatCompletionFunctionToolParam as tool_param
    except ImportError:  # before openai 1.99 the function tool was ChatCompletionToolParam
        from openai.types.chat import ChatCompletionToolParam as tool_param
    ADAPTER = TypeAdapter(common.forbid_extra_keys(tool_param))
    return f"openai {version} ({tool_param.__name__})"


def strict_problems(schema, at):
    """What keeps a `strict: true` schema from being accepted as it is."""
    from openai.lib._pydantic import _ensure_strict_json_schema

    problems = []
    if isinstance(schema, dict) and "anyOf" in schema:
        problems.append(f"{common.pointer(at)}: strict mode refuses anyOf at the root (Structured Outputs guide)")
    for place, sub in common.subschemas(schema, at):
        if not any(key in sub for key in ("type", "anyOf", "$ref")):
            problems.append(
                f"{common.pointer(place)}: strict mode needs a type on every schema "
                "(API 400: \"In context=(...), schema must have a 'type' key\")"
            )
        if sub.get("type") == "array" and "items" not in sub:
            problems.append(f"{common.pointer(place)}: strict mode needs items on an array (API 400: \"array schema missing items\")")
        for keyword in STRICT_UNSUPPORTED:
            if keyword in sub:
                problems.append(
                    f"{common.pointer(place + (keyword,))}: strict mode does not support {keyword!r} "
                    "(Structured Outputs guide, 'Supported schemas')"
                )
        if common.is_object_schema(sub) and sub.get("additionalProperties", False) is not False:
            problems.append(
                f"{common.pointer(place + ('additionalProperties',))}: strict mode needs additionalProperties "
                f"false on every object, found {common.short(sub['additionalProperties'])}"
            )
    if not isinstance(schema, dict):
        return problems
    problems.extend(common.openai_strict_limit_problems(schema, common.pointer(at)))
    transformed = copy.deepcopy(schema)
    try:
        transformed = _ensure_strict_json_schema(transformed, path=(), root=transformed)
    except Exception as error:  # the transform raises on what it cannot make strict
        return problems + [f"{common.pointer(at)}: the SDK's strict transform fails: {type(error).__name__}: {error}"]
    original = sorted_required(copy.deepcopy(schema))
    transformed = sorted_required(transformed)
    for kind, place, before, after in common.differences(original, transformed, at):
        what = {"added": f"adds {common.short(after)}", "removed": "removes it"}.get(
            kind, f"turns {common.short(before)} into {common.short(after)}"
        )
        problems.append(
            f"{common.pointer(place)}: not strict-ready: the SDK's strict transform "
            f"(openai.lib._pydantic) {what}"
        )
    return problems


def sorted_required(schema):
    """`required` lists sorted, since the API does not care about their order."""
    for _, sub in common.subschemas(schema):
        if isinstance(sub.get("required"), list) and all(isinstance(key, str) for key in sub["required"]):
            sub["required"] = sorted(sub["required"])
    return schema


def parameters_problems(function, at):
    """A problem unless `parameters`, when present, is an object schema
    without a combinator at its root."""
    problems = []
    if "parameters" in function:
        place = common.pointer(at + ("parameters",))
        problem = common.root_object_problem(function["parameters"], place)
        if problem:
            problems.append(problem)
        problems.extend(common.root_combinator_problems(function["parameters"], place))
    return problems


def check_entry(entry, index, report):
    function = entry.get("function") if isinstance(entry, dict) else None
    name = common.entry_name(entry, "function", "name")
    _, errors = common.validate_json(ADAPTER.validate_json, entry)
    report.fail_all(index, name, errors)
    if not isinstance(function, dict):
        return
    problem = common.name_problem(function.get("name"), NAME_PATTERN, NAME_RULE)
    if problem:
        report.fail(index, name, "/function" + problem)
    report.fail_all(index, name, parameters_problems(function, ("function",)))
    if isinstance(function.get("parameters"), dict):
        report.fail_all(index, name, common.unresolved_ref_problems(function["parameters"], "/function/parameters"))
    if function.get("strict") is True and isinstance(function.get("parameters"), dict):
        report.fail_all(index, name, strict_problems(function["parameters"], ("function", "parameters")))


def check_document(document, report):
    for index, entry in enumerate(common.expect_list(document, "a Chat Completions tools list")):
        report.entries += 1
        check_entry(entry, index, report)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
