//! `dgt-arbiter verify --bughouse`: emulated bughouse matches under each regulation
//! (`dgt_emulator::bughouse`: quick drops, captures of just-dropped pieces, promotions taking
//! pieces from the partner board) through the core, both boards compared move by move with
//! what was played, and the false claims counted.

use std::fmt;

use dgt_core::bughouse::{BughouseMatch, Regulation};
use dgt_core::{AlertKind, Core, CoreConfig, EventBody, Input, InputKind};
use dgt_emulator::bughouse::{DropRules, GeneratedMatch, MATCH_BOARDS, generate_match};

/// Plies per match, both boards together.
const PLIES: usize = 120;

/// The scores of one regulation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegulationScore {
    pub rules: &'static str,
    pub matches: usize,
    /// Matches whose two boards were both read exactly (every move and drop, in order).
    pub exact: usize,
    pub plies: usize,
    pub drops: usize,
    pub captures_of_dropped: usize,
    pub promotions: usize,
    /// Of them, promotions whose piece left the partner board while a move there was still
    /// being made or pressed, and while a player there held pieces to drop.
    pub promotions_mid_move: usize,
    pub promotions_with_reserve: usize,
    /// Claims and reviews no correct reading raises in these matches (`illegal_drop`,
    /// `illegal_move`, `touch_move`, `illegal_position`, `position_restored`,
    /// `promotion_incomplete`, `tracking_failed`).
    pub false_alerts: usize,
    /// The seeds of the matches not read exactly.
    pub inexact_seeds: Vec<u64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct BughouseReport {
    pub scores: Vec<RegulationScore>,
}

impl BughouseReport {
    pub fn all_exact(&self) -> bool {
        self.scores
            .iter()
            .all(|s| s.exact == s.matches && s.false_alerts == 0)
    }
}

fn regulation(rules: DropRules) -> Regulation {
    match rules {
        DropRules::DjcStein => Regulation::DjcStein,
        DropRules::Knsb2000 => Regulation::Knsb2000,
        DropRules::Flemish => Regulation::Flemish,
    }
}

/// What the core reads of one generated match: the moves of each board, and the alerts no
/// correct reading raises.
pub fn read_match(m: &GeneratedMatch, rules: DropRules) -> ([Vec<String>; 2], Vec<String>) {
    let config = CoreConfig {
        bughouse: vec![BughouseMatch {
            boards: MATCH_BOARDS.map(String::from),
            rules: regulation(rules),
            ..Default::default()
        }],
        ..CoreConfig::default()
    };
    let mut inputs: Vec<Input> = (0..2)
        .flat_map(|k| {
            m.traffic[k].iter().map(move |(t, bytes)| Input {
                t_ms: *t,
                board: MATCH_BOARDS[k].to_string(),
                kind: InputKind::Rx(bytes.clone()),
            })
        })
        .collect();
    inputs.sort_by_key(|i| i.t_ms);
    let mut core = Core::new(config);
    let mut events = Vec::new();
    for i in &inputs {
        events.extend(core.handle(i));
    }
    let end = inputs.last().map_or(0, |i| i.t_ms) + 30_000;
    events.extend(core.advance(end));
    let mut moves: [Vec<String>; 2] = Default::default();
    let mut wrong = Vec::new();
    for e in &events {
        let k = usize::from(e.board == MATCH_BOARDS[1]);
        match &e.body {
            // A correction replaces the move of its ply (contract §3).
            EventBody::Move(mv) => {
                let ply = mv.ply as usize;
                moves[k].truncate(ply.saturating_sub(1));
                moves[k].push(mv.uci.clone());
            }
            EventBody::Alert(a)
                if matches!(
                    a.kind,
                    AlertKind::IllegalDrop
                        | AlertKind::IllegalMove
                        | AlertKind::TouchMove
                        | AlertKind::IllegalPosition
                        | AlertKind::PositionRestored
                        | AlertKind::PromotionIncomplete
                        | AlertKind::TrackingFailed
                ) =>
            {
                wrong.push(format!("{} {:?}: {}", e.board, a.kind, a.message));
            }
            _ => {}
        }
    }
    (moves, wrong)
}

/// Plays `matches` matches per regulation from `first_seed`.
pub fn check_bughouse(first_seed: u64, matches: usize) -> BughouseReport {
    let mut report = BughouseReport::default();
    for rules in DropRules::ALL {
        let mut s = RegulationScore {
            rules: rules.setting_name(),
            ..Default::default()
        };
        for seed in first_seed..first_seed + matches as u64 {
            let m = generate_match(seed, rules, PLIES);
            let (read, wrong) = read_match(&m, rules);
            s.matches += 1;
            s.plies += m.played[0].len() + m.played[1].len();
            s.drops += m.drops;
            s.captures_of_dropped += m.captures_of_dropped;
            s.promotions += m.promotions;
            s.promotions_mid_move += m.promotions_mid_move;
            s.promotions_with_reserve += m.promotions_with_reserve;
            s.false_alerts += wrong.len();
            if read == m.played {
                s.exact += 1;
            } else {
                s.inexact_seeds.push(seed);
            }
        }
        report.scores.push(s);
    }
    report
}

impl fmt::Display for BughouseReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "regulation  matches  exact  exact%  plies  drops  captures-of-dropped  promotions (mid-move, pieces in hand)  false-alerts"
        )?;
        for s in &self.scores {
            let rate = if s.matches == 0 {
                0.0
            } else {
                100.0 * s.exact as f64 / s.matches as f64
            };
            writeln!(
                f,
                "{:<10}  {:>7}  {:>5}  {:>5.1}%  {:>5}  {:>5}  {:>19}  {:>10} ({:>3}, {:>3})  {:>12}",
                s.rules,
                s.matches,
                s.exact,
                rate,
                s.plies,
                s.drops,
                s.captures_of_dropped,
                s.promotions,
                s.promotions_mid_move,
                s.promotions_with_reserve,
                s.false_alerts
            )?;
            if !s.inexact_seeds.is_empty() {
                let shown: Vec<String> = s
                    .inexact_seeds
                    .iter()
                    .take(20)
                    .map(|n| n.to_string())
                    .collect();
                writeln!(f, "  not exact: seeds {}", shown.join(" "))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A few matches per regulation, read exactly with no false claim (the CI-sized version
    /// of `verify --bughouse`).
    #[test]
    fn bughouse_matches_are_read_exactly() {
        let report = check_bughouse(1, 4);
        assert!(report.all_exact(), "{report}");
        assert!(
            report
                .scores
                .iter()
                .all(|s| s.drops > 0 && s.captures_of_dropped > 0),
            "{report}"
        );
    }
}
