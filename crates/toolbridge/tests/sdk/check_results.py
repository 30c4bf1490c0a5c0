"""Checks the tool results toolbridge writes (`Format::write_results`)
against each provider's own SDK types, the shapes of providers.md §10.4:

- openai: each message a `ChatCompletionToolMessageParam` (openai);
- openai-responses: each item a `response_input_param.FunctionCallOutput` (openai);
- anthropic: the message a `MessageParam` whose blocks are `ToolResultBlockParam`s (anthropic);
- gemini, gemini-json: the content a `types.Content` of `functionResponse` parts (google-genai);
- bedrock: the message a Converse `Message` (botocore's ParamValidator on bedrock-runtime);
- mcp: each result a `CallToolResult` (mcp);
- ollama: each message an `ollama.Message`;
- mistral: each message a `ToolMessage` (mistralai);
- cohere: each message a `ToolChatMessageV2` (cohere).

TypedDicts are validated with unknown keys refused; an unknown key a
pydantic model keeps aside or drops is reported. The input is one JSON file
`{"<format>": [written value, …], …}`.

usage: check_results.py FILE.json
"""

import json
import sys

import common


def typed_dict(cls):
    from pydantic import TypeAdapter

    adapter = TypeAdapter(common.forbid_extra_keys(cls))
    return lambda value: adapter.validate_python(value)


def dropped(sent, kept, at=""):
    """Keys of `sent` the validated model did not keep (an SDK model that
    ignores unknown keys), anywhere inside it."""
    found = []
    if isinstance(sent, dict) and isinstance(kept, dict):
        for key, value in sent.items():
            if key not in kept:
                found.append(f"{at}/{key}: the SDK type has no such field")
            else:
                found.extend(dropped(value, kept[key], f"{at}/{key}"))
    elif isinstance(sent, list) and isinstance(kept, list):
        for index, (value, other) in enumerate(zip(sent, kept)):
            found.extend(dropped(value, other, f"{at}/{index}"))
    return found


def extras(model, at=""):
    """Unknown keys an SDK model kept aside (extra="allow"), anywhere inside it."""
    found = [f"{at}/{key}: {type(model).__name__} has no field {key!r}" for key in (model.model_extra or {})]
    for field in type(model).model_fields:
        value = getattr(model, field, None)
        for index, item in enumerate(value if isinstance(value, list) else [value]):
            if hasattr(type(item), "model_fields"):
                found.extend(extras(item, f"{at}/{field}/{index}"))
    return found


def model(cls):
    def check(value):
        validated = cls.model_validate(value)
        problems = extras(validated) + dropped(
            value, validated.model_dump(mode="json", by_alias=True, exclude_unset=True)
        )
        if problems:
            raise ValueError(f"{cls.__name__}: " + "; ".join(problems))

    return check


def bedrock():
    import botocore.session
    from botocore.validate import ParamValidator

    service = botocore.session.get_session().get_service_model("bedrock-runtime")
    converse = service.operation_model("Converse").input_shape

    def check(message):
        request = {"modelId": "m", "messages": [message]}
        errors = ParamValidator().validate(request, converse)
        if errors.has_errors():
            raise ValueError(errors.generate_report())

    return check


def anthropic_message():
    from anthropic.types import MessageParam

    check_message = typed_dict(MessageParam)

    def check(message):
        check_message(message)
        kinds = [block.get("type") for block in message["content"]]
        if any(kind != "tool_result" for kind in kinds):
            raise ValueError(f"blocks besides tool_result: {kinds}")

    return check


def checkers():
    for distribution in ("openai", "anthropic", "google-genai", "botocore", "mcp", "ollama", "mistralai", "cohere"):
        common.require(distribution)
    from openai.types.chat import ChatCompletionToolMessageParam
    from openai.types.responses.response_input_param import FunctionCallOutput
    from google.genai import types as genai
    import mcp.types
    import ollama
    from mistralai.client.models import ToolMessage
    import cohere

    gemini = model(genai.Content)
    return {
        "openai": typed_dict(ChatCompletionToolMessageParam),
        "openai-responses": typed_dict(FunctionCallOutput),
        "anthropic": anthropic_message(),
        "gemini": gemini,
        "gemini-json": gemini,
        "bedrock": bedrock(),
        "mcp": model(mcp.types.CallToolResult),
        "ollama": model(ollama.Message),
        "mistral": model(ToolMessage),
        "cohere": model(cohere.ToolChatMessageV2),
    }


def main(path):
    try:
        checks = checkers()
    except common.MissingSdk as missing:
        print(missing, file=sys.stderr)
        return common.EXIT_MISSING_SDK
    documents = json.loads(open(path, encoding="utf-8").read())
    failed = 0
    for format_id, values in documents.items():
        check = checks.get(format_id)
        if check is None:
            print(f"{path}: {format_id}: no SDK check for this format", file=sys.stderr)
            return common.EXIT_UNUSABLE
        for index, value in enumerate(values):
            try:
                check(value)
            except Exception as error:  # the SDK's own message, whatever its type
                failed += 1
                print(f"{path}: {format_id}[{index}]: {error}", file=sys.stderr)
    checked = sum(len(values) for values in documents.values())
    print(f"{checked - failed} of {checked} results accepted by the SDKs", file=sys.stderr)
    return common.EXIT_REJECTED if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
