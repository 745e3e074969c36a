//! "Cannot checkmate by any series of legal moves": dead positions (5.2.2), the flag-fall
//! exception (6.9) and the second-illegal-move exception (7.5.5), decided by chasolver (the
//! CHA algorithm). Never claims "cannot mate" without a proof: what chasolver cannot decide
//! is [`MateAbility::Undetermined`], and the arbiter stage turns that into a `review`.

use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, Role, Square, fen::Fen};

impl Agreement {
    /// Adds another part's counts (the check runs on several threads).
    pub fn merge(&mut self, o: &Agreement) {
        self.positions += o.positions;
        self.agree += o.agree;
        self.unsound += o.unsound;
        self.wrong_can_mate += o.wrong_can_mate;
        self.undetermined += o.undetermined;
        self.unreadable += o.unreadable;
        self.total_micros += o.total_micros;
        self.slowest_micros = self.slowest_micros.max(o.slowest_micros);
    }
}

/// [`check_labelled`] on all cores.
pub fn check_labelled_parallel(text: &str) -> Agreement {
    let lines: Vec<&str> = text.lines().collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = lines.len().div_ceil(threads).max(1);
    let mut total = Agreement::default();
    std::thread::scope(|s| {
        let parts: Vec<_> = lines
            .chunks(chunk)
            .map(|c| {
                let text = c.join("\n");
                s.spawn(move || check_labelled(&text))
            })
            .collect();
        for p in parts {
            if let Ok(a) = p.join() {
                total.merge(&a);
            }
        }
    });
    total
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MateAbility {
    /// A sequence of legal moves ending in this side's checkmate exists.
    CanMate,
    /// Proven: no such sequence exists.
    CannotMate,
    /// Not decided (chasolver gave up, or the position cannot be represented).
    Undetermined,
}

/// The position in the `chess` crate's terms, through FEN. Chess960 positions that keep
/// castling rights cannot be represented there (standard castling only): `None`.
///
/// A pawn left on its last rank (an illegal move that stood, A.4.4) is no position the
/// mate analysis can judge — the pawn is due to become a piece (7.5.2): `None` too.
fn chess_board(pos: &Chess, mode: CastlingMode) -> Option<chess::Board> {
    if mode == CastlingMode::Chess960 && pos.castles().any() {
        return None;
    }
    if crate::reconstruct::unpromoted_pawn(pos.board()).is_some() {
        return None;
    }
    // The `chess` crate under chasolver keeps fixed-size piece lists: more pieces than one
    // set has (a bughouse board after drops, extra pieces put on the board) must never reach
    // it — its unchecked writes corrupt memory.
    if !fits_the_move_list(pos.board()) {
        return None;
    }
    // Built as the `chess` crate reads the FEN `Fen::from_position(pos, EnPassantMode::Legal)`
    // (its pieces, side to move, K/Q/k/q rights and en passant file), without the text.
    let mut b = chess::BoardBuilder::new();
    for (sq, piece) in pos.board() {
        b.piece(chess_square(sq), chess_role(piece.role), color(piece.color));
    }
    b.side_to_move(color(pos.turn()));
    // Standard castling keeps rights only for rooks in the corners, written K/Q/k/q.
    let rights = pos.castles().castling_rights();
    for c in Color::ALL {
        let (h, a) = c.fold_wb((Square::H1, Square::A1), (Square::H8, Square::A8));
        let (king_side, queen_side) = (rights.contains(h), rights.contains(a));
        b.castle_rights(
            color(c),
            match (king_side, queen_side) {
                (true, true) => chess::CastleRights::Both,
                (true, false) => chess::CastleRights::KingSide,
                (false, true) => chess::CastleRights::QueenSide,
                (false, false) => chess::CastleRights::NoRights,
            },
        );
    }
    b.en_passant(
        pos.ep_square(EnPassantMode::Legal)
            .map(|sq| chess::File::from_index(sq.file() as usize)),
    );
    chess::Board::try_from(&b).ok()
}

fn chess_square(sq: Square) -> chess::Square {
    chess::Square::make_square(
        chess::Rank::from_index(sq.rank() as usize),
        chess::File::from_index(sq.file() as usize),
    )
}

fn chess_role(role: Role) -> chess::Piece {
    match role {
        Role::Pawn => chess::Piece::Pawn,
        Role::Knight => chess::Piece::Knight,
        Role::Bishop => chess::Piece::Bishop,
        Role::Rook => chess::Piece::Rook,
        Role::Queen => chess::Piece::Queen,
        Role::King => chess::Piece::King,
    }
}

/// Whether each side has one king and at most 16 pieces: the `chess` crate's move generator
/// keeps one entry per piece of the side to move in an array of 18, written unchecked.
fn fits_the_move_list(b: &shakmaty::Board) -> bool {
    Color::ALL.iter().all(|&c| {
        let mine = b.by_color(c);
        (mine & b.kings()).count() == 1 && mine.count() <= 16
    })
}

fn color(c: Color) -> chess::Color {
    if c.is_white() {
        chess::Color::White
    } else {
        chess::Color::Black
    }
}

/// The cheap check, sound but incomplete: used after every move.
///
/// (shakmaty's `has_insufficient_material` is not used: it counts only the side's own
/// material, and chasolver's labelled set holds helpmates that use the opponent's pieces.)
pub fn fast(pos: &Chess, mode: CastlingMode, side: Color) -> MateAbility {
    match chess_board(pos, mode) {
        Some(b) => memo::remembered(&b, memo::Query::Fast(side), || fast_on(&b, side)),
        None => MateAbility::Undetermined,
    }
}

fn fast_on(b: &chess::Board, side: Color) -> MateAbility {
    if chasolver::is_unwinnable_fast(b, color(side)) {
        MateAbility::CannotMate
    } else {
        MateAbility::Undetermined
    }
}

/// The full analysis (a helpmate search); `CanMate` comes with a proof inside chasolver.
pub fn full(pos: &Chess, mode: CastlingMode, side: Color) -> MateAbility {
    match chess_board(pos, mode) {
        Some(b) => memo::remembered(&b, memo::Query::Full(side), || full_on(&b, side)),
        None => MateAbility::Undetermined,
    }
}

fn full_on(b: &chess::Board, side: Color) -> MateAbility {
    memo::count_search();
    match chasolver::winnability(b, color(side)) {
        Some(chasolver::Winnability::Winnable { helpmate }) => {
            memo::remember_line(b, side, &helpmate);
            MateAbility::CanMate
        }
        Some(chasolver::Winnability::Unwinnable) => MateAbility::CannotMate,
        None => MateAbility::Undetermined,
    }
}

/// 5.2.2: a dead position — neither player can checkmate. Fast check first; the full check
/// only when the fast one proved one side cannot mate (the other side is then the question).
///
/// Remembered per position (see [`memo`]): the core asks about the same position more than
/// once (whether a move would end the game, then at the move itself), and every game passes
/// through the same openings. No position is skipped: a move that captures nothing, moves no
/// pawn and changes no castling right can still make a live position dead (a rook that gives
/// check where the bare king's only move takes it: the test
/// `a_quiet_move_can_make_a_position_dead`), so each new position is analysed in full.
pub fn is_dead(pos: &Chess, mode: CastlingMode) -> MateAbility {
    match chess_board(pos, mode) {
        Some(b) => memo::remembered(&b, memo::Query::Dead, || dead_on(&b)),
        None => MateAbility::Undetermined,
    }
}

fn dead_on(b: &chess::Board) -> MateAbility {
    let white = memo::remembered(b, memo::Query::Fast(Color::White), || {
        fast_on(b, Color::White)
    });
    let black = memo::remembered(b, memo::Query::Fast(Color::Black), || {
        fast_on(b, Color::Black)
    });
    // A side the fast check leaves open is asked about in full; a known helpmate line that
    // this position reaches in at most three moves proves it can mate without a search. Such a
    // proof only ever stands for "not CannotMate" here (it is not remembered as the full
    // verdict, which the flag and illegal-move rules read directly).
    let full = |side| {
        memo::known(b, memo::Query::Full(side))
            .or_else(|| memo::proved_by_line(b, side).then_some(MateAbility::CanMate))
            .unwrap_or_else(|| memo::remembered(b, memo::Query::Full(side), || full_on(b, side)))
    };
    match (white, black) {
        (MateAbility::CannotMate, MateAbility::CannotMate) => MateAbility::CannotMate,
        (MateAbility::CannotMate, _) => full(Color::Black),
        (_, MateAbility::CannotMate) => full(Color::White),
        _ => MateAbility::Undetermined,
    }
}

/// Forgets every remembered verdict of this thread (benchmarks measure the analysis itself).
pub fn forget_remembered() {
    memo::forget();
}

/// The verdicts of the positions analysed lately, per thread.
///
/// A verdict depends on the position alone — the pieces, the side to move, the castling
/// rights and the en-passant square, all of which the `chess` crate's board holds and
/// compares in full (its hash is only the table's index) — and chasolver's searches are
/// deterministic (fixed node budgets, no randomness), so a remembered verdict is the one a new
/// analysis would give. The core feeds one thread at a time; what another thread remembered
/// is merely not shared.
mod memo {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;

    use chess::{ChessMove, MoveGen};
    use shakmaty::Color;

    use super::MateAbility;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub(super) enum Query {
        Fast(Color),
        Full(Color),
        Dead,
    }

    /// Verdicts kept per generation; two generations are kept (about 130 bytes a verdict:
    /// at most ~0.5 MiB a thread), the older one dropped when the newer is full.
    const GENERATION: usize = 2048;

    #[derive(Default)]
    struct Memo {
        recent: HashMap<(chess::Board, Query), MateAbility>,
        older: HashMap<(chess::Board, Query), MateAbility>,
        /// Analyses actually run (not answered from memory).
        analyses: u64,
        /// Helpmate searches run (chasolver's full analysis).
        searches: u64,
    }

    thread_local! {
        static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
    }

    /// The remembered verdict of `query` on `board`, or `analyse()`'s, then remembered.
    pub(super) fn remembered(
        board: &chess::Board,
        query: Query,
        analyse: impl FnOnce() -> MateAbility,
    ) -> MateAbility {
        let key = (*board, query);
        let known = MEMO.with(|m| {
            let m = m.borrow();
            m.recent.get(&key).or_else(|| m.older.get(&key)).copied()
        });
        if let Some(v) = known {
            return v;
        }
        // Not borrowed while analysing: the analysis may consult the memory itself.
        let v = analyse();
        MEMO.with(|m| {
            let mut m = m.borrow_mut();
            m.analyses += 1;
            if m.recent.len() >= GENERATION {
                m.older = std::mem::take(&mut m.recent);
            }
            m.recent.insert(key, v);
        });
        v
    }

    /// The remembered verdict of `query` on `board`, if any (nothing is analysed).
    pub(super) fn known(board: &chess::Board, query: Query) -> Option<MateAbility> {
        let key = (*board, query);
        MEMO.with(|m| {
            let m = m.borrow();
            m.recent.get(&key).or_else(|| m.older.get(&key)).copied()
        })
    }

    pub(super) fn forget() {
        MEMO.with(|m| {
            let mut m = m.borrow_mut();
            m.recent.clear();
            m.older.clear();
        });
        LINES.with(|l| {
            let mut l = l.borrow_mut();
            l.recent.clear();
            l.older.clear();
        });
    }

    /// Counts one helpmate search (chasolver's full analysis).
    pub(super) fn count_search() {
        MEMO.with(|m| m.borrow_mut().searches += 1);
    }

    /// Helpmate searches run on this thread so far.
    #[cfg(test)]
    pub(super) fn searches() -> u64 {
        MEMO.with(|m| m.borrow().searches)
    }

    /// Longest line kept (plies): a line grows by two plies each time a position is proved
    /// through it, so a game that keeps wandering off it goes back to a search now and then.
    const LONGEST_LINE: usize = 256;

    /// Positions on a kept line per generation (about 130 bytes each: at most ~1 MiB a
    /// thread for both generations, the lines themselves shared).
    const LINE_GENERATION: usize = 4096;

    /// A helpmate line: from the position it is kept under, `moves[from..]` are legal moves
    /// ending in the side's checkmate of the opponent.
    type Line = (Rc<[ChessMove]>, usize);

    /// Positions on helpmate lines found lately, per side that mates at the end.
    #[derive(Default)]
    struct Lines {
        recent: HashMap<(chess::Board, Color), Line>,
        older: HashMap<(chess::Board, Color), Line>,
    }

    impl Lines {
        fn get(&self, board: &chess::Board, side: Color) -> Option<Line> {
            let key = (*board, side);
            self.recent
                .get(&key)
                .or_else(|| self.older.get(&key))
                .cloned()
        }

        fn insert(&mut self, board: chess::Board, side: Color, line: Line) {
            if self.recent.len() >= LINE_GENERATION {
                self.older = std::mem::take(&mut self.recent);
            }
            self.recent.insert((board, side), line);
        }
    }

    thread_local! {
        static LINES: RefCell<Lines> = RefCell::new(Lines::default());
    }

    fn chess_color(c: Color) -> chess::Color {
        if c.is_white() {
            chess::Color::White
        } else {
            chess::Color::Black
        }
    }

    /// Keeps a helpmate line chasolver found from `board` for `side`, each position on it
    /// remembered — once the line is checked move by move: every move legal, and the last
    /// position `side`'s checkmate of the opponent. A line that fails the check is not kept.
    pub(super) fn remember_line(board: &chess::Board, side: Color, moves: &[ChessMove]) {
        if moves.is_empty() || moves.len() > LONGEST_LINE {
            return;
        }
        let mut positions = Vec::with_capacity(moves.len());
        let mut b = *board;
        for &m in moves {
            if !b.legal(m) {
                return;
            }
            positions.push(b);
            b = b.make_move_new(m);
        }
        if b.status() != chess::BoardStatus::Checkmate || b.side_to_move() != chess_color(!side) {
            return;
        }
        let line: Rc<[ChessMove]> = moves.into();
        LINES.with(|l| {
            let mut l = l.borrow_mut();
            for (i, p) in positions.into_iter().enumerate() {
                l.insert(p, side, (line.clone(), i));
            }
        });
    }

    /// Whether `side` can mate from `board`, proved by a kept helpmate line: `board` is on
    /// one, or reaches a position on one in one, two or three legal moves (the game left the
    /// line with moves that can be taken back, as a king's walk). The moves to the line and the
    /// rest of it make a line from `board`, kept in turn. `false` says only that no proof was
    /// found this way.
    pub(super) fn proved_by_line(board: &chess::Board, side: Color) -> bool {
        LINES.with(|l| {
            let mut l = l.borrow_mut();
            if l.recent.is_empty() && l.older.is_empty() {
                return false;
            }
            if l.get(board, side).is_some() {
                return true;
            }
            for first in MoveGen::new_legal(board) {
                let one = board.make_move_new(first);
                if let Some((line, from)) = l.get(&one, side) {
                    extend(&mut l, side, &[(*board, first)], &line, from);
                    return true;
                }
                for second in MoveGen::new_legal(&one) {
                    let two = one.make_move_new(second);
                    if let Some((line, from)) = l.get(&two, side) {
                        extend(&mut l, side, &[(*board, first), (one, second)], &line, from);
                        return true;
                    }
                }
            }
            // Three moves away (the game left the line by a move of each side, then one more):
            // a few thousand look-ups, a tenth of a search's work.
            for first in MoveGen::new_legal(board) {
                let one = board.make_move_new(first);
                for second in MoveGen::new_legal(&one) {
                    let two = one.make_move_new(second);
                    for third in MoveGen::new_legal(&two) {
                        let three = two.make_move_new(third);
                        if let Some((line, from)) = l.get(&three, side) {
                            let steps = [(*board, first), (one, second), (two, third)];
                            extend(&mut l, side, &steps, &line, from);
                            return true;
                        }
                    }
                }
            }
            false
        })
    }

    /// Keeps the line made of `steps` (each a position and the legal move played from it)
    /// followed by `line[from..]`, under the positions of `steps`, if not too long.
    fn extend(
        l: &mut Lines,
        side: Color,
        steps: &[(chess::Board, ChessMove)],
        line: &[ChessMove],
        from: usize,
    ) {
        let rest = &line[from..];
        if steps.len() + rest.len() > LONGEST_LINE {
            return;
        }
        let moves: Rc<[ChessMove]> = steps
            .iter()
            .map(|&(_, m)| m)
            .chain(rest.iter().copied())
            .collect();
        for (i, &(p, _)) in steps.iter().enumerate() {
            l.insert(p, side, (moves.clone(), i));
        }
    }

    /// Analyses run on this thread so far.
    #[cfg(test)]
    pub(super) fn analyses() -> u64 {
        MEMO.with(|m| m.borrow().analyses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Chess {
        crate::reconstruct::position_from_fen(fen).unwrap().0
    }

    /// The board handed to chasolver is the one the `chess` crate reads from the position's
    /// FEN: castling rights one by one, en passant (legal or not capturable), either side.
    #[test]
    fn the_chess_board_is_the_one_its_fen_gives() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 20",
            "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 3 20",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",
            "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1",
            "8/8/4k3/8/8/3BK3/8/8 b - - 0 1",
        ] {
            let p = pos(fen);
            let text = Fen::from_position(&p, EnPassantMode::Legal).to_string();
            let via_text: chess::Board = text.parse().unwrap();
            assert_eq!(
                chess_board(&p, CastlingMode::Standard),
                Some(via_text),
                "{fen}"
            );
        }
    }

    #[test]
    fn more_than_one_set_is_never_analysed() {
        // Bughouse: White has 17 pieces after drops.
        let setup = "4k3/8/8/8/PNNNNN2/NNN5/PPPPPPPP/4K3 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_setup();
        let p = <Chess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard)
            .or_else(shakmaty::PositionError::ignore_too_much_material)
            .unwrap();
        assert_eq!(
            fast(&p, CastlingMode::Standard, Color::White),
            MateAbility::Undetermined
        );
        assert_eq!(
            full(&p, CastlingMode::Standard, Color::Black),
            MateAbility::Undetermined
        );
        assert_eq!(
            is_dead(&p, CastlingMode::Standard),
            MateAbility::Undetermined
        );
    }

    #[test]
    fn bare_kings_and_minor_pieces() {
        let p = pos("8/8/4k3/8/8/3BK3/8/8 w - - 0 1");
        assert_eq!(is_dead(&p, CastlingMode::Standard), MateAbility::CannotMate);
        let p = pos("8/8/4k3/8/8/3NK3/3N4/8 w - - 0 1");
        assert_eq!(
            full(&p, CastlingMode::Standard, Color::White),
            MateAbility::CanMate
        );
    }

    #[test]
    fn a_locked_pawn_wall_is_dead() {
        let p = pos("8/8/1k6/p1p1p1p1/P1P1P1P1/8/4K3/8 w - - 0 1");
        assert_eq!(is_dead(&p, CastlingMode::Standard), MateAbility::CannotMate);
    }

    #[test]
    fn a_quiet_move_can_make_a_position_dead() {
        // Why no position is skipped (5.2.2): Rb1-b8+ captures nothing, moves no pawn and
        // changes no castling right, yet Black's only legal move is then Kxb8, leaving two
        // bare kings. Before it White could mate (Rb8 mate needs Black to play elsewhere).
        let before = pos("k7/8/1K6/8/8/8/8/1R6 w - - 0 1");
        assert_ne!(
            is_dead(&before, CastlingMode::Standard),
            MateAbility::CannotMate
        );
        let after = pos("kR6/8/1K6/8/8/8/8/8 b - - 1 1");
        assert_eq!(
            is_dead(&after, CastlingMode::Standard),
            MateAbility::CannotMate
        );
    }

    #[test]
    fn a_position_asked_again_is_not_analysed_again() {
        forget_remembered();
        // White's rook against a bare king: the fast check proves Black cannot mate, then the
        // full search for White runs.
        let p = pos("8/8/4k3/8/8/8/3RK3/8 b - - 0 1");
        let first = is_dead(&p, CastlingMode::Standard);
        let analysed = memo::analyses();
        assert_eq!(is_dead(&p, CastlingMode::Standard), first);
        assert_eq!(
            full(&p, CastlingMode::Standard, Color::White),
            MateAbility::CanMate
        );
        assert_eq!(memo::analyses(), analysed, "answered from memory");
        is_dead(
            &pos("8/8/4k3/8/8/8/3RK3/8 w - - 0 1"),
            CastlingMode::Standard,
        );
        assert!(
            memo::analyses() > analysed,
            "another side to move, another position"
        );
        let analysed = memo::analyses();
        forget_remembered();
        assert_eq!(is_dead(&p, CastlingMode::Standard), first);
        assert!(memo::analyses() > analysed, "analysed again once forgotten");
    }

    fn after(p: &Chess, ucis: &[&str]) -> Chess {
        let mut p = p.clone();
        for u in ucis {
            let m = u
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&p)
                .unwrap();
            p = p.play(m).unwrap();
        }
        p
    }

    #[test]
    fn a_helpmate_line_proves_the_positions_near_it_without_a_search() {
        forget_remembered();
        // White's rook against a bare king: Black cannot mate (fast check), White's helpmate
        // is searched for once.
        let start = pos("8/8/4k3/8/8/8/3RK3/8 w - - 0 1");
        assert_eq!(
            is_dead(&start, CastlingMode::Standard),
            MateAbility::CanMate
        );
        let searched = memo::searches();
        assert!(searched > 0, "the first position is searched");
        // Rd3 Ke7 can be taken back (Rd2 Ke6): the line from the start proves the position
        // after them, two moves away.
        let wandered = after(&start, &["d2d3", "e6e7"]);
        assert_ne!(
            is_dead(&wandered, CastlingMode::Standard),
            MateAbility::CannotMate
        );
        assert_eq!(
            memo::searches(),
            searched,
            "proved by the line, not searched"
        );
        // Two bare kings: dead, whatever lines are kept.
        let bare = pos("8/8/4k3/8/8/8/4K3/8 w - - 0 1");
        assert_eq!(
            is_dead(&bare, CastlingMode::Standard),
            MateAbility::CannotMate
        );
        // Forgotten, the same position is searched again.
        forget_remembered();
        is_dead(&wandered, CastlingMode::Standard);
        assert!(memo::searches() > searched);
    }

    #[test]
    fn a_position_three_moves_from_a_kept_line_is_proved_without_a_search() {
        forget_remembered();
        // Kept: Ra1-a8 mates the king on h8 (the white king on g6 guards g7 and h7).
        let mate_in_one = pos("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
        let b = chess_board(&mate_in_one, CastlingMode::Standard).unwrap();
        let ra8 = chess::ChessMove::new(chess::Square::A1, chess::Square::A8, None);
        memo::remember_line(&b, Color::White, &[ra8]);
        assert!(memo::proved_by_line(&b, Color::White), "the line is kept");
        // Kg8 Ra1 Kh8 reach it: three moves, no fewer (Black is on move here, White there).
        let before = pos("7k/8/6K1/8/8/8/R7/8 b - - 0 1");
        let searched = memo::searches();
        assert_ne!(
            is_dead(&before, CastlingMode::Standard),
            MateAbility::CannotMate
        );
        assert_eq!(
            memo::searches(),
            searched,
            "proved by the line, not searched"
        );
        // What the search says about it agrees: White can mate.
        assert_eq!(
            full(&before, CastlingMode::Standard, Color::White),
            MateAbility::CanMate
        );
    }

    #[test]
    fn a_line_that_does_not_end_in_mate_is_not_kept() {
        forget_remembered();
        let p = pos("8/8/4k3/8/8/8/3RK3/8 w - - 0 1");
        let b = chess_board(&p, CastlingMode::Standard).unwrap();
        let rd3 = chess::ChessMove::new(chess::Square::D2, chess::Square::D3, None);
        memo::remember_line(&b, Color::White, &[rd3]);
        assert!(!memo::proved_by_line(&b, Color::White));
        // Nor one with an illegal move (the king cannot move two squares).
        let ke4 = chess::ChessMove::new(chess::Square::E2, chess::Square::E4, None);
        memo::remember_line(&b, Color::White, &[ke4]);
        assert!(!memo::proved_by_line(&b, Color::White));
    }

    #[test]
    fn the_start_position_is_alive() {
        assert_eq!(
            full(&Chess::default(), CastlingMode::Standard, Color::Black),
            MateAbility::CanMate
        );
        assert_eq!(
            is_dead(&Chess::default(), CastlingMode::Standard),
            MateAbility::Undetermined
        );
    }
}

