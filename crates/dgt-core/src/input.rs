//! What the core is fed: timestamped bytes per board, link changes and operator actions.

use serde::{Deserialize, Serialize};

pub use crate::side::ClockSide;

/// One input to the core. `t_ms` never decreases; `board` labels the line ("board-1").
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub t_ms: u64,
    pub board: String,
    pub kind: InputKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum InputKind {
    /// Bytes received from the board, in any chunking.
    Rx(Vec<u8>),
    /// Bytes the daemon sent to the board (kept for the record; they decide nothing).
    Tx(Vec<u8>),
    /// The serial edge opened or lost the port.
    Link(Link),
    /// An operator or arbiter action.
    Op(Operation),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum Link {
    Connected {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        port: Option<String>,
    },
    /// The serial edge found the board on a bus line (protocol §2.4): its bytes are bus
    /// replies (`LineMode::Bus`; 0x86 is `BUS_FROM_START` there, §3.1), one board's frames
    /// only. `address` is its bus address, the low 14 bits of its serial number.
    BusConnected {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        port: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        address: Option<u16>,
    },
    /// The serial edge found this board's serial number (or its table's label) already open
    /// on another port: the board is followed apart, under this port's
    /// name, until the arbiter sorts the cabling or the serial table out.
    Duplicate {
        serial: String,
        /// The label the other port holds.
        claimed: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        other_port: Option<String>,
    },
    Disconnected {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The daemon itself is stopping (a planned stop): nothing is wrong with the board.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stopping: bool,
    },
}

/// Rapid and blitz supervision (FIDE Laws appendices A3/A4, B3/B4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Supervision {
    Full,
    Reduced,
}

/// `{"setup": {...}}`: any subset of these fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupOp {
    /// The full FEN the next game starts from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<StartFen>,
    /// PGN TimeControl syntax: "5400+30", "40/5400+30:1800+30", "180+2", "300".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<crate::time_control::TimeControl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_clock_side: Option<ClockSide>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edition: Option<crate::edition::Edition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supervision: Option<Supervision>,
    /// Whether the board is turned round (connector on White's right).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotated: Option<bool>,
}

/// The FEN of a legal position a game can start from (standard or Chess960 castling):
/// checked when a set-up comes in, so a FEN that is not one is refused with the reason.
/// Kept as written, so a set-up is journaled and passed back exactly as it was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartFen(String);

/// Why a FEN cannot start a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fen \"{text}\": {reason}")]
pub struct BadFen {
    pub text: String,
    pub reason: crate::reconstruct::FenError,
}

impl StartFen {
    pub fn parse(text: &str) -> Result<StartFen, BadFen> {
        crate::reconstruct::position_from_fen(text)
            .map(|_| StartFen(text.to_string()))
            .map_err(|reason| BadFen {
                text: text.to_string(),
                reason,
            })
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for StartFen {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl Serialize for StartFen {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for StartFen {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        StartFen::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A claim an arbiter records (9.2, 9.3, 6.8): its kind, the claimant and the claimant's
/// intended move, if any. An unknown kind or claimant is refused when the op is read, so no
/// path records a claim the arbiter did not make.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaimOp {
    /// None: a repetition claim (the documented default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<crate::claim::ClaimKindName>,
    /// None: the player on move claims.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::claim::claimant"
    )]
    pub side: Option<crate::side::Side>,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "move")]
    pub intended_move: Option<String>,
}

impl ClaimOp {
    /// The kind claimed; a claim that names none is a repetition claim (9.2).
    pub fn claim_kind(&self) -> crate::claim::ClaimKind {
        self.kind
            .map_or(crate::claim::ClaimKind::ThreefoldRepetition, |k| k.kind())
    }
}

/// An operator or arbiter action, exactly as the dashboard sends it (contract §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    Setup(SetupOp),
    /// Acknowledge an alert by its id.
    Ack(u64),
    Claim(ClaimOp),
    /// The arbiter records a result: "1-0", "0-1", "1/2-1/2" (any other is refused when
    /// the op is read).
    Result(crate::outcome::GameResult),
    /// The arbiter confirms a suspicion alert by its id (a move made with two hands): the
    /// offence is counted and penalised (7.5.4 / 2017 7.7).
    Confirm(u64),
    /// A round's pairings (not rules: the core passes them back as a `pairings` event).
    Pairings(crate::pairing::RoundPairings),
    /// A result the arbiter enters for a table of a round (passed back as `table_result`).
    TableResult(crate::pairing::TableResultOp),
    /// The arbiter names a table's game of a round (passed back as `table_game`).
    TableGame(crate::pairing::TableGameOp),
    /// Who took an arbiter action: the dashboard sends it beside every action it forwards,
    /// so the journal says who acknowledged, confirmed, set up or entered what. It decides
    /// nothing; the core passes it back as an `arbiter_action` event.
    By(ActionBy),
    /// The arbiter says who is on move in the game the board shows (`{"under_way":
    /// {"to_move": "black"}}`): a game found under way whose clock does not say is followed
    /// from the board's placement with that side to move.
    UnderWay(UnderWayOp),
    /// A replacement board: the game being played on board `from` continues on this board
    /// (`{"take_over": {"from": "12"}}`), with its history, its id and its table.
    TakeOver(TakeOverOp),
}

/// `{"take_over": {"from": "<board label>"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TakeOverOp {
    pub from: String,
}

/// `{"under_way": {"to_move": "white" | "black"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnderWayOp {
    pub to_move: crate::side::Side,
}

/// `{"by": {"arbiter": "Ana", "role": "floor", "action": {"ack": 7}}}`: the account that
/// took `action` on the input's board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionBy {
    /// The account's name (`"arbiter"` for the single arbiter token).
    pub arbiter: String,
    /// `chief`, `floor` or `viewer`.
    pub role: String,
    /// The action, exactly as it was forwarded.
    pub action: Box<Operation>,
}
