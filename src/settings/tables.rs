//! The table map: which e-boards stand at which board number of the pairing.
//!
//! ```toml
//! [[tables]]
//! board = 12
//! serials = ["13127", "20311"]   # 20311 replaced 13127 in round 3: both are board "12"
//! white = "Carlsen, Magnus"        # this round's players (PGN tags), optional
//! black = "Nepomniachtchi, Ian"
//! ```
//!
//! A board is known to the daemon by its serial number (it asks every board for it, protocol
//! §3.5), so the map ties serial numbers to a label, and the label is what events, alerts,
//! the journal and `[core.boards."…"]` overrides use. The label is the board number written
//! out (`"12"`), unless the entry gives its own (`label = "b-12"`, e.g. when two sections
//! of an event both have a board 12). When a board fails mid-round the arbiter adds the
//! spare's serial number to that table's `serials` and restarts the service: the journal
//! carries the game on, and the spare's moves continue it on the same label.

use serde::Deserialize;

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// The board number in the pairing (1 and up).
    pub board: u32,
    /// The serial numbers (5 digits, as the board reports them) of the e-boards used at this
    /// table; more than one when a board was swapped.
    #[serde(default)]
    pub serials: Vec<String>,
    /// The label, when it should not be the board number.
    #[serde(default)]
    pub label: Option<String>,
    /// This round's players, for the PGN and broadcast tags ("Lastname, Firstname").
    #[serde(default)]
    pub white: Option<String>,
    #[serde(default)]
    pub black: Option<String>,
    /// Their FIDE ids, when known.
    #[serde(default)]
    pub white_fide_id: Option<u64>,
    #[serde(default)]
    pub black_fide_id: Option<u64>,
}

impl Table {
    /// The label events use for this table: [`Table::label`] field, else the board number.
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| self.board.to_string())
    }
}

/// A DGT serial number as the board reports it: five ASCII digits (protocol §3.5, `0x91`).
pub fn is_serial_number(text: &str) -> bool {
    text.len() == 5 && text.bytes().all(|b| b.is_ascii_digit())
}

/// A label is used in URLs (`/api/boards/{board}`), file names (broadcast folders) and
/// capture files, so it keeps to letters, digits, `-`, `_` and `.`.
pub fn is_plain_label(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && text != "."
        && text != ".."
}
