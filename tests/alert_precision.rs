//! A sample of `dgt-arbiter verify --alerts`, as CI runs it: games at three paces with
//! irregularities whose truth the emulator keeps aside, the alerts scored against it.

use dgt_arbiter::verify_alerts::{PACES, check_alerts};
use dgt_core::CoreConfig;

#[test]
fn alerts_are_scored_against_the_truth_at_every_pace() {
    let report = check_alerts(1, 12, &CoreConfig::default());
    eprintln!("{report}");
    assert_eq!(report.paces.len(), PACES.len());
    for p in &report.paces {
        let touch = &p.scores["touch_move"];
        assert!(touch.truth > 0, "{}: adjustments were made", p.name);
        for (kind, s) in &p.scores {
            assert_eq!(s.true_positives + s.missed, s.truth, "{} {kind}", p.name);
        }
        // Castling begun with the rook a scan before the king is always seen.
        let rook = &p.scores["castling_rook_first"];
        assert_eq!(rook.missed_visible, 0, "{} {rook:?}", p.name);
    }
}
