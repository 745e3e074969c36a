//! The parts of `bench --restart-history`'s day that a daemon writes beside the core's
//! steps: the rounds' pairings (which rotate the journal's segments), the server's views
//! snapshots, and the check that a restarted daemon shows every board's game as the views
//! knew it at the kill.

use std::path::Path;

use dgt_core::pairing::{Pairing, Player, ROUND_BOARD, RoundPairings};
use dgt_core::{Event, Input, InputKind, Operation};
use dgt_journal::JournalWriter;
use dgt_journal::view_snapshots::{SERVER_VIEWS, ViewSnapshotStore};
use dgt_server::{ServerConfig, ViewsTap};
use serde_json::Value;

/// How long the writer may take to commit what was submitted before a views snapshot.
const COMMIT_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// The pairings the arbiter posts for `round`: one table per board, table n on board n.
pub fn round_pairings(t_ms: u64, round: u32, boards: usize) -> Input {
    let player = |colour: &str, table: usize| Player {
        name: format!("{colour}, Table {table} R{round}"),
        start_number: Some((2 * table + usize::from(colour == "Black")) as u32),
        ..Player::default()
    };
    Input {
        t_ms,
        board: ROUND_BOARD.into(),
        kind: InputKind::Op(Operation::Pairings(RoundPairings {
            round,
            event: Some("bench --restart-history".into()),
            tables: (1..=boards)
                .map(|t| Pairing {
                    table: t as u32,
                    white: player("White", t),
                    black: player("Black", t),
                })
                .collect(),
            ..RoundPairings::default()
        })),
    }
}

/// The server's views, built from every event as the daemon's server builds them, and
/// stored as the daemon's views keeper stores them: every `every_ms` of core time, once the
/// journal has committed the events they hold.
pub struct DayViews {
    tap: ViewsTap,
    store: Option<ViewSnapshotStore>,
    every_ms: u64,
    last_ms: u64,
    pub stored: u64,
    /// The newest stored: its size and how long taking it took.
    pub last_bytes: usize,
    pub last_take_ms: f64,
}

impl DayViews {
    /// `every_s` 0 stores none (`journal.view_snapshot_s = 0`).
    pub fn new(every_s: u64) -> DayViews {
        DayViews {
            tap: ViewsTap::standalone(&ServerConfig::default()),
            store: None,
            every_ms: every_s.saturating_mul(1000),
            last_ms: 0,
            stored: 0,
            last_bytes: 0,
            last_take_ms: 0.0,
        }
    }

    pub fn apply(&self, events: &[Event]) {
        for e in events {
            self.tap.apply(e);
        }
    }

    /// Whether a snapshot is due at core time `t_ms`.
    pub fn due(&self, t_ms: u64) -> bool {
        self.every_ms > 0 && t_ms >= self.last_ms + self.every_ms
    }

    /// Takes a snapshot and stores it in the journal at `path` once `writer` has committed
    /// every event in it (the caller has submitted them).
    pub fn store(&mut self, t_ms: u64, path: &Path, writer: &JournalWriter) -> Result<(), String> {
        self.last_ms = t_ms;
        let started = std::time::Instant::now();
        let snapshot = self.tap.snapshot();
        self.last_take_ms = started.elapsed().as_secs_f64() * 1000.0;
        if !writer.flush(COMMIT_WAIT) || writer.committed_seq() < snapshot.seq {
            return Err(format!(
                "the journal did not commit the events up to seq {} in time",
                snapshot.seq
            ));
        }
        let store = match &mut self.store {
            Some(s) => s,
            None => self
                .store
                .insert(ViewSnapshotStore::open(path).map_err(|e| e.to_string())?),
        };
        store
            .store(SERVER_VIEWS, snapshot.seq, &snapshot.bytes)
            .map_err(|e| e.to_string())?;
        self.stored += 1;
        self.last_bytes = snapshot.bytes.len();
        Ok(())
    }

    /// Every board as the views know it now (`GET /api/boards`).
    pub fn boards(&self) -> Vec<Value> {
        self.tap.boards_json()
    }
}

/// What must be where it was after a restart: each board's game, position, moves, clock and
/// result.
const KEPT: [&str; 6] = ["board", "game", "fen", "moves", "clock", "result"];

/// Compares a restarted daemon's `GET /api/boards` answer with the boards the writer's views
/// held at the kill; the number of boards with a game, or what differs (the first few).
pub fn same_games(expected: &[Value], answer: &str) -> Result<usize, String> {
    let got: Value =
        serde_json::from_str(answer).map_err(|e| format!("/api/boards is not JSON: {e}"))?;
    let got = got
        .as_array()
        .ok_or_else(|| format!("/api/boards is not a list: {answer:.200}"))?;
    let key = |b: &Value| b["board"].as_str().unwrap_or_default().to_string();
    let by_board: std::collections::HashMap<String, &Value> =
        got.iter().map(|b| (key(b), b)).collect();
    let mut differences = Vec::new();
    let mut games = 0;
    for want in expected {
        let Some(have) = by_board.get(&key(want)) else {
            differences.push(format!("board {} is missing", key(want)));
            continue;
        };
        for field in KEPT {
            if want[field] != have[field] {
                differences.push(format!(
                    "board {}: {field} was {:.120} and is {:.120}",
                    key(want),
                    want[field].to_string(),
                    have[field].to_string()
                ));
            }
        }
        if !want["game"].is_null() {
            games += 1;
        }
    }
    if got.len() != expected.len() {
        differences.push(format!(
            "{} boards before the restart, {} after",
            expected.len(),
            got.len()
        ));
    }
    if differences.is_empty() {
        Ok(games)
    } else {
        differences.truncate(5);
        Err(differences.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_boards_count_their_games() {
        let boards = vec![
            json!({"board": "b001", "game": "g1", "fen": "x", "moves": [1, 2], "clock": null, "result": null}),
            json!({"board": "b002", "game": null, "fen": null, "moves": [], "clock": null, "result": null}),
        ];
        let answer = serde_json::to_string(&boards).unwrap();
        assert_eq!(same_games(&boards, &answer), Ok(1));
    }

    #[test]
    fn a_game_not_where_it_was_is_named() {
        let before = vec![json!({"board": "b001", "game": "g1", "moves": [1, 2]})];
        let after = json!([{"board": "b001", "game": "g1", "moves": [1]}]).to_string();
        let e = same_games(&before, &after).unwrap_err();
        assert!(
            e.starts_with("board b001: moves was [1,2] and is [1]"),
            "{e}"
        );
        let e = same_games(&before, "[]").unwrap_err();
        assert!(e.contains("board b001 is missing"), "{e}");
    }

    #[test]
    fn the_pairings_give_every_board_a_table() {
        let input = round_pairings(7, 3, 4);
        assert_eq!(input.board, ROUND_BOARD);
        let InputKind::Op(Operation::Pairings(p)) = input.kind else {
            panic!("not pairings");
        };
        assert_eq!(p.round, 3);
        assert_eq!(
            p.tables.iter().map(|t| t.table).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
    }
}
