//! Bughouse matches played the way people play them, on two emulated boards with clocks:
//! drops made quickly, a piece captured the moment it lands (often by a piece that just
//! landed itself), captures with either piece lifted first, en passant with the captured
//! pawn lifted last, promotions that take their piece from the partner board while pieces
//! are in hand there. The drop rules are this module's own reading of the three regulations
//! (DJC Stein, KNSB 2000, Flemish), apart from the core's, so `verify --bughouse` checks one
//! against the other.
//!
//! Each board reports what its scan sees: a change shorter than a scan is never reported,
//! and the squares changed within one scan arrive together (protocol §1.1).

use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position, Role, Square,
};

use crate::prng::Prng;

/// The two boards' labels: team A has White on the first and Black on the second.
pub const MATCH_BOARDS: [&str; 2] = ["1", "2"];

/// How long one scan of the 64 squares takes (ms).
const SCAN_MS: u64 = 220;

/// The drop rules of a regulation, as this generator reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropRules {
    /// Pawns not on their own first, seventh or eighth rank; pieces not on the eighth; no
    /// drop gives check.
    DjcStein,
    /// Pawns not on the first or last rank; no drop gives check.
    Knsb2000,
    /// Pawns not on the first or last rank; drops may give check.
    Flemish,
}

impl DropRules {
    pub const ALL: [DropRules; 3] = [DropRules::DjcStein, DropRules::Knsb2000, DropRules::Flemish];

    /// The name the settings give the regulation.
    pub fn setting_name(self) -> &'static str {
        match self {
            DropRules::DjcStein => "djc-stein",
            DropRules::Knsb2000 => "knsb-2000",
            DropRules::Flemish => "flemish",
        }
    }

    fn allows(self, pos: &Chess, role: Role, to: Square) -> bool {
        let me = pos.turn();
        if pos.board().piece_at(to).is_some() || role == Role::King {
            return false;
        }
        // The dropping player's own rank numbering.
        let rank = if me.is_white() {
            to.rank() as u32 + 1
        } else {
            8 - to.rank() as u32
        };
        let rank_ok = match (self, role) {
            (DropRules::DjcStein, Role::Pawn) => !matches!(rank, 1 | 7 | 8),
            (DropRules::DjcStein, _) => rank != 8,
            (_, Role::Pawn) => !matches!(rank, 1 | 8),
            _ => true,
        };
        if !rank_ok {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(Move::Put { role, to });
        // The own king not left in check, and (but for Flemish) the opponent's not given it.
        let attacked = |p: &Chess, king_of: Color| {
            p.board()
                .king_of(king_of)
                .is_none_or(|k| p.king_attackers(k, !king_of, p.board().occupied()).any())
        };
        !attacked(&after, me) && (self == DropRules::Flemish || !attacked(&after, !me))
    }
}

/// One emulated bughouse match: what each board's line carried, with its time, and what was
/// really played on it (UCI, drops as `N@h3`).
#[derive(Debug, Clone, Default)]
pub struct GeneratedMatch {
    pub traffic: [Vec<(u64, Vec<u8>)>; 2],
    pub played: [Vec<String>; 2],
    /// Captures of a piece dropped on the ply before, promotions taking a piece from the
    /// partner board, drops: how often the match did what this generator is for.
    pub captures_of_dropped: usize,
    pub promotions: usize,
    /// Promotions whose piece left the partner board while a move there was still being
    /// made or pressed (the piece lifted before the partner's press came).
    pub promotions_mid_move: usize,
    /// Promotions whose piece left the partner board while a player there held pieces to
    /// drop.
    pub promotions_with_reserve: usize,
    pub drops: usize,
}

/// The reserve of each colour on a board: what its player of that colour may drop, each
/// piece with the time it was handed over (the capture's press on the partner board).
type Hand = [Vec<(u64, Role)>; 2];

const DROP_ROLES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

fn side(c: Color) -> usize {
    usize::from(c.is_black())
}

struct Table {
    pos: Chess,
    hand: Hand,
    /// The raw changes of the squares: (t, square, DGT code, 0 = empty).
    changes: Vec<(u64, Square, u8)>,
    clock_frames: Vec<(u64, Vec<u8>)>,
    /// Remaining ms per colour, and since when the running side's clock runs.
    left: [u64; 2],
    running_since: u64,
    free_at: u64,
    last_drop: Option<Square>,
    over: bool,
}

