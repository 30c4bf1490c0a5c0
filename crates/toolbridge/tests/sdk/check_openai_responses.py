"""Checks an `openai-responses` tool list (Responses API `tools`) against the
`openai` SDK: each entry must validate as
`openai.types.responses.FunctionToolParam` with no key the SDK does not know,
in pydantic strict mode (`name`, `parameters`, `strict` and `type` are
required keys there, `parameters` and `strict` may be null); and, beyond the
type, the name rule and the `parameters` root and strict-mode rules of
check_openai.py. Strict mode is the Responses API's default, so the strict
rules apply unless `strict` is false.

usage: check_openai_responses.py FILE.json [FILE.json …]
"""

import sys

import check_openai
import common


def sdk():
    version = common.require("openai")
    global ADAPTER
    from openai.types.responses import FunctionToolParam
    from pydantic import TypeAdapter

    ADAPTER = TypeAdapter(common.forbid_extra_keys(FunctionToolParam))
    return f"openai {version} (responses.FunctionToolParam)"


def check_entry(entry, index, report):
    name = common.entry_name(entry, "name")
    _, errors = common.validate_json(ADAPTER.validate_json, entry)
    report.fail_all(index, name, errors)
    if not isinstance(entry, dict):
        return
    problem = common.name_problem(entry.get("name"), check_openai.NAME_PATTERN, check_openai.NAME_RULE)
    if problem:
        report.fail(index, name, problem)
    if entry.get("parameters") is not None:
        report.fail_all(index, name, check_openai.parameters_problems(entry, ()))
        if isinstance(entry["parameters"], dict):
            report.fail_all(index, name, common.unresolved_ref_problems(entry["parameters"], "/parameters"))
        if entry.get("strict") is not False and isinstance(entry["parameters"], dict):
            report.fail_all(index, name, check_openai.strict_problems(entry["parameters"], ("parameters",)))


def check_document(document, report):
    for index, entry in enumerate(common.expect_list(document, "a Responses API tools list")):
        report.entries += 1
        check_entry(entry, index, report)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
