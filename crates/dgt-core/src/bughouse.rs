//! Bughouse ("doorgeefschaak"): two boards, two teams of two, captured pieces passed to the
//! partner and dropped. Not FIDE: a club or federation regulation decides, on top of the FIDE
//! articles it imports (L05 §2: DJC Stein, after the KNSB regulation of 2000; L17
//! §3.17: the Flemish regulation, FIDE blitz rules underneath).
//!
//! The pairing (1.1–1.4): on the first board of a match team A has White, on the second Black,
//! so partners play opposite colours and a piece of colour C captured on one board is dropped
//! by the player of colour C on the other. The board cannot see a hand-over (2.1), so what a
//! player may drop is an upper bound: what left the partner board, less what he dropped.
//!
//! This module holds the regulation's data and the pure judgements (drops, mates a drop could
//! lift, the match score); `session.rs` applies them and `engine.rs` carries each board's
//! [`PartnerView`] to the other.

use serde::{Deserialize, Serialize};
use shakmaty::{
    Bitboard, ByColor, ByRole, Chess, Color, Move, Piece, Position, Role, Square, attacks,
};

use crate::article::Article;
use crate::outcome::GameResult;
use crate::reconstruct::Game;
use crate::snapshot_as::*;

/// One bughouse match: two boards and the regulation they play under.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BughouseMatch {
    /// The two board labels. Team A has White on the first and Black on the second (1.4).
    pub boards: [String; 2],
    pub rules: Regulation,
    /// Whose rank numbering the drop-rank articles use (L05 §2.3 #1): the dropping player's
    /// own (`relative`, default) or the board's (`absolute`, FIDE's numbering).
    pub drop_ranks: RankReading,
    /// How far apart the two clocks may be started before it is reported (6.4), ms.
    pub clock_start_tolerance_ms: u64,
}

impl Default for BughouseMatch {
    fn default() -> Self {
        BughouseMatch {
            boards: Default::default(),
            rules: Regulation::default(),
            drop_ranks: RankReading::default(),
            clock_start_tolerance_ms: 1000,
        }
    }
}

/// The bughouse regulations the daemon knows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Regulation {
    /// DJC Stein: pawns not dropped on ranks 1, 7, 8 (2.5), pieces not on 8
    /// (2.6); no drop gives check (2.4); promotion takes a piece from the other board (3.1);
    /// mate and stalemate provisional while the other game runs (5.4, 5.5); own flag rules
    /// (5.6, 5.8); illegal moves accepted or taken back, no penalty (7.4–7.6, 10.3).
    #[default]
    DjcStein,
    /// The KNSB regulation of 2000 as far as it is known (L05 §2.1): DJC's rules but pawns
    /// only kept off ranks 1 and 8 and no piece-rank rule. Named `knsb-2000` as the
    /// documentation writes it (kebab-case alone would give `knsb2000`, still read).
    #[serde(rename = "knsb-2000", alias = "knsb2000")]
    Knsb2000,
    /// The Flemish regulation (L17 §3.17): FIDE blitz rules underneath; pawns not on the
    /// first or last rank, drops may give check (5.c); no mate while a drop could block the
    /// check (6.d); a mate counts when claimed (6.f); a team wins with either board (5.d).
    Flemish,
}

/// How the drop-rank articles number the ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankReading {
    /// From the dropping player's side: his first rank is where his pieces start.
    #[default]
    Relative,
    /// FIDE's numbering (ranks 1–8 from White's side) for both players.
    Absolute,
}

