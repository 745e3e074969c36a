//! What the game record's alerts prescribe, as data: a game ended by rule (5.1.1, 5.2.1,
//! 9.6), play going on past that end, a result entered against the Laws or the board
//! (5.2.3, L17 fn 138), a place in the record restored (7.1), and a board the core could no
//! longer follow. The English an alert's `message` and `prescription` carry is rendered
//! here.

use shakmaty::{Color, Piece, Square};

use crate::article::Article;
use crate::outcome::{EndReason, GameResult};
use crate::reconstruct::role_name;
use crate::words::{seconds, side_name};

/// A flag down on the clock but never called when the game ended by rule: it does not count
/// (`article`: 6.8; L17 T18).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagNotCalled {
    pub flagged: Color,
    /// How long before the end it was down.
    pub earlier_ms: u64,
    pub article: Article,
}

/// A game record alert's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordVerdict {
    /// The game ended by rule at the move (checkmate, stalemate, a dead position, the
    /// fivefold repetition, the 75-move rule): stop the clock; `result` stands.
    EndedByRule {
        result: GameResult,
        uncalled_flag: Option<FlagNotCalled>,
    },
    /// The game had ended by rule (`reason`, `result`) at ply `ply`, yet play went on with
    /// `san`: the result stands (L05 T15).
    PlayAfterEnd {
        result: GameResult,
        reason: EndReason,
        ply: usize,
        san: String,
    },
    /// The result `entered` differs from the game's end by rule (`reason`, `ended`) at ply
    /// `ply`: the end stands (events after the end never change the result).
    AgainstEndByRule {
        entered: GameResult,
        ended: GameResult,
        reason: EndReason,
        ply: usize,
    },
    /// A draw entered after `plies` ply(ies), before both players had moved (`article`:
    /// 5.2.3, 2017+).
    DrawBeforeBothMoved { plies: usize, article: Article },
    /// Only pieces are missing from the position after ply `ply` (knocked off): moves are
    /// followed as if they stood there; if displaced, the position is reinstated (7.1;
    /// L17 T43).
    PiecesMissing {
        missing: Vec<(Square, Piece)>,
        ply: usize,
    },
    /// The board went back to the position after ply `ply`; where clock times were logged
    /// there, they go back too (`article`: 7.1; 2005 6.14).
    Restored { ply: usize, article: Article },
    /// The core could no longer follow board `board` (`why`): the game `recorded` (its id and
    /// plies), if any, is kept as it is and the board is read afresh.
    TrackingFailed {
        board: String,
        why: String,
        recorded: Option<(String, usize)>,
    },
}

impl RecordVerdict {
    /// The result the Laws (or the board) decide, where one is decided.
    pub fn result(&self) -> Option<GameResult> {
        match self {
            RecordVerdict::EndedByRule { result, .. }
            | RecordVerdict::PlayAfterEnd { result, .. } => Some(*result),
            RecordVerdict::AgainstEndByRule { ended, .. } => Some(*ended),
            _ => None,
        }
    }

    /// What the message adds to the end's own words: the uncalled flag that does not count.
    pub fn message_note(&self) -> Option<String> {
        let RecordVerdict::EndedByRule {
            uncalled_flag: Some(f),
            ..
        } = self
        else {
            return None;
        };
        Some(format!(
            " {}'s flag was down on the clock {} earlier but had not been called: it does not count ({}).",
            side_name(f.flagged),
            seconds(f.earlier_ms),
            f.article
        ))
    }

