//! The test scenarios of the FIDE 2005 digest (`spec/laws-fide-2005-bughouse-draws.md` §4.1,
//! T01–T31, listed as L05-S01…S31 in `docs/scenarios.md`), played as the bytes a DGT board
//! and clock send. fide-2005 first; every later edition the digest names as different too.

mod common;

use common::*;
use dgt_core::outcome::EndReason;
use dgt_core::verdict::{
    AdoptedIllegalMove, Article, ClaimDecision, ClockVerdict, FlagCall, FlagDecision, GameResult,
    HandsVerdict, IllegalMoveVerdict, OffenceDecision, OffenceVerdict, OwnTimeCut, RecordVerdict,
    Remedy, Replacement, WhatChanged, WrongClaimPenalty,
};
use dgt_core::{AlertKind, Event, Severity, Side};
use shakmaty::{Color, Role, Square};

/// After 1.e4 d5 2.Bb5+ (`rnbqkbnr/ppp1pppp/8/1B1p4/4P3/8/PPPP1PPP/RNBQK1NR b`).
const BB5_CHECK: &[(&str, &str, char)] = &[("e2", "e4", 'P'), ("d7", "d5", 'p'), ("f1", "b5", 'B')];

/// A game under an edition, a time control and a supervision, White's clock running.
fn event(edition: &str, tc: &str, supervision: &str, secs: u64) -> Board {
    let mut b = started();
    b.op(&format!(
        r#"{{"setup": {{"edition": "{edition}", "time_control": "{tc}", "supervision": "{supervision}"}}}}"#
    ));
    b.start_clock(secs).wait(300);
    b
}

/// T03's illegal move: after 2.Bb5+ Black plays …Nf6, leaving his king in check, and presses.
fn t03(edition: &str, tc: &str, supervision: &str) -> Board {
    let mut b = event(edition, tc, supervision, 900);
    b.play(BB5_CHECK);
    b.mv("g8", "f6", 'n').wait(250).press().wait(900);
    b
}

/// L05-S02 (T02): `-Ng1 +Ng3` (no knight move), then `-Ng3 +Nf3 press`: no illegal move, the
/// move is 1.Nf3, and White has no offence (the next illegal move is his first).
#[test]
fn l05_s02_illegal_placement_corrected_before_the_press() {
    for edition in EDITIONS {
        let mut b = game(edition, "5400", 5400);
        b.mv("g1", "g3", 'N').wait(900);
        b.mv("g3", "f3", 'N').wait(250).press().wait(900);
        b.play(&[("e7", "e5", 'p')]);
        b.mv("f3", "f6", 'N').wait(250).press().wait(900);
        let ev = b.run();
        assert_eq!(moves(&ev), ["g1f3", "e7e5"], "{edition}");
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.ply, Some(3), "the only illegal move is the later one");
        assert_eq!(offence_verdict(&a).number, 1, "{a:?}");
        assert!(!alerts(&ev).contains(&AlertKind::IllegalPosition));
    }
}

/// L05-S03 (T03): after 1.e4 d5 2.Bb5+ Black plays …Nf6 (king left in check) and presses:
/// restore, White +2:00 (2023 rapid +1:00), any legal move (4.5: the g8 knight has none);
/// the restore is not a move.
#[test]
fn l05_s03_king_left_in_check() {
    // (edition, time control, article, minutes to White, penalty article)
    let cases = [
        ("fide-2005", "5400", "7.4a", 2, "7.4b"),
        ("fide-2017", "5400", "7.5.1", 2, "7.5.3"),
        ("fide-2018", "5400", "7.5.1", 2, "7.5.5"),
        ("fide-2023", "5400", "7.5.1", 2, "7.5.5"),
        ("fide-2023", "1500", "7.5.1", 1, "7.5.5"),
    ];
    for (edition, tc, art, minutes, penalty) in cases {
        let mut b = t03(edition, tc, "full");
        take_back(&mut b, "g8", "f6", 'n');
        let ev = b.run();
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.severity, Severity::Intervene, "{edition} {tc}");
        assert_eq!(article(&a), art);
        assert_eq!((a.side, a.ply), (Some(Side::Black), Some(4)));
        let v = offence_verdict(&a);
        assert_eq!((v.offender, v.number), (Color::Black, 1), "{edition} {tc}");
        assert_eq!(v.opponent(), Color::White);
        assert_eq!(v.article, penalty, "{edition} {tc}");
        assert_eq!(
            v.decision,
            OffenceDecision::TimeToOpponent {
                add_ms: minutes * 60_000,
                loses_at: if edition == "fide-2005" { 3 } else { 2 },
            },
            "{edition} {tc}"
        );
        // Restored; the knight on g8 has no legal move: any legal move may be made (4.5).
        assert_eq!(
            v.remedy,
            Remedy::Restore {
                article: Article::new(art),
                replacement: Replacement::AnyLegalMove { square: Square::G8 },
            },
            "{edition} {tc}"
        );
        // The restore is no move: three moves, the board back on the position after 2.Bb5+.
        assert_eq!(moves(&ev), ["e2e4", "d7d5", "f1b5"]);
        assert_eq!(move_events(&ev), 3);
        let back = one(&ev, AlertKind::PositionRestored);
        assert_eq!((back.severity, back.ply), (Severity::Info, Some(3)));
    }
}

/// L17-S54 (T54) through the penalty: a 10+0 game is rapid under the 2017 article text (A1:
/// at least 10 minutes, as printed) — 2 minutes to the opponent — and blitz under 2018 (10 minutes
/// or less) — 1 minute (B.2). (2023 blitz under full supervision keeps 2 minutes, as printed.)
#[test]
fn l17_s54_ten_minutes_is_rapid_in_2017_and_blitz_later() {
    for (edition, minutes, penalty) in [("fide-2017", 2, "7.5.3"), ("fide-2018", 1, "7.5.5")] {
        let mut b = t03(edition, "600", "full");
        take_back(&mut b, "g8", "f6", 'n');
        let a = one(&b.run(), AlertKind::IllegalMove);
        let v = offence_verdict(&a);
        assert_eq!(
            (time_to_opponent(v), v.article, v.opponent()),
            (Some(minutes * 60_000), Article::new(penalty), Color::White),
            "{edition}"
        );
    }
    // The English reading for 2017 by configuration: 10 minutes is blitz again.
    let mut b = t03("fide-2017", "600", "full");
    take_back(&mut b, "g8", "f6", 'n');
    let config = dgt_core::CoreConfig {
        blitz_max_minutes: Some(10),
        rapid_max_minutes: Some(60),
        ..dgt_core::CoreConfig::default()
    };
    let a = one(&b.run_with(config), AlertKind::IllegalMove);
    let v = offence_verdict(&a);
    assert_eq!(
        (time_to_opponent(v), v.article, v.opponent()),
        (Some(60_000), Article::new("7.5.3"), Color::White)
    );
}