impl Regulation {
    /// The name alerts give as their `edition`.
    pub fn name(self) -> &'static str {
        match self {
            Regulation::DjcStein => "bughouse-djc-stein",
            Regulation::Knsb2000 => "bughouse-knsb-2000",
            Regulation::Flemish => "bughouse-flemish",
        }
    }

    /// The playing time when the organiser sets none: 7 minutes (DJC 6.3), 5 (Flemish 3).
    /// The KNSB 2000 text on time is not known; DJC's is used.
    pub fn default_time_control(self) -> &'static str {
        match self {
            Regulation::Flemish => "300",
            _ => "420",
        }
    }

    /// The article on the playing time.
    pub fn time_article(self) -> Article {
        Article::new(match self {
            Regulation::Flemish => "3",
            _ => "6.3",
        })
    }

    /// The Flemish regulation keeps the FIDE blitz rules for flags and illegal moves.
    pub fn fide_underneath(self) -> bool {
        self == Regulation::Flemish
    }

    fn pawn_rank_forbidden(self, rank: u8) -> bool {
        match self {
            Regulation::DjcStein => matches!(rank, 1 | 7 | 8),
            Regulation::Knsb2000 | Regulation::Flemish => matches!(rank, 1 | 8),
        }
    }

    fn piece_rank_forbidden(self, rank: u8) -> bool {
        self == Regulation::DjcStein && rank == 8
    }

    fn drop_may_check(self) -> bool {
        self == Regulation::Flemish
    }

    /// The article a drop fault breaks.
    pub fn article(self, fault: DropFault) -> Article {
        Article::new(match (self, fault) {
            (Regulation::Flemish, DropFault::OwnKingInCheck) => "3.9",
            (Regulation::Flemish, _) => "5.c",
            (_, DropFault::NotAvailable) => "2.2",
            (_, DropFault::Occupied) => "2.3",
            (_, DropFault::GivesCheck) => "2.4",
            (_, DropFault::PawnRank(_)) => "2.5",
            (_, DropFault::PieceRank(_)) => "2.6",
            (_, DropFault::OwnKingInCheck) => "1.5 (FIDE 3.9)",
        })
    }

    /// Articles of the end rules.
    pub fn mate_article(self) -> Article {
        Article::new(match self {
            Regulation::Flemish => "6.f",
            _ => "5.4",
        })
    }
}

/// Why a drop breaks the regulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropFault {
    /// No such piece left the partner board (or the player dropped them all already).
    NotAvailable,
    /// Dropped on an occupied square (a drop cannot capture).
    Occupied,
    /// The drop checks the opponent's king.
    GivesCheck,
    /// A pawn on a forbidden rank (the rank as the regulation numbers it).
    PawnRank(u8),
    /// A piece on a forbidden rank.
    PieceRank(u8),
    /// The dropper's own king stays in check.
    OwnKingInCheck,
}

impl DropFault {
    pub fn words(self) -> String {
        match self {
            DropFault::NotAvailable => {
                "no such piece left the partner board for him (the hand-over cannot be seen: the count is an upper bound)".into()
            }
            DropFault::Occupied => "a drop must be made on an empty square".into(),
            DropFault::GivesCheck => "a drop may not give check".into(),
            DropFault::PawnRank(r) => format!("a pawn may not be dropped on rank {r}"),
            DropFault::PieceRank(r) => format!("a piece may not be dropped on rank {r}"),
            DropFault::OwnKingInCheck => "it leaves his own king in check".into(),
        }
    }
}

/// Counts of pieces per role: a reserve, what may be dropped (2.2).
pub type Reserve = ByRole<u8>;

/// Counts of pieces per colour and role.
pub type Pieces = ByColor<Reserve>;

/// What one board tells its partner board.
#[serde_with::serde_as]
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PartnerView {
    /// Pieces that left the board into the players' hands, by their colour: captured there,
    /// or a pawn that promoted there (the opponent receives it, 3.2). A piece of colour C is
    /// the partner board's player of colour C's to drop.
    #[serde_as(as = "ByColorAs<ByRoleAs>")]
    pub released: Pieces,
    /// Pieces the board's promotions took from the partner board (3.1), by colour.
    #[serde_as(as = "ByColorAs<ByRoleAs>")]
    pub taken: Pieces,
    /// Pieces captured by a move the board shows but whose clock press has not come yet:
    /// the captured piece may already be in the partner's hand (DJC 2.1 has no condition;
    /// Flemish 5.b / 6.b: only after the press).
    #[serde_as(as = "ByColorAs<ByRoleAs>")]
    pub released_unpressed: Pieces,
    /// The game there has ended (its result). Until then — also before it began — pieces
    /// may still come from there.
    pub ended: Option<crate::outcome::GameResult>,
    /// When its clock was first seen running for a game from the initial position (6.4).
    pub clock_started: Option<u64>,
    /// The pieces standing there now, by colour (what a promotion here could take, 3.1).
    #[serde_as(as = "ByColorAs<ByRoleAs>")]
    pub pieces: Pieces,
    /// A pawn of the player on move there has left its seventh rank and no move is read
    /// yet: a promotion under way, which takes a piece of that colour from the partner
    /// board (3.1) — possibly before it is completed there.
    #[serde_as(as = "Option<ColorAs>")]
    pub promoting: Option<Color>,
}

