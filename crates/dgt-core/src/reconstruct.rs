//! From settled placements to legal moves (shakmaty), never inventing one.
//!
//! The robust method (peers report, design notes): match what the board shows against the
//! positions reachable by legal moves from the last known position, instead of following
//! lifts and placements one by one. Slides, captures in either order, castling king or rook
//! first, en passant and flicker then need no special case: their intermediate placements are
//! simply not reachable, or not settled. A promotion is to the piece actually placed (an
//! upside-down rook reads as a rook — FIDE 3.7.5 note in the digest).

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role, Square,
    zobrist::Zobrist64,
};

use crate::board::Placement;
use crate::outcome::EndReason;
use crate::outcome::GameResult;
use crate::snapshot_as::*;

mod illegal;
mod in_hand;
mod search;
mod setup;

pub use illegal::{IllegalStep, illegal_step, position_after_illegal, step_explains};
pub use in_hand::{
    capture_in_hand, castling_in_hand, one_move_with_pieces_off, one_move_with_reply_in_hand,
    only_opponent_changed, piece_in_hand, slide_prefix,
};
pub use search::{find_path, find_path_with, legal_moves, one_move_to, paths_of_length};
pub use setup::{
    FenError, Not960, WrongSetup, edited, position_from_fen, role_name, start_position, wrong_setup,
};

/// One move as played, with the clock readings when it was completed.
#[serde_with::serde_as]
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlayedMove {
    #[serde_as(as = "MoveAs")]
    pub mv: Move,
    pub uci: String,
    pub san: String,
    pub t_ms: u64,
    pub white_ms: Option<u64>,
    pub black_ms: Option<u64>,
}

/// The identity of a position for repetition (9.2): placement, player to move, castling
/// rights, and en passant only when a capture is legal.
pub fn repetition_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// A game on one board.
#[serde_with::serde_as]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Game {
    pub id: String,
    pub start_fen: String,
    #[serde_as(as = "CastlingModeAs")]
    pub castling_mode: CastlingMode,
    /// positions[k] is the position after k plies; positions[0] the start. Changed only
    /// through `Game`'s methods, which keep `keys` in step.
    #[serde_as(as = "Vec<ChessAs>")]
    pub positions: Vec<Chess>,
    /// keys[k] is the repetition key (9.2) of positions[k]: the arbiter compares the current
    /// position with every earlier one at each move, and hashing them anew each time was
    /// the most of that.
    keys: Vec<u64>,
    pub moves: Vec<PlayedMove>,
    /// How many moves are final: completed by a press, or followed by the opponent's move.
    /// Only a later, unconfirmed move may be corrected.
    pub confirmed: usize,
    pub result: Option<(GameResult, EndReason)>,
    /// Pieces may be put on the board from the hand (bughouse drops, `Move::Put`): placements
    /// with a piece more are read as drops, whatever the regulation says of them.
    pub drops: bool,
}

impl Game {
    pub fn new(id: String, start: Chess, castling_mode: CastlingMode) -> Self {
        let start_fen = fen(&start);
        Game {
            id,
            start_fen,
            castling_mode,
            keys: vec![repetition_key(&start)],
            positions: vec![start],
            moves: Vec::new(),
            confirmed: 0,
            result: None,
            drops: false,
        }
    }

    pub fn current(&self) -> &Chess {
        self.positions
            .last()
            .expect("a game always has its start position")
    }

    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// The repetition key (9.2) of each position, `positions`' order.
    pub fn repetition_keys(&self) -> &[u64] {
        debug_assert_eq!(self.keys.len(), self.positions.len());
        &self.keys
    }

    /// Replaces the current position by `pos` (a bughouse piece taken off the board for a
    /// promotion on the partner board, 3.1 of the regulations: no move).
    pub fn replace_current(&mut self, pos: Chess) {
        let k = self.positions.len() - 1;
        self.keys[k] = repetition_key(&pos);
        self.positions[k] = pos;
    }

