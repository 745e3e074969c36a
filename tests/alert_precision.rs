//! A sample of `dgt-arbiter verify --alerts`, as CI runs it: games at three paces with
//! irregularities whose truth the emulator keeps aside, the alerts scored against it.

use dgt_core::CoreConfig;
use dgt_lab::verify_alerts::{PACES, SCORED, check_alerts};

#[test]
fn alerts_are_scored_against_the_truth_at_every_pace() {
    let report = check_alerts(1, 12, &CoreConfig::default());
    eprintln!("{report}");
    assert_eq!(report.paces.len(), PACES.len());
    for p in &report.paces {
        let touch = &p.scores["touch_move"];
        assert!(touch.truth > 0, "{}: adjustments were made", p.name);
        // Every kind the games can raise at review/intervene is scored against the truth.
        assert_eq!(p.scores.len(), SCORED.len(), "{}", p.name);
        for (kind, s) in &p.scores {
            assert_eq!(s.true_positives + s.missed, s.truth, "{} {kind}", p.name);
        }
        // The players stop the clock when they end a game themselves (6.11.2: the arbiter
        // has a result to learn), and signal results on the board: raised, and true.
        for kind in ["clock_stopped", "result_gesture"] {
            let s = &p.scores[kind];
            assert!(s.true_positives > 0, "{} {kind}: {s:?}", p.name);
        }
        // An arbiter stops trusting alerts that cry wolf: no more than one false
        // review/intervene alert per 100 games, of every kind (a kind without truth counts
        // as false), at every pace.
        assert!(p.false_review_per_100() <= 1.0, "{}: {report}", p.name);
    }
    // Castling begun with the rook a scan before the king is seen at unhurried paces.
    let careful = &report.paces[0].scores["castling_rook_first"];
    assert_eq!(careful.false_positives, 0, "{careful:?}");
}

/// No runaway of offences: in time-scramble games the board can lose track of the game
/// (presses closer together than the board polls its clock, protocol §2.2, hide some of
/// them). The emulated players make no illegal move, so once the core has raised one
/// illegal move, the presses that follow before the position is reinstated must not count
/// further offences — a second one would decide the game (7.5.5) on a misread board. Seeds
/// 96 and 1453 are scramble games that raise an illegal move.
#[test]
fn a_lost_track_at_scramble_pace_counts_no_second_offence() {
    use dgt_core::{AlertKind, EventBody};
    use dgt_lab::verify::events_of;
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[2];
    for seed in [96, 1453] {
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        let events = events_of(&game, "board-1", &CoreConfig::default());
        let illegal: Vec<String> = events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::Alert(a) if a.kind == AlertKind::IllegalMove => Some(a.message.clone()),
                _ => None,
            })
            .collect();
        assert!(illegal.len() <= 1, "seed {seed}: {illegal:#?}");
        let second = events.iter().find_map(|e| match &e.body {
            EventBody::Alert(a) if offence_number(a) == Some(2) => Some(a.message.clone()),
            _ => None,
        });
        assert_eq!(second, None, "seed {seed}");
    }
}

/// The time-scramble game of `seed` and its move at `ply`.
/// Which offence of its offender the alert counts, from its verdict.
fn offence_number(a: &dgt_core::Alert) -> Option<u32> {
    use dgt_core::verdict::IllegalMoveVerdict::{ArbiterIntervenes, OnClaim, WithinWindow};
    a.offence_verdict()
        .or_else(|| match a.illegal_move_verdict()? {
            ArbiterIntervenes { offence, .. }
            | OnClaim { offence, .. }
            | WithinWindow { offence, .. } => Some(offence),
            _ => None,
        })
        .map(|v| v.number)
}

fn scramble_ply(seed: u64, ply: usize) -> (dgt_emulator::GeneratedGame, dgt_emulator::TruthMove) {
    let (pace, _, control) = PACES[2];
    let game = dgt_emulator::generate_game(dgt_lab::verify_alerts::alert_spec(seed, pace, control));
    let m = game
        .truth
        .moves
        .iter()
        .find(|m| m.ply == ply)
        .expect("the ply was played")
        .clone();
    (game, m)
}

/// Castling begun with the rook counts as visible only when the board reported the rook's
/// square emptied a report before the king's: one scan reports its squares in scan order,
/// not in the order the hands moved (protocol §1.1, §4.1). Scramble seed 82, ply 41: f1
/// filled, e1 and h1 emptied in one scan — not visible. Seed 15, ply 33: the rook on f1 a
/// scan before the king left e1 — visible, and raised.
#[test]
fn rook_first_castling_is_visible_only_a_report_ahead_of_the_king() {
    use dgt_lab::verify_alerts::rook_lift_reported_first;
    let seen = |seed: u64, ply: usize| {
        let (game, m) = scramble_ply(seed, ply);
        assert!(m.rook_first(), "seed {seed} ply {ply}: {m:?}");
        rook_lift_reported_first(&game, &m)
    };
    assert!(!seen(82, 41));
    assert!(seen(15, 33));
}

