//! The `endpoint` run kind: an HTTP call (Syllable's `HttpEndpoint`,
//! extended with headers, per-parameter locations and a timeout).

use std::time::Duration;

use reqwest::{Method, StatusCode, Url};
use serde_json::{Map, Value};
use toolbridge::tool::{ArgumentLocation, EndpointRun, HttpMethod};
use toolbridge::{Note, NoteKind, Pointer, Tool};

use super::{with_notes, with_structured, RunContext, RunLimits};
use crate::output::Output;

/// At most this many characters of an error response's body are quoted.
const MAX_QUOTED_BODY: usize = 2000;

/// Calls a tool's endpoint with its arguments.
///
/// - `{name}` slots of the URL are filled from the argument `name`
///   (percent-encoded as one path segment) whatever its location, and the
///   argument goes nowhere else; a slot without an argument is an error;
/// - static parameters arrive among the arguments (the Toolbox sets them)
///   and are sent like them, as Syllable sends its configured values;
/// - every other argument goes where `parameterLocations` says, else where
///   `argumentLocation` says: the query string or a form body (a list
///   becomes one `key=item` per item; `true`/`false`; an object as compact
///   JSON; `null` as an empty value), or a JSON body (the arguments object);
///   a `path` location with no slot of that name is an error, never a drop;
/// - header values have `${NAME}` replaced by the environment variable
///   `NAME`; an unset or empty variable is an error result, never an empty
///   header;
/// - the whole exchange, redirects and body included, must end within the
///   run's `timeout` (default [`RunLimits::endpoint_timeout`]), and the body
///   within [`RunLimits::max_response_bytes`] (read as it streams in);
/// - redirects are followed here, not by the client, up to
///   [`RunLimits::max_redirects`], each target checked against
///   [`RunLimits::allowed_hosts`]; the file's headers are not sent to another
///   host; 303 (and 301/302 after anything but GET) continue as a GET
///   without a body, as browsers and reqwest do;
/// - a non-2xx status is an error result with the status and the trimmed
///   body; a 2xx body is the result text, parsed into `structuredContent`
///   when the tool has an `outputSchema`;
/// - a tool's fixed `result` (Syllable `result`) replaces a successful
///   response's body as the reply, with a note giving the body's size.
pub(super) async fn run(
    tool: &Tool,
    run: &EndpointRun,
    arguments: Map<String, Value>,
    context: &RunContext,
) -> Output {
    let timeout = match run.timeout {
        None => context.limits.endpoint_timeout,
        Some(seconds) => match Duration::try_from_secs_f64(seconds) {
            Ok(timeout) if seconds > 0.0 => timeout,
            _ => {
                return Output::error(format!(
                    "tool {:?}: the timeout {seconds} is not a positive number of seconds",
                    tool.name
                ))
            }
        },
    };
    let request = match Request::build(run, arguments) {
        Ok(request) => request,
        Err(message) => return Output::error(format!("tool {:?}: {message}", tool.name)),
    };
    let exchange = request.send(context);
    let output = match tokio::time::timeout(timeout, exchange).await {
        Ok(Ok(response)) => response,
        Ok(Err(message)) => return Output::error(format!("tool {:?}: {message}", tool.name)),
        Err(_) => {
            return Output::error(format!(
                "tool {:?}: the endpoint did not answer within {} s",
                tool.name,
                timeout.as_secs_f64()
            ))
        }
    };
    let Answer { status, body, notes } = output;
    if !status.is_success() {
        return Output::error(format!("HTTP {status}: {}", quote(&body)));
    }
    if let Some(result) = tool.fixed_result.as_ref().filter(|result| !result.is_null()) {
        let mut notes = notes;
        notes.push(Note::new(
            NoteKind::Dropped {
                keyword: "response".into(),
            },
            Pointer::root().key("result"),
            format!(
                "the tool declares a fixed result; it replaces the response body ({} bytes)",
                body.len()
            ),
        ));
        let output = match result {
            Value::String(text) => Output::text(text.clone()),
            other => Output::json(other.clone()),
        };
        return with_notes(output, notes);
    }
    with_notes(with_structured(tool, Output::text(body)), notes)
}