/// The DGT code of a piece.
fn code(role: Role, color: Color) -> u8 {
    let white = match role {
        Role::Pawn => 1,
        Role::Rook => 2,
        Role::Knight => 3,
        Role::Bishop => 4,
        Role::King => 5,
        Role::Queen => 6,
    };
    if color.is_white() { white } else { white + 6 }
}

/// The board's square number (a8 = 0).
fn phys(sq: Square) -> u8 {
    (7 - sq.rank() as u8) * 8 + sq.file() as u8
}

fn clock_frame(white_ms: u64, black_ms: u64, running: Option<Color>) -> Vec<u8> {
    let enc = |ms: u64| {
        let s = ms / 1000;
        let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
        [
            (h % 10) as u8,
            (((m / 10) << 4) | (m % 10)) as u8,
            (((sec / 10) << 4) | (sec % 10)) as u8,
        ]
    };
    // White on the left display; the right one runs for Black.
    let status = match running {
        None => 0x00,
        Some(Color::White) => 0x09,
        Some(Color::Black) => 0x13,
    };
    let mut m = vec![0x8D, 0, 0x0A];
    m.extend(enc(black_ms));
    m.extend(enc(white_ms));
    m.push(status);
    m
}

impl Table {
    fn new(start: u64, minutes: u64) -> Table {
        let ms = minutes * 60_000;
        Table {
            pos: Chess::default(),
            hand: [Vec::new(), Vec::new()],
            changes: Vec::new(),
            clock_frames: vec![(start, clock_frame(ms, ms, Some(Color::White)))],
            left: [ms, ms],
            running_since: start,
            free_at: start + 600,
            last_drop: None,
            over: false,
        }
    }

    fn press(&mut self, t: u64) {
        let me = side(self.pos.turn());
        // The position already has the move: the side that pressed is the other one.
        let mover = 1 - me;
        let spent = t.saturating_sub(self.running_since);
        self.left[mover] = self.left[mover].saturating_sub(spent).max(1000);
        self.running_since = t;
        let running = self.pos.turn();
        self.clock_frames
            .push((t, clock_frame(self.left[0], self.left[1], Some(running))));
    }

    /// The drops the player on move may make, with what he was handed before `t`.
    fn drops(&self, rules: DropRules, t: u64) -> Vec<Move> {
        let me = self.pos.turn();
        let mut out = Vec::new();
        for role in DROP_ROLES.iter() {
            if !self.hand[side(me)]
                .iter()
                .any(|(at, r)| r == role && *at <= t)
            {
                continue;
            }
            for to in !self.pos.board().occupied() {
                if rules.allows(&self.pos, *role, to) {
                    out.push(Move::Put { role: *role, to });
                }
            }
        }
        out
    }
}

/// The position with the piece on `sq` taken off for a promotion on the partner board; none
/// when that would leave the side not to move in check (the generator avoids it).
fn without(pos: &Chess, sq: Square) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.board.discard_piece_at(sq);
    setup.castling_rights.discard(sq);
    Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
        .or_else(shakmaty::PositionError::ignore_invalid_ep_square)
        .ok()
}

/// Plays a match of up to `plies` plies in all from `seed` under `rules`.
pub fn generate_match(seed: u64, rules: DropRules, plies: usize) -> GeneratedMatch {
    let mut rng = Prng::stream(seed, 31);
    let mut tables = [Table::new(0, 5), Table::new(rng.range(0, 400), 5)];
    let mut out = GeneratedMatch::default();
    for _ in 0..plies {
        // The board whose player is free first moves next.
        let i = if tables[0].over {
            1
        } else if tables[1].over || tables[0].free_at <= tables[1].free_at {
            0
        } else {
            1
        };
        if tables[i].over {
            break;
        }
        let Some(uci) = play_one(&mut tables, i, rules, &mut rng, &mut out) else {
            tables[i].over = true;
            continue;
        };
        out.played[i].push(uci);
    }
    for (k, table) in tables.iter().enumerate() {
        out.traffic[k] = scanned(table, seed.wrapping_add(k as u64));
    }
    out
}