    /// Adds the position after a ply.
    fn push_position(&mut self, pos: Chess) {
        self.keys.push(repetition_key(&pos));
        self.positions.push(pos);
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// Whether [`Game::push`] can play `mv` from the current position: a legal move, or a
    /// drop (judged by the bughouse regulation, not here) onto an empty square. A move read
    /// from a position since changed by hand (a piece taken for the partner board's
    /// promotion) may no longer be.
    pub fn can_push(&self, mv: Move) -> bool {
        let pos = self.current();
        match mv {
            Move::Put { to, .. } => pos.board().piece_at(to).is_none(),
            _ => pos.is_legal(mv),
        }
    }

    /// The position [`Game::push`] would reach with `mv`; the current one when it cannot be
    /// played (see [`Game::can_push`]).
    pub fn position_after(&self, mv: Move) -> Chess {
        let mut next = self.current().clone();
        if self.can_push(mv) {
            next.play_unchecked(mv);
        }
        next
    }

    /// Plays `mv` from the current position (see [`Game::can_push`]; a move it refuses is
    /// not recorded) and returns the ply count after it.
    pub fn push(&mut self, mv: Move, t_ms: u64, clocks: (Option<u64>, Option<u64>)) -> u32 {
        if !self.can_push(mv) {
            return self.plies() as u32;
        }
        let pos = self.current().clone();
        let uci = mv.to_uci(self.castling_mode).to_string();
        let mut san = SanPlus::from_move(pos.clone(), mv).to_string();
        if san.starts_with('@') {
            // shakmaty writes a pawn drop "@d2"; arbiters (and UCI) write "P@d2".
            san.insert(0, 'P');
        }
        // A drop is judged by the bughouse regulation, not by shakmaty's standard chess.
        let mut next = pos;
        next.play_unchecked(mv);
        self.push_position(next);
        self.moves.push(PlayedMove {
            mv,
            uci,
            san,
            t_ms,
            white_ms: clocks.0,
            black_ms: clocks.1,
        });
        self.moves.len() as u32
    }

    /// Takes back plies so that `plies` remain (a correction or a restored position).
    pub fn truncate(&mut self, plies: usize) {
        self.moves.truncate(plies);
        self.positions.truncate(plies + 1);
        self.keys.truncate(plies + 1);
        self.confirmed = self.confirmed.min(plies);
    }

    /// Records a formally illegal move that stood (nobody restored the position): the game
    /// goes on from `after`, the position it left with the opponent to move.
    pub fn push_illegal(
        &mut self,
        step: IllegalStep,
        after: Chess,
        t_ms: u64,
        clocks: (Option<u64>, Option<u64>),
    ) -> u32 {
        self.push_position(after);
        self.moves.push(PlayedMove {
            mv: step.mv,
            uci: step.uci,
            san: step.san,
            t_ms,
            white_ms: clocks.0,
            black_ms: clocks.1,
        });
        self.confirmed = self.moves.len();
        self.moves.len() as u32
    }

    pub fn confirm_all(&mut self) {
        self.confirmed = self.moves.len();
    }
}

pub fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// How the current placement relates to the game.
#[derive(Debug, Clone, PartialEq)]
pub enum Interpretation {
    /// The board shows the current position.
    Same,
    /// The board shows the position after these legal moves (one, or a reply too).
    Ahead(Vec<Move>),
    /// The board shows another legal move than the last, unconfirmed one: a slide whose
    /// intermediate square looked settled. Replaces that move.
    Sibling(Move),
    /// The board shows an earlier position of this game (a restored position, a takeback).
    Earlier(usize),
    /// Nothing legal explains the board (a move in progress, or an irregularity).
    Unexplained,
}

/// Relates a placement to the game. `max_plies` bounds the search for moves made in one go
/// (2 for a reply made before the press; more after the board was unreadable).
pub fn interpret(game: &Game, target: &Board, max_plies: usize) -> Interpretation {
    let current = game.current();
    if current.board() == target {
        return Interpretation::Same;
    }
    let mut budget = 200_000usize;
    if let Some(path) = find_path_with(current, target, max_plies.max(1), &mut budget, game.drops) {
        return Interpretation::Ahead(path);
    }
    // A drop is never a slide's intermediate square: nothing replaces it. (The piece the
    // drop joined lifted for a capture would otherwise read as that piece moving there.)
    if game.plies() > game.confirmed
        && let Some(last) = game.moves.last()
        && !matches!(last.mv, Move::Put { .. })
    {
        let parent = &game.positions[game.plies() - 1];
        if let Some(m) = one_move_to(parent, target)
            && m != last.mv
        {
            return Interpretation::Sibling(m);
        }
    }
    // The latest earlier occurrence wins (positions repeat in real games).
    for k in (0..game.plies()).rev() {
        if game.positions[k].board() == target {
            return Interpretation::Earlier(k);
        }
    }
    Interpretation::Unexplained
}

/// A result signalled on the board (protocol §4.5): both kings on the four centre squares
/// (both on light squares e4/d5 = 1-0, both dark d4/e5 = 0-1, mixed = draw), or a magic
/// piece (13 draw, 14 White wins, 15 Black wins).
pub fn result_gesture(p: &Placement) -> Option<(GameResult, String)> {
    use dgt_protocol::DgtPiece;
    if let Some((sq, piece)) = p.magic.first() {
        let result = match piece {
            DgtPiece::MagicWhiteWins => GameResult::WhiteWins,
            DgtPiece::MagicBlackWins => GameResult::BlackWins,
            _ => GameResult::Drawn,
        };
        return Some((result, format!("result piece placed on {sq}")));
    }
    let centre = Bitboard::from(Square::D4) | Square::D5 | Square::E4 | Square::E5;
    let wk = p.board.king_of(Color::White)?;
    let bk = p.board.king_of(Color::Black)?;
    if !centre.contains(wk) || !centre.contains(bk) {
        return None;
    }
    let result = match (wk.is_light(), bk.is_light()) {
        (true, true) => GameResult::WhiteWins,
        (false, false) => GameResult::BlackWins,
        _ => GameResult::Drawn,
    };
    Some((result, format!("kings placed on {wk} and {bk}")))
}

/// True if the move puts a king on a centre square: it may be the first half of a result
/// gesture, so it waits longer before it counts (LiveChess records such "moves"). While the
/// clock runs, a king that captures is no gesture: nobody takes a piece off the board to
/// signal a result in the middle of play. With the clock stopped (`clock_stopped`: the
/// players stop it when the game is over, and the gesture follows, protocol §4.5), whatever
/// stands on the centre square is pushed off to make room for the king, which reads as a
/// king capture.
pub fn king_to_centre(pos: &Chess, m: &Move, clock_stopped: bool) -> bool {
    let centre = Bitboard::from(Square::D4) | Square::D5 | Square::E4 | Square::E5;
    m.role() == Role::King
        && !m.is_castle()
        && (!m.is_capture() || clock_stopped)
        && centre.contains(m.to())
        && pos.board().king_of(pos.turn()).is_some()
}

/// A pawn standing on its last rank: a promotion not completed (the promoted piece not yet
/// put on the board).
/// A pawn on a first or last rank in `shown` that was not standing there in `before`: a
/// promotion not completed now, not a pawn dropped there earlier (bughouse: an illegal
/// drop followed as made, 7.4), which no promotion concerns.
pub fn unpromoted_pawn_since(before: &Board, shown: &Board) -> Option<Square> {
    let last =
        Bitboard::from_rank(shakmaty::Rank::First) | Bitboard::from_rank(shakmaty::Rank::Eighth);
    (shown.pawns() & last)
        .into_iter()
        .find(|&sq| before.piece_at(sq) != shown.piece_at(sq))
}

pub fn unpromoted_pawn(board: &Board) -> Option<Square> {
    let last =
        Bitboard::from_rank(shakmaty::Rank::First) | Bitboard::from_rank(shakmaty::Rank::Eighth);
    (board.pawns() & last).first()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn play(pos: &Chess, uci: &str) -> Chess {
        let m = uci.parse::<UciMove>().unwrap().to_move(pos).unwrap();
        pos.clone().play(m).unwrap()
    }

    /// The repetition keys the game keeps are those of its positions after every change:
    /// moves, a take-back and a replaced current position.
    #[test]
    fn repetition_keys_follow_the_positions() {
        let in_step = |g: &Game| {
            let fresh: Vec<u64> = g.positions.iter().map(repetition_key).collect();
            assert_eq!(g.repetition_keys(), fresh.as_slice());
        };
        let mut g = game(&["g1f3", "g8f6", "f3g1", "f6g8"]);
        in_step(&g);
        assert_eq!(g.repetition_keys()[0], g.repetition_keys()[4]);
        g.truncate(2);
        in_step(&g);
        let mut without_knight = g.current().to_setup(EnPassantMode::Legal);
        without_knight.board.discard_piece_at(Square::F3);
        let edited = without_knight
            .position::<Chess>(CastlingMode::Standard)
            .unwrap();
        let before = g.repetition_keys()[2];
        g.replace_current(edited);
        in_step(&g);
        assert_ne!(g.repetition_keys()[2], before);
    }

    fn game(ucis: &[&str]) -> Game {
        let mut g = Game::new("g".into(), Chess::default(), CastlingMode::Standard);
        for u in ucis {
            let m = u.parse::<UciMove>().unwrap().to_move(g.current()).unwrap();
            g.push(m, 0, (None, None));
        }
        g
    }

    #[test]
    fn one_move_and_a_reply() {
        let g = game(&[]);
        let after = play(&Chess::default(), "e2e4");
        assert!(
            matches!(interpret(&g, after.board(), 2), Interpretation::Ahead(ref p) if p.len() == 1)
        );
        let after2 = play(&after, "c7c5");
        let Interpretation::Ahead(p) = interpret(&g, after2.board(), 2) else {
            panic!()
        };
        assert_eq!(p.len(), 2);
        assert_eq!(
            interpret(&g, after2.board(), 1),
            Interpretation::Unexplained
        );
    }

    #[test]
    fn slide_intermediate_becomes_a_sibling_correction() {
        // A rook slides a1 → b1 → c1; b1 looked settled and was taken as the move.
        let mut g = game(&[
            "b1c3", "b8c6", "d2d3", "d7d6", "c1e3", "c8e6", "d1d2", "d8d7",
        ]);
        let m = "a1b1"
            .parse::<UciMove>()
            .unwrap()
            .to_move(g.current())
            .unwrap();
        g.push(m, 0, (None, None));
        let parent = g.positions[g.plies() - 1].clone();
        let target = play(&parent, "a1c1");
        assert!(matches!(
            interpret(&g, target.board(), 2),
            Interpretation::Sibling(_)
        ));
        g.confirm_all();
        assert_eq!(
            interpret(&g, target.board(), 2),
            Interpretation::Unexplained
        );
    }

    #[test]
    fn earlier_positions_are_found_latest_first() {
        let g = game(&["g1f3", "g8f6", "f3g1", "f6g8", "e2e4"]);
        assert_eq!(
            interpret(&g, Chess::default().board(), 2),
            Interpretation::Earlier(4)
        );
    }

    #[test]
    fn promotion_is_to_the_piece_placed() {
        let pos: Chess = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let g = Game::new("g".into(), pos.clone(), CastlingMode::Standard);
        let rook = play(&pos, "e7e8r");
        let Interpretation::Ahead(p) = interpret(&g, rook.board(), 2) else {
            panic!()
        };
        assert_eq!(p[0].promotion(), Some(Role::Rook));
        // The pawn itself on e8 is no legal position: a promotion not completed.
        let mut pawn_on_8 = pos.board().clone();
        let pawn = pawn_on_8.remove_piece_at(Square::E7).unwrap();
        pawn_on_8.set_piece_at(Square::E8, pawn);
        assert_eq!(interpret(&g, &pawn_on_8, 2), Interpretation::Unexplained);
        assert_eq!(unpromoted_pawn(&pawn_on_8), Some(Square::E8));
    }

    #[test]
    fn start_positions_standard_and_960() {
        assert!(matches!(
            start_position(&Board::default()),
            Some((_, CastlingMode::Standard))
        ));
        let (pos, mode) = start_position(&Board::chess960(0)).unwrap();
        assert_eq!(mode, CastlingMode::Chess960);
        assert_eq!(pos.turn(), Color::White);
        assert!(
            pos.castles()
                .has(Color::White, shakmaty::CastlingSide::KingSide)
        );
        let after = play(&Chess::default(), "e2e4");
        assert!(start_position(after.board()).is_none());
    }

    #[test]
    fn gestures() {
        let mut b = Board::empty();
        b.set_piece_at(
            Square::E4,
            shakmaty::Piece {
                color: Color::White,
                role: Role::King,
            },
        );
        b.set_piece_at(
            Square::D5,
            shakmaty::Piece {
                color: Color::Black,
                role: Role::King,
            },
        );
        assert_eq!(
            result_gesture(&Placement {
                board: b.clone(),
                magic: vec![]
            })
            .unwrap()
            .0,
            GameResult::WhiteWins
        );
        b.discard_piece_at(Square::D5);
        b.set_piece_at(
            Square::D4,
            shakmaty::Piece {
                color: Color::Black,
                role: Role::King,
            },
        );
        assert_eq!(
            result_gesture(&Placement {
                board: b,
                magic: vec![]
            })
            .unwrap()
            .0,
            GameResult::Drawn
        );
        assert!(
            result_gesture(&Placement {
                board: Board::default(),
                magic: vec![]
            })
            .is_none()
        );
    }

    #[test]
    fn multi_ply_gap_after_an_unreadable_board() {
        let g = game(&[]);
        let mut p = Chess::default();
        for u in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"] {
            p = play(&p, u);
        }
        let Interpretation::Ahead(path) = interpret(&g, p.board(), 6) else {
            panic!()
        };
        assert_eq!(path.len(), 5);
    }
}
