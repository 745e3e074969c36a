//! What a bus board's log proves (protocol §3.6): a board on a bus line is read one poll
//! at a time, and a poll's batch shows only where the pieces stand now, while its log names
//! every square that changed and every press since the last poll. The log is what tells
//! the moves made between two polls apart
//! (`docs/decisions/D75-presses-logged-bus-line-prove.md` and the three after it).

use super::*;

/// What a bus board's log named (protocol §3.6) since the last move recorded, and when.
#[serde_with::serde_as]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct BusLog {
    /// Lever presses logged since the last move recorded: at least as many moves were
    /// completed since (an entry may be skipped, never invented).
    pub(super) presses_logged_since_move: usize,
    /// When the last log packet came in, and when the last one before the last move recorded
    /// did: a square logged after that changed since.
    pub(super) last_log_at: u64,
    pub(super) log_at_move: u64,
    /// When the log last named each square (by chess square), even with the piece it already
    /// had: a tag says the square changed on the way.
    #[serde_as(as = "[_; 64]")]
    pub(super) square_logged_at: [u64; 64],
    /// How many times the log named each square (by chess square) since the last move
    /// recorded: once per change, each change a scan apart at least (§3.6, §4.1).
    #[serde_as(as = "[_; 64]")]
    pub(super) square_logged_since_move: [u8; 64],
}

impl Default for BusLog {
    fn default() -> Self {
        BusLog {
            presses_logged_since_move: 0,
            last_log_at: 0,
            log_at_move: 0,
            square_logged_at: [0; 64],
            square_logged_since_move: [0; 64],
        }
    }
}

impl BusLog {
    /// The log named `sq` in a packet that came in at `t`.
    pub(super) fn square_named(&mut self, t: u64, sq: shakmaty::Square) {
        self.square_logged_at[usize::from(sq)] = t;
        let named = &mut self.square_logged_since_move[usize::from(sq)];
        *named = named.saturating_add(1);
        self.last_log_at = t;
    }

    /// The log named `count` lever presses in a packet that came in at `t`.
    pub(super) fn presses_named(&mut self, t: u64, count: u8) {
        self.presses_logged_since_move += usize::from(count);
        self.last_log_at = t;
    }

    /// A move was recorded (or a game began): what the log names from now on is counted
    /// towards the next move; what it named before is older than the move.
    pub(super) fn move_recorded(&mut self) {
        self.presses_logged_since_move = 0;
        self.square_logged_since_move = [0; 64];
        self.log_at_move = self.last_log_at;
    }

    /// The log named `sq` after the last move recorded.
    pub(super) fn named_since_move(&self, sq: shakmaty::Square) -> bool {
        self.square_logged_at[usize::from(sq)] > self.log_at_move
    }
}

