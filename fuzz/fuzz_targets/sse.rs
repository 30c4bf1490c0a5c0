//! Raw bytes, split into pieces of 1–8 bytes, through one provider's framer and assembler.
#![no_main]
use toolbridge::{call::CallOptions, Format};
const FORMATS: [Format; 7] = [
    Format::OpenAi,
    Format::OpenAiResponses,
    Format::Anthropic,
    Format::Gemini,
    Format::Bedrock,
    Format::Ollama,
    Format::Cohere,
];
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let (mut stream, mut events) = (
        FORMATS[usize::from(pick) % 7]
            .call_stream(&CallOptions::default())
            .unwrap(),
        Vec::new(),
    );
    bytes
        .chunks(usize::from(pick >> 5) + 1)
        .for_each(|piece| drop(stream.push(piece, &mut events).map_err(|err| err.to_string())));
    let _ = stream.finish(&mut events).map_err(|err| err.to_string());
    events
        .iter()
        .for_each(|event| drop(serde_json::to_string(event).unwrap()));
});
