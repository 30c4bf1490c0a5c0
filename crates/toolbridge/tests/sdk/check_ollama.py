"""Checks an `ollama` tool list (`/api/chat` `tools`) against the `ollama`
Python client: each entry must validate as `ollama.Tool` in pydantic strict
mode, and go through the model and back without losing a key or value,
except inside `parameters` (see below).

The client's `Tool.Function.Parameters.Property` keeps only type, items,
description and enum, while the server keeps more: it reads the request into
its Go structs (api/types.go, ollama/ollama @ fb307609), whose
`ToolFunctionParameters` keeps type, $defs, items, required and properties,
and whose recursive `ToolProperty` keeps anyOf, type, items, description,
enum, properties and required; everything else is dropped without a word.
So inside `parameters`:

- a key the server drops is rejected (the writer should have dropped it
  with a note, or moved it into the description);
- a key the server keeps but the Python client drops is only noted.

Ollama enforces no tool-name rule (the model's chat template renders names).

usage: check_ollama.py FILE.json [FILE.json …]
"""

import sys

import common

SERVER_PARAMETERS_KEYS = {"type", "$defs", "items", "required", "properties"}
SERVER_PROPERTY_KEYS = {"anyOf", "type", "items", "description", "enum", "properties", "required"}


def sdk():
    version = common.require("ollama")
    global TOOL
    from ollama import Tool

    TOOL = Tool
    return f"ollama {version} (Tool)"


def server_drops(parameters, at):
    """Keys of `parameters` the server's Go structs do not keep."""
    problems = []

    def unknown(schema, keep, place, what):
        for key in schema:
            if key not in keep:
                problems.append(f"{common.pointer(place + (key,))}: the server's {what} has no {key!r} and drops it")

    def walk_property(schema, place):
        if not isinstance(schema, dict):
            return
        unknown(schema, SERVER_PROPERTY_KEYS, place, "ToolProperty")
        walk_properties(schema.get("properties"), place + ("properties",))
        if isinstance(schema.get("anyOf"), list):
            for index, branch in enumerate(schema["anyOf"]):
                walk_property(branch, place + ("anyOf", index))

    def walk_properties(properties, place):
        if isinstance(properties, dict):
            for key, value in properties.items():
                walk_property(value, place + (key,))

    if isinstance(parameters, dict):
        unknown(parameters, SERVER_PARAMETERS_KEYS, at, "ToolFunctionParameters")
        walk_properties(parameters.get("properties"), at + ("properties",))
    return problems


def check_entry(entry, index, report):
    name = common.entry_name(entry, "function", "name")
    tool, errors = common.validate_json(TOOL.model_validate_json, entry)
    report.fail_all(index, name, errors)
    parameters_at = ("function", "parameters")
    function = entry.get("function") if isinstance(entry, dict) else None
    server = []
    if isinstance(function, dict) and "parameters" in function:
        server = server_drops(function["parameters"], parameters_at)
        report.fail_all(index, name, server)
    if tool is None:
        return
    server_places = {problem.split(": ", 1)[0] for problem in server}
    kept = tool.model_dump(mode="json", by_alias=True, exclude_unset=True)
    for place, problem in common.dropped_at(entry, kept):
        if place[: len(parameters_at)] != parameters_at:
            report.fail(index, name, problem)
        elif common.pointer(place) not in server_places:
            client = problem.replace("the SDK model", "the ollama Python client")
            report.note(index, name, f"{client} (the server keeps it)")


def check_document(document, report):
    for index, entry in enumerate(common.expect_list(document, "an /api/chat tools list")):
        report.entries += 1
        check_entry(entry, index, report)


def main(argv):
    return common.main(argv, __file__, sdk, check_document)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
