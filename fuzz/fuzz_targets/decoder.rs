//! Fuzzes the wire decoder in both line modes, with the input cut at a fuzzer-chosen point.
//! Run: `cargo fuzz run --sanitizer none decoder` (stable Rust has no ASan).
#![no_main]

use dgt_protocol::{CommandDecoder, Decoder, LineMode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cut = data.first().map(|&b| b as usize % (data.len().max(1))).unwrap_or(0);
    for mode in [LineMode::Single, LineMode::Bus] {
        let mut d = Decoder::new(mode);
        d.decode(&data[..cut]);
        d.decode(&data[cut..]);
        d.flush();
    }
    CommandDecoder::default().decode(data);
});
