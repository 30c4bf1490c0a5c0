"""Checks a `mistral` tool list (chat completions `tools`) against the
`mistralai` SDK: each entry must validate as `mistralai.client.models.Tool`
(with `Function` inside: `name` and `parameters` required) in pydantic strict
mode, and as the SDK's request TypedDict `ToolTypedDict` with no key it does
not know; and, beyond the types, the name must match ^[a-zA-Z0-9_-]{1,64}$
(the API's own answer to a bad name: "must be a-z, A-Z, 0-9, or contain
underscores and dashes, with a maximum length of 64", quoted in
Kochava-Studios/witsy#164; the SDK states no rule).

usage: check_mistral.py FILE.json [FILE.json …]
"""

import sys

import common

NAME_PATTERN = r"[a-zA-Z0-9_-]{1,64}"
NAME_RULE = "Mistral API: a-z, A-Z, 0-9, _ and -, at most 64"


def sdk():
    version = common.require("mistralai")
    global TOOL, TYPED_DICT
    from mistralai.client.models import Tool, ToolTypedDict
    from pydantic import TypeAdapter

    TOOL = Tool
    TYPED_DICT = TypeAdapter(common.forbid_extra_keys(ToolTypedDict))
    return f"mistralai {version} (Tool)"


def check_entry(entry, index, report):
    name = common.entry_name(entry, "function", "name")
    _, errors = common.validate_json(TOOL.model_validate_json, entry)
    report.fail_all(index, name, errors)
    _, errors_as_dict = common.validate_json(TYPED_DICT.validate_json, entry)
    # Both say "required" for a missing key; the TypedDict adds unknown keys.
    report.fail_all(index, name, [error for error in errors_as_dict if error not in errors])
    function = entry.get("function") if isinstance(entry, dict) else None
    if isinstance(function, dict):
        problem = common.name_problem(function.get("name"), NAME_PATTERN, NAME_RULE)
        if problem:
            report.fail(index, name, "/function" + problem)


def check_document(document, report):
    for index, entry in enumerate(common.expect_list(document, "a chat completions tools list")):
        report.entries += 1
        check_entry(entry, index, report)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
