//! What the handling of the pieces prescribes, as data: a pattern of captures that look
//! made with two hands (4.1 / 7.5.4), a piece of the opponent's lifted and put back (4.3.2 /
//! 4.2.1), a king put on a castling square where castling is illegal (4.4.3 / 4.7.2; 2005
//! 4.4c / 4.6b). These are hints: the board cannot see hands. The English an alert's
//! `prescription` carries is rendered here.

use shakmaty::{Color, Role, Square};

use crate::article::Article;
use crate::capture_hands::{self as ch, CaptureSignature};
use crate::reconstruct::role_name;
use crate::words::side_name;

/// A handling alert's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandsVerdict {
    /// One capture of `player`'s showed the two-hands signature (4.1), `count` so far in
    /// the game: nothing to do yet.
    CaptureSeen {
        player: Color,
        signature: CaptureSignature,
        count: usize,
    },
    /// `player`'s captures showed the two-hands signature again and again (`seen`, the
    /// evidence): a pattern to watch; a move seen made with two hands is an offence
    /// (`offence`: 7.5.4; 2017 7.7).
    CapturePattern {
        player: Color,
        seen: Vec<CaptureSignature>,
        offence: Article,
    },
    /// A piece of the opponent's (`role`, when known) on `square` was lifted for `off_ms`
    /// and put back while `mover` was on move: who touched it is for the players' account
    /// on a claim (4.3.2 for the mover, 4.2.1 for the other).
    OpponentPieceLifted {
        mover: Color,
        role: Option<Role>,
        square: Square,
        off_ms: u64,
    },
    /// The king stands on a castling square where castling is illegal: if touched to
    /// castle, another king move must be made (`article`), one of `king_moves` (SAN);
    /// none, then any legal move (4.5).
    KingToIllegalCastling {
        article: Article,
        king_moves: Vec<String>,
    },
    /// `mover` lifted his piece on `square` for `off_ms`, put it back and moved another: a
    /// touch-move offence (4.3) unless the adjustment was announced (4.2.1), which the board
    /// cannot hear.
    PieceTouchedAnotherMoved {
        mover: Color,
        square: Square,
        off_ms: u64,
    },
    /// `mover`'s illegal move was made with the piece on `square`, taken back, then another
    /// piece moved: the replacement move is made with that piece if it can move (7.5.1 →
    /// 4.3), and no announced adjustment excuses it.
    IllegalMovePieceNotReplaced { mover: Color, square: Square },
    /// `mover` began castling by lifting the rook on `rook` (4.4.2).
    CastlingRookFirst { mover: Color, rook: Square },
    /// `mover` put a `first` on the promotion square `square` and replaced it by a `last`:
    /// the choice was final when the first touched the square (4.4.4; 2005 4.4d).
    PromotionChoiceChanged {
        mover: Color,
        square: Square,
        first: Role,
        last: Role,
    },
    /// The pieces on `first` and `second` left the board `gap_ms` apart and were off it
    /// together: possibly a move made with two hands (4.1).
    TwoPiecesOffTogether {
        first: Square,
        second: Square,
        gap_ms: u64,
    },
}

impl HandsVerdict {
    /// The evidence, for the alert's message, where the verdict words it (the captures'
    /// signatures; `capture_hands` words them).
    pub fn message(&self) -> Option<String> {
        match self {
            HandsVerdict::CaptureSeen {
                player,
                signature,
                count,
            } => Some(ch::single_message(side_name(*player), signature, *count)),
            HandsVerdict::CapturePattern { player, seen, .. } => {
                Some(ch::pattern_message(side_name(*player), seen))
            }
            HandsVerdict::OpponentPieceLifted {
                mover,
                role,
                square,
                off_ms,
            } => {
                let (name, owner) = (side_name(*mover), side_name(!*mover));
                Some(format!(
                    "The {} {} on {square} was lifted for {:.1} s and put back while {name} was on move: either {name} touched it (then he must capture it if he can) or {owner} handled a piece while not on move.",
                    owner.to_lowercase(),
                    role.map_or("piece", role_name),
                    *off_ms as f64 / 1000.0,
                ))
            }
            HandsVerdict::PieceTouchedAnotherMoved {
                mover,
                square,
                off_ms,
            } => Some(format!(
                "{} lifted the piece on {square} for {:.1} s and put it back, then moved another piece: a touch-move offence unless the adjustment was announced, which the board cannot hear.",
                side_name(*mover),
                *off_ms as f64 / 1000.0
            )),
            HandsVerdict::IllegalMovePieceNotReplaced { mover, square } => Some(format!(
                "{} made an illegal move with the piece on {square}, put it back, then moved another piece: the replacement move must be made with that piece if it can move legally.",
                side_name(*mover),
            )),
            HandsVerdict::CastlingRookFirst { mover, rook } => Some(format!(
                "{} began castling by lifting the rook on {rook}: castling with the rook first is not allowed.",
                side_name(*mover)
            )),
            HandsVerdict::PromotionChoiceChanged {
                mover,
                square,
                first,
                last,
            } => Some(format!(
                "{} put a {} on {square} and replaced it by a {}: the choice of the new piece was final when the first touched the square.",
                side_name(*mover),
                role_name(*first),
                role_name(*last)
            )),
            HandsVerdict::TwoPiecesOffTogether {
                first,
                second,
                gap_ms,
            } => Some(format!(
                "The pieces on {first} and {second} left the board {gap_ms} ms apart and were off it together: possibly a move made with two hands."
            )),
            HandsVerdict::KingToIllegalCastling { .. } => None,
        }
    }

