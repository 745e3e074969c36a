//! The Laws of Chess as data per edition: which article applies, what it prescribes, and the
//! game ends that happen by rule at the move made (no press needed).

use shakmaty::{Chess, EnPassantMode, Position, zobrist::Zobrist64};

use crate::event::{AlertKind, EndReason, Severity};
use crate::reconstruct::Game;

/// The articles and penalties of one edition of the Laws. A new edition is a new table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edition {
    pub name: &'static str,
    pub checkmate: &'static str,
    pub stalemate: &'static str,
    pub dead_position: &'static str,
    /// Fivefold repetition and the 75-move rule; `None` where the edition has no such rule
    /// (before 2014, e.g. fide-2005: only a claim ends the game).
    pub fivefold: Option<&'static str>,
    pub seventy_five: Option<&'static str>,
    pub threefold_claim: &'static str,
    pub fifty_claim: &'static str,
    pub flag_fall: &'static str,
    pub illegal_move: &'static str,
    pub illegal_move_penalty: &'static str,
    pub press_without_move: &'static str,
    pub promotion_incomplete: &'static str,
    pub touch_move: &'static str,
    pub castling_rook_first: &'static str,
    pub two_hands: &'static str,
    /// How many completed illegal moves lose the game (fide-2005: the third).
    pub illegal_moves_to_lose: u32,
    /// Time added to the opponent for an illegal move, standard / rapid-blitz (ms).
    pub penalty_ms_standard: u64,
    pub penalty_ms_rapid_blitz: u64,
}

pub const EDITIONS: &[Edition] = &[
    Edition {
        name: "fide-2023",
        checkmate: "5.1.1",
        stalemate: "5.2.1",
        dead_position: "5.2.2",
        fivefold: Some("9.6.1"),
        seventy_five: Some("9.6.2"),
        threefold_claim: "9.2",
        fifty_claim: "9.3",
        flag_fall: "6.9",
        illegal_move: "7.5.1",
        illegal_move_penalty: "7.5.5",
        press_without_move: "7.5.3",
        promotion_incomplete: "7.5.3",
        touch_move: "4.3",
        castling_rook_first: "4.4.2",
        two_hands: "7.5.4",
        illegal_moves_to_lose: 2,
        penalty_ms_standard: 120_000,
        penalty_ms_rapid_blitz: 60_000,
    },
    Edition {
        name: "fide-2018",
        checkmate: "5.1.1",
        stalemate: "5.2.1",
        dead_position: "5.2.2",
        fivefold: Some("9.6.1"),
        seventy_five: Some("9.6.2"),
        threefold_claim: "9.2",
        fifty_claim: "9.3",
        flag_fall: "6.9",
        illegal_move: "7.5.1",
        illegal_move_penalty: "7.5.5",
        press_without_move: "7.5.3",
        promotion_incomplete: "7.5.3",
        touch_move: "4.3",
        castling_rook_first: "4.4.2",
        two_hands: "7.5.4",
        illegal_moves_to_lose: 2,
        penalty_ms_standard: 120_000,
        penalty_ms_rapid_blitz: 60_000,
    },
    Edition {
        name: "fide-2017",
        checkmate: "5.1.1",
        stalemate: "5.2.1",
        dead_position: "5.2.2",
        fivefold: Some("9.6.1"),
        seventy_five: Some("9.6.2"),
        threefold_claim: "9.2",
        fifty_claim: "9.3",
        flag_fall: "6.9",
        illegal_move: "7.5.1",
        illegal_move_penalty: "7.5.5",
        press_without_move: "7.5.3",
        promotion_incomplete: "7.5.3",
        touch_move: "4.3",
        castling_rook_first: "4.4.2",
        two_hands: "7.5.4",
        illegal_moves_to_lose: 2,
        penalty_ms_standard: 120_000,
        penalty_ms_rapid_blitz: 60_000,
    },
    Edition {
        name: "fide-2005",
        checkmate: "5.1.a",
        stalemate: "5.2.a",
        dead_position: "5.2.b",
        fivefold: None,
        seventy_five: None,
        threefold_claim: "9.2",
        fifty_claim: "9.3",
        flag_fall: "6.9",
        illegal_move: "7.4.a",
        illegal_move_penalty: "7.4.b",
        press_without_move: "6.7",
        promotion_incomplete: "7.4.a",
        touch_move: "4.3",
        castling_rook_first: "4.4.b",
        two_hands: "4.1",
        illegal_moves_to_lose: 3,
        penalty_ms_standard: 120_000,
        penalty_ms_rapid_blitz: 120_000,
    },
];

