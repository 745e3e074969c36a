//! The server's own view of the playing hall: every board, game, clock and alert, rebuilt
//! only from the event stream (contract §3). Nothing here reads the core: a dashboard that
//! reconnects, a resumed client and the public feed all see what the events say.

use std::collections::BTreeMap;

use dgt_core::event::{BoardStatus, ClockEvent, EndReason, LinkState, MoveEvent, Orientation};
use dgt_core::pairing::Pairing;
use dgt_core::{Alert, AlertKind, Event, EventBody, Severity, Side};
use dgt_pairings::{RoundBook, TableMap, TableState};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::access::{Principal, Section, section_of};

/// The standard starting position, used by PGN and LiveChess when a game's start is unknown.
pub const STANDARD_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Everything the events said about the hall, up to `last_seq`. Serialized whole (with its
/// round book and table claims) for the views snapshot ([`crate::views`]); the sections are
/// settings, set again after a restore.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Hall {
    boards: BTreeMap<String, BoardView>,
    games: BTreeMap<String, GameRecord>,
    alerts: BTreeMap<u64, AlertRecord>,
    last_seq: u64,
    last_t_ms: u64,
    /// Rounds, their pairings and which game belongs to which (from `pairings` events).
    book: RoundBook,
    /// Which board stands at which table (the daemon's `[[tables]]`).
    tables: TableMap,
    /// The parts of the hall (`[[sections]]`).
    #[serde(skip)]
    sections: Vec<Section>,
    /// Who did what (`arbiter_action` events), oldest first.
    actions: Vec<ActionRecord>,
}

/// An arbiter action and who took it (an `arbiter_action` event).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ActionRecord {
    pub board: String,
    pub arbiter: String,
    pub role: String,
    /// The action as forwarded (`{"ack": 7}`, `{"result": "1-0"}`, …).
    pub action: Value,
    pub t_ms: u64,
    pub seq: u64,
}

impl ActionRecord {
    /// The alert an action was about (an acknowledgement or a confirmation).
    pub fn alert(&self) -> Option<u64> {
        self.action
            .get("ack")
            .or_else(|| self.action.get("confirm"))
            .and_then(Value::as_u64)
    }
}

/// One board as the events describe it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BoardView {
    pub board: String,
    /// On a hub: the venue PC the board is read by (contract §5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The last `board_status` (link state, serial, orientation).
    pub status: Option<BoardStatus>,
    /// The game being played (or the last one played) on this board.
    pub game: Option<String>,
    /// The position after the last move, or the start of the game.
    pub fen: Option<String>,
    /// A placement that no legal continuation explains (an open `illegal_position`),
    /// cleared by the next move or by `position_restored`.
    pub irregular_placement: Option<String>,
    pub clock: Option<ClockView>,
    pub battery_low: bool,
    pub clock_connected: bool,
    /// Bughouse: what each player may drop (the last `reserves` event), White then Black.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserves: Option<(String, String)>,
}

/// The last clock reading of a board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockView {
    pub white_ms: Option<u64>,
    pub black_ms: Option<u64>,
    pub running: Option<Side>,
    /// The event time of the reading: clients extrapolate the running side from it.
    pub t_ms: u64,
}

/// A game and its moves, corrections applied.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GameRecord {
    pub id: String,
    pub board: String,
    /// `None` when the stream began after the game started.
    pub start_fen: Option<String>,
    pub start_t_ms: u64,
    pub moves: Vec<MoveRecord>,
    pub result: Option<String>,
    pub reason: Option<EndReason>,
    pub end_t_ms: Option<u64>,
    /// How many times a move event replaced plies already sent.
    pub corrections: u32,
    /// Found under way (`game_start.found_under_way`): followed from `start_fen`, the moves
    /// before it not seen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub found_under_way: bool,
}

/// One move with the clock readings when it was completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    pub ply: u32,
    pub side: Side,
    pub uci: String,
    pub san: String,
    pub fen: String,
    pub white_ms: Option<u64>,
    pub black_ms: Option<u64>,
    pub t_ms: u64,
    pub seq: u64,
}

/// An alert, where and when it was raised, and whether the arbiter acknowledged it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AlertRecord {
    #[serde(flatten)]
    pub alert: Alert,
    pub board: String,
    pub t_ms: u64,
    pub seq: u64,
    pub acked: bool,
    /// Who acknowledged it, once an `arbiter_action` said so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acked_by: Option<String>,
    /// The board's table and section, for the dashboard's queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
}