    /// The prescription's text, as the alert carries it; none for a single capture or a
    /// touch, a castling or a promotion choice the alert only reports.
    pub fn render(&self) -> Option<String> {
        Some(match self {
            HandsVerdict::CaptureSeen { .. }
            | HandsVerdict::PieceTouchedAnotherMoved { .. }
            | HandsVerdict::IllegalMovePieceNotReplaced { .. }
            | HandsVerdict::CastlingRookFirst { .. }
            | HandsVerdict::PromotionChoiceChanged { .. }
            | HandsVerdict::TwoPiecesOffTogether { .. } => return None,
            HandsVerdict::CapturePattern { player, offence, .. } => format!(
                "A pattern, not a proof: a hand holding the capturer while it takes the piece off shows the same. Watch {}'s next captures; a move seen made with two hands is an offence ({offence}), confirm it then.",
                side_name(*player)
            ),
            HandsVerdict::OpponentPieceLifted { .. } => "A hint only: the board cannot tell whose hand it was. On a claim, ask the players (4.3.2 for the mover, 4.2.1 for the other).".into(),
            HandsVerdict::KingToIllegalCastling {
                king_moves,
                ..
            } if king_moves.is_empty() => {
                "The king has no legal move: any legal move may be made (4.5).".into()
            }
            HandsVerdict::KingToIllegalCastling {
                article,
                king_moves,
            } => format!(
                "If the king was touched to castle, another king move must be made ({article}): {}.",
                king_moves.join(", ")
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the handling verdicts' English.
    #[test]
    fn each_handling_verdict_renders_its_prescription() {
        let castling = |king_moves: &[&str]| HandsVerdict::KingToIllegalCastling {
            article: Article::new("4.4.3 / 4.7.2"),
            king_moves: king_moves.iter().map(|m| m.to_string()).collect(),
        };
        let lifted = HandsVerdict::OpponentPieceLifted {
            mover: Color::White,
            role: Some(Role::Bishop),
            square: Square::C8,
            off_ms: 900,
        };
        assert_eq!(
            lifted.message().as_deref(),
            Some(
                "The black bishop on c8 was lifted for 0.9 s and put back while White was on move: either White touched it (then he must capture it if he can) or Black handled a piece while not on move."
            )
        );
        let cases = [
            (
                HandsVerdict::CapturePattern {
                    player: Color::Black,
                    seen: Vec::new(),
                    offence: Article::new("7.5.4"),
                },
                "A pattern, not a proof: a hand holding the capturer while it takes the piece off shows the same. Watch Black's next captures; a move seen made with two hands is an offence (7.5.4), confirm it then.",
            ),
            (
                lifted.clone(),
                "A hint only: the board cannot tell whose hand it was. On a claim, ask the players (4.3.2 for the mover, 4.2.1 for the other).",
            ),
            (
                castling(&["Kd1", "Kf1"]),
                "If the king was touched to castle, another king move must be made (4.4.3 / 4.7.2): Kd1, Kf1.",
            ),
            (
                castling(&[]),
                "The king has no legal move: any legal move may be made (4.5).",
            ),
        ];
        for (verdict, text) in cases {
            assert_eq!(verdict.render().as_deref(), Some(text), "{verdict:?}");
        }
    }

    /// The one golden test of the messages the handling signals' verdicts word.
    #[test]
    fn each_handling_signal_words_its_message() {
        let (white, black) = (Color::White, Color::Black);
        let cases = [
            (
                HandsVerdict::PieceTouchedAnotherMoved {
                    mover: white,
                    square: Square::G1,
                    off_ms: 900,
                },
                "White lifted the piece on g1 for 0.9 s and put it back, then moved another piece: a touch-move offence unless the adjustment was announced, which the board cannot hear.",
            ),
            (
                HandsVerdict::IllegalMovePieceNotReplaced {
                    mover: black,
                    square: Square::B8,
                },
                "Black made an illegal move with the piece on b8, put it back, then moved another piece: the replacement move must be made with that piece if it can move legally.",
            ),
            (
                HandsVerdict::CastlingRookFirst {
                    mover: white,
                    rook: Square::H1,
                },
                "White began castling by lifting the rook on h1: castling with the rook first is not allowed.",
            ),
            (
                HandsVerdict::PromotionChoiceChanged {
                    mover: white,
                    square: Square::E8,
                    first: Role::Queen,
                    last: Role::Knight,
                },
                "White put a queen on e8 and replaced it by a knight: the choice of the new piece was final when the first touched the square.",
            ),
            (
                HandsVerdict::TwoPiecesOffTogether {
                    first: Square::E4,
                    second: Square::D5,
                    gap_ms: 120,
                },
                "The pieces on e4 and d5 left the board 120 ms apart and were off it together: possibly a move made with two hands.",
            ),
        ];
        for (verdict, text) in cases {
            assert_eq!(verdict.message().as_deref(), Some(text), "{verdict:?}");
            assert_eq!(verdict.render(), None, "{verdict:?}");
        }
    }
}
