//! What a `game_found_under_way` alert says, as data: a game found under way followed from
//! where it stands (and how its side to move was learnt), waiting for its side to move, read
//! from the board's own log or rebuilt from it, the arbiter's choice of the side to move
//! refused, and a game moved from one board to another by the arbiter (`take_over`). The
//! English of the alert's `message` and `prescription` is rendered here.

use shakmaty::{Board, Color};

use crate::log_gap::LogGap;
use crate::words::side_name;

/// How the side to move of a game found under way was learnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToMoveFrom {
    /// The running clock, with White's display known.
    Clock,
    /// Only one side to move makes the position legal (the other stands in check).
    Position,
    /// The mover of the first move made from the placement was on move.
    FirstMove,
    /// The arbiter chose it (`under_way` op).
    Arbiter,
}

impl ToMoveFrom {
    fn words(self) -> &'static str {
        match self {
            ToMoveFrom::Clock => "from the running clock",
            ToMoveFrom::Position => "the only side to move the position allows",
            ToMoveFrom::FirstMove => "the mover of the first move seen",
            ToMoveFrom::Arbiter => "as the arbiter chose",
        }
    }
}

/// A `game_found_under_way` alert's case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnderWayVerdict {
    /// The game is followed from the position on the board, `to_move` on move.
    Followed { to_move: Color, how: ToMoveFrom },
    /// A game stands on the board, but whose move it is is not known: followed from the
    /// first move made or the arbiter's choice. `clock_runs`: the clock runs, but which
    /// display is White's is not known.
    ToMoveUnknown { placement: Board, clock_runs: bool },
    /// The board's own log is read for the moves before the placement, up to `wait_ms`.
    ReadingLog { placement: Board, wait_ms: u64 },
    /// The game was rebuilt from the board's own log: `moves` since the start position lead
    /// to the placement shown; `gap` says what the log lost, if anything.
    RebuiltFromLog { moves: usize, gap: Option<LogGap> },
    /// The arbiter's side to move was not applied: a game with moves is followed.
    ToMoveNotChanged,
    /// The placement is no legal position with the side the arbiter chose to move.
    NoLegalPosition { placement: Board, to_move: Color },
    /// The arbiter moved this board's game to board `to`.
    MovedAway { game: String, to: String },
    /// The game of board `from` goes on here, with `plies` so far.
    MovedHere {
        game: String,
        from: String,
        plies: usize,
    },
    /// Board `from` plays no game: nothing was moved here.
    NothingToMove { from: String },
    /// This board follows a game with moves: the game of board `from` was not moved here.
    BoardBusy { from: String },
}

/// What the arbiter checks on a game followed from where it stands: what the game cannot
/// know about its past is assumed.
const CHECK_ASSUMPTIONS: &str = "Check the position with the players' scoresheets. Castling is taken as possible for a king and rook on their home squares, no en-passant capture on the first move; repetitions and the 50/75-move counts begin at this position.";

