//! Games rebuilt from events, written as PGN with `[%clk]` after every move.
//!
//! The move list follows the contract's rule for consumers (§3): a `move` event whose game
//! and ply were already seen replaces that ply and every later one. A [`GameRecord`] holds
//! only moves, clocks and the result — never an alert — so anything written from it (PGN,
//! the public broadcast) cannot leak what the Laws (12.6) reserve for the arbiter.

use std::fmt::Write;

use serde_json::Value;

/// One move as the game record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordedMove {
    pub ply: u32,
    pub san: String,
    pub uci: String,
    /// True for White's move.
    pub white: bool,
    pub white_ms: Option<u64>,
    pub black_ms: Option<u64>,
    /// When the move was completed (the event's `t_ms`).
    pub t_ms: u64,
}

impl RecordedMove {
    /// The mover's remaining time after the move: what `[%clk]` shows.
    pub fn clock_ms(&self) -> Option<u64> {
        if self.white {
            self.white_ms
        } else {
            self.black_ms
        }
    }
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameResult {
    pub result: String,
    pub reason: String,
    pub t_ms: u64,
}

/// A game as events describe it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameRecord {
    pub game: String,
    pub board: String,
    pub start_fen: String,
    pub start_t_ms: u64,
    pub moves: Vec<RecordedMove>,
    pub end: Option<GameResult>,
    /// Found under way (`game_start.found_under_way`): followed from `start_fen`, the moves
    /// before it not seen.
    pub found_under_way: bool,
}

impl GameRecord {
    /// The game as it stood at `t_ms`: moves and result made later are left out (the
    /// delayed public broadcast).
    pub fn as_of(&self, t_ms: u64) -> GameRecord {
        // A later correction may have replaced a ply first shown before `t_ms`; the record
        // keeps only the final moves, so a cut can only show final moves — never a wrong one.
        GameRecord {
            moves: self
                .moves
                .iter()
                .take_while(|m| m.t_ms <= t_ms)
                .cloned()
                .collect(),
            end: self.end.clone().filter(|e| e.t_ms <= t_ms),
            ..self.clone()
        }
    }
}

/// The games of a stream of events, in the order they started.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct GameBook {
    games: Vec<GameRecord>,
}

impl GameBook {
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event given as contract JSON; other event types are ignored.
    pub fn apply_json(&mut self, json: &str) {
        if let Ok(v) = serde_json::from_str::<Value>(json) {
            self.apply_value(&v);
        }
    }

    /// Applies one event of the core.
    pub fn apply(&mut self, event: &dgt_core::Event) {
        if let Ok(v) = serde_json::to_value(event) {
            self.apply_value(&v);
        }
    }

    fn apply_value(&mut self, v: &Value) {
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default();
        let u = |k: &str| v.get(k).and_then(Value::as_u64);
        let t_ms = u("t_ms").unwrap_or(0);
        match s("type") {
            "game_start" => {
                let record = GameRecord {
                    game: s("game").into(),
                    board: s("board").into(),
                    start_fen: s("start_fen").into(),
                    start_t_ms: t_ms,
                    moves: Vec::new(),
                    end: None,
                    found_under_way: v.get("found_under_way").and_then(Value::as_bool)
                        == Some(true),
                };
                // A game found under way and then rebuilt from the board's log starts again
                // under its id: one game, from its new start.
                match self.game_mut(&record.game) {
                    Some(g) => *g = record,
                    None => self.games.push(record),
                }
            }
            "move" => {
                let Some(g) = self.game_mut(s("game")) else {
                    return;
                };
                let ply = u("ply").unwrap_or(1).max(1) as u32;
                // A ply already seen is a correction: it replaces that ply and all later.
                g.moves.truncate(ply as usize - 1);
                g.moves.push(RecordedMove {
                    ply,
                    san: s("san").into(),
                    uci: s("uci").into(),
                    white: s("side") == "white",
                    white_ms: u("white_ms"),
                    black_ms: u("black_ms"),
                    t_ms,
                });
            }
            // A spare board's own game was another board's game moved there (issue 35).
            "game_replaced" => self.games.retain(|g| g.game != s("game")),
            "game_end" => {
                if let Some(g) = self.game_mut(s("game")) {
                    g.end = Some(GameResult {
                        result: s("result").into(),
                        reason: s("reason").into(),
                        t_ms,
                    });
                }
            }
            _ => {}
        }
    }

    fn game_mut(&mut self, id: &str) -> Option<&mut GameRecord> {
        self.games.iter_mut().rev().find(|g| g.game == id)
    }

    pub fn games(&self) -> &[GameRecord] {
        &self.games
    }

    pub fn game(&self, id: &str) -> Option<&GameRecord> {
        self.games.iter().rev().find(|g| g.game == id)
    }

