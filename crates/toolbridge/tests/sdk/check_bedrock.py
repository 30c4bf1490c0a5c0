"""Checks a `bedrock` tool list (Converse `toolConfig.tools`) against
botocore's service model of `bedrock-runtime`: each entry, put into a minimal
Converse request (`modelId`, one user message, `toolConfig.tools: [entry]`),
must pass botocore's own client-side parameter validation
(`botocore.validate.ParamValidator`: unknown keys, missing required keys,
types, string lengths, exactly one member of a union) — no AWS call, no
credentials. Beyond what ParamValidator checks:

- the name must match the pattern the service model gives `ToolName`
  (ParamValidator does not check patterns; botocore 1.44: [a-zA-Z0-9_-]+,
  1 to 64 characters);
- `inputSchema.json` must be a schema of type "object" (ToolInputSchema
  documentation: "The top level schema type must be object"), with no
  oneOf/anyOf/allOf/enum/not at its root (Bedrock passes Anthropic's rule on).

usage: check_bedrock.py FILE.json [FILE.json …]
"""

import sys

import common


def sdk():
    version = common.require("botocore")
    global CONVERSE, VALIDATOR, NAME_PATTERN
    import botocore.session
    from botocore.validate import ParamValidator

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    CONVERSE = model.operation_model("Converse").input_shape
    VALIDATOR = ParamValidator()
    tool_spec = CONVERSE.members["toolConfig"].members["tools"].member.members["toolSpec"]
    NAME_PATTERN = tool_spec.members["name"].metadata["pattern"]
    return f"botocore {version} (bedrock-runtime {model.api_version} Converse)"


def request(entry):
    return {
        "modelId": "toolbridge-sdk-check",
        "messages": [{"role": "user", "content": [{"text": "check"}]}],
        "toolConfig": {"tools": [entry]},
    }


def check_entry(entry, index, report):
    name = common.entry_name(entry, "toolSpec", "name")
    errors = VALIDATOR.validate(request(entry), CONVERSE)
    if errors.has_errors():
        for line in errors.generate_report().splitlines():
            # botocore names places in the one-tool request: toolConfig.tools[0]…
            report.fail(index, name, line.replace("toolConfig.tools[0]", f"tools[{index}]"))
    spec = entry.get("toolSpec") if isinstance(entry, dict) else None
    if not isinstance(spec, dict):
        return
    problem = common.name_problem(spec.get("name"), NAME_PATTERN, "the pattern of bedrock-runtime's ToolName")
    if problem:
        report.fail(index, name, "/toolSpec" + problem)
    schema = spec.get("inputSchema")
    if isinstance(schema, dict) and "json" in schema:
        problem = common.root_object_problem(schema["json"], "/toolSpec/inputSchema/json")
        if problem:
            report.fail(index, name, problem)
        report.fail_all(index, name, common.root_combinator_problems(schema["json"], "/toolSpec/inputSchema/json"))


def check_document(document, report):
    entries = common.expect_list(document, "a Converse toolConfig.tools list")
    for index, entry in enumerate(entries):
        report.entries += 1
        check_entry(entry, index, report)
    # Claude on Bedrock: Anthropic's strict tool use budget per request.
    strict = [
        entry["toolSpec"]["inputSchema"]["json"]
        for entry in entries
        if isinstance(entry, dict)
        and isinstance(entry.get("toolSpec"), dict)
        and entry["toolSpec"].get("strict") is True
        and isinstance(entry["toolSpec"].get("inputSchema"), dict)
        and "json" in entry["toolSpec"]["inputSchema"]
    ]
    for problem in common.anthropic_strict_budget_problems(strict):
        report.fail_document(problem)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
