//! What a board sent, read back from the journal for the dashboard's instant replay: the
//! field updates (protocol §3.3, `0x8E`) of one board in a time window, found through
//! `Journal::board_inputs` (sealed blocks by time range, then the newest rows) on a
//! read-only connection of its own.

use std::path::PathBuf;

use dgt_core::{InputKind, Link};
use dgt_protocol::{BoardMessage, Decoded, Decoder, DgtPiece, LineMode};
use dgt_server::{BoardLog, FieldUpdate};

/// The journal file the daemon writes; opened read-only per replay.
pub struct JournalBoardLog {
    pub path: PathBuf,
}

impl BoardLog for JournalBoardLog {
    fn field_updates(
        &self,
        board: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<FieldUpdate>, dgt_server::SourceError> {
        let journal = dgt_journal::Journal::open_read_only(&self.path)?;
        let inputs = journal.board_inputs(board, from_ms, to_ms)?;
        Ok(field_updates(&inputs))
    }
}

/// The field updates in a board's inputs, in order. A window may open in the middle of a
/// message: the decoder skips what it cannot frame and finds the next message. Boards on a
/// bus line report changes in bus frames, which are not read here.
pub fn field_updates(inputs: &[dgt_core::Input]) -> Vec<FieldUpdate> {
    let mut decoder = Decoder::new(LineMode::Single);
    let mut out = Vec::new();
    for input in inputs {
        match &input.kind {
            InputKind::Link(Link::Connected { .. }) => decoder = Decoder::new(LineMode::Single),
            InputKind::Link(Link::BusConnected { .. }) => decoder = Decoder::new(LineMode::Bus),
            InputKind::Rx(bytes) => {
                for decoded in decoder.decode(bytes) {
                    if let Decoded::Message(BoardMessage::FieldUpdate { square, piece }) = decoded
                        && square < 64
                    {
                        out.push(FieldUpdate {
                            t_ms: input.t_ms,
                            index: square,
                            piece: DgtPiece::from_code(piece).fen_char(),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_core::Input;

    #[test]
    fn field_updates_are_read_from_board_bytes_in_any_chunking() {
        // 0x8E, length 0x00 0x05, square 12 (e7 in normal orientation), piece code 0x07
        // (black pawn), then square 28 with the same pawn: the pawn went e7-e5.
        let bytes = [0x8E, 0x00, 0x05, 12, 0x00, 0x8E, 0x00, 0x05, 28, 0x07];
        let inputs = vec![
            Input {
                t_ms: 10,
                board: "b".into(),
                kind: InputKind::Rx(bytes[..7].to_vec()),
            },
            Input {
                t_ms: 20,
                board: "b".into(),
                kind: InputKind::Rx(bytes[7..].to_vec()),
            },
        ];
        let got = field_updates(&inputs);
        assert_eq!(
            got,
            [
                FieldUpdate {
                    t_ms: 10,
                    index: 12,
                    piece: None
                },
                FieldUpdate {
                    t_ms: 20,
                    index: 28,
                    piece: Some('p')
                },
            ]
        );
    }
}