impl GameRecord {
    /// A game with no moves yet.
    pub fn new(id: &str, board: &str, start_fen: Option<String>, t_ms: u64) -> Self {
        GameRecord {
            id: id.to_string(),
            board: board.to_string(),
            start_fen,
            start_t_ms: t_ms,
            moves: Vec::new(),
            result: None,
            reason: None,
            end_t_ms: None,
            corrections: 0,
            found_under_way: false,
        }
    }

    /// The SAN of every move since the start, in order.
    pub fn san_list(&self) -> Vec<String> {
        self.moves.iter().map(|m| m.san.clone()).collect()
    }

    /// Applies the contract's correction rule: a move for a ply already seen replaces that
    /// ply and every later one.
    fn record(&mut self, m: MoveRecord) {
        let keep = (m.ply as usize).saturating_sub(1);
        if keep < self.moves.len() {
            self.moves.truncate(keep);
            self.corrections += 1;
        }
        self.moves.push(m);
    }
}

impl BoardView {
    fn new(board: &str) -> Self {
        BoardView {
            board: board.to_string(),
            node: None,
            status: None,
            game: None,
            fen: None,
            irregular_placement: None,
            clock: None,
            battery_low: false,
            clock_connected: false,
            reserves: None,
        }
    }

    /// Connected or identified by the last `board_status`.
    pub fn is_connected(&self) -> bool {
        matches!(
            self.status.as_ref().map(|s| s.state),
            Some(LinkState::Connected | LinkState::Identified)
        )
    }

    pub fn is_rotated(&self) -> bool {
        matches!(
            self.status.as_ref().map(|s| s.orientation),
            Some(Orientation::Rotated)
        )
    }

    /// The placement part of the FEN the board shows now: the irregular placement if there
    /// is one, else the position after the last move.
    pub fn placement(&self) -> Option<&str> {
        self.irregular_placement
            .as_deref()
            .or(self.fen.as_deref())
            .and_then(|f| f.split_whitespace().next())
    }
}

/// Severity as a rank for ordering the alert queue: intervene first.
pub fn severity_rank(s: Severity) -> u8 {
    match s {
        Severity::Intervene => 0,
        Severity::Claim => 1,
        Severity::Review => 2,
        Severity::Info => 3,
    }
}

impl Hall {
    pub fn new() -> Self {
        Self::default()
    }

    /// A hall whose boards stand at the tables of `tables`.
    pub fn with_tables(tables: TableMap) -> Self {
        Hall {
            book: RoundBook::with_map(tables.clone()),
            tables,
            ..Self::default()
        }
    }

    pub fn book(&self) -> &RoundBook {
        &self.book
    }

    pub fn tables(&self) -> &TableMap {
        &self.tables
    }

    /// Sets the parts of the hall (`[[sections]]`).
    pub fn set_sections(&mut self, sections: Vec<Section>) {
        self.sections = sections;
    }

    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// Whether `who` may see (and act on) `board`.
    pub fn covers(&self, who: &Principal, board: &str) -> bool {
        who.covers_board(&self.tables, board)
    }

    /// Every arbiter action recorded, oldest first.
    pub fn actions(&self) -> &[ActionRecord] {
        &self.actions
    }

    /// The round and pairing of a board's current game: the table the game is bound to,
    /// else the board's table in the current round.
    pub fn pairing_of_board(&self, board: &str) -> Option<(u32, &Pairing)> {
        let game = self.boards.get(board).and_then(|b| b.game.as_deref());
        match game.and_then(|g| self.book.table_of(g)) {
            Some(_) => self.book.pairing_of(game?, &self.tables),
            None => self.book.pairing_of_board(board, &self.tables),
        }
    }

    /// The table's game of the round shown on a board whose current game is played after
    /// it (pieces set up again, analysis): the board page names both.
    pub fn round_game_before(&self, board: &str) -> Option<(u32, u32, &str)> {
        let now = self.boards.get(board)?.game.as_deref()?;
        if !self.book.game(now)?.after {
            return None;
        }
        let (round, p) = self.book.pairing_of_board(board, &self.tables)?;
        let game = self.book.table_game(round, p.table)?;
        (game != now).then_some((round, p.table, game))
    }

    /// The round and pairing a game was played under.
    pub fn pairing_of_game(&self, game: &str) -> Option<(u32, &Pairing)> {
        self.book.pairing_of(game, &self.tables)
    }

