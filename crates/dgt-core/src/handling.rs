//! How the pieces were handled: the lifts and placements behind a move, read for the signals
//! the Laws care about — a piece touched and put back before another was moved (4.3),
//! castling begun with the rook (4.4.2), two pieces handled at once (4.1, 7.5.4). These are
//! suspicions for the arbiter to judge, never penalties: the board cannot see hands, and a
//! player may adjust a piece after saying "j'adoube".

use std::collections::VecDeque;

use crate::snapshot_as::*;
use shakmaty::{Color, Move, Piece, Role, Square};

/// One change of one square, as the board reported it.
#[serde_with::serde_as]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Handling {
    pub t_ms: u64,
    #[serde_as(as = "SquareAs")]
    pub square: Square,
    #[serde_as(as = "Option<PieceAs>")]
    pub before: Option<Piece>,
    #[serde_as(as = "Option<PieceAs>")]
    pub after: Option<Piece>,
}

/// Thresholds, in milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct HandlingThresholds {
    /// A piece off the board at least this long and put back counts as touched (shorter is
    /// sensor flicker).
    pub touch_min_ms: u64,
    /// King and rook lifted within this window, and both off the board together, suggest
    /// two hands: two scans (lifts 0–80 ms apart may straddle a scan boundary).
    pub two_hands_window_ms: u64,
}

