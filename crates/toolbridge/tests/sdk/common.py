"""Shared code of the SDK checks: loading a written tool list, validating it
with the provider SDK's own types, and reporting every rejected entry.

Every check_<format>.py script takes one or more paths to JSON files, each
holding what toolbridge wrote for that format (the list a request's `tools`
field holds, or MCP's `tools/list` result), and exits
  0  when the SDK accepted every entry of every file,
  1  when it rejected at least one entry (one line per problem on stderr:
     file, entry index, tool name, the SDK's message),
  2  when a file is not a document of the expected shape at all,
  3  when the SDK is missing or not the pinned version.
"""

import json
import re
import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "requirements.txt"
VENV_HELP = (
    "create the venv from the workspace root with\n"
    "  python3 -m venv .venv && .venv/bin/pip install -r crates/toolbridge/tests/sdk/requirements.txt\n"
    "(scripts/test does this), or point TOOLBRIDGE_SDK_PYTHON at an interpreter that has them"
)

EXIT_REJECTED = 1
EXIT_UNUSABLE = 2
EXIT_MISSING_SDK = 3


class Unusable(Exception):
    """The document as a whole is not of the shape the format writes."""


class MissingSdk(Exception):
    """The SDK is not installed, or not at the pinned version."""


def pinned_versions():
    """{distribution name: version} from requirements.txt."""
    pins = {}
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower()] = version.strip()
    return pins


def require(distribution):
    """The installed version of `distribution`; raises MissingSdk unless it is
    installed at the version requirements.txt pins."""
    pinned = pinned_versions().get(distribution)
    try:
        installed = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        raise MissingSdk(
            f"the Python package {distribution}=={pinned} is not installed in {sys.executable};\n{VENV_HELP}"
        ) from None
    if pinned is not None and installed != pinned:
        raise MissingSdk(
            f"{sys.executable} has {distribution} {installed}, but requirements.txt pins {pinned};\n{VENV_HELP}"
        )
    return installed


class Report:
    """The problems found in one file, entry by entry."""

    def __init__(self, path):
        self.path = path
        self.problems = []
        self.notes = []
        self.rejected = set()
        self.document_rejected = False
        self.entries = 0

    def fail(self, index, name, message):
        """Records one problem of entry `index` (a number, or a label such as
        "0.functionDeclarations[2]") whose tool is called `name`."""
        label = name if isinstance(name, str) else json.dumps(name)
        self.rejected.add(index)
        self.problems.append(f"{self.path}: entry {index} ({label}): {message}")

    def fail_all(self, index, name, messages):
        for message in messages:
            self.fail(index, name, message)

    def fail_document(self, message):
        """Records a problem of the document around the entries."""
        self.document_rejected = True
        self.problems.append(f"{self.path}: {message}")

    def note_document(self, message):
        """Records something worth knowing about the document as a whole."""
        self.notes.append(f"{self.path}: note: {message}")

    def note(self, index, name, message):
        """Records something worth knowing that does not reject the entry."""
        label = name if isinstance(name, str) else json.dumps(name)
        self.notes.append(f"{self.path}: entry {index} ({label}): note: {message}")


def entry_name(entry, *path):
    """The tool name found at `path` inside `entry`, or "?"."""
    value = entry
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return "?"
        value = value[key]
    return value if isinstance(value, str) else "?"


def load(path):
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except OSError as err:
        raise Unusable(f"cannot read it: {err}") from None
    except json.JSONDecodeError as err:
        raise Unusable(f"not JSON: {err}") from None


def expect_list(document, what):
    if not isinstance(document, list):
        raise Unusable(f"expected {what} (a JSON array), found {json_type(document)}")
    return document


def json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def pointer(tokens):
    """A JSON Pointer for a list of keys and indexes."""
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in tokens) or "/"


def short(value, limit=80):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def pydantic_messages(error):
    """One line per error of a pydantic ValidationError (any other exception:
    its text), each naming the place as a JSON Pointer."""
    errors = getattr(error, "errors", None)
    if not callable(errors):
        return [f"the SDK's validation fails with {type(error).__name__}: {error}"]
    lines = []
    for item in errors():
        place = pointer(item.get("loc", ()))
        line = f"{place}: {item.get('msg')} [{item.get('type')}]"
        if "input" in item and item.get("type") != "missing":
            line += f", got {short(item['input'])}"
        lines.append(line)
    return lines


