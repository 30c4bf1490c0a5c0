# Usage: Rscript --vanilla ellmer_check.R FILE.R
#
# Checks toolbridge's ellmer output with a real R:
# 1. FILE.R must parse (R's own parser);
# 2. FILE.R is then evaluated against stand-ins for ellmer's tool(), type_*()
#    and tool_annotations() (ellmer itself needs S7, which this machine's R
#    lacks). They follow ellmer's signatures and the JSON it sends, as read in
#    github tidyverse/ellmer: as_json(Provider, Type*) in R/as-json.R (the base
#    form: `description = NULL` sent as "", type_object() and the arguments
#    send `required` and `additionalProperties: false`, type_from_schema()
#    sends its JSON as it is), type_ignore() leaves the argument out,
#    tool_annotations() drops NULLs, tool() refuses argument names that differ
#    from the function's formals and names that break ^[a-zA-Z0-9_-]+$;
# 3. each tool's arguments are serialised as ellmer serialises them for
#    OpenAI (as_json(ProviderOpenAICompatible, TypeObject) in
#    R/provider-openai-compatible.R, used for ProviderOpenAI too, which sends
#    every tool with strict = TRUE: every property required, an optional one
#    with "null" added to its type) and for Gemini (as_json(
#    ProviderGoogleGemini, TypeObject / ToolDef) in R/provider-google.R: no
#    additionalProperties, `required` only for required properties, an object
#    without properties sent as list(), NULL parts compacted away), and those
#    must pass the rules of OpenAI strict mode and of Gemini's `parameters`
#    (check_openai_strict(), check_gemini() below), or the script stops.
# Each tool is printed (base form) as one JSON array on standard output.

args <- commandArgs(trailingOnly = TRUE)
path <- args[[1]]
exprs <- parse(file = path, encoding = "UTF-8", keep.source = FALSE)

`%||%` <- function(x, y) if (is.null(x)) y else x
registry <- new.env()
registry$tools <- list()

library <- function(...) invisible(NULL)

new_type <- function(kind, required, ...) {
  if (!(isTRUE(required) || isFALSE(required))) stop("`required` must be TRUE or FALSE")
  structure(list(kind = kind, required = required, ignore = FALSE, ...), class = "stub_type")
}

is_type <- function(x) inherits(x, "stub_type") && !x$ignore

check_description <- function(description) {
  if (!is.null(description) && !(is.character(description) && length(description) == 1)) {
    stop("a description must be a string or NULL")
  }
  description
}

basic_type <- function(type) {
  force(type)
  function(description = NULL, required = TRUE) {
    new_type("basic", required, type = type, description = check_description(description))
  }
}
type_boolean <- basic_type("boolean")
type_integer <- basic_type("integer")
type_number <- basic_type("number")
type_string <- basic_type("string")

type_enum <- function(values, description = NULL, required = TRUE) {
  if (!is.character(values) || length(values) == 0) stop("type_enum(): `values` must be a character vector")
  new_type("enum", required, values = values, description = check_description(description))
}

type_array <- function(items, description = NULL, required = TRUE) {
  if (!is_type(items)) stop("type_array(): `items` must be a type")
  new_type("array", required, items = items, description = check_description(description))
}

named_list <- function(x) if (length(x) == 0) setNames(list(), character(0)) else x

check_named <- function(x, what) {
  if (length(x) > 0 && (is.null(names(x)) || any(names(x) == ""))) stop(what, ": every element needs a name")
}

type_object <- function(.description = NULL, ..., .required = TRUE) {
  properties <- list(...)
  check_named(properties, "type_object()")
  for (p in properties) if (!is_type(p)) stop("type_object(): every property must be a type")
  new_type("object", .required, properties = properties, description = check_description(.description))
}

type_from_schema <- function(text, path) {
  if (!missing(path)) stop("type_from_schema(path) is not expected in toolbridge's output")
  json <- jsonlite::parse_json(text, simplifyVector = FALSE)
  if (!is.list(json)) stop("type_from_schema(): the schema must be a JSON object")
  new_type("schema", TRUE, json = json)
}

required_names <- function(properties) {
  names(properties)[vapply(properties, function(p) p$required, logical(1))]
}

