//! Chaos: the clock's cable pulled out mid-game. Expectation: one
//! `clock_disconnected` alert for the arbiter (not one per reading), the board's moves go on
//! being read without presses, and nothing else is raised for it.

mod common;

use common::*;
use dgt_core::AlertKind;

/// The clock message a board sends when no clock is attached (status bit 0x20, §3.4).
fn no_clock_reading(b: &mut Board) {
    b.rx(vec![0x8D, 0, 0x0A, 0, 0, 0, 0, 0, 0, 0x20]);
}

#[test]
fn a_clock_unplugged_mid_game_is_told_once_and_the_moves_go_on() {
    let mut b = started();
    b.start_clock(300).wait(300);
    b.press().wait(300);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p'), ("g1", "f3", 'N')]);
    // The cable comes out: the board reports "no clock" at every reading from now on.
    b.clock = None;
    for _ in 0..10 {
        no_clock_reading(&mut b);
        b.wait(200);
    }
    // The players go on without a clock to press.
    b.play(&[("b8", "c6", 'n'), ("f1", "b5", 'B')]);
    for _ in 0..5 {
        no_clock_reading(&mut b);
        b.wait(2000);
    }
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
    let raised = alerts(&ev);
    assert_eq!(
        raised
            .iter()
            .filter(|k| **k == AlertKind::ClockDisconnected)
            .count(),
        1,
        "{raised:?}"
    );
    assert!(
        raised.iter().all(|k| *k == AlertKind::ClockDisconnected),
        "nothing else is raised: {raised:?}"
    );
}
