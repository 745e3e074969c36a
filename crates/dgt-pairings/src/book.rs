//! Which game belongs to which round, rebuilt from events only — the same way in the
//! server's view, the hub, `export` and the broadcast folders.
//!
//! The rule: each table of a round has one game, bound once and kept.
//! * When round N's pairings arrive (N above every round so far), each table's board binds
//!   the game on it if that game is still going and in no round (pairings imported late),
//!   or if nothing happened in it yet (pieces set up before the pairings came); else the
//!   table waits (a game that ended before its round's pairings is an earlier round's).
//!   A game played on after an earlier round's game and still going binds provisionally:
//!   the round begun before its pairings were imported, or players analysing. A move made
//!   under the pairings keeps it; a game started on the board before that replaces it.
//! * A table that waits binds the next game started on its board — unless the arbiter
//!   entered its result first (a forfeit): then what is played there is after it.
//! * A bound game stays the table's game once anything happened in it: a game started on
//!   the board afterwards (pieces set up again, analysis, skittles) is *after the game*, in
//!   no round, and no later round's pairings take it either. A bound game where nothing
//!   happened (no move, no result) gives way to the next game started on the board.
//! * `table_game` (an arbiter's action) names a table's game explicitly: a game restarted
//!   by the arbiter's decision, or moved to another board. Games bind by id, so a game
//!   named for a table stays its game whichever board it is played on.
//! * An import for an earlier round corrects its pairings and moves no game.
//!
//! Everything comes from journaled events, so the live view, the view after a restart, the
//! hub, `export` and the broadcast folders bind the same games.
//!
//! Which board stands at which table is the [`TableMap`]'s business (the daemon's `[[tables]]`
//! settings): a table with no board, or a board with no pairing, is reported as such.

use std::collections::BTreeMap;

use dgt_core::event::EndReason;
use dgt_core::pairing::{Pairing, RoundPairings};
use dgt_core::{AlertKind, Event, EventBody, Operation};

/// Table numbers and board labels: `[[tables]]` in the settings. A table not in the map is
/// the board labelled with its number ("7"), as the daemon labels boards by default.
///
/// On a hub, boards are `<node>/<board>` (`hall-a/7`): a node board labelled with a number
/// stands at that table by itself — venues give each hall its own table numbers (hall A
/// 1–100, hall B 101–200) — unless the map names a board for that table, or another node
/// has a board with the same number: then the table is *contested* and neither board
/// stands at it until the hub's `[[tables]]` says which does (`label = "hall-a/7"`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableMap {
    by_table: BTreeMap<u32, String>,
    /// Node boards seen standing at a table by their number, by that number.
    claims: BTreeMap<u32, std::collections::BTreeSet<String>>,
}

/// Two or more node boards with the same table number (`hall-a/7`, `hall-b/7`): neither
/// stands at the table by itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contest {
    pub table: u32,
    pub boards: Vec<String>,
}

/// The table number a node board (`<node>/<digits>`) carries.
fn node_board_number(label: &str) -> Option<u32> {
    let (node, board) = label.split_once('/')?;
    if node.is_empty() || board.contains('/') {
        return None;
    }
    board
        .parse()
        .ok()
        .filter(|_| board.bytes().all(|b| b.is_ascii_digit()))
}

impl TableMap {
    pub fn new(entries: impl IntoIterator<Item = (u32, String)>) -> Self {
        TableMap {
            by_table: entries.into_iter().collect(),
            claims: BTreeMap::new(),
        }
    }

    /// The board label at `table`.
    pub fn label(&self, table: u32) -> String {
        if let Some(label) = self.by_table.get(&table) {
            return label.clone();
        }
        match self.claims.get(&table) {
            Some(boards) if boards.len() == 1 => boards.iter().next().cloned().unwrap_or_default(),
            _ => table.to_string(),
        }
    }