/// A two-handed castling counts as visible only when a board report showed the king and the
/// rook off the board together (none of the four squares occupied): the board reads the
/// back rank once a scan, so a castling made between two reads shows only its final
/// position, as a one-handed one does. Scramble seed 31, ply 25 (d1, c1 filled, e1, a1
/// emptied in one report) and seed 112, ply 26 (the same on the eighth rank): not visible.
/// Seed 22, ply 31: a1 and e1 emptied in one report, c1 and d1 filled in the next: visible.
#[test]
fn two_handed_castling_is_visible_only_with_both_pieces_reported_off() {
    use dgt_lab::verify_alerts::castling_both_off_reported;
    let seen = |seed: u64, ply: usize| {
        let (game, m) = scramble_ply(seed, ply);
        assert_eq!(
            m.handling,
            dgt_emulator::Handling::CastleTwoHanded,
            "seed {seed} ply {ply}"
        );
        castling_both_off_reported(&game, &m)
    };
    assert!(!seen(31, 25));
    assert!(!seen(112, 26));
    assert!(seen(22, 31));
}

/// A press judged only when the opponent's press overtook it came before that press: it
/// completed the presser's move before the opponent's reply, not the presser's next move
/// made after it (6.2.1: a press completes the move made before it). Scramble seeds 446,
/// 503, 564: a move made right after the opponent's press and pressed late (the player
/// forgot, then remembered) belongs to the late press; credited to the earlier press, it
/// would leave the late press read as a press without a move (intervene).
#[test]
fn an_overtaken_press_completes_only_the_presser_move_before_the_reply() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[2];
    for seed in [446, 503, 564] {
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        assert_read_exactly_without(&game, seed, dgt_core::AlertKind::ClockPressedWithoutMove);
    }
}

/// A piece moved twice around the reply in a time scramble (Bf1-h3, axb5, Bh3-g2, each
/// placement shown for less than a settle) leaves the placement of one longer move and the
/// reply (Bf1-g2 axb5). The board showed each placement in turn as its ply, and the press
/// judged then, made before the reply, completed only the first move (6.2.1). Read as the
/// longer move, the reply would wait for a press already spent, and the player's next move
/// would read as a second move in one: a false `illegal_move` (intervene). Scramble seeds 985,
/// 562, 833, 1331, 1538, 2859 and (fresh) 21169, 22197.
#[test]
fn a_piece_moved_twice_around_the_reply_is_read_move_by_move() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[2];
    for seed in [985, 562, 833, 1331, 1538, 2859, 21169, 22197] {
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        assert_read_exactly_without(&game, seed, dgt_core::AlertKind::IllegalMove);
    }
}

/// A player who forgot to press and remembered seconds later, after the opponent had begun
/// his reply on the running clock: the board reported the opponent's piece leaving its
/// square after the clock reported the press, and both moves were read before the press was
/// judged. The press completed the presser's own move before that reply (6.2.1), not a
/// press without a move (intervene). Scramble seeds 677, 717, 21126, 22597; blitz seeds
/// 538, 2384, 2461, 20363, 21055.
#[test]
fn a_late_press_before_the_reply_began_completed_the_presser_move() {
    use dgt_lab::verify_alerts::alert_spec;
    for (pace_index, seeds) in [
        (2, &[677, 717, 21126, 22597][..]),
        (1, &[538, 2384, 2461, 20363, 21055][..]),
    ] {
        let (pace, _, control) = PACES[pace_index];
        for &seed in seeds {
            let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
            assert_read_exactly_without(&game, seed, dgt_core::AlertKind::ClockPressedWithoutMove);
        }
    }
}

/// The players stop the clock when they end the game themselves, then signal the result
/// with the kings (protocol §4.5). The first king put on a centre square can recreate a
/// position of plies ago (careful, blitz and scramble seeds 1291 and 2426: the white king
/// back on e4, where it stood four plies earlier), which would read as those moves taken
/// back (`position_restored`, review). With the clock stopped it waits as a king move onto
/// the centre does (it may be the first half of the gesture): the other king follows, and
/// the gesture is read, every move kept.
#[test]
fn a_king_of_the_result_gesture_on_an_earlier_square_takes_nothing_back() {
    use dgt_core::AlertKind;
    use dgt_lab::verify_alerts::{alert_spec, occurrences, raised_alerts};
    let config = CoreConfig::default();
    for (pace_index, seed) in [
        (0, 1291),
        (0, 2426),
        (1, 1291),
        (1, 2426),
        (2, 384),
        (2, 1291),
    ] {
        let (pace, name, control) = PACES[pace_index];
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        assert_read_exactly_without(&game, seed, AlertKind::PositionRestored);
        let gestures = occurrences(AlertKind::ResultGesture, &game, &config);
        let raised = raised_alerts(&game, &config);
        assert!(
            gestures.iter().filter(|o| o.wanted).all(|o| raised
                .iter()
                .any(|a| a.kind == AlertKind::ResultGesture && o.matches(a))),
            "{name} {seed}: the gesture is read"
        );
    }
}

