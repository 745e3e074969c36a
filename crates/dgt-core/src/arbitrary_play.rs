//! Board traffic from arbitrary bytes, for the fuzz targets (`fuzz/`) and the random-input
//! tests: each four bytes become one thing a DGT board, its clock or an operator can send —
//! a piece lifted or put, a clock pressed, a whole dump, a set-up from a FEN — on one of two
//! boards paired as a bughouse match (or not). Well-formed frames reach deeper into the
//! core than raw bytes do; raw bytes are one of the kinds too.

use shakmaty::{Chess, Move, Position, Role, Square};

use crate::bughouse::{BughouseMatch, Regulation};
use crate::capture::parse_capture;
use crate::config::CoreConfig;
use crate::input::{Input, InputKind};

/// The two boards' labels.
pub const BOARDS: [&str; 2] = ["1", "2"];

/// Set-ups an operator may give: the start, positions with pawns about to promote, castling
/// rights, en passant, few pieces, a Chess960 start.
const SETUPS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "k7/4P3/8/8/8/8/4p3/4K3 w - - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    "7k/5ppp/8/8/8/8/5PPP/7K b - - 0 1",
    "bbrnnkrq/pppppppp/8/8/8/8/PPPPPPPP/BBRNNKRQ w GCgc - 0 1",
];

/// The initial position as the board reports it (DGT piece codes, a8 first).
pub(crate) const START_CODES: [u8; 64] = {
    let mut c = [0u8; 64];
    let back_black = [8, 9, 10, 12, 11, 10, 9, 8];
    let back_white = [2, 3, 4, 6, 5, 4, 3, 2];
    let mut i = 0;
    while i < 8 {
        c[i] = back_black[i];
        c[8 + i] = 7;
        c[48 + i] = 1;
        c[56 + i] = back_white[i];
        i += 1;
    }
    c
};

/// A configuration pairing the two boards under `rules`, or none.
pub fn config(bughouse: Option<Regulation>) -> CoreConfig {
    CoreConfig {
        bughouse: bughouse
            .map(|rules| {
                vec![BughouseMatch {
                    boards: [BOARDS[0].into(), BOARDS[1].into()],
                    rules,
                    ..Default::default()
                }]
            })
            .unwrap_or_default(),
        ..CoreConfig::default()
    }
}

/// The inputs `data` stands for, in time order.
pub fn inputs(data: &[u8]) -> Vec<Input> {
    let mut out = Vec::new();
    let mut t = 0u64;
    // Per board: the clock's displays (s) and which runs (None, Some(false) left, Some(true) right).
    let mut clocks = [(300u64, 300u64, None::<bool>); 2];
    // What each board would show if the moves chosen below were made (reset by a dump or a
    // set-up): legal moves, drops and captures of just-dropped pieces reach the reading.
    let mut positions = [Chess::default(), Chess::default()];
    for chunk in data.chunks(4) {
        let [what, a, b, dt] = [0, 1, 2, 3].map(|k| chunk.get(k).copied().unwrap_or(0));
        t += u64::from(dt) * 12;
        let board = usize::from(what & 1);
        let label = BOARDS[board];
        let rx = |bytes: Vec<u8>| Input {
            t_ms: t,
            board: label.to_string(),
            kind: InputKind::Rx(bytes),
        };
        match (what >> 1) % 16 {
            // A legal move (or a drop) made by hand, mostly pressed: the common case.
            0..=9 => {
                let pos = &mut positions[board];
                let moves = pos.legal_moves();
                let m = if (what & 0x60 == 0x60 && b & 4 == 0) || moves.is_empty() {
                    let empty: Vec<Square> = (!pos.board().occupied()).into_iter().collect();
                    let role = [
                        Role::Pawn,
                        Role::Knight,
                        Role::Bishop,
                        Role::Rook,
                        Role::Queen,
                    ][usize::from(b) % 5];
                    match empty.get(usize::from(a) % empty.len().max(1)) {
                        Some(&to)
                            if role != Role::Pawn
                                || !shakmaty::Bitboard::BACKRANKS.contains(to) =>
                        {
                            Move::Put { role, to }
                        }
                        _ => continue,
                    }
                } else {
                    moves[usize::from(a) % moves.len()]
                };
                // A drop that leaves the dropper's own king attacked is not made here: no
                // player can go on from it (the model's moves would take a king).
                let mut after = pos.clone();
                after.play_unchecked(m);
                let exposed = after.board().king_of(!after.turn()).is_none_or(|k| {
                    after
                        .king_attackers(k, after.turn(), after.board().occupied())
                        .any()
                });
                if exposed {
                    continue;
                }
                let mut step = t;
                for (sq, piece) in hand(pos, &m, b & 1 == 1) {
                    step += 60 + u64::from(dt % 8) * 40;
                    out.push(Input {
                        t_ms: step,
                        board: label.to_string(),
                        kind: InputKind::Rx(vec![0x8E, 0, 5, phys(sq), piece]),
                    });
                }
                t = step;
                *pos = after;
                if b & 0x30 != 0 {
                    let c = &mut clocks[board];
                    c.2 = Some(!c.2.unwrap_or(a & 1 == 1));
                    t += 150;
                    out.push(Input {
                        t_ms: t,
                        board: label.to_string(),
                        kind: InputKind::Rx(clock_frame(*c, 1)),
                    });
                }
            }
            // A piece lifted, a piece put anywhere.
            10 => out.push(rx(vec![0x8E, 0, 5, a % 64, 0])),
            11 => out.push(rx(vec![0x8E, 0, 5, a % 64, 1 + b % 12])),
            12 => {
                let c = &mut clocks[board];
                c.2 = match (c.2, b % 4) {
                    (_, 0) => None,
                    (None, _) => Some(a & 1 == 1),
                    (Some(r), _) => Some(!r),
                };
                if a.is_multiple_of(5) {
                    let left = c.2 == Some(false);
                    let spent = u64::from(b % 8);
                    if left {
                        c.0 = c.0.saturating_sub(spent);
                    } else {
                        c.1 = c.1.saturating_sub(spent);
                    }
                }
                out.push(rx(clock_frame(*c, a)));
            }
            13 => {
                // A dump: the start position, now and then with a few squares changed.
                let mut codes = START_CODES;
                if a.is_multiple_of(4) {
                    codes[usize::from(a % 64)] = b % 13;
                    codes[usize::from(b % 64)] = dt % 13;
                }
                let mut m = vec![0x86, 0, 0x43];
                m.extend(codes);
                out.push(rx(m));
                positions[board] = Chess::default();
            }
            14 => {
                let fen = SETUPS[usize::from(a) % SETUPS.len()];
                let line = format!(
                    r#"{{"t_ms": {t}, "board": "{label}", "op": {{"setup": {{"fen": "{fen}", "time_control": "300"}}}}}}"#
                );
                out.extend(parse_capture(&line).unwrap_or_default());
                if let Ok((pos, _)) = crate::reconstruct::position_from_fen(fen) {
                    positions[board] = pos;
                }
            }
            _ => out.push(rx(vec![a, b, dt])),
        }
    }
    out
}