impl PartnerView {
    /// The view of a board's game (or of a board with none).
    pub fn of(game: Option<&Game>) -> PartnerView {
        let mut v = PartnerView::default();
        let Some(g) = game else { return v };
        v.ended = g.result.map(|(r, _)| r);
        for (k, played) in g.moves.iter().enumerate() {
            let mover = g.positions[k].turn();
            if let Some(role) = played.mv.capture() {
                *v.released[!mover].get_mut(role) += 1;
            }
            if let Some(role) = played.mv.promotion() {
                *v.taken[mover].get_mut(role) += 1;
                v.released[mover].pawn += 1;
            } else if forfeited_promotion(&played.mv) {
                // 3.1: no piece to take, the pawn is lost; whether it still goes to the
                // opponent (3.2) is not said — counted, as the reserve is an upper bound.
                v.released[mover].pawn += 1;
            }
        }
        let board = g.current().board();
        for color in Color::ALL {
            for role in Role::ALL {
                *v.pieces[color].get_mut(role) =
                    (board.by_color(color) & board.by_role(role)).count() as u8;
            }
        }
        v
    }

    /// Adds the captures of moves shown on the board but not completed yet.
    pub fn with_unpressed(mut self, from: &Chess, shown: &[Move]) -> PartnerView {
        let mut pos = from.clone();
        for m in shown {
            let mover = pos.turn();
            if let Some(role) = m.capture() {
                *self.released_unpressed[!mover].get_mut(role) += 1;
            }
            pos.play_unchecked(*m);
        }
        self
    }

    /// What may come from this board to the player of `color` on the partner board: the
    /// completed moves' pieces and, with `unpressed`, those of a capture not yet pressed.
    pub fn released_to(&self, color: Color, unpressed: bool) -> Reserve {
        let mut r = self.released[color];
        if unpressed {
            for (n, extra) in r.iter_mut().zip(self.released_unpressed[color]) {
                *n += extra;
            }
        }
        r
    }
}

/// A pawn move to the last rank without a new piece: a promotion forfeited because the other
/// board had no piece to take (DJC 3.1), as the game records it.
pub fn forfeited_promotion(m: &Move) -> bool {
    matches!(m, Move::Normal { role: Role::Pawn, to, promotion: None, .. } if Bitboard::BACKRANKS.contains(*to))
}

/// Whether a board with these pieces has a queen, rook, bishop or knight of `color` for a
/// promotion on the other board to take (3.1).
pub fn has_piece_to_take(pieces: &Pieces, color: Color) -> bool {
    [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .iter()
        .any(|r| *pieces[color].get(*r) > 0)
}

/// The pieces of `color` dropped in `game` (its first `plies` plies).
fn dropped(game: &Game, plies: usize, color: Color) -> Reserve {
    let mut n = Reserve::default();
    for (k, played) in game.moves.iter().take(plies).enumerate() {
        if let Move::Put { role, .. } = played.mv
            && game.positions[k].turn() == color
        {
            *n.get_mut(role) += 1;
        }
    }
    n
}

/// What `color` may still drop on this board after `plies` plies: the upper bound of 2.2,
/// with or without the pieces of a capture on the partner board not yet pressed.
pub fn reserve(
    partner: &PartnerView,
    game: &Game,
    plies: usize,
    color: Color,
    unpressed: bool,
) -> Reserve {
    let used = dropped(game, plies, color);
    let mut r = partner.released_to(color, unpressed);
    for (have, gone) in r.iter_mut().zip(used) {
        *have = have.saturating_sub(gone);
    }
    r
}

/// The reserve as FEN letters, queens first ("QNNP"; lower case for Black).
pub fn reserve_letters(r: &Reserve, color: Color) -> String {
    [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ]
    .iter()
    .flat_map(|role| std::iter::repeat_n(role.of(color).char(), usize::from(*r.get(*role))))
    .collect()
}

/// The reserve in words ("2 knights, 1 pawn"), for the evidence.
pub fn reserve_words(r: &Reserve) -> String {
    let parts: Vec<String> = Role::ALL
        .iter()
        .filter(|role| *r.get(**role) > 0)
        .map(|role| format!("{} {}", r.get(*role), crate::reconstruct::role_name(*role)))
        .collect();
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(", ")
    }
}

