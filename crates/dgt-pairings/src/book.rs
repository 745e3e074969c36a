//! Which game belongs to which round, rebuilt from events only — the same way in the
//! server's view, the hub, `export` and the broadcast folders.
//!
//! The rule: a game started while round N is the current round (the last imported, by
//! number) belongs to round N. When round N's pairings arrive, a board's current game that
//! has no result yet moves to round N if it has no round yet (pairings imported late) or no
//! move yet (pieces set up for the new round before its pairings arrived); a game with
//! moves stays in its round. A second import of the current round only replaces its
//! pairings; an import for an earlier round corrects that round's pairings and changes no
//! game's round.
//!
//! Which board stands at which table is the [`TableMap`]'s business (the daemon's `[[tables]]`
//! settings): a table with no board, or a board with no pairing, is reported as such.

use std::collections::BTreeMap;

use dgt_core::pairing::{Pairing, RoundPairings};
use dgt_core::{Event, EventBody};

/// Table numbers and board labels: `[[tables]]` in the settings. A table not in the map is
/// the board labelled with its number ("7"), as the daemon labels boards by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableMap {
    by_table: BTreeMap<u32, String>,
}

impl TableMap {
    pub fn new(entries: impl IntoIterator<Item = (u32, String)>) -> Self {
        TableMap {
            by_table: entries.into_iter().collect(),
        }
    }

    /// The board label at `table`.
    pub fn label(&self, table: u32) -> String {
        self.by_table
            .get(&table)
            .cloned()
            .unwrap_or_else(|| table.to_string())
    }

    /// The table a board stands at.
    pub fn table(&self, label: &str) -> Option<u32> {
        if let Some((&t, _)) = self.by_table.iter().find(|(_, l)| *l == label) {
            return Some(t);
        }
        let n: u32 = label
            .parse()
            .ok()
            .filter(|_| label.bytes().all(|b| b.is_ascii_digit()))?;
        // "7" is table 7 only when the map does not put another board there.
        (!self.by_table.contains_key(&n)).then_some(n)
    }

    /// A replacement board: `to` stands at `from`'s table from now on (issue 35), and `from`
    /// at none. Nothing changes when `from` stands at no table.
    pub fn replace_board(&mut self, from: &str, to: &str) {
        let Some(table) = self.table(from) else {
            return;
        };
        self.by_table.retain(|_, label| label != to);
        self.by_table.insert(table, to.to_string());
    }
}

/// What the book knows of one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    pub board: String,
    pub round: Option<u32>,
    pub plies: u32,
    pub result: Option<String>,
    /// The seq of the first event of the game: games of a board in the order played.
    pub first_seq: u64,
}

/// One round: its pairings (the last import) and the results the arbiter entered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundInfo {
    pub pairings: RoundPairings,
    /// The seq of the event that last imported the pairings.
    pub seq: u64,
    /// Results entered by the arbiter, by table.
    pub entered: BTreeMap<u32, String>,
}

/// Rounds, their pairings and the games that belong to them, from events.
#[derive(Debug, Clone, Default)]
pub struct RoundBook {
    rounds: BTreeMap<u32, RoundInfo>,
    current: Option<u32>,
    games: BTreeMap<String, GameInfo>,
    /// Each board's current game.
    board_game: BTreeMap<String, String>,
    /// Results entered before their round's pairings.
    early_entries: BTreeMap<(u32, u32), Option<String>>,
    /// Counts every change, so views rendered from the book can be cached.
    version: u64,
}

/// Where a table of a round stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TableState {
    /// The table's board has not started the round's game.
    NotStarted,
    Playing,
    Finished,
    /// No board stands at the table and no result was entered.
    NoBoard,
}

/// One table of a round with its board, game and result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOutcome<'a> {
    pub pairing: &'a Pairing,
    /// The board at the table, when one has been seen.
    pub board: Option<String>,
    pub game: Option<String>,
    /// "1-0", "0-1", "1/2-1/2", a forfeit ("+-", "-+", "--") or a game not rated ("1-0u").
    pub result: Option<String>,
    /// Whether the result is the arbiter's entry (else the board's game end).
    pub entered: bool,
    pub state: TableState,
}

impl RoundBook {
    pub fn new() -> Self {
        Self::default()
    }