/// One ply on board `i`: chosen, made by hand (with the partner board's piece for a
/// promotion), pressed. The UCI of what was played.
fn play_one(
    tables: &mut [Table; 2],
    i: usize,
    rules: DropRules,
    rng: &mut Prng,
    out: &mut GeneratedMatch,
) -> Option<String> {
    let me = tables[i].pos.turn();
    let legal = tables[i].pos.legal_moves();
    let drops = tables[i].drops(rules, tables[i].free_at);
    // Promotions only to a piece of the mover's colour the partner board has and can give.
    let partner = &tables[1 - i].pos;
    let can_take = |role: Role| {
        (partner.board().by_color(me) & partner.board().by_role(role))
            .into_iter()
            .find(|&sq| without(partner, sq).is_some())
    };
    let plain: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| m.promotion().is_none_or(|r| can_take(r).is_some()))
        .collect();
    if plain.is_empty() && drops.is_empty() {
        return None;
    }
    // A piece just dropped, capturable: taken at once more often than not.
    let grab: Vec<Move> = plain
        .iter()
        .copied()
        .filter(|m| m.is_capture() && Some(m.to()) == tables[i].last_drop)
        .collect();
    let promote: Vec<Move> = plain.iter().copied().filter(|m| m.is_promotion()).collect();
    let m = if !grab.is_empty() && rng.chance(0.75) {
        out.captures_of_dropped += 1;
        *rng.pick(&grab)
    } else if !promote.is_empty() && rng.chance(0.8) {
        *rng.pick(&promote)
    } else if !drops.is_empty() && (plain.is_empty() || rng.chance(0.35)) {
        *rng.pick(&drops)
    } else {
        *rng.pick(&plain)
    };
    let quick = grab.contains(&m) || matches!(m, Move::Put { .. });
    let think = if quick {
        rng.range(150, 700)
    } else {
        rng.range(400, 2500)
    };
    let table = &mut tables[i];
    let mut t = table.free_at.max(table.running_since) + think;
    let step = |rng: &mut Prng| rng.range(80, 350);
    let put = |table: &mut Table, t: u64, sq: Square, c: u8| table.changes.push((t, sq, c));
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let victim_first = capture.is_some() && rng.chance(0.6);
            if victim_first {
                put(table, t, to, 0);
                t += step(rng);
            }
            put(table, t, from, 0);
            t += step(rng);
            if capture.is_some() && !victim_first {
                put(table, t, to, 0);
                t += step(rng);
            }
            if let Some(r) = promotion {
                // The piece comes from the partner board (3.1).
                let other = &mut tables[1 - i];
                let sq = (other.pos.board().by_color(me) & other.pos.board().by_role(r))
                    .into_iter()
                    .find(|&sq| without(&other.pos, sq).is_some())?;
                let mid_move = other.running_since > t || other.changes.iter().any(|c| c.0 > t);
                out.promotions_mid_move += usize::from(mid_move);
                out.promotions_with_reserve +=
                    usize::from(other.hand.iter().any(|h| h.iter().any(|(at, _)| *at <= t)));
                other.changes.push((t, sq, 0));
                other.pos = without(&other.pos, sq)?;
                other.free_at = other.free_at.max(t + 300);
                t += rng.range(300, 900);
                // The promoted pawn is the opponent's partner's... (3.2: counted as the
                // core counts it: a pawn of the promoting side's colour for the partner board).
                other.hand[side(me)].push((t + 1000, Role::Pawn));
                out.promotions += 1;
            }
            let table = &mut tables[i];
            put(table, t, to, code(promotion.unwrap_or(role), me));
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            if rng.chance(0.5) {
                put(table, t, taken, 0);
                t += step(rng);
                put(table, t, from, 0);
                t += step(rng);
                put(table, t, to, code(Role::Pawn, me));
            } else {
                put(table, t, from, 0);
                t += step(rng);
                put(table, t, to, code(Role::Pawn, me));
                t += step(rng);
                put(table, t, taken, 0);
            }
        }
        Move::Castle { king, rook } => {
            let castle = m.castling_side()?;
            put(table, t, king, 0);
            t += step(rng);
            put(table, t, castle.king_to(me), code(Role::King, me));
            t += step(rng);
            put(table, t, rook, 0);
            t += step(rng);
            put(table, t, castle.rook_to(me), code(Role::Rook, me));
        }
        Move::Put { role, to } => {
            put(table, t, to, code(role, me));
            let hand = &mut table.hand[side(me)];
            if let Some(k) = hand.iter().position(|(_, r)| *r == role) {
                hand.remove(k);
            }
            out.drops += 1;
        }
    }
    let table = &mut tables[i];
    t += rng.range(120, 450);
    let captured = m.capture();
    table.last_drop = match m {
        Move::Put { to, .. } => Some(to),
        _ => None,
    };
    table.pos.play_unchecked(m);
    table.press(t);
    table.free_at = t + rng.range(50, 200);
    // The captured piece goes to the partner board's player of its colour (1.4, 2.1).
    if let Some(role) = captured {
        tables[1 - i].hand[side(!me)].push((t, role));
    }
    Some(uci_of(&m))
}