    /// The table a board stands at.
    pub fn table(&self, label: &str) -> Option<u32> {
        if let Some((&t, _)) = self.by_table.iter().find(|(_, l)| *l == label) {
            return Some(t);
        }
        if let Some(n) = node_board_number(label) {
            // A node board by its number, unless the map or another node's board holds it.
            let others = self
                .claims
                .get(&n)
                .is_some_and(|b| b.iter().any(|other| other != label));
            return (!self.by_table.contains_key(&n) && !others).then_some(n);
        }
        let n: u32 = label
            .parse()
            .ok()
            .filter(|_| label.bytes().all(|b| b.is_ascii_digit()))?;
        // "7" is table 7 only when the map does not put another board there.
        (!self.by_table.contains_key(&n)).then_some(n)
    }

    /// A board seen in the events (a game on it). A node board not in the map claims the
    /// table of its number; the claim that makes a table contested is returned, once.
    pub fn observe(&mut self, label: &str) -> Option<Contest> {
        let n = node_board_number(label)?;
        if self.by_table.values().any(|l| l == label) {
            return None;
        }
        let boards = self.claims.entry(n).or_default();
        if !boards.insert(label.to_string()) || boards.len() < 2 || self.by_table.contains_key(&n) {
            return None;
        }
        Some(Contest {
            table: n,
            boards: boards.iter().cloned().collect(),
        })
    }

    /// The tables two or more node boards claim, none of them standing there, in table
    /// order. A table the map gives a board is not contested.
    pub fn contested(&self) -> Vec<Contest> {
        self.claims
            .iter()
            .filter(|(t, boards)| boards.len() > 1 && !self.by_table.contains_key(t))
            .map(|(&table, boards)| Contest {
                table,
                boards: boards.iter().cloned().collect(),
            })
            .collect()
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

/// The board of an event about a game on it (its start, a move, its end): the events every
/// view of the rounds reads, so every view sees the same boards claim tables.
pub fn game_board(event: &Event) -> Option<&str> {
    matches!(
        event.body,
        EventBody::GameStart { .. }
            | EventBody::GameReplaced { .. }
            | EventBody::Move(_)
            | EventBody::GameEnd { .. }
    )
    .then_some(event.board.as_str())
}

/// What the book knows of one game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameInfo {
    pub board: String,
    /// The round whose table the game is bound to (`None`: in no round).
    pub round: Option<u32>,
    /// That table.
    pub table: Option<u32>,
    pub plies: u32,
    pub result: Option<String>,
    /// How the game ended, when it did.
    pub reason: Option<EndReason>,
    /// The seq of the first event of the game: games of a board in the order played.
    pub first_seq: u64,
    /// Started on a table's board after the table's round game: pieces set up again,
    /// analysis, skittles. Such a game is in no round and binds to no later round either.
    pub after: bool,
    /// The clock was stopped after the game's last move (a resignation, a claim, the
    /// arbiter called): a result may be owed.
    pub clock_stopped: bool,
    /// Bound when its round's pairings arrived while it was being played after an earlier
    /// round's game: the round began before its pairings were imported, or players were
    /// analysing on the board. A move made under the pairings makes it the table's game;
    /// a new game started on the board before that (the board set up for the round) takes
    /// its place.
    pub provisional: bool,
}

impl GameInfo {
    fn new(board: &str, seq: u64) -> Self {
        GameInfo {
            board: board.to_string(),
            round: None,
            table: None,
            plies: 0,
            result: None,
            reason: None,
            first_seq: seq,
            after: false,
            clock_stopped: false,
            provisional: false,
        }
    }

    /// A game that can still give way to the next one started on its board: nothing
    /// played, nothing ended.
    fn is_blank(&self) -> bool {
        self.plies == 0 && self.result.is_none()
    }