impl Session {
    /// On a bus board, moves that change a square on their way and leave it as it was (a
    /// capture and the recapture on its square) are read only if the board's log named that
    /// square since the last move read was logged: the board logs every change of a square (protocol
    /// §3.6), while a batch shows only where the pieces stand now. Nxb6 cxb6 read from a
    /// packet that logged d5 and c7 twice is Nxc7, the knight taken off by the recapturing
    /// hand before the poll; Qxf5 gxf5 from one that logged g6 and h5 is Qxg6, the queen's
    /// landing not yet scanned: read as moves, both would be a capture and a recapture never
    /// made. Such a reading is no reading: the board is unexplained until the next packet
    /// tells more (`tests/bus_poller.rs`: a capture whose landing the log lost).
    pub(super) fn logged_on_the_way(&self, interp: Interpretation) -> Interpretation {
        let Interpretation::Ahead(path) = &interp else {
            return interp;
        };
        let Some(g) = self.game.as_ref() else {
            return interp;
        };
        if self.link.bus.is_none() || self.reader.after_gap || path.len() < 2 {
            return interp;
        }
        // The packet that logged the last move read (its earliest square: a lift and its
        // landing can come a poll apart); the moves after it are logged there or later.
        let since = match &g.positions[..] {
            [.., before, last] => board::diff(before.board(), last.board())
                .into_iter()
                .map(|sq| self.bus_log.square_logged_at[usize::from(sq)])
                .min()
                .unwrap_or(0),
            _ => 0,
        };
        let way = Footprint::of(g.current(), path);
        // A square the moves change three times or more (a pawn's landing, a capture on it
        // and the recapture) is named by the log once per change, one scan apart at least:
        // one name is that of a single change: g2-g3 with the queen lifted from h4 and the
        // h2 pawn taken off shows g3 Qxg3 hxg3, but g3 named once is the pawn's landing
        // alone. An entry may be skipped, so one name fewer is accepted.
        let named_too_rarely = way.touched.into_iter().any(|sq| {
            let n = way.changes[usize::from(sq)];
            n >= 3 && self.bus_log.square_logged_since_move[usize::from(sq)] + 1 < n
        });
        if named_too_rarely {
            return Interpretation::Unexplained;
        }
        let unlogged = way.restored.into_iter().any(|sq| {
            let logged_at = self.bus_log.square_logged_at[usize::from(sq)];
            // A square named last by a packet in before the last move was read: that
            // packet named it for an earlier change, not for these moves (g5-g4 read, then
            // Qxf5 with the queen in the hand is not Qxg4 fxg4: g4 was named for g5-g4).
            logged_at < since || logged_at <= self.bus_log.log_at_move
        });
        if unlogged {
            Interpretation::Unexplained
        } else {
            interp
        }
    }

    /// The moves a bus board's log proves were completed since the last move recorded: its
    /// lever presses (protocol §3.6; an entry may be skipped, never invented), when two or
    /// more and the clock agrees — the display running is that of the player on move after
    /// as many moves. A press logged after its move was recorded (a late press, 6.2.2), or
    /// Black's press starting White's clock, would count one too many: the running display
    /// then disagrees, and nothing is proved.
    pub(super) fn plies_logged(&self) -> Option<usize> {
        let n = self.bus_log.presses_logged_since_move;
        if self.link.bus.is_none() || !(2..=PLIES_LOGGED_MAX).contains(&n) {
            return None;
        }
        let g = self.playing()?;
        let to_move = if n.is_multiple_of(2) {
            g.current().turn()
        } else {
            !g.current().turn()
        };
        (self.clock.running()? == self.clock.display_of(to_move.is_white())?).then_some(n)
    }

    /// [`reconstruct::interpret`], held to the moves a bus board's log proves (`plies_logged`):
    /// a placement shown by fewer moves than presses logged is read as that many moves (or
    /// one more, made and not yet pressed) when such moves reach it. A piece moved twice
    /// around the reply between two polls shows the placement of one move (d2-d3 e7-e5 d3-d4
    /// shows d2-d4 e7-e5): read by the placement alone, every later move would be a ply early.
    pub(super) fn interpret_logged(
        &self,
        g: &Game,
        board: &shakmaty::Board,
        depth: usize,
    ) -> Interpretation {
        let interp = reconstruct::interpret(g, board, depth);
        let Interpretation::Ahead(shortest) = &interp else {
            return interp;
        };
        let Some(n) = self.plies_logged().filter(|&n| shortest.len() < n) else {
            return self.most_logged(g, board, interp);
        };
        // A square such moves change on their way and leave as they were (d3 in d2-d3 e7-e5
        // d3-d4) must have been logged after the last move was read (protocol §3.6: every change
        // of a square is logged): a piece moved twice, not once. A move pressed whose piece
        // the board has not yet reported lifted (a press is logged at once, a piece at the
        // end of its scan) leaves one press more than the moves shown, and without this the
        // extra press would be read as a piece of the board moving in two steps (Bxd7 Qxd7
        // Na3 and Rh6 pressed is not Na3 Qc8 Bxd7 Qxd7: c8 was not logged).
        let logged_on_the_way = |path: &[Move]| {
            Footprint::of(g.current(), path)
                .restored
                .into_iter()
                .all(|sq| self.bus_log.named_since_move(sq))
        };
        let mut budget = 200_000usize;
        for plies in n..=n + 1 {
            // Of the orders that reach the placement, the one the board showed move by move
            // the furthest (Bxa6 shown, then g6 Bxh6: not Bxh6 g6 Bxa6).
            let best = reconstruct::paths_of_length(g.current(), board, plies, 8, &mut budget)
                .into_iter()
                .filter(|path| logged_on_the_way(path))
                .map(|path| (self.shown_prefix(&path), path))
                .reduce(|best, other| if other.0 > best.0 { other } else { best });
            if let Some((_, path)) = best {
                return Interpretation::Ahead(path);
            }
        }
        interp
    }