impl Default for HandlingThresholds {
    fn default() -> Self {
        HandlingThresholds {
            touch_min_ms: 400,
            two_hands_window_ms: 2 * DEFAULT_SCAN_MS,
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
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct HandlingLog {
    entries: VecDeque<Handling>,
}

const KEEP: usize = 256;
/// The squares one scan found changed arrive one after another, each message a few ms of
/// line time (protocol §3.3: 5 bytes at 9600 baud), new occurrences first: changes reported
/// this close together are one report, whose order says nothing about the hands.
const ONE_REPORT_MS: u64 = 60;
/// The scan period assumed until the board's reports measure it.
const DEFAULT_SCAN_MS: u64 = 250;

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

    /// The board's scan period, measured from its own reports: the median gap between two
    /// successive reports that are one scan apart (150–400 ms; the sensor sweeps the 64
    /// squares every ~200–250 ms, protocol §1.1), or 250 ms before there are enough.
    pub fn scan_period_ms(&self) -> u64 {
        // Asked at every field update: the gaps between successive distinct report times are
        // gathered on the stack (at most one per entry) and the median picked, not sorted.
        let mut gaps = [0u64; KEEP];
        let mut n = 0;
        let mut times = self.entries.iter().map(|h| h.t_ms);
        if let Some(mut prev) = times.next() {
            for t in times {
                if t == prev {
                    continue;
                }
                let gap = t - prev;
                if (150..=400).contains(&gap) {
                    gaps[n] = gap;
                    n += 1;
                }
                prev = t;
            }
        }
        if n < 5 {
            return DEFAULT_SCAN_MS;
        }
        *gaps[..n].select_nth_unstable(n / 2).1
    }

    /// The changes made after `since` (exclusive) up to `until` (inclusive).
    pub fn window(&self, since: u64, until: u64) -> impl Iterator<Item = &Handling> {
        self.entries
            .iter()
            .filter(move |h| h.t_ms > since && h.t_ms <= until)
    }

    /// When the board first reported a piece of `color` put on `square` at or after `since`,
    /// if it did.
    pub fn first_put_on_since(&self, square: Square, color: Color, since: u64) -> Option<u64> {
        self.entries
            .iter()
            .find(|h| {
                h.t_ms >= since && h.square == square && h.after.is_some_and(|p| p.color == color)
            })
            .map(|h| h.t_ms)
    }

    /// When the board last reported a piece of `color` lifted from `square`, if it did.
    pub fn last_lift_from(&self, square: Square, color: Color) -> Option<u64> {
        self.entries
            .iter()
            .rev()
            .find(|h| {
                h.square == square
                    && h.before.is_some_and(|p| p.color == color)
                    && h.after.is_none()
            })
            .map(|h| h.t_ms)
    }

    /// When the board last reported a change on any of `squares`, if it did.
    pub fn last_change_on(&self, squares: &[Square]) -> Option<u64> {
        self.entries
            .iter()
            .rev()
            .find(|h| squares.contains(&h.square))
            .map(|h| h.t_ms)
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

        let rook_first_at = out.len();

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

        // 4.1 / 7.5.4: king and rook of a castling off the board at once, lifted within the
        // window. One hand moves the king, then the rook: both off together is two hands.
        // Not for captures: a one-handed capture holds the capturer while it takes the other
        // piece off, and the two lifts of a two-handed capture (0–80 ms apart) fall in the
        // same scan as a fast one-handed capture's — the board cannot tell them apart.
        if m.is_castle() {
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
                    // Both off the board together: neither piece put down anywhere (a sliding
                    // king touches the squares it passes) by the report that showed the later
                    // lift. One report's squares come in scan order, not in the order the
                    // hands moved: a piece put down in that same report proves nothing.
                    let put_down = |x: &Handling| {
                        // From the report the window opens in: its squares before `since`
                        // came with the lifts, in scan order (a castling read from the
                        // opponent's last square: the rook lifted in the scan that reported
                        // the opponent's piece landing).
                        self.window(since.saturating_sub(ONE_REPORT_MS), until)
                            .find(|h| {
                                h.t_ms + ONE_REPORT_MS >= x.t_ms
                                    && h.after.is_some()
                                    && h.after == x.before
                            })
                            .map(|h| h.t_ms)
                    };
                    let later = b.t_ms.max(a.t_ms) + ONE_REPORT_MS;
                    if put_down(a).is_none_or(|t| t > later)
                        && put_down(b).is_none_or(|t| t > later)
                    {
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
        // 4.4.2: castling begun with the rook. Not where the king stays on its square
        // (Chess960, II.3.2.4): the rook alone moves then. The board reports the squares
        // that changed during one scan together, in scan order, not in the order the hands
        // moved (protocol §1.1, §4.1): the rook counts as first only when its lift was
        // reported in an earlier report than the king's — and, when both were off the board
        // together (two hands, reported above), more than a scan earlier: two lifts 0–80 ms
        // apart that straddle the end of a scan show in successive reports whatever their
        // order.
        let two_hands = out.iter().any(|s| matches!(s, Signal::TwoHands { .. }));
        // One scan: the two-hands window spans two.
        let scan = th.two_hands_window_ms / 2;
        if let Move::Castle { rook, king } = m
            && m.castling_side()
                .is_some_and(|side| side.king_to(mover) != *king)
            // The first own piece lifted and not put back on its square: a piece knocked over
            // (or touched) and put back, the rook too, did not begin the castling — a touch
            // put back is all the board shows of it, and it cannot hear "j'adoube" (4.2.1).
            && let Some(first) = changes.iter().enumerate().find_map(|(i, h)| {
                (own(h.before)
                    && h.after.is_none()
                    && !changes[i + 1..]
                        .iter()
                        .any(|b| b.square == h.square && b.after == h.before))
                    .then_some(*h)
            })
            && first.square == *rook
            && changes
                .iter()
                .find(|h| h.square == *king && h.after.is_none())
                .is_some_and(|k| {
                    k.t_ms > first.t_ms + ONE_REPORT_MS
                        && (!two_hands || k.t_ms > first.t_ms + scan + ONE_REPORT_MS)
                })
        {
            out.insert(rook_first_at, Signal::CastlingRookFirst { rook: *rook });
        }
        out
    }
}

/// A log of the board's reports `(t_ms, square, before, after)`, in order, for the tests of
/// the readings made from it.
#[cfg(test)]
pub(crate) fn log_of(changes: &[(u64, Square, Option<Piece>, Option<Piece>)]) -> HandlingLog {
    let mut log = HandlingLog::default();
    for &(t_ms, square, before, after) in changes {
        log.record(Handling {
            t_ms,
            square,
            before,
            after,
        });
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position, Role};

    fn piece(color: Color, role: Role) -> Option<Piece> {
        Some(Piece { color, role })
    }

    /// The scan period is the median of the gaps of 150–400 ms between successive distinct
    /// report times, as sorting them all gives it: reports in bursts (equal times), gaps out
    /// of range, an even and an odd count, too few gaps, more reports than the log keeps.
    #[test]
    fn the_scan_period_is_the_median_of_the_gaps_in_range() {
        fn sorted_median(times: &[u64]) -> u64 {
            let mut times = times.to_vec();
            times.dedup();
            let mut gaps: Vec<u64> = times
                .windows(2)
                .map(|w| w[1] - w[0])
                .filter(|g| (150..=400).contains(g))
                .collect();
            if gaps.len() < 5 {
                return DEFAULT_SCAN_MS;
            }
            gaps.sort_unstable();
            gaps[gaps.len() / 2]
        }
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        let mut cases: Vec<Vec<u64>> = vec![
            vec![],
            vec![0, 200, 400, 600, 800],
            vec![0, 200, 400, 600, 800, 1000],
            vec![0, 0, 210, 210, 210, 450, 450, 700, 1500, 1700, 1950, 2300],
        ];
        for len in [7, 40, 255, 256, 300, 600] {
            let mut t = 0;
            cases.push(
                (0..len)
                    .map(|_| {
                        t += [0, 0, 20, 160, 210, 250, 390, 401, 1000][next() as usize % 9];
                        t
                    })
                    .collect(),
            );
        }
        for times in cases {
            let mut log = HandlingLog::default();
            for &t_ms in &times {
                log.record(Handling {
                    t_ms,
                    square: Square::E4,
                    before: None,
                    after: None,
                });
            }
            let kept = &times[times.len().saturating_sub(KEEP)..];
            assert_eq!(log.scan_period_ms(), sorted_median(kept), "{times:?}");
        }
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
        let log = log_of(&[
            (100, Square::C8, bb, None),
            (900, Square::C8, None, bb),
            (1500, Square::E2, wp, None),
            (1700, Square::E4, None, wp),
        ]);
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
        // Both off together: two hands. Which came first is within one scan's resolution.
        assert!(s.iter().any(|x| matches!(x, Signal::TwoHands { .. })));
        assert!(!s.contains(&Signal::CastlingRookFirst { rook: Square::H1 }));

        // One hand, the rook first: on f1 a scan before the king leaves e1.
        let log = log_of(&[
            (100, Square::H1, wr, None),
            (330, Square::F1, None, wr),
            (560, Square::E1, wk, None),
            (790, Square::G1, None, wk),
        ]);
        let s = log.signals(Color::White, &m, 0, 1000, HandlingThresholds::default());
        assert_eq!(s, vec![Signal::CastlingRookFirst { rook: Square::H1 }]);

        // One hand, the king first, sliding over f1; the rook lifted in the scan that shows
        // the king on g1: neither signal.
        let log = log_of(&[
            (100, Square::E1, wk, None),
            (100, Square::F1, None, wk),
            (330, Square::F1, wk, None),
            (330, Square::G1, None, wk),
            (330, Square::H1, wr, None),
            (560, Square::F1, None, wr),
        ]);
        let s = log.signals(Color::White, &m, 0, 1000, HandlingThresholds::default());
        assert!(s.is_empty(), "{s:?}");

        // The rook knocked over and put back on h1, then castling begun with the king
        // (careful seeds 20025, 23427): not castling begun with the rook.
        let log = log_of(&[
            (100, Square::H1, wr, None),
            (1900, Square::H1, None, wr),
            (2300, Square::E1, wk, None),
            (2500, Square::G1, None, wk),
            (2700, Square::H1, wr, None),
            (2900, Square::F1, None, wr),
        ]);
        let s = log.signals(Color::White, &m, 0, 3000, HandlingThresholds::default());
        assert!(s.is_empty(), "{s:?}");

        // The rook knocked over and put back, then castling begun with the rook after all.
        let log = log_of(&[
            (100, Square::H1, wr, None),
            (1900, Square::H1, None, wr),
            (2300, Square::H1, wr, None),
            (2500, Square::F1, None, wr),
            (2700, Square::E1, wk, None),
            (2900, Square::G1, None, wk),
        ]);
        let s = log.signals(Color::White, &m, 0, 3000, HandlingThresholds::default());
        assert_eq!(s, vec![Signal::CastlingRookFirst { rook: Square::H1 }]);
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