/// A piece knocked over and put back within the 3 s `illegal_position_ms` is no
/// irregularity for the arbiter, but the board reports each change up to a scan late, so
/// the time between the two reports can read longer than the piece was down (scramble
/// seed 204: c2 down 2962 ms, 3021 ms between the reports). The timer runs from the board
/// settling; these knocks (2.88–2.99 s down) raise nothing, and the moves stay exact.
#[test]
fn a_knocked_piece_put_back_within_the_time_raises_nothing() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[2];
    for seed in [204, 292, 488, 492, 936] {
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        assert!(
            game.truth.irregularities.iter().any(|i| matches!(
                i.kind,
                dgt_emulator::IrregularityKind::KnockedPiece { down_ms, .. } if down_ms > 2800
            )),
            "seed {seed}: a piece knocked over for nearly 3 s"
        );
        assert_read_exactly_without(&game, seed, dgt_core::AlertKind::IllegalPosition);
    }
}

/// A press made while the moved piece, badly centred, flickers on its new square finds the
/// board showing only the square the piece left: the move is in hand or not yet reported
/// (protocol §4.1), and the press looks again until the board reports where it landed,
/// within the press's bound — not an illegal move (blitz seeds 521, 804, 993, 1414, 1543,
/// 1903: the destination toggled 3–4 times for up to ~750 ms after the placement). Not at
/// the first move (blitz seed 1908, c2-c4): a landing seen late there reads as a move made
/// after a press that only started the clock (a first press may only start the game),
/// which would turn the clock's sides
/// round and make every later press a press without a move.
#[test]
fn a_press_with_the_moved_piece_not_yet_reported_waits_for_it() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[1];
    for seed in [521, 804, 993, 1414, 1543, 1903] {
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        assert_read_exactly_without(&game, seed, dgt_core::AlertKind::IllegalMove);
    }
    let game = dgt_emulator::generate_game(alert_spec(1908, pace, control));
    assert_read_exactly_without(&game, 1908, dgt_core::AlertKind::ClockPressedWithoutMove);
}

/// The first move's piece reported on its square before the first press, then toggling on
/// it (badly centred, protocol §4.1) until after the press was looked at: the press
/// completed the move — the piece's first landing counts, not the last report of it. Careful
/// seed 22713 (a2-a3): read as a press that only started the clock, it would turn the
/// clock's sides round, and every later press would read as a press without a move.
#[test]
fn a_first_move_flickering_on_its_square_was_made_before_the_press() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[0];
    let game = dgt_emulator::generate_game(alert_spec(22713, pace, control));
    assert_read_exactly_without(&game, 22713, dgt_core::AlertKind::ClockPressedWithoutMove);
}

/// White's first move whose piece flickered from the moment it was put down: the board
/// reported the square it left before the press and its landing only ~450 ms after it. The
/// lift before the press says the move was under way: the press completed it, it did not
/// start the clock. Read as a start, the clock's sides would turn round and every later
/// press would read as the other player's — blitz seed 2086 and the corpus games 1817, 2860
/// and 312372.
#[test]
fn a_first_move_lifted_before_the_press_and_reported_late_keeps_the_clock_sides() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[1];
    let game = dgt_emulator::generate_game(alert_spec(2086, pace, control));
    assert_read_exactly_without(&game, 2086, dgt_core::AlertKind::ClockPressedWithoutMove);
    for seed in [1817, 2860, 312372] {
        let game = dgt_emulator::generate_game(dgt_emulator::corpus_spec(seed));
        assert_read_exactly_without(&game, seed, dgt_core::AlertKind::ClockPressedWithoutMove);
    }
}

/// A rook knocked over (or touched) and put back on its square, then castling begun with the
/// king: not castling begun with the rook (careful seed 20025, ply 17: h1 down 1.8 s during
/// White's turn; seed 23427, ply 50: a8 off for 2.4 s).
#[test]
fn a_rook_put_back_before_a_king_first_castling_is_not_rook_first() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[0];
    for seed in [20025, 23427] {
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        assert_read_exactly_without(&game, seed, dgt_core::AlertKind::CastlingRookFirst);
    }
}