/// The rank of `sq` as the regulation numbers it for `color`.
fn rank_for(sq: Square, color: Color, reading: RankReading) -> u8 {
    let r = u32::from(sq.rank()) as u8 + 1;
    match (reading, color) {
        (RankReading::Relative, Color::Black) => 9 - r,
        _ => r,
    }
}

/// The faults of dropping `role` on `to` from `before` (the dropper is on move).
pub fn judge_drop(
    before: &Chess,
    role: Role,
    to: Square,
    reg: Regulation,
    reading: RankReading,
    available: &Reserve,
) -> Vec<DropFault> {
    let me = before.turn();
    let mut faults = Vec::new();
    if *available.get(role) == 0 {
        faults.push(DropFault::NotAvailable);
    }
    if before.board().piece_at(to).is_some() {
        faults.push(DropFault::Occupied);
    }
    let rank = rank_for(to, me, reading);
    if role == Role::Pawn && reg.pawn_rank_forbidden(rank) {
        faults.push(DropFault::PawnRank(rank));
    } else if role != Role::Pawn && reg.piece_rank_forbidden(rank) {
        faults.push(DropFault::PieceRank(rank));
    }
    let mut board = before.board().clone();
    board.set_piece_at(to, Piece { color: me, role });
    if !reg.drop_may_check() && gives_check(&board, to) {
        faults.push(DropFault::GivesCheck);
    }
    if king_attacked(&board, me) {
        faults.push(DropFault::OwnKingInCheck);
    }
    faults
}

/// Whether the piece on `sq` attacks the enemy king.
fn gives_check(board: &shakmaty::Board, sq: Square) -> bool {
    let Some(p) = board.piece_at(sq) else {
        return false;
    };
    let Some(king) = board.king_of(!p.color) else {
        return false;
    };
    attacks::attacks(sq, p, board.occupied()).contains(king)
}

fn king_attacked(board: &shakmaty::Board, color: Color) -> bool {
    board
        .king_of(color)
        .is_some_and(|k| board.attacks_to(k, !color, board.occupied()).any())
}

/// Squares where a drop would stand between the king of the player on move and the one piece
/// checking it along a line (none for a contact check or a double check).
pub fn interpositions(pos: &Chess) -> Bitboard {
    let me = pos.turn();
    let Some(king) = pos.board().king_of(me) else {
        return Bitboard::EMPTY;
    };
    let checkers = pos.checkers();
    match checkers.single_square() {
        Some(c) => attacks::between(c, king) & !pos.board().occupied(),
        None => Bitboard::EMPTY,
    }
}

/// Whether the player on move has a drop the regulation allows from `available`.
pub fn has_legal_drop(
    pos: &Chess,
    reg: Regulation,
    reading: RankReading,
    available: &Reserve,
) -> bool {
    let empty = !pos.board().occupied();
    let targets = if pos.is_check() {
        interpositions(pos)
    } else {
        empty
    };
    Role::ALL
        .iter()
        .filter(|r| *available.get(**r) > 0)
        .any(|role| {
            targets
                .into_iter()
                .any(|sq| judge_drop(pos, *role, sq, reg, reading, available).is_empty())
        })
}

/// How the position stands for the player on move, as the regulation reads mate and
/// stalemate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Standing {
    Play,
    Mated,
    Stalemated,
}