    /// On a bus board, of the readings of as many moves that reach the placement, the one
    /// that changes the most squares the board's log named since the last move was read
    /// (protocol §3.6: every change of a square is logged), when it changes more than the
    /// reading found first. b2-b4 and c4xb3 en passant leave the placement of b2-b3 and
    /// c4xb3: the log naming b4 tells which. Read as b3 cxb3, one move would be wrong with
    /// nothing to alert the arbiter.
    fn most_logged(
        &self,
        g: &Game,
        board: &shakmaty::Board,
        interp: Interpretation,
    ) -> Interpretation {
        let Interpretation::Ahead(path) = &interp else {
            return interp;
        };
        if self.link.bus.is_none() || self.reader.after_gap || path.len() < 2 {
            return interp;
        }
        let logged = |path: &[Move]| {
            Footprint::of(g.current(), path)
                .touched
                .into_iter()
                .filter(|sq| self.bus_log.named_since_move(*sq))
                .count()
        };
        let found = logged(path);
        let mut budget = 50_000usize;
        let best = reconstruct::paths_of_length(g.current(), board, path.len(), 8, &mut budget)
            .into_iter()
            .map(|p| (logged(&p), p))
            .filter(|(n, _)| *n > found)
            .reduce(|best, other| if other.0 > best.0 { other } else { best });
        match best {
            Some((_, better)) => Interpretation::Ahead(better),
            None => interp,
        }
    }
}

/// What a line of moves does to the squares on its way from a position: the bus reader
/// checks it against the squares the board's log named (protocol §3.6).
struct Footprint {
    /// Every square some move of the line changes.
    touched: shakmaty::Bitboard,
    /// Those the line changes on its way and leaves as they were.
    restored: shakmaty::Bitboard,
    /// How many moves of the line change each square.
    changes: [u8; 64],
}

impl Footprint {
    fn of(start: &shakmaty::Chess, path: &[Move]) -> Self {
        let mut pos = start.clone();
        let mut touched = shakmaty::Bitboard::EMPTY;
        let mut changes = [0u8; 64];
        for m in path {
            let before = pos.board().clone();
            pos.play_unchecked(*m);
            let changed = board::diff(&before, pos.board());
            touched |= changed;
            for sq in changed {
                changes[usize::from(sq)] += 1;
            }
        }
        Footprint {
            touched,
            restored: touched & !board::diff(start.board(), pos.board()),
            changes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BusLog;
    use shakmaty::Square;

    #[test]
    fn squares_and_presses_named_count_until_the_move_is_recorded() {
        let mut log = BusLog::default();
        log.square_named(100, Square::E4);
        log.square_named(200, Square::E4);
        log.presses_named(200, 2);
        assert_eq!(log.square_logged_since_move[usize::from(Square::E4)], 2);
        assert_eq!(log.presses_logged_since_move, 2);
        assert!(log.named_since_move(Square::E4));
        assert!(!log.named_since_move(Square::D4));

        log.move_recorded();
        assert_eq!(log.square_logged_since_move[usize::from(Square::E4)], 0);
        assert_eq!(log.presses_logged_since_move, 0);
        assert_eq!(log.log_at_move, 200);
        // Named before the move: older than it.
        assert!(!log.named_since_move(Square::E4));
        log.square_named(300, Square::E4);
        assert!(log.named_since_move(Square::E4));
    }
}
