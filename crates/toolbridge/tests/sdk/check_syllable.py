"""Validates Syllable ToolDefinition objects with the syllable-sdk package.

Usage: check_syllable.py FILE

FILE holds a JSON array of ToolDefinition objects, or of tool records around
one (ToolCreateRequest {name, definition, service_id}; ToolUpdateRequest when
the record has an "id"), validated with their model first. Each definition is
validated with
syllable_sdk.models.ToolDefinition (pydantic model_validate), and each
`defaults` entry of the form {"transform": ...} with ToolParameterDefault
(ToolDefinition types `defaults` as Any, so it does not check them itself).

The SDK's models silently drop what they do not accept: unknown keys are
ignored, and an optional nested object that fails validation becomes "unset"
instead of an error. So every key of the input must also be in the validated
model's dump; a missing one is reported, with the error of validating that
object on its own where there is one.

Exit status: 0 when every entry is valid, 1 when one is not, 2 on bad usage,
3 when the syllable-sdk package cannot be imported.
"""

import json
import sys

try:
    from pydantic import TypeAdapter, ValidationError
    from syllable_sdk import models
except ImportError as err:  # the Rust test turns this into setup instructions
    print(f"cannot import syllable_sdk: {err}", file=sys.stderr)
    sys.exit(3)

# The model of each optional nested object, to explain why it was dropped.
NESTED = {
    "endpoint": models.ToolHTTPEndpoint,
    "context": models.Context,
    "options": models.ToolOptions,
    "response_display": models.ResponseDisplayConfig,
    "when": models.ToolParameterTransformCondition,
    "static_parameters": TypeAdapter(list[models.StaticToolParameter]),
}


def validate(model, value):
    if isinstance(model, TypeAdapter):
        return model.dump_python(model.validate_python(value), mode="json", by_alias=True)
    return model.model_validate(value).model_dump(mode="json", by_alias=True)


def dropped(given, kept, path=""):
    """(place, reason) for each key of `given` that the validated dump lacks."""
    if isinstance(given, dict) and isinstance(kept, dict):
        for key, value in given.items():
            place = f"{path}/{key}"
            if key in kept:
                yield from dropped(value, kept[key], place)
                continue
            reason = "not a field of the model"
            if key in NESTED and value is not None:
                try:
                    validate(NESTED[key], value)
                except ValidationError as err:
                    reason = f"invalid, so the SDK treats it as unset:\n{err}"
            yield place, reason
    elif isinstance(given, list) and isinstance(kept, list) and len(given) == len(kept):
        for index, (value, kept_value) in enumerate(zip(given, kept)):
            yield from dropped(value, kept_value, f"{path}/{index}")


def problems(entry):
    """Every problem of one entry (a record or a definition), as sentences."""
    if "definition" not in entry:
        return definition_problems(entry)
    model = models.ToolUpdateRequest if "id" in entry else models.ToolCreateRequest
    try:
        kept = validate(model, entry)
    except ValidationError as err:
        return [f"not a valid {model.__name__}:\n{err}"]
    record = {key: value for key, value in entry.items() if key != "definition"}
    found = [f"the SDK drops {place}: {reason}" for place, reason in dropped(record, kept)]
    definition = entry["definition"]
    if not isinstance(definition, dict):
        return found + ["/definition is not a JSON object"]
    return found + [f"/definition: {problem}" for problem in definition_problems(definition)]


def definition_problems(entry):
    """Every problem of one ToolDefinition, as sentences."""
    try:
        kept = validate(models.ToolDefinition, entry)
    except ValidationError as err:
        return [f"not a valid ToolDefinition:\n{err}"]
    found = [f"the SDK drops {place}: {reason}" for place, reason in dropped(entry, kept)]
    defaults = entry.get("defaults")
    if isinstance(defaults, dict):
        for key, default in defaults.items():
            if not (isinstance(default, dict) and list(default) == ["transform"]):
                continue
            try:
                kept_default = validate(models.ToolParameterDefault, default)
            except ValidationError as err:
                found.append(f"/defaults/{key} is not a valid ToolParameterDefault:\n{err}")
                continue
            found.extend(
                f"the SDK drops {place}: {reason}"
                for place, reason in dropped(default, kept_default, f"/defaults/{key}")
            )
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as file:
        entries = json.load(file)
    failures = 0
    for index, entry in enumerate(entries):
        definition = entry.get("definition", entry) if isinstance(entry, dict) else {}
        function = definition.get("tool", {}).get("function", {}) if isinstance(definition, dict) else {}
        name = function.get("name", "?") if isinstance(function, dict) else "?"
        found = problems(entry) if isinstance(entry, dict) else ["not a JSON object"]
        if found:
            failures += 1
            for problem in found:
                print(f"entry {index} ({name}): {problem}")
    print(f"{len(entries) - failures} of {len(entries)} ToolDefinition entries are valid")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