/// Mate and stalemate with drops: no board move and no drop the player could make from his
/// reserve (DJC, KNSB); for the Flemish regulation a check along a line with an empty square
/// between is no mate even without a reserve (6.d).
pub fn standing(
    pos: &Chess,
    reg: Regulation,
    reading: RankReading,
    available: &Reserve,
) -> Standing {
    if !crate::reconstruct::legal_moves(pos).is_empty() {
        return Standing::Play;
    }
    if pos.is_check() {
        if reg == Regulation::Flemish && interpositions(pos).any() {
            return Standing::Play;
        }
        if has_legal_drop(pos, reg, reading, available) {
            return Standing::Play;
        }
        return Standing::Mated;
    }
    if has_legal_drop(pos, reg, reading, available) {
        Standing::Play
    } else {
        Standing::Stalemated
    }
}

/// The match score from the two results (8.2: the sum; team A has White on the first
/// board and Black on the second).
pub fn score(first: GameResult, second: GameResult) -> (f32, f32) {
    let (w1, b1) = first.points();
    let (w2, b2) = second.points();
    (w1 + b2, b1 + w2)
}

/// A score as the arbiter writes it: 1½.
pub fn points(p: f32) -> String {
    let whole = p.floor() as u32;
    match (whole, p.fract() > 0.0) {
        (0, true) => "½".into(),
        (w, true) => format!("{w}½"),
        (w, false) => w.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        crate::reconstruct::position_from_fen(fen).unwrap().0
    }

    const P2: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 1 2";
    const KNIGHT: Reserve = ByRole {
        pawn: 0,
        knight: 1,
        bishop: 0,
        rook: 0,
        queen: 0,
        king: 0,
    };
    const PAWN: Reserve = ByRole {
        pawn: 1,
        knight: 0,
        bishop: 0,
        rook: 0,
        queen: 0,
        king: 0,
    };

    fn faults(fen: &str, role: Role, sq: Square, reg: Regulation, r: &Reserve) -> Vec<DropFault> {
        judge_drop(&pos(fen), role, sq, reg, RankReading::Relative, r)
    }

    #[test]
    fn drops_judged_as_the_regulations_word_them() {
        let dj = Regulation::DjcStein;
        // B01: N@h3 legal; B02: no bishop to drop; B03: N@f3 checks e1.
        assert!(faults(P2, Role::Knight, Square::H3, dj, &KNIGHT).is_empty());
        assert_eq!(
            faults(P2, Role::Bishop, Square::H3, dj, &KNIGHT),
            [DropFault::NotAvailable]
        );
        assert_eq!(
            faults(P2, Role::Knight, Square::F3, dj, &KNIGHT),
            [DropFault::GivesCheck]
        );
        // The Flemish regulation allows the check (5.c, T52 c).
        assert!(faults(P2, Role::Knight, Square::F3, Regulation::Flemish, &KNIGHT).is_empty());
        // B04: a black pawn on e2 is on Black's 7th rank; on e7 his 2nd.
        assert_eq!(
            faults(P2, Role::Pawn, Square::E2, dj, &PAWN),
            [DropFault::PawnRank(7)]
        );
        assert!(faults(P2, Role::Pawn, Square::E7, dj, &PAWN).is_empty());
        assert!(faults(P2, Role::Pawn, Square::E2, Regulation::Knsb2000, &PAWN).is_empty());
        let absolute = judge_drop(
            &pos(P2),
            Role::Pawn,
            Square::E7,
            dj,
            RankReading::Absolute,
            &PAWN,
        );
        assert_eq!(absolute, [DropFault::PawnRank(7)]);
        // B05: a black knight on b1 is on Black's 8th rank (club 2.6).
        assert_eq!(
            faults(P2, Role::Knight, Square::B1, dj, &KNIGHT),
            [DropFault::PieceRank(8)]
        );
        assert!(faults(P2, Role::Knight, Square::B1, Regulation::Knsb2000, &KNIGHT).is_empty());
        // B06: after 2.Bb5+ a knight may block on c6 or d7, not land on h6.
        let check = "rnbqkbnr/ppp1pppp/8/1B1p4/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2";
        assert!(faults(check, Role::Knight, Square::C6, dj, &KNIGHT).is_empty());
        assert!(faults(check, Role::Knight, Square::D7, dj, &KNIGHT).is_empty());
        assert_eq!(
            faults(check, Role::Knight, Square::H6, dj, &KNIGHT),
            [DropFault::OwnKingInCheck]
        );
        assert_eq!(
            faults(P2, Role::Knight, Square::E5, dj, &KNIGHT),
            [DropFault::Occupied]
        );
    }

    #[test]
    fn mate_and_stalemate_with_drops() {
        let dj = Regulation::DjcStein;
        let none = Reserve::default();
        // B09: a back-rank mate; a knight in reserve blocks on f8 (a black piece on Black's
        // own first rank is allowed).
        let mate = "4R2k/6pp/8/8/8/8/8/6K1 b - - 0 1";
        assert_eq!(
            standing(&pos(mate), dj, RankReading::Relative, &none),
            Standing::Mated
        );
        assert_eq!(
            standing(&pos(mate), dj, RankReading::Relative, &KNIGHT),
            Standing::Play
        );
        // A pawn cannot block on Black's 1st rank.
        assert_eq!(
            standing(&pos(mate), dj, RankReading::Relative, &PAWN),
            Standing::Mated
        );
        // Flemish 6.d: an empty square between is no mate, reserve or not.
        assert_eq!(
            standing(
                &pos(mate),
                Regulation::Flemish,
                RankReading::Relative,
                &none
            ),
            Standing::Play
        );
        // T53 (b): a knight's check cannot be blocked.
        let smothered = "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1";
        assert_eq!(
            standing(
                &pos(smothered),
                Regulation::Flemish,
                RankReading::Relative,
                &none
            ),
            Standing::Mated
        );
        // B10: stalemate, lifted by a pawn to drop.
        let stale = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
        assert_eq!(
            standing(&pos(stale), dj, RankReading::Relative, &none),
            Standing::Stalemated
        );
        assert_eq!(
            standing(&pos(stale), dj, RankReading::Relative, &PAWN),
            Standing::Play
        );
    }

    #[test]
    fn drops_are_read_and_a_dropped_pawn_may_step_two_squares() {
        use crate::reconstruct::{Interpretation, interpret};
        let mut g = Game::new(
            "g".into(),
            pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
            CastlingMode::Standard,
        );
        let mut shown = g.current().board().clone();
        shown.set_piece_at(Square::D2, Color::White.pawn());
        // Without drops nothing explains a piece more; with them it is P@d2.
        assert_eq!(interpret(&g, &shown, 2), Interpretation::Unexplained);
        g.drops = true;
        let put = Move::Put {
            role: Role::Pawn,
            to: Square::D2,
        };
        assert_eq!(interpret(&g, &shown, 2), Interpretation::Ahead(vec![put]));
        g.push(put, 0, (None, None));
        assert_eq!(g.moves[0].san, "P@d2");
        g.push(
            Move::Normal {
                role: Role::King,
                from: Square::E8,
                capture: None,
                to: Square::E7,
                promotion: None,
            },
            0,
            (None, None),
        );
        // A dropped pawn on its own second rank may advance two squares: FIDE 3.7 holds for any
        // pawn there.
        let mut after = g.current().board().clone();
        after.discard_piece_at(Square::D2);
        after.set_piece_at(Square::D4, Color::White.pawn());
        match interpret(&g, &after, 2) {
            Interpretation::Ahead(path) => assert_eq!(path[0].to_string(), "d2-d4"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reserves_as_letters() {
        let white = ByRole {
            pawn: 1,
            knight: 2,
            queen: 1,
            ..Reserve::default()
        };
        let black = ByRole {
            bishop: 1,
            ..Reserve::default()
        };
        assert_eq!(reserve_letters(&white, Color::White), "QNNP");
        assert_eq!(reserve_letters(&black, Color::Black), "b");
    }

    #[test]
    fn the_score_adds_both_games() {
        // B20: board 1 1-0, board 2 drawn: team A 1½ – ½.
        use GameResult::*;
        assert_eq!(score(WhiteWins, Drawn), (1.5, 0.5));
        assert_eq!(score(BlackWins, WhiteWins), (0.0, 2.0));
        assert_eq!(
            (points(1.5), points(0.5), points(2.0)),
            ("1½".into(), "½".into(), "2".into())
        );
    }
}