impl UnderWayVerdict {
    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        match self {
            UnderWayVerdict::Followed { to_move, how } => format!(
                "A game found under way is followed from the position on the board, {} to move ({}); the moves before it were not seen.",
                side_name(*to_move),
                how.words()
            ),
            UnderWayVerdict::ToMoveUnknown {
                placement,
                clock_runs,
            } => format!(
                "A game is under way on this board (placement {placement}), and no game was followed here: the moves before it were not seen. Whose move it is is not known ({}): the game is followed from the first move made, or from the side to move chosen on the board page.",
                if *clock_runs {
                    "the clock runs, but which display is White's is not known"
                } else {
                    "the clock does not run"
                }
            ),
            UnderWayVerdict::ReadingLog { placement, wait_ms } => format!(
                "A game is under way on this board (placement {placement}), and no game was followed here: the board's own log is read for the moves before it (up to {} s); the game is followed from where it stands if the log does not lead there.",
                wait_ms / 1000
            ),
            UnderWayVerdict::RebuiltFromLog { moves, gap } => format!(
                "A game found under way was rebuilt from the board's own log: {moves} move(s) since the start position lead to the placement on the board{}.",
                gap.as_ref().map(|g| format!(" ({g})")).unwrap_or_default()
            ),
            UnderWayVerdict::ToMoveNotChanged => {
                "The side to move was not changed: a game with moves is being followed on this board.".into()
            }
            UnderWayVerdict::NoLegalPosition { placement, to_move } => format!(
                "The board's placement ({placement}) is no legal position with {} to move: no game is followed. Check the board.",
                side_name(*to_move)
            ),
            UnderWayVerdict::MovedAway { game, to } => format!(
                "The game {game} continues on board {to}, as the arbiter moved it there: this board is no longer watched for it."
            ),
            UnderWayVerdict::MovedHere { game, from, plies } => format!(
                "The game {game} of board {from} continues on this board, as the arbiter moved it here ({plies} ply(ies) so far)."
            ),
            UnderWayVerdict::NothingToMove { from } => format!(
                "No game is being played on board {from}: there is nothing to move to this board."
            ),
            UnderWayVerdict::BoardBusy { from } => format!(
                "This board follows a game with moves: the game of board {from} was not moved here."
            ),
        }
    }

    /// The prescription's text, as the alert carries it; none where there is nothing to do.
    pub fn render(&self) -> Option<String> {
        match self {
            UnderWayVerdict::Followed { .. } | UnderWayVerdict::ToMoveUnknown { .. } => {
                Some(CHECK_ASSUMPTIONS.into())
            }
            UnderWayVerdict::RebuiltFromLog { .. } => Some(
                "Check the moves against the players' scoresheets; the clock times are those the board logged at the lever presses."
                    .into(),
            ),
            UnderWayVerdict::MovedHere { .. } => Some(
                "Set the position up on this board as it stood on the replaced board; a placement that differs is raised as usual."
                    .into(),
            ),
            UnderWayVerdict::ReadingLog { .. }
            | UnderWayVerdict::ToMoveNotChanged
            | UnderWayVerdict::NoLegalPosition { .. }
            | UnderWayVerdict::MovedAway { .. }
            | UnderWayVerdict::NothingToMove { .. }
            | UnderWayVerdict::BoardBusy { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement() -> Board {
        "4k3/8/8/8/8/8/8/4K2R".parse().expect("a placement")
    }

    /// The one golden test of the under-way cases' English: each message and prescription.
    #[test]
    fn each_case_renders_its_message_and_prescription() {
        let cases = [
            (
                UnderWayVerdict::Followed {
                    to_move: Color::Black,
                    how: ToMoveFrom::Clock,
                },
                "A game found under way is followed from the position on the board, Black to move (from the running clock); the moves before it were not seen.",
                Some(CHECK_ASSUMPTIONS),
            ),
            (
                UnderWayVerdict::Followed {
                    to_move: Color::White,
                    how: ToMoveFrom::Arbiter,
                },
                "A game found under way is followed from the position on the board, White to move (as the arbiter chose); the moves before it were not seen.",
                Some(CHECK_ASSUMPTIONS),
            ),
            (
                UnderWayVerdict::ToMoveUnknown {
                    placement: placement(),
                    clock_runs: true,
                },
                "A game is under way on this board (placement 4k3/8/8/8/8/8/8/4K2R), and no game was followed here: the moves before it were not seen. Whose move it is is not known (the clock runs, but which display is White's is not known): the game is followed from the first move made, or from the side to move chosen on the board page.",
                Some(CHECK_ASSUMPTIONS),
            ),
            (
                UnderWayVerdict::ReadingLog {
                    placement: placement(),
                    wait_ms: 5_000,
                },
                "A game is under way on this board (placement 4k3/8/8/8/8/8/8/4K2R), and no game was followed here: the board's own log is read for the moves before it (up to 5 s); the game is followed from where it stands if the log does not lead there.",
                None,
            ),
            (
                UnderWayVerdict::RebuiltFromLog {
                    moves: 7,
                    gap: Some(LogGap::PowerLost { recovered: 7 }),
                },
                "A game found under way was rebuilt from the board's own log: 7 move(s) since the start position lead to the placement on the board (the board lost power after 7 recovered move(s); moves made while it was off are not in its memory).",
                Some(
                    "Check the moves against the players' scoresheets; the clock times are those the board logged at the lever presses.",
                ),
            ),
            (
                UnderWayVerdict::ToMoveNotChanged,
                "The side to move was not changed: a game with moves is being followed on this board.",
                None,
            ),
            (
                UnderWayVerdict::NoLegalPosition {
                    placement: placement(),
                    to_move: Color::White,
                },
                "The board's placement (4k3/8/8/8/8/8/8/4K2R) is no legal position with White to move: no game is followed. Check the board.",
                None,
            ),
            (
                UnderWayVerdict::MovedAway {
                    game: "b1/1".into(),
                    to: "b2".into(),
                },
                "The game b1/1 continues on board b2, as the arbiter moved it there: this board is no longer watched for it.",
                None,
            ),
            (
                UnderWayVerdict::MovedHere {
                    game: "b1/1".into(),
                    from: "b1".into(),
                    plies: 12,
                },
                "The game b1/1 of board b1 continues on this board, as the arbiter moved it here (12 ply(ies) so far).",
                Some(
                    "Set the position up on this board as it stood on the replaced board; a placement that differs is raised as usual.",
                ),
            ),
            (
                UnderWayVerdict::NothingToMove { from: "b1".into() },
                "No game is being played on board b1: there is nothing to move to this board.",
                None,
            ),
            (
                UnderWayVerdict::BoardBusy { from: "b1".into() },
                "This board follows a game with moves: the game of board b1 was not moved here.",
                None,
            ),
        ];
        for (verdict, message, prescription) in cases {
            assert_eq!(verdict.message(), message, "{verdict:?}");
            assert_eq!(verdict.render().as_deref(), prescription, "{verdict:?}");
        }
    }
}