/// The table of an edition by name; unknown names fall back to the current edition.
pub fn edition(name: &str) -> &'static Edition {
    EDITIONS
        .iter()
        .find(|e| e.name == name)
        .unwrap_or(&EDITIONS[0])
}

/// A game end that happened by rule with the move just made.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEnd {
    pub kind: AlertKind,
    pub reason: EndReason,
    pub result: &'static str,
    pub article: &'static str,
    pub message: String,
}

/// The identity of a position for repetition (9.2): placement, player to move, castling
/// rights, and en passant only when a capture is legal.
pub fn repetition_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// How often the current position has stood on the board in this game (including now).
pub fn occurrences(game: &Game) -> usize {
    let key = repetition_key(game.current());
    game.positions
        .iter()
        .filter(|p| repetition_key(p) == key)
        .count()
}

/// Checks the game ends the Laws apply at the move made: checkmate, stalemate, dead position
/// (insufficient material — the full dead-position analysis is separate), fivefold
/// repetition and the 75-move rule.
pub fn end_by_rule(game: &Game, ed: &Edition) -> Option<RuleEnd> {
    let pos = game.current();
    let mover = !pos.turn();
    if pos.is_checkmate() {
        return Some(RuleEnd {
            kind: AlertKind::Checkmate,
            reason: EndReason::Checkmate,
            result: if mover.is_white() { "1-0" } else { "0-1" },
            article: ed.checkmate,
            message: format!("{} is checkmated: the game is over.", side_name(pos.turn())),
        });
    }
    if pos.is_stalemate() {
        return Some(RuleEnd {
            kind: AlertKind::Stalemate,
            reason: EndReason::Stalemate,
            result: "1/2-1/2",
            article: ed.stalemate,
            message: format!(
                "{} is stalemated: the game is drawn.",
                side_name(pos.turn())
            ),
        });
    }
    if crate::dead::is_dead(pos, game.castling_mode) == crate::dead::MateAbility::CannotMate {
        return Some(RuleEnd {
            kind: AlertKind::DeadPosition,
            reason: EndReason::DeadPosition,
            result: "1/2-1/2",
            article: ed.dead_position,
            message: "Neither player can checkmate by any series of legal moves: the game is drawn (dead position).".into(),
        });
    }
    if let Some(article) = ed.fivefold
        && occurrences(game) >= 5
    {
        return Some(RuleEnd {
            kind: AlertKind::FivefoldRepetition,
            reason: EndReason::FivefoldRepetition,
            result: "1/2-1/2",
            article,
            message: "The same position has appeared for the fifth time: the game is drawn.".into(),
        });
    }
    if let Some(article) = ed.seventy_five
        && pos.halfmoves() >= 150
    {
        return Some(RuleEnd {
            kind: AlertKind::SeventyFiveMoveRule,
            reason: EndReason::SeventyFiveMoveRule,
            result: "1/2-1/2",
            article,
            message: "75 moves by each player without a pawn move or capture: the game is drawn."
                .into(),
        });
    }
    None
}

/// The severity an end by rule has: the arbiter must stop the game.
pub fn end_severity() -> Severity {
    Severity::Intervene
}

pub fn side_name(c: shakmaty::Color) -> &'static str {
    if c.is_white() { "White" } else { "Black" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::uci::UciMove;

    fn game(ucis: &[&str]) -> Game {
        let mut g = Game::new("g".into(), Chess::default(), CastlingMode::Standard);
        for u in ucis {
            let m = u.parse::<UciMove>().unwrap().to_move(g.current()).unwrap();
            g.push(m, 0, (None, None));
        }
        g
    }

    #[test]
    fn fools_mate_is_checkmate() {
        let g = game(&["f2f3", "e7e5", "g2g4", "d8h4"]);
        let end = end_by_rule(&g, edition("fide-2023")).unwrap();
        assert_eq!(end.kind, AlertKind::Checkmate);
        assert_eq!(end.result, "0-1");
    }

    #[test]
    fn fivefold_only_where_the_edition_has_it() {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut moves = Vec::new();
        for _ in 0..4 {
            moves.extend(shuffle);
        }
        let g = game(&moves);
        assert_eq!(occurrences(&g), 5);
        assert_eq!(
            end_by_rule(&g, edition("fide-2018")).unwrap().kind,
            AlertKind::FivefoldRepetition
        );
        assert!(end_by_rule(&g, edition("fide-2005")).is_none());
    }

    #[test]
    fn unknown_edition_falls_back_to_current() {
        assert_eq!(edition("nope").name, "fide-2023");
    }
}
