//! From settled placements to legal moves (shakmaty), never inventing one.
//!
//! The robust method (peers report, design notes): match what the board shows against the
//! positions reachable by legal moves from the last known position, instead of following
//! lifts and placements one by one. Slides, captures in either order, castling king or rook
//! first, en passant and flicker then need no special case: their intermediate placements are
//! simply not reachable, or not settled. A promotion is to the piece actually placed (an
//! upside-down rook reads as a rook — FIDE 3.7.5 note in the digest).

use std::sync::OnceLock;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, MoveList, Piece,
    Position, PositionErrorKinds, Role, Setup, Square,
};

use crate::board::{Placement, diff};
use crate::event::EndReason;

/// One move as played, with the clock readings when it was completed.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedMove {
    pub mv: Move,
    pub uci: String,
    pub san: String,
    pub t_ms: u64,
    pub white_ms: Option<u64>,
    pub black_ms: Option<u64>,
}

/// A game on one board.
#[derive(Debug, Clone)]
pub struct Game {
    pub id: String,
    pub start_fen: String,
    pub castling_mode: CastlingMode,
    /// positions[k] is the position after k plies; positions[0] the start.
    pub positions: Vec<Chess>,
    pub moves: Vec<PlayedMove>,
    /// How many moves are final: completed by a press, or followed by the opponent's move.
    /// Only a later, unconfirmed move may be corrected.
    pub confirmed: usize,
    pub result: Option<(String, EndReason)>,
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

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// Plays a legal move from the current position; returns its ply (1-based).
    /// The position [`Game::push`] would reach with the legal move `mv`.
    pub fn position_after(&self, mv: Move) -> Chess {
        let mut next = self.current().clone();
        match mv {
            // As in `push`: a drop is judged by the bughouse regulation.
            Move::Put { .. } => next.play_unchecked(mv),
            _ => {
                next = next.play(mv).expect("only legal moves are asked about");
            }
        }
        next
    }