fn uci_of(m: &Move) -> String {
    match *m {
        Move::Put { role, to } => format!("{}@{to}", role.upper_char()),
        _ => m.to_uci(CastlingMode::Standard).to_string(),
    }
}

/// What a board's line carries: the start dump, then per scan the squares that differ from
/// the last scan, and the clock frames.
fn scanned(table: &Table, seed: u64) -> Vec<(u64, Vec<u8>)> {
    let mut rng = Prng::stream(seed, 7);
    let mut squares = [0u8; 64];
    let start = Chess::default();
    for (sq, piece) in start.board().clone() {
        squares[usize::from(phys(sq))] = code(piece.role, piece.color);
    }
    let mut out = Vec::new();
    let mut dump = vec![0x86, 0, 0x43];
    dump.extend(squares);
    out.push((0, dump));
    let mut reported = squares;
    let mut changes = table.changes.clone();
    changes.sort_by_key(|c| c.0);
    let end = changes.last().map_or(0, |c| c.0) + 2 * SCAN_MS;
    let mut scan_at = rng.range(0, SCAN_MS);
    let mut k = 0;
    while scan_at <= end {
        while k < changes.len() && changes[k].0 <= scan_at {
            squares[usize::from(phys(changes[k].1))] = changes[k].2;
            k += 1;
        }
        for (n, (now, was)) in squares.iter().zip(reported.iter()).enumerate() {
            if now != was {
                out.push((scan_at + 5 + n as u64 / 8, vec![0x8E, 0, 5, n as u8, *now]));
            }
        }
        reported = squares;
        scan_at += SCAN_MS;
    }
    out.extend(table.clock_frames.iter().cloned());
    out.sort_by_key(|(t, _)| *t);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_has_drops_and_quick_captures_of_dropped_pieces() {
        let mut totals = (0, 0, 0);
        for seed in 1..=20 {
            let m = generate_match(seed, DropRules::DjcStein, 120);
            assert!(m.played[0].len() + m.played[1].len() > 20, "seed {seed}");
            totals.0 += m.drops;
            totals.1 += m.captures_of_dropped;
            totals.2 += m.promotions;
        }
        assert!(totals.0 > 100 && totals.1 > 5, "{totals:?}");
    }

    /// Promotions take their piece from the partner board also while a move there is under
    /// way and while its players hold pieces to drop, under every regulation.
    #[test]
    fn promotions_take_pieces_mid_move_and_with_pieces_in_hand() {
        for rules in DropRules::ALL {
            let (mut mid, mut reserve) = (0, 0);
            for seed in 1..=30 {
                let m = generate_match(seed, rules, 120);
                mid += m.promotions_mid_move;
                reserve += m.promotions_with_reserve;
            }
            assert!(mid > 0 && reserve > 0, "{rules:?}: {mid} {reserve}");
        }
    }

    #[test]
    fn drop_rules_follow_each_regulation() {
        let pos = Chess::default();
        for rules in DropRules::ALL {
            assert!(!rules.allows(&pos, Role::Pawn, Square::A8));
            assert!(rules.allows(&pos, Role::Knight, Square::E4));
        }
        let bare: Chess = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        // A pawn on White's seventh: DJC no, the others yes. A rook giving check: Flemish only.
        assert!(!DropRules::DjcStein.allows(&bare, Role::Pawn, Square::A7));
        assert!(DropRules::Knsb2000.allows(&bare, Role::Pawn, Square::A7));
        assert!(!DropRules::Knsb2000.allows(&bare, Role::Rook, Square::E5));
        assert!(DropRules::Flemish.allows(&bare, Role::Rook, Square::E5));
    }
}
