//! A round's pairings and the arbiter's table results, as operator actions carry them.
//!
//! Pairings are not rules: the core decides nothing with them. It passes each
//! `Operation::Pairings` and `Operation::TableResult` straight back as an event
//! (`EventBody::Pairings`, `EventBody::TableResult`)
//! so that they are journaled and numbered like every other action, survive a restart (the
//! journal replays them) and reach every view that is built from events: the dashboard, the
//! hub, PGN exports, the broadcast folders and the LiveChess API. Tables are the pairing
//! program's board numbers; which e-board stands at which table is the table map's business
//! (the daemon's settings), not the pairing's.

use serde::{Deserialize, Serialize};

/// The label round-wide events carry in their `board` field: not a board, and never a board
/// label (labels keep to letters, digits, `-`, `_` and `.`).
pub const ROUND_BOARD: &str = "*";

/// A player as the pairing program names them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// "Lastname, Firstname", as FIDE writes names.
    pub name: String,
    /// The start number in the pairing program, when the file gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_number: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fide_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// FIDE title ("GM", "WIM", …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Three-letter federation code ("NED").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub federation: Option<String>,
    /// "m" or "w", as the TRF writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sex: Option<String>,
}

/// One table of the round: who plays White and who Black there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The table (board number) in the round, 1 and up.
    pub table: u32,
    pub white: Player,
    pub black: Player,
}

/// A player with no opponent this round, with the TRF code of the bye: `U` (allocated by the
/// pairing), `H` (half point), `F` (full point), `Z` (zero point), `-` (forfeit loss).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bye {
    pub player: Player,
    pub code: char,
}

/// `{"pairings": {...}}`: the pairings of one round. A second one for the same round
/// replaces the first (a corrected file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundPairings {
    pub round: u32,
    /// The round's date, "YYYY.MM.DD", when the file gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The tournament's name, when the file gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    pub tables: Vec<Pairing>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub byes: Vec<Bye>,
    /// Where the pairings came from: "trf", "csv".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The FIDE TRF text the pairings were read from, kept whole so that the round's results
    /// can be written back into it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trf: Option<String>,
    /// The file's character encoding when it was not UTF-8 (`"windows-1252"`): results go
    /// back to the pairing program in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

impl RoundPairings {
    /// The pairing at `table`.
    pub fn table(&self, table: u32) -> Option<&Pairing> {
        self.tables.iter().find(|p| p.table == table)
    }
}

/// `{"table_result": {...}}`: a result the arbiter enters for a table, for what no board
/// shows — a forfeit, a table without an e-board, a correction. `result` is one of
/// [`TABLE_RESULTS`] (an unknown one is refused when the op is read); `None` withdraws an
/// earlier entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableResultOp {
    pub round: u32,
    pub table: u32,
    #[serde(default)]
    pub result: Option<crate::outcome::TableResult>,
}

/// `{"table_game": {...}}`: the arbiter names the game that is table `table`'s game of round
/// `round` — a game restarted by the arbiter's decision, a game bound wrongly. `None`
/// unbinds the table (its next game started on its board binds). The views bind games by
/// themselves otherwise (see `dgt_pairings::book`); this action overrides them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableGameOp {
    pub round: u32,
    pub table: u32,
    #[serde(default)]
    pub game: Option<String>,
}

pub use crate::outcome::TABLE_RESULTS;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Core, CoreConfig, EventBody, Input, InputKind, Operation};

    #[test]
    fn the_core_passes_pairings_back_as_events_and_opens_no_board() {
        let mut core = Core::new(CoreConfig::default());
        let pairings = RoundPairings {
            round: 2,
            tables: vec![Pairing {
                table: 1,
                white: Player {
                    name: "Vermeer, Anna".into(),
                    ..Player::default()
                },
                black: Player {
                    name: "Jansen, Eva".into(),
                    ..Player::default()
                },
            }],
            ..RoundPairings::default()
        };
        let events = core.handle(&Input {
            t_ms: 5,
            board: ROUND_BOARD.into(),
            kind: InputKind::Op(Operation::Pairings(pairings.clone())),
        });
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].body, EventBody::Pairings(pairings));
        assert_eq!(events[0].board, ROUND_BOARD);
        assert!(core.session(ROUND_BOARD).is_none());
        let json: serde_json::Value = serde_json::from_str(&events[0].to_json()).unwrap();
        assert_eq!(json["type"], "pairings");
        assert_eq!(json["tables"][0]["white"]["name"], "Vermeer, Anna");
        // The op reads back from its JSON (capture files, the journal).
        let op: Operation =
            serde_json::from_str(r#"{"table_result": {"round": 2, "table": 1, "result": "+-"}}"#)
                .unwrap();
        let events = core.handle(&Input {
            t_ms: 6,
            board: ROUND_BOARD.into(),
            kind: InputKind::Op(op),
        });
        assert_eq!(events[0].seq, 2);
        assert_eq!(events[0].body.type_name(), "table_result");
    }
}