/// L05-S04 (T04): further illegal moves by the same player. 2005: the first two +2:00
/// each, the third loses, even against a bare king (7.4b has no draw clause). 2017+:
/// the second loses, drawn when the opponent cannot checkmate.
#[test]
fn l05_s04_how_many_illegal_moves_lose() {
    for edition in EDITIONS {
        // White has a bare king; Black (K+R) offends.
        let mut b = game_from(
            "k7/r7/8/8/8/8/8/7K w - - 0 1",
            edition,
            "5400",
            "full",
            5400,
        );
        b.play(&[("h1", "g1", 'K')]);
        illegal_and_back(&mut b, "a7", "b6", 'r');
        b.play(&[("a7", "a6", 'r'), ("g1", "h1", 'K')]);
        illegal_and_back(&mut b, "a6", "b5", 'r');
        b.play(&[("a6", "a5", 'r'), ("h1", "g1", 'K')]);
        illegal_and_back(&mut b, "a5", "b4", 'r');
        let ev = b.run();
        let illegal = alert_of(&ev, AlertKind::IllegalMove);
        let v: Vec<(Color, Article, OffenceDecision)> = illegal
            .iter()
            .map(offence_verdict)
            .map(|v| (v.offender, v.article, v.decision))
            .collect();
        let time = |loses_at| OffenceDecision::TimeToOpponent {
            add_ms: 120_000,
            loses_at,
        };
        if edition == "fide-2005" {
            let art = Article::new("7.4b");
            assert_eq!(
                v,
                [
                    (Color::Black, art, time(3)),
                    (Color::Black, art, time(3)),
                    (Color::Black, art, OffenceDecision::Loses)
                ],
                "{v:?}"
            );
        } else {
            let art = Article::new(by_edition(edition, "", "7.5.3", "7.5.5"));
            assert_eq!(
                v[..2],
                [
                    (Color::Black, art, time(2)),
                    (Color::Black, art, OffenceDecision::Drawn)
                ],
                "{edition}: {v:?}"
            );
        }
    }
}

/// L05-S05 (T05): 2005 blitz: the T03 move is a claim for White (C3), who wins; 2017
/// reduced blitz: Black loses (B4 → A4.2); 2018 / 2023: +1:00. Variant: White moves instead
/// of claiming: the illegal move stands (C3), tracked on with Black in check.
#[test]
fn l05_s05_blitz_illegal_move_claimed_or_answered() {
    let cases = [
        ("fide-2005", Severity::Claim),
        ("fide-2017", Severity::Intervene),
        ("fide-2018", Severity::Intervene),
        ("fide-2023", Severity::Intervene),
    ];
    for (edition, sev) in cases {
        let ev = t03(edition, "300", "reduced").run();
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.severity, sev, "{edition}");
        assert!(ends(&ev).is_empty(), "the arbiter enters the result");
        // The window rules as data: 2005 a claim only (C3), 2017 a loss (A4.2), 2018+ the
        // offence's verdict within the window.
        let v = illegal_move_verdict(&a);
        assert_eq!(v.offender(), Color::Black, "{edition}");
        match edition {
            "fide-2005" => assert_eq!(
                *v,
                IllegalMoveVerdict::OnClaimWinsOrDrawn {
                    offender: Color::Black,
                    window: Article::new("C3"),
                    drawn: false
                }
            ),
            "fide-2017" => assert_eq!(
                *v,
                IllegalMoveVerdict::SeenInTimeLoses {
                    offender: Color::Black,
                    window: Article::new("A4.2"),
                    opponent_can_mate: Some(true)
                }
            ),
            _ => assert!(
                matches!(v, IllegalMoveVerdict::WithinWindow { offence, .. }
                    if offence.decision == OffenceDecision::TimeToOpponent { add_ms: 60_000, loses_at: 2 }
                        && offence.article == "7.5.5"),
                "{edition}: {v:?}"
            ),
        }
    }
    // The variant: White answers T03's 2…Nf6 with 3.Nf3 and then claims: the claim is void,
    // the illegal move stands (C3), and Black, in check, must answer it.
    let mut b = t03("fide-2005", "300", "reduced");
    b.play(&[("g1", "f3", 'N'), ("c7", "c6", 'p')]);
    let ev = b.run();
    let all = alert_of(&ev, AlertKind::IllegalMove);
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0].severity, Severity::Claim);
    assert_eq!((all[1].severity, article(&all[1])), (Severity::Info, "C3"));
    assert_eq!(
        adopted(&all[1]),
        &AdoptedIllegalMove::Stands {
            offender: Color::Black,
            notation: "Ng8-f6".into()
        },
        "{:?}",
        all[1]
    );
    assert_eq!(&moves(&ev)[2..], ["f1b5", "g8f6", "g1f3", "c7c6"]);
}

/// L05-S06 (T06): 2005 blitz, `8/8/8/8/8/3k4/7q/3K4 b`: …Kd2 (next to White's king) is
/// pressed; White has a bare king: a claim gives a draw (C3). 2017 reduced: drawn (A4.2).
/// 2018 / 2023: +1:00 only (the draw clause is for the losing offence).
#[test]
fn l05_s06_blitz_claimant_with_a_bare_king() {
    let offence = |window| IllegalMoveVerdict::WithinWindow {
        window: Article::new(window),
        offence: OffenceVerdict {
            offender: Color::Black,
            number: 1,
            article: Article::new("7.5.5"),
            remedy: Remedy::Restore {
                article: Article::new("7.5.1"),
                replacement: Replacement::WithPiece {
                    square: Square::D3,
                    article: Article::new("4.3.1"),
                },
            },
            decision: OffenceDecision::TimeToOpponent {
                add_ms: 60_000,
                loses_at: 2,
            },
        },
    };
    let cases = [
        (
            "fide-2005",
            Severity::Claim,
            IllegalMoveVerdict::OnClaimWinsOrDrawn {
                offender: Color::Black,
                window: Article::new("C3"),
                drawn: true,
            },
        ),
        (
            "fide-2017",
            Severity::Intervene,
            IllegalMoveVerdict::SeenInTimeLoses {
                offender: Color::Black,
                window: Article::new("A4.2"),
                opponent_can_mate: Some(false),
            },
        ),
        ("fide-2018", Severity::Intervene, offence("A.4.2")),
        ("fide-2023", Severity::Intervene, offence("A.5.2")),
    ];
    for (edition, sev, verdict) in cases {
        let mut b = game_from(
            "8/8/8/8/8/3k4/7q/4K3 w - - 0 1",
            edition,
            "300",
            "reduced",
            300,
        );
        b.play(&[("e1", "d1", 'K')]);
        b.mv("d3", "d2", 'k').wait(250).press().wait(900);
        let ev = b.run();
        let a = one(&ev, AlertKind::IllegalMove);
        assert_eq!(a.severity, sev, "{edition}");
        assert_eq!(a.side, Some(Side::Black));
        assert_eq!(*illegal_move_verdict(&a), verdict, "{edition}");
    }
}

/// L05-S07 (T07): 2018 / 2023 blitz, reduced supervision: the T03 move inside the window:
/// restore and White +1:00 (A.4.2 / A.5.2 → 7.5.5); a second one loses.
#[test]
fn l05_s07_blitz_reduced_two_strikes() {
    for (edition, window) in [("fide-2018", "A.4.2"), ("fide-2023", "A.5.2")] {
        let mut b = t03(edition, "300", "reduced");
        take_back(&mut b, "g8", "f6", 'n');
        illegal_and_back(&mut b, "g8", "h6", 'n');
        let ev = b.run();
        let all = alert_of(&ev, AlertKind::IllegalMove);
        assert_eq!(all.len(), 2, "{edition}: {all:?}");
        for a in &all {
            assert_eq!((a.severity, article(a)), (Severity::Intervene, "7.5.1"));
        }
        let v: Vec<_> = all
            .iter()
            .map(|a| match illegal_move_verdict(a) {
                IllegalMoveVerdict::WithinWindow { window: w, offence } if *w == window => offence,
                v => panic!("{edition}: not within the window {window}: {v:?}"),
            })
            .collect();
        assert!(matches!(v[0].remedy, Remedy::Restore { .. }), "{v:?}");
        assert_eq!(
            (v[0].article, time_to_opponent(v[0]), v[0].opponent()),
            (Article::new("7.5.5"), Some(60_000), Color::White),
            "{edition}"
        );
        assert_eq!(
            (v[1].article, v[1].decision, v[1].offender),
            (Article::new("7.5.5"), OffenceDecision::Loses, Color::Black),
            "{edition}"
        );
    }
}

