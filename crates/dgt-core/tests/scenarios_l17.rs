//! The test scenarios of the FIDE 2017 digest (`spec/laws-fide-2017.md` §5, T01–T57, listed
//! as L17-S01…S57 in `docs/scenarios.md`), played as the bytes a DGT board and clock send.
//! Each test checks what the scenario expects for every edition it names.

mod common;

use common::*;
use dgt_core::reconstruct::{Not960, WrongSetup};
use dgt_core::time_control::Bonus;
use dgt_core::verdict::{
    AdoptedIllegalMove, Article, CalledBy, ClaimDecision, ClockVerdict, FlagCall, FlagDecision,
    FlagFall, FlagNotCalled, GameResult, HandsVerdict, IllegalChange, IllegalMoveVerdict,
    IllegalPlacement, OffenceDecision, OffenceVerdict, OwnTimeCut, RecordVerdict, Remedy,
    Replacement, SettingMismatch, SetupVerdict, StandingIllegalPosition, WhatChanged,
    WrongClaimPenalty,
};
use dgt_core::{AlertKind, Event, EventBody, Severity};
use shakmaty::{Color, Role, Square};

/// 1.e4 e5 2.Nf3 … as (from, to, piece).
type Script<'a> = &'a [(&'a str, &'a str, char)];

