# Usage: Rscript --vanilla ellmer_check.R FILE.R
#
# Checks toolbridge's ellmer output with a real R:
# 1. FILE.R must parse (R's own parser);
# 2. FILE.R is then evaluated against stand-ins for ellmer's tool(), type_*()
#    and tool_annotations(). They are written from ellmer's documented
#    signatures and the JSON Schema its base provider sends (not from ellmer's
#    code): `description = NULL` is sent as "", type_object() and the tool's
#    arguments send `required` (the names whose `required` is TRUE) and
#    `additionalProperties: false`, type_from_schema() sends its JSON as it
#    is, type_ignore() leaves the argument out, tool_annotations() drops NULLs.
#    Like ellmer, tool() refuses argument names that differ from the
#    function's formals and names that break ^[a-zA-Z0-9_-]+$.
# Each tool is printed as one JSON array on standard output.

args <- commandArgs(trailingOnly = TRUE)
path <- args[[1]]
exprs <- parse(file = path, encoding = "UTF-8", keep.source = FALSE)

`%||%` <- function(x, y) if (is.null(x)) y else x
registry <- new.env()
registry$tools <- list()

library <- function(...) invisible(NULL)

new_type <- function(json, required) {
  if (!(isTRUE(required) || isFALSE(required))) stop("`required` must be TRUE or FALSE")
  structure(list(json = json, required = required, ignore = FALSE), class = "stub_type")
}

is_type <- function(x) inherits(x, "stub_type") && !x$ignore

check_description <- function(description) {
  if (!is.null(description) && !(is.character(description) && length(description) == 1)) {
    stop("a description must be a string or NULL")
  }
  description %||% ""
}

basic_type <- function(type) {
  force(type)
  function(description = NULL, required = TRUE) {
    new_type(list(type = type, description = check_description(description)), required)
  }
}
type_boolean <- basic_type("boolean")
type_integer <- basic_type("integer")
type_number <- basic_type("number")
type_string <- basic_type("string")

type_enum <- function(values, description = NULL, required = TRUE) {
  if (!is.character(values) || length(values) == 0) stop("type_enum(): `values` must be a character vector")
  new_type(list(type = "string", description = check_description(description), enum = as.list(values)), required)
}

type_array <- function(items, description = NULL, required = TRUE) {
  if (!is_type(items)) stop("type_array(): `items` must be a type")
  new_type(list(type = "array", description = check_description(description), items = items$json), required)
}

named_list <- function(x) if (length(x) == 0) setNames(list(), character(0)) else x

object_json <- function(properties, description) {
  required <- vapply(properties, function(p) p$required, logical(1))
  list(
    type = "object",
    description = check_description(description),
    properties = named_list(lapply(properties, function(p) p$json)),
    required = as.list(names(properties)[required]),
    additionalProperties = FALSE
  )
}

check_named <- function(x, what) {
  if (length(x) > 0 && (is.null(names(x)) || any(names(x) == ""))) stop(what, ": every element needs a name")
}

type_object <- function(.description = NULL, ..., .required = TRUE) {
  properties <- list(...)
  check_named(properties, "type_object()")
  for (p in properties) if (!is_type(p)) stop("type_object(): every property must be a type")
  new_type(object_json(properties, .description), .required)
}

type_from_schema <- function(text, path) {
  if (!missing(path)) stop("type_from_schema(path) is not expected in toolbridge's output")
  json <- jsonlite::parse_json(text, simplifyVector = FALSE)
  if (!is.list(json)) stop("type_from_schema(): the schema must be a JSON object")
  new_type(json, TRUE)
}

type_ignore <- function() structure(list(json = NULL, required = FALSE, ignore = TRUE), class = "stub_type")

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
  registry$tools[[length(registry$tools) + 1]] <- list(
    name = name,
    description = description,
    convert = convert,
    parameters = object_json(kept, NULL),
    annotations = named_list(annotations)
  )
  invisible(fun)
}

for (expr in exprs) eval(expr, globalenv())

cat(jsonlite::toJSON(registry$tools, auto_unbox = TRUE, null = "null", na = "null", digits = NA), "\n", sep = "")