    /// Labels of the boards that reported a status (boards really present).
    pub fn present_boards(&self) -> Vec<&str> {
        self.boards
            .values()
            .filter(|b| b.status.is_some())
            .map(|b| b.board.as_str())
            .collect()
    }

    /// A round as the dashboard shows it: every table with its players, board, game,
    /// result and state, the byes, and the boards present that have no pairing in it.
    pub fn round_json(&self, round: u32) -> Option<Value> {
        let info = self.book.round(round)?;
        let present = self.present_boards();
        let outcomes = self.book.outcomes(round, &self.tables, &present);
        let tables: Vec<Value> = outcomes
            .iter()
            .map(|o| {
                json!({
                    "table": o.pairing.table,
                    "white": o.pairing.white,
                    "black": o.pairing.black,
                    "board": o.board,
                    "label": self.tables.label(o.pairing.table),
                    "game": o.game,
                    "plies": o.plies,
                    "result": o.result,
                    "entered": o.entered,
                    "source": o.source,
                    "by": o.by,
                    "confirmed": o.confirmed,
                    // The game as the board reported it, beside an entered result.
                    "board_result": o.game.as_deref().and_then(|g| self.book.game(g)).and_then(|g| g.result.clone()),
                    "bound_by": info.bound_by.get(&o.pairing.table),
                    "state": o.state,
                })
            })
            .collect();
        let unpaired: Vec<&str> = present
            .iter()
            .copied()
            .filter(|b| {
                self.tables
                    .table(b)
                    .is_none_or(|t| info.pairings.table(t).is_none())
            })
            .collect();
        let p = &info.pairings;
        Some(json!({
            "round": round,
            "current": self.book.current() == Some(round),
            "event": p.event,
            "date": p.date,
            "format": p.format,
            "tables": tables,
            "byes": p.byes.iter().map(|b| json!({"player": b.player, "code": b.code.to_string()})).collect::<Vec<_>>(),
            "boards_without_pairing": unpaired,
            // Node boards of one number on a hub: none stands at the table.
            "contested_tables": self.tables.contested().iter().map(|c| json!({"table": c.table, "boards": c.boards})).collect::<Vec<_>>(),
            "tables_without_board": outcomes.iter().filter(|o| o.state == TableState::NoBoard).map(|o| o.pairing.table).collect::<Vec<_>>(),
            "unfinished": dgt_pairings::results::unfinished(&outcomes),
            "unconfirmed": dgt_pairings::results::unconfirmed(&outcomes),
        }))
    }

    /// The seq of the last event applied (0 before any).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The largest event time seen.
    pub fn last_t_ms(&self) -> u64 {
        self.last_t_ms
    }

    pub fn boards(&self) -> impl Iterator<Item = &BoardView> {
        self.boards.values()
    }

    pub fn board(&self, board: &str) -> Option<&BoardView> {
        self.boards.get(board)
    }

    pub fn games(&self) -> impl Iterator<Item = &GameRecord> {
        self.games.values()
    }

    pub fn game(&self, id: &str) -> Option<&GameRecord> {
        self.games.get(id)
    }

    /// The board's current (or last) game.
    pub fn current_game(&self, board: &str) -> Option<&GameRecord> {
        let id = self.boards.get(board)?.game.as_ref()?;
        self.games.get(id)
    }

    pub fn alerts(&self) -> impl Iterator<Item = &AlertRecord> {
        self.alerts.values()
    }

    pub fn alert(&self, id: u64) -> Option<&AlertRecord> {
        self.alerts.get(&id)
    }

    /// Alerts not yet acknowledged, most urgent first, then oldest first.
    pub fn open_alerts(&self) -> Vec<&AlertRecord> {
        let mut open: Vec<&AlertRecord> = self.alerts.values().filter(|a| !a.acked).collect();
        open.sort_by_key(|a| (severity_rank(a.alert.severity), a.seq));
        open
    }

    /// Marks an alert acknowledged; `None` when no such alert was raised.
    /// Every board's label, in order.
    pub fn board_labels(&self) -> Vec<String> {
        self.boards.keys().cloned().collect()
    }

    pub fn ack(&mut self, id: u64) -> Option<&AlertRecord> {
        let record = self.alerts.get_mut(&id)?;
        record.acked = true;
        Some(record)
    }

