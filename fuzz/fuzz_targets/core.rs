//! Fuzzes the whole core: arbitrary bytes from a board, at fuzzer-chosen times, must never
//! make it panic. Run: `cargo fuzz run --sanitizer none core`.
#![no_main]

use dgt_core::{Core, CoreConfig, Input, InputKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut core = Core::new(CoreConfig::default());
    let mut t = 0u64;
    for chunk in data.chunks(7) {
        t += chunk[0] as u64 * 10;
        core.handle(&Input { t_ms: t, board: "fuzz".into(), kind: InputKind::Rx(chunk[1..].to_vec()) });
    }
    core.advance(t + 60_000);
});
