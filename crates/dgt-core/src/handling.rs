//! How the pieces were handled: the lifts and placements behind a move, read for the signals
//! the Laws care about — a piece touched and put back before another was moved (4.3),
//! castling begun with the rook (4.4.2), two pieces handled at once (4.1, 7.5.4). These are
//! suspicions for the arbiter to judge, never penalties: the board cannot see hands, and a
//! player may adjust a piece after saying "j'adoube".

use std::collections::VecDeque;

use shakmaty::{Color, Move, Piece, Role, Square};

/// One change of one square, as the board reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handling {
    pub t_ms: u64,
    pub square: Square,
    pub before: Option<Piece>,
    pub after: Option<Piece>,
}

/// Thresholds, in milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct HandlingThresholds {
    /// A piece off the board at least this long and put back counts as touched (shorter is
    /// sensor flicker).
    pub touch_min_ms: u64,
    /// Two pieces lifted within this window, and both off the board together, suggest two
    /// hands.
    pub two_hands_window_ms: u64,
}

impl Default for HandlingThresholds {
    fn default() -> Self {
        HandlingThresholds {
            touch_min_ms: 400,
            two_hands_window_ms: 120,
        }
    }
}

/// A signal found in the handling of one move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// A piece of the mover was lifted from `square` and put back, then another piece moved.
    TouchMove { square: Square, off_ms: u64 },
    /// Castling begun by lifting the rook.
    CastlingRookFirst { rook: Square },
    /// A promotion piece was put on the promotion square and replaced by another: the
    /// choice was final when the first touched the square (4.4.4; 2005 4.4d).
    PromotionChanged {
        square: Square,
        first: Role,
        last: Role,
    },
    /// A piece of the opponent, not taken by the move, lifted and put back while the mover
    /// was on move: the mover touched it (and must capture it if he can), or its owner
    /// handled it while not on move — the board cannot tell whose hand (L17 T12).
    OpponentPieceHandled {
        square: Square,
        lifted_at: u64,
        off_ms: u64,
    },
    /// Two pieces off the board at once, lifted within the window.
    TwoHands {
        first: Square,
        second: Square,
        gap_ms: u64,
    },
}

/// A rolling record of recent changes.
#[derive(Debug, Clone, Default)]
pub struct HandlingLog {
    entries: VecDeque<Handling>,
}

const KEEP: usize = 256;