/// The board's square number (a8 = 0) of `sq`.
pub(crate) fn phys(sq: Square) -> u8 {
    (7 - sq.rank() as u8) * 8 + sq.file() as u8
}

/// The squares a hand changes for `m`, in order, with the DGT code put there (0: lifted): a
/// capture with the captured piece lifted first or last, a castling king first.
fn hand(pos: &Chess, m: &Move, victim_last: bool) -> Vec<(Square, u8)> {
    let me = pos.turn();
    let code = |role: Role| {
        let white = match role {
            Role::Pawn => 1,
            Role::Rook => 2,
            Role::Knight => 3,
            Role::Bishop => 4,
            Role::King => 5,
            Role::Queen => 6,
        };
        if me.is_white() { white } else { white + 6 }
    };
    match *m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let put = (to, code(promotion.unwrap_or(role)));
            match (capture.is_some(), victim_last) {
                (true, false) => vec![(to, 0), (from, 0), put],
                (true, true) => vec![(from, 0), (to, 0), put],
                _ => vec![(from, 0), put],
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            let mut v = vec![(from, 0), (to, code(Role::Pawn))];
            v.insert(if victim_last { 2 } else { 0 }, (taken, 0));
            v
        }
        Move::Castle { king, rook } => {
            let side = m
                .castling_side()
                .unwrap_or(shakmaty::CastlingSide::KingSide);
            vec![
                (king, 0),
                (side.king_to(me), code(Role::King)),
                (rook, 0),
                (side.rook_to(me), code(Role::Rook)),
            ]
        }
        Move::Put { role, to } => vec![(to, code(role))],
    }
}

/// A clock frame (protocol §2: right display, left display, status byte).
pub(crate) fn clock_frame((left, right, running): (u64, u64, Option<bool>), flags: u8) -> Vec<u8> {
    let enc = |s: u64| {
        let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
        [
            (h % 10) as u8,
            (((m / 10) << 4) | (m % 10)) as u8,
            (((sec / 10) << 4) | (sec % 10)) as u8,
        ]
    };
    let status = match running {
        None => 0x00,
        Some(false) => 0x09,
        Some(true) => 0x13,
    };
    let (mut r, mut l) = (enc(right), enc(left));
    // Now and then a flag shown (0x40) or final (0x10).
    if flags.is_multiple_of(7) {
        r[0] |= 0x40;
    }
    if flags.is_multiple_of(11) {
        l[0] |= 0x50;
    }
    let mut m = vec![0x8D, 0, 0x0A];
    m.extend(r);
    m.extend(l);
    m.push(status);
    m
}

/// Plays `data` through a core with the two boards paired under `rules` (or not), timers
/// run out to the end: what a fuzz target and the random-input tests do.
pub fn play(data: &[u8], rules: Option<Regulation>) -> Vec<crate::Event> {
    let mut core = crate::Core::new(config(rules));
    let mut out = Vec::new();
    for input in inputs(data) {
        out.extend(core.handle(&input));
    }
    let end = out.last().map_or(0, |e| e.t_ms) + 120_000;
    out.extend(core.advance(end));
    out
}