# as_json(Provider, Type*): R/as-json.R.
base_json <- function(x) {
  switch(x$kind,
    basic = list(type = x$type, description = x$description %||% ""),
    enum = list(type = "string", description = x$description %||% "", enum = as.list(x$values)),
    array = list(type = "array", description = x$description %||% "", items = base_json(x$items)),
    object = list(
      type = "object",
      description = x$description %||% "",
      properties = named_list(lapply(x$properties, base_json)),
      required = as.list(required_names(x$properties)),
      additionalProperties = FALSE
    ),
    schema = x$json
  )
}

# as_json(ProviderOpenAICompatible, TypeObject): R/provider-openai-compatible.R.
openai_json <- function(x) {
  switch(x$kind,
    array = list(type = "array", description = x$description %||% "", items = openai_json(x$items)),
    object = list(
      type = "object",
      description = x$description %||% "",
      properties = named_list(lapply(x$properties, function(p) {
        out <- openai_json(p)
        if (!p$required) out$type <- c(out$type, "null")
        out
      })),
      required = as.list(names(x$properties)),
      additionalProperties = FALSE
    ),
    base_json(x)
  )
}

# as_json(ProviderGoogleGemini, TypeObject): R/provider-google.R; `compact()`
# is ellmer's Filter(length, .x).
compact <- function(.x) Filter(length, .x)
gemini_json <- function(x) {
  switch(x$kind,
    array = list(type = "array", description = x$description %||% "", items = gemini_json(x$items)),
    object = if (length(x$properties) == 0) list() else compact(list(
      type = "object",
      description = x$description,
      properties = lapply(x$properties, gemini_json),
      required = as.list(required_names(x$properties))
    )),
    base_json(x)
  )
}

is_schema <- function(node) is.list(node) && (length(node) == 0 || !is.null(names(node)))

# OpenAI Structured Outputs (strict mode): a `type` on every node but anyOf
# and $ref ones; every object closed and with all its properties required;
# none of the keywords its guide lists as unsupported.
strict_unsupported <- c(
  "minLength", "maxLength", "patternProperties", "unevaluatedProperties", "propertyNames",
  "minProperties", "maxProperties", "unevaluatedItems", "contains", "minContains", "maxContains",
  "uniqueItems"
)
check_openai_strict <- function(node, path) {
  fail <- function(why) stop(sprintf("OpenAI strict mode refuses %s: %s", path, why), call. = FALSE)
  if (!is_schema(node) || length(node) == 0) fail("not a schema object")
  bad <- intersect(names(node), strict_unsupported)
  if (length(bad) > 0) fail(paste("unsupported keyword", bad[[1]]))
  for (name in names(node[["$defs"]])) check_openai_strict(node[["$defs"]][[name]], paste0(path, "/$defs/", name))
  if (!is.null(node$anyOf)) {
    for (i in seq_along(node$anyOf)) check_openai_strict(node$anyOf[[i]], paste0(path, "/anyOf/", i - 1))
    return(invisible())
  }
  if (!is.null(node[["$ref"]])) return(invisible())
  types <- unlist(node$type)
  if (is.null(types)) fail("no type")
  if ("object" %in% types) {
    if (!identical(node$additionalProperties, FALSE)) fail("additionalProperties is not false")
    props <- names(node$properties) %||% character()
    if (!setequal(props, unlist(node$required) %||% character())) fail("not every property is required")
    for (name in props) check_openai_strict(node$properties[[name]], paste0(path, "/properties/", name))
  }
  if ("array" %in% types) {
    if (is.null(node$items)) fail("an array without items")
    check_openai_strict(node$items, paste0(path, "/items"))
  }
}

