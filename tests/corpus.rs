//! A sample of the emulated corpus through the core, as CI runs it: every move the seeded
//! human players made (slides, captures either way, flicker, knocked pieces, late presses,
//! result gestures, turned boards, clocks on either side) is rebuilt, none is invented.
//! The full run is `dgt-arbiter verify --games 2000`.

use dgt_core::CoreConfig;
use dgt_lab::verify::check_corpus;

#[test]
fn the_first_200_corpus_games_are_rebuilt_exactly() {
    let report = check_corpus(1, 200, &CoreConfig::default());
    eprintln!("{report}");
    assert!(report.played > 10_000, "a real sample: {}", report.played);
    assert_eq!(report.invented, 0, "{report}");
    assert_eq!(report.missed, 0, "{report}");
    assert_eq!(report.exact, report.played);
    assert!(
        report.corrections * 100 < report.played,
        "corrections stay rare: {report}"
    );
}

/// A bishop knocked over between White's move and the judging of its press (corpus game
/// 35441): the press completes the move, the knocked piece is a displacement, and the game
/// is rebuilt exactly. Read together they would make an illegal "Bf1-e4=N", and every ply
/// after it would be misread.
#[test]
fn a_piece_knocked_over_before_the_press_is_judged_is_no_part_of_the_move() {
    let c = dgt_lab::verify::check_game(35441, &CoreConfig::default());
    assert!(c.is_exact(), "{c:?}");
    assert_eq!(c.longest_invented_run, 0);
}