    /// Applies one event. Events with a seq not above the last one are ignored, so feeding
    /// the same stream twice (a resumed subscription) changes nothing.
    pub fn apply(&mut self, event: &Event) {
        if event.seq <= self.last_seq && self.last_seq != 0 {
            return;
        }
        self.last_seq = event.seq;
        self.last_t_ms = self.last_t_ms.max(event.t_ms);
        // The boards the round book sees claim their tables here too (a hub's node boards).
        if let Some(board) = dgt_pairings::book::game_board(event)
            && let Some(c) = self.tables.observe(board)
        {
            tracing::warn!(
                table = c.table,
                boards = %c.boards.join(", "),
                "table {} is claimed by {}: neither stands at it until the hub's [[tables]] \
                 names one (label = \"{}\", board = {})",
                c.table,
                c.boards.join(" and "),
                c.boards[0],
                c.table
            );
        }
        if let EventBody::Alert(a) = &event.body
            && matches!(a.kind, AlertKind::NodeOffline | AlertKind::NodeOnline)
        {
            // About a whole venue PC (on a hub), not a board: no board card for it.
            self.alerts.insert(
                a.id,
                AlertRecord {
                    alert: a.clone(),
                    board: event.board.clone(),
                    t_ms: event.t_ms,
                    seq: event.seq,
                    acked: false,
                    acked_by: None,
                    table: self.tables.table(&event.board),
                },
            );
            return;
        }
        if let EventBody::ArbiterAction(by) = &event.body {
            let record = ActionRecord {
                board: event.board.clone(),
                arbiter: by.arbiter.clone(),
                role: by.role.clone(),
                action: serde_json::to_value(&by.action).unwrap_or_default(),
                t_ms: event.t_ms,
                seq: event.seq,
            };
            // A replacement board takes over its table (`take_over` op, issue 35).
            if let Some(from) = record
                .action
                .pointer("/take_over/from")
                .and_then(Value::as_str)
            {
                self.tables.replace_board(from, &event.board);
            }
            if let Some(id) = record.action.get("ack").and_then(Value::as_u64)
                && let Some(a) = self.alerts.get_mut(&id)
            {
                a.acked = true;
                a.acked_by = Some(by.arbiter.clone());
            }
            self.actions.push(record);
            // Who entered a table's result or named its game.
            self.book.apply(event);
            return;
        }
        self.book.apply(event);
        if matches!(
            event.body,
            EventBody::Pairings(_) | EventBody::TableResult(_) | EventBody::TableGame(_)
        ) {
            // Round-wide: no board of its own.
            return;
        }
        let board = self
            .boards
            .entry(event.board.clone())
            .or_insert_with(|| BoardView::new(&event.board));
        if board.node.is_none() {
            board.node.clone_from(&event.node);
        }
        match &event.body {
            EventBody::BoardStatus(status) => board.status = Some(status.clone()),
            EventBody::GameStart {
                game,
                start_fen,
                found_under_way,
            } => {
                board.reserves = None;
                board.game = Some(game.clone());
                board.fen = Some(start_fen.clone());
                board.irregular_placement = None;
                let mut record =
                    GameRecord::new(game, &event.board, Some(start_fen.clone()), event.t_ms);
                record.found_under_way = *found_under_way;
                self.games.insert(game.clone(), record);
            }
            EventBody::Move(m) => {
                board.irregular_placement = None;
                board.game = Some(m.game.clone());
                board.fen = Some(m.fen.clone());
                let game = self
                    .games
                    .entry(m.game.clone())
                    .or_insert_with(|| GameRecord::new(&m.game, &event.board, None, event.t_ms));
                game.record(move_record(m, event));
                // After a correction the board shows the last move that still stands.
                board.fen = game.moves.last().map(|m| m.fen.clone());
            }
            EventBody::GameReplaced { game, replaced_by } => {
                // A spare board's own game was the moved game all along (issue 35).
                self.games.remove(game);
                if board.game.as_ref() == Some(game) {
                    board.game = Some(replaced_by.clone());
                }
            }
            EventBody::Reserves { white, black, .. } => {
                board.reserves = Some((white.clone(), black.clone()));
            }
            EventBody::Clock(c) => {
                board.clock_connected = true;
                board.clock = Some(clock_view(c, event.t_ms));
            }
            EventBody::Alert(a) => {
                match a.kind {
                    AlertKind::IllegalPosition => board.irregular_placement = a.fen.clone(),
                    AlertKind::PositionRestored => board.irregular_placement = None,
                    AlertKind::BatteryLow => board.battery_low = true,
                    AlertKind::ClockDisconnected => board.clock_connected = false,
                    _ => {}
                }
                self.alerts.insert(
                    a.id,
                    AlertRecord {
                        alert: a.clone(),
                        board: event.board.clone(),
                        t_ms: event.t_ms,
                        seq: event.seq,
                        acked: false,
                        acked_by: None,
                        table: self.tables.table(&event.board),
                    },
                );
            }
            EventBody::GameEnd {
                game,
                result,
                reason,
            } => {
                let record = self
                    .games
                    .entry(game.clone())
                    .or_insert_with(|| GameRecord::new(game, &event.board, None, event.t_ms));
                record.result = Some(result.to_string());
                record.reason = Some(*reason);
                record.end_t_ms = Some(event.t_ms);
            }
            EventBody::Pairings(_)
            | EventBody::TableResult(_)
            | EventBody::TableGame(_)
            | EventBody::ArbiterAction(_) => {}
        }
    }