    /// The round being played: the highest round imported.
    pub fn current(&self) -> Option<u32> {
        self.current
    }

    /// Changes whenever the book does (pairings, entries, games and their rounds, results).
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn round(&self, round: u32) -> Option<&RoundInfo> {
        self.rounds.get(&round)
    }

    pub fn rounds(&self) -> impl Iterator<Item = (&u32, &RoundInfo)> {
        self.rounds.iter()
    }

    pub fn game(&self, id: &str) -> Option<&GameInfo> {
        self.games.get(id)
    }

    /// The round a game belongs to.
    pub fn round_of(&self, game: &str) -> Option<u32> {
        self.games.get(game)?.round
    }

    /// A game's round and pairing, when the board it is played on stands at a paired table.
    pub fn pairing_of(&self, game: &str, map: &TableMap) -> Option<(u32, &Pairing)> {
        let info = self.games.get(game)?;
        let round = info.round?;
        let table = map.table(&info.board)?;
        Some((round, self.rounds.get(&round)?.pairings.table(table)?))
    }

    /// The pairing of a board in the current round.
    pub fn pairing_of_board(&self, board: &str, map: &TableMap) -> Option<(u32, &Pairing)> {
        let round = self.current?;
        let table = map.table(board)?;
        Some((round, self.rounds.get(&round)?.pairings.table(table)?))
    }

    /// The round's game on a board: the last one started in it.
    pub fn game_of(&self, round: u32, board: &str) -> Option<&str> {
        self.games
            .iter()
            .filter(|(_, g)| g.board == board && g.round == Some(round))
            .max_by_key(|(_, g)| g.first_seq)
            .map(|(id, _)| id.as_str())
    }

