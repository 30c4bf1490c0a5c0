"""Checks an `anthropic` tool list (Messages API `tools`) against the
`anthropic` SDK: each entry must validate as `anthropic.types.ToolParam` with
no key the SDK does not know, in pydantic strict mode, and its `input_schema`
as the SDK's typed form `InputSchemaTyped` (root `type: "object"`; other JSON
Schema keys are allowed there, as the SDK says); and, beyond the types:

- the name must match ^[a-zA-Z0-9_-]{1,64}$ (Anthropic docs, "Define tools");
- `input_schema` has no oneOf/anyOf/allOf/enum/not at its root, strict or
  not ("input_schema does not support oneOf, allOf, or anyOf at the top
  level", anthropics/claude-code#5878);
- with `strict: true`, the schema must keep to strict tool use's subset
  (structured-outputs docs, "JSON Schema limitations", which the SDK's
  transform_schema in anthropic/lib/_parse/_transform.py mirrors):
  additionalProperties false on every object, string formats from the SDK's
  SupportedStringFormats, no numeric bounds, no string length bounds, no
  maxItems, minItems only 0 or 1.

usage: check_anthropic.py FILE.json [FILE.json …]
"""

import sys

import common

NAME_PATTERN = r"[a-zA-Z0-9_-]{1,64}"
NAME_RULE = "Anthropic docs, Define tools: ^[a-zA-Z0-9_-]{1,64}$"

# Strict tool use: "numerical constraints" and "string length constraints"
# are unsupported, arrays support minItems of 0 or 1 only.
STRICT_UNSUPPORTED = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "maxItems")


def sdk():
    version = common.require("anthropic")
    global ADAPTER, INPUT_SCHEMA
    from anthropic.types import ToolParam
    from anthropic.types.tool_param import InputSchemaTyped
    from pydantic import TypeAdapter

    ADAPTER = TypeAdapter(common.forbid_extra_keys(ToolParam))
    INPUT_SCHEMA = TypeAdapter(InputSchemaTyped)
    return f"anthropic {version} (ToolParam)"


def strict_problems(schema, at):
    from anthropic.lib._parse._transform import SupportedStringFormats

    problems = []
    for place, sub in common.subschemas(schema, at):
        if common.is_object_schema(sub) and sub.get("additionalProperties") is not False:
            found = common.short(sub["additionalProperties"]) if "additionalProperties" in sub else "none"
            problems.append(
                f"{common.pointer(place + ('additionalProperties',))}: strict tool use needs "
                f"additionalProperties false on every object, found {found}"
            )
        for keyword in STRICT_UNSUPPORTED:
            if keyword in sub:
                problems.append(f"{common.pointer(place + (keyword,))}: strict tool use does not support {keyword!r}")
        if "minItems" in sub and sub["minItems"] not in (0, 1):
            problems.append(
                f"{common.pointer(place + ('minItems',))}: strict tool use supports minItems 0 or 1 only, "
                f"found {common.short(sub['minItems'])}"
            )
        if "format" in sub and sub["format"] not in SupportedStringFormats:
            problems.append(
                f"{common.pointer(place + ('format',))}: strict tool use supports the formats "
                f"{sorted(SupportedStringFormats)}, found {common.short(sub['format'])}"
            )
    return problems


def check_entry(entry, index, report):
    name = common.entry_name(entry, "name")
    _, errors = common.validate_json(ADAPTER.validate_json, entry)
    report.fail_all(index, name, errors)
    if not isinstance(entry, dict):
        return
    problem = common.name_problem(entry.get("name"), NAME_PATTERN, NAME_RULE)
    if problem:
        report.fail(index, name, problem)
    if "input_schema" in entry:
        report.fail_all(index, name, common.root_combinator_problems(entry["input_schema"], "/input_schema"))
        _, errors = common.validate_json(INPUT_SCHEMA.validate_json, entry["input_schema"])
        report.fail_all(index, name, [f"/input_schema{error} (InputSchemaTyped)" for error in errors])
        report.fail_all(index, name, common.unresolved_ref_problems(entry["input_schema"], "/input_schema"))
        if entry.get("strict") is True:
            report.fail_all(index, name, strict_problems(entry["input_schema"], ("input_schema",)))
            report.fail_all(index, name, common.recursive_ref_problems(entry["input_schema"], "/input_schema"))


def check_document(document, report):
    entries = common.expect_list(document, "a Messages API tools list")
    for index, entry in enumerate(entries):
        report.entries += 1
        check_entry(entry, index, report)
    strict = [entry["input_schema"] for entry in entries if isinstance(entry, dict) and entry.get("strict") is True]
    for problem in common.anthropic_strict_budget_problems(strict):
        report.fail_document(problem)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
