//! Accepted calls as native values: Emacs Lisp plists for gptel and llm.el,
//! checked by reading them back in a real Emacs (`tests/emacs/native_check.el`)
//! and comparing with what `json-parse-string` gives under each package's
//! settings; R values for ellmer, checked with `Rscript` and jsonlite.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use toolbridge::call::ToolCall;
use toolbridge::{elisp_value, read_defuns, Accepted, ElispDecoding, Limits, NoteKind, Tool, Toolbox};

const DECODINGS: [(ElispDecoding, &str); 4] = [
    (ElispDecoding::GptelString, "gptel-string"),
    (ElispDecoding::GptelBody, "gptel-body"),
    (ElispDecoding::LlmString, "llm-string"),
    (ElispDecoding::LlmBody, "llm-body"),
];

/// Arguments covering every JSON kind, the empty containers, keys that need
/// escaping and numbers at the edges of Emacs's and R's integer types.
fn documents() -> Vec<Value> {
    vec![
        json!({"city": "Paris", "unit": "celsius"}),
        json!({"flag": false, "on": true, "nothing": null}),
        json!({"list": [1, "two", false, null, [], {}], "empty": {}, "nested": {"a": {"b": [false]}}}),
        json!({"int": 42, "neg": -7, "float": 1.5, "whole": 1.0, "big": 9007199254740993_i64, "small": 1e-7,
               "edge": -2147483648_i64, "r_max": 2147483647}),
        json!({"": 1, "my key": "x", "1": 2, "nil": 3, "t": [true], "a.b": "quote \" and \\ and \n and é"}),
        json!({"objects": [{"x": 1}, {"y": null, "z": false}]}),
        json!({}),
    ]
}

#[test]
fn elisp_values_print_exactly() {
    let accepted = accepted("get_weather", json!({"city": "Paris", "unit": "celsius"}));
    assert_eq!(
        accepted.to_elisp(ElispDecoding::GptelString),
        r#"(:name "get_weather" :args (:city "Paris" :unit "celsius"))"#
    );
    assert_eq!(
        accepted.to_elisp(ElispDecoding::LlmString),
        r#"(:name "get_weather" :args ((city . "Paris") (unit . "celsius")))"#
    );
    let value = json!({"flag": false, "none": null, "days": [1, 2.5], "opts": {"a": {}}, "": "k"});
    assert_eq!(
        elisp_value(&value, ElispDecoding::GptelString),
        r#"(:flag :json-false :none nil :days [1 2.5] :opts (:a nil) : "k")"#
    );
    assert_eq!(
        elisp_value(&value, ElispDecoding::GptelBody),
        r#"(:flag :json-false :none :null :days [1 2.5] :opts (:a nil) : "k")"#
    );
    assert_eq!(
        elisp_value(&value, ElispDecoding::LlmString),
        r#"((flag) (none . :null) (days . [1 2.5]) (opts (a)) (## . "k"))"#
    );
    assert_eq!(
        elisp_value(&value, ElispDecoding::LlmBody),
        r#"((flag) (none) (days . [1 2.5]) (opts (a)) (## . "k"))"#
    );
}

/// The printed values read back in Emacs equal what gptel's and llm.el's
/// decodings give for the same JSON.
#[test]
fn elisp_values_read_back_in_emacs_as_the_packages_decode() {
    let mut cases = String::from("(\n");
    for document in documents() {
        let text = serde_json::to_string(&document).unwrap();
        for (decoding, label) in DECODINGS {
            cases.push_str(&format!(
                " ({} {label} {})\n",
                lisp_string(&text),
                lisp_string(&elisp_value(&document, decoding))
            ));
        }
    }
    cases.push(')');
    let dir = tempdir("native-elisp");
    let input = dir.join("cases.eld");
    std::fs::write(&input, cases).unwrap();
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emacs/native_check.el");
    let run = Command::new("emacs")
        .args(["--batch", "-Q", "-l"])
        .arg(&harness)
        .arg("--eval")
        .arg(format!("(native-check-main {:?})", input.display().to_string()))
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("cannot run emacs: the native check needs Emacs 27 or later (Debian: emacs-nox)");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        stdout.trim(),
        format!("ok {}", documents().len() * DECODINGS.len())
    );
}

