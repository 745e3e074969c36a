//! Fuzzes the core with two plain boards and operator set-ups among the board traffic
//! (positions with promotions due, castling rights, en passant, a Chess960 start): set-ups
//! arriving mid-game, moves made from them, dumps that contradict them
//! (`dgt_core::arbitrary_play`). Nothing may panic, and no board's reading may fail.
//! Run: `cargo +nightly fuzz run --sanitizer none core_setups`.
#![no_main]

use dgt_core::arbitrary_play::play;
use dgt_core::{AlertKind, EventBody};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for e in play(data, None) {
        if let EventBody::Alert(a) = &e.body {
            assert!(a.kind != AlertKind::TrackingFailed, "{}", a.message);
        }
    }
});