/// L05-S08 (T08): 2005 rapid (B6): (a) the T03 move is only a claim; (b) a pawn left on the
/// 8th rank and (c) a move leaving both kings in check: the arbiter intervenes. In 2005
/// blitz (C2 excludes B6) all three are claims; 2017+ reduced: intervene inside the window.
#[test]
fn l05_s08_rapid_claims_and_the_two_cases_the_arbiter_acts_on() {
    let promotion = |edition: &str, tc: &str| -> Vec<Event> {
        let mut b = game_from(
            "6k1/3P4/8/8/8/8/8/4K3 w - - 0 1",
            edition,
            tc,
            "reduced",
            900,
        );
        b.mv("d7", "d8", 'P').wait(250).press().wait(900);
        b.run()
    };
    let both_checks = |edition: &str, tc: &str| -> Vec<Event> {
        let mut b = game_from(
            "4k3/8/8/8/8/8/8/R3K2r w - - 0 1",
            edition,
            tc,
            "reduced",
            900,
        );
        b.mv("a1", "a8", 'R').wait(250).press().wait(900);
        b.run()
    };
    // (a) 2005 rapid: a claim only.
    let a = one(
        &t03("fide-2005", "1500", "reduced").run(),
        AlertKind::IllegalMove,
    );
    assert_eq!(a.severity, Severity::Claim);
    let v = illegal_move_verdict(&a);
    assert!(
        matches!(v, IllegalMoveVerdict::OnClaim { window, offence }
            if offence.offender == Color::Black && *window == "B6"),
        "{v:?}"
    );
    assert!(v.on_claim());
    // (b) and (c), 2005 rapid: the arbiter intervenes (B6).
    let p = one(
        &promotion("fide-2005", "1500"),
        AlertKind::PromotionIncomplete,
    );
    assert_eq!((p.severity, article(&p)), (Severity::Intervene, "7.4a"));
    match illegal_move_verdict(&p) {
        IllegalMoveVerdict::ArbiterIntervenes { window, offence } => {
            assert_eq!(*window, "B6");
            assert_eq!(
                (
                    offence.opponent(),
                    time_to_opponent(offence),
                    offence.article
                ),
                (Color::Black, Some(120_000), Article::new("7.4b"))
            );
        }
        v => panic!("the arbiter intervenes (B6): {v:?}"),
    }
    let c = one(&both_checks("fide-2005", "1500"), AlertKind::IllegalMove);
    assert_eq!((c.severity, article(&c)), (Severity::Intervene, "7.4a"));
    assert!(
        matches!(
            illegal_change(&c).change,
            WhatChanged::Move {
                both_kings_in_check: true,
                ..
            }
        ),
        "{c:?}"
    );
    assert!(
        matches!(illegal_move_verdict(&c),
            IllegalMoveVerdict::ArbiterIntervenes { window, .. } if *window == "B6"),
        "{c:?}"
    );
    // 2005 blitz: claims (C3).
    for ev in [
        promotion("fide-2005", "300"),
        both_checks("fide-2005", "300"),
    ] {
        let a = alert_of(&ev, AlertKind::PromotionIncomplete)
            .into_iter()
            .chain(alert_of(&ev, AlertKind::IllegalMove))
            .next()
            .unwrap();
        assert_eq!(a.severity, Severity::Claim, "{a:?}");
        assert!(
            matches!(illegal_move_verdict(&a),
                IllegalMoveVerdict::OnClaimWinsOrDrawn { window, .. } if *window == "C3"),
            "{a:?}"
        );
    }
    // 2017+ rapid, reduced: inside the window the arbiter acts.
    for edition in ["fide-2017", "fide-2018", "fide-2023"] {
        let p = one(&promotion(edition, "1500"), AlertKind::PromotionIncomplete);
        assert_eq!(p.severity, Severity::Intervene, "{edition}");
        let c = one(&both_checks(edition, "1500"), AlertKind::IllegalMove);
        assert_eq!(c.severity, Severity::Intervene, "{edition}");
    }
}