    pub fn push(&mut self, mv: Move, t_ms: u64, clocks: (Option<u64>, Option<u64>)) -> u32 {
        let pos = self.current().clone();
        let uci = mv.to_uci(self.castling_mode).to_string();
        let mut san = SanPlus::from_move(pos.clone(), mv).to_string();
        if san.starts_with('@') {
            // shakmaty writes a pawn drop "@d2"; arbiters (and UCI) write "P@d2".
            san.insert(0, 'P');
        }
        let next = match mv {
            // A drop is judged by the bughouse regulation, not by shakmaty's standard chess.
            Move::Put { .. } => {
                let mut p = pos;
                p.play_unchecked(mv);
                p
            }
            _ => pos.play(mv).expect("only legal moves are pushed"),
        };
        self.positions.push(next);
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
        self.positions.push(after);
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

/// The legal moves of the player on move. After an illegal move that stood (A.4.2 / A.5.2 in
/// rapid and blitz) the side *not* to move may be in check; taking its king is still no legal
/// move (1.4.1; capturing the king is an illegal move, 2017 fn 104), so such captures are left
/// out and the board showing one is judged as an illegal move.
pub fn legal_moves(pos: &Chess) -> MoveList {
    let mut moves = pos.legal_moves();
    moves.retain(|m| m.capture() != Some(Role::King));
    moves
}

/// The legal move from `pos` whose result shows `target`, if any.
pub fn one_move_to(pos: &Chess, target: &Board) -> Option<Move> {
    let d = diff(pos.board(), target);
    if d.count() < 2 || d.count() > 4 {
        return None;
    }
    legal_moves(pos)
        .into_iter()
        .filter(|m| starts_in(m, d) && (m.is_castle() || d.contains(m.to())))
        .find(|m| {
            let mut p = pos.clone();
            p.play_unchecked(*m);
            p.board() == target
        })
}

/// The legal move from `pos` whose result shows `target` but for one piece off the board —
/// the opponent's, lifted for the reply, or the moved piece being captured in reply — while
/// the press was still being relayed.
///
/// The moved piece counts as taken only for a move in `seen` (shown complete on the board
/// before): otherwise "piece lifted, not yet put down" would match every move of that piece.
pub fn one_move_with_reply_in_hand(
    pos: &Chess,
    target: &Board,
    seen: impl Fn(&Move) -> Option<usize>,
) -> Option<Move> {
    let opponent = !pos.turn();
    let mut best: Option<(usize, Move)> = None;
    for m in legal_moves(pos) {
        let mut p = pos.clone();
        p.play_unchecked(m);
        let d = diff(p.board(), target);
        let Some(sq) = d.first().filter(|_| d.count() == 1) else {
            continue;
        };
        if target.piece_at(sq).is_some() {
            continue;
        }
        if p.board().color_at(sq) == Some(opponent) {
            // The opponent lifted one of his pieces: nothing else explains the board.
            return Some(m);
        }
        // The moved piece is being taken: of the moves the board showed, the latest (a
        // slide's intermediate squares were shown earlier).
        if sq == m.to()
            && let Some(when) = seen(&m)
            && best.is_none_or(|(w, _)| when > w)
        {
            best = Some((when, m));
        }
    }
    best.map(|(_, m)| m)
}

/// Whether `m` stops on a square `longer` passes over with the same piece: a slide reports
/// every square on its way (protocol §4.1), so the board showing `m` is no evidence against
/// `longer`.
pub fn slide_prefix(m: &Move, longer: &Move) -> bool {
    match (m.from(), longer.from()) {
        (Some(a), Some(b)) if a == b && !m.is_castle() && !longer.is_castle() => {
            shakmaty::attacks::between(b, longer.to()).contains(m.to())
        }
        _ => false,
    }
}

/// Whether `shown` is the position after `m` changed by the opponent's hands alone: his
/// pieces lifted, moved or put down, and the piece `m` moved taken off (or replaced by his).
/// The mover's other pieces stand where `m` left them.
pub fn only_opponent_changed(pos: &Chess, m: &Move, shown: &Board) -> bool {
    if m.is_castle() {
        return false;
    }
    let mover = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(*m);
    let d = diff(after.board(), shown);
    !d.is_empty()
        && d.into_iter().all(|sq| {
            let mover_now = shown.color_at(sq) == Some(mover);
            let mover_was = after.board().color_at(sq) == Some(mover);
            !mover_now && (!mover_was || sq == m.to())
        })
}

/// A capture by the player on move whose capturer is still in the hand: the board shows the
/// position after it but for the capturer, with the captured piece already off its square
/// (lifted first, or in the same scan as the capturer, protocol §4.1).
pub fn capture_in_hand(pos: &Chess, target: &Board) -> Option<Move> {
    let d = diff(pos.board(), target);
    legal_moves(pos).into_iter().find(|m| {
        if !m.is_capture() || m.is_en_passant() || !starts_in(m, d) || !d.contains(m.to()) {
            return false;
        }
        let mut after = pos.board().clone();
        after.discard_piece_at(m.from().expect("a capture starts on a square"));
        after.discard_piece_at(m.to());
        &after == target
    })
}

/// The most pieces a knock can take off the board and still leave a move readable under it.
const KNOCKED_MAX: usize = 2;

/// The one legal move from `pos` whose result shows `target` but for pieces off the board
/// that the move did not touch (knocked over once the move was made; the board reports each
/// square as it changes, protocol §4.1). `None` when no move, or more than one, reads so: a
/// knocked piece is a displacement under a move (7.1), not part of an illegal one.
pub fn one_move_with_pieces_off(pos: &Chess, target: &Board) -> Option<(Move, Bitboard)> {
    let mut found = None;
    for m in legal_moves(pos) {
        let mut p = pos.clone();
        p.play_unchecked(m);
        let d = diff(p.board(), target);
        if d.is_empty()
            || d.count() > KNOCKED_MAX
            || d.contains(m.to())
            || (d & target.occupied()).any()
        {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some((m, d));
    }
    found
}

/// A castling by the player on move whose rook is still in the hand: the board shows the
/// position after it but for the rook, off the board (the king put on its square first, the
/// rook lifted; a piece is reported where it lands up to ~400 ms late, later while it
/// flickers, protocol §4.1).
pub fn castling_in_hand(pos: &Chess, target: &Board) -> Option<Move> {
    legal_moves(pos).into_iter().find(|m| {
        if !m.is_castle() {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(*m);
        let d = diff(after.board(), target);
        d.first().filter(|_| d.count() == 1).is_some_and(|sq| {
            target.piece_at(sq).is_none() && after.board().piece_at(sq) == Some(pos.turn().rook())
        })
    })
}

/// A shortest sequence of legal moves from `pos` to a position showing `target`, searching
/// at most `max_plies` deep and visiting at most `budget` nodes. Only moves that start on a
/// square where the boards still differ are tried: exact up to two plies (each side's piece
/// leaves a square that ends up different), a sound heuristic beyond.
pub fn find_path(
    pos: &Chess,
    target: &Board,
    max_plies: usize,
    budget: &mut usize,
) -> Option<Vec<Move>> {
    find_path_with(pos, target, max_plies, budget, false)
}

/// [`find_path`], with drops (`Move::Put`) among the moves when `drops` is set.
pub fn find_path_with(
    pos: &Chess,
    target: &Board,
    max_plies: usize,
    budget: &mut usize,
    drops: bool,
) -> Option<Vec<Move>> {
    for depth in 1..=max_plies {
        let mut path = Vec::new();
        if search(pos, target, depth, budget, &mut path, drops) {
            return Some(path);
        }
        if *budget == 0 {
            break;
        }
    }
    None
}

fn search(
    pos: &Chess,
    target: &Board,
    depth: usize,
    budget: &mut usize,
    path: &mut Vec<Move>,
    drops: bool,
) -> bool {
    let d = diff(pos.board(), target);
    if d.is_empty() {
        return true;
    }
    // Each ply changes at most four squares (castling).
    if depth == 0 || d.count() > 4 * depth || *budget == 0 {
        return false;
    }
    let mut moves = legal_moves(pos);
    if drops {
        moves.extend(drops_into(pos, target, d));
    }
    for m in moves {
        if !starts_in(&m, d) {
            continue;
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let mut next = pos.clone();
        next.play_unchecked(m);
        path.push(m);
        if search(&next, target, depth - 1, budget, path, drops) {
            return true;
        }
        path.pop();
    }
    false
}

/// Drops the board could be showing: a piece of the player on move (not a king) standing on
/// a square that is empty in `pos`. Whether the regulation allows it is judged later.
fn drops_into(pos: &Chess, target: &Board, d: Bitboard) -> Vec<Move> {
    let me = pos.turn();
    (d & !pos.board().occupied())
        .into_iter()
        .filter_map(|sq| {
            let p = target.piece_at(sq)?;
            (p.color == me && p.role != Role::King).then_some(Move::Put {
                role: p.role,
                to: sq,
            })
        })
        .collect()
}

/// Whether a move starts on a square where the boards differ. A Chess960 castling may leave
/// the king on its square (II.3.2.4: the rook alone moves) or the rook on its square: it is
/// always tried.
fn starts_in(m: &Move, d: Bitboard) -> bool {
    m.is_castle() || m.from().map_or(d.contains(m.to()), |f| d.contains(f))
}

fn chess960_boards() -> &'static Vec<Board> {
    static BOARDS: OnceLock<Vec<Board>> = OnceLock::new();
    BOARDS.get_or_init(|| (0..960).map(Board::chess960).collect())
}

/// If the placement is a start position — the standard one or a Chess960 one — the game it
/// starts and its castling mode.
pub fn start_position(board: &Board) -> Option<(Chess, CastlingMode)> {
    if *board == Board::default() {
        return Some((Chess::default(), CastlingMode::Standard));
    }
    // Quick reject before comparing with the 960 positions: 32 pieces, pawns on ranks 2 and 7.
    if board.occupied().count() != 32
        || board.pawns()
            != (Bitboard::from_rank(shakmaty::Rank::Second)
                | Bitboard::from_rank(shakmaty::Rank::Seventh))
    {
        return None;
    }
    if chess960_boards().iter().any(|b| b == board) {
        // X-FEN "KQkq" means the outermost rooks, which in a start position are the only ones.
        let fen = format!("{board} w KQkq - 0 1");
        let pos = fen
            .parse::<Fen>()
            .ok()?
            .into_position::<Chess>(CastlingMode::Chess960)
            .ok()?;
        return Some((pos, CastlingMode::Chess960));
    }
    None
}

/// A board that looks like a game's start — 32 pieces, each side's pawns on its second rank
/// and its eight pieces on its first — but is neither the initial position nor a Chess960
/// start (7.2.1; 2005 7.1a; II.2). Returns what is wrong, and the position to follow the
/// game from if it is played anyway: White to move, castling only for a king and rook on
/// their standard squares.
pub fn wrong_setup(board: &Board) -> Option<(Chess, String)> {
    use shakmaty::{File, Rank};
    let first = |c: Color| {
        if c.is_white() {
            Rank::First
        } else {
            Rank::Eighth
        }
    };
    let second = |c: Color| {
        if c.is_white() {
            Rank::Second
        } else {
            Rank::Seventh
        }
    };
    if board.occupied().count() != 32 || start_position(board).is_some() {
        return None;
    }
    for c in Color::ALL {
        let home = Bitboard::from_rank(first(c));
        if (board.pawns() & board.by_color(c)) != Bitboard::from_rank(second(c))
            || (board.by_color(c) & !board.pawns()) != home
            || (board.kings() & board.by_color(c)).count() != 1
            || (board.queens() & board.by_color(c)).count() != 1
            || (board.rooks() & board.by_color(c)).count() != 2
            || (board.bishops() & board.by_color(c)).count() != 2
        {
            return None;
        }
    }
    let standard = Board::default();
    let mut faults = Vec::new();
    for c in Color::ALL {
        let wrong: Vec<String> = File::ALL
            .iter()
            .map(|&f| Square::from_coords(f, first(c)))
            .filter(|&sq| board.piece_at(sq) != standard.piece_at(sq))
            .filter_map(|sq| {
                board
                    .piece_at(sq)
                    .map(|p| format!("{} on {sq}", role_word(p.role)))
            })
            .collect();
        if !wrong.is_empty() {
            let side = if c.is_white() { "White" } else { "Black" };
            faults.push(format!("{side} has {}", wrong.join(", ")));
        }
    }
    // A Chess960 start must have the bishops on squares of both colours and the king between
    // the rooks, the same for both sides (II.2).
    let mirrored = File::ALL.iter().all(|&f| {
        board.role_at(Square::from_coords(f, Rank::First))
            == board.role_at(Square::from_coords(f, Rank::Eighth))
    });
    let mut why960 = Vec::new();
    if mirrored {
        let bishops = board.bishops() & board.white();
        if bishops
            .into_iter()
            .map(|sq| sq.is_light())
            .collect::<Vec<_>>()
            .windows(2)
            .all(|w| w[0] == w[1])
        {
            why960.push("both bishops stand on squares of one colour");
        }
        let king = (board.kings() & board.white()).first().map(|sq| sq.file());
        let rooks: Vec<File> = (board.rooks() & board.white())
            .into_iter()
            .map(|sq| sq.file())
            .collect();
        if let (Some(k), [a, b]) = (king, rooks.as_slice())
            && !(a.min(b) < &k && &k < a.max(b))
        {
            why960.push("the king does not stand between the rooks");
        }
    }
    let mut what = format!("not the initial position: {}", faults.join("; "));
    if !why960.is_empty() {
        what.push_str(&format!(
            "; not a Chess960 start either: {}",
            why960.join(" and ")
        ));
    }
    let right = |c: Color, rook_file: File, letter: char| {
        let king = Square::from_coords(File::E, first(c));
        let rook = Square::from_coords(rook_file, first(c));
        (board.role_at(king) == Some(Role::King) && board.role_at(rook) == Some(Role::Rook))
            .then_some(if c.is_white() {
                letter.to_ascii_uppercase()
            } else {
                letter
            })
    };
    let rights: String = [
        right(Color::White, File::H, 'k'),
        right(Color::White, File::A, 'q'),
        right(Color::Black, File::H, 'k'),
        right(Color::Black, File::A, 'q'),
    ]
    .into_iter()
    .flatten()
    .collect();
    let rights = if rights.is_empty() {
        "-".to_string()
    } else {
        rights
    };
    // Two bishops on one colour with eight pawns read as "too much material" (a promotion
    // that cannot have happened): here it is only a set-up error.
    let pos = format!("{board} w {rights} - 0 1")
        .parse::<Fen>()
        .ok()?
        .into_position::<Chess>(CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .ok()?;
    Some((pos, what))
}

/// A piece's name ("knight").
pub fn role_name(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// A piece's name with its article: "the" for the one king and queen of a set-up.
fn role_word(r: Role) -> String {
    let article = if matches!(r, Role::King | Role::Queen) {
        "the"
    } else {
        "a"
    };
    format!("{article} {}", role_name(r))
}

/// Why a FEN given by an operator gives no position to play from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("not a FEN: {0}")]
    Syntax(String),
    #[error("not a legal position: {0}")]
    Position(String),
}

/// Builds a position from a FEN given by an operator; the castling mode follows the FEN.
pub fn position_from_fen(text: &str) -> Result<(Chess, CastlingMode), FenError> {
    let f: Fen = text
        .trim()
        .parse()
        .map_err(|e: shakmaty::fen::ParseFenError| FenError::Syntax(e.to_string()))?;
    let standard = f.clone().into_position::<Chess>(CastlingMode::Standard);
    match standard {
        Ok(p) => Ok((p, CastlingMode::Standard)),
        Err(_) => f
            .into_position::<Chess>(CastlingMode::Chess960)
            .map(|p| (p, CastlingMode::Chess960))
            .map_err(|e| FenError::Position(e.to_string())),
    }
}

/// The position `pos` changed by hand (`edit` on its setup), not by a move: a piece taken
/// off for a promotion on the other bughouse board, a pawn lost with its promotion. More
/// material than one set, a check no move explains, castling rights or an en-passant square
/// the change made void are accepted; `None` for what cannot stand at all (the side not to
/// move in check, a king missing).
pub fn edited(pos: &Chess, mode: CastlingMode, edit: impl FnOnce(&mut Setup)) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    edit(&mut setup);
    Chess::from_setup(setup, mode)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
        .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
        .ok()
}

/// A formally illegal move, described by the piece that left one square for another.
#[derive(Debug, Clone, PartialEq)]
pub struct IllegalStep {
    pub mv: Move,
    pub uci: String,
    /// Long algebraic ("Nb8-b5", "Qd1xh7"): no SAN exists for an illegal move.
    pub san: String,
}

/// Describes the illegal move from `before` to `shown` by `mover`: the one piece of the mover
/// that vanished from a square and the square where a piece of that kind appeared.
pub fn illegal_step(before: &Board, shown: &Board, mover: Color) -> Option<IllegalStep> {
    let d = diff(before, shown);
    let from = d
        .into_iter()
        .find(|&sq| before.color_at(sq) == Some(mover) && shown.color_at(sq) != Some(mover))?;
    let piece = before.piece_at(from)?;
    let to = d
        .into_iter()
        .find(|&sq| sq != from && shown.color_at(sq) == Some(mover))?;
    let arrived = shown.piece_at(to)?;
    let capture = before.piece_at(to).map(|p| p.role);
    let promotion = (arrived.role != piece.role).then_some(arrived.role);
    let mv = Move::Normal {
        role: piece.role,
        from,
        capture,
        to,
        promotion,
    };
    let letter = |r: Role| {
        if r == Role::Pawn {
            String::new()
        } else {
            r.upper_char().to_string()
        }
    };
    let san = format!(
        "{}{from}{}{to}{}",
        letter(piece.role),
        if capture.is_some() { "x" } else { "-" },
        promotion
            .map(|r| format!("={}", r.upper_char()))
            .unwrap_or_default()
    );
    let uci = format!(
        "{from}{to}{}",
        promotion.map(|r| r.char().to_string()).unwrap_or_default()
    );
    Some(IllegalStep { mv, uci, san })
}

/// Whether `step` alone turns `before` into `shown` (no other square changed).
pub fn step_explains(before: &Board, step: &IllegalStep, shown: &Board) -> bool {
    let Move::Normal {
        role,
        from,
        to,
        promotion,
        ..
    } = step.mv
    else {
        return false;
    };
    let Some(color) = before.color_at(from) else {
        return false;
    };
    let mut b = before.clone();
    b.discard_piece_at(from);
    b.set_piece_at(
        to,
        Piece {
            color,
            role: promotion.unwrap_or(role),
        },
    );
    &b == shown
}

/// The position an illegal move left, with the opponent to move: castling rights kept where
/// king and rook still stand, no en passant. A move that left the mover's own king in check
/// gives a position shakmaty will not set up ("opposite check"); it is then reached by playing
/// the illegal step on `before` unchecked, since tracking must go on from such a formally
/// illegal position when nobody restores it (A.4.2 / A.5.2). The same for a pawn left on its
/// last rank (it has no move from there). `None` when no position can be
/// built from it (a king missing, or the board not explained by one piece moving).
pub fn position_after_illegal(before: &Chess, shown: &Board, mode: CastlingMode) -> Option<Chess> {
    let mut setup = before.to_setup(EnPassantMode::Legal);
    setup.board = shown.clone();
    setup.turn = !before.turn();
    setup.ep_square = None;
    setup.halfmoves = 0;
    if setup.turn.is_white() {
        setup.fullmoves = setup.fullmoves.saturating_add(1);
    }
    match Chess::from_setup(setup, mode)
        // Bughouse boards hold more than one set's pieces (drops).
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
    {
        Ok(p) => Some(p),
        Err(e)
            if e.kinds().intersects(
                PositionErrorKinds::OPPOSITE_CHECK | PositionErrorKinds::PAWNS_ON_BACKRANK,
            ) && Color::ALL.iter().all(|&c| shown.king_of(c).is_some()) =>
        {
            let step = illegal_step(before.board(), shown, before.turn())?;
            let mut after = before.clone();
            after.play_unchecked(step.mv);
            (after.board() == shown).then_some(after)
        }
        Err(_) => None,
    }
}

/// A result signalled on the board (protocol §4.5): both kings on the four centre squares
/// (both on light squares e4/d5 = 1-0, both dark d4/e5 = 0-1, mixed = draw), or a magic
/// piece (13 draw, 14 White wins, 15 Black wins).
pub fn result_gesture(p: &Placement) -> Option<(&'static str, String)> {
    use dgt_protocol::DgtPiece;
    if let Some((sq, piece)) = p.magic.first() {
        let result = match piece {
            DgtPiece::MagicWhiteWins => "1-0",
            DgtPiece::MagicBlackWins => "0-1",
            _ => "1/2-1/2",
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
        (true, true) => "1-0",
        (false, false) => "0-1",
        _ => "1/2-1/2",
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
            "1-0"
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
            "1/2-1/2"
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
