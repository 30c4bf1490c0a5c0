"""Checks a `gemini` tool list (the `tools` of a generateContent request: one
Tool holding every FunctionDeclaration, `parameters` in the OpenAPI-subset
`Schema`) against the `google-genai` SDK: the document must validate as a list
of `google.genai.types.Tool`, accepting only the camelCase wire names
(`functionDeclarations`, not `function_declarations`: the SDK takes both, the
wire format is proto3 JSON in lowerCamelCase), in pydantic strict mode. The
SDK's models forbid unknown keys; a round trip through them must also keep
every key and value that was sent. Beyond the types:

- a declaration needs a name (docstring: "Required"), matching
  ^[a-zA-Z_][a-zA-Z0-9_-]{0,62}$: generativelanguage v1beta allows a-z, A-Z,
  0-9, _ and - up to 63 characters, Vertex AI wants a letter or _ first;
- `parameters` and `parametersJsonSchema` are mutually exclusive (docstring);
- in `parameters` and `response` (a `Schema`): every `type` is one uppercase
  name of `types.Type` (the SDK's enum ignores case, a list of types is
  refused by the API: "Proto field is not repeating"), property names start
  with a letter or _ and use a-z, A-Z, 0-9 and _ up to 64 characters
  (`parameters` docstring), the root of `parameters` is an OBJECT, every
  OBJECT has non-empty `properties` (the API answers "should be non-empty
  for OBJECT type" at any depth; a tool without arguments leaves
  `parameters` out), and no
  schema carries additionalProperties (the SDK's
  _raise_for_unsupported_mldev_properties: "only supported in ... Enterprise
  Agent Platform mode, not in Gemini Developer API mode").

usage: check_gemini.py FILE.json [FILE.json …]
"""

import re
import sys

import common

NAME_PATTERN = r"[a-zA-Z_][a-zA-Z0-9_-]{0,62}"
NAME_RULE = "Gemini: a letter or _ first, then a-z, A-Z, 0-9, _ and -, at most 63"
PROPERTY_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]{0,63}")


def sdk():
    version = common.require("google-genai")
    from google.genai import types

    global TYPES
    TYPES = types
    return f"google-genai {version} (types.Tool)"


def validate(model, value):
    """`model` validation of `value` that accepts the wire (camelCase) names
    only, in strict mode; returns (model instance or None, [messages])."""

    def by_alias_only(text, strict):
        return model.model_validate_json(text, strict=strict, by_alias=True, by_name=False)

    return common.validate_json(by_alias_only, value)


def kept_problems(instance, sent):
    """What the SDK model lost or rewrote of `sent`, except a type name whose
    case it changed (schema_problems reports that, with the rule)."""
    kept = instance.model_dump(mode="json", by_alias=True, exclude_unset=True)
    case_only = {
        place
        for kind, place, before, after in common.differences(sent, kept)
        if kind == "changed" and place[-1:] == ("type",) and isinstance(before, str) and before.upper() == after
    }
    return [problem for place, problem in common.dropped_at(sent, kept) if place not in case_only]


def schema_problems(schema, at, root_object):
    """What the Gemini API does not take in a `Schema` (`parameters`,
    `response`); `root_object` asks for an OBJECT at the root."""
    from types import SimpleNamespace

    from google.genai._transformers import _raise_for_unsupported_mldev_properties

    problems = []
    type_names = list(TYPES.Type.__members__)
    if root_object and isinstance(schema, dict) and str(schema.get("type")).upper() != "OBJECT":
        problems.append(f"{common.pointer(at + ('type',))}: the root must be type OBJECT, found {common.short(schema.get('type'))}")
    gemini_api = SimpleNamespace(vertexai=False)
    for place, sub in common.subschemas(schema, at):
        properties = sub.get("properties")
        if str(sub.get("type")).upper() == "OBJECT" and not (isinstance(properties, dict) and properties):
            problems.append(
                f"{common.pointer(place + ('properties',))}: an OBJECT needs properties "
                "(API 400: \"should be non-empty for OBJECT type\")"
            )
        if "type" in sub and (not isinstance(sub["type"], str) or sub["type"] not in type_names):
            problems.append(
                f"{common.pointer(place + ('type',))}: must be one uppercase types.Type name "
                f"(STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL), found {common.short(sub['type'])}"
            )
        for key in sub.get("properties", {}) if isinstance(sub.get("properties"), dict) else ():
            if PROPERTY_NAME.fullmatch(key) is None:
                problems.append(
                    f"{common.pointer(place + ('properties', key))}: property name {key!r} breaks the rule "
                    "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$ (FunctionDeclaration.parameters docstring)"
                )
        try:
            _raise_for_unsupported_mldev_properties(sub, gemini_api)
        except ValueError as error:
            problems.append(f"{common.pointer(place + ('additionalProperties',))}: the SDK refuses it: {error}")
    return problems


def check_declaration(declaration, label, report):
    """Checks one FunctionDeclaration beyond the SDK model (shared with gemini-json)."""
    name = common.entry_name(declaration, "name")
    if not isinstance(declaration, dict):
        return name
    if "name" not in declaration:
        report.fail(label, name, "/name: a FunctionDeclaration needs a name (docstring: Required)")
    problem = common.name_problem(declaration.get("name"), NAME_PATTERN, NAME_RULE)
    if problem:
        report.fail(label, name, problem)
    if "parameters" in declaration and "parametersJsonSchema" in declaration:
        report.fail(label, name, "/: parameters and parametersJsonSchema are mutually exclusive")
    if "response" in declaration and "responseJsonSchema" in declaration:
        report.fail(label, name, "/: response and responseJsonSchema are mutually exclusive")
    return name


def check_tools(document, report, check_one):
    """Validates each Tool of the list (its own keys as `types.Tool`, each
    declaration as the `types.FunctionDeclaration` that Tool holds), then each
    declaration with `check_one`."""
    for tool_index, tool in enumerate(common.expect_list(document, "a generateContent tools list")):
        declarations = tool.get("functionDeclarations") if isinstance(tool, dict) else None
        if not isinstance(declarations, list):
            _, errors = validate(TYPES.Tool, tool)
            for error in errors or ["/functionDeclarations: missing"]:
                report.fail_document(f"Tool {tool_index}: {error}")
            continue
        _, errors = validate(TYPES.Tool, {**tool, "functionDeclarations": []})
        others = sorted(key for key in tool if key != "functionDeclarations")
        if others:
            errors.append(f"/: holds more than functionDeclarations: {others}")
        for error in errors:
            report.fail_document(f"Tool {tool_index}: {error}")
        for index, declaration in enumerate(declarations):
            report.entries += 1
            label = f"{tool_index}.functionDeclarations[{index}]"
            name = check_declaration(declaration, label, report)
            instance, errors = validate(TYPES.FunctionDeclaration, declaration)
            report.fail_all(label, name, errors)
            if instance is not None:
                report.fail_all(label, name, kept_problems(instance, declaration))
            check_one(declaration, label, name, report)


def check_parameters(declaration, label, name, report):
    if not isinstance(declaration, dict):
        return
    for field in ("parameters", "response"):
        if field in declaration:
            report.fail_all(label, name, schema_problems(declaration[field], (field,), field == "parameters"))


def check_document(document, report):
    check_tools(document, report, check_parameters)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