/// Agreement with a labelled set (chasolver's format: two characters — `W` or `-` for White,
/// `B` or `-` for Black, "can this side checkmate?" — a space, a FEN).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Agreement {
    pub positions: usize,
    /// Verdicts (one per side and position) equal to the label.
    pub agree: usize,
    /// "Cannot mate" where the label says it can: must be zero.
    pub unsound: usize,
    /// "Can mate" where the label says it cannot.
    pub wrong_can_mate: usize,
    pub undetermined: usize,
    pub unreadable: usize,
    pub total_micros: u128,
    pub slowest_micros: u128,
}

/// Checks [`full`] against every labelled line of `text` (`#` comments skipped).
pub fn check_labelled(text: &str) -> Agreement {
    let mut a = Agreement::default();
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let Some((label, fen)) = line.split_once(' ') else {
            a.unreadable += 1;
            continue;
        };
        // The labelled sets include composed positions no game reaches (too much material,
        // impossible checks): they are still positions to judge.
        let Some(pos) = fen.parse::<Fen>().ok().and_then(|f| {
            f.into_position::<Chess>(CastlingMode::Standard)
                .or_else(shakmaty::PositionError::ignore_too_much_material)
                .or_else(shakmaty::PositionError::ignore_impossible_check)
                .ok()
        }) else {
            a.unreadable += 1;
            continue;
        };
        a.positions += 1;
        for (side, can) in [
            (Color::White, label.starts_with('W')),
            (Color::Black, label.ends_with('B')),
        ] {
            let start = std::time::Instant::now();
            // The search itself, not a remembered verdict: the timings are the analysis's.
            let verdict = match chess_board(&pos, CastlingMode::Standard) {
                Some(b) => full_on(&b, side),
                None => MateAbility::Undetermined,
            };
            let us = start.elapsed().as_micros();
            a.total_micros += us;
            a.slowest_micros = a.slowest_micros.max(us);
            match (verdict, can) {
                (MateAbility::CanMate, true) | (MateAbility::CannotMate, false) => a.agree += 1,
                (MateAbility::CannotMate, true) => a.unsound += 1,
                (MateAbility::CanMate, false) => a.wrong_can_mate += 1,
                (MateAbility::Undetermined, _) => a.undetermined += 1,
            }
        }
    }
    a
}
