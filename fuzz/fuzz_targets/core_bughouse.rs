//! Fuzzes the core with two boards paired as a bughouse match (the first byte picks the
//! regulation): legal moves and drops made by hand — captures in either order, pieces
//! captured the moment they land, promotions taking pieces from the partner board — mixed
//! with stray lifts and puts, clock frames, dumps, set-ups and raw bytes
//! (`dgt_core::arbitrary_play`). Nothing may panic, and no board's reading may fail.
//! Run: `cargo +nightly fuzz run --sanitizer none core_bughouse`.
#![no_main]

use dgt_core::arbitrary_play::play;
use dgt_core::bughouse::Regulation;
use dgt_core::{AlertKind, EventBody};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let rules = match first % 3 {
        0 => Regulation::DjcStein,
        1 => Regulation::Knsb2000,
        _ => Regulation::Flemish,
    };
    for e in play(rest, Some(rules)) {
        if let EventBody::Alert(a) = &e.body {
            assert!(a.kind != AlertKind::TrackingFailed, "{}", a.message);
        }
    }
});
