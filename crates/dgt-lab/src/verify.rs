//! `dgt-arbiter verify`: plays a corpus of emulated games (the seeded human model: slides,
//! captures in either order, flicker, knocked pieces, late presses, result gestures) through
//! the core and compares the moves it rebuilt with what was really played.

use std::time::Instant;

use dgt_core::{Core, CoreConfig, Event, EventBody, Input, InputKind};
use dgt_emulator::{Dir, GeneratedGame, corpus_spec, generate_game};

/// The verdict on one game.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameCheck {
    pub seed: u64,
    /// Moves really played (before any end the core found by rule).
    pub played: usize,
    /// Moves of the rebuilt list equal to the played one at the same ply.
    pub exact: usize,
    /// Rebuilt moves that were never played at that ply.
    pub invented: usize,
    /// Played moves missing from the rebuilt list.
    pub missed: usize,
    /// Move events that replaced an earlier one (contract §3 corrections).
    pub corrections: usize,
    /// Played moves left out because the core ended the game by rule first (dead position,
    /// fivefold, 75 moves): correct by the Laws, not a miss.
    pub after_rule_end: usize,
    /// Time from the board showing the move (or its press) to the move event, per move.
    pub latencies_ms: Vec<u64>,
    /// Time from the last report the daemon got before the event — the board's last field
    /// update, or the clock frame showing the lever change — to the move event, per move.
    pub report_latencies_ms: Vec<u64>,
    /// The longest run of rebuilt moves in a row that were never played there: the move
    /// lists are aligned (longest common subsequence of the UCI moves), and a run counts
    /// the rebuilt moves between two aligned ones that align with nothing — moves invented
    /// while the track was lost (a shift of plies alone invents nothing).
    pub longest_invented_run: usize,
    /// `illegal_position` alerts that said tracking was lost.
    pub lost_tracks: usize,
    /// Wall time the core took for this game.
    pub core_micros: u128,
    pub inputs: usize,
}

impl GameCheck {
    pub fn is_exact(&self) -> bool {
        self.invented == 0 && self.missed == 0 && self.exact == self.played
    }
}

/// The inputs the daemon would have fed the core for this game.
pub fn inputs_of(game: &GeneratedGame, board: &str) -> Vec<Input> {
    game.traffic
        .iter()
        .map(|t| Input {
            t_ms: t.t_ms,
            board: board.to_string(),
            kind: match t.dir {
                Dir::Rx => InputKind::Rx(t.bytes.clone()),
                Dir::Tx => InputKind::Tx(t.bytes.clone()),
            },
        })
        .collect()
}

/// Plays a generated game through a fresh core as the daemon would, then lets the core's
/// last timers fire (nothing more will arrive): every event raised, in order.
pub fn events_of(game: &GeneratedGame, board: &str, config: &CoreConfig) -> Vec<Event> {
    let mut core = Core::new(config.clone());
    let mut events = Vec::new();
    for input in inputs_of(game, board) {
        events.extend(core.handle(&input));
    }
    while let Some(d) = core.next_deadline() {
        events.extend(core.advance(d));
    }
    events
}

/// The moves the events leave standing, in UCI: a move at an earlier ply (a correction)
/// replaces the line from that ply on.
pub fn moves_read(events: &[Event]) -> Vec<String> {
    let mut line: Vec<String> = Vec::new();
    for e in events {
        if let EventBody::Move(m) = &e.body {
            line.truncate(m.ply as usize - 1);
            line.push(m.uci.clone());
        }
    }
    line
}

/// When the board reported something that can complete a move: a field update, or a clock
/// frame whose lever position differs from the previous one (a press).
fn board_reports(inputs: &[Input]) -> Vec<u64> {
    use dgt_protocol::{BoardMessage, ClockMessage, Decoded, Decoder, LineMode};
    let mut decoder = Decoder::new(LineMode::Single);
    let mut lever = None;
    let mut out = Vec::new();
    for i in inputs {
        let InputKind::Rx(bytes) = &i.kind else {
            continue;
        };
        for d in decoder.decode(bytes) {
            match d {
                Decoded::Message(BoardMessage::FieldUpdate { .. }) => out.push(i.t_ms),
                Decoded::Message(BoardMessage::Clock(ClockMessage::Times(t))) => {
                    let now = Some(t.status.right_lever_high);
                    if lever.is_some() && lever != now {
                        out.push(i.t_ms);
                    }
                    lever = now;
                }
                _ => {}
            }
        }
    }
    out
}

