"""Checks a `cohere` tool list (Chat API v2 `tools`) against the `cohere`
SDK: each entry must validate as `cohere.ToolV2` (with `ToolV2Function`
inside: `name` and `parameters` required) in pydantic strict mode. The SDK's
models accept unknown keys and keep them aside as extras; an entry with such
a key is rejected (there is no per-tool `strict` in v2: strict mode is the
request's `strict_tools`). Beyond the types, the name must match
^[a-zA-Z_][a-zA-Z0-9_]*$ — the v1 `Tool.name` rule ("only the characters
a-z, A-Z, 0-9, _ and must not begin with a digit"; v2 states none, so the v1
rule is the safe one) — at most 64 characters as toolbridge writes it.

A FILE whose name ends in "-strict.json" holds the tools of a request sent
with strict_tools: true (Cohere's strict mode is per request, so the tools
themselves cannot say it): then every tool needs at least one required
parameter and the request at most 200 fields (properties) in all (Cohere's
"Structured Outputs" docs, "strict_tools").

usage: check_cohere.py FILE.json [FILE.json …]
"""

import sys

import common

NAME_PATTERN = r"[a-zA-Z_][a-zA-Z0-9_]{0,63}"
NAME_RULE = "cohere v1 Tool.name: a-z, A-Z, 0-9 and _, not a digit first"


def sdk():
    version = common.require("cohere")
    global TOOL
    from cohere import ToolV2

    TOOL = ToolV2
    return f"cohere {version} (ToolV2)"


def extras(model, at):
    """Unknown keys the SDK kept aside, in `model` and the models inside it."""
    found = [f"{common.pointer(at + (key,))}: {type(model).__name__} has no field {key!r}" for key in (model.model_extra or {})]
    for field in type(model).model_fields:
        value = getattr(model, field, None)
        if hasattr(value, "model_extra"):
            found.extend(extras(value, at + (type(model).model_fields[field].alias or field,)))
    return found


def check_entry(entry, index, report):
    name = common.entry_name(entry, "function", "name")
    tool, errors = common.validate_json(TOOL.model_validate_json, entry)
    report.fail_all(index, name, errors)
    if tool is not None:
        report.fail_all(index, name, extras(tool, ()))
    function = entry.get("function") if isinstance(entry, dict) else None
    if isinstance(function, dict):
        problem = common.name_problem(function.get("name"), NAME_PATTERN, NAME_RULE)
        if problem:
            report.fail(index, name, "/function" + problem)


def parameters(entry):
    function = entry.get("function") if isinstance(entry, dict) else None
    schema = function.get("parameters") if isinstance(function, dict) else None
    return schema if isinstance(schema, dict) else None


def check_document(document, report):
    entries = common.expect_list(document, "a Chat v2 tools list")
    for index, entry in enumerate(entries):
        report.entries += 1
        check_entry(entry, index, report)
    if not str(report.path).endswith("-strict.json"):
        return
    fields = 0
    for index, entry in enumerate(entries):
        schema = parameters(entry)
        if schema is None:
            continue
        if not schema.get("required"):
            report.fail(index, common.entry_name(entry, "function", "name"), "/function/parameters: strict_tools needs at least one required parameter")
        fields += sum(len(node["properties"]) for _, node in common.subschemas(schema) if isinstance(node.get("properties"), dict))
    if fields > 200:
        report.fail_document(f"the request has {fields} fields; strict_tools allows 200")


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
