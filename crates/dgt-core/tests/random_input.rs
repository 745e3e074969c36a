//! Random input through the whole core, in the normal test suite (the fuzz targets in
//! `fuzz/` do the same at length with cargo-fuzz): pieces lifted and put anywhere, clock
//! frames, dumps, set-ups and raw bytes on two boards, paired as a bughouse match under each
//! regulation or not. Nothing may panic — no fault contained as `tracking_failed` either —
//! and the events stay numbered in order.

use dgt_core::arbitrary_play::play;
use dgt_core::bughouse::Regulation;
use dgt_core::{AlertKind, EventBody};
use proptest::prelude::*;

fn rules(k: u8) -> Option<Regulation> {
    match k % 4 {
        0 => None,
        1 => Some(Regulation::DjcStein),
        2 => Some(Regulation::Knsb2000),
        _ => Some(Regulation::Flemish),
    }
}

fn check(data: &[u8], k: u8) -> Result<(), TestCaseError> {
    let ev = play(data, rules(k));
    prop_assert!(ev.windows(2).all(|w| w[0].seq < w[1].seq));
    let faults: Vec<String> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Alert(a) if a.kind == AlertKind::TrackingFailed => Some(a.message.clone()),
            _ => None,
        })
        .collect();
    prop_assert!(faults.is_empty(), "{faults:?}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn random_input_never_makes_the_core_fail(
        data in proptest::collection::vec(any::<u8>(), 0..2400),
        k in any::<u8>(),
    ) {
        check(&data, k)?;
    }
}