def validate_json(validate, entry):
    """Runs a pydantic JSON validator (`Model.model_validate_json` or
    `TypeAdapter.validate_json`, possibly a partial with options) on `entry`
    serialised as JSON, in strict mode: JSON is what goes on the wire, and
    strict mode refuses coercions such as "3" for an integer or 1 for a
    boolean. Returns (value, []) or (None, [messages])."""
    try:
        return validate(json.dumps(entry), strict=True), []
    except Exception as error:  # pydantic.ValidationError, or an SDK validator's own error
        return None, pydantic_messages(error)


# Keywords whose value is one subschema, a map of them, or a list of them.
SCHEMA_KEYWORDS = (
    "items", "additionalProperties", "not", "if", "then", "else", "contains",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties",
)
SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "defs")
SCHEMA_LIST_KEYWORDS = ("anyOf", "allOf", "oneOf", "prefixItems")


def subschemas(schema, at=()):
    """Every schema object inside `schema` (itself first) with its place, so
    that a check can look at each one; `properties` names are never mistaken
    for keywords."""
    if not isinstance(schema, dict):
        return
    yield at, schema
    for keyword in SCHEMA_KEYWORDS:
        if isinstance(schema.get(keyword), dict):
            yield from subschemas(schema[keyword], at + (keyword,))
    for keyword in SCHEMA_MAP_KEYWORDS:
        if isinstance(schema.get(keyword), dict):
            for key, value in schema[keyword].items():
                yield from subschemas(value, at + (keyword, key))
    for keyword in SCHEMA_LIST_KEYWORDS:
        if isinstance(schema.get(keyword), list):
            for index, value in enumerate(schema[keyword]):
                yield from subschemas(value, at + (keyword, index))


def subschemas_with_depth(schema, depth=0):
    """(depth, schema) for every schema object inside `schema`, the depth
    counting subschema steps from the root (0)."""
    if not isinstance(schema, dict):
        return
    yield depth, schema
    for keyword in SCHEMA_KEYWORDS:
        if isinstance(schema.get(keyword), dict):
            yield from subschemas_with_depth(schema[keyword], depth + 1)
    for keyword in SCHEMA_MAP_KEYWORDS:
        if isinstance(schema.get(keyword), dict):
            for value in schema[keyword].values():
                yield from subschemas_with_depth(value, depth + 1)
    for keyword in SCHEMA_LIST_KEYWORDS:
        if isinstance(schema.get(keyword), list):
            for value in schema[keyword]:
                yield from subschemas_with_depth(value, depth + 1)


def openai_strict_limit_problems(schema, at):
    """The Structured Outputs guide's limits ("Objects have limitations on
    nesting depth and size"): at most 5,000 object properties in all, 10
    levels of nesting, 1,000 enum values in all."""
    problems = []
    nodes = list(subschemas_with_depth(schema))
    deepest = max((depth for depth, _ in nodes), default=0)
    if deepest > 10:
        problems.append(f"{at}: nested {deepest} levels deep; strict mode allows 10 (Structured Outputs guide)")
    properties = sum(len(node["properties"]) for _, node in nodes if isinstance(node.get("properties"), dict))
    if properties > 5000:
        problems.append(f"{at}: {properties} object properties; strict mode allows 5000 (Structured Outputs guide)")
    values = sum(len(node["enum"]) for _, node in nodes if isinstance(node.get("enum"), list))
    if values > 1000:
        problems.append(f"{at}: {values} enum values; strict mode allows 1000 (Structured Outputs guide)")
    return problems