#[test]
fn r_values_print_exactly() {
    let accepted = accepted("get_weather", json!({"city": "Paris"}));
    assert_eq!(accepted.to_r().unwrap(), r#"list(city = "Paris")"#);
    let value = json!({"n": 5, "x": 1.0, "big": 3000000000_i64, "b": false, "none": null, "l": [1, "a"],
                       "o": {}, "": 1, "my key": "é"});
    assert_eq!(
        accepted_with(value).to_r().unwrap(),
        r#"structure(list(5L, 1.0, 3000000000, FALSE, NULL, list(1L, "a"), structure(list(), names = character(0)), 1L, "é"), names = c("n", "x", "big", "b", "none", "l", "o", "", "my key"))"#
    );
    let err = accepted_with(json!({"s": "a\u{0}b"})).to_r().unwrap_err();
    assert_eq!(err.kind(), toolbridge::ErrorKind::Unrepresentable);
    assert_eq!(err.detail(), "R strings cannot hold a NUL character");
}

/// `jsonlite::parse_json(json)` is identical to the printed expression.
#[test]
fn r_values_evaluate_as_jsonlite_parses() {
    let mut script = String::from("ok <- 0\nfail <- 0\n");
    let mut count = 0;
    for document in documents() {
        let Ok(printed) = accepted_with(document.clone()).to_r() else {
            continue;
        };
        count += 1;
        let text = serde_json::to_string(&document).unwrap();
        script.push_str(&format!(
            "if (identical(jsonlite::parse_json({}), {printed})) ok <- ok + 1 else {{ fail <- fail + 1; cat(\"FAIL\", {}, \"\\n\") }}\n",
            r_string(&text),
            r_string(&text)
        ));
    }
    script.push_str("cat(\"ok\", ok, \"\\n\")\nquit(status = if (fail > 0) 1 else 0)\n");
    let stdout = rscript("native-r", &script);
    assert_eq!(stdout.trim(), format!("ok {count}"));
}

/// ellmer's `convert_from_type`, default for tools: typed arrays become
/// atomic vectors, `NULL`s dropped (`count`, null and nullable), enum arrays
/// factors, undeclared nested properties dropped with a note.
#[test]
fn r_values_are_converted_as_ellmer_does() {
    let tool = Tool::new(
        "plan",
        json!({"type": "object", "required": ["city", "days", "count"],
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "array", "items": {"type": "integer"}},
            "count": {"type": ["integer", "null"]},
            "units": {"type": "array", "items": {"type": "string", "enum": ["c", "f"]}},
            "scores": {"type": "array", "items": {"type": "number"}},
            "note": {"type": "string"},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
            "opts": {"type": "object", "properties": {"a": {"type": "boolean"}}}
        }}),
    );
    let toolbox = Toolbox::new([tool]).unwrap();
    let call = ToolCall::new(
        "c1",
        "plan",
        json!({"city": "Paris", "days": [1, 2], "count": null, "units": ["f"], "scores": [1, 2.5],
               "rows": [{"x": 1}], "opts": {"a": true, "b": 1}}),
    );
    let accepted = toolbox.check(&call).accepted().cloned().expect("accepted");
    let converted = toolbox.to_r(&accepted).unwrap();
    assert_eq!(
        converted.value,
        r#"list(city = "Paris", days = c(1L, 2L), units = factor(c("f"), levels = c("c", "f")), scores = c(1, 2.5), rows = list(list(x = 1L)), opts = list(a = TRUE))"#
    );
    let kinds: Vec<(String, NoteKind)> = converted
        .notes
        .iter()
        .map(|note| (note.at.to_string(), note.kind.clone()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (
                "/rows".to_string(),
                NoteKind::Rewritten {
                    keyword: "tibble".into()
                }
            ),
            ("/opts/b".to_string(), NoteKind::Dropped { keyword: "b".into() }),
        ]
    );
    let stdout = rscript(
        "native-r-convert",
        &format!(
            "x <- {}\nstopifnot(identical(x$days, c(1L, 2L)), identical(levels(x$units), c(\"c\", \"f\")), identical(x$scores, c(1, 2.5)))\ncat(\"ok\\n\")\n",
            converted.value
        ),
    );
    assert_eq!(stdout.trim(), "ok");
}

fn accepted(name: &str, arguments: Value) -> Accepted {
    let tool = Tool::new(name, json!({"type": "object"}));
    let toolbox = Toolbox::new([tool]).unwrap();
    toolbox
        .check(&ToolCall::new("call_1", name, arguments))
        .accepted()
        .cloned()
        .expect("accepted")
}

fn accepted_with(arguments: Value) -> Accepted {
    accepted("f", arguments)
}