    /// The state a client starts from: every board's position, last move, clock and (when
    /// `with_alerts`) the open alerts. `now_t_ms` estimates the current event time so clients
    /// can extrapolate running clocks.
    pub fn snapshot(&self, resync: bool, with_alerts: bool, now_t_ms: u64) -> Value {
        self.snapshot_for(resync, with_alerts, now_t_ms, None)
    }

    /// [`Hall::snapshot`] of the boards (and their alerts) `who` covers; `None`: all.
    pub fn snapshot_for(
        &self,
        resync: bool,
        with_alerts: bool,
        now_t_ms: u64,
        who: Option<&Principal>,
    ) -> Value {
        let seen = |board: &str| who.is_none_or(|p| self.covers(p, board));
        let boards: Vec<Value> = self
            .boards
            .values()
            .filter(|b| seen(&b.board))
            .map(|b| self.board_json(b, with_alerts))
            .collect();
        let mut v = json!({
            "type": "snapshot",
            "seq": self.last_seq,
            "resync": resync,
            "now_t_ms": now_t_ms,
            "boards": boards,
        });
        if with_alerts {
            let open: Vec<&AlertRecord> = self
                .open_alerts()
                .into_iter()
                .filter(|a| seen(&a.board))
                .collect();
            v["alerts"] = serde_json::to_value(open).unwrap_or_default();
        }
        if let Some(round) = self.book.current().and_then(|r| self.round_json(r)) {
            v["round"] = round;
        }
        v
    }

    /// One board with its current game's moves, as the snapshot and `/api/boards` show it.
    pub fn board_json(&self, b: &BoardView, with_equipment: bool) -> Value {
        let game = b.game.as_ref().and_then(|id| self.games.get(id));
        let moves: Vec<Value> = game
            .map(|g| g.moves.iter().map(compact_move).collect())
            .unwrap_or_default();
        let mut v = json!({
            "board": b.board,
            "game": b.game,
            "fen": b.fen,
            "start_fen": game.and_then(|g| g.start_fen.clone()),
            "last_move": game.and_then(|g| g.moves.last()).map(compact_move),
            "moves": moves,
            "clock": b.clock,
            "result": game.and_then(|g| g.result.clone()),
            "reason": game.and_then(|g| g.reason),
        });
        if let Some(node) = &b.node {
            v["node"] = json!(node);
        }
        let table = self.tables.table(&b.board);
        v["table"] = json!(table);
        v["section"] = json!(section_of(&self.sections, table));
        if let Some((round, p)) = self.pairing_of_board(&b.board) {
            v["pairing"] = pairing_json(round, p);
        }
        // A game played after the table's round game: the board page says so and its
        // result buttons act on the round game.
        if let Some((round, table, id)) = self.round_game_before(&b.board) {
            let g = self.games.get(id);
            let entered = self
                .book
                .round(round)
                .and_then(|i| i.entered.get(&table))
                .map(|e| e.result.clone());
            v["after_game"] = json!(true);
            v["round_game"] = json!({
                "round": round,
                "table": table,
                "game": id,
                "plies": g.map_or(0, |g| g.moves.len()),
                "result": entered.or_else(|| g.and_then(|g| g.result.clone())),
            });
        }
        if with_equipment {
            v["status"] = serde_json::to_value(&b.status).unwrap_or_default();
            v["irregular_placement"] = json!(b.irregular_placement);
            v["battery_low"] = json!(b.battery_low);
            v["clock_connected"] = json!(b.clock_connected);
        }
        v
    }
}

/// A board's pairing as the dashboard shows it.
pub fn pairing_json(round: u32, p: &Pairing) -> Value {
    json!({ "round": round, "table": p.table, "white": p.white, "black": p.black })
}