    pub fn into_games(self) -> Vec<GameRecord> {
        self.games
    }
}

/// The tags PGN readers and broadcast tools expect, from the tournament's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgnHeader {
    pub event: Option<String>,
    pub site: Option<String>,
    /// "YYYY.MM.DD".
    pub date: Option<String>,
    pub round: Option<u32>,
    /// The board number in the round (the "b" of Round "r.b").
    pub board_number: Option<u32>,
    /// "Lastname, Firstname".
    pub white: Option<String>,
    pub black: Option<String>,
    pub white_fide_id: Option<u64>,
    pub black_fide_id: Option<u64>,
    /// FIDE ratings, from the pairings.
    pub white_elo: Option<u32>,
    pub black_elo: Option<u32>,
    /// PGN TimeControl syntax ("180+2", "40/5400+30:1800+30").
    pub time_control: Option<String>,
}

/// The comment before the first move of a game found under way: its record begins where the
/// daemon found it.
pub const FOUND_UNDER_WAY_COMMENT: &str =
    "{ Game found under way: the moves before this position were not seen. }";

/// The standard start position as dgt-core writes it.
const STANDARD_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Escapes a tag value (PGN standard 8.1.1: backslash and quote are escaped, no line
/// breaks or other control characters).
fn tag_value(s: &str) -> String {
    dgt_core::text::pgn_tag_value(s)
}

/// `[%clk h:mm:ss]` time, whole seconds rounded down (DGT clocks show whole seconds).
pub fn clock_text(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

/// The game as PGN: the seven-tag roster, then Board, FIDE ids, TimeControl, FEN/SetUp for a
/// non-standard start; SAN moves each followed by `{ [%clk h:mm:ss] }` when the clock was
/// read; the result ("*" while the game goes on).
pub fn write_pgn(record: &GameRecord, header: &PgnHeader) -> String {
    let result = record
        .end
        .as_ref()
        .map(|e| e.result.as_str())
        .unwrap_or("*");
    let unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".into());
    let round = match (header.round, header.board_number) {
        (Some(r), Some(b)) => format!("{r}.{b}"),
        (Some(r), None) => r.to_string(),
        _ => "?".into(),
    };
    let mut tags: Vec<(&str, String)> = vec![
        ("Event", unknown(&header.event)),
        ("Site", unknown(&header.site)),
        (
            "Date",
            header.date.clone().unwrap_or_else(|| "????.??.??".into()),
        ),
        ("Round", round),
        ("White", unknown(&header.white)),
        ("Black", unknown(&header.black)),
        ("Result", result.into()),
    ];
    if let Some(b) = header.board_number {
        tags.push(("Board", b.to_string()));
    }
    if let Some(id) = header.white_fide_id {
        tags.push(("WhiteFideId", id.to_string()));
    }
    if let Some(id) = header.black_fide_id {
        tags.push(("BlackFideId", id.to_string()));
    }
    if let Some(elo) = header.white_elo {
        tags.push(("WhiteElo", elo.to_string()));
    }
    if let Some(elo) = header.black_elo {
        tags.push(("BlackElo", elo.to_string()));
    }
    tags.push(("TimeControl", unknown(&header.time_control)));
    if !record.start_fen.is_empty() && record.start_fen != STANDARD_START {
        tags.push(("SetUp", "1".into()));
        tags.push(("FEN", record.start_fen.clone()));
        if let Ok((_, shakmaty::CastlingMode::Chess960)) =
            dgt_core::reconstruct::position_from_fen(&record.start_fen)
        {
            tags.push(("Variant", "Chess960".into()));
        }
    }
    if let Some(end) = &record.end {
        tags.push(("Termination", termination(&end.reason).into()));
    }

    let mut out = String::new();
    for (name, value) in tags {
        let _ = writeln!(out, "[{name} \"{}\"]", tag_value(&value));
    }
    out.push('\n');

    // Move numbers continue from the start position's full-move number and side to move.
    let mut fields = record.start_fen.split_whitespace().skip(1);
    let black_starts = fields.next() == Some("b");
    let first_number: u32 = fields.nth(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut tokens: Vec<String> = Vec::new();
    if record.found_under_way {
        tokens.push(FOUND_UNDER_WAY_COMMENT.into());
    }
    for (i, m) in record.moves.iter().enumerate() {
        let half = i as u32 + u32::from(black_starts);
        let number = first_number + half / 2;
        if m.white {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(m.san.clone());
        if let Some(ms) = m.clock_ms() {
            tokens.push(format!("{{ [%clk {}] }}", clock_text(ms)));
        }
        // After a comment a black move needs its number again for some readers ("3... Nf6").
        if m.white
            && m.clock_ms().is_some()
            && let Some(next) = record.moves.get(i + 1)
            && !next.white
        {
            tokens.push(format!("{number}..."));
        }
    }
    tokens.push(result.into());
    wrap(&tokens, 79, &mut out);
    out.push('\n');
    out
}

/// PGN `Termination` tag values (PGN standard 9.8.1) for the contract's `game_end.reason`.
fn termination(reason: &str) -> &'static str {
    match reason {
        "flag_fall" | "both_flags_fallen" => "time forfeit",
        "illegal_move" | "arbiter" => "rules infraction",
        _ => "normal",
    }
}

/// Joins tokens with spaces into lines of at most `width` characters (PGN export format
/// keeps lines under 80), never breaking inside a `{ comment }`.
fn wrap(tokens: &[String], width: usize, out: &mut String) {
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(t);
    }
    out.push_str(&line);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(ply: u32, san: &str, white: bool, ms: u64, t: u64) -> String {
        serde_json::json!({"type": "move", "board": "b", "t_ms": t, "seq": t, "game": "b/1",
            "ply": ply, "side": if white {"white"} else {"black"}, "uci": "x", "san": san,
            "fen": "", "white_ms": ms, "black_ms": ms + 1000})
        .to_string()
    }

    #[test]
    fn corrections_replace_the_ply_and_all_later() {
        let mut book = GameBook::new();
        book.apply_json(
            r#"{"type":"game_start","board":"b","t_ms":0,"seq":1,"game":"b/1","start_fen":""}"#,
        );
        book.apply_json(&mv(1, "e4", true, 180_000, 10));
        book.apply_json(&mv(2, "e5", false, 180_000, 20));
        book.apply_json(&mv(3, "Rb1", true, 179_000, 30));
        book.apply_json(&mv(3, "Rc1", true, 178_000, 40));
        let g = &book.games()[0];
        let sans: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e4", "e5", "Rc1"]);
        assert_eq!(g.as_of(25).moves.len(), 2);
    }

    #[test]
    fn movetext_numbers_clocks_and_black_to_move_starts() {
        let mut book = GameBook::new();
        book.apply_json(
            r#"{"type":"game_start","board":"b","t_ms":0,"seq":1,"game":"b/1",
                "start_fen":"4k3/8/8/8/8/8/4P3/4K3 b - - 0 7"}"#,
        );
        book.apply_json(&mv(1, "Kd7", false, 61_500, 10));
        book.apply_json(&mv(2, "e4", true, 3_725_000, 20));
        let pgn = write_pgn(&book.games()[0], &PgnHeader::default());
        assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
        assert!(
            pgn.contains("7... Kd7 { [%clk 0:01:02] } 8. e4 { [%clk 1:02:05] } *"),
            "{pgn}"
        );
        assert!(pgn.contains("[Round \"?\"]"));
        assert_eq!(clock_text(3_599_999), "0:59:59");
    }

    #[test]
    fn a_spare_boards_own_game_gives_way_to_the_game_moved_to_it() {
        let mut book = GameBook::new();
        book.apply_json(
            r#"{"type":"game_start","board":"b","t_ms":0,"seq":1,"game":"b/1","start_fen":""}"#,
        );
        book.apply_json(
            r#"{"type":"game_start","board":"spare","t_ms":5,"seq":2,"game":"spare/1","start_fen":"x","found_under_way":true}"#,
        );
        book.apply_json(
            r#"{"type":"game_replaced","board":"spare","t_ms":6,"seq":3,"game":"spare/1","replaced_by":"b/1"}"#,
        );
        let ids: Vec<&str> = book.games().iter().map(|g| g.game.as_str()).collect();
        assert_eq!(ids, ["b/1"]);
    }

    #[test]
    fn a_game_found_under_way_says_the_moves_before_were_not_seen() {
        let fen = "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 1";
        let mut book = GameBook::new();
        book.apply_json(&format!(
            r#"{{"type":"game_start","board":"b","t_ms":0,"seq":1,"game":"b/1","start_fen":"{fen}","found_under_way":true}}"#
        ));
        book.apply_json(&mv(1, "a6", false, 61_500, 10));
        let pgn = write_pgn(&book.games()[0], &PgnHeader::default());
        assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
        assert!(pgn.contains(&format!("[FEN \"{fen}\"]")), "{pgn}");
        assert!(
            pgn.contains(&format!("\n\n{FOUND_UNDER_WAY_COMMENT} 1... a6\n")),
            "{pgn}"
        );
        // Rebuilt from the board's log: the same game, from the initial position, whole.
        book.apply_json(
            r#"{"type":"game_start","board":"b","t_ms":5,"seq":3,"game":"b/1","start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}"#,
        );
        assert_eq!(book.games().len(), 1, "one game");
        let pgn = write_pgn(&book.games()[0], &PgnHeader::default());
        assert!(!pgn.contains("not seen") && !pgn.contains("SetUp"), "{pgn}");
    }
}
