"""Checks a `gemini-json` tool list (one Tool holding every
FunctionDeclaration, parameters as JSON Schema in `parametersJsonSchema`)
against the `google-genai` SDK, like check_gemini.py (the Tool and each
FunctionDeclaration validated with camelCase wire names only, strict, nothing
dropped on a round trip; the name rule; parameters and parametersJsonSchema
mutually exclusive) and, for the JSON Schema:

- `parametersJsonSchema` must describe an object (docstring: "The schema must
  describe an object where the properties are the parameters");
- the SDK types it as any value, so a schema outside the SDK's own
  `types.JSONSchema` ("a subset of JSON Schema ... used by the Gemini model")
  is only noted, not rejected: which keywords the API honours there is not
  documented;
- a `parameters` or `response` Schema, if any, gets check_gemini.py's rules.

usage: check_gemini_json.py FILE.json [FILE.json …]
"""

import sys

import check_gemini
import common


sdk = check_gemini.sdk


def check_json_schemas(declaration, label, name, report):
    if not isinstance(declaration, dict):
        return
    for field in ("parametersJsonSchema", "responseJsonSchema"):
        if field not in declaration:
            continue
        schema = declaration[field]
        if field == "parametersJsonSchema":
            problem = common.root_object_problem(schema, f"/{field}")
            if problem:
                report.fail(label, name, problem)
        _, errors = check_gemini.validate(check_gemini.TYPES.JSONSchema, schema)
        for error in errors:
            report.note(label, name, f"/{field}{error} (outside the SDK's types.JSONSchema subset)")
    check_gemini.check_parameters(declaration, label, name, report)


def check_document(document, report):
    check_gemini.check_tools(document, report, check_json_schemas)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
