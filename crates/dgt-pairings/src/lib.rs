//! Pairings in and results out, in the formats a venue already uses (issue 17):
//!
//! * [`trf`] — the FIDE Tournament Report File: one round's pairings read from it, the round's
//!   result codes written back into it;
//! * [`list`] — CSV/TSV pairing lists with English or Dutch headers;
//! * [`book`] — which game belongs to which round and table, rebuilt from events (the
//!   server's view, `export`, the broadcast folders all use it);
//! * [`results`] — the round's results as CSV and TRF, with the unfinished tables;
//! * [`problems`] — every problem of a file with its line and a fix;
//! * [`text`] — a file's text is data: characters that are not text and sizes refused.
//!
//! The data types themselves ([`dgt_core::pairing`]) live in the core because pairings travel
//! as operator actions and events; nothing in the core decides with them.

pub mod book;
pub mod list;
pub mod problems;
pub mod results;
pub mod text;
pub mod trf;

pub use book::{RoundBook, TableMap, TableOutcome, TableState};
pub use problems::{Problem, Problems};
pub use trf::{BoardOrder, UnknownBoardOrder};

use dgt_core::pairing::RoundPairings;

/// Round `round`'s pairings from a file's text: a FIDE TRF when it has TRF player lines,
/// else a CSV/TSV pairing list. Every problem at once; nothing when any is found. The text
/// is checked first ([`text`]): characters that are not text and sizes beyond the bounds are
/// refused with their lines.
pub fn read(text: &str, round: u32, order: BoardOrder) -> Result<RoundPairings, Problems> {
    text::check_file(text).or(())?;
    let pairings = if trf::looks_like_trf(text) {
        trf::read(text, round, order)
    } else {
        list::read(text, round)
    }?;
    text::check_pairings(&pairings).or(pairings)
}

/// A pairing file's bytes as text: UTF-8 (a byte-order mark dropped), else Latin-1, which
/// older pairing programs write their TRF in (every byte is a character there).
pub fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(t) => t.strip_prefix('\u{feff}').unwrap_or(t).to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}
