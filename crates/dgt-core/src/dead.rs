//! "Cannot checkmate by any series of legal moves": dead positions (5.2.2), the flag-fall
//! exception (6.9) and the second-illegal-move exception (7.5.5), decided by chasolver (the
//! CHA algorithm). Never claims "cannot mate" without a proof: what chasolver cannot decide
//! is [`MateAbility::Undetermined`], and the arbiter stage turns that into a `review`.

use std::str::FromStr;

use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, fen::Fen};

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
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    chess::Board::from_str(&fen).ok()
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
    match chasolver::winnability(b, color(side)) {
        Some(chasolver::Winnability::Winnable { .. }) => MateAbility::CanMate,
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
    let full = |side| memo::remembered(b, memo::Query::Full(side), || full_on(b, side));
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

    pub(super) fn forget() {
        MEMO.with(|m| {
            let mut m = m.borrow_mut();
            m.recent.clear();
            m.older.clear();
        });
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
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
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