impl HandlingLog {
    pub fn record(&mut self, h: Handling) {
        if self.entries.len() == KEEP {
            self.entries.pop_front();
        }
        self.entries.push_back(h);
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The changes made after `since` (exclusive) up to `until` (inclusive).
    fn window(&self, since: u64, until: u64) -> impl Iterator<Item = &Handling> {
        self.entries
            .iter()
            .filter(move |h| h.t_ms > since && h.t_ms <= until)
    }

    /// The first piece lifted after `since` (its square), if any.
    pub fn first_lift_since(&self, since: u64) -> Option<Square> {
        self.entries
            .iter()
            .find(|h| h.t_ms > since && h.before.is_some() && h.after.is_none())
            .map(|h| h.square)
    }

    /// Reads the handling of `m`, made by `mover`, from the changes after `since` until
    /// `until` (when the board showed the move's result).
    pub fn signals(
        &self,
        mover: Color,
        m: &Move,
        since: u64,
        until: u64,
        th: HandlingThresholds,
    ) -> Vec<Signal> {
        let changes: Vec<&Handling> = self.window(since, until).collect();
        let mut out = Vec::new();
        let own = |p: Option<Piece>| p.is_some_and(|p| p.color == mover);
        // Squares that belong to the move itself.
        let mut involved = vec![m.to()];
        if let Some(f) = m.from() {
            involved.push(f);
        }
        if let Move::Castle { king, rook } = m {
            involved.push(*rook);
            involved.push(*king);
            let side = m.castling_side().expect("a castling move has a side");
            involved.push(side.rook_to(mover));
            involved.push(side.king_to(mover));
        }
        if let Move::EnPassant { from, to } = m {
            involved.push(Square::from_coords(to.file(), from.rank()));
        }

        // 4.4.2: castling begun with the rook. Not where the king stays on its square
        // (Chess960, II.3.2.4): the rook alone moves then.
        if let Move::Castle { rook, king } = m
            && m.castling_side()
                .is_some_and(|side| side.king_to(mover) != *king)
            && let Some(first) = changes.iter().find(|h| own(h.before) && h.after.is_none())
            && first.square == *rook
        {
            out.push(Signal::CastlingRookFirst { rook: *rook });
        }

        // 4.3: an own piece, not part of the move, lifted and put back on its square.
        for (i, lift) in changes.iter().enumerate() {
            if !(own(lift.before) && lift.after.is_none()) || involved.contains(&lift.square) {
                continue;
            }
            if let Some(back) = changes[i + 1..]
                .iter()
                .find(|h| h.square == lift.square)
                .filter(|h| h.after == lift.before)
            {
                let off = back.t_ms - lift.t_ms;
                if off >= th.touch_min_ms {
                    out.push(Signal::TouchMove {
                        square: lift.square,
                        off_ms: off,
                    });
                    break;
                }
            }
        }

        // 4.3.2 / 4.2.1: a piece of the opponent lifted and put back on its square.
        let theirs = |p: Option<Piece>| p.is_some_and(|p| p.color != mover);
        for (i, lift) in changes.iter().enumerate() {
            if !(theirs(lift.before) && lift.after.is_none()) || involved.contains(&lift.square) {
                continue;
            }
            if let Some(back) = changes[i + 1..]
                .iter()
                .find(|h| h.square == lift.square)
                .filter(|h| h.after == lift.before)
                && back.t_ms - lift.t_ms >= th.touch_min_ms
            {
                out.push(Signal::OpponentPieceHandled {
                    square: lift.square,
                    lifted_at: lift.t_ms,
                    off_ms: back.t_ms - lift.t_ms,
                });
                break;
            }
        }

        // 4.4.4: another piece than the one promoted to stood on the promotion square first.
        if let Some(last) = m.promotion()
            && let Some(first) = changes
                .iter()
                .filter(|h| h.square == m.to())
                .filter_map(|h| h.after.filter(|p| p.color == mover))
                .map(|p| p.role)
                .find(|&r| r != Role::Pawn)
            && first != last
        {
            out.push(Signal::PromotionChanged {
                square: m.to(),
                first,
                last,
            });
        }

        // 4.1 / 7.5.4: two pieces of the move off the board at once, lifted within the window.
        if m.is_castle() || m.is_capture() || m.is_promotion() {
            let lifts: Vec<&Handling> = changes
                .iter()
                .copied()
                .filter(|h| h.before.is_some() && h.after.is_none() && involved.contains(&h.square))
                .collect();
            'pairs: for (i, a) in lifts.iter().enumerate() {
                for b in &lifts[i + 1..] {
                    if b.square == a.square || b.t_ms - a.t_ms > th.two_hands_window_ms {
                        continue;
                    }
                    // Both off the board together: `a` not yet put back when `b` was lifted.
                    let a_back = changes
                        .iter()
                        .find(|h| h.square == a.square && h.t_ms > a.t_ms && h.after.is_some())
                        .map(|h| h.t_ms);
                    if a_back.is_none_or(|t| t > b.t_ms) {
                        out.push(Signal::TwoHands {
                            first: a.square,
                            second: b.square,
                            gap_ms: b.t_ms - a.t_ms,
                        });
                        break 'pairs;
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position, Role};

    fn piece(color: Color, role: Role) -> Option<Piece> {
        Some(Piece { color, role })
    }

    #[test]
    fn an_opponent_piece_lifted_and_put_back() {
        // L17 T12: on White's time the black bishop c8 is lifted and put back, then 1.e4.
        let bb = piece(Color::Black, Role::Bishop);
        let wp = piece(Color::White, Role::Pawn);
        let m = Chess::default()
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .unwrap();
        let mut log = HandlingLog::default();
        for (t_ms, square, before, after) in [
            (100, Square::C8, bb, None),
            (900, Square::C8, None, bb),
            (1500, Square::E2, wp, None),
            (1700, Square::E4, None, wp),
        ] {
            log.record(Handling {
                t_ms,
                square,
                before,
                after,
            });
        }
        let s = log.signals(Color::White, &m, 0, 2000, HandlingThresholds::default());
        assert_eq!(
            s,
            vec![Signal::OpponentPieceHandled {
                square: Square::C8,
                lifted_at: 100,
                off_ms: 800
            }]
        );
    }

    #[test]
    fn rook_first_castling_and_two_hands() {
        let mut log = HandlingLog::default();
        let wr = piece(Color::White, Role::Rook);
        let wk = piece(Color::White, Role::King);
        log.record(Handling {
            t_ms: 100,
            square: Square::H1,
            before: wr,
            after: None,
        });
        log.record(Handling {
            t_ms: 150,
            square: Square::E1,
            before: wk,
            after: None,
        });
        log.record(Handling {
            t_ms: 400,
            square: Square::F1,
            before: None,
            after: wr,
        });
        log.record(Handling {
            t_ms: 450,
            square: Square::G1,
            before: None,
            after: wk,
        });
        let m = Move::Castle {
            king: Square::E1,
            rook: Square::H1,
        };
        let s = log.signals(Color::White, &m, 0, 1000, HandlingThresholds::default());
        assert!(s.contains(&Signal::CastlingRookFirst { rook: Square::H1 }));
        assert!(s.iter().any(|x| matches!(x, Signal::TwoHands { .. })));
    }

    #[test]
    fn touched_piece_put_back_is_a_touch_move_but_flicker_is_not() {
        let wn = piece(Color::White, Role::Knight);
        let wp = piece(Color::White, Role::Pawn);
        let pos = Chess::default();
        let m = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .unwrap();
        let mut log = HandlingLog::default();
        log.record(Handling {
            t_ms: 100,
            square: Square::G1,
            before: wn,
            after: None,
        });
        log.record(Handling {
            t_ms: 900,
            square: Square::G1,
            before: None,
            after: wn,
        });
        log.record(Handling {
            t_ms: 1500,
            square: Square::E2,
            before: wp,
            after: None,
        });
        log.record(Handling {
            t_ms: 1700,
            square: Square::E4,
            before: None,
            after: wp,
        });
        let s = log.signals(Color::White, &m, 0, 2000, HandlingThresholds::default());
        assert_eq!(
            s,
            vec![Signal::TouchMove {
                square: Square::G1,
                off_ms: 800
            }]
        );

        let mut log = HandlingLog::default();
        log.record(Handling {
            t_ms: 100,
            square: Square::G1,
            before: wn,
            after: None,
        });
        log.record(Handling {
            t_ms: 250,
            square: Square::G1,
            before: None,
            after: wn,
        });
        assert!(
            log.signals(Color::White, &m, 0, 2000, HandlingThresholds::default())
                .is_empty()
        );
    }
}