/// Generates the game of `seed` and checks the core against its truth.
pub fn check_game(seed: u64, config: &CoreConfig) -> GameCheck {
    let game = generate_game(corpus_spec(seed));
    let inputs = inputs_of(&game, "board-1");
    let mut core = Core::new(config.clone());
    let started = Instant::now();
    let mut events = Vec::new();
    for i in &inputs {
        events.extend(core.handle(i));
    }
    while let Some(d) = core.next_deadline() {
        events.extend(core.advance(d));
    }
    let core_micros = started.elapsed().as_micros();
    let reports = board_reports(&inputs);

    let mut rebuilt: Vec<(String, u64)> = Vec::new();
    let mut corrections = 0;
    let mut rule_end = false;
    for e in &events {
        match &e.body {
            EventBody::Move(m) => {
                if (m.ply as usize) <= rebuilt.len() {
                    corrections += 1;
                }
                rebuilt.truncate(m.ply as usize - 1);
                rebuilt.push((m.uci.clone(), e.t_ms));
            }
            EventBody::GameEnd { reason, .. } => {
                use dgt_core::event::EndReason::*;
                rule_end |= matches!(
                    reason,
                    DeadPosition | FivefoldRepetition | SeventyFiveMoveRule
                );
            }
            _ => {}
        }
    }
    let truth = &game.truth.moves;
    let played = if rule_end {
        truth.len().min(rebuilt.len())
    } else {
        truth.len()
    };
    let mut check = GameCheck {
        seed,
        played,
        corrections,
        after_rule_end: truth.len() - played,
        core_micros,
        inputs: inputs.len(),
        ..Default::default()
    };
    for (i, t) in truth.iter().take(played).enumerate() {
        match rebuilt.get(i) {
            Some((uci, at)) if *uci == t.uci => {
                check.exact += 1;
                let shown = t.t_pressed_ms.unwrap_or(t.t_made_ms).max(t.t_made_ms);
                check.latencies_ms.push(at.saturating_sub(shown));
                let i = reports.partition_point(|&r| r <= *at);
                if i > 0 {
                    check.report_latencies_ms.push(at - reports[i - 1]);
                }
            }
            Some(_) => {
                check.invented += 1;
                check.missed += 1;
            }
            None => check.missed += 1,
        }
    }
    check.invented += rebuilt.len().saturating_sub(played);
    let rebuilt_ucis: Vec<&str> = rebuilt.iter().map(|(u, _)| u.as_str()).collect();
    let truth_ucis: Vec<&str> = truth.iter().map(|m| m.uci.as_str()).collect();
    check.longest_invented_run = longest_unaligned_run(&rebuilt_ucis, &truth_ucis);
    check.lost_tracks = events
        .iter()
        .filter(|e| {
            matches!(&e.body, EventBody::Alert(a)
                if a.kind == dgt_core::AlertKind::IllegalPosition && a.lost_track().is_some())
        })
        .count();
    check
}

/// The longest run of consecutive items of `rebuilt` left out of a longest common
/// subsequence with `truth`.
pub fn longest_unaligned_run(rebuilt: &[&str], truth: &[&str]) -> usize {
    let (n, m) = (rebuilt.len(), truth.len());
    // lcs[i][j]: the longest common subsequence of rebuilt[i..] and truth[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if rebuilt[i] == truth[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut run, mut longest) = (0, 0, 0, 0);
    while i < n {
        if j < m && rebuilt[i] == truth[j] && lcs[i][j] == lcs[i + 1][j + 1] + 1 {
            (i, j, run) = (i + 1, j + 1, 0);
        } else if j < m && lcs[i][j + 1] >= lcs[i + 1][j] {
            j += 1;
        } else {
            i += 1;
            run += 1;
            longest = longest.max(run);
        }
    }
    longest
}

/// Totals over a corpus.
#[derive(Debug, Clone, Default)]
pub struct CorpusReport {
    pub games: usize,
    pub exact_games: usize,
    pub played: usize,
    pub exact: usize,
    pub invented: usize,
    pub missed: usize,
    pub corrections: usize,
    pub after_rule_end: usize,
    /// The longest run of invented moves in any game (see [`GameCheck::longest_invented_run`]).
    pub longest_invented_run: usize,
    /// Games with an invented run, and lost-track alerts over the corpus.
    pub games_with_invented: usize,
    pub lost_tracks: usize,
    pub latency_p50_ms: u64,
    pub latency_p99_ms: u64,
    pub latency_max_ms: u64,
    /// From the board's last report before the event (see [`GameCheck::report_latencies_ms`]).
    pub report_latency_p50_ms: u64,
    pub report_latency_p99_ms: u64,
    /// Share of moves announced within 300 ms of the board's last report (an arbiter reads a
    /// move as it is made only if it comes that soon).
    pub within_300ms: f64,
    pub micros_per_input: f64,
    pub failing_seeds: Vec<u64>,
}

