//! Pairings in and results out, in the formats a venue already uses (an arbiter keeps the
//! pairing program they know):
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

pub use book::{Contest, Entry, ResultSource, RoundBook, TableMap, TableOutcome, TableState};
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

/// The encoding of a pairing file that is not UTF-8: Windows-1252, which Windows pairing
/// programs and Excel (western European locales) write — a superset of the printable
/// Latin-1, so a Latin-1 file reads the same.
pub const WINDOWS_1252: &str = "windows-1252";

/// A pairing file's bytes as text: UTF-8 (a byte-order mark dropped), else Windows-1252;
/// with the encoding's name when it is not UTF-8.
pub fn decode(bytes: &[u8]) -> (String, Option<&'static str>) {
    match std::str::from_utf8(bytes) {
        Ok(t) => (t.strip_prefix('\u{feff}').unwrap_or(t).to_string(), None),
        Err(_) => {
            let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes);
            (text.into_owned(), Some(WINDOWS_1252))
        }
    }
}

/// A pairing file's bytes as text (see [`decode`]).
pub fn decode_text(bytes: &[u8]) -> String {
    decode(bytes).0
}

/// Round `round`'s pairings from a file's bytes, its encoding kept for the results.
pub fn read_bytes(bytes: &[u8], round: u32, order: BoardOrder) -> Result<RoundPairings, Problems> {
    let (text, encoding) = decode(bytes);
    let mut pairings = read(&text, round, order)?;
    pairings.encoding = encoding.map(str::to_string);
    Ok(pairings)
}

/// Text to send back to the pairing program, in the encoding its file came in. The names
/// in it come from that file, so every character has a byte there.
pub fn encode(text: &str, encoding: Option<&str>) -> Vec<u8> {
    match encoding {
        Some(WINDOWS_1252) => encoding_rs::WINDOWS_1252.encode(text).0.into_owned(),
        _ => text.as_bytes().to_vec(),
    }
}

/// The `charset` of a text in `encoding`, for a Content-Type.
pub fn charset(encoding: Option<&str>) -> &'static str {
    match encoding {
        Some(WINDOWS_1252) => "windows-1252",
        _ => "utf-8",
    }
}