    /// A bound game the next game started on its board replaces: a blank one, or one
    /// bound provisionally in which nothing was played under the pairings and nothing ended.
    fn gives_way(&self) -> bool {
        self.is_blank() || (self.provisional && self.result.is_none())
    }
}

/// A result the arbiter entered for a table, and who entered it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub result: String,
    /// The arbiter's name, from the `arbiter_action` event that follows the entry.
    pub by: Option<String>,
    /// When it was entered (the event's `t_ms`): a delayed view shows it from then on.
    pub t_ms: u64,
}

/// One round: its pairings (the last import), each table's game and the results the
/// arbiter entered.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RoundInfo {
    pub pairings: RoundPairings,
    /// The seq of the event that last imported the pairings.
    pub seq: u64,
    /// Results entered by the arbiter, by table.
    pub entered: BTreeMap<u32, Entry>,
    /// Each table's game of the round, once bound.
    pub games: BTreeMap<u32, String>,
    /// Tables whose game the arbiter named (`table_game`), with who did.
    pub bound_by: BTreeMap<u32, Option<String>>,
}

/// Rounds, their pairings and the games that belong to them, from events.
///
/// Serialized whole for a snapshot of the server's views (restored after a restart instead
/// of re-applying every event).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct RoundBook {
    rounds: BTreeMap<u32, RoundInfo>,
    current: Option<u32>,
    games: BTreeMap<String, GameInfo>,
    /// Each board's current game.
    board_game: BTreeMap<String, String>,
    /// Which board stands at which table: games bind to tables through it.
    map: TableMap,
    /// Results entered before their round's pairings.
    #[serde(with = "pair_keys")]
    early_entries: BTreeMap<(u32, u32), Option<(String, u64)>>,
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
    /// The game was left without a result: the clock stopped after its last move, or a
    /// later game started on its board (a resignation, an agreed draw the board did not
    /// see). The arbiter enters the result.
    ResultOwed,
    Finished,
    /// No board stands at the table and no result was entered.
    NoBoard,
}

/// Where a table's result comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultSource {
    /// The game's end on the board by rule (mate, flag, repetition, …).
    Board,
    /// The players' result gesture on the board: the arbiter confirms it.
    Gesture,
    /// The arbiter entered it (or confirmed the board's).
    Arbiter,
}

/// One table of a round with its board, game and result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOutcome<'a> {
    pub pairing: &'a Pairing,
    /// The board at the table, when one has been seen.
    pub board: Option<String>,
    /// The table's game of the round.
    pub game: Option<String>,
    /// "1-0", "0-1", "1/2-1/2", a forfeit ("+-", "-+", "--") or a game not rated ("1-0u").
    pub result: Option<String>,
    /// Whether the result is the arbiter's entry (else the board's game end).
    pub entered: bool,
    pub source: Option<ResultSource>,
    /// Who entered the result, when the arbiter did.
    pub by: Option<String>,
    /// The result stands: an end by rule or the arbiter's entry. A result gesture waits
    /// for the arbiter's confirmation.
    pub confirmed: bool,
    /// Plies of the table's game.
    pub plies: u32,
    pub state: TableState,
}

impl RoundBook {
    pub fn new() -> Self {
        Self::default()
    }

    /// A book whose games bind to the tables of `map`.
    pub fn with_map(map: TableMap) -> Self {
        RoundBook {
            map,
            ..Self::default()
        }
    }

