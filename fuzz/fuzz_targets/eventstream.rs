//! Bedrock's binary event stream: arbitrary bytes, and the same bytes with
//! each message's lengths made to fit and both CRCs made right (so the
//! fuzzer reaches the headers, payloads and the assembler), cut into pieces
//! of 1–8 bytes. No panic; every error and event displays.
#![no_main]
use toolbridge::{call::CallOptions, Format};

fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &byte| {
        (0..8).fold(crc ^ u32::from(byte), |c, _| {
            if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            }
        })
    })
}

/// Rewrites each message's total length (to fit what is left), headers length and CRCs.
fn fit(mut data: Vec<u8>) -> Vec<u8> {
    let mut at = 0;
    while data.len() - at >= 16 {
        let word = |data: &[u8], at: usize| u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        let total = 16 + word(&data, at) % (data.len() - at - 15);
        let headers = word(&data, at + 4) % (total - 15);
        data[at..at + 4].copy_from_slice(&(total as u32).to_be_bytes());
        data[at + 4..at + 8].copy_from_slice(&(headers as u32).to_be_bytes());
        let prelude = crc32(&data[at..at + 8]);
        data[at + 8..at + 12].copy_from_slice(&prelude.to_be_bytes());
        let message = crc32(&data[at..at + total - 4]);
        data[at + total - 4..at + total].copy_from_slice(&message.to_be_bytes());
        at += total;
    }
    data
}

fn run(bytes: &[u8], step: usize) {
    let (mut stream, mut events) = (
        Format::Bedrock.call_stream(&CallOptions::default()).unwrap(),
        Vec::new(),
    );
    bytes
        .chunks(step)
        .for_each(|piece| drop(stream.push(piece, &mut events).map_err(|err| err.to_string())));
    let _ = stream.finish(&mut events).map_err(|err| err.to_string());
    events
        .iter()
        .for_each(|event| drop(serde_json::to_string(event).unwrap()));
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    run(bytes, usize::from(pick % 8) + 1);
    run(&fit(bytes.to_vec()), usize::from(pick / 32) + 1);
});
