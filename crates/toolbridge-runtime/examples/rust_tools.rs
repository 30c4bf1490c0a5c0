//! Three Rust tools made with `#[tool]`: their definitions for OpenAI,
//! Anthropic and Gemini, then a captured response of each provider
//! dispatched end to end, printing the result messages to send back.
//!
//! Run with `cargo run -p toolbridge-runtime --example rust_tools`.
//! `tests/dispatch_example.rs` checks this output exactly.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolbridge::call::CallOptions;
use toolbridge::{Format, WriteOptions};
use toolbridge_runtime::{tool, Decision, Dispatcher, Registry};

/// A temperature unit.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

/// The weather in a city.
#[derive(Debug, Serialize)]
pub struct Weather {
    city: String,
    temperature: f64,
    unit: Unit,
    conditions: &'static str,
}

/// Current weather for a city. (The numbers are made up from the city's
/// name: this example calls no service.)
#[tool(read_only, idempotent, open_world = false, title = "Weather")]
pub async fn get_weather(
    /// The city, such as "Paris".
    city: String,
    /// The unit of the temperature; Celsius when absent.
    unit: Option<Unit>,
) -> Weather {
    let seed: u32 = city.bytes().map(u32::from).sum();
    let celsius = f64::from(seed % 30);
    let unit = unit.unwrap_or(Unit::Celsius);
    let temperature = match unit {
        Unit::Celsius => celsius,
        Unit::Fahrenheit => celsius * 9.0 / 5.0 + 32.0,
    };
    let conditions = ["sunny", "cloudy", "rainy"][(seed % 3) as usize];
    Weather {
        city,
        temperature,
        unit,
        conditions,
    }
}

/// Counts the words of a text.
#[tool(read_only, idempotent, open_world = false, category = "text")]
pub fn count_words(
    /// The text whose words are counted.
    text: String,
) -> Result<usize, String> {
    match text.split_whitespace().count() {
        0 => Err("the text is empty: there are no words to count".to_string()),
        count => Ok(count),
    }
}

/// A day of the week.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Day {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
}

/// A reminder to set.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Reminder {
    /// What to be reminded of.
    pub text: String,
    /// The day.
    pub day: Day,
    /// The hour, 0 to 23.
    #[schemars(range(max = 23))]
    pub hour: u8,
}

/// Sets a reminder. The user confirms each one.
#[tool(name = "create_reminder", destructive = false, open_world = false, confirm)]
pub async fn set_reminder(
    /// The reminder.
    reminder: Reminder,
) -> String {
    format!(
        "Reminder set for {:?} at {}:00: {}",
        reminder.day, reminder.hour, reminder.text
    )
}

/// The example's whole output.
pub async fn transcript() -> String {
    let mut registry = Registry::new();
    for tool in [
        get_weather::handler(),
        count_words::handler(),
        set_reminder::handler(),
    ] {
        registry.add(tool).expect("the three names differ");
    }
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let dispatcher = Dispatcher::new(registry)
        .expect("the schemas compile")
        .with_confirm(move |request| {
            let log = Arc::clone(&log);
            async move {
                log.lock().expect("not poisoned").push(format!(
                    "confirm {}({}) → run",
                    request.tool.name,
                    serde_json::Value::Object(request.arguments)
                ));
                Decision::Run
            }
        });

    let mut out = String::new();
    for format in [Format::OpenAi, Format::Anthropic, Format::Gemini] {
        let written = dispatcher.write_tools(format, &WriteOptions::default());
        out.push_str(&format!("## Tools for {format}\n\n"));
        out.push_str(&written.output().to_text());
        for note in written.all_notes() {
            out.push_str(&format!("note: {note}\n"));
        }
        out.push('\n');
    }
    let responses = [
        (Format::OpenAi, include_str!("responses/openai.json")),
        (Format::Anthropic, include_str!("responses/anthropic.json")),
        (Format::Gemini, include_str!("responses/gemini.json")),
    ];
    for (format, text) in responses {
        let response: serde_json::Value = serde_json::from_str(text).expect("the captured response is JSON");
        let reply = dispatcher
            .reply(format, &response, &CallOptions::default())
            .await
            .expect("the response is the provider's");
        out.push_str(&format!("## {format} response: {} calls\n\n", reply.calls.len()));
        for line in asked.lock().expect("not poisoned").drain(..) {
            out.push_str(&line);
            out.push('\n');
        }
        let message = reply.message.unwrap_or_default();
        out.push_str(&serde_json::to_string_pretty(&message).expect("JSON values serialize"));
        out.push('\n');
        for note in &reply.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        out.push('\n');
    }
    out
}

#[tokio::main]
async fn main() {
    print!("{}", transcript().await);
}
