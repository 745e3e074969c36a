//! The physical board surface: which piece stands on which square over time, in the board's
//! own square numbering.
//!
//! Protocol §3.2: square 0 is a8 when White has the connector on the left; a board turned
//! 180° maps i → 63 − i and never renumbers. The surface is known ahead (the human's plan);
//! the scanner samples it square by square.

use dgt_protocol::DgtPiece;
use shakmaty::{Board, Piece, Square};

/// The board's index of a chess square.
pub fn physical_index(sq: Square, rotated: bool) -> usize {
    let i = (7 - sq.rank() as usize) * 8 + sq.file() as usize;
    if rotated { 63 - i } else { i }
}

/// The chess square on a physical index (inverse of [`physical_index`]).
pub fn chess_square(index: usize, rotated: bool) -> Square {
    let i = if rotated { 63 - index } else { index };
    Square::new(((7 - i / 8) * 8 + i % 8) as u32)
}

/// The DGT piece code of a chess piece (protocol §3.2).
pub fn piece_code(p: Piece) -> u8 {
    DgtPiece::from_fen_char(p.char()).map_or(0, |d| d.code())
}

/// Piece codes indexed by chess square (a1 = 0).
pub fn codes_by_square(board: &Board) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (sq, p) in board.iter() {
        out[sq as usize] = piece_code(p);
    }
    out
}

/// Piece codes by physical square.
pub fn physical_codes(by_square: &[u8; 64], rotated: bool) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (i, code) in by_square.iter().enumerate() {
        out[physical_index(Square::new(i as u32), rotated)] = *code;
    }
    out
}

/// The surface over time: per physical square, its changes in time order.
#[derive(Debug, Clone)]
pub struct Surface {
    initial: [u8; 64],
    changes: Vec<Vec<(u64, u8)>>,
    cursor: [usize; 64],
    value: [u8; 64],
    /// Every change time, sorted, and the first one not yet seen by every square.
    times: Vec<u64>,
    settled: usize,
}

impl Surface {
    /// `changes`: (t_ms, physical square, code), in the order they happen.
    pub fn new(initial: [u8; 64], changes: &[(u64, usize, u8)]) -> Self {
        let mut per = vec![Vec::new(); 64];
        for &(t, sq, code) in changes {
            per[sq].push((t, code));
        }
        for list in &mut per {
            // Stable: simultaneous changes keep their order.
            list.sort_by_key(|&(t, _)| t);
        }
        let mut times: Vec<u64> = changes.iter().map(|c| c.0).collect();
        times.sort_unstable();
        Surface {
            initial,
            changes: per,
            cursor: [0; 64],
            value: initial,
            times,
            settled: 0,
        }
    }

    pub fn initial(&self) -> [u8; 64] {
        self.initial
    }

    /// True when nothing changes anywhere in `(from, to]`, given that every square has been
    /// sampled at or after `from` (a shortcut for quiet sweeps).
    pub fn quiet(&mut self, from: u64, to: u64) -> bool {
        while self.times.get(self.settled).is_some_and(|&t| t <= from) {
            self.settled += 1;
        }
        self.times.get(self.settled).is_none_or(|&t| t > to)
    }

    /// What square `sq` holds at `t`. Calls for one square must not go back in time.
    pub fn sample(&mut self, sq: usize, t: u64) -> u8 {
        let list = &self.changes[sq];
        while self.cursor[sq] < list.len() && list[self.cursor[sq]].0 <= t {
            self.value[sq] = list[self.cursor[sq]].1;
            self.cursor[sq] += 1;
        }
        self.value[sq]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_and_rotation() {
        assert_eq!(physical_index(Square::A8, false), 0);
        assert_eq!(physical_index(Square::H1, false), 63);
        assert_eq!(physical_index(Square::E2, false), 52);
        assert_eq!(physical_index(Square::E2, true), 11);
        for i in 0..64 {
            for rot in [false, true] {
                assert_eq!(physical_index(chess_square(i, rot), rot), i);
            }
        }
    }

    #[test]
    fn samples_follow_the_timeline() {
        let mut s = Surface::new([0; 64], &[(100, 5, 1), (200, 5, 0), (200, 5, 3)]);
        assert_eq!(s.sample(5, 99), 0);
        assert_eq!(s.sample(5, 100), 1);
        assert_eq!(s.sample(5, 250), 3);
    }
}