def recursive_ref_problems(schema, at):
    """A local `$ref` that leads back to itself: Anthropic strict tool use
    "does not support recursive schemas" (structured outputs docs,
    "JSON Schema limitations")."""

    def target(reference):
        node = schema
        for token in reference[2:].split("/") if reference.startswith("#/") else []:
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or token not in node:
                return None
            node = node[token]
        return node if reference.startswith("#/") or reference == "#" else None

    def refs_in(node):
        return {sub["$ref"] for _, sub in subschemas(node) if isinstance(sub.get("$ref"), str)}

    problems = []
    for reference in sorted(refs_in(schema)):
        seen, stack = set(), [reference]
        while stack:
            current = stack.pop()
            node = target(current)
            if node is None:
                continue
            inner = refs_in(node)
            if reference in inner:
                problems.append(f"{at}: {reference!r} is recursive; strict tool use refuses recursive schemas")
                break
            stack.extend(inner - seen)
            seen |= inner
    return problems


def anthropic_strict_budget_problems(schemas):
    """Anthropic strict tool use's per-request budget (structured outputs
    docs): at most 20 strict tools, 24 optional parameters and 16 parameters
    using anyOf or a type list, counted across the strict tools."""
    optional = unions = 0
    for schema in schemas:
        for _, node in subschemas(schema):
            if isinstance(node.get("properties"), dict):
                required = node.get("required") if isinstance(node.get("required"), list) else []
                optional += sum(1 for key in node["properties"] if key not in required)
            kind = node.get("type")
            if (isinstance(kind, list) and len(kind) > 1) or isinstance(node.get("anyOf"), list):
                unions += 1
    problems = []
    for count, limit, what in ((len(schemas), 20, "strict tools"), (optional, 24, "optional parameters"), (unions, 16, "parameters using anyOf or a type list")):
        if count > limit:
            problems.append(f"the request has {count} {what}; strict tool use allows {limit}")
    return problems