/// A request body.
#[derive(Clone, Debug)]
enum Body {
    None,
    Json(Map<String, Value>),
    Form(Vec<(String, String)>),
}

/// The request, built once and sent again on each redirect.
#[derive(Debug)]
struct Request {
    method: Method,
    url: Url,
    headers: Vec<(String, String)>,
    body: Body,
}

/// A response read within the limits.
struct Answer {
    status: StatusCode,
    body: String,
    notes: Vec<Note>,
}

impl Request {
    /// The request for these arguments, or why there is none.
    fn build(run: &EndpointRun, mut arguments: Map<String, Value>) -> Result<Request, String> {
        let url = fill_slots(&run.url, &mut arguments)?;
        let mut url = Url::parse(&url).map_err(|error| format!("the URL {url:?} is not valid: {error}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("the URL scheme {:?} is not http or https", url.scheme()));
        }
        let mut query = Vec::new();
        let mut form = Vec::new();
        let mut json = Map::new();
        for (name, value) in arguments {
            let location = run
                .parameter_locations
                .as_ref()
                .and_then(|locations| locations.get(&name))
                .copied()
                .unwrap_or(run.argument_location);
            match location {
                ArgumentLocation::Query => pairs(&name, &value, &mut query),
                ArgumentLocation::Form => pairs(&name, &value, &mut form),
                ArgumentLocation::Body => {
                    json.insert(name, value);
                }
                ArgumentLocation::Path => {
                    return Err(format!(
                        "the argument {name:?} goes in the path, but the URL has no {{{name}}} slot"
                    ))
                }
            }
        }
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(&query);
        }
        let body = match (json.is_empty(), form.is_empty()) {
            (true, true) => Body::None,
            (false, true) => Body::Json(json),
            (true, false) => Body::Form(form),
            (false, false) => {
                return Err(format!(
                    "arguments go both in a JSON body ({}) and a form body ({}); a request has one body",
                    json.keys().cloned().collect::<Vec<_>>().join(", "),
                    form.iter()
                        .map(|(name, _)| name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        };
        let mut headers = Vec::new();
        for (name, template) in run.headers.iter().flatten() {
            headers.push((name.clone(), expand_env(name, template)?));
        }
        let method = match run.method {
            HttpMethod::Get => Method::GET,
            HttpMethod::Post => Method::POST,
            HttpMethod::Put => Method::PUT,
            HttpMethod::Patch => Method::PATCH,
            HttpMethod::Delete => Method::DELETE,
        };
        Ok(Request {
            method,
            url,
            headers,
            body,
        })
    }

    /// Sends the request, following redirects, and reads the answer.
    async fn send(self, context: &RunContext) -> Result<Answer, String> {
        let limits = &context.limits;
        let Request {
            mut method,
            mut url,
            headers,
            mut body,
        } = self;
        let origin = (
            url.host_str().map(str::to_ascii_lowercase),
            url.port_or_known_default(),
        );
        let mut redirects = 0;
        loop {
            check_allowed(&url, limits)?;
            let same_origin = (
                url.host_str().map(str::to_ascii_lowercase),
                url.port_or_known_default(),
            ) == origin;
            let mut request = context.http.request(method.clone(), url.clone());
            if same_origin {
                for (name, value) in &headers {
                    request = request.header(name.as_str(), value.as_str());
                }
            }
            request = match &body {
                Body::None => request,
                Body::Json(json) => request.json(json),
                Body::Form(form) => request.form(form),
            };
            let response = request.send().await.map_err(|error| {
                format!(
                    "the request to {} failed: {}",
                    redacted(&url),
                    error_chain(&error)
                )
            })?;
            let status = response.status();
            if status.is_redirection() {
                let Some(location) = response.headers().get(reqwest::header::LOCATION) else {
                    return read(response, limits).await;
                };
                redirects += 1;
                if redirects > limits.max_redirects {
                    return Err(format!("more than {} redirects", limits.max_redirects));
                }
                let location = location
                    .to_str()
                    .map_err(|_| "a redirect's Location is not text".to_string())?;
                url = url
                    .join(location)
                    .map_err(|error| format!("a redirect's Location {location:?} is not a URL: {error}"))?;
                if !matches!(url.scheme(), "http" | "https") {
                    return Err(format!(
                        "a redirect leads to the scheme {:?}, not http or https",
                        url.scheme()
                    ));
                }
                let keep = matches!(
                    status,
                    StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
                ) || (status != StatusCode::SEE_OTHER && method == Method::GET);
                if !keep {
                    method = Method::GET;
                    body = Body::None;
                }
                continue;
            }
            return read(response, limits).await;
        }
    }
}

/// Reads the body as it streams in, refusing one over the cap.
async fn read(mut response: reqwest::Response, limits: &RunLimits) -> Result<Answer, String> {
    let status = response.status();
    let max = limits.max_response_bytes;
    if response
        .content_length()
        .is_some_and(|length| length > max as u64)
    {
        return Err(format!(
            "the response is larger than {max} bytes (Content-Length {})",
            response.content_length().unwrap_or_default()
        ));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| format!("reading the response failed: {}", error_chain(&error)))?
    {
        if bytes.len() + chunk.len() > max {
            return Err(format!("the response is larger than {max} bytes"));
        }
        bytes.extend_from_slice(&chunk);
    }
    let mut notes = Vec::new();
    let body = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            notes.push(Note::new(
                NoteKind::Coerced {
                    from: "bytes".into(),
                    to: "text".into(),
                },
                Pointer::root(),
                "the response body is not UTF-8; invalid bytes were replaced by U+FFFD",
            ));
            String::from_utf8_lossy(error.as_bytes()).into_owned()
        }
    };
    Ok(Answer { status, body, notes })
}

/// Refuses a URL whose host is not allowed.
fn check_allowed(url: &Url, limits: &RunLimits) -> Result<(), String> {
    let Some(allowed) = &limits.allowed_hosts else {
        return Ok(());
    };
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let port = url.port_or_known_default();
    let matches = |entry: &String| {
        let entry = entry.to_ascii_lowercase();
        match entry
            .rsplit_once(':')
            .filter(|(_, port)| port.parse::<u16>().is_ok())
        {
            Some((entry_host, entry_port)) if !entry_host.ends_with(']') || entry.starts_with('[') => {
                entry_host == host && Some(entry_port.parse::<u16>().unwrap_or_default()) == port
            }
            _ => entry == host,
        }
    };
    if allowed.iter().any(matches) {
        Ok(())
    } else {
        Err(format!("the host {host:?} is not in the allowed hosts"))
    }
}

/// The URL with `{name}` slots filled from (and removed from) the arguments.
fn fill_slots(template: &str, arguments: &mut Map<String, Value>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let name = after.find('}').map(|end| &after[..end]).filter(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        });
        let Some(name) = name else {
            out.push('{');
            rest = after;
            continue;
        };
        let value = arguments
            .shift_remove(name)
            .ok_or_else(|| format!("the URL's {{{name}}} slot has no argument"))?;
        out.push_str(&encode_segment(&scalar_text(&value)));
        rest = &after[name.len() + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The text of a value in a URL or form: strings as they are, `true`,
/// `false`, numbers as JSON writes them, `null` empty, objects and lists
/// as compact JSON.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The query or form pairs of one argument: one pair per list item.
fn pairs(name: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Array(items) => out.extend(items.iter().map(|item| (name.to_string(), scalar_text(item)))),
        other => out.push((name.to_string(), scalar_text(other))),
    }
}

/// Percent-encodes all but RFC 3986's unreserved characters, so a value is
/// one path segment (`a/b` → `a%2Fb`).
fn encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A header value with `${NAME}` replaced by the environment variable.
fn expand_env(header: &str, template: &str) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("the header {header:?} has an unclosed ${{ in its value"));
        };
        let name = &after[..end];
        match std::env::var(name) {
            Ok(value) if !value.is_empty() => out.push_str(&value),
            _ => {
                return Err(format!(
                    "the header {header:?} needs the environment variable {name}, which is not set"
                ))
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The URL without its query (which may hold secrets) for messages.
fn redacted(url: &Url) -> String {
    let mut url = url.clone();
    url.set_query(None);
    url.to_string()
}

/// An error and its sources, as one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A body trimmed of surrounding whitespace and cut to a readable length.
fn quote(body: &str) -> String {
    let body = body.trim();
    match body.char_indices().nth(MAX_QUOTED_BODY) {
        Some((cut, _)) => format!("{}… ({} bytes in all)", &body[..cut], body.len()),
        None => body.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn slots_are_filled_encoded_and_taken_out() {
        let mut arguments = object(json!({"id": "a/b c", "n": 3, "q": "x"}));
        assert_eq!(
            fill_slots("https://h/users/{id}/{n}?x={", &mut arguments).unwrap(),
            "https://h/users/a%2Fb%20c/3?x={"
        );
        assert_eq!(arguments, object(json!({"q": "x"})));
        assert_eq!(
            fill_slots("https://h/{missing}", &mut arguments).unwrap_err(),
            "the URL's {missing} slot has no argument"
        );
    }

    #[test]
    fn odd_templates_never_panic() {
        let pieces = [
            "{", "}", "{}", "{é}", "{a", "a}", "${", "${}", "${X", "}", "é", "\\", "{{a}}", "$",
        ];
        for first in pieces {
            for second in pieces {
                let text = format!("{first}{second}x{first}");
                let mut arguments = object(json!({"a": "1", "é": "2", "": "3"}));
                let _ = fill_slots(&text, &mut arguments);
                let _ = expand_env("H", &text);
            }
        }
        assert_eq!(
            fill_slots("{é}", &mut object(json!({"é": "ü"}))).unwrap(),
            "%C3%BC"
        );
        assert_eq!(
            expand_env("H", "${").unwrap_err(),
            "the header \"H\" has an unclosed ${ in its value"
        );
    }

    #[test]
    fn lists_repeat_keys() {
        let mut out = Vec::new();
        pairs("tag", &json!(["a", 1, true]), &mut out);
        pairs("flag", &json!(false), &mut out);
        pairs("none", &json!(null), &mut out);
        let out: Vec<(&str, &str)> = out.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            out,
            [
                ("tag", "a"),
                ("tag", "1"),
                ("tag", "true"),
                ("flag", "false"),
                ("none", "")
            ]
        );
    }

    #[test]
    fn allowed_hosts_match_host_or_host_and_port() {
        let limits = RunLimits::default().with_allowed_hosts(["api.example.com", "127.0.0.1:8080"]);
        let ok = |url: &str| check_allowed(&Url::parse(url).unwrap(), &limits).is_ok();
        assert!(ok("https://API.example.com/x"));
        assert!(ok("http://127.0.0.1:8080/"));
        assert!(!ok("http://127.0.0.1:8081/"));
        assert!(!ok("https://evil.example.com/"));
    }

    #[test]
    fn quoted_bodies_are_trimmed_and_cut() {
        assert_eq!(quote("  not found \n"), "not found");
        let long = "é".repeat(MAX_QUOTED_BODY + 5);
        assert!(quote(&long).ends_with(&format!("… ({} bytes in all)", long.len())));
    }
}
