//! When an emulated game really ended by the Laws, for the truth only: the players play
//! their script to its end, and may play on past a dead position they did not notice.

use shakmaty::{Chess, Move, Position};

/// How many plies deep [`is_dead`] looks: forced sequences such as a king that must take
/// the last piece that could mate (5.2.2: no series of legal moves leads to a mate).
const DEAD_DEPTH: u32 = 3;

/// Whether no series of legal moves from `pos` can end in a checkmate (5.2.2), looking
/// `depth` plies ahead: true when neither side has the material to mate, a stalemate is
/// reached, or every legal move leads to such a position within the depth. False when the
/// search cannot show it (a position may be dead for deeper reasons, e.g. locked pawns).
pub(crate) fn is_dead(pos: &Chess, depth: u32) -> bool {
    if pos.is_insufficient_material() {
        return true;
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        // Stalemate ends the game without a mate; checkmate is one.
        return !pos.is_check();
    }
    depth > 0
        && moves.iter().all(|m| {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            is_dead(&after, depth - 1)
        })
}

/// The first ply after which the game of `start` and `moves` was over on the board:
/// checkmate, stalemate (5.1.1, 5.2.1), or a dead position (5.2.2, [`is_dead`]).
pub(crate) fn first_end_on_board(start: &Chess, moves: &[Move]) -> Option<usize> {
    let mut pos = start.clone();
    for (i, m) in moves.iter().enumerate() {
        pos.play_unchecked(*m);
        if pos.is_checkmate() || is_dead(&pos, DEAD_DEPTH) {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Chess {
        crate::game_script::position_from_fen(fen).unwrap()
    }

    #[test]
    fn dead_positions_a_few_plies_deep() {
        // The black king in check must take the queen: K+B v K.
        assert!(is_dead(
            &pos("8/8/6Qk/8/8/8/5K2/5B2 b - - 12 47"),
            DEAD_DEPTH
        ));
        // The only legal move takes the rook: K v K.
        assert!(is_dead(&pos("k7/1R6/8/8/8/8/2K5/8 b - - 8 86"), DEAD_DEPTH));
        // Bare kings; a stalemate.
        assert!(is_dead(&pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), 0));
        assert!(is_dead(&pos("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"), 0));
        // Not dead: a rook that need not be taken, a mate, the start position.
        assert!(!is_dead(
            &pos("k7/8/1R6/8/8/8/2K5/8 b - - 8 86"),
            DEAD_DEPTH
        ));
        assert!(!is_dead(&pos("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"), DEAD_DEPTH));
        assert!(!is_dead(&Chess::default(), DEAD_DEPTH));
    }

    #[test]
    fn the_first_end_on_board() {
        let start = pos("k7/8/8/8/8/8/2K5/1R6 w - - 0 1");
        let moves: Vec<Move> = ["b1b7", "a8b7", "c2d3"]
            .iter()
            .scan(start.clone(), |p, uci| {
                let m = uci
                    .parse::<shakmaty::uci::UciMove>()
                    .unwrap()
                    .to_move(p)
                    .unwrap();
                p.play_unchecked(m);
                Some(m)
            })
            .collect();
        // After Rb7 Black must take the rook: over after ply 1, not at the bare kings.
        assert_eq!(first_end_on_board(&start, &moves), Some(1));
        assert_eq!(first_end_on_board(&start, &moves[..0]), None);
    }

    /// The truth the alert check relies on: every press of the plan completes a move (the
    /// players never press without one), every stop of the clock is kept with its reason,
    /// every flag that fell is an irregularity, and the game's end is known.
    #[test]
    fn presses_clock_stops_flags_and_the_end_are_all_in_the_truth() {
        use crate::human::{ClockActKind, plan_game};
        use crate::spec::Pace;
        use crate::time_control::TimeControl;
        use crate::truth::{ClockStopReason, GameOverBy, IrregularityKind};
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let mut spec = crate::corpus::corpus_spec(seed);
            spec.clock_present = true;
            if seed % 2 == 1 {
                // Time-scramble hands at a minute a game: flags fall after the last move.
                spec.pace = Pace::Scramble;
                spec.script.flag_fall_at_ply = None;
                spec.time_control = TimeControl::parse("60+1").unwrap();
            }
            let plan = plan_game(&spec).unwrap();
            let truth = &plan.truth;
            let presses: Vec<u64> = plan
                .clock_acts
                .iter()
                .filter(|a| matches!(a.kind, ClockActKind::Press(_)))
                .map(|a| a.t_ms)
                .collect();
            let pressed: Vec<u64> = truth.moves.iter().filter_map(|m| m.t_pressed_ms).collect();
            assert_eq!(presses, pressed, "seed {seed}");
            let pauses: Vec<u64> = plan
                .clock_acts
                .iter()
                .filter(|a| a.kind == ClockActKind::Pause)
                .map(|a| a.t_ms)
                .collect();
            let stops: Vec<u64> = truth.clock_stops.iter().map(|s| s.t_ms).collect();
            assert_eq!(pauses, stops, "seed {seed}");
            let flags: Vec<u64> = truth
                .irregularities
                .iter()
                .filter(|i| matches!(i.kind, IrregularityKind::FlagFall { .. }))
                .map(|i| i.t_ms)
                .collect();
            // The planner's own clock: every flag it dropped.
            let mut clock = crate::clock::Dgt3000::new(spec.time_control.clone(), plan.first_side);
            for a in &plan.clock_acts {
                match a.kind {
                    ClockActKind::Start(side) => clock.start(a.t_ms, side),
                    ClockActKind::Press(side) => {
                        clock.press(a.t_ms, side);
                    }
                    ClockActKind::Pause => clock.pause(a.t_ms),
                }
            }
            clock.advance(truth.end_ms);
            let fell: Vec<u64> = clock.flag_falls().iter().map(|f| f.0).collect();
            assert_eq!(flags, fell, "seed {seed}");

            let (over, by) = truth.game_over.expect("every emulated game ends");
            seen.insert(format!("{by:?}").split(' ').next().unwrap().to_string());
            let last_move = truth.moves.last().map_or(0, |m| m.t_made_ms);
            match by {
                GameOverBy::OnBoard { after_ply } => {
                    assert_eq!(over, truth.moves[after_ply - 1].t_made_ms, "seed {seed}")
                }
                GameOverBy::Flag => assert!(flags.contains(&over), "seed {seed}"),
                GameOverBy::Players => {
                    assert!(over > last_move, "seed {seed}");
                    assert!(flags.iter().all(|&f| f > over), "seed {seed}");
                }
            }
            for stop in &truth.clock_stops {
                seen.insert(format!("{:?}", stop.reason));
                match stop.reason {
                    ClockStopReason::PlayersEndedGame => {
                        assert_eq!((over, by), (stop.t_ms, GameOverBy::Players), "seed {seed}")
                    }
                    ClockStopReason::AfterGameOver => assert!(over < stop.t_ms, "seed {seed}"),
                    ClockStopReason::ArbiterAfterFlag => {
                        assert!(flags.iter().any(|&f| f < stop.t_ms), "seed {seed}")
                    }
                }
            }
            if let Some(g) = &truth.gesture {
                assert!(g.t_start_ms <= g.t_ms && g.t_start_ms > over, "seed {seed}");
            }
        }
        // Every way a game of these ends.
        for how in [
            "OnBoard",
            "Flag",
            "Players",
            "PlayersEndedGame",
            "AfterGameOver",
        ] {
            assert!(seen.contains(how), "{how}: {seen:?}");
        }
    }
}