def is_object_schema(schema):
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def differences(before, after, at=()):
    """How `after` differs from `before`, as (kind, place, before, after)
    tuples with kind "removed", "added" or "changed"; numbers compare by value
    (1 == 1.0), booleans never equal numbers."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key, value in before.items():
            if key not in after:
                found.append(("removed", at + (key,), value, None))
            else:
                found.extend(differences(value, after[key], at + (key,)))
        found.extend(("added", at + (key,), None, value) for key, value in after.items() if key not in before)
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        found = []
        for index, (one, other) in enumerate(zip(before, after)):
            found.extend(differences(one, other, at + (index,)))
        return found
    if isinstance(before, (dict, list)) or isinstance(after, (dict, list)) or not same_scalar(before, after):
        return [("changed", at, before, after)]
    return []


def dropped(sent, kept, at=()):
    """Where `kept` (what an SDK model kept of `sent`, dumped back to JSON)
    lost or rewrote something that was sent. Keys the model added (its
    defaults) are not counted."""
    return [problem for _, problem in dropped_at(sent, kept, at)]


def dropped_at(sent, kept, at=()):
    """dropped(), each message with its place (a tuple of keys)."""
    problems = []
    for kind, place, before, after in differences(sent, kept, at):
        if kind == "removed":
            problems.append((place, f"{pointer(place)}: the SDK model has no field {place[-1]!r} and drops it"))
        elif kind == "changed":
            problems.append((place, f"{pointer(place)}: the SDK model turns {short(before)} into {short(after)}"))
    return problems


def same_scalar(one, other):
    # True == 1 in Python; JSON keeps booleans and numbers apart.
    if isinstance(one, bool) or isinstance(other, bool):
        return type(one) is type(other) and one == other
    if isinstance(one, (int, float)) and isinstance(other, (int, float)):
        return one == other
    return type(one) is type(other) and one == other


def forbid_extra_keys(typed_dict):
    """Makes pydantic refuse unknown keys in `typed_dict` and in every
    TypedDict its fields use, unless the SDK gave that TypedDict a pydantic
    config of its own (Anthropic marks its JSON Schema TypedDict
    `extra="allow"`: that openness is the SDK's rule, so it stays).

    The SDKs' request params are TypedDicts, which pydantic validates with
    extra keys ignored; a TypedDict takes its config only from its
    `__pydantic_config__` attribute, so it is set here, in this process only."""
    from typing import get_args, get_type_hints

    from pydantic import ConfigDict
    from typing_extensions import is_typeddict

    seen = set()

    def visit(annotation):
        if is_typeddict(annotation):
            if annotation in seen:
                return
            seen.add(annotation)
            if "__pydantic_config__" not in vars(annotation):
                annotation.__pydantic_config__ = ConfigDict(extra="forbid")
            for hint in get_type_hints(annotation, include_extras=True).values():
                visit(hint)
        else:
            for argument in get_args(annotation):
                visit(argument)

    visit(typed_dict)
    return typed_dict


def name_problem(name, pattern, rule):
    """A message if `name` does not match `pattern` in full, citing `rule`
    (none for a missing name or one that is not a string: the SDK's type
    reports those)."""
    if not isinstance(name, str):
        return None
    if re.fullmatch(pattern, name) is None:
        return f"/name: {name!r} does not match {pattern} ({rule})"
    return None


def root_object_problem(schema, at):
    """A message unless `schema` is a JSON object whose `type` is "object"."""
    if not isinstance(schema, dict):
        return f"{at}: the schema is {json_type(schema)}, not an object"
    if schema.get("type") != "object":
        return f"{at}/type: the root schema's type must be \"object\", found {short(schema.get('type'))}"
    return None


def root_combinator_problems(schema, at):
    """What OpenAI (Chat, Responses), Anthropic and Bedrock refuse at the
    root of the parameters, strict or not: OpenAI "schema must have type
    'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top
    level" (langchain-ai/langchainjs#9804), Anthropic "input_schema does not
    support oneOf, allOf, or anyOf at the top level" (anthropics/claude-code#5878)."""
    if not isinstance(schema, dict):
        return []
    return [
        f"{at}/{keyword}: {keyword} at the top level of the parameters is refused"
        for keyword in ("oneOf", "anyOf", "allOf", "enum", "not")
        if keyword in schema
    ]


def unresolved_ref_problems(schema, at):
    """Every local `$ref` (`#...`) that points at nothing in `schema`."""
    from urllib.parse import unquote

    problems = []
    for place, sub in subschemas(schema):
        reference = sub.get("$ref")
        if not isinstance(reference, str) or not reference.startswith("#"):
            continue
        fragment = unquote(reference[1:])
        if fragment and not fragment.startswith("/"):
            continue  # an anchor name: not checked here
        target = schema
        for token in fragment.split("/")[1:] if fragment else []:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and token in target:
                target = target[token]
            elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
                target = target[int(token)]
            else:
                problems.append(f"{at}{pointer(place + ('$ref',))}: {reference!r} points at nothing in the schema")
                break
    return problems


def position(index):
    """The place of an entry in the written list: its index, or the last
    `[n]` of a label such as "0.functionDeclarations[2]"."""
    if isinstance(index, int):
        return index
    found = re.search(r"\[(\d+)\]$", str(index))
    return int(found.group(1)) if found else str(index)


def main(argv, script_file, sdk, check_document):
    """Runs `check_document(document, report)` on every file in `argv` and
    reports; returns the exit status. `sdk` is a callable returning the label
    of the SDK used (it imports and version-checks the SDK; raises
    MissingSdk)."""
    script = Path(script_file).name
    if not argv or any(arg in ("-h", "--help") for arg in argv):
        print(f"usage: {script} FILE.json [FILE.json …]", file=sys.stderr)
        return EXIT_UNUSABLE
    try:
        label = sdk()
    except MissingSdk as err:
        print(f"{script}: {err}", file=sys.stderr)
        return EXIT_MISSING_SDK
    status = 0
    for path in argv:
        report = Report(path)
        try:
            check_document(load(path), report)
        except Unusable as err:
            print(f"{path}: {err}", file=sys.stderr)
            status = max(status, EXIT_UNUSABLE)
            continue
        for note in report.notes:
            print(note)
        for problem in report.problems:
            print(problem, file=sys.stderr)
        # One machine-readable line per file, for the test that compares the
        # SDK's verdict on each entry with lint's.
        verdict = {
            "file": str(path),
            "entries": report.entries,
            "rejected": sorted({position(index) for index in report.rejected}, key=str),
            "document": report.document_rejected,
        }
        print("verdict " + json.dumps(verdict))
        if report.problems:
            print(f"{path}: {label} rejected {len(report.rejected)} of {report.entries} entries", file=sys.stderr)
            status = max(status, EXIT_REJECTED)
        else:
            print(f"{path}: {label} accepted all {report.entries} entries")
    return status
