"""Checks an `mcp` document (a `tools/list` result, `{"tools": [...]}`)
against the `mcp` SDK: the document must validate as
`mcp.types.ListToolsResult` and each entry as `mcp.types.Tool`, accepting only
the camelCase wire names (`inputSchema`, `_meta`; the SDK also takes
snake_case), in pydantic strict mode. MCP's types allow unknown keys (the SDK
ignores them), so each entry also goes through the model and back: a key or
value the SDK does not keep is rejected (toolbridge keeps its own fields under
`_meta`, never as unknown keys). Beyond the types:

- `inputSchema` must be a schema of type "object" (schema.ts, every revision:
  `type: "object"`);
- every local `$ref` in `inputSchema` resolves (a JSON Schema validator,
  as clients run, refuses to compile one that points at nothing);
- the name should be 1 to 128 characters of A-Z, a-z, 0-9, _, - and .
  (SEP-986 tool naming guidance, 2025-11-25 and 2026-07-28) — toolbridge
  renames to fit it, so a name outside it is rejected;
- an `outputSchema` whose root is not an object is only noted: 2025-06-18
  and 2025-11-25 want `type: "object"` there, 2026-07-28 allows any schema;
- a result without `ttlMs` and `cacheScope` is only noted: 2026-07-28
  requires them on list results (the SDK fills in 0 and "private"), the
  earlier revisions do not have them.

usage: check_mcp.py FILE.json [FILE.json …]
"""

import sys

import common

NAME_PATTERN = r"[A-Za-z0-9_.-]{1,128}"
NAME_RULE = "MCP tool naming guidance (SEP-986)"


def sdk():
    version = common.require("mcp")
    global TYPES
    import mcp.types

    TYPES = mcp.types
    return f"mcp {version} (ListToolsResult, Tool; protocol {TYPES.LATEST_PROTOCOL_VERSION})"


def validate(model, value):
    def by_alias_only(text, strict):
        return model.model_validate_json(text, strict=strict, by_alias=True, by_name=False)

    return common.validate_json(by_alias_only, value)


def check_entry(entry, index, report):
    name = common.entry_name(entry, "name")
    tool, errors = validate(TYPES.Tool, entry)
    report.fail_all(index, name, errors)
    if tool is not None:
        kept = tool.model_dump(mode="json", by_alias=True, exclude_unset=True)
        report.fail_all(index, name, common.dropped(entry, kept))
    if not isinstance(entry, dict):
        return
    problem = common.name_problem(entry.get("name"), NAME_PATTERN, NAME_RULE)
    if problem:
        report.fail(index, name, problem)
    if "inputSchema" in entry:
        problem = common.root_object_problem(entry["inputSchema"], "/inputSchema")
        if problem:
            report.fail(index, name, problem)
        report.fail_all(index, name, common.unresolved_ref_problems(entry["inputSchema"], "/inputSchema"))
    if "outputSchema" in entry and common.root_object_problem(entry["outputSchema"], "/outputSchema"):
        report.note(index, name, "/outputSchema: the root is not an object; MCP 2025-06-18 and 2025-11-25 clients want type \"object\"")


def check_document(document, report):
    if not isinstance(document, dict) or not isinstance(document.get("tools"), list):
        raise common.Unusable(f"expected a tools/list result {{\"tools\": [...]}}, found {common.json_type(document)}")
    # The result's own keys; the entries are checked one by one below.
    result_keys = {**document, "tools": []}
    result, errors = validate(TYPES.ListToolsResult, result_keys)
    if result is not None:
        kept = result.model_dump(mode="json", by_alias=True, exclude_unset=True)
        errors = common.dropped(result_keys, kept)
    for error in errors:
        report.fail_document(f"the tools/list result: {error}")
    missing = [key for key in ("ttlMs", "cacheScope") if key not in document]
    if missing:
        report.note_document(
            f"the tools/list result has no {' or '.join(missing)}, which MCP 2026-07-28 "
            "requires on list results (earlier revisions do not have them)"
        )
    for index, entry in enumerate(document["tools"]):
        report.entries += 1
        check_entry(entry, index, report)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