    /// What happened, for the alert's message, where the verdict words it (an end by rule
    /// is worded by the rule that ended it, a lost track by the engine).
    pub fn message(&self) -> Option<String> {
        Some(match self {
            RecordVerdict::PlayAfterEnd {
                result,
                reason,
                ply,
                san,
            } => format!(
                "The game ended at ply {ply} by {} ({result}), but play went on with {san}.",
                reason.words()
            ),
            RecordVerdict::AgainstEndByRule {
                entered,
                ended,
                reason,
                ply,
            } => format!(
                "The result entered ({entered}) conflicts with the game's end by {} at ply {ply} ({ended}).",
                reason.words()
            ),
            RecordVerdict::DrawBeforeBothMoved { plies, article } => format!(
                "A draw was entered after {plies} ply(ies): a draw may be agreed only once both players have made at least one move ({article})."
            ),
            RecordVerdict::TrackingFailed {
                board,
                why,
                recorded,
            } => {
                let recorded = match recorded {
                    Some((id, plies)) => format!("game {id} is recorded up to ply {plies}"),
                    None => "no game was being recorded".into(),
                };
                format!(
                    "Board {board} could no longer be followed ({why}): {recorded}; the board is read afresh from what it shows now. The other boards are not affected."
                )
            }
            _ => return None,
        })
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        match self {
            RecordVerdict::EndedByRule { result, .. } => {
                format!("Stop the clock; the result is {result}.")
            }
            RecordVerdict::PlayAfterEnd { result, .. } => format!(
                "The result {result} stands: stop the clock and tell the players the game is over."
            ),
            RecordVerdict::AgainstEndByRule { ended, .. } => format!(
                "The game ended with {ended}; check the board and the scoresheets before changing it."
            ),
            RecordVerdict::DrawBeforeBothMoved { article, .. } => format!(
                "Recorded as entered. A draw agreed before both players have made a move is not valid ({article}): unless this is a decision of the arbiter's own, the game goes on and the result must be corrected."
            ),
            RecordVerdict::Restored { ply, article } => format!(
                "If the position is reinstated, set the clocks to the times logged at ply {ply} ({article})."
            ),
            RecordVerdict::PiecesMissing { missing, ply } => {
                let names: Vec<String> = missing
                    .iter()
                    .map(|(sq, p)| {
                        format!("{} {} on {sq}", side_name(p.color), role_name(p.role))
                    })
                    .collect();
                format!(
                    "Missing from the board: {}. Moves are followed as if it stood there. If it was displaced, reinstate the position of ply {ply} with the clock times logged there (7.1) and put it back.",
                    names.join(", ")
                )
            }
            RecordVerdict::TrackingFailed { .. } => "Check the position on the board against the game; enter any moves or the result by hand if the record must be completed.".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    /// The one golden test of the record verdicts' prescriptions.
    #[test]
    fn each_record_verdict_renders_its_prescription() {
        let a = Article::new;
        let cases = [
            (
                RecordVerdict::EndedByRule {
                    result: GameResult::WhiteWins,
                    uncalled_flag: None,
                },
                "Stop the clock; the result is 1-0.",
            ),
            (
                RecordVerdict::PlayAfterEnd {
                    result: GameResult::Drawn,
                    reason: EndReason::FivefoldRepetition,
                    ply: 16,
                    san: "e4".into(),
                },
                "The result 1/2-1/2 stands: stop the clock and tell the players the game is over.",
            ),
            (
                RecordVerdict::AgainstEndByRule {
                    entered: GameResult::WhiteWins,
                    ended: GameResult::BlackWins,
                    reason: EndReason::Checkmate,
                    ply: 8,
                },
                "The game ended with 0-1; check the board and the scoresheets before changing it.",
            ),
            (
                RecordVerdict::DrawBeforeBothMoved {
                    plies: 1,
                    article: a("5.2.3"),
                },
                "Recorded as entered. A draw agreed before both players have made a move is not valid (5.2.3): unless this is a decision of the arbiter's own, the game goes on and the result must be corrected.",
            ),
            (
                RecordVerdict::Restored {
                    ply: 4,
                    article: a("7.1"),
                },
                "If the position is reinstated, set the clocks to the times logged at ply 4 (7.1).",
            ),
            (
                RecordVerdict::PiecesMissing {
                    missing: vec![(
                        Square::F8,
                        Piece {
                            color: Color::Black,
                            role: Role::Bishop,
                        },
                    )],
                    ply: 4,
                },
                "Missing from the board: Black bishop on f8. Moves are followed as if it stood there. If it was displaced, reinstate the position of ply 4 with the clock times logged there (7.1) and put it back.",
            ),
            (
                RecordVerdict::TrackingFailed {
                    board: "b1".into(),
                    why: "a fault".into(),
                    recorded: None,
                },
                "Check the position on the board against the game; enter any moves or the result by hand if the record must be completed.",
            ),
        ];
        for (verdict, text) in cases {
            assert_eq!(verdict.render(), text, "{verdict:?}");
        }
    }

    /// The one golden test of the messages the record verdicts word.
    #[test]
    fn each_record_verdict_words_its_message() {
        let ended = RecordVerdict::EndedByRule {
            result: GameResult::BlackWins,
            uncalled_flag: Some(FlagNotCalled {
                flagged: Color::White,
                earlier_ms: 3_250,
                article: Article::new("6.8"),
            }),
        };
        assert_eq!(
            (ended.result(), ended.message()),
            (Some(GameResult::BlackWins), None)
        );
        assert_eq!(
            ended.message_note().as_deref(),
            Some(
                " White's flag was down on the clock 3.2 s earlier but had not been called: it does not count (6.8)."
            )
        );
        let cases = [
            (
                RecordVerdict::PlayAfterEnd {
                    result: GameResult::Drawn,
                    reason: EndReason::FivefoldRepetition,
                    ply: 16,
                    san: "e4".into(),
                },
                "The game ended at ply 16 by fivefold repetition (1/2-1/2), but play went on with e4.",
            ),
            (
                RecordVerdict::AgainstEndByRule {
                    entered: GameResult::WhiteWins,
                    ended: GameResult::Drawn,
                    reason: EndReason::FivefoldRepetition,
                    ply: 16,
                },
                "The result entered (1-0) conflicts with the game's end by fivefold repetition at ply 16 (1/2-1/2).",
            ),
            (
                RecordVerdict::DrawBeforeBothMoved {
                    plies: 1,
                    article: Article::new("5.2.3"),
                },
                "A draw was entered after 1 ply(ies): a draw may be agreed only once both players have made at least one move (5.2.3).",
            ),
            (
                RecordVerdict::TrackingFailed {
                    board: "b1".into(),
                    why: "a fault".into(),
                    recorded: Some(("g1".into(), 12)),
                },
                "Board b1 could no longer be followed (a fault): game g1 is recorded up to ply 12; the board is read afresh from what it shows now. The other boards are not affected.",
            ),
            (
                RecordVerdict::TrackingFailed {
                    board: "b1".into(),
                    why: "a fault".into(),
                    recorded: None,
                },
                "Board b1 could no longer be followed (a fault): no game was being recorded; the board is read afresh from what it shows now. The other boards are not affected.",
            ),
        ];
        for (verdict, text) in cases {
            assert_eq!(verdict.message().as_deref(), Some(text), "{verdict:?}");
        }
    }
}