fn lisp_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn r_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn rscript(label: &str, script: &str) -> String {
    let dir = tempdir(label);
    let file = dir.join("check.R");
    std::fs::write(&file, script).unwrap();
    let run = Command::new("Rscript")
        .arg("--vanilla")
        .arg(&file)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect(
            "cannot run Rscript: the native check needs R and jsonlite (Debian: r-base-core r-cran-jsonlite)",
        );
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

fn tempdir(label: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolbridge-{label}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Real defuns (`tests/emacs/defuns.el`, from ahyatt/llm and
/// karthink/gptel): every function but the `&rest` one is a tool.
#[test]
fn defuns_from_real_packages_read_as_tools() {
    let text = include_str!("emacs/defuns.el");
    let read = read_defuns(text, None, &Limits::default()).unwrap();
    let tools: Vec<Value> = read
        .value
        .iter()
        .map(|tool| serde_json::to_value(tool).unwrap())
        .collect();
    insta::assert_json_snapshot!("defun_packages", tools);
    let notes: Vec<String> = read.notes.iter().map(ToString::to_string).collect();
    insta::assert_debug_snapshot!("defun_packages_notes", notes);

    let err = read_defuns(text, Some("gptel-make-tool"), &Limits::default()).unwrap_err();
    assert_eq!(err.kind(), toolbridge::ErrorKind::InvalidTool);
    assert_eq!(
        err.detail(),
        "(defun gptel-make-tool (&rest slots)) takes &rest arguments, which a tool's fixed parameters cannot describe"
    );
    let only = read_defuns(text, Some("llm--log"), &Limits::default()).unwrap();
    assert_eq!(only.value.len(), 1);
    assert_eq!(only.value[0].name, "llm__log");
    let err = read_defuns(text, Some("no-such-fn"), &Limits::default()).unwrap_err();
    assert_eq!(err.kind(), toolbridge::ErrorKind::NotATool);
    assert_eq!(
        err.detail(),
        "the Emacs Lisp holds no (defun no-such-fn …) or (cl-defun no-such-fn …)"
    );
}

/// Every source of a type: `declare`, `cl-check-type`, a default, the
/// docstring, else `string` with a note.
#[test]
fn defun_types_come_from_declarations_defaults_and_docstrings() {
    let text = r#"
(cl-defun my-weather/get (city days &optional verbose &key (unit "celsius") (limit 5) ((:max-age age) 1.5) mode)
  "Return the weather in CITY for DAYS days.
If VERBOSE is non-nil, explain.  UNIT names the unit.
LIMIT caps the answers; AGE is in hours.  MODE is a string.

\(fn CITY DAYS &optional VERBOSE &key UNIT LIMIT MAX-AGE MODE)"
  (declare (type (integer 1 14) days))
  (cl-check-type city string)
  (list city days verbose unit limit age mode))

(defun my-undocumented (x) x)
"#;
    let read = read_defuns(text, None, &Limits::default()).unwrap();
    let tool = serde_json::to_value(&read.value[0]).unwrap();
    assert_eq!(
        tool,
        json!({
            "name": "my_weather_get",
            "description": "Return the weather in CITY for DAYS days.\nIf VERBOSE is non-nil, explain.  UNIT names the unit.\nLIMIT caps the answers; AGE is in hours.  MODE is a string.",
            "inputSchema": {"type": "object", "required": ["city", "days"], "properties": {
                "city": {"type": "string", "description": "Return the weather in CITY for DAYS days."},
                "days": {"type": "integer", "minimum": 1, "maximum": 14, "description": "Return the weather in CITY for DAYS days."},
                "verbose": {"type": "boolean", "description": "If VERBOSE is non-nil, explain."},
                "unit": {"type": "string", "description": "UNIT names the unit."},
                "limit": {"type": "integer", "description": "LIMIT caps the answers; AGE is in hours."},
                "max_age": {"type": "number", "description": "LIMIT caps the answers; AGE is in hours."},
                "mode": {"type": "string", "description": "MODE is a string."}
            }},
            "run": {"kind": "action", "handler": {"elisp": "#'my-weather/get"}}
        })
    );
    // The symbol is the gptel :function.
    let written =
        toolbridge::write_tool(&read.value[0], toolbridge::Format::Gptel, &Default::default()).unwrap();
    assert!(
        written.value.to_text().contains(":function #'my-weather/get"),
        "{}",
        written.value.to_text()
    );
    let notes: Vec<String> = read.notes.iter().map(ToString::to_string).collect();
    assert_eq!(
        notes,
        [
            "info: the type of `x` is assumed to be string: no (declare (type …)), cl-check-type, default or docstring says (at /1/inputSchema/properties/x)",
            "info: (defun my-undocumented …) has no docstring, so the tool has no description (at /1/description)",
        ]
    );
}

/// `Read::from_defuns` keeps each function's notes with its tool and the
/// file's own notes apart; `keep_only` keeps one tool across reads, and
/// names the closest tool when none matches.
#[test]
fn defuns_read_as_a_document_and_keep_only_picks_one_tool() {
    let text = "(defun my-add (count &optional step)\n  \"Add STEP to COUNT.\nCOUNT is an integer.\"\n  (+ count (or step 1)))\n(defun my-log (&rest parts) \"Log PARTS.\")\n";
    let options = toolbridge::ReadOptions::default().with_origin("add.el".to_string());
    let read = toolbridge::Read::from_defuns(text, None, &options).unwrap();
    assert_eq!(read.format, toolbridge::Format::Gptel);
    assert_eq!(read.notes.len(), 1);
    assert_eq!(
        read.notes[0].message,
        "(defun my-log …) was left out: (defun my-log (&rest parts)) takes &rest arguments, which a tool's fixed parameters cannot describe"
    );
    let tool = read.tools[0].as_ref().unwrap();
    assert_eq!(tool.value.name, "my_add");
    let notes: Vec<String> = tool.notes.iter().map(|note| note.message.to_string()).collect();
    assert_eq!(
        notes,
        ["the type of `step` is assumed to be string: no (declare (type …)), cl-check-type, default or docstring says"]
    );

    let mut reads = vec![read];
    let err = toolbridge::keep_only(&mut reads, "my_ad").unwrap_err();
    assert_eq!(
        err.detail(),
        "no tool is named `my_ad` (did you mean `my_add`?); the tools are `my_add`"
    );
    toolbridge::keep_only(&mut reads, "my_add").unwrap();
    assert_eq!(reads[0].ok_tools().count(), 1);
}