/// A piece's two moves around the opponent's quick reply (Ke2-f2 …Bb7 Kf2-e3) reach the
/// placement of one move of it and the reply (Ke2-e3 …Bb7). The board showed the placement
/// after each move in turn, and that is what is read: the shorter line would turn the side
/// to move round, and the next move would read as an illegal one or an illegal position
/// (scramble seeds 562, 833, 985, 1337, 1538, 2607).
#[test]
fn a_piece_moved_twice_around_a_quick_reply_is_read_as_two_moves() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[2];
    for seed in [562, 833, 985, 1337, 1538, 2607] {
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        assert_read_exactly_without(&game, seed, dgt_core::AlertKind::IllegalPosition);
    }
}

/// A slide reported on a square on its way (protocol §4.1) long enough to be read, then
/// on its last square, while the board already showed moves not yet completed (Rh1-g1 …d6
/// Ra1-a2 …a3): the slide going on is the same move, not a second one of that piece
/// (scramble seeds 211, 1244, 1446; 22512: b2-b3 …b4).
#[test]
fn a_slide_seen_on_its_way_among_uncompleted_moves_is_one_move() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[2];
    for seed in [211, 1244, 1446, 22512] {
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        assert_read_exactly_without(&game, seed, dgt_core::AlertKind::IllegalPosition);
    }
}

/// The line the board showed move by move (Qb8-d8 …h3 Qd8-b6), judged at the third press
/// once the board settled, with the player then on move holding a piece for his next move
/// (the h3 pawn), is read as shown: read as one move and the opponent's piece in hand
/// (Qb8-b6 with the h4 pawn lifted), it would turn the side to move round (scramble seed
/// 22828).
#[test]
fn a_line_shown_move_by_move_with_the_next_piece_lifted_is_read_as_shown() {
    use dgt_lab::verify_alerts::alert_spec;
    let (pace, _, control) = PACES[2];
    let game = dgt_emulator::generate_game(alert_spec(22828, pace, control));
    assert_read_exactly_without(&game, 22828, dgt_core::AlertKind::IllegalPosition);
}

/// Plays an emulated game through the core (pending timers fired at the end): every move
/// read exactly as the truth has it, and no alert of kind `forbidden`.
fn assert_read_exactly_without(
    game: &dgt_emulator::GeneratedGame,
    seed: u64,
    forbidden: dgt_core::AlertKind,
) {
    use dgt_lab::verify::{events_of, moves_read};
    let events = events_of(game, "board-1", &CoreConfig::default());
    for e in &events {
        if let dgt_core::EventBody::Alert(a) = &e.body {
            assert_ne!(a.kind, forbidden, "seed {seed}: {}", a.message)
        }
    }
    assert_eq!(moves_read(&events), game.truth.ucis(), "seed {seed}");
}

/// Emulated games where the truth caught a false alert of the core (the scoring of every
/// kind): seed 83 signals a draw with the black king on d5 already, and the white king on
/// e4 showed 1-0 for a moment (read as 1-0 at every pace); scramble seeds 28 and 55 run
/// the flag down between the last move and the players stopping the clock, which blocked
/// at zero by itself and read as stopped by a player too; careful 361 and 2248 signal the
/// result with the kings after a dead position, the first king read as play going on
/// (while careful 26 does play on past a dead position, 5.2.2). Every alert of these kinds
/// is true, and what happened is raised.
#[test]
fn gestures_flags_and_clock_stops_are_raised_as_they_happened() {
    use dgt_core::AlertKind;
    use dgt_lab::verify_alerts::{alert_spec, occurrences, raised_alerts};
    let config = CoreConfig::default();
    let cases = [
        (0, 83, AlertKind::ResultGesture),
        (1, 83, AlertKind::ResultGesture),
        (2, 83, AlertKind::ResultGesture),
        (2, 28, AlertKind::FlagFall),
        (2, 55, AlertKind::FlagFall),
        (0, 361, AlertKind::MoveAfterGameEnd),
        (0, 2248, AlertKind::MoveAfterGameEnd),
        (0, 26, AlertKind::MoveAfterGameEnd),
    ];
    for (pace_index, seed, kind) in cases {
        let (pace, name, control) = PACES[pace_index];
        let game = dgt_emulator::generate_game(alert_spec(seed, pace, control));
        let alerts = raised_alerts(&game, &config);
        for k in [kind, AlertKind::ClockStopped] {
            let truth = occurrences(k, &game, &config);
            for a in alerts.iter().filter(|a| a.kind == k) {
                assert!(
                    truth.iter().any(|o| o.matches(a)),
                    "{name} {seed}: false {a:?}"
                );
            }
            for o in truth.iter().filter(|o| o.wanted) {
                assert!(
                    alerts.iter().any(|a| a.kind == k && o.matches(a)),
                    "{name} {seed}: missed {o:?}"
                );
            }
        }
    }
}