    pub fn map(&self) -> &TableMap {
        &self.map
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

    /// The round and table a game is bound to.
    pub fn table_of(&self, game: &str) -> Option<(u32, u32)> {
        let g = self.games.get(game)?;
        Some((g.round?, g.table?))
    }

    /// A game's round and pairing: the table it is bound to.
    pub fn pairing_of(&self, game: &str, _map: &TableMap) -> Option<(u32, &Pairing)> {
        let (round, table) = self.table_of(game)?;
        Some((round, self.rounds.get(&round)?.pairings.table(table)?))
    }

    /// The pairing of a board in the current round.
    pub fn pairing_of_board(&self, board: &str, map: &TableMap) -> Option<(u32, &Pairing)> {
        let round = self.current?;
        let table = map.table(board)?;
        Some((round, self.rounds.get(&round)?.pairings.table(table)?))
    }

    /// The table's game of the round.
    pub fn table_game(&self, round: u32, table: u32) -> Option<&str> {
        self.rounds
            .get(&round)?
            .games
            .get(&table)
            .map(String::as_str)
    }

    /// The round's game on a board: the game bound to the board's table.
    pub fn game_of(&self, round: u32, board: &str) -> Option<&str> {
        self.table_game(round, self.map.table(board)?)
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
                let game = info.games.get(&p.table).cloned();
                let played = game.as_ref().and_then(|g| self.games.get(g));
                let entry = info.entered.get(&p.table);
                let board_result = played.and_then(|g| g.result.clone());
                let (result, source) = match (entry, &board_result) {
                    (Some(e), _) => (Some(e.result.clone()), Some(ResultSource::Arbiter)),
                    (None, Some(r)) => {
                        let gesture =
                            played.and_then(|g| g.reason) == Some(EndReason::ResultGesture);
                        let source = if gesture {
                            ResultSource::Gesture
                        } else {
                            ResultSource::Board
                        };
                        (Some(r.clone()), Some(source))
                    }
                    (None, None) => (None, None),
                };
                let left = played.is_some_and(|g| {
                    g.plies > 0
                        && (g.clock_stopped
                            || self.board_game.get(&g.board).is_some_and(|now| {
                                game.as_deref() != Some(now.as_str())
                                    && self.games.get(now).is_some_and(|n| n.after)
                            }))
                });
                let state = if result.is_some() {
                    TableState::Finished
                } else if left {
                    TableState::ResultOwed
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
                    entered: entry.is_some(),
                    by: entry.and_then(|e| e.by.clone()),
                    confirmed: matches!(source, Some(ResultSource::Board | ResultSource::Arbiter)),
                    source,
                    plies: played.map_or(0, |g| g.plies),
                    result,
                    state,
                }
            })
            .collect()
    }

    /// A game seen for the first time on `board` (its start, or a move of a game whose
    /// start the stream did not carry): it becomes the round game of the board's table
    /// when the table has none yet, or has one where nothing happened; else it is played
    /// after the table's game and belongs to no round.
    fn begin(&mut self, board: &str, game: &str, seq: u64) {
        let mut info = GameInfo::new(board, seq);
        let table = self.map.table(board);
        let round = self.current;
        if let (Some(round), Some(table)) = (round, table)
            && let Some(r) = self.rounds.get_mut(&round)
            && r.pairings.table(table).is_some()
        {
            let bound = r.games.get(&table).and_then(|g| self.games.get(g));
            // A table whose result the arbiter entered before any game (a forfeit) has no
            // game to wait for: what is played there is after it.
            let decided = bound.is_none() && r.entered.contains_key(&table);
            match bound {
                Some(old) if !old.gives_way() => info.after = true,
                None if decided => info.after = true,
                _ => {
                    if let Some(old) = r.games.insert(table, game.to_string())
                        && let Some(o) = self.games.get_mut(&old)
                    {
                        o.round = None;
                        o.table = None;
                        // Analysis left off when the board was set up for the round.
                        o.after |= o.provisional;
                        o.provisional = false;
                    }
                    r.bound_by.remove(&table);
                    info.round = Some(round);
                    info.table = Some(table);
                }
            }
        } else if let Some(prev) = self.board_game.get(board).and_then(|g| self.games.get(g))
            && (prev.after || prev.round.is_some())
            && !prev.is_blank()
        {
            // A board without a table this round, after a round game or its aftermath:
            // still after that game.
            info.after = true;
        }
        self.games.insert(game.to_string(), info);
        self.board_game.insert(board.to_string(), game.to_string());
    }

    /// A game started on `board` was another board's game moved there (`game_replaced`,
    /// issue 35): it leaves the book and any table it held, and the board plays `by`.
    fn replaced(&mut self, board: &str, game: &str, by: &str) {
        self.games.remove(game);
        for info in self.rounds.values_mut() {
            let tables: Vec<u32> = info
                .games
                .iter()
                .filter(|(_, g)| *g == game)
                .map(|(t, _)| *t)
                .collect();
            for t in tables {
                info.games.remove(&t);
                info.bound_by.remove(&t);
            }
        }
        self.board_game.insert(board.to_string(), by.to_string());
    }

    /// `table_game`: the arbiter names a table's game.
    fn bind(&mut self, round: u32, table: u32, game: Option<&str>) {
        let Some(r) = self.rounds.get_mut(&round) else {
            return;
        };
        let old = match game {
            Some(g) => r.games.insert(table, g.to_string()),
            None => r.games.remove(&table),
        };
        r.bound_by.insert(table, None);
        if let Some(o) = old.and_then(|o| self.games.get_mut(&o)) {
            o.round = None;
            o.table = None;
        }
        let Some(g) = game else { return };
        // A game is one table's game: taken from wherever it was bound before.
        for (&n, info) in &mut self.rounds {
            info.games
                .retain(|&t, bound| bound != g || (n == round && t == table));
        }
        if let Some(info) = self.games.get_mut(g) {
            info.round = Some(round);
            info.table = Some(table);
            info.after = false;
            info.provisional = false;
        }
    }

    pub fn apply(&mut self, event: &Event) {
        if matches!(
            event.body,
            EventBody::GameStart { .. }
                | EventBody::GameReplaced { .. }
                | EventBody::Move(_)
                | EventBody::GameEnd { .. }
                | EventBody::Pairings(_)
                | EventBody::TableResult(_)
                | EventBody::TableGame(_)
                | EventBody::ArbiterAction(_)
                | EventBody::Alert(_)
        ) {
            self.version += 1;
        }
        if let Some(board) = game_board(event) {
            self.map.observe(board);
        }
        match &event.body {
            EventBody::GameStart { game, .. } => self.begin(&event.board, game, event.seq),
            EventBody::GameReplaced { game, replaced_by } => {
                self.replaced(&event.board, game, replaced_by);
            }
            EventBody::Move(m) => {
                if !self.games.contains_key(&m.game) {
                    self.begin(&event.board, &m.game, event.seq);
                }
                if let Some(g) = self.games.get_mut(&m.game) {
                    g.plies = m.ply;
                    g.clock_stopped = false;
                    // Played on under the pairings: the table's game.
                    g.provisional = false;
                }
                self.board_game.insert(event.board.clone(), m.game.clone());
            }
            EventBody::GameEnd {
                game,
                result,
                reason,
            } => {
                if !self.games.contains_key(game) {
                    self.begin(&event.board, game, event.seq);
                }
                if let Some(g) = self.games.get_mut(game) {
                    g.result = Some(result.to_string());
                    g.reason = Some(*reason);
                }
            }
            EventBody::Alert(a) if a.kind == AlertKind::ClockStopped => {
                let game = a
                    .game
                    .clone()
                    .or_else(|| self.board_game.get(&event.board).cloned());
                if let Some(g) = game.and_then(|g| self.games.get_mut(&g)) {
                    g.clock_stopped = true;
                }
            }
            EventBody::Pairings(p) => self.import(p, event.seq),
            EventBody::TableResult(r) => {
                let result = r.result.map(|r| r.to_string());
                match self.rounds.get_mut(&r.round) {
                    Some(info) => match result {
                        Some(result) => {
                            info.entered.insert(
                                r.table,
                                Entry {
                                    result,
                                    by: None,
                                    t_ms: event.t_ms,
                                },
                            );
                        }
                        None => {
                            info.entered.remove(&r.table);
                        }
                    },
                    None => {
                        self.early_entries
                            .insert((r.round, r.table), result.map(|r| (r, event.t_ms)));
                    }
                }
            }
            EventBody::TableGame(b) => {
                self.bind(b.round, b.table, b.game.as_deref());
            }
            // Who entered a result or named a game: the action as it was taken, sent right
            // after it; it names the entry it is about.
            EventBody::ArbiterAction(by) => match by.action.as_ref() {
                Operation::TableResult(r) => {
                    if let Some(e) = self
                        .rounds
                        .get_mut(&r.round)
                        .and_then(|i| i.entered.get_mut(&r.table))
                        .filter(|e| r.result.map(|x| x.to_string()).as_ref() == Some(&e.result))
                    {
                        e.by = Some(by.arbiter.clone());
                    }
                }
                Operation::TableGame(b) => {
                    if let Some(info) = self.rounds.get_mut(&b.round)
                        && info.games.get(&b.table) == b.game.as_ref()
                    {
                        info.bound_by.insert(b.table, Some(by.arbiter.clone()));
                    }
                }
                // A replacement board stands at the failed board's table from now on, as on
                // the board pages: the next round's game there is the spare's (issue 35).
                Operation::TakeOver(op) => self.map.replace_board(&op.from, &event.board),
                _ => {}
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
        let wanted = match v.get("type").and_then(|t| t.as_str()) {
            Some(
                "game_start" | "game_replaced" | "move" | "game_end" | "pairings" | "table_result"
                | "table_game" | "arbiter_action",
            ) => true,
            Some("alert") => v.get("kind").and_then(|k| k.as_str()) == Some("clock_stopped"),
            _ => false,
        };
        if wanted && let Ok(event) = serde_json::from_value::<Event>(v) {
            self.apply(&event);
        }
    }

    fn import(&mut self, p: &RoundPairings, seq: u64) {
        let round = p.round;
        let entry = self.rounds.entry(round).or_default();
        entry.pairings = p.clone();
        entry.seq = seq;
        let early: Vec<(u32, Option<(String, u64)>)> = self
            .early_entries
            .range((round, 0)..=(round, u32::MAX))
            .map(|(&(_, t), r)| (t, r.clone()))
            .collect();
        for (table, result) in early {
            self.early_entries.remove(&(round, table));
            match result {
                Some((result, t_ms)) => entry.entered.insert(
                    table,
                    Entry {
                        result,
                        by: None,
                        t_ms,
                    },
                ),
                None => entry.entered.remove(&table),
            };
        }
        // A table dropped by a corrected file keeps no game.
        let tables: Vec<u32> = p.tables.iter().map(|t| t.table).collect();
        let dropped: Vec<String> = entry
            .games
            .iter()
            .filter(|(t, _)| !tables.contains(t))
            .map(|(_, g)| g.clone())
            .collect();
        entry.games.retain(|t, _| tables.contains(t));
        for g in dropped {
            if let Some(info) = self.games.get_mut(&g) {
                info.round = None;
                info.table = None;
            }
        }
        if self.current.is_some_and(|c| c > round) {
            return;
        }
        self.current = Some(round);
        // Each table's board: the game on it binds when it is the round's game started
        // before its pairings (in no round, not after another game, still going) or a
        // game where nothing happened yet (pieces set up for this round).
        for t in tables {
            if self
                .rounds
                .get(&round)
                .is_some_and(|r| r.games.contains_key(&t) || r.entered.contains_key(&t))
            {
                continue;
            }
            let label = self.map.label(t);
            let Some(id) = self.board_game.get(&label).cloned() else {
                continue;
            };
            let Some(g) = self.games.get(&id) else {
                continue;
            };
            let late = g.round.is_none() && !g.after && g.result.is_none();
            let blank = g.is_blank();
            // Played after an earlier round's game and still going: this round's game begun
            // before its pairings came, or analysis — which the next move or the next game
            // tells apart.
            let resumed =
                g.round.is_none() && g.after && g.result.is_none() && !g.clock_stopped && !blank;
            if !(late || blank || resumed) {
                continue;
            }
            if let Some(old) = g.round
                && let Some(r) = self.rounds.get_mut(&old)
            {
                r.games.retain(|_, bound| *bound != id);
            }
            if let Some(r) = self.rounds.get_mut(&round) {
                r.games.insert(t, id.clone());
            }
            if let Some(g) = self.games.get_mut(&id) {
                g.round = Some(round);
                g.table = Some(t);
                g.after = false;
                g.provisional = resumed;
            }
        }
    }
}

/// A map keyed by (round, table) as a list of pairs: JSON keys are strings only.
mod pair_keys {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serializer};

    type Map = BTreeMap<(u32, u32), Option<(String, u64)>>;

    pub fn serialize<S: Serializer>(map: &Map, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(map.iter())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Map, D::Error> {
        Vec::<((u32, u32), Option<(String, u64)>)>::deserialize(d).map(|v| v.into_iter().collect())
    }
}

#[cfg(test)]
mod replacement_tests {
    use super::{RoundBook, TableMap};
    use dgt_core::input::{ActionBy, TakeOverOp};
    use dgt_core::pairing::{ROUND_BOARD, RoundPairings};
    use dgt_core::{Event, EventBody, Operation};

    #[test]
    fn a_replacement_board_takes_its_table_into_the_next_round() {
        let mut book = RoundBook::with_map(TableMap::new([
            (2, "b-2".to_string()),
            (3, "spare".to_string()),
        ]));
        let event = |seq, board: &str, body| Event::new(seq, board, seq * 10, body);
        let take_over = Operation::TakeOver(TakeOverOp { from: "b-2".into() });
        book.apply(&event(
            1,
            "spare",
            EventBody::ArbiterAction(ActionBy {
                arbiter: "chief".into(),
                role: "chief".into(),
                action: Box::new(take_over),
            }),
        ));
        let round: RoundPairings = serde_json::from_value(serde_json::json!({
            "round": 2,
            "tables": [{"table": 2, "white": {"name": "A"}, "black": {"name": "B"}}]
        }))
        .expect("pairings");
        book.apply(&event(2, ROUND_BOARD, EventBody::Pairings(round)));
        for (seq, board, game) in [(3, "b-2", "b-2/9"), (4, "spare", "spare/2")] {
            book.apply(&event(
                seq,
                board,
                EventBody::GameStart {
                    game: game.into(),
                    start_fen: String::new(),
                    found_under_way: false,
                },
            ));
        }
        assert_eq!(
            book.table_game(2, 2),
            Some("spare/2"),
            "the game started on the board now standing at table 2"
        );
    }

    #[test]
    fn a_spare_boards_own_game_leaves_the_book_and_its_table() {
        let mut book = RoundBook::with_map(TableMap::new([(3, "spare".to_string())]));
        let event = |seq, board: &str, body| Event::new(seq, board, seq * 10, body);
        book.apply(&event(
            1,
            "b-2",
            EventBody::GameStart {
                game: "b-2/1".into(),
                start_fen: String::new(),
                found_under_way: false,
            },
        ));
        book.apply(&event(
            2,
            "spare",
            EventBody::GameStart {
                game: "spare/1".into(),
                start_fen: "x".into(),
                found_under_way: true,
            },
        ));
        book.apply(&event(
            3,
            "spare",
            EventBody::GameReplaced {
                game: "spare/1".into(),
                replaced_by: "b-2/1".into(),
            },
        ));
        assert!(book.game("spare/1").is_none());
        assert!(book.game("b-2/1").is_some());
        assert_eq!(
            book.board_game.get("spare").map(String::as_str),
            Some("b-2/1")
        );
        assert!(
            book.rounds()
                .all(|(_, r)| r.games.values().all(|g| g != "spare/1"))
        );
    }

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