fn move_record(m: &MoveEvent, event: &Event) -> MoveRecord {
    MoveRecord {
        ply: m.ply,
        side: m.side,
        uci: m.uci.clone(),
        san: m.san.clone(),
        fen: m.fen.clone(),
        white_ms: m.white_ms,
        black_ms: m.black_ms,
        t_ms: event.t_ms,
        seq: event.seq,
    }
}

fn clock_view(c: &ClockEvent, t_ms: u64) -> ClockView {
    ClockView {
        white_ms: c.white_ms,
        black_ms: c.black_ms,
        running: c.running,
        t_ms,
    }
}

fn compact_move(m: &MoveRecord) -> Value {
    json!({
        "ply": m.ply, "side": m.side, "uci": m.uci, "san": m.san,
        "white_ms": m.white_ms, "black_ms": m.black_ms, "t_ms": m.t_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(seq: u64, ply: u32, uci: &str, san: &str) -> Event {
        Event {
            seq,
            board: "b".into(),
            t_ms: seq * 10,
            body: EventBody::Move(MoveEvent {
                game: "b/1".into(),
                ply,
                side: if ply % 2 == 1 {
                    Side::White
                } else {
                    Side::Black
                },
                uci: uci.into(),
                san: san.into(),
                fen: format!("fen-{seq}"),
                white_ms: Some(1000),
                black_ms: Some(1000),
            }),
            node: None,
            node_seq: None,
        }
    }

    #[test]
    fn a_hub_board_names_its_node_and_node_alerts_make_no_board() {
        let mut hall = Hall::default();
        let mut e = mv(1, 1, "e2e4", "e4");
        e.node = Some("hall-a".into());
        hall.apply(&e);
        let b = hall.board_json(hall.boards.get("b").unwrap(), false);
        assert_eq!(b["node"], "hall-a");
        let mut a = Alert::new(
            AlertKind::NodeOffline,
            Severity::Review,
            "cluster",
            "m".into(),
        );
        a.id = 2;
        hall.apply(&Event::new(2, "hall-a", 30, EventBody::Alert(a)));
        assert_eq!(hall.board_labels(), ["b"]);
        assert_eq!(hall.alert(2).map(|a| a.board.as_str()), Some("hall-a"));
        // A daemon's own board has no node field.
        hall.apply(&mv(3, 1, "e2e4", "e4"));
        let mut other = mv(4, 1, "d2d4", "d4");
        other.board = "c".into();
        hall.apply(&other);
        let c = hall.board_json(hall.boards.get("c").unwrap(), false);
        assert!(c.get("node").is_none());
    }

    #[test]
    fn a_spare_boards_own_game_gives_way_on_its_board_page() {
        let mut hall = Hall::new();
        hall.apply(&mv(1, 1, "e2e4", "e4"));
        let start = EventBody::GameStart {
            game: "spare/1".into(),
            start_fen: "x".into(),
            found_under_way: true,
        };
        hall.apply(&Event::new(2, "spare", 20, start));
        let replaced = EventBody::GameReplaced {
            game: "spare/1".into(),
            replaced_by: "b/1".into(),
        };
        hall.apply(&Event::new(3, "spare", 30, replaced));
        assert!(hall.game("spare/1").is_none());
        assert_eq!(
            hall.boards.get("spare").and_then(|b| b.game.as_deref()),
            Some("b/1")
        );
    }

    #[test]
    fn a_repeated_ply_replaces_it_and_all_later_plies() {
        let mut hall = Hall::new();
        hall.apply(&mv(1, 1, "e2e4", "e4"));
        hall.apply(&mv(2, 2, "e7e5", "e5"));
        hall.apply(&mv(3, 3, "g1f3", "Nf3"));
        hall.apply(&mv(4, 2, "c7c5", "c5"));
        let g = hall.game("b/1").unwrap();
        assert_eq!(g.san_list(), ["e4", "c5"]);
        assert_eq!(g.corrections, 1);
        assert_eq!(hall.board("b").unwrap().fen.as_deref(), Some("fen-4"));
    }

    #[test]
    fn old_events_are_ignored() {
        let mut hall = Hall::new();
        hall.apply(&mv(5, 1, "e2e4", "e4"));
        hall.apply(&mv(3, 1, "d2d4", "d4"));
        assert_eq!(hall.game("b/1").unwrap().san_list(), ["e4"]);
    }
}