/// L05-S09 (T09): 1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8: Black may claim by writing 4…Ng8,
/// White after it; the game is not ended automatically.
#[test]
fn l05_s09_threefold_available_never_ends_the_game() {
    for edition in EDITIONS {
        let mut b = started();
        b.op(&format!(r#"{{"setup": {{"edition": "{edition}"}}}}"#));
        make(&mut b, &["g1f3N", "g8f6n", "f3g1N", "f6g8n"].repeat(2));
        let ev = b.run();
        let c = claims(&ev, AlertKind::ThreefoldRepetitionAvailable);
        assert_eq!(
            c,
            [(7, Side::Black, Some("Ng8".into())), (8, Side::White, None)],
            "{edition}"
        );
        let (with, now) = match edition {
            "fide-2005" => ("9.2a", "9.2b"),
            "fide-2023" => ("9.2.1", "9.2.2"),
            _ => ("9.2.1.1", "9.2.1.2"),
        };
        let arts: Vec<String> = alert_of(&ev, AlertKind::ThreefoldRepetitionAvailable)
            .iter()
            .map(|a| article(a).to_string())
            .collect();
        assert_eq!(arts, [with, now]);
        assert!(ends(&ev).is_empty(), "{edition}");
    }
}

/// L05-S10 (T10): after 1.Nf3 Nf6 2.Ng1 Ng8 (the 2nd occurrence) White claims with 2:30
/// left, Black has 10:00. 2005: Black +3:00, White cut to 1:15 (9.5b), with the variants;
/// 2017 / 2018: Black +2:00, White unchanged; 2023 rapid: +1:00.
#[test]
fn l05_s10_penalty_for_a_wrong_claim() {
    let fide_2005 = |own_time| WrongClaimPenalty {
        add_ms: 180_000,
        article: Article::new("9.5b"),
        own_time: Some(own_time),
    };
    let minutes = |n: u64| WrongClaimPenalty {
        add_ms: n * 60_000,
        article: Article::new("9.5.3"),
        own_time: None,
    };
    let halved = |from_ms, to_ms| OwnTimeCut::Halved { from_ms, to_ms };
    let cases = [
        ("fide-2005", "5400", 150, fide_2005(halved(150_000, 75_000))),
        (
            "fide-2005",
            "5400",
            90,
            fide_2005(OwnTimeCut::ToOneMinute { from_ms: 90_000 }),
        ),
        ("fide-2005", "5400", 40, fide_2005(OwnTimeCut::Stays)),
        (
            "fide-2005",
            "5400",
            480,
            fide_2005(halved(480_000, 300_000)),
        ),
        ("fide-2005", "5400", 120, fide_2005(OwnTimeCut::Boundary)),
        ("fide-2005", "5400", 60, fide_2005(OwnTimeCut::Boundary)),
        ("fide-2017", "5400", 150, minutes(2)),
        ("fide-2018", "5400", 150, minutes(2)),
        ("fide-2023", "1500", 150, minutes(1)),
    ];
    for (edition, tc, white_secs, penalty) in cases {
        let mut b = started();
        b.op(&format!(
            r#"{{"setup": {{"edition": "{edition}", "time_control": "{tc}"}}}}"#
        ));
        b.clock = Some((white_secs, 600, Some(false)));
        b.reading();
        b.wait(300);
        b.play(&[
            ("g1", "f3", 'N'),
            ("g8", "f6", 'n'),
            ("f3", "g1", 'N'),
            ("f6", "g8", 'n'),
        ]);
        b.op(r#"{"claim": {"kind": "threefold"}}"#);
        let v = verdict(&b.run());
        assert_eq!(v.side, Some(Side::White));
        assert_eq!(
            claim_verdict(&v).decision,
            ClaimDecision::Incorrect(penalty),
            "{edition} {white_secs}"
        );
    }
}

/// L05-S11 (T11): 1.e4 a6 2.e5 d5 (exd6 e.p. possible) and the knight dance: a claim after
/// 6…Nb8 is incorrect (two occurrences), after 8…Nb8 correct.
#[test]
fn l05_s11_en_passant_right_in_repetitions() {
    let mut script = vec!["e2e4P", "a7a6p", "e4e5P", "d7d5p"];
    for _ in 0..2 {
        script.extend(["g1f3N", "b8c6n", "f3g1N", "c6b8n"]);
    }
    let mut b = started();
    make(&mut b, &script);
    b.op(r#"{"claim": {"kind": "threefold"}}"#);
    let ev = b.run();
    assert_eq!(moves(&ev).len(), 12);
    assert!(
        !claims(&ev, AlertKind::ThreefoldRepetitionAvailable).contains(&(12, Side::White, None))
    );
    assert!(matches!(
        claim_verdict(&verdict(&ev)).decision,
        ClaimDecision::Incorrect(_)
    ));

    make(&mut b, &["g1f3N", "b8c6n", "f3g1N", "c6b8n"]);
    b.op(r#"{"claim": {"kind": "threefold"}}"#);
    let ev = b.run();
    assert!(
        claims(&ev, AlertKind::ThreefoldRepetitionAvailable).contains(&(16, Side::White, None))
    );
    assert_eq!(
        claim_verdict(&verdict(&ev)).decision,
        ClaimDecision::Correct
    );
}

/// L05-S12 (T12): 1.e4 Nf6 2.Nf3 Ng8 3.Ng1 Nf6 4.Nf3 Ng8 5.Ng1: e3 after 1.e4 is no legal
/// e.p. capture, so the position after 5.Ng1 stands for the third time: Black may claim.
#[test]
fn l05_s12_a_double_step_without_en_passant_does_not_split() {
    let mut b = started();
    make(
        &mut b,
        &[
            "e2e4P", "g8f6n", "g1f3N", "f6g8n", "f3g1N", "g8f6n", "g1f3N", "f6g8n", "f3g1N",
        ],
    );
    b.op(r#"{"claim": {"kind": "threefold"}}"#);
    let ev = b.run();
    assert!(claims(&ev, AlertKind::ThreefoldRepetitionAvailable).contains(&(9, Side::Black, None)));
    let v = verdict(&ev);
    assert_eq!(v.side, Some(Side::Black));
    assert_eq!(claim_verdict(&v).decision, ClaimDecision::Correct, "{v:?}");
}

/// L05-S13 (T13): `r3k2r/8/8/8/8/8/3Q4/1K6 w kq`: 1.Qe2+ Kd8 2.Qd2+ Ke8 3.Qe2+ Kd8 4.Qd2+ Ke8
/// 5.Qe2+ Kd8: the castling rights make ply 1 differ; no claim after 4…Ke8 or 5.Qe2+; Black
/// may claim by writing 5…Kd8, White after it.
#[test]
fn l05_s13_castling_rights_in_repetitions() {
    let mut b = Board::from_fen("r3k2r/8/8/8/8/8/3Q4/1K6 w kq - 0 1", "");
    let dance = ["d2e2Q", "e8d8k", "e2d2Q", "d8e8k"];
    make(&mut b, &dance.repeat(2));
    make(&mut b, &["d2e2Q"]);
    let ev = b.run();
    assert_eq!(moves(&ev).len(), 9);
    assert_eq!(
        claims(&ev, AlertKind::ThreefoldRepetitionAvailable),
        [(9, Side::Black, Some("Kd8".into()))]
    );
    make(&mut b, &["e8d8k"]);
    let ev = b.run();
    assert_eq!(
        claims(&ev, AlertKind::ThreefoldRepetitionAvailable).last(),
        Some(&(10, Side::White, None))
    );
}

/// L05-S14 (T14): (1.Nf3 Nf6 2.Ng1 Ng8) × 4: 2017+ fivefold at 8…Ng8, drawn at once (the
/// repetitions are consecutive, so 2017's reading too); 2005: only the threefold claim.
#[test]
fn l05_s14_fivefold_by_edition() {
    for edition in EDITIONS {
        let mut b = started();
        b.op(&format!(r#"{{"setup": {{"edition": "{edition}"}}}}"#));
        make(&mut b, &["g1f3N", "g8f6n", "f3g1N", "f6g8n"].repeat(4));
        let ev = b.run();
        assert_eq!(moves(&ev).len(), 16);
        if edition == "fide-2005" {
            assert!(alert_of(&ev, AlertKind::FivefoldRepetition).is_empty());
            assert!(ends(&ev).is_empty());
            assert!(
                claims(&ev, AlertKind::ThreefoldRepetitionAvailable).contains(&(
                    16,
                    Side::White,
                    None
                ))
            );
        } else {
            let a = one(&ev, AlertKind::FivefoldRepetition);
            assert_eq!((a.severity, article(&a)), (Severity::Info, "9.6.1"));
            assert_eq!(a.ply, Some(16));
            assert_eq!(
                ends(&ev),
                [("1/2-1/2".to_string(), "fivefold_repetition".to_string())]
            );
        }
    }
}

/// L05-S15 (T15): as T14, play goes on after the fivefold, Black is mated later and 1-0 is
/// entered: the fivefold draw stands (events after the end never change the result), the
/// arbiter is told once that play went on (`move_after_game_end` / intervene: the end by
/// rule itself is `info`), and the entered
/// result is reported as conflicting with it (`result_conflict` / review).
#[test]
fn l05_s15_result_entered_after_the_fivefold() {
    for edition in ["fide-2017", "fide-2018", "fide-2023"] {
        let mut b = started();
        b.op(&format!(r#"{{"setup": {{"edition": "{edition}"}}}}"#));
        make(&mut b, &["g1f3N", "g8f6n", "f3g1N", "f6g8n"].repeat(4));
        make(&mut b, &["e2e4P", "f7f6p", "d2d4P", "g7g5p", "d1h5Q"]);
        b.op(r#"{"result": "1-0"}"#);
        b.wait(300);
        let ev = b.run();
        assert_eq!(
            ends(&ev),
            [("1/2-1/2".to_string(), "fivefold_repetition".to_string())],
            "{edition}"
        );
        let a = one(&ev, AlertKind::ResultConflict);
        assert_eq!(a.severity, Severity::Review);
        assert_eq!(
            *record_verdict(&a),
            RecordVerdict::AgainstEndByRule {
                entered: GameResult::WhiteWins,
                ended: GameResult::Drawn,
                reason: EndReason::FivefoldRepetition,
                ply: 16
            },
            "{edition}"
        );
        // Play went on after the fivefold: told once, with the first move made.
        let after = one(&ev, AlertKind::MoveAfterGameEnd);
        assert_eq!(after.severity, Severity::Intervene);
        assert_eq!(
            *record_verdict(&after),
            RecordVerdict::PlayAfterEnd {
                result: GameResult::Drawn,
                reason: EndReason::FivefoldRepetition,
                ply: 16,
                san: "e4".into()
            },
            "{edition}"
        );
    }
    // The same result as the rule end: nothing to report.
    let mut b = started();
    make(&mut b, &["g1f3N", "g8f6n", "f3g1N", "f6g8n"].repeat(4));
    b.op(r#"{"result": "1/2-1/2"}"#);
    b.wait(300);
    assert!(alert_of(&b.run(), AlertKind::ResultConflict).is_empty());
}

/// L05-S16 (T16): `4k3/8/8/8/8/8/r7/R3K3 w`, 150 plies with no capture or pawn move: the
/// fifty-move claim with a written move from ply 99 (9.3a / 9.3.1), on the position from
/// ply 100 (9.3b / 9.3.2); 2017+: the 75-move rule ends the game at ply 150; 2005 never.
#[test]
fn l05_s16_fifty_and_seventy_five_moves() {
    const FEN: &str = "4k3/8/8/8/8/8/r7/R3K3 w - - 0 1";
    let walk = quiet_walk(FEN, 150);
    for edition in EDITIONS {
        let mut b = Board::from_fen(FEN, &format!(r#""edition": "{edition}""#));
        for (f, t, p) in &walk {
            b.mv(f, t, *p).wait(400);
        }
        let ev = b.run();
        assert_eq!(moves(&ev).len(), 150, "{edition}");
        let fifty = alert_of(&ev, AlertKind::FiftyMoveRuleAvailable);
        let first: Vec<(Option<u32>, &str, bool)> = fifty
            .iter()
            .take(2)
            .map(|a| (a.ply, article(a), a.uci.is_some()))
            .collect();
        let (with, now) = by_edition(edition, "9.3a 9.3b", "9.3.1 9.3.2", "9.3.1 9.3.2")
            .split_once(' ')
            .unwrap();
        assert_eq!(
            first,
            [(Some(99), with, true), (Some(100), now, false)],
            "{edition}"
        );
        if edition == "fide-2005" {
            assert!(ends(&ev).is_empty());
            assert!(alert_of(&ev, AlertKind::SeventyFiveMoveRule).is_empty());
        } else {
            let a = one(&ev, AlertKind::SeventyFiveMoveRule);
            assert_eq!(
                (a.severity, article(&a), a.ply),
                (Severity::Info, "9.6.2", Some(150))
            );
            assert_eq!(
                ends(&ev),
                [("1/2-1/2".to_string(), "seventy_five_move_rule".to_string())]
            );
        }
    }
}

/// L05-S17 (T17): as T09, but Black plays 4…Ng8 and then claims: void, Black is not on
/// move; the claim is White's now (9.2b).
#[test]
fn l05_s17_claim_after_playing_the_move_is_void() {
    for edition in EDITIONS {
        let mut b = started();
        b.op(&format!(r#"{{"setup": {{"edition": "{edition}"}}}}"#));
        make(&mut b, &["g1f3N", "g8f6n", "f3g1N", "f6g8n"].repeat(2));
        b.op(r#"{"claim": {"kind": "threefold", "side": "black", "move": "f6g8"}}"#);
        let ev = b.run();
        let v = verdict(&ev);
        assert_eq!(v.side, Some(Side::Black));
        let claim = claim_verdict(&v);
        assert_eq!(claim.claimant, Color::Black);
        assert_eq!(
            claim.decision,
            ClaimDecision::NotOnMove {
                on_move: Color::White
            },
            "{v:?}"
        );
        assert!(
            claims(&ev, AlertKind::ThreefoldRepetitionAvailable).contains(&(8, Side::White, None))
        );
        assert!(ends(&ev).is_empty());
    }
}

/// L05-S18 (T18): `6k1/8/8/3n4/2B5/8/8/6K1 w`: Bxd5 without a press leaves K+B v K: drawn at
/// the release (5.2b; 2017+ 5.2.2); a later flag is irrelevant.
#[test]
fn l05_s18_dead_position_by_a_capture() {
    for edition in EDITIONS {
        let mut b = game_from(
            "6k1/8/8/3n4/2B5/8/8/6K1 w - - 0 1",
            edition,
            "5400",
            "full",
            5,
        );
        b.lift("d5").mv("c4", "d5", 'B').wait(900);
        b.flag(true, true).wait(300);
        let ev = b.run();
        let a = one(&ev, AlertKind::DeadPosition);
        assert_eq!(a.severity, Severity::Info);
        assert_eq!(article(&a), by_edition(edition, "5.2b", "5.2.2", "5.2.2"));
        assert_eq!(a.ply, Some(1));
        assert_eq!(
            ends(&ev),
            [("1/2-1/2".to_string(), "dead_position".to_string())]
        );
        assert!(!alerts(&ev).contains(&AlertKind::FlagFall));
    }
}

/// L05-S19 (T19): a capture leaves K+N+N v K: no dead position. The lone king's flag: the
/// K+N+N side wins; the K+N+N side's flag: drawn.
#[test]
fn l05_s19_two_knights_are_not_dead() {
    for edition in EDITIONS {
        let art = by_edition(edition, "6.10", "6.9", "6.9");
        let mut b = game_from(
            "4k3/8/8/1r6/8/2N5/3N4/4K3 w - - 0 1",
            edition,
            "5400",
            "full",
            300,
        );
        b.lift("b5").mv("c3", "b5", 'N').wait(250).press().wait(900);
        b.flag(false, true).wait(300);
        let ev = b.run();
        assert_eq!(moves(&ev), ["c3b5"]);
        assert!(!alerts(&ev).contains(&AlertKind::DeadPosition));
        let a = one(&ev, AlertKind::FlagFall);
        assert_eq!((a.severity, article(&a)), (Severity::Intervene, art));
        assert_eq!(a.side, Some(Side::Black));
        let v = flag_verdict(&a);
        assert_eq!(
            (v.decision, v.result, v.article),
            (
                FlagDecision::LosesOnTime {
                    flagged: Color::Black
                },
                Some(GameResult::WhiteWins),
                Article::new(art)
            ),
            "{edition}"
        );
        assert_eq!(
            (v.call, v.render().as_deref()),
            (FlagCall::Declared, Some("Result 1-0."))
        );
        assert_eq!(ends(&ev), [("1-0".to_string(), "flag_fall".to_string())]);

        let mut b = game_from(
            "4k3/8/8/8/8/2N5/3N4/4K3 w - - 0 1",
            edition,
            "5400",
            "full",
            5,
        );
        b.tick().wait(1000).flag(true, true).wait(300);
        let ev = b.run();
        let a = one(&ev, AlertKind::FlagFall);
        let v = flag_verdict(&a);
        assert_eq!(
            (v.decision, v.result),
            (
                FlagDecision::OpponentCannotMate {
                    flagged: Color::White
                },
                Some(GameResult::Drawn)
            ),
            "{edition}"
        );
        assert_eq!(
            ends(&ev),
            [("1/2-1/2".to_string(), "flag_fall".to_string())]
        );
    }
}

/// L05-S20 (T20): `8/8/8/8/4n3/7k/8/6RK w`: White's flag: Black wins (…Nf2# exists with the
/// rook on g1); Black's flag: White wins; without the rook, White's flag: drawn.
#[test]
fn l05_s20_flag_and_helpmate_potential() {
    for edition in EDITIONS {
        let mut b = game_from("8/8/8/8/4n3/7k/8/6RK w - - 0 1", edition, "5400", "full", 5);
        b.tick().wait(1000).flag(true, true).wait(300);
        let ev = b.run();
        assert_eq!(one(&ev, AlertKind::FlagFall).side, Some(Side::White));
        assert_eq!(
            ends(&ev),
            [("0-1".to_string(), "flag_fall".to_string())],
            "{edition}"
        );

        let mut b = game_from("8/8/8/8/4n3/7k/8/6RK w - - 0 1", edition, "5400", "full", 5);
        b.play(&[("g1", "a1", 'R')]);
        b.flag(false, true).wait(300);
        let ev = b.run();
        assert_eq!(one(&ev, AlertKind::FlagFall).side, Some(Side::Black));
        assert_eq!(
            ends(&ev),
            [("1-0".to_string(), "flag_fall".to_string())],
            "{edition}"
        );

        let mut b = game_from("8/8/8/8/4n3/7k/8/7K w - - 0 1", edition, "5400", "full", 5);
        b.tick().wait(1000).flag(true, true).wait(300);
        let ev = b.run();
        assert_eq!(
            ends(&ev),
            [("1/2-1/2".to_string(), "flag_fall".to_string())],
            "{edition}"
        );
    }
}

/// L05-S21 (T21): 2005, 40 moves in 90 min + 30 min: the flag at the end of period 1 with
/// (a) 39 completed moves loses (6.3, 6.10); (b) with 40 the period is reached (6.3; 2017+
/// 6.4), and nothing is said at move 40 itself.
#[test]
fn l05_s21_period_flag_with_39_or_40_moves() {
    const FEN: &str = "4k3/8/8/8/8/8/r7/R3K3 w - - 0 1";
    let walk = quiet_walk(FEN, 80);
    for edition in EDITIONS {
        for completed in [39usize, 40] {
            let mut b = game_from(FEN, edition, "40/5400:1800", "full", 5400);
            b.play_walk(&walk[..completed * 2]);
            let before = b.run();
            b.flag(true, false).wait(300);
            let ev = b.run();
            assert_eq!(moves(&ev).len(), completed * 2);
            assert!(alerts(&before).is_empty(), "{:?}", alerts(&before));
            let a = one(&ev, AlertKind::FlagFall);
            assert_eq!(a.side, Some(Side::White));
            if completed == 39 {
                assert_eq!(a.severity, Severity::Intervene);
                assert_eq!(article(&a), by_edition(edition, "6.10", "6.9", "6.9"));
                let v = flag_verdict(&a);
                assert_eq!(
                    (v.decision, v.result),
                    (
                        FlagDecision::LosesOnTime {
                            flagged: Color::White
                        },
                        Some(GameResult::BlackWins)
                    )
                );
                assert_eq!(ends(&ev), [("0-1".to_string(), "flag_fall".to_string())]);
            } else {
                assert_eq!(a.severity, Severity::Info);
                assert_eq!(article(&a), by_edition(edition, "6.3", "6.4", "6.4"));
                let v = flag_verdict(&a);
                assert_eq!(
                    (v.decision, v.result, v.article),
                    (
                        FlagDecision::PeriodReached {
                            flagged: Color::White
                        },
                        None,
                        Article::new(by_edition(edition, "6.3", "6.4", "6.4"))
                    )
                );
                assert_eq!(a.prescription, None);
                assert!(ends(&ev).is_empty());
            }
        }
    }
}

/// L05-S23 (T23): 2005 rapid: Black's flag falls and White does not claim: an arbiter-only
/// claim alert, the game goes on (B7); later White's flag falls too: drawn (B9). 2017
/// reduced: the arbiter may call it (review); 2018 / 2023: he shall (intervene).
#[test]
fn l05_s23_rapid_flag_is_silent_until_claimed() {
    let mut b = event("fide-2005", "1500", "reduced", 1500);
    b.play(&[("e2", "e4", 'P')]);
    b.flag(false, false).wait(300);
    let first = b.run();
    b.play(&[("e7", "e5", 'p')]);
    b.flag(true, false).wait(300);
    let ev = b.run();
    let f = one(&first, AlertKind::FlagFall);
    assert_eq!((f.severity, f.side), (Severity::Claim, Some(Side::Black)));
    // Decided only on White's claim (B8): the result is the verdict's, not yet the game's.
    let v = flag_verdict(&f);
    assert_eq!(
        (v.call, v.decision, v.result),
        (
            FlagCall::OnClaim,
            FlagDecision::LosesOnTime {
                flagged: Color::Black
            },
            Some(GameResult::WhiteWins)
        )
    );
    assert!(ends(&first).is_empty(), "no result without a claim (B7)");
    assert_eq!(moves(&ev), ["e2e4", "e7e5"]);
    let both = one(&ev, AlertKind::BothFlagsFallen);
    assert_eq!((both.severity, article(&both)), (Severity::Intervene, "B9"));
    let v = flag_verdict(&both);
    assert_eq!(
        (v.decision, v.result, v.article),
        (
            FlagDecision::BothFlagsDrawn,
            Some(GameResult::Drawn),
            Article::new("B9")
        )
    );
    assert_eq!(
        ends(&ev),
        [("1/2-1/2".to_string(), "both_flags_fallen".to_string())]
    );

    for (edition, sev) in [
        ("fide-2017", Severity::Review),
        ("fide-2018", Severity::Intervene),
        ("fide-2023", Severity::Intervene),
    ] {
        let mut b = event(edition, "1500", "reduced", 1500);
        b.play(&[("e2", "e4", 'P')]);
        b.flag(false, true).wait(300);
        let ev = b.run();
        let f = one(&ev, AlertKind::FlagFall);
        assert_eq!(f.severity, sev, "{edition}");
        assert_eq!(article(&f), "6.9");
        let call = if sev == Severity::Review {
            FlagCall::MayCall
        } else {
            FlagCall::Declared
        };
        assert_eq!(flag_verdict(&f).call, call, "{edition}");
    }
}

/// L05-S26 (T26): `r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq`: (a) `-Rh1 +Rf1 -Ke1 +Kg1
/// press`: O-O stands, castling begun with the rook (4.4b; 2017+ 4.4.2); (b) king and rook
/// off the board together: a possible two-handed move (4.1; 2017 7.7.1; 2018+ 7.5.4), for
/// review, not counted as an offence.
#[test]
fn l05_s26_castling_rook_first_or_with_two_hands() {
    const FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    for edition in EDITIONS {
        let mut b = game_from(FEN, edition, "5400", "full", 5400);
        b.mv("h1", "f1", 'R')
            .mv("e1", "g1", 'K')
            .wait(250)
            .press()
            .wait(900);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e1g1"]);
        let a = one(&ev, AlertKind::CastlingRookFirst);
        assert_eq!(a.severity, Severity::Review);
        assert_eq!(article(&a), by_edition(edition, "4.4b", "4.4.2", "4.4.2"));

        let mut b = game_from(FEN, edition, "5400", "full", 5400);
        b.lift("e1");
        b.t -= 40; // the second lift 40 ms after the first
        b.lift("h1")
            .wait(300)
            .put("g1", 'K')
            .put("f1", 'R')
            .wait(250)
            .press()
            .wait(900);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e1g1"]);
        let a = one(&ev, AlertKind::TwoHandedMove);
        assert_eq!(a.severity, Severity::Review, "{edition}");
        let art = if edition == "fide-2005" {
            "4.1"
        } else {
            by_edition(edition, "", "7.7.1", "7.5.4")
        };
        assert_eq!(article(&a), art);
        assert_eq!(a.prescription, None, "a suspicion is not counted");
    }
}

/// L05-S26 (b) continued: the arbiter confirms the two-handed castling (`{"confirm": id}`).
/// 2018 / 2023: penalised as an illegal move (7.5.4 → 7.5.5), so White's next illegal move
/// is his second and loses; 2017: counted on its own (7.7.1), the next illegal move is the
/// first; 2005: no penalty (4.1), nothing counted. The move stands in every edition.
#[test]
fn two_handed_move_confirmed_by_the_arbiter_counts() {
    const FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    for edition in EDITIONS {
        let castle_with_two_hands = |confirm: Option<u64>| {
            let mut b = game_from(FEN, edition, "5400", "full", 5400);
            castle_with_two_hands(&mut b);
            if let Some(id) = confirm {
                b.op(&format!(r#"{{"confirm": {id}}}"#));
                b.wait(300);
            }
            b.play(&[("a7", "a6", 'p')]);
            b.mv("b2", "b5", 'P').wait(250).press().wait(900);
            b
        };
        let id = one(&castle_with_two_hands(None).run(), AlertKind::TwoHandedMove).id;
        let ev = castle_with_two_hands(Some(id)).run();
        assert_eq!(
            moves(&ev),
            ["e1g1", "a7a6"],
            "{edition}: the castling stands"
        );
        let two = alert_of(&ev, AlertKind::TwoHandedMove);
        assert_eq!(two.len(), 2, "{edition}");
        let confirmed = &two[1];
        assert_eq!(confirmed.severity, Severity::Intervene, "{edition}");
        assert_eq!(confirmed.ply, Some(1));
        let illegal = one(&ev, AlertKind::IllegalMove);
        let illegal = offence_verdict(&illegal);
        let two_minutes = |article, loses_at| {
            (
                Color::White,
                1,
                Article::new(article),
                OffenceDecision::TimeToOpponent {
                    add_ms: 120_000,
                    loses_at,
                },
            )
        };
        let of = |v: &OffenceVerdict| (v.offender, v.number, v.article, v.decision);
        match edition {
            "fide-2005" => {
                // 2005 sets no penalty for a move made with two hands (4.1).
                assert_eq!(confirmed.offence_verdict(), None, "{confirmed:?}");
                assert_eq!(
                    confirmed.prescription.as_deref().map(str::is_empty),
                    Some(false)
                );
                assert_eq!((illegal.offender, illegal.number), (Color::White, 1));
            }
            "fide-2017" => {
                assert_eq!(article(confirmed), "7.7.1");
                assert_eq!(of(offence_verdict(confirmed)), two_minutes("7.7.1", 2));
                assert_eq!((illegal.offender, illegal.number), (Color::White, 1));
            }
            _ => {
                assert_eq!(article(confirmed), "7.5.4");
                assert_eq!(of(offence_verdict(confirmed)), two_minutes("7.5.5", 2));
                assert_eq!(
                    (illegal.offender, illegal.decision),
                    (Color::White, OffenceDecision::Loses)
                );
            }
        }
    }
}

/// L05-S30 (T30): the king is knocked over (off its square) for several seconds, White's
/// flag falls, then the king is put back: a displaced piece, not a move (7.3); the flag
/// loses (6.10; 2017+ 6.9), as Black can mate.
#[test]
fn l05_s30_knocked_over_king_and_the_flag() {
    for edition in EDITIONS {
        let mut b = game(edition, "5400", 5);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        b.lift("e1").wait(4000);
        b.flag(true, true).wait(300);
        b.put("e1", 'K').wait(900);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e2e4", "e7e5"]);
        let p = one(&ev, AlertKind::IllegalPosition);
        assert_eq!(
            (p.severity, p.squares.clone()),
            (Severity::Review, vec!["e1".to_string()])
        );
        let f = one(&ev, AlertKind::FlagFall);
        assert_eq!(
            (f.severity, article(&f)),
            (
                Severity::Intervene,
                by_edition(edition, "6.10", "6.9", "6.9")
            )
        );
        assert_eq!(ends(&ev), [("0-1".to_string(), "flag_fall".to_string())]);
    }
}

/// Both displays at zero in one reading: which flag fell first is unknown (as after a gap
/// in the readings).
fn both_flags_at_once(b: &mut Board, final_flags: bool) {
    let bit = if final_flags { 0x10 } else { 0x40 };
    b.flags = (bit, bit);
    b.clock = Some((0, 0, if final_flags { None } else { Some(false) }));
    b.reading();
    b.wait(300);
}

/// L05-S22 (T22): 2005 standard, both flags down: (a) order unknown before the last period:
/// the game goes on (6.12a); (b) order unknown in the last period: drawn (6.12b); (c) White's
/// flag seen first: White's flag decides (6.10); Black's, 0.3 s later, is reported as info.
#[test]
fn l05_s22_both_flags_in_standard_play() {
    let mut b = game("fide-2005", "40/5400:1800", 5400);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    both_flags_at_once(&mut b, false);
    let ev = b.run();
    let a = one(&ev, AlertKind::BothFlagsFallen);
    assert_eq!((a.severity, article(&a)), (Severity::Review, "6.12a"));
    assert_eq!(flag_verdict(&a).decision, FlagDecision::BothFlagsGoOn);
    assert!(ends(&ev).is_empty());
    assert!(!alerts(&ev).contains(&AlertKind::FlagFall));

    let mut b = game("fide-2005", "5400", 5400);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    both_flags_at_once(&mut b, true);
    let ev = b.run();
    let a = one(&ev, AlertKind::BothFlagsFallen);
    assert_eq!((a.severity, article(&a)), (Severity::Intervene, "6.12b"));
    assert_eq!(
        ends(&ev),
        [("1/2-1/2".to_string(), "both_flags_fallen".to_string())]
    );

    let mut b = game("fide-2005", "5400", 5400);
    b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
    b.flag(true, true).wait(300);
    b.flags.1 = 0x10;
    b.reading();
    let ev = b.run();
    let f = one(&ev, AlertKind::FlagFall);
    assert_eq!((f.side, article(&f)), (Some(Side::White), "6.10"));
    assert_eq!(ends(&ev), [("0-1".to_string(), "flag_fall".to_string())]);
    // Black's flag after the end: the order is reported for the record, the result stands.
    let both = one(&ev, AlertKind::BothFlagsFallen);
    assert_eq!(both.severity, Severity::Info);
    assert_eq!(both.side, Some(Side::White));
    assert!(
        matches!(
            flag_verdict(&both).decision,
            FlagDecision::FirstFellBefore {
                first: Color::White,
                by_ms: 300..=399
            }
        ),
        "{both:?}"
    );
}

/// L05-S27 (T27), L17-S06: `8/4P1k1/8/8/8/8/8/4K3 w`: `-Pe7 +Qe8 -Qe8 +Ne8 press`: the move
/// is e8=N, with `promotion_choice_changed` for review — the choice was final when the queen
/// touched e8 (4.4.4; 2005 4.4d); in 2005 rapid and blitz only on a claim (B5).
#[test]
fn l05_s27_promotion_piece_swapped_before_the_press() {
    for edition in EDITIONS {
        for (tc, sev) in [
            ("5400", Severity::Review),
            (
                "900+10",
                if edition == "fide-2005" {
                    Severity::Claim
                } else {
                    Severity::Review
                },
            ),
        ] {
            let mut b = game_from("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1", edition, tc, "full", 900);
            b.lift("e7").wait(300).put("e8", 'Q').wait(600);
            b.lift("e8")
                .wait(300)
                .put("e8", 'N')
                .wait(250)
                .press()
                .wait(900);
            let ev = b.run();
            assert_eq!(moves(&ev), ["e7e8n"], "{edition} {tc}");
            let a = one(&ev, AlertKind::PromotionChoiceChanged);
            assert_eq!(a.severity, sev, "{edition} {tc}");
            assert_eq!(article(&a), by_edition(edition, "4.4d", "4.4.4", "4.4.4"));
            assert_eq!(
                hands_verdict(&a),
                &HandsVerdict::PromotionChoiceChanged {
                    mover: Color::White,
                    square: Square::E8,
                    first: Role::Queen,
                    last: Role::Knight
                },
                "{edition} {tc}"
            );
            assert_eq!(a.ply, Some(1));
        }
        // A queen straight away: nothing to say.
        let mut b = game_from(
            "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1",
            edition,
            "5400",
            "full",
            900,
        );
        b.lift("e7")
            .wait(300)
            .put("e8", 'Q')
            .wait(250)
            .press()
            .wait(900);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e7e8q"]);
        assert!(alert_of(&ev, AlertKind::PromotionChoiceChanged).is_empty());
    }
}

/// L05-S29 (T29), L17-S47/S48: the final period without increment; White on move with 1:45
/// left may claim a draw — 2005 10.2 always; 2017+ III.5 only under an announced Guideline
/// III. Not in blitz, not with an increment. For the arbiter only (claim severity).
#[test]
fn l05_s29_quickplay_finish_claim_possible() {
    let with_iii = dgt_core::CoreConfig {
        guideline_iii: true,
        ..Default::default()
    };
    let run = |edition: &str, tc: &str, config: &dgt_core::CoreConfig| {
        let mut b = game(edition, tc, 1800);
        b.play(&[("e2", "e4", 'P'), ("e7", "e5", 'p')]);
        if let Some(c) = &mut b.clock {
            c.0 = 105; // White, on move, at 1:45
        }
        b.reading();
        b.wait(500);
        b.run_with(config.clone())
    };
    for edition in EDITIONS {
        let ev = run(edition, "1800", &dgt_core::CoreConfig::default());
        let told = alert_of(&ev, AlertKind::QuickplayClaimPossible);
        if edition == "fide-2005" {
            assert_eq!(told.len(), 1, "{edition}");
            assert_eq!(
                (told[0].severity, article(&told[0])),
                (Severity::Claim, "10.2")
            );
            assert_eq!(told[0].side, Some(Side::White));
            // The time left that the message gives (1:45) is the alert's clock reading.
            assert!(
                matches!(told[0].white_ms, Some(105_000..=105_999)),
                "{:?}",
                told[0].white_ms
            );
            assert_eq!(
                clock_verdict(&told[0]),
                ClockVerdict::QuickplayClaim {
                    claimant: Color::White,
                    rejected_gives_opponent_ms: 120_000
                }
            );
        } else {
            assert!(told.is_empty(), "{edition}: Guideline III not announced");
            let ev = run(edition, "1800", &with_iii);
            let a = one(&ev, AlertKind::QuickplayClaimPossible);
            assert_eq!((a.severity, article(&a)), (Severity::Claim, "III.5"));
        }
        for tc in ["300", "1800+10"] {
            let ev = run(edition, tc, &with_iii);
            assert!(
                alert_of(&ev, AlertKind::QuickplayClaimPossible).is_empty(),
                "{edition} {tc}"
            );
        }
    }
}

/// L17-S03 (T03), the whole sequence in one game: White castles with two hands (the arbiter
/// confirms it later), makes an illegal move, then presses the clock twice without a move.
/// 2017 counts per article, as printed: three time penalties, and only the second 7.8 offence
/// loses (7.8.2). 2018 pools them: the confirmation is already the second offence (7.5.5).
#[test]
fn l17_s03_offences_of_three_articles_in_one_game() {
    const FEN: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    for edition in ["fide-2017", "fide-2018"] {
        let opening = || {
            let mut b = game_from(FEN, edition, "5400", "full", 5400);
            castle_with_two_hands(&mut b);
            b.play(&[("a7", "a6", 'p')]);
            b.mv("b2", "b5", 'P').wait(250).press().wait(900);
            take_back(&mut b, "b2", "b5", 'P');
            b.play(&[("b2", "b3", 'P'), ("a6", "a5", 'p')]);
            b
        };
        let id = one(&opening().run(), AlertKind::TwoHandedMove).id;
        let mut b = opening();
        b.op(&format!(r#"{{"confirm": {id}}}"#));
        b.wait(300);
        // White, on move, presses without moving; the arbiter restarts his clock; again.
        b.press().wait(600);
        b.set_running(Some(false)).wait(600);
        b.press().wait(600);
        let ev = b.run();
        assert_eq!(moves(&ev), ["e1g1", "a7a6", "b2b3", "a6a5"], "{edition}");
        let illegal = one(&ev, AlertKind::IllegalMove);
        let illegal = offence_verdict(&illegal);
        let two_hands = alert_of(&ev, AlertKind::TwoHandedMove);
        let confirmed = offence_verdict(&two_hands[1]);
        let presses = alert_of(&ev, AlertKind::ClockPressedWithoutMove);
        assert_eq!(presses.len(), 2, "{edition}: {presses:?}");
        assert_eq!(
            (illegal.opponent(), time_to_opponent(illegal)),
            (Color::Black, Some(120_000)),
            "{edition}"
        );
        assert_eq!(confirmed.offender, Color::White, "{edition}");
        if edition == "fide-2017" {
            assert_eq!(
                (confirmed.article, time_to_opponent(confirmed)),
                (Article::new("7.7.1"), Some(120_000))
            );
            let presses: Vec<_> = presses.iter().map(offence_verdict).collect();
            for (v, n) in presses.iter().zip(1..) {
                assert_eq!(
                    (v.offender, v.number, v.article),
                    (Color::White, n, Article::new("7.8.2"))
                );
            }
            assert_eq!(time_to_opponent(presses[0]), Some(120_000));
            assert_eq!(presses[1].decision, OffenceDecision::Loses);
        } else {
            assert_eq!(confirmed.decision, OffenceDecision::Loses, "{edition}");
        }
    }
}

/// White castles short with king and rook lifted 40 ms apart (two hands), and presses.
fn castle_with_two_hands(b: &mut Board) {
    b.lift("e1");
    b.t -= 40;
    b.lift("h1")
        .wait(300)
        .put("g1", 'K')
        .put("f1", 'R')
        .wait(250)
        .press()
        .wait(900);
}