    /// Every table of the round, in table order.
    pub fn outcomes(&self, round: u32, map: &TableMap, boards: &[&str]) -> Vec<TableOutcome<'_>> {
        let Some(info) = self.rounds.get(&round) else {
            return Vec::new();
        };
        info.pairings
            .tables
            .iter()
            .map(|p| {
                let label = map.label(p.table);
                let seen = boards.contains(&label.as_str());
                let game = self.game_of(round, &label).map(str::to_string);
                let played = game.as_ref().and_then(|g| self.games.get(g));
                let entered = info.entered.get(&p.table).cloned();
                let result = entered
                    .clone()
                    .or_else(|| played.and_then(|g| g.result.clone()));
                let state = if result.is_some() {
                    TableState::Finished
                } else if played.is_some() {
                    TableState::Playing
                } else if seen {
                    TableState::NotStarted
                } else {
                    TableState::NoBoard
                };
                TableOutcome {
                    pairing: p,
                    board: seen.then_some(label),
                    game,
                    entered: entered.is_some(),
                    result,
                    state,
                }
            })
            .collect()
    }

    pub fn apply(&mut self, event: &Event) {
        if matches!(
            event.body,
            EventBody::GameStart { .. }
                | EventBody::Move(_)
                | EventBody::GameEnd { .. }
                | EventBody::Pairings(_)
                | EventBody::TableResult(_)
        ) {
            self.version += 1;
        }
        match &event.body {
            EventBody::GameStart { game, .. } => {
                self.games.insert(
                    game.clone(),
                    GameInfo {
                        board: event.board.clone(),
                        round: self.current,
                        plies: 0,
                        result: None,
                        first_seq: event.seq,
                    },
                );
                self.board_game.insert(event.board.clone(), game.clone());
            }
            EventBody::Move(m) => {
                let current = self.current;
                let g = self
                    .games
                    .entry(m.game.clone())
                    .or_insert_with(|| GameInfo {
                        board: event.board.clone(),
                        round: current,
                        plies: 0,
                        result: None,
                        first_seq: event.seq,
                    });
                g.plies = m.ply;
                self.board_game.insert(event.board.clone(), m.game.clone());
            }
            EventBody::GameEnd { game, result, .. } => {
                let current = self.current;
                let g = self.games.entry(game.clone()).or_insert_with(|| GameInfo {
                    board: event.board.clone(),
                    round: current,
                    plies: 0,
                    result: None,
                    first_seq: event.seq,
                });
                g.result = Some(result.to_string());
            }
            EventBody::Pairings(p) => self.import(p, event.seq),
            EventBody::TableResult(r) => match self.rounds.get_mut(&r.round) {
                Some(info) => match r.result {
                    Some(res) => {
                        info.entered.insert(r.table, res.to_string());
                    }
                    None => {
                        info.entered.remove(&r.table);
                    }
                },
                None => {
                    self.early_entries
                        .insert((r.round, r.table), r.result.map(|r| r.to_string()));
                }
            },
            _ => {}
        }
    }

    /// Applies one event as the journal stores it (a JSON line of the contract); lines of
    /// other kinds, or unreadable ones (an unknown result too), change nothing.
    pub fn apply_json(&mut self, line: &str) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            return;
        };
        let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let number = |k: &str| v.get(k).and_then(|x| x.as_u64());
        let (Some(board), Some(seq)) = (text("board"), number("seq")) else {
            return;
        };
        let body = match v.get("type").and_then(|t| t.as_str()) {
            Some("game_start") => EventBody::GameStart {
                game: text("game").unwrap_or_default(),
                start_fen: text("start_fen").unwrap_or_default(),
            },
            Some("move") => EventBody::Move(dgt_core::event::MoveEvent {
                game: text("game").unwrap_or_default(),
                ply: number("ply").unwrap_or(0) as u32,
                side: dgt_core::Side::White,
                uci: String::new(),
                san: String::new(),
                fen: String::new(),
                white_ms: None,
                black_ms: None,
            }),
            Some("game_end") => EventBody::GameEnd {
                game: text("game").unwrap_or_default(),
                result: match text("result").map(|r| r.parse()) {
                    Some(Ok(r)) => r,
                    _ => return,
                },
                reason: dgt_core::event::EndReason::Arbiter,
            },
            Some("pairings") => match serde_json::from_value::<RoundPairings>(v.clone()) {
                Ok(p) => EventBody::Pairings(p),
                Err(_) => return,
            },
            Some("table_result") => EventBody::TableResult(dgt_core::pairing::TableResultOp {
                round: number("round").unwrap_or(0) as u32,
                table: number("table").unwrap_or(0) as u32,
                result: match text("result").map(|r| r.parse()) {
                    None => None,
                    Some(Ok(r)) => Some(r),
                    Some(Err(_)) => return,
                },
            }),
            _ => return,
        };
        self.apply(&Event::new(seq, board, number("t_ms").unwrap_or(0), body));
    }

    fn import(&mut self, p: &RoundPairings, seq: u64) {
        let round = p.round;
        let entry = self.rounds.entry(round).or_default();
        entry.pairings = p.clone();
        entry.seq = seq;
        let early: Vec<(u32, Option<String>)> = self
            .early_entries
            .range((round, 0)..=(round, u32::MAX))
            .map(|(&(_, t), r)| (t, r.clone()))
            .collect();
        for (table, result) in early {
            self.early_entries.remove(&(round, table));
            match result {
                Some(r) => entry.entered.insert(table, r),
                None => entry.entered.remove(&table),
            };
        }
        if self.current.is_some_and(|c| c >= round) {
            return;
        }
        self.current = Some(round);
        for game in self.board_game.values() {
            if let Some(g) = self.games.get_mut(game)
                && g.result.is_none()
                && (g.round.is_none() || g.plies == 0)
            {
                g.round = Some(round);
            }
        }
    }
}

#[cfg(test)]
mod replacement_tests {
    use super::TableMap;

    #[test]
    fn a_replacement_board_takes_the_failed_boards_table() {
        let mut map = TableMap::new([(2, "b-2".to_string()), (3, "spare".to_string())]);
        map.replace_board("b-2", "spare");
        assert_eq!(map.table("spare"), Some(2));
        assert_eq!(map.table("b-2"), None);
        assert_eq!(map.label(3), "3", "the spare left its own table");
        // A board labelled by its table number gives that table away too.
        let mut map = TableMap::default();
        map.replace_board("7", "spare");
        assert_eq!(map.table("spare"), Some(7));
        assert_eq!(map.table("7"), None);
        // A board at no table changes nothing.
        map.replace_board("lobby", "other");
        assert_eq!(map.table("other"), None);
    }
}