# Gemini `parameters`, the OpenAPI Schema subset: only its fields, one type,
# string enums, an OBJECT with non-empty properties that lists only them as
# required.
gemini_fields <- c(
  "type", "format", "title", "description", "nullable", "enum", "items", "maxItems", "minItems",
  "properties", "required", "minimum", "maximum", "anyOf", "propertyOrdering", "default"
)
check_gemini <- function(node, path) {
  fail <- function(why) stop(sprintf("Gemini refuses %s: %s", path, why), call. = FALSE)
  if (!is_schema(node) || length(node) == 0) fail("not a Schema object")
  bad <- setdiff(names(node), gemini_fields)
  if (length(bad) > 0) fail(paste("unknown field", bad[[1]]))
  if (!is.null(node$type) && !(is.character(node$type) && length(node$type) == 1)) fail("type is not one name")
  if (!is.null(node$enum) && !all(vapply(node$enum, is.character, logical(1)))) fail("an enum value is not a string")
  if (identical(node$type, "object")) {
    props <- names(node$properties)
    if (length(props) == 0) fail("an OBJECT without properties")
    if (!all(unlist(node$required) %in% props)) fail("required names a missing property")
    for (name in props) check_gemini(node$properties[[name]], paste0(path, "/properties/", name))
  }
  if (!is.null(node$items)) check_gemini(node$items, paste0(path, "/items"))
  for (i in seq_along(node$anyOf)) check_gemini(node$anyOf[[i]], paste0(path, "/anyOf/", i - 1))
}

type_ignore <- function() structure(list(kind = "ignore", required = FALSE, ignore = TRUE), class = "stub_type")

tool_annotations <- function(title = NULL, read_only_hint = NULL, open_world_hint = NULL,
                             idempotent_hint = NULL, destructive_hint = NULL, ...) {
  if (!is.null(title) && !(is.character(title) && length(title) == 1)) stop("`title` must be a string")
  for (hint in list(read_only_hint, open_world_hint, idempotent_hint, destructive_hint)) {
    if (!is.null(hint) && !(isTRUE(hint) || isFALSE(hint))) stop("a hint must be TRUE, FALSE or NULL")
  }
  Filter(Negate(is.null), list(
    title = title,
    read_only_hint = read_only_hint,
    open_world_hint = open_world_hint,
    idempotent_hint = idempotent_hint,
    destructive_hint = destructive_hint,
    ...
  ))
}

tool <- function(fun, description, ..., arguments = list(), name = NULL, convert = TRUE, annotations = list()) {
  if (...length() > 0) stop("toolbridge writes the current API: argument types belong in `arguments`")
  if (!is.function(fun)) stop("`fun` must be a function")
  if (!(is.character(description) && length(description) == 1)) stop("`description` must be a string")
  if (!(is.character(name) && length(name) == 1 && grepl("^[a-zA-Z0-9_-]+$", name))) {
    stop("`name` must match ^[a-zA-Z0-9_-]+$")
  }
  if (!(isTRUE(convert) || isFALSE(convert))) stop("`convert` must be TRUE or FALSE")
  check_named(arguments, "arguments")
  for (a in arguments) if (!inherits(a, "stub_type")) stop("every argument must be a type")
  formal_names <- names(formals(fun)) %||% character()
  argument_names <- names(arguments) %||% character()
  if (!("..." %in% formal_names) && !setequal(formal_names, argument_names)) {
    stop(sprintf(
      "tool %s: the arguments (%s) do not match the function's formals (%s)",
      name, paste(argument_names, collapse = ", "), paste(formal_names, collapse = ", ")
    ))
  }
  kept <- Filter(function(a) !a$ignore, arguments)
  args_type <- new_type("object", TRUE, properties = kept, description = NULL)
  check_openai_strict(openai_json(args_type), paste0("tool ", name, " parameters"))
  gemini_parameters <- gemini_json(args_type)
  if (length(gemini_parameters) > 0) check_gemini(gemini_parameters, paste0("tool ", name, " parameters"))
  registry$tools[[length(registry$tools) + 1]] <- list(
    name = name,
    description = description,
    convert = convert,
    parameters = base_json(args_type),
    # R code among the annotations (btw's `btw_can_register = function() TRUE`)
    # is not sent anywhere; only data is printed.
    annotations = named_list(Filter(Negate(is.function), annotations))
  )
  invisible(fun)
}

for (expr in exprs) eval(expr, globalenv())

cat(jsonlite::toJSON(registry$tools, auto_unbox = TRUE, null = "null", na = "null", digits = NA), "\n", sep = "")