/// L17-S01 (T01): after 1.e4 e5 2.Bb5, Black plays d7–d6, exposing Ke8, and presses.
#[test]
fn l17_s01_king_exposed_illegal_move_first_offence() {
    for edition in EDITIONS {
        let mut b = game(edition, "5400+30", 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p'), ("f1", "b5", 'B')]);
        b.mv("d7", "d6", 'p').wait(250).press().wait(900);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e2e4", "e7e5", "f1b5"], "{edition}");
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(article(&a), by_edition(edition, "7.4a", "7.5.1", "7.5.1"));
        assert_eq!(a.severity, Severity::Intervene, "{edition}");
        assert_eq!(a.side, Some(dgt_core::Side::Black));
        assert_eq!(a.ply, Some(4));
        assert!(
            a.fen_before
                .as_deref()
                .unwrap()
                .starts_with("rnbqkbnr/pppp1ppp/8/1B2p3/4P3/8/PPPP1PPP/RNBQK1NR b"),
            "{a:?}"
        );
        let v = offence_verdict(&a);
        let penalty = Article::new(by_edition(edition, "7.4b", "7.5.3", "7.5.5"));
        assert_eq!(
            (v.number, time_to_opponent(v), v.opponent(), v.article),
            (1, Some(120_000), Color::White, penalty),
            "{edition}"
        );
        // Restored; the d7 pawn has no legal move: any legal move may be made (4.5).
        assert_eq!(
            v.remedy,
            Remedy::Restore {
                article: Article::new(by_edition(edition, "7.4a", "7.5.1", "7.5.1")),
                replacement: Replacement::AnyLegalMove { square: Square::D7 },
            },
            "{edition}"
        );
        // The clocks to propose are those of the last completed move (7.1).
        let last_move = ev
            .iter()
            .rev()
            .find_map(|e| match &e.body {
                EventBody::Move(m) => Some((m.white_ms, m.black_ms)),
                _ => None,
            })
            .unwrap();
        assert_eq!((a.white_ms, a.black_ms), last_move, "{edition}");
    }
}

/// L17-S02 (T02): a second completed illegal move by the same player loses (2005: the
/// third); a draw if the opponent has only a bare king (not in 2005: 7.4b has no draw clause).
#[test]
fn l17_s02_second_illegal_move_loses_or_draws() {
    for edition in EDITIONS {
        let mut b = game(edition, "5400+30", 5400);
        b.play(&[("e2", "e4", 'P')]);
        illegal_and_back(&mut b, "g8", "g6", 'n');
        b.play(&[("g8", "f6", 'n'), ("g1", "f3", 'N')]);
        illegal_and_back(&mut b, "f6", "f4", 'n');
        b.play(&[("b8", "c6", 'n'), ("b1", "c3", 'N')]);
        illegal_and_back(&mut b, "c6", "c4", 'n');
        let ev = b.run();
        let illegal = alert_of(&ev, AlertKind::IllegalMove);
        let v: Vec<_> = illegal.iter().map(offence_verdict).collect();
        let penalty = Article::new(by_edition(edition, "7.4b", "7.5.3", "7.5.5"));
        if edition == "fide-2005" {
            assert_eq!(v.len(), 3, "{v:?}");
            for first in &v[..2] {
                assert_eq!(
                    (time_to_opponent(first), first.opponent(), first.article),
                    (Some(120_000), Color::White, penalty),
                    "{v:?}"
                );
            }
            assert_eq!(
                (v[2].number, v[2].decision, v[2].offender),
                (3, OffenceDecision::Loses, Color::Black),
                "{v:?}"
            );
        } else {
            assert_eq!(time_to_opponent(v[0]), Some(120_000), "{v:?}");
            assert_eq!(
                (v[1].number, v[1].decision, v[1].offender, v[1].article),
                (2, OffenceDecision::Loses, Color::Black, penalty),
                "{edition}: {v:?}"
            );
        }
    }

    // Variant: White offends twice; Black has a bare king.
    for edition in EDITIONS {
        let mut b = Board::from_fen(
            "7k/8/8/8/8/8/R7/K7 w - - 0 1",
            &format!(r#""edition": "{edition}", "time_control": "5400""#),
        );
        b.start_clock(5400).wait(300);
        illegal_and_back(&mut b, "a2", "b3", 'R');
        b.play(&[("a2", "a3", 'R'), ("h8", "g8", 'k')]);
        illegal_and_back(&mut b, "a3", "b4", 'R');
        let ev = b.run();
        let illegal = alert_of(&ev, AlertKind::IllegalMove);
        let v: Vec<&OffenceVerdict> = illegal.iter().map(offence_verdict).collect();
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[1].offender, Color::White);
        if edition == "fide-2005" {
            // No draw exception in 7.4b: the second is another two minutes.
            assert!(
                matches!(
                    v[1].decision,
                    OffenceDecision::TimeToOpponent {
                        add_ms: 120_000,
                        ..
                    }
                ),
                "{v:?}"
            );
        } else {
            assert_eq!(v[1].decision, OffenceDecision::Drawn, "{edition}: {v:?}");
        }
    }
}

/// L17-S04 (T04): a king released on an attacked square is moved on to a legal square
/// before the press: no illegal move.
#[test]
fn l17_s04_king_moved_on_before_the_press_is_no_illegal_move() {
    let mut b = Board::from_fen("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "");
    b.start_clock(300).wait(300);
    b.mv("e1", "d1", 'K').wait(900);
    b.mv("d1", "f1", 'K').wait(300).press().wait(600);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e1f1"]);
    let a = alerts(&ev);
    assert!(
        !a.contains(&AlertKind::IllegalMove) && !a.contains(&AlertKind::IllegalPosition),
        "{a:?}"
    );
}

/// L17-S05 (T05): `6k1/3P4/8/8/8/8/8/4K3 w`: d7–d8, the pawn left on d8, the clock pressed.
#[test]
fn l17_s05_pawn_left_on_the_last_rank_promotion_incomplete() {
    for edition in EDITIONS {
        let mut b = Board::from_fen(
            "6k1/3P4/8/8/8/8/8/4K3 w - - 0 1",
            &format!(r#""edition": "{edition}", "time_control": "5400""#),
        );
        b.start_clock(5400).wait(300);
        b.mv("d7", "d8", 'P').wait(250).press().wait(900);
        let ev = b.run();
        let a = one(&ev, AlertKind::PromotionIncomplete);
        assert_eq!(a.severity, Severity::Intervene);
        assert_eq!(article(&a), by_edition(edition, "7.4a", "7.5.2", "7.5.2"));
        let v = offence_verdict(&a);
        assert_eq!(v.number, 1, "{a:?}");
        let penalty = Article::new(by_edition(edition, "7.4b", "7.5.3", "7.5.5"));
        if edition == "fide-2005" {
            assert!(matches!(v.remedy, Remedy::Restore { .. }), "{v:?}");
        } else {
            assert_eq!(
                v.remedy,
                Remedy::QueenForPawn {
                    article: Article::new("7.5.2")
                }
            );
        }
        assert_eq!(v.article, penalty, "{edition}");
        assert!(
            matches!(
                v.decision,
                OffenceDecision::TimeToOpponent {
                    add_ms: 120_000,
                    ..
                }
            ),
            "{edition}: {v:?}"
        );
        assert!(!alerts(&ev).contains(&AlertKind::IllegalMove));
    }
}

/// L17-S07 (T07): allowed ways to promote: (a) pawn off, queen on d8; (b) the queen put on
/// c8 first, the rook there gone, then the pawn removed.
#[test]
fn l17_s07_allowed_promotion_sequences() {
    let mut b = Board::from_fen("6k1/3P4/8/8/8/8/8/4K3 w - - 0 1", "");
    b.lift("d7").wait(300).put("d8", 'Q').wait(600);
    let ev = b.run();
    assert_eq!(moves(&ev), ["d7d8q"]);
    assert!(alerts(&ev).is_empty(), "{:?}", alerts(&ev));

    for swap_in_one_report in [true, false] {
        let mut b = Board::from_fen("2r3k1/3P4/8/8/8/8/8/4K3 w - - 0 1", "");
        if !swap_in_one_report {
            b.lift("c8").wait(100);
        }
        b.put("c8", 'Q').wait(300).lift("d7").wait(600);
        let ev = b.run();
        assert_eq!(moves(&ev), ["d7c8q"], "{swap_in_one_report}");
        assert!(alerts(&ev).is_empty(), "{:?}", alerts(&ev));
    }
}

/// L17-S08 (T08): `1r2k3/8/b7/8/8/8/8/R3K2R w KQ`: O-O-O is legal (b1 attacked is fine),
/// O-O is not (f1 attacked); with `r3k3/…/R3K2R w KQq` O-O-O is legal with a1 attacked.
#[test]
fn l17_s08_castling_through_an_attacked_square() {
    for edition in EDITIONS {
        let setup = format!(r#""edition": "{edition}", "time_control": "5400""#);
        for fen in [
            "1r2k3/8/b7/8/8/8/8/R3K2R w KQ - 0 1",
            "r3k3/8/8/8/8/8/8/R3K2R w KQq - 0 1",
        ] {
            let mut b = Board::from_fen(fen, &setup);
            b.start_clock(5400).wait(300);
            b.mv("e1", "c1", 'K')
                .mv("a1", "d1", 'R')
                .wait(250)
                .press()
                .wait(900);
            let ev = b.run();
            assert_eq!(moves(&ev), ["e1c1"], "{fen}");
            assert!(alerts(&ev).is_empty(), "{fen}: {:?}", alerts(&ev));
        }
        let mut b = Board::from_fen("1r2k3/8/b7/8/8/8/8/R3K2R w KQ - 0 1", &setup);
        b.start_clock(5400).wait(300);
        b.mv("e1", "g1", 'K')
            .mv("h1", "f1", 'R')
            .wait(250)
            .press()
            .wait(900);
        let ev = b.run();
        assert!(moves(&ev).is_empty());
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.severity, Severity::Intervene);
        assert_eq!(article(&a), by_edition(edition, "7.4a", "7.5.1", "7.5.1"));
        assert_eq!(a.side, Some(dgt_core::Side::White));
    }
}

/// L17-S13 (T13): White plays Nf3 without pressing, Black replies Nf6, White presses, then
/// Black presses: no alert, and each move carries the clock reading of its completion.
#[test]
fn l17_s13_reply_before_the_press_is_no_offence() {
    let mut b = started();
    b.start_clock(300).wait(300);
    b.tick().wait(1000).tick().wait(200);
    b.mv("g1", "f3", 'N')
        .wait(300)
        .mv("g8", "f6", 'n')
        .wait(400);
    b.tick().press().wait(600); // White presses: 297 s left; Black's display runs
    b.tick().wait(300).press().wait(600); // Black presses: 299 s left
    let ev = b.run();
    assert_eq!(moves(&ev), ["g1f3", "g8f6"]);
    assert!(alerts(&ev).is_empty(), "{:?}", alerts(&ev));
    // The time White spent before his late press is his own (6.2.2): the clock goes on
    // as the displays show it, with no adjustment proposed.
    let last_clock = ev
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Clock(c) => Some((c.white_ms, c.black_ms)),
            _ => None,
        })
        .unwrap();
    assert_eq!(last_clock, (Some(297_000), Some(299_000)));
}

/// L17-S14 (T14): White presses with the board unchanged, and later again.
#[test]
fn l17_s14_clock_pressed_without_a_move_twice() {
    // (edition, time control, severity, article, the penalty: its article and the time the
    // first press gives Black; none where the edition knows no such offence)
    let cases = [
        (
            "fide-2017",
            "5400",
            Severity::Intervene,
            "7.8.1",
            Some(("7.8.2", 2)),
        ),
        (
            "fide-2017",
            "180+2",
            Severity::Intervene,
            "7.8.1",
            Some(("7.8.2", 1)),
        ),
        (
            "fide-2018",
            "5400",
            Severity::Intervene,
            "7.5.3",
            Some(("7.5.5", 2)),
        ),
        (
            "fide-2023",
            "5400",
            Severity::Intervene,
            "7.5.3",
            Some(("7.5.5", 2)),
        ),
        ("fide-2005", "5400", Severity::Review, "6.8a", None),
    ];
    for (edition, tc, sev, art, penalty) in cases {
        let mut b = game(edition, tc, 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        b.press().wait(900);
        b.set_running(Some(false)).wait(300); // the arbiter restarts White's clock
        b.play(&[("g1", "f3", 'N'), ("b8", "c6", 'n')]);
        b.press().wait(900);
        let ev = b.run();
        let a = alert_of(&ev, AlertKind::ClockPressedWithoutMove);
        assert_eq!(a.len(), 2, "{edition}: {:?}", alerts(&ev));
        for x in &a {
            assert_eq!(x.severity, sev, "{edition}");
            assert_eq!(article(x), art, "{edition}");
            assert_eq!(x.side, Some(dgt_core::Side::White));
        }
        let Some((penalty, minutes)) = penalty else {
            for x in &a {
                assert!(x.offence_verdict().is_none(), "{edition}: {x:?}");
                assert_eq!(
                    clock_verdict(x),
                    ClockVerdict::PressWithoutMoveNoOffence {
                        discretion: Article::new("13.4")
                    },
                    "{edition}"
                );
            }
            assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6"]);
            continue;
        };
        let (first, second) = (offence_verdict(&a[0]), offence_verdict(&a[1]));
        for (v, n) in [(first, 1), (second, 2)] {
            assert_eq!(
                (v.offender, v.number, v.article),
                (Color::White, n, Article::new(penalty)),
                "{edition} {tc}"
            );
            assert_eq!(v.remedy, Remedy::RestartClock, "{v:?}");
        }
        assert_eq!(
            first.decision,
            OffenceDecision::TimeToOpponent {
                add_ms: minutes * 60_000,
                loses_at: 2
            },
            "{edition} {tc}"
        );
        assert_eq!(second.decision, OffenceDecision::Loses, "{edition} {tc}");
        assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3", "b8c6"]);
    }
}

/// L17-S15 (T15): (a) Black's first press starts White's clock; (b) a player pauses the
/// clock to call the arbiter. No press-without-move alert in either case.
#[test]
fn l17_s15_starting_and_pausing_the_clock_are_no_offence() {
    for start_by_press in [true, false] {
        let mut b = started();
        if start_by_press {
            // The clock shows Black's display running; Black presses: White's runs.
            b.clock = Some((300, 300, Some(true)));
            b.reading();
            b.wait(500).press().wait(500);
        } else {
            b.clock = Some((300, 300, None));
            b.reading();
            b.wait(500).set_running(Some(false)).wait(500);
        }
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        b.set_running(None).wait(600);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e2e4", "e7e5"]);
        // A pause is for the arbiter to look at (R22), nobody's offence.
        let stopped = one(&ev, AlertKind::ClockStopped);
        assert_eq!(stopped.severity, Severity::Review);
        assert_eq!(stopped.side, None);
        assert_eq!(alerts(&ev), [AlertKind::ClockStopped], "{start_by_press}");
    }
}

/// A clock whose time ran out blocks at zero by itself (protocol §3.4, 0x10: the final
/// flag): nobody stopped it, so there is no `clock_stopped` (6.11.2: a player stops it to
/// call the arbiter) — the flag is the arbiter's business (`flag_fall`, 6.8). Time-scramble
/// games of `verify --alerts` raised both at the flag's reading.
#[test]
fn a_clock_blocked_at_its_final_flag_was_not_stopped_by_anyone() {
    for edition in EDITIONS {
        let mut b = Board::from_fen(
            "r3k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            &format!(r#""edition": "{edition}""#),
        );
        b.start_clock(5).wait(300);
        b.play(&[("a1", "a2", 'R'), ("a8", "a7", 'r')]);
        b.tick().wait(1000);
        b.flag(true, true).wait(3000);
        let ev = b.run();
        assert_eq!(moves(&ev), ["a1a2", "a8a7"]);
        assert_eq!(one(&ev, AlertKind::FlagFall).severity, Severity::Intervene);
        assert_eq!(alerts(&ev), [AlertKind::FlagFall], "{edition}");
    }
}

/// A position, White's clock running, White's flag falls (final flag).
fn flag_in(fen: &str, edition: &str) -> Vec<Event> {
    let mut b = Board::from_fen(fen, &format!(r#""edition": "{edition}""#));
    b.start_clock(5).wait(300).tick().wait(1000);
    b.flag(true, true).wait(300);
    b.run()
}

/// L17-S16 (T16): White (K+R) loses on time against K+N (a mate is possible); drawn
/// against a bare king.
#[test]
fn l17_s16_flag_fall_against_knight_or_bare_king() {
    for edition in EDITIONS {
        let art = by_edition(edition, "6.10", "6.9", "6.9");
        let ev = flag_in("4k3/8/8/8/8/2n5/8/R3K3 w - - 0 1", edition);
        let a = one(&ev, AlertKind::FlagFall);
        assert_eq!((a.severity, article(&a)), (Severity::Intervene, art));
        assert_eq!(a.side, Some(dgt_core::Side::White));
        assert_eq!(ends(&ev), [("0-1".to_string(), "flag_fall".to_string())]);

        let ev = flag_in("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", edition);
        let a = one(&ev, AlertKind::FlagFall);
        assert_eq!(article(&a), art);
        assert_eq!(
            flag_verdict(&a).decision,
            FlagDecision::OpponentCannotMate {
                flagged: Color::White
            },
            "{edition}"
        );
        assert_eq!(
            ends(&ev),
            [("1/2-1/2".to_string(), "flag_fall".to_string())]
        );
    }
}

const SCHOLAR: Script = &[
    ("e2", "e4", 'P'),
    ("e7", "e5", 'p'),
    ("f1", "c4", 'B'),
    ("b8", "c6", 'n'),
    ("d1", "h5", 'Q'),
    ("g8", "f6", 'n'),
];

/// L17-S17 (T17): 4.Qxf7# is released; White's display reaches 0 0.8 s later; then the
/// clock is pressed. The mate ends the game; the flag has no consequence.
#[test]
fn l17_s17_mate_before_the_flag_wins() {
    for edition in EDITIONS {
        let mut b = game(edition, "300", 300);
        b.play(SCHOLAR);
        b.lift("f7").mv("h5", "f7", 'Q').wait(800);
        b.flag(true, true).wait(300).press().wait(600);
        let ev = b.run();
        let mate = one(&ev, AlertKind::Checkmate);
        assert_eq!(mate.severity, Severity::Info);
        assert_eq!(
            article(&mate),
            by_edition(edition, "5.1a", "5.1.1", "5.1.1")
        );
        assert_eq!(ends(&ev), [("1-0".to_string(), "checkmate".to_string())]);
        assert!(
            alert_of(&ev, AlertKind::FlagFall)
                .iter()
                .all(|a| a.severity == Severity::Info),
            "{edition}: {:?}",
            alerts(&ev)
        );
    }
}

/// A 2-moves-then-60-s control: White plays `completed` moves with a press, makes
/// `unpressed` more on the board without pressing, then shows the period flag.
fn period_flag(completed: usize, unpressed: bool) -> Vec<Event> {
    let mut b = started();
    b.op(r#"{"setup": {"time_control": "2/60:60"}}"#);
    b.start_clock(60).wait(300);
    let script = [
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
    ];
    b.play(&script[..completed * 2]);
    if unpressed {
        b.mv(script[completed * 2].0, script[completed * 2].1, 'P')
            .wait(600);
    }
    b.flag(true, false).wait(300);
    b.run()
}

/// L17-S19 (T19): a two-period control without increment: (a) the flag with too few
/// completed moves; (b) the last required move made but not pressed; (c) the period
/// reached and the flag during the next.
#[test]
fn l17_s19_period_flag_counts_completed_moves() {
    for (name, ev) in [("a", period_flag(1, false)), ("b", period_flag(1, true))] {
        let a = one(&ev, AlertKind::FlagFall);
        assert_eq!(a.severity, Severity::Intervene, "{name}");
        assert_eq!(
            ends(&ev),
            [("0-1".to_string(), "flag_fall".to_string())],
            "{name}"
        );
    }
    let ev = period_flag(2, false);
    let a = one(&ev, AlertKind::FlagFall);
    assert_eq!(a.severity, Severity::Info);
    assert!(
        matches!(
            flag_verdict(&a).decision,
            FlagDecision::PeriodReached { .. }
        ),
        "{a:?}"
    );
    assert!(ends(&ev).is_empty());
}

/// L17-S21 (T21): `k7/2K5/1P6/8/4p3/4N3/3P4/8 w`: after d2–d4, exd3 e.p. is Black's only
/// legal move: no stalemate.
#[test]
fn l17_s21_en_passant_prevents_stalemate() {
    let mut b = Board::from_fen("k7/2K5/1P6/8/4p3/4N3/3P4/8 w - - 0 1", "");
    b.mv("d2", "d4", 'P').wait(600);
    b.lift("e4").put("d3", 'p').lift("d4").wait(600);
    let ev = b.run();
    assert_eq!(moves(&ev), ["d2d4", "e4d3"]);
    assert!(alerts(&ev).is_empty(), "{:?}", alerts(&ev));
    assert!(ends(&ev).is_empty());
}

/// L17-S22 (T22): `4k3/8/8/8/8/8/1p6/B3K3 w`: 1.Bxb2 leaves K+B v K: a dead position, drawn
/// at the release; a later flag changes nothing.
#[test]
fn l17_s22_capture_into_a_dead_position() {
    for edition in EDITIONS {
        let mut b = Board::from_fen(
            "4k3/8/8/8/8/8/1p6/B3K3 w - - 0 1",
            &format!(r#""edition": "{edition}""#),
        );
        b.start_clock(5).wait(300);
        b.lift("b2").mv("a1", "b2", 'B').wait(600);
        b.flag(true, true).wait(300);
        let ev = b.run();
        let a = one(&ev, AlertKind::DeadPosition);
        assert_eq!(a.severity, Severity::Info);
        assert_eq!(article(&a), by_edition(edition, "5.2b", "5.2.2", "5.2.2"));
        assert_eq!(
            ends(&ev),
            [("1/2-1/2".to_string(), "dead_position".to_string())]
        );
        assert!(!alerts(&ev).contains(&AlertKind::FlagFall));
    }
}

/// L17-S24 (T24): a player pauses the clock and the black king is knocked off the board:
/// `clock_stopped` and `illegal_position` for review, no result until the arbiter enters one.
#[test]
fn l17_s24_pause_and_a_knocked_off_king_is_no_result() {
    let mut b = started();
    b.start_clock(300).wait(300);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    b.set_running(None).wait(300);
    b.lift("e8").wait(5000);
    let ev = b.run();
    assert_eq!(one(&ev, AlertKind::ClockStopped).severity, Severity::Review);
    let p = one(&ev, AlertKind::IllegalPosition);
    assert_eq!(p.severity, Severity::Review);
    assert_eq!(p.squares, ["e8"]);
    assert!(ends(&ev).is_empty());
}

/// Claim alerts for the player on move, as (ply, side, written move).
fn played(script: &[&str]) -> Board {
    let mut b = started();
    for m in script {
        let (f, t) = (&m[..2], &m[2..4]);
        let piece = m.chars().nth(4).unwrap();
        b.mv(f, t, piece).wait(400);
    }
    b
}

/// L17-S27 (T27): 1.e4 Nf6 2.e5 d5 (e.p. possible) 3.Nf3 Nfd7 4.Ng1 Nf6 5.Nf3 Nfd7 6.Ng1
/// Nf6: the position after 2…d5 is not the one after 4…Nf6 and 6…Nf6 (9.2.2.1).
#[test]
fn l17_s27_en_passant_right_splits_the_repetition() {
    let mut dance = vec!["e2e4P", "g8f6n", "e4e5P", "d7d5p"];
    for _ in 0..2 {
        dance.extend(["g1f3N", "f6d7n", "f3g1N", "d7f6n"]);
    }
    let ev = played(&dance).run();
    let now: Vec<_> = claims(&ev, AlertKind::ThreefoldRepetitionAvailable)
        .into_iter()
        .filter(|c| c.2.is_none())
        .collect();
    assert!(now.is_empty(), "not available at ply 12: {now:?}");

    dance.extend(["g1f3N"]);
    let ev = played(&dance).run();
    let c = claims(&ev, AlertKind::ThreefoldRepetitionAvailable);
    assert_eq!(
        c.last().unwrap(),
        &(13, dgt_core::Side::Black, None),
        "{c:?}"
    );

    dance.extend(["f6d7n", "f3g1N", "d7f6n"]);
    let ev = played(&dance).run();
    let c = claims(&ev, AlertKind::ThreefoldRepetitionAvailable);
    assert_eq!(
        c.last().unwrap(),
        &(16, dgt_core::Side::White, None),
        "{c:?}"
    );
}

/// L17-S29 (T29): `8/8/4k3/8/8/3K4/8/R7 b - - 99 120`: …Ke5 completes 50 moves each; White
/// may claim (9.3.2; 2005: 9.3b); the checker agrees; the arbiter's result ends the game.
#[test]
fn l17_s29_fifty_move_claim() {
    for edition in EDITIONS {
        let mut b = Board::from_fen(
            "8/8/4k3/8/8/3K4/8/R7 b - - 99 120",
            &format!(r#""edition": "{edition}""#),
        );
        // A king put on a centre square waits for the result gesture a while.
        b.mv("e6", "e5", 'k').wait(5600);
        b.op(r#"{"claim": {"kind": "fifty"}}"#);
        b.op(r#"{"result": "1/2-1/2"}"#);
        let ev = b.run();
        let avail: Vec<_> = alert_of(&ev, AlertKind::FiftyMoveRuleAvailable);
        let claim = avail
            .iter()
            .find(|a| a.severity == dgt_core::Severity::Claim)
            .expect("a claim alert");
        assert_eq!(claim.side, Some(dgt_core::Side::White));
        assert_eq!(
            article(claim),
            by_edition(edition, "9.3b", "9.3.2", "9.3.2")
        );
        let checked = avail.iter().find(|a| a.claim_verdict().is_some()).unwrap();
        assert_eq!(
            claim_verdict(checked).decision,
            ClaimDecision::Correct,
            "{checked:?}"
        );
        assert_eq!(ends(&ev), [("1/2-1/2".to_string(), "arbiter".to_string())]);
    }
}

/// L17-S30 (T30): `… b - - 149 150`: …Ke5 is the 150th half-move: drawn at once (9.6.2) in
/// 2017+; in 2005 only a claim.
#[test]
fn l17_s30_seventy_five_moves() {
    for edition in EDITIONS {
        let mut b = Board::from_fen(
            "8/8/4k3/8/8/3K4/8/R7 b - - 149 150",
            &format!(r#""edition": "{edition}""#),
        );
        b.mv("e6", "e5", 'k').wait(600);
        let ev = b.run();
        if edition == "fide-2005" {
            assert!(!alerts(&ev).contains(&AlertKind::SeventyFiveMoveRule));
            assert!(ends(&ev).is_empty());
            assert!(!claims(&ev, AlertKind::FiftyMoveRuleAvailable).is_empty());
        } else {
            let a = one(&ev, AlertKind::SeventyFiveMoveRule);
            assert_eq!((a.severity, article(&a)), (Severity::Info, "9.6.2"));
            assert_eq!(
                ends(&ev),
                [("1/2-1/2".to_string(), "seventy_five_move_rule".to_string())]
            );
        }
    }
}

/// L17-S31 (T31): `7k/8/6K1/8/8/8/8/R7 w - - 149 150`: 1.Ra8# on the 150th half-move: the
/// mate takes precedence (9.6.2).
#[test]
fn l17_s31_mate_beats_the_seventy_five_move_rule() {
    for edition in EDITIONS {
        let mut b = Board::from_fen(
            "7k/8/6K1/8/8/8/8/R7 w - - 149 150",
            &format!(r#""edition": "{edition}""#),
        );
        b.mv("a1", "a8", 'R').wait(600);
        let ev = b.run();
        assert_eq!(one(&ev, AlertKind::Checkmate).severity, Severity::Info);
        assert!(!alerts(&ev).contains(&AlertKind::SeventyFiveMoveRule));
        assert_eq!(ends(&ev), [("1-0".to_string(), "checkmate".to_string())]);
    }
}

/// L17-S32 (T32): the knight dance to 8…Ng8 (the start position a fifth time, every four
/// plies), and a fivefold that is not consecutive (the start at plies 0, 4, 8, 16, 20), by
/// edition and with the `fivefold` reading set.
#[test]
fn l17_s32_fivefold_consecutive_or_not() {
    let a = ["g1f3N", "g8f6n", "f3g1N", "f6g8n"];
    let b = ["b1c3N", "b8c6n", "c3b1N", "c6b8n"];
    let detour = [
        "g1f3N", "b8c6n", "b1c3N", "g8f6n", "f3g1N", "c6b8n", "c3b1N", "f6g8n",
    ];
    let consecutive: Vec<&str> = a.iter().cycle().take(16).copied().collect();
    let scattered: Vec<&str> = [&a[..], &b, &detour, &a].concat();
    for edition in EDITIONS {
        for (name, script, five) in [
            ("consecutive", &consecutive, edition != "fide-2005"),
            (
                "scattered",
                &scattered,
                edition == "fide-2018" || edition == "fide-2023",
            ),
        ] {
            let mut c = started();
            c.op(&format!(r#"{{"setup": {{"edition": "{edition}"}}}}"#));
            for m in script.iter() {
                c.mv(&m[..2], &m[2..4], m.chars().nth(4).unwrap()).wait(400);
            }
            let ev = c.run();
            let plies = script.len();
            assert_eq!(moves(&ev).len(), plies, "{edition} {name}");
            if five {
                let f = one(&ev, AlertKind::FivefoldRepetition);
                assert_eq!((f.severity, article(&f)), (Severity::Info, "9.6.1"));
                assert_eq!(f.ply, Some(plies as u32), "{edition} {name}");
                assert_eq!(
                    ends(&ev),
                    [("1/2-1/2".to_string(), "fivefold_repetition".to_string())]
                );
            } else {
                assert!(
                    !alerts(&ev).contains(&AlertKind::FivefoldRepetition),
                    "{edition} {name}"
                );
                assert!(ends(&ev).is_empty(), "{edition} {name}");
                let c = claims(&ev, AlertKind::ThreefoldRepetitionAvailable);
                assert!(
                    c.iter().any(|c| c.0 == plies as u32 && c.2.is_none()),
                    "{edition} {name}: {c:?}"
                );
            }
        }
    }
    // The reading is a setting: `any_five` makes 2017 draw the scattered fivefold,
    // `consecutive` keeps 2023 from it; 2005 has no fivefold rule either way.
    use dgt_core::config::FivefoldReading::{AnyFive, Consecutive};
    for (edition, reading, five) in [
        ("fide-2017", AnyFive, true),
        ("fide-2023", Consecutive, false),
        ("fide-2005", AnyFive, false),
    ] {
        let mut c = started();
        c.op(&format!(r#"{{"setup": {{"edition": "{edition}"}}}}"#));
        for m in scattered.iter() {
            c.mv(&m[..2], &m[2..4], m.chars().nth(4).unwrap()).wait(400);
        }
        let ev = c.run_with(dgt_core::CoreConfig {
            fivefold: Some(reading),
            ..Default::default()
        });
        assert_eq!(
            alerts(&ev).contains(&AlertKind::FivefoldRepetition),
            five,
            "{edition} {reading:?}"
        );
        assert_eq!(ends(&ev).len(), usize::from(five), "{edition} {reading:?}");
    }
}

/// L17-S44 (T44): blitz under full supervision, a first illegal move: restore and one
/// minute to the opponent (B2 / B.2); 2023 literally two, as printed.
#[test]
fn l17_s44_blitz_full_supervision_first_illegal_move() {
    for (edition, minutes) in [("fide-2017", 1), ("fide-2018", 1), ("fide-2023", 2)] {
        let mut b = game(edition, "180+2", 180);
        b.op(r#"{"setup": {"supervision": "full"}}"#);
        b.play(&[("e2", "e4", 'P')]);
        b.mv("b8", "b5", 'n').wait(250).press().wait(900);
        let ev = b.run();
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.severity, Severity::Intervene);
        let v = offence_verdict(&a);
        assert!(matches!(v.remedy, Remedy::Restore { .. }), "{v:?}");
        assert_eq!(v.opponent(), Color::White);
        assert_eq!(
            v.decision,
            OffenceDecision::TimeToOpponent {
                add_ms: minutes * 60_000,
                loses_at: 2
            },
            "{edition}"
        );
    }
}

/// A Chess960 game from a start rank (White's pieces, a1 first).
fn chess960(rank: &str) -> Board {
    let black = rank.to_lowercase();
    let mut b = Board::new();
    b.dump(&format!("{black}pppppppp{}PPPPPPPP{rank}", ".".repeat(32)));
    b.wait(500);
    b
}

/// L17-S49 (T49): Chess960 `RKBNRBQN`: c-side castling, the king moves one square (b1–c1)
/// and the rook passes it (a1–d1).
#[test]
fn l17_s49_chess960_c_side_castling() {
    let mut b = chess960("RKBNRBQN");
    for (f, t, p) in [
        ("d2", "d3", 'P'),
        ("d7", "d6", 'p'),
        ("c1", "d2", 'B'),
        ("c8", "d7", 'b'),
        ("d1", "c3", 'N'),
        ("d8", "c6", 'n'),
    ] {
        b.mv(f, t, p).wait(400);
    }
    b.lift("b1")
        .lift("a1")
        .put("c1", 'K')
        .put("d1", 'R')
        .wait(600);
    let ev = b.run();
    let m = moves(&ev);
    assert_eq!(m.len(), 7, "{m:?}");
    let san = ev
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Move(m) => Some(m.san.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(san, "O-O-O");
    assert!(!alerts(&ev).contains(&AlertKind::IllegalMove));
    assert!(!alerts(&ev).contains(&AlertKind::IllegalPosition));
}

/// L17-S50 (T50): Chess960 `RNBQNBKR`, f1 cleared: g-side castling by the rook alone
/// (h1–f1, the king stays on g1).
#[test]
fn l17_s50_chess960_castling_by_the_rook_alone() {
    let mut b = chess960("RNBQNBKR");
    for (f, t, p) in [
        ("g2", "g3", 'P'),
        ("g7", "g6", 'p'),
        ("f1", "g2", 'B'),
        ("f8", "g7", 'b'),
    ] {
        b.mv(f, t, p).wait(400);
    }
    b.mv("h1", "f1", 'R').wait(600);
    let ev = b.run();
    let san = ev
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Move(m) => Some(m.san.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(moves(&ev).len(), 5);
    assert_eq!(san, "O-O");
    assert!(alerts(&ev).is_empty(), "{:?}", alerts(&ev));
}

/// A standard setup op for an edition, a time control and a supervision.
fn setup(b: &mut Board, edition: &str, tc: &str, supervision: &str) {
    b.op(&format!(
        r#"{{"setup": {{"edition": "{edition}", "time_control": "{tc}", "supervision": "{supervision}"}}}}"#
    ));
}

/// L17-S09 (T09): the h1 rook is lifted before the king; the final position is O-O. The
/// move stands; `castling_rook_first` for review (2005 rapid and blitz: only on a claim, B5).
#[test]
fn l17_s09_castling_begun_with_the_rook() {
    for edition in EDITIONS {
        for tc in ["5400", "900+10"] {
            let mut b = started();
            setup(&mut b, edition, tc, "full");
            b.play(&[
                ("e2", "e4", 'P'),
                ("e7", "e5", 'p'),
                ("g1", "f3", 'N'),
                ("b8", "c6", 'n'),
                ("f1", "c4", 'B'),
                ("g8", "f6", 'n'),
            ]);
            b.lift("h1")
                .wait(300)
                .lift("e1")
                .put("g1", 'K')
                .put("f1", 'R')
                .wait(600);
            let ev = b.run();
            assert_eq!(moves(&ev).last().unwrap(), "e1g1");
            let a = one(&ev, AlertKind::CastlingRookFirst);
            assert_eq!(article(&a), by_edition(edition, "4.4b", "4.4.2", "4.4.2"));
            let sev = if edition == "fide-2005" && tc != "5400" {
                Severity::Claim
            } else {
                Severity::Review
            };
            assert_eq!(a.severity, sev, "{edition} {tc}");
            assert_eq!(a.side, Some(dgt_core::Side::White));
        }
    }
}

/// L17-S11 (T11): White lifts Ng1 and puts it back, then plays e2–e4: touch-move evidence
/// at `info` — an announced adjustment excuses it and the board cannot hear one; 2005
/// rapid and blitz: only on a claim, B5.
#[test]
fn l17_s11_piece_lifted_and_put_back_then_another_moved() {
    for edition in EDITIONS {
        for tc in ["5400", "180+2"] {
            let mut b = started();
            setup(&mut b, edition, tc, "full");
            b.lift("g1").wait(900).put("g1", 'N').wait(300);
            b.mv("e2", "e4", 'P').wait(600);
            let ev = b.run();
            assert_eq!(moves(&ev), ["e2e4"]);
            let a = one(&ev, AlertKind::TouchMove);
            assert_eq!(article(&a), by_edition(edition, "4.3a", "4.3.1", "4.3.1"));
            let sev = if edition == "fide-2005" && tc != "5400" {
                Severity::Claim
            } else {
                Severity::Info
            };
            assert_eq!(a.severity, sev, "{edition} {tc}");
            match *hands_verdict(&a) {
                HandsVerdict::PieceTouchedAnotherMoved {
                    mover,
                    square,
                    off_ms,
                } => {
                    assert_eq!((mover, square), (Color::White, Square::G1));
                    // Off for 900 ms; the board reports the return with its next scan.
                    assert!((900..1200).contains(&off_ms), "{off_ms}");
                }
                ref v => panic!("{edition} {tc}: a touch of the knight, not {v:?}"),
            }
        }
    }
}

/// L17-S12 (T12): on White's time the black bishop on c8 is lifted and put back, then White
/// plays 1.e4. The board cannot tell whose hand: an info hint naming both readings — White
/// touched it (4.3.2: capture it if possible) or Black handled it off move (4.2.1).
#[test]
fn l17_s12_opponent_piece_handled_on_the_movers_time() {
    for edition in EDITIONS {
        let mut b = started();
        setup(&mut b, edition, "5400", "full");
        b.lift("c8").wait(900).put("c8", 'b').wait(300);
        b.mv("e2", "e4", 'P').wait(600);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e2e4"]);
        let a = one(&ev, AlertKind::TouchMove);
        assert_eq!(a.severity, Severity::Info);
        assert_eq!(
            article(&a),
            by_edition(edition, "4.3b / 4.2", "4.3.2 / 4.2.1", "4.3.2 / 4.2.1")
        );
        assert_eq!(a.squares, ["c8"]);
        assert!(
            matches!(
                hands_verdict(&a),
                HandsVerdict::OpponentPieceLifted {
                    mover: Color::White,
                    role: Some(shakmaty::Role::Bishop),
                    square: Square::C8,
                    ..
                }
            ),
            "{a:?}"
        );
    }
}

/// The answer to a claim op: the checker's alert.
/// L17-S25 (T25): 1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8: Black may claim with 4…Ng8
/// written (9.2.1.1), White after it (9.2.1.2; 2023 9.2.1 / 9.2.2; 2005 9.2a / 9.2b); the
/// checker agrees and the arbiter's result ends the game.
#[test]
fn l17_s25_threefold_claim_after_the_knight_dance() {
    for edition in EDITIONS {
        let mut b = started();
        b.op(&format!(r#"{{"setup": {{"edition": "{edition}"}}}}"#));
        for m in ["g1f3N", "g8f6n", "f3g1N", "f6g8n"].repeat(2) {
            b.mv(&m[..2], &m[2..4], m.chars().nth(4).unwrap()).wait(400);
        }
        b.op(r#"{"claim": {"kind": "threefold"}}"#);
        b.op(r#"{"result": "1/2-1/2"}"#);
        let ev = b.run();
        let c: Vec<_> = alert_of(&ev, AlertKind::ThreefoldRepetitionAvailable)
            .into_iter()
            .filter(|a| a.severity == dgt_core::Severity::Claim)
            .collect();
        let with = c.iter().find(|a| a.ply == Some(7)).expect("ply 7");
        assert_eq!(with.side, Some(dgt_core::Side::Black));
        assert_eq!(with.uci.as_deref(), Some("Ng8"));
        let (art_with, art_now) = match edition {
            "fide-2005" => ("9.2a", "9.2b"),
            "fide-2023" => ("9.2.1", "9.2.2"),
            _ => ("9.2.1.1", "9.2.1.2"),
        };
        assert_eq!(article(with), art_with);
        let now = c.iter().find(|a| a.ply == Some(8)).expect("ply 8");
        assert_eq!(now.side, Some(dgt_core::Side::White));
        assert_eq!(now.uci, None);
        let art = art_now;
        assert_eq!(article(now), art);
        let v = verdict(&ev);
        assert_eq!(article(&v), art);
        assert_eq!(claim_verdict(&v).article, art);
        assert_eq!(claim_verdict(&v).decision, ClaimDecision::Correct, "{v:?}");
        assert_eq!(ends(&ev), [("1/2-1/2".to_string(), "arbiter".to_string())]);

        // The variant: White lifts the knight on g1 and puts it back, then claims. 2017+:
        // the right to claim is lost by touching (9.4); 2005 loses it only by moving.
        let mut b = started();
        b.op(&format!(r#"{{"setup": {{"edition": "{edition}"}}}}"#));
        for m in ["g1f3N", "g8f6n", "f3g1N", "f6g8n"].repeat(2) {
            b.mv(&m[..2], &m[2..4], m.chars().nth(4).unwrap()).wait(400);
        }
        b.lift("g1").wait(700).put("g1", 'N').wait(400);
        b.op(r#"{"claim": {"kind": "threefold"}}"#);
        let v = verdict(&b.run());
        let decision = claim_verdict(&v).decision;
        if edition == "fide-2005" {
            assert_eq!(decision, ClaimDecision::Correct, "{v:?}");
        } else {
            assert_eq!(
                decision,
                ClaimDecision::LostByTouch {
                    square: Square::G1,
                    article: Article::new("9.4")
                },
                "{v:?}"
            );
        }
    }
}

/// L17-S26 (T26): 1.Nf3 Nf6 2.Rg1 Rg8 3.Rh1 Rh8 4.Ng1 Ng8 5.Nf3 Nf6 6.Ng1 Ng8: the start
/// placement, but the castling rights differ from ply 0: White's claim is incorrect.
#[test]
fn l17_s26_castling_rights_split_the_repetition_and_the_wrong_claim_costs_time() {
    let script: Script = &[
        ("g1", "f3", 'N'),
        ("g8", "f6", 'n'),
        ("h1", "g1", 'R'),
        ("h8", "g8", 'r'),
        ("g1", "h1", 'R'),
        ("g8", "h8", 'r'),
        ("f3", "g1", 'N'),
        ("f6", "g8", 'n'),
        ("g1", "f3", 'N'),
        ("g8", "f6", 'n'),
        ("f3", "g1", 'N'),
        ("f6", "g8", 'n'),
    ];
    let two_minutes = WrongClaimPenalty {
        add_ms: 120_000,
        article: Article::new("9.5.3"),
        own_time: None,
    };
    for (edition, penalty) in [
        (
            "fide-2005",
            WrongClaimPenalty {
                add_ms: 180_000,
                article: Article::new("9.5b"),
                own_time: Some(OwnTimeCut::Halved {
                    from_ms: 900_000,
                    to_ms: 720_000,
                }),
            },
        ),
        ("fide-2017", two_minutes),
        ("fide-2018", two_minutes),
        ("fide-2023", two_minutes),
    ] {
        let mut b = game(edition, "5400", 900);
        b.play(script);
        b.op(r#"{"claim": {"kind": "threefold"}}"#);
        let ev = b.run();
        assert_eq!(moves(&ev).len(), 12);
        let now = claims(&ev, AlertKind::ThreefoldRepetitionAvailable);
        assert!(
            !now.iter().any(|c| c.0 == 12 && c.2.is_none()),
            "{edition}: {now:?}"
        );
        let v = verdict(&ev);
        assert_eq!(
            claim_verdict(&v).decision,
            ClaimDecision::Incorrect(penalty),
            "{edition}"
        );
        // The heading says what happened, not the alert's kind.
        assert_eq!(v.title.as_deref(), Some("Repetition claim: incorrect"));

        // After 7.Nf3 Nf6 the position of plies 6 and 10 (rights gone) stands a third time.
        let mut b = game(edition, "5400", 900);
        b.play(script);
        b.play(&[("g1", "f3", 'N'), ("g8", "f6", 'n')]);
        let c = claims(&b.run(), AlertKind::ThreefoldRepetitionAvailable);
        assert!(
            c.contains(&(14, dgt_core::Side::White, None)),
            "{edition}: {c:?}"
        );
    }
}

/// L17-S28 (T28): a claim with a written move: (a) the third occurrence; (b) not; (c) the
/// move already played, so the claimant is no longer on move.
#[test]
fn l17_s28_claims_with_a_written_move() {
    let dance = [
        "g1f3N", "g8f6n", "f3g1N", "f6g8n", "g1f3N", "g8f6n", "f3g1N",
    ];
    let mut b = started();
    for m in dance {
        b.mv(&m[..2], &m[2..4], m.chars().nth(4).unwrap()).wait(400);
    }
    b.op(r#"{"claim": {"kind": "threefold", "side": "black", "move": "f6g8"}}"#);
    let v = verdict(&b.run());
    let claim = claim_verdict(&v);
    assert_eq!(claim.decision, ClaimDecision::Correct, "{v:?}");
    assert!(claim.written_move);
    assert_eq!(claim.article, "9.2.1");
    assert_eq!(article(&v), "9.2.1");

    b.op(r#"{"claim": {"kind": "threefold", "side": "black", "move": "e7e5"}}"#);
    let claim = claim_verdict(&verdict(&b.run()));
    assert_eq!(
        claim.decision,
        ClaimDecision::Incorrect(WrongClaimPenalty {
            add_ms: 120_000,
            article: Article::new("9.5.3"),
            own_time: None,
        })
    );
    assert!(claim.written_move, "the written move must be played");

    b.mv("f6", "g8", 'n').wait(400);
    b.op(r#"{"claim": {"kind": "threefold", "side": "black", "move": "f6g8"}}"#);
    let v = verdict(&b.run());
    assert_eq!(
        claim_verdict(&v).decision,
        ClaimDecision::NotOnMove {
            on_move: Color::White
        },
        "{v:?}"
    );
}

/// L17-S33 (T33): an incorrect claim costs the claimant time by category and edition:
/// blitz +1 (2017 B2, 2018 B.2), 2023 blitz full +2 (as printed) and reduced +1, 2023 rapid +1,
/// standard +2; 2005 +3 and a cut in the claimant's own time (9.5b).
#[test]
fn l17_s33_incorrect_claim_penalty_by_category() {
    let minutes = |n: u64| WrongClaimPenalty {
        add_ms: n * 60_000,
        article: Article::new("9.5.3"),
        own_time: None,
    };
    let cases = [
        ("fide-2017", "180+2", "full", minutes(1)),
        ("fide-2018", "180+2", "full", minutes(1)),
        ("fide-2023", "180+2", "full", minutes(2)),
        ("fide-2023", "180+2", "reduced", minutes(1)),
        ("fide-2023", "900+10", "full", minutes(1)),
        ("fide-2017", "900+10", "full", minutes(2)),
        ("fide-2023", "5400", "full", minutes(2)),
        (
            "fide-2005",
            "180+2",
            "full",
            WrongClaimPenalty {
                add_ms: 180_000,
                article: Article::new("9.5b"),
                own_time: Some(OwnTimeCut::Halved {
                    from_ms: 180_000,
                    to_ms: 90_000,
                }),
            },
        ),
    ];
    for (edition, tc, supervision, penalty) in cases {
        let mut b = started();
        setup(&mut b, edition, tc, supervision);
        b.start_clock(180).wait(300);
        b.play(&[("g1", "f3", 'N'), ("g8", "f6", 'n'), ("f3", "g1", 'N')]);
        b.op(r#"{"claim": {"kind": "threefold"}}"#);
        let v = verdict(&b.run());
        assert_eq!(v.side, Some(dgt_core::Side::Black));
        assert_eq!(
            claim_verdict(&v).decision,
            ClaimDecision::Incorrect(penalty),
            "{edition} {tc} {supervision}"
        );
    }
}

/// 1.e4 Nc6 2.Nf3 d6 3.Bb5, then the pinned knight jumps 3…Nd4, exposing Ke8 (as T34).
fn pinned_knight_jumps(edition: &str, tc: &str, supervision: &str) -> Board {
    illegal_after_bb5(edition, tc, supervision, ("c6", "d4"))
}

/// 1.e4 Nc6 2.Nf3 d6 3.Bb5 and an illegal Black knight move, completed by the press.
fn illegal_after_bb5(edition: &str, tc: &str, supervision: &str, m: (&str, &str)) -> Board {
    let mut b = started();
    setup(&mut b, edition, tc, supervision);
    b.start_clock(900).wait(300);
    b.play(&[
        ("e2", "e4", 'P'),
        ("b8", "c6", 'n'),
        ("g1", "f3", 'N'),
        ("d7", "d6", 'p'),
        ("f1", "b5", 'B'),
    ]);
    b.mv(m.0, m.1, 'n').wait(250).press().wait(900);
    b
}

/// L17-S34 (T34): rapid, reduced supervision: the pinned knight exposes Ke8 and the clock
/// is pressed; White's move not yet made, so the window is open.
#[test]
fn l17_s34_rapid_reduced_illegal_move_inside_the_window() {
    // (edition, severity, the verdict: its kind, window, and the offence's penalty article
    // and time to White where it carries one)
    let cases = [
        (
            "fide-2017",
            Severity::Intervene,
            ("seen_in_time_loses", "A4.2", None),
        ),
        (
            "fide-2018",
            Severity::Intervene,
            ("within_window", "A.4.2", Some(("7.5.5", 120_000))),
        ),
        (
            "fide-2023",
            Severity::Intervene,
            ("within_window", "A.5.2", Some(("7.5.5", 60_000))),
        ),
        (
            "fide-2005",
            Severity::Claim,
            ("on_claim", "B6", Some(("7.4b", 120_000))),
        ),
    ];
    for (edition, sev, verdict) in cases {
        let ev = pinned_knight_jumps(edition, "900+10", "reduced").run();
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.severity, sev, "{edition}");
        let v = illegal_move_verdict(&a);
        assert_eq!(v.offender(), Color::Black, "{edition}");
        assert_eq!(window_verdict(v), verdict, "{edition}: {v:?}");
    }
    // The same under full supervision: restore and time (7.5.1, 7.5.3 / 7.5.5).
    let ev = pinned_knight_jumps("fide-2017", "900+10", "full").run();
    let a = one(&ev, AlertKind::IllegalMove);
    let v = offence_verdict(&a);
    assert!(matches!(v.remedy, Remedy::Restore { .. }), "{v:?}");
    assert_eq!(
        (v.opponent(), time_to_opponent(v), v.article),
        (Color::White, Some(120_000), Article::new("7.5.3"))
    );
}

/// A reduced-supervision verdict in short: its kind, its window, and the offence's penalty
/// article and time to the opponent where it carries one.
fn window_verdict(
    v: &IllegalMoveVerdict,
) -> (&'static str, &'static str, Option<(&'static str, u64)>) {
    let offence = |o: &dgt_core::verdict::OffenceVerdict| {
        Some((o.article.as_str(), time_to_opponent(o).unwrap_or(0)))
    };
    match v {
        IllegalMoveVerdict::SeenInTimeLoses { window, .. } => {
            ("seen_in_time_loses", window.as_str(), None)
        }
        IllegalMoveVerdict::OnClaimWinsOrDrawn { window, .. } => {
            ("on_claim_wins_or_drawn", window.as_str(), None)
        }
        IllegalMoveVerdict::WithinWindow { window, offence: o } => {
            ("within_window", window.as_str(), offence(o))
        }
        IllegalMoveVerdict::OnClaim { window, offence: o } => {
            ("on_claim", window.as_str(), offence(o))
        }
        IllegalMoveVerdict::ArbiterIntervenes { window, offence: o } => {
            ("arbiter_intervenes", window.as_str(), offence(o))
        }
        IllegalMoveVerdict::BughouseOnDemand { .. } => ("bughouse_on_demand", "", None),
    }
}

/// L17-S36 (T36): rapid, reduced: an illegal move nobody claims; White replies h3: the
/// illegal move stands (info, citing the window article) and tracking goes on — after a
/// knight jump (g8–g5), and after T34's pinned knight, where Black, left in check, must now
/// answer it: 6…c6 blocks, 6…a6 would leave the king in check (a new illegal move).
#[test]
fn l17_s36_unclaimed_illegal_move_stands_after_the_reply() {
    for (edition, window) in [
        ("fide-2005", "B6"),
        ("fide-2017", "A4.2"),
        ("fide-2018", "A.4.2"),
        ("fide-2023", "A.5.2"),
    ] {
        let mut b = illegal_after_bb5(edition, "900+10", "reduced", ("g8", "g5"));
        b.play(&[("h2", "h3", 'P'), ("c8", "d7", 'b')]);
        let ev = b.run();
        assert_eq!(
            &moves(&ev)[4..],
            ["f1b5", "g8g5", "h2h3", "c8d7"],
            "{edition}"
        );
        let stands = alert_of(&ev, AlertKind::IllegalMove)
            .into_iter()
            .find(stands)
            .expect("the illegal move stands");
        assert_eq!(stands.severity, Severity::Info);
        assert_eq!(article(&stands), window);
        assert!(ends(&ev).is_empty());

        let mut b = pinned_knight_t34(edition, "900+10", "reduced");
        b.play(&[("h2", "h3", 'P'), ("c7", "c6", 'p'), ("g2", "g3", 'P')]);
        let ev = b.run();
        assert_eq!(
            &moves(&ev)[9..],
            ["c6d4", "h2h3", "c7c6", "g2g3"],
            "{edition}"
        );
        assert_eq!(alert_of(&ev, AlertKind::IllegalMove).len(), 2, "{edition}");

        let mut b = pinned_knight_t34(edition, "900+10", "reduced");
        b.play(&[("h2", "h3", 'P')]);
        b.mv("a7", "a6", 'p').wait(250).press().wait(900);
        let ev = b.run();
        assert_eq!(&moves(&ev)[9..], ["c6d4", "h2h3"], "{edition}");
        let illegal = alert_of(&ev, AlertKind::IllegalMove);
        assert_eq!(illegal.len(), 3, "{edition}: {illegal:?}");
        assert!(
            matches!(
                adopted(&illegal[1]),
                AdoptedIllegalMove::Stands {
                    offender: Color::Black,
                    ..
                }
            ),
            "{edition}"
        );
        assert_eq!(illegal[2].side, Some(dgt_core::Side::Black), "{edition}");
        let change = illegal_change(&illegal[2]);
        assert_eq!(
            (change.offender, change.number),
            (Color::Black, 2),
            "{edition}"
        );
    }
}

/// L17-S45 (T45): blitz, reduced supervision: an illegal move inside the window. 2017 loss
/// (B4 → A4.2); 2018 +1 (A.4.2); 2023 +1 (A.5.2, A.3); 2005 a claim that wins (C3).
#[test]
fn l17_s45_blitz_reduced_illegal_move_inside_the_window() {
    let cases = [
        (
            "fide-2017",
            Severity::Intervene,
            ("seen_in_time_loses", "A4.2", None),
        ),
        (
            "fide-2018",
            Severity::Intervene,
            ("within_window", "A.4.2", Some(("7.5.5", 60_000))),
        ),
        (
            "fide-2023",
            Severity::Intervene,
            ("within_window", "A.5.2", Some(("7.5.5", 60_000))),
        ),
        (
            "fide-2005",
            Severity::Claim,
            ("on_claim_wins_or_drawn", "C3", None),
        ),
    ];
    for (edition, sev, verdict) in cases {
        let ev = pinned_knight_jumps(edition, "180+2", "reduced").run();
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.severity, sev, "{edition}");
        let v = illegal_move_verdict(&a);
        assert_eq!(window_verdict(v), verdict, "{edition}: {v:?}");
    }
}

/// T34/T35's game: 1.e4 e5 2.Nc3 d6 3.Bb5+ Nc6 4.Nd5 Ne7 5.Qf3, then 5…Nc6–d4, illegal (the
/// pinned knight exposes Ke8), completed by the press: White is on move with Black's king in
/// check.
fn pinned_knight_t34(edition: &str, tc: &str, supervision: &str) -> Board {
    let mut b = started();
    setup(&mut b, edition, tc, supervision);
    b.start_clock(900).wait(300);
    b.play(&[
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("b1", "c3", 'N'),
        ("d7", "d6", 'p'),
        ("f1", "b5", 'B'),
        ("b8", "c6", 'n'),
        ("c3", "d5", 'N'),
        ("g8", "e7", 'n'),
        ("d1", "f3", 'Q'),
    ]);
    b.mv("c6", "d4", 'n').wait(250).press().wait(900);
    b
}

/// L17-S35 (T35): rapid, reduced supervision: nobody claims the illegal 5…Nd4 and White
/// mates with 6.Nf6 (double check) from the position where the side not to move is in
/// check. The illegal move stands once Nf6 is made (the window closed), the mate ends the
/// game 1-0 at the move made, every edition.
#[test]
fn l17_s35_illegal_move_stands_and_mate_follows() {
    for (edition, window) in [
        ("fide-2005", "B6"),
        ("fide-2017", "A4.2"),
        ("fide-2018", "A.4.2"),
        ("fide-2023", "A.5.2"),
    ] {
        for (mate, piece) in [("f6", 'N'), ("c7", 'N')] {
            let mut b = pinned_knight_t34(edition, "900+10", "reduced");
            if mate == "c7" {
                b.lift("c7").wait(200);
            }
            b.play(&[("d5", mate, piece)]);
            let ev = b.run();
            assert_eq!(
                &moves(&ev)[8..],
                ["d1f3", "c6d4", &format!("d5{mate}")],
                "{edition} {mate}"
            );
            let stands = alert_of(&ev, AlertKind::IllegalMove)
                .into_iter()
                .find(stands)
                .expect("the illegal move stands");
            assert_eq!(stands.severity, Severity::Info, "{edition}");
            assert_eq!(article(&stands), window, "{edition}");
            assert_eq!(
                ends(&ev),
                [("1-0".to_string(), "checkmate".to_string())],
                "{edition} {mate}"
            );
            let m = one(&ev, AlertKind::Checkmate);
            assert_eq!(m.severity, Severity::Info, "{edition}");
        }
    }
}

/// After the illegal 5…Nd4 stood, White takes the king with the bishop (Bb5xe8): capturing
/// the king is itself an illegal move (1.4.1; 2017 fn 104), never a legal move or a result.
#[test]
fn king_capture_is_an_illegal_move() {
    let mut b = pinned_knight_t34("fide-2023", "900+10", "reduced");
    b.lift("e8")
        .wait(200)
        .mv("b5", "e8", 'B')
        .wait(250)
        .press()
        .wait(900);
    let ev = b.run();
    assert_eq!(&moves(&ev)[8..], ["d1f3", "c6d4"]);
    let illegal = alert_of(&ev, AlertKind::IllegalMove);
    assert_eq!(illegal.len(), 3, "{illegal:?}");
    // Both facts (L17 §1.4.1): Black's move that left the king en prise, answered by an
    // illegal move and so neither claimed nor standing; White's capture, an offence of White's.
    assert_eq!(illegal[1].side, Some(dgt_core::Side::Black));
    assert_eq!(
        adopted(&illegal[1]),
        &AdoptedIllegalMove::AnsweredIllegally {
            offender: Color::Black,
            notation: "Nc6-d4".into(),
            window: Article::new("A.5.2"),
            reinstate: Article::new("7.5.1"),
        }
    );
    assert_eq!(illegal[1].severity, Severity::Intervene);
    assert_eq!(illegal[2].side, Some(dgt_core::Side::White));
    assert_eq!(
        illegal_change(&illegal[2]),
        &IllegalChange {
            offender: Color::White,
            change: WhatChanged::Move {
                squares: vec![Square::B5, Square::E8],
                both_kings_in_check: false,
                king_captured: Some(Article::new("1.4.1")),
            },
            number: 1,
        }
    );
    assert!(ends(&ev).is_empty(), "{:?}", ends(&ev));
}

/// L17-S38 (T38): rapid, reduced supervision: the pawn is left on e8 and the clock pressed
/// (`promotion_incomplete` in the window); Black moves on, so it stands and the illegal
/// position is watched (review); still on e8 after White's next completed move → the arbiter
/// declares the game drawn (2017 A4.4, 2018 A.4.4, 2023 A.5.4). 2005 has no such clause.
#[test]
fn l17_s38_pawn_left_on_the_last_rank_then_drawn() {
    for (edition, draw) in [
        ("fide-2005", None),
        ("fide-2017", Some("A4.4")),
        ("fide-2018", Some("A.4.4")),
        ("fide-2023", Some("A.5.4")),
    ] {
        let mut b = game_from(
            "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1",
            edition,
            "900+10",
            "reduced",
            900,
        );
        b.mv("e7", "e8", 'P').wait(250).press().wait(900);
        b.play(&[("g7", "g6", 'k'), ("e1", "d2", 'K'), ("g6", "g5", 'k')]);
        let ev = b.run();
        assert_eq!(
            moves(&ev),
            ["e7e8", "g7g6", "e1d2", "g6g5"],
            "{edition}: tracked on with the pawn on e8"
        );
        let promo = one(&ev, AlertKind::PromotionIncomplete);
        assert_eq!(promo.ply, Some(1));
        let watched = alert_of(&ev, AlertKind::IllegalPosition);
        match draw {
            None => assert!(watched.is_empty(), "{edition}: {watched:?}"),
            Some(article_) => {
                assert_eq!(watched.len(), 2, "{edition}: {watched:?}");
                assert_eq!(watched[0].severity, Severity::Review);
                assert_eq!(watched[0].ply, Some(2));
                let article_ = Article::new(article_);
                let what = IllegalPlacement::PawnOnLastRank(Square::E8);
                assert_eq!(
                    standing(&watched[0]),
                    StandingIllegalPosition::Seen {
                        ply: 2,
                        what,
                        article: article_
                    }
                );
                assert_eq!(watched[1].severity, Severity::Intervene);
                assert_eq!(watched[1].ply, Some(3));
                assert_eq!(article(&watched[1]), article_.as_str());
                assert_eq!(
                    standing(&watched[1]),
                    StandingIllegalPosition::StillThere {
                        seen: 2,
                        what,
                        article: article_
                    },
                    "the arbiter declares the draw"
                );
            }
        }
        // The arbiter declares the draw: no automatic result.
        assert!(ends(&ev).is_empty(), "{edition}");
    }
    // Replaced by a queen before White's next move: no draw.
    let mut b = game_from(
        "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1",
        "fide-2023",
        "900+10",
        "reduced",
        900,
    );
    b.mv("e7", "e8", 'P').wait(250).press().wait(900);
    b.play(&[("g7", "g6", 'k')]);
    b.lift("e8").wait(200).put("e8", 'Q').wait(900);
    let ev = b.run();
    let watched = alert_of(&ev, AlertKind::IllegalPosition);
    assert!(
        watched.iter().all(|a| a.severity != Severity::Intervene),
        "{watched:?}"
    );
}

/// L17-S39 (T39): rapid, reduced: `4k3/3b4/8/1B6/2K5/8/8/8 b` (a white
/// pawn added on a2, else Kd3 would leave a dead position), …Bd7–e6+ leaves both kings in
/// check and nobody claims. White's reply resolves his own check: the position is legal, no
/// draw, and tracking goes on with Black in check.
#[test]
fn l17_s39_both_kings_in_check_resolved_by_the_reply() {
    for edition in EDITIONS {
        let mut b = game_from(
            "4k3/3b4/8/1B6/2K5/8/P7/8 b - - 0 1",
            edition,
            "900+10",
            "reduced",
            900,
        );
        b.mv("d7", "e6", 'b').wait(250).press().wait(900);
        b.play(&[("c4", "d3", 'K'), ("e8", "f7", 'k')]);
        let ev = b.run();
        assert_eq!(moves(&ev), ["d7e6", "c4d3", "e8f7"], "{edition}");
        let a = alert_of(&ev, AlertKind::IllegalMove);
        assert!(
            matches!(
                illegal_change(&a[0]).change,
                WhatChanged::Move {
                    both_kings_in_check: true,
                    ..
                }
            ),
            "{edition}: {:?}",
            a[0]
        );
        assert_eq!(a[0].severity, Severity::Intervene);
        assert!(
            alert_of(&ev, AlertKind::IllegalPosition).is_empty(),
            "{edition}"
        );
        assert!(ends(&ev).is_empty(), "{edition}");
    }
}

/// L17-S18 (T18): standard play, White's flag falls and nobody calls it; 37 s later White
/// mates. With `flag_counts = when_called` (6.8 as worded; 2005 6.9) the flag did not count:
/// 1-0 by checkmate, the report naming the uncalled flag. Acknowledged before the mate: the
/// flag counts at the acknowledgement, 0-1. A player's claim counts like a call. With the
/// default `at_fall` the game ends at the physical flag.
#[test]
fn l17_s18_flag_not_called_before_the_mate() {
    use dgt_core::config::FlagCounts;
    let when_called = dgt_core::CoreConfig {
        flag_counts: FlagCounts::WhenCalled,
        ..Default::default()
    };
    for edition in EDITIONS {
        let considered = by_edition(edition, "6.9", "6.8", "6.8");
        let flagged = |op: Option<String>| {
            let mut b = game(edition, "5400", 5400);
            b.play(SCHOLAR);
            b.flag(true, true).wait(3000);
            if let Some(op) = op {
                b.op(&op);
                b.wait(500);
            }
            b.wait(34_000);
            b.lift("f7").mv("h5", "f7", 'Q').wait(1500);
            b
        };
        // Nobody calls it: the mate stands.
        let ev = flagged(None).run_with(when_called.clone());
        let flag = one(&ev, AlertKind::FlagFall);
        assert_eq!(flag.severity, Severity::Intervene, "{edition}");
        let v = flag_verdict(&flag);
        assert_eq!(
            (v.call, v.decision, v.result),
            (
                FlagCall::CallFirst {
                    article: Article::new(considered)
                },
                FlagDecision::LosesOnTime {
                    flagged: Color::White
                },
                Some(GameResult::BlackWins)
            ),
            "{edition}"
        );
        assert_eq!(
            ends(&ev),
            [("1-0".to_string(), "checkmate".to_string())],
            "{edition}"
        );
        let mate = one(&ev, AlertKind::Checkmate);
        assert!(
            matches!(
                record_verdict(&mate),
                RecordVerdict::EndedByRule {
                    result: GameResult::WhiteWins,
                    uncalled_flag: Some(FlagNotCalled { flagged: Color::White, article, .. }),
                } if *article == Article::new(considered)
            ),
            "{edition}: {mate:?}"
        );

        // The arbiter acknowledged the flag alert before the mate: 0-1 then.
        let id = flag.id;
        let ev = flagged(Some(format!(r#"{{"ack": {id}}}"#))).run_with(when_called.clone());
        assert_eq!(
            ends(&ev),
            [("0-1".to_string(), "flag_fall".to_string())],
            "{edition}"
        );
        assert_eq!(
            moves(&ev).len(),
            6,
            "{edition}: the mate came after the end"
        );
        let called = alert_of(&ev, AlertKind::FlagFall);
        assert_eq!(called.len(), 2, "{edition}");
        assert_eq!(article(&called[1]), considered);
        let v = flag_verdict(&called[1]);
        assert_eq!(
            (v.call, v.result, v.article),
            (
                FlagCall::Called,
                Some(GameResult::BlackWins),
                Article::new(by_edition(edition, "6.10", "6.9", "6.9"))
            ),
            "{edition}"
        );

        // Black claims the flag instead: the same.
        let ev = flagged(Some(
            r#"{"claim": {"kind": "flag", "side": "black"}}"#.into(),
        ))
        .run_with(when_called.clone());
        assert_eq!(
            ends(&ev),
            [("0-1".to_string(), "flag_fall".to_string())],
            "{edition}"
        );

        // A flag claim with no flag down: checked, nothing ends.
        let mut b = game(edition, "5400", 5400);
        b.play(SCHOLAR);
        b.op(r#"{"claim": {"kind": "flag", "side": "black"}}"#);
        b.wait(500);
        let ev = b.run_with(when_called.clone());
        let a = one(&ev, AlertKind::FlagFall);
        assert_eq!(a.severity, Severity::Review);
        assert_eq!(a.title.as_deref(), Some("Flag claim: no flag down"));
        let v = flag_verdict(&a);
        assert_eq!((v.decision, v.result), (FlagDecision::NoFlagDown, None));
        assert!(ends(&ev).is_empty());

        // The default: the game ends at the physical flag.
        let ev = flagged(None).run();
        assert_eq!(
            ends(&ev),
            [("0-1".to_string(), "flag_fall".to_string())],
            "{edition}"
        );
    }
}

/// L17-S23 (T23): after 1.e4 (Black has not moved) the arbiter enters a draw: 2017+ 5.2.3
/// allows a draw by agreement only once both players have moved — `result_conflict` /
/// review, the entry recorded as made; after 1.e4 e5 nothing is said; 2005 (5.2c) has no
/// minimum.
#[test]
fn l17_s23_draw_before_both_players_moved() {
    for edition in EDITIONS {
        for (script, warned) in [
            (&[("e2", "e4", 'P')][..], edition != "fide-2005"),
            (&[("e2", "e4", 'P'), ("e7", "e5", 'p')][..], false),
        ] {
            let mut b = game(edition, "5400", 5400);
            b.play(script);
            b.op(r#"{"result": "1/2-1/2"}"#);
            b.wait(300);
            let ev = b.run();
            let a = alert_of(&ev, AlertKind::ResultConflict);
            assert_eq!(a.len(), usize::from(warned), "{edition} {}", script.len());
            if warned {
                assert_eq!(article(&a[0]), "5.2.3");
                assert_eq!(a[0].severity, Severity::Review);
            }
            assert_eq!(
                ends(&ev),
                [("1/2-1/2".to_string(), "arbiter".to_string())],
                "{edition}"
            );
        }
    }
}

/// Both displays show a flag in one reading: which fell first is unknown.
fn both_flags_unknown(b: &mut Board, final_flags: bool) {
    let bit = if final_flags { 0x10 } else { 0x40 };
    b.flags = (bit, bit);
    b.clock = Some((0, 0, if final_flags { None } else { Some(false) }));
    b.reading();
    b.wait(300);
}

/// L17-S46 (T46): quickplay finish without increment, both flags down with the order unknown,
/// under Guideline III announced (`guideline_iii = true`, 2017+): before the last period the
/// game goes on (III.3.1.1, review); in the last period it is drawn (III.3.1.2); (c) with the
/// order known, the first flag decides and the second is reported as info. With an
/// increment Guideline III does not apply; without the setting the known behaviour stays.
#[test]
fn l17_s46_both_flags_under_guideline_iii() {
    let with_iii = dgt_core::CoreConfig {
        guideline_iii: true,
        ..Default::default()
    };
    for edition in ["fide-2017", "fide-2018", "fide-2023"] {
        let mut b = game(edition, "40/5400:1800", 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        both_flags_unknown(&mut b, false);
        let ev = b.run_with(with_iii.clone());
        let a = one(&ev, AlertKind::BothFlagsFallen);
        assert_eq!(
            (a.severity, article(&a)),
            (Severity::Review, "III.3.1.1"),
            "{edition}"
        );
        let v = flag_verdict(&a);
        assert_eq!((v.decision, v.result), (FlagDecision::BothFlagsGoOn, None));
        assert_eq!(a.prescription, None);
        assert!(ends(&ev).is_empty(), "{edition}");

        let mut b = game(edition, "5400", 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        both_flags_unknown(&mut b, true);
        let ev = b.run_with(with_iii.clone());
        let a = one(&ev, AlertKind::BothFlagsFallen);
        assert_eq!(
            (a.severity, article(&a)),
            (Severity::Intervene, "III.3.1.2"),
            "{edition}"
        );
        let v = flag_verdict(&a);
        assert_eq!(
            (v.decision, v.result),
            (FlagDecision::BothFlagsDrawn, Some(GameResult::Drawn))
        );
        assert_eq!(
            ends(&ev),
            [("1/2-1/2".to_string(), "both_flags_fallen".to_string())]
        );

        // (c) White's flag falls first, Black's 3.2 s later: White's flag decides; the order
        // is reported for the record.
        let mut b = game(edition, "5400", 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        b.flag(true, true).wait(3200);
        b.flags.1 = 0x10;
        b.reading();
        b.wait(300);
        let ev = b.run_with(with_iii.clone());
        assert_eq!(
            ends(&ev),
            [("0-1".to_string(), "flag_fall".to_string())],
            "{edition}"
        );
        let both = one(&ev, AlertKind::BothFlagsFallen);
        assert_eq!(both.severity, Severity::Info);
        assert!(
            matches!(
                flag_verdict(&both).decision,
                FlagDecision::FirstFellBefore {
                    first: Color::White,
                    by_ms: 3_200..=3_299
                }
            ),
            "{edition}: {both:?}"
        );

        // With an increment there is no quickplay finish: Guideline III does not apply.
        let mut b = game(edition, "5400+30", 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        both_flags_unknown(&mut b, true);
        let ev = b.run_with(with_iii.clone());
        assert!(
            alert_of(&ev, AlertKind::BothFlagsFallen)
                .iter()
                .all(|a| !article(a).starts_with("III")),
            "{edition}"
        );
    }
}

/// L17-S43 (T43): the f8 bishop is knocked off the board after 2…Nc6 and left off; 3.d3 d6
/// 4.Be2 are played; the arbiter then restores the position of move 2 with the bishop.
#[test]
fn l17_s43_piece_knocked_off_and_play_goes_on() {
    let mut b = game("fide-2023", "5400", 5400);
    b.play(&[
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
    ]);
    b.lift("f8").wait(4000);
    b.play(&[("d2", "d3", 'P'), ("d7", "d6", 'p'), ("f1", "e2", 'B')]);
    b.wait(3000);
    // The arbiter puts the position of move 2 back.
    b.mv("e2", "f1", 'B')
        .mv("d6", "d7", 'p')
        .mv("d3", "d2", 'P');
    b.put("f8", 'b').wait(4000);
    let ev = b.run();
    // Knocked off: for review, with the piece named; play is followed as if it stood there.
    let p = one(&ev, AlertKind::IllegalPosition);
    assert_eq!((p.severity, p.ply), (Severity::Review, Some(4)));
    assert_eq!(
        *record_verdict(&p),
        RecordVerdict::PiecesMissing {
            missing: vec![(
                Square::F8,
                shakmaty::Piece {
                    color: Color::Black,
                    role: shakmaty::Role::Bishop
                }
            )],
            ply: 4
        }
    );
    assert!(
        alert_of(&ev, AlertKind::IllegalMove).is_empty(),
        "a missing piece is not an illegal move by whoever presses next: {:?}",
        alerts(&ev)
    );
    assert_eq!(
        moves(&ev),
        ["e2e4", "e7e5", "g1f3", "b8c6", "d2d3", "d7d6", "f1e2"]
    );
    // The arbiter's reinstatement: back to ply 4, the clocks logged there proposed.
    let r = one(&ev, AlertKind::PositionRestored);
    assert_eq!(r.ply, Some(4));
    assert_eq!(
        *record_verdict(&r),
        RecordVerdict::Restored {
            ply: 4,
            article: Article::new("7.1")
        }
    );
    assert!(ends(&ev).is_empty());

    // Put back without reinstating: the board is legal again (info), play goes on.
    let mut b = game("fide-2023", "5400", 5400);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    b.lift("f8").wait(4000);
    b.play(&[("g1", "f3", 'N'), ("b8", "c6", 'n')]);
    b.put("f8", 'b').wait(1000);
    b.play(&[("f1", "c4", 'B'), ("f8", "c5", 'b')]);
    let ev = b.run();
    assert_eq!(moves(&ev).len(), 6);
    assert!(alert_of(&ev, AlertKind::IllegalMove).is_empty());
    let back = one(&ev, AlertKind::PositionRestored);
    assert_eq!(back.severity, Severity::Info);
}

/// L17-S20 (T20): at the flag the alert gives the verified count of the flagged player's
/// completed moves (6.12.2; 2017 6.13.2), whatever a public display shows.
#[test]
fn l17_s20_flag_alert_gives_the_verified_move_count() {
    for edition in EDITIONS {
        let mut b = game(edition, "5400", 5400);
        b.play(SCHOLAR);
        b.mv("d2", "d3", 'P').wait(900); // made, not completed: no press before the flag
        b.flag(true, true).wait(300);
        let ev = b.run();
        let f = one(&ev, AlertKind::FlagFall);
        assert_eq!(
            flag_verdict(&f).fall,
            Some(FlagFall {
                flagged: Color::White,
                moves_done: 3
            }),
            "{edition}"
        );
    }
}

/// L17-S56 (T56), KNSB-16: 90'+30" configured. (a) The presses add nothing: after White's
/// third press without increment, `clock_setting_mismatch` / review (6.10.2; 2005 6.11).
/// (b) Presses that add the 30 s (the DGT clock also adds the first one before the start):
/// nothing. (c) Clocks set to 1:30 for a 60-minute game: reported before the first move.
#[test]
fn l17_s56_clock_set_without_increment_or_to_other_times() {
    let script = [
        ("e2", "e4", 'P'),
        ("e7", "e5", 'p'),
        ("g1", "f3", 'N'),
        ("b8", "c6", 'n'),
        ("f1", "c4", 'B'),
        ("g8", "f6", 'n'),
        ("d2", "d3", 'P'),
    ];
    let play_with_increment = |b: &mut Board, inc: u64| {
        for (f, t, p) in script {
            b.mv(f, t, p).wait(250);
            if let Some((l, r, Some(right_runs))) = &mut b.clock {
                if *right_runs {
                    *r += inc;
                } else {
                    *l += inc;
                }
            }
            b.press().wait(300);
        }
    };
    for edition in EDITIONS {
        let article_ = by_edition(edition, "6.11", "6.10.2", "6.10.2");
        let mut b = game(edition, "5400+30", 5430);
        play_with_increment(&mut b, 0);
        let ev = b.run();
        let a = one(&ev, AlertKind::ClockSettingMismatch);
        assert_eq!(a.severity, Severity::Review, "{edition}");
        assert_eq!(article(&a), article_);
        assert_eq!(a.side, Some(dgt_core::Side::White));
        assert_eq!(
            *setting_mismatch(&a),
            SettingMismatch::NoTimeBack {
                presses: 3,
                side: Color::White,
                control: "5400+30".into(),
                bonus: Bonus::Increment(30_000)
            },
            "{edition}"
        );
        assert_eq!(
            clock_verdict(&a),
            ClockVerdict::InstallCorrectSetting {
                article: Article::new(article_)
            },
            "{edition}"
        );

        let mut b = game(edition, "5400+30", 5430);
        play_with_increment(&mut b, 30);
        let ev = b.run();
        assert!(
            alert_of(&ev, AlertKind::ClockSettingMismatch).is_empty(),
            "{edition}: {:?}",
            alert_of(&ev, AlertKind::ClockSettingMismatch)
        );
        assert_eq!(moves(&ev).len(), script.len());

        let mut b = game(edition, "3600+30", 5400);
        b.play(&script[..1]);
        let ev = b.run();
        let a = one(&ev, AlertKind::ClockSettingMismatch);
        assert!(
            matches!(
                setting_mismatch(&a),
                SettingMismatch::StartTime {
                    white_ms: Some(5_400_000..=5_400_999),
                    black_ms: Some(5_400_000..=5_400_999),
                    control,
                    base_ms: 3_600_000,
                } if control == "3600+30"
            ),
            "{a:?}"
        );
        assert_eq!(a.ply, Some(0));
        assert_eq!(
            clock_verdict(&a),
            ClockVerdict::SetStartTime {
                base_ms: 3_600_000,
                article: Article::new(article_)
            },
            "{edition}"
        );
    }
}

/// A board dumped with `fen`'s placement, the clock started for White; no `setup` op.
fn set_up(fen: &str, edition: &str, tc: &str, supervision: &str) -> Board {
    let mut b = Board::new();
    b.op(&format!(
        r#"{{"setup": {{"edition": "{edition}", "time_control": "{tc}", "supervision": "{supervision}"}}}}"#
    ));
    b.dump_fen(fen);
    b.wait(500);
    b.start_clock(5400).wait(300);
    b
}

/// L17-S40 (T40), L05-S24: White's king and queen swapped in the set-up (Qe1, Kd1). Nothing
/// is said while the pieces are being placed; when White's first move is made from it, the
/// game is followed from the wrong set-up and `setup_invalid` / intervene says what is wrong:
/// standard play — cancelled and replayed (7.2.1; 2005 7.1a); reduced rapid — a claim only
/// within the first 10 moves each (A4.1.2 / A.4.1 / A.5.1.2; 2005 B4: 3), and the misplaced
/// king may not castle.
#[test]
fn l17_s40_king_and_queen_swapped_in_the_set_up() {
    const SWAPPED: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1";
    for edition in EDITIONS {
        let mut b = set_up(SWAPPED, edition, "5400", "full");
        b.wait(5000);
        let quiet = b.run();
        assert!(
            alert_of(&quiet, AlertKind::SetupInvalid).is_empty(),
            "{edition}: nothing before a move"
        );
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e2e4", "e7e5"], "{edition}");
        let a = one(&ev, AlertKind::SetupInvalid);
        assert_eq!(a.severity, Severity::Intervene);
        assert_eq!(article(&a), by_edition(edition, "7.1a", "7.2.1", "7.2.1"));
        assert_eq!(
            wrong_setup(&a),
            &WrongSetup {
                misplaced: vec![(
                    Color::White,
                    vec![(Role::King, Square::D1), (Role::Queen, Square::E1)]
                )],
                not_chess960: Vec::new(),
            },
            "{edition}"
        );
        assert_eq!(
            setup_verdict(&a),
            SetupVerdict::SetUpAgain {
                article: Article::new(by_edition(edition, "7.1a", "7.2.1", "7.2.1"))
            },
            "{a:?}"
        );

        let (window, n) = match edition {
            "fide-2005" => ("B4", 3),
            "fide-2017" => ("A4.1.2", 10),
            "fide-2018" => ("A.4.1", 10),
            _ => ("A.5.1.2", 10),
        };
        let mut b = set_up(SWAPPED, edition, "900+10", "reduced");
        b.play(&[("e2", "e4", 'P')]);
        let a = one(&b.run(), AlertKind::SetupInvalid);
        assert_eq!(article(&a), window, "{edition}");
        assert_eq!(
            setup_verdict(&a),
            SetupVerdict::ClaimWithin {
                window: Article::new(window),
                moves: n
            },
            "{edition}: {a:?}"
        );
    }
    // The misplaced king has no castling: Black's king (on e8) keeps it.
    let mut b = set_up(SWAPPED, "fide-2023", "5400", "full");
    b.play(&[("g2", "g3", 'P')]);
    let ev = b.run();
    let start = ev
        .iter()
        .find_map(|e| match &e.body {
            EventBody::GameStart { start_fen, .. } => Some(start_fen.clone()),
            _ => None,
        })
        .unwrap();
    assert!(start.ends_with(" w kq - 0 1"), "{start}");
}

/// L17-S51 (T51): a Chess960 start `RBKBNQNR` — both bishops on light squares — is no legal
/// start (II.2): `setup_invalid` when play begins from it.
#[test]
fn l17_s51_chess960_start_with_bishops_on_one_colour() {
    let fen = "rbkbnqnr/pppppppp/8/8/8/8/PPPPPPPP/RBKBNQNR w - - 0 1";
    let mut b = set_up(fen, "fide-2023", "5400", "full");
    b.play(&[("e2", "e4", 'P')]);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4"]);
    let a = one(&ev, AlertKind::SetupInvalid);
    assert_eq!(
        wrong_setup(&a).not_chess960,
        [Not960::BishopsOnOneColour],
        "{a:?}"
    );
}

/// L17-S37 (T37): rapid, reduced supervision; White's display shows 0:00 while the clock runs
/// on (the flag needs a claim: 2005 claim / B7, 2017 review / A4.5); Black stops the clock:
/// that is the claim (2005 B8, 2017 A4.3). (a) Black can mate: 0-1. (b) Black has a bare king:
/// drawn. (d) The claim made without stopping the clock: valid, but 2017's A4.3 says the clock
/// "must" be stopped — reported as a procedural defect.
#[test]
fn l17_s37_reduced_flag_claimed_by_stopping_the_clock() {
    for (edition, article_) in [("fide-2005", "B8"), ("fide-2017", "A4.3")] {
        let flagged = |fen: Option<&str>| {
            let mut b = match fen {
                Some(fen) => game_from(fen, edition, "900+10", "reduced", 900),
                None => {
                    let mut b = game(edition, "900+10", 900);
                    b.op(r#"{"setup": {"supervision": "reduced"}}"#);
                    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
                    b
                }
            };
            b.flag(true, false).wait(2000);
            b
        };
        // (a)
        let mut b = flagged(None);
        b.set_running(None).wait(500);
        let ev = b.run();
        assert_eq!(
            ends(&ev),
            [("0-1".to_string(), "flag_fall".to_string())],
            "{edition}"
        );
        let called = alert_of(&ev, AlertKind::FlagFall);
        assert_eq!(
            flag_verdict(called.last().unwrap()).called,
            Some((
                Color::White,
                CalledBy::ClockStopped {
                    article: Article::new(article_)
                }
            )),
            "{edition}"
        );
        // Before the pause the flag had not ended the game.
        let ev = flagged(None).run();
        assert!(ends(&ev).is_empty(), "{edition}");
        // (b)
        let mut b = flagged(Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"));
        b.set_running(None).wait(500);
        assert_eq!(
            ends(&b.run()),
            [("1/2-1/2".to_string(), "flag_fall".to_string())],
            "{edition}"
        );
        // (c) Black's own flag is down too when he stops the clock: 2005 draws (B9); in 2017
        // the claim is invalid (A4.3) and the arbiter rules, no result by itself.
        let mut b = flagged(None);
        b.flag(false, false).wait(300);
        b.set_running(None).wait(500);
        let ev = b.run();
        if edition == "fide-2005" {
            assert_eq!(
                ends(&ev),
                [("1/2-1/2".to_string(), "both_flags_fallen".to_string())]
            );
        } else {
            assert!(ends(&ev).is_empty(), "{:?}", ends(&ev));
            let invalid = alert_of(&ev, AlertKind::BothFlagsFallen).pop().unwrap();
            assert_eq!(
                (invalid.severity, article(&invalid)),
                (Severity::Review, "A4.3")
            );
            let v = flag_verdict(&invalid);
            assert_eq!(
                v.called,
                Some((
                    Color::White,
                    CalledBy::InvalidClaimOwnFlagDown {
                        article: Article::new("A4.3")
                    }
                ))
            );
            assert_eq!(
                (v.decision, v.result),
                (
                    FlagDecision::FirstFlagDecides {
                        flagged: Color::White
                    },
                    None
                )
            );
        }
        // (d)
        let mut b = flagged(None);
        b.op(r#"{"claim": {"kind": "flag", "side": "black"}}"#);
        b.wait(300);
        let ev = b.run();
        assert_eq!(ends(&ev), [("0-1".to_string(), "flag_fall".to_string())]);
        let last = alert_of(&ev, AlertKind::FlagFall).pop().unwrap();
        let v = flag_verdict(&last);
        assert_eq!(
            (v.call, v.result),
            (FlagCall::Called, Some(GameResult::BlackWins))
        );
        let by = if edition == "fide-2017" {
            CalledBy::ClaimWithoutStopping {
                article: Article::new("A4.3"),
            }
        } else {
            CalledBy::Claim
        };
        assert_eq!(v.called, Some((Color::White, by)), "{edition}");
    }
}

/// A game resumed from a set-up position (an adjourned game) starts with the clock times of
/// the adjournment: no `clock_setting_mismatch` for them.
#[test]
fn resumed_game_times_are_not_a_clock_setting_error() {
    let mut b = game_from(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "fide-2023",
        "5400+30",
        "full",
        3125,
    );
    b.play(&[("f1", "c4", 'B')]);
    let ev = b.run();
    assert_eq!(moves(&ev), ["f1c4"]);
    assert!(alert_of(&ev, AlertKind::ClockSettingMismatch).is_empty());
}

/// The wrong set-up of L17-S40 with White's press relayed before the board settled on his
/// first move: Black's clock already runs when the game is begun, and White's side is still
/// read right — Black's reply is completed by Black's press.
#[test]
fn wrong_set_up_with_the_first_press_before_the_board_settled() {
    let mut b = set_up(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
        "fide-2023",
        "5400",
        "full",
    );
    // White's display (left) at 1:30:00, Black's at 1:20:00: the sides must not be swapped.
    b.clock = Some((5400, 4800, Some(false)));
    b.reading();
    b.wait(300);
    b.mv("e2", "e4", 'P').press().wait(900);
    b.play(&[("e7", "e5", 'p'), ("g1", "f3", 'N')]);
    let ev = b.run();
    assert_eq!(moves(&ev), ["e2e4", "e7e5", "g1f3"]);
    let first = ev
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Move(m) => Some((m.white_ms, m.black_ms)),
            _ => None,
        })
        .unwrap();
    assert_eq!(first, (Some(5_400_000), Some(4_800_000)));
    assert!(alert_of(&ev, AlertKind::ClockPressedWithoutMove).is_empty());
    assert!(alert_of(&ev, AlertKind::IllegalMove).is_empty());
    one(&ev, AlertKind::SetupInvalid);
}

/// L17-S55 (T55): 4:59 left in standard play — with a +30 s increment the player must still
/// record; without, `recording_not_required` / info (8.4), once per period. Rapid needs no
/// recording at all: nothing.
#[test]
fn l17_s55_recording_below_five_minutes() {
    let run = |tc: &str| {
        let mut b = game("fide-2023", tc, 5400);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        if let Some(c) = &mut b.clock {
            c.0 = 299;
        }
        b.reading();
        b.wait(500);
        b.reading();
        b.wait(500);
        b.run()
    };
    let ev = run("5400");
    let a = one(&ev, AlertKind::RecordingNotRequired);
    assert_eq!((a.severity, article(&a)), (Severity::Info, "8.4"));
    assert_eq!(
        clock_verdict(&a),
        ClockVerdict::RecordingNotRequired {
            side: Color::White,
            exempt: Article::new("8.4"),
            keep: Article::new("8.5.1")
        }
    );
    assert_eq!(a.side, Some(dgt_core::Side::White));
    // The time left that the message gives (4:59) is the alert's clock reading.
    assert!(
        matches!(a.white_ms, Some(299_000..=299_999)),
        "{:?}",
        a.white_ms
    );
    for tc in ["5400+30", "1500+10"] {
        assert!(
            alert_of(&run(tc), AlertKind::RecordingNotRequired).is_empty(),
            "{tc}"
        );
    }
}

/// L17-S10 (T10): `1r2k3/8/b7/8/8/8/8/R3K2R w KQ`, the king released on g1 (O-O, illegal: f1
/// is attacked), the rook still on h1: before any press an info hint that another king move is
/// due, listing them with O-O-O (4.4.3 / 4.7.2; 2005 4.4c / 4.6b); pressed, `illegal_move`.
#[test]
fn l17_s10_king_released_for_an_illegal_castling() {
    for edition in EDITIONS {
        let mut b = game_from(
            "1r2k3/8/b7/8/8/8/8/R3K2R w KQ - 0 1",
            edition,
            "5400",
            "full",
            5400,
        );
        b.mv("e1", "g1", 'K').wait(1500);
        let ev = b.run();
        let hint = one(&ev, AlertKind::TouchMove);
        assert_eq!(hint.severity, Severity::Info, "{edition}");
        assert_eq!(
            article(&hint),
            by_edition(edition, "4.4c / 4.6b", "4.4.3 / 4.7.2", "4.4.3 / 4.7.2")
        );
        let verdict = hands_verdict(&hint);
        assert_eq!(
            verdict,
            &HandsVerdict::KingToIllegalCastling {
                article: Article::new(by_edition(
                    edition,
                    "4.4c / 4.6b",
                    "4.4.3 / 4.7.2",
                    "4.4.3 / 4.7.2"
                )),
                king_moves: ["Kd1", "Kd2", "Kf2", "O-O-O"].map(String::from).to_vec(),
            },
            "{edition}"
        );
        assert!(alert_of(&ev, AlertKind::IllegalMove).is_empty());

        b.press().wait(900);
        let ev = b.run();
        one(&ev, AlertKind::IllegalMove);
        assert_eq!(
            alert_of(&ev, AlertKind::TouchMove).len(),
            1,
            "{edition}: once"
        );
    }
    // 2005 rapid: Article 4 only on a claim (B5).
    let mut b = game_from(
        "1r2k3/8/b7/8/8/8/8/R3K2R w KQ - 0 1",
        "fide-2005",
        "900+10",
        "full",
        900,
    );
    b.mv("e1", "g1", 'K').wait(1500);
    assert_eq!(
        one(&b.run(), AlertKind::TouchMove).severity,
        Severity::Claim
    );
}