pub fn check_corpus(first_seed: u64, games: usize, config: &CoreConfig) -> CorpusReport {
    let mut r = CorpusReport {
        games,
        ..Default::default()
    };
    let mut latencies = Vec::new();
    let mut report_latencies = Vec::new();
    let (mut micros, mut inputs) = (0u128, 0usize);
    for seed in first_seed..first_seed + games as u64 {
        let c = check_game(seed, config);
        r.played += c.played;
        r.exact += c.exact;
        r.invented += c.invented;
        r.missed += c.missed;
        r.corrections += c.corrections;
        r.after_rule_end += c.after_rule_end;
        r.longest_invented_run = r.longest_invented_run.max(c.longest_invented_run);
        r.games_with_invented += usize::from(c.longest_invented_run > 0);
        r.lost_tracks += c.lost_tracks;
        micros += c.core_micros;
        inputs += c.inputs;
        if c.is_exact() {
            r.exact_games += 1;
        } else {
            r.failing_seeds.push(seed);
        }
        latencies.extend(c.latencies_ms);
        report_latencies.extend(c.report_latencies_ms);
    }
    latencies.sort_unstable();
    report_latencies.sort_unstable();
    let pct = |v: &[u64], p: f64| {
        v.get(((v.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(0)
    };
    r.latency_p50_ms = pct(&latencies, 0.5);
    r.latency_p99_ms = pct(&latencies, 0.99);
    r.latency_max_ms = latencies.last().copied().unwrap_or(0);
    r.report_latency_p50_ms = pct(&report_latencies, 0.5);
    r.report_latency_p99_ms = pct(&report_latencies, 0.99);
    r.within_300ms = report_latencies.iter().filter(|&&l| l <= 300).count() as f64
        / report_latencies.len().max(1) as f64;
    r.micros_per_input = micros as f64 / inputs.max(1) as f64;
    r
}

impl std::fmt::Display for CorpusReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        writeln!(
            f,
            "games                 {} ({} exact, {:.2}%)",
            self.games,
            self.exact_games,
            pct(self.exact_games, self.games)
        )?;
        writeln!(f, "moves played          {}", self.played)?;
        writeln!(
            f,
            "moves exact           {} ({:.3}%)",
            self.exact,
            pct(self.exact, self.played)
        )?;
        writeln!(f, "moves invented        {}", self.invented)?;
        writeln!(f, "moves missed          {}", self.missed)?;
        writeln!(
            f,
            "invented in a row     longest {} ({} games with any; {} lost-track alerts)",
            self.longest_invented_run, self.games_with_invented, self.lost_tracks
        )?;
        writeln!(
            f,
            "corrections           {} ({:.3}% of moves)",
            self.corrections,
            pct(self.corrections, self.played)
        )?;
        writeln!(
            f,
            "after a rule end      {} (played after a dead position / fivefold / 75 moves)",
            self.after_rule_end
        )?;
        writeln!(
            f,
            "latency p50/p99/max   {} / {} / {} ms (board settled or press → move event, virtual time)",
            self.latency_p50_ms, self.latency_p99_ms, self.latency_max_ms
        )?;
        writeln!(
            f,
            "after last report     p50 {} / p99 {} ms, {:.1}% within 300 ms (board's last field update or lever change → move event)",
            self.report_latency_p50_ms,
            self.report_latency_p99_ms,
            100.0 * self.within_300ms
        )?;
        writeln!(f, "core time per input   {:.1} µs", self.micros_per_input)?;
        if !self.failing_seeds.is_empty() {
            let shown: Vec<String> = self
                .failing_seeds
                .iter()
                .take(20)
                .map(u64::to_string)
                .collect();
            writeln!(f, "failing seeds         {}", shown.join(" "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::longest_unaligned_run;

    #[test]
    fn a_shift_of_plies_invents_nothing_and_a_run_of_wrong_moves_is_counted() {
        let truth = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"];
        assert_eq!(longest_unaligned_run(&truth, &truth), 0);
        // Two plies missed: every later move sits at another ply, none is invented.
        assert_eq!(longest_unaligned_run(&["e2e4", "b8c6", "f1c4"], &truth), 0);
        // Two moves never played, in a row, then the game again.
        assert_eq!(
            longest_unaligned_run(&["e2e4", "f1e4", "e2c4", "b8c6", "f1c4"], &truth),
            2
        );
        assert_eq!(longest_unaligned_run(&["a2a3"], &truth), 1);
    }
}
