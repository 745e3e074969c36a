//! A change on the board noted (the piece handled, when the square changed, the settle
//! timer), and what the board showed as the reader consults it: the moves shown one by one
//! and the paths they chain into, the board as seen, who pressed, and which of several
//! readings the board's story prefers. The reader (`reader.rs`) reads through these.

use super::*;

impl Session {
    pub(super) fn record_handling(&mut self, t: u64, physical: usize, before: u8) {
        let after = self.board.physical.code(physical);
        if before == after {
            return;
        }
        let piece = |c: u8| board::chess_piece(dgt_protocol::DgtPiece::from_code(c));
        self.board.handling.record(Handling {
            t_ms: t,
            square: board::to_square(physical, self.board.orientation),
            before: piece(before),
            after: piece(after),
        });
    }

    /// Physical square `physical` changed at `t`.
    pub(super) fn square_changed(&mut self, t: u64, physical: usize) {
        let sq = board::to_square(physical, self.board.orientation);
        self.board.square_changed_at[usize::from(sq)] = t;
    }

    pub(super) fn on_change(&mut self, t: u64, _out: &mut Emitted) {
        self.timers.set(Timer::Settle, t + self.rules.settle_ms);
        self.timers.clear(Timer::IllegalPosition);
        self.board.last_change = t;
        self.note_start_shown(t);
        if let Some(g) = self.playing() {
            let off = board::diff(g.current().board(), &self.seen_board()).count();
            self.board.displaced = self.board.displaced.max(off);
        }
        // The board reports only which piece stands on each square (protocol §3.2, §3.3), so
        // two pairs of moves can leave the same placement (g4 fxg3 e.p. and g3 fxg3): the
        // pair remembered is the one whose first move the board showed by itself, as when
        // the board settles or a press is judged (`prefer_shown`).
        let ahead = match self
            .interpret(DEPTH_ON_CHANGE)
            .map(|i| self.prefer_shown(i))
        {
            Some(Interpretation::Ahead(path)) => Some(self.followed_further(path)),
            Some(Interpretation::Unexplained) => {
                self.note_answered();
                self.chained()
            }
            _ => None,
        };
        if self.phase().is_playing()
            && let Some(path) = ahead
        {
            let ply = self.game.as_ref().map_or(0, |g| g.plies()) + path.len();
            let board = self.seen_board();
            self.reader.note_ahead(t, ply, board, path);
        }
    }

    /// Moves made in quick succession (time trouble: each placement shown for less than a
    /// settle, the presses too fast for the clock's reports): the board followed from the
    /// last placement moves explained, a move or two at a time, as long as it was watched.
    pub(super) fn chained(&self) -> Option<Vec<Move>> {
        let g = self.game.as_ref()?;
        let (_, prev) = self.reader.last_ahead.as_ref()?;
        self.extended_to_board(g, prev)
            .or_else(|| self.slide_went_on(g, prev))
    }

    /// `prev` with its last move's piece gone on along the same line to where the board
    /// shows it: a sliding piece is reported on every square it passes (protocol §4.1), and
    /// in a time scramble a square on the way can be reported for longer than a move the
    /// board showed by itself (Ra1-a2 … a3, Bc1-g5 … xh6). The last move was the slide in
    /// progress, not a move of its own.
    fn slide_went_on(&self, g: &Game, prev: &[Move]) -> Option<Vec<Move>> {
        if self.reader.after_gap {
            return None;
        }
        let (last, before) = prev.split_last()?;
        let mut pos = g.current().clone();
        for m in before {
            pos.play_unchecked(*m);
        }
        let on = reconstruct::one_move_to(&pos, &self.seen_board())
            .filter(|m| reconstruct::slide_prefix(last, m))?;
        Some(before.iter().copied().chain([on]).collect())
    }

    /// `prev` (moves from the current position) followed by the moves that lead on from
    /// there to what the board shows, within the depth allowed while it is watched.
    pub(super) fn extended_to_board(&self, g: &Game, prev: &[Move]) -> Option<Vec<Move>> {
        if self.reader.after_gap || prev.len() + 1 > DEPTH_AFTER_GAP {
            return None;
        }
        let mut pos = g.current().clone();
        for m in prev {
            pos.play_unchecked(*m);
        }
        let target = self.seen_board();
        let mut budget = 50_000;
        let more =
            reconstruct::find_path_with(&pos, &target, DEPTH_ON_CHANGE, &mut budget, g.drops)?;
        let path: Vec<Move> = prev.iter().chain(&more).copied().collect();
        (path.len() <= DEPTH_AFTER_GAP).then_some(path)
    }

    /// The board shows the placement after `last_ahead` with the opponent's hands at work
    /// (his pieces lifted or moved, the mover's all where those moves left them): the reply
    /// has begun, so the last move was complete where it stood (4.7: a piece released on a
    /// square stays there; a slide does not wait for the opponent's hand).
    pub(super) fn note_answered(&mut self) {
        let Some(g) = self.game.as_ref() else { return };
        let Some((_, path)) = self.reader.last_ahead.as_ref() else {
            return;
        };
        let mut pos = g.current().clone();
        for m in path {
            pos.play_unchecked(*m);
        }
        let answerer = pos.turn();
        let shown = self.seen_board();
        let d = board::diff(pos.board(), &shown);
        let only_answerer = !d.is_empty()
            && d.into_iter().all(|sq| {
                pos.board().color_at(sq) != Some(!answerer) && shown.color_at(sq) != Some(!answerer)
            });
        if only_answerer {
            self.reader.answered = Some((g.plies(), path.clone()));
        }
    }

    /// Moves that continue an answered placement (`note_answered`) to `target`: the answered
    /// moves, then the reply and what followed it.
    pub(super) fn continued_after_answer(&self) -> Option<Vec<Move>> {
        let g = self.game.as_ref()?;
        let (plies, prev) = self.reader.answered.as_ref()?;
        if *plies != g.plies() {
            return None;
        }
        self.extended_to_board(g, prev)
    }

    /// Moves in quick succession can reach a placement that fewer moves also reach (Kg4
    /// Kg2 Kf4 and Kf4 Kg2: the board tells only which piece stands where, protocol §3.3).
    /// The longer line is the one played when the board showed each of its placements in
    /// turn (`chained`, `shown_move_by_move`): the king did stand on g4 while the other
    /// moved.
    ///
    /// A move the opponent began to answer was complete (`note_answered`): when the reply
    /// and the mover's next lift fall in one scan (protocol §4.1: a scan reports every
    /// square that changed), the placement after the reply is never shown, and the piece
    /// moving on reads as one longer move (Bb2 Kc2 Bc3 read as Bc3 Kc2: the bishop
    /// left b2 in the scan that showed the king on c2). The answered line stands.
    pub(super) fn followed_further(&self, path: Vec<Move>) -> Vec<Move> {
        match self.chained() {
            Some(c) if c.len() > path.len() && self.shown_move_by_move(&c) => c,
            _ => match self.continued_after_answer() {
                Some(c) if c.len() > path.len() => c,
                _ => path,
            },
        }
    }

    /// Whether the board showed the position after each move of `path` but the last, as
    /// that ply of the game: the moves were followed one by one, none inferred from a
    /// placement the board never showed.
    pub(super) fn shown_move_by_move(&self, path: &[Move]) -> bool {
        let Some(g) = &self.game else { return false };
        let mut pos = g.current().clone();
        let (before_last, _) = path.split_at(path.len().saturating_sub(1));
        before_last.iter().enumerate().all(|(k, m)| {
            pos.play_unchecked(*m);
            self.shown_as(g.plies() + k + 1, pos.board()).is_some()
        })
    }

    /// How recently (a larger number is more recent) the board showed `board` as the
    /// position after `ply` plies.
    pub(super) fn shown_as(&self, ply: usize, board: &shakmaty::Board) -> Option<usize> {
        self.reader.shown_as(ply, board)
    }

    /// Whether the board is the current position after a move it showed, with one piece of
    /// the reply lifted.
    pub(super) fn reply_in_hand(&self, shown: &shakmaty::Board) -> bool {
        self.game.as_ref().is_some_and(|g| {
            reconstruct::one_move_with_reply_in_hand(g.current(), shown, |m| self.when_shown(m))
                .is_some()
        })
    }

    /// Two moves that end in the same placement (g2g4 hxg3 e.p. and g2g3 hxg3; f1=R Rxf1
    /// and f1=Q Rxf1): the pair whose first move the board showed by itself, the latest
    /// shown (a slide's intermediate square was shown before). A press relayed late, or a
    /// bus poll, often brings a move and its reply together. Three moves (two presses
    /// between clock reports and the reply made): the same for the first, so that two
    /// independent moves of one side are read in the order they were made (b2b4 …f5 Ng3,
    /// not Ng3 …f5 b4).
    pub(super) fn prefer_shown(&self, interp: Interpretation) -> Interpretation {
        let Interpretation::Ahead(path) = &interp else {
            return interp;
        };
        if !(2..=DEPTH_WATCHED + 1).contains(&path.len()) {
            return interp;
        }
        let Some(g) = &self.game else { return interp };
        let target = self.seen_board();
        let mut best: Option<(usize, Vec<Move>)> = None;
        for m in reconstruct::legal_moves(g.current()) {
            let Some(when) = self.when_shown(&m) else {
                continue;
            };
            if best.as_ref().is_some_and(|(w, _)| *w >= when) {
                continue;
            }
            let mut after = g.current().clone();
            after.play_unchecked(m);
            let rest = if path.len() == 2 {
                reconstruct::one_move_to(&after, &target).map(|reply| vec![reply])
            } else {
                let mut budget = 20_000usize;
                reconstruct::find_path_with(&after, &target, path.len() - 1, &mut budget, g.drops)
                    .filter(|rest| rest.len() == path.len() - 1)
            };
            if let Some(rest) = rest {
                let mut whole = vec![m];
                whole.extend(rest);
                best = Some((when, whole));
            }
        }
        match best {
            Some((_, whole)) => Interpretation::Ahead(whole),
            None => interp,
        }
    }

    /// Whether fewer moves than `path` and one piece lifted by the player then on move (off
    /// the board for his next move) also show the placement. A three-ply reading of two
    /// hidden presses can turn a lifted piece into a captured one: Bc5-e3 with the queen on
    /// f3 in the hand shows Bd4 Qe3 Bxe3, h5 Na3 with the bishop lifted to take on a3 shows
    /// Ba3 Nxa3 h5. Such a reading waits for a longer calm, or a press
    /// (`docs/decisions/D59-three-ply-reading-that-lifted.md`).
    pub(super) fn lifted_piece_explains(&self, path: &[Move]) -> bool {
        let Some(g) = &self.game else { return false };
        let target = self.seen_board();
        // One piece of the player on move missing from `pos`, lifted while the board was
        // still changing (a piece lifted earlier and still off is no move under way): the
        // placement shown.
        let lifted_since = self.board.last_change.saturating_sub(self.rules.settle_ms);
        let lifted_from = |pos: &Chess| {
            let d = board::diff(pos.board(), &target);
            d.count() == 1
                && d.first().is_some_and(|sq| {
                    target.piece_at(sq).is_none()
                        && pos.board().color_at(sq) == Some(pos.turn())
                        && self.board.square_changed_at[usize::from(sq)] >= lifted_since
                })
        };
        let mut frontier = vec![g.current().clone()];
        for _ in 1..path.len() {
            let mut next = Vec::new();
            for pos in &frontier {
                for m in reconstruct::legal_moves(pos) {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    if lifted_from(&after) {
                        return true;
                    }
                    next.push(after);
                }
            }
            frontier = next;
        }
        false
    }

    /// Whether the board showed the current position with `m` played, not long ago.
    pub(super) fn was_shown(&self, m: &Move) -> bool {
        self.when_shown(m).is_some()
    }

    /// How recently (a larger number is more recent) the board showed `m` played: the
    /// placement after it, shown as the next ply of this game (the same placement shown
    /// plies ago, before the position repeated, tells nothing about the move made now).
    pub(super) fn when_shown(&self, m: &Move) -> Option<usize> {
        let g = self.game.as_ref()?;
        let mut after = g.current().clone();
        after.play_unchecked(*m);
        self.shown_as(g.plies() + 1, after.board())
    }

    pub(super) fn decision_depth(&self) -> usize {
        // Two presses seen on the clock since the last move recorded (both displays up by
        // the increment, protocol §3.4): the two moves they completed and the reply already
        // made after them can all be on the board (a time scramble, presses ~0.3 s apart
        // between two clock reports) — one ply deeper, and only with that evidence.
        let pressed_twice = usize::from(self.press.two_presses_unseen);
        self.reader
            .decision_depth()
            .max(DEPTH_WATCHED + pressed_twice)
    }

    pub(super) fn interpret(&self, depth: usize) -> Option<Interpretation> {
        let g = self.game.as_ref()?;
        Some(reconstruct::interpret(g, &self.seen_board(), depth))
    }

    /// Whether the player to move still has their clock running, so that the press (not the
    /// board alone) completes the move.
    /// The clock is connected and reads stopped (status byte D0 = 0, protocol §3.4):
    /// no player's time runs, as when the players stopped it at the end of the game.
    pub(super) fn clock_stopped(&self) -> bool {
        self.clock.is_connected() && self.clock.last().is_some() && self.clock.running().is_none()
    }

    pub(super) fn waits_for_press(&self) -> bool {
        let Some(running) = self.clock.running() else {
            return false;
        };
        if !self.clock.is_connected() {
            return false;
        }
        let Some(g) = &self.game else { return false };
        match self.clock.display_of(g.current().turn().is_white()) {
            Some(d) => d == running,
            None => true,
        }
    }

    /// The board as the game reads it: the placement, with pieces knocked off the board
    /// (`ghosts`) put back on their squares while those are empty and the game still has
    /// them there.
    ///
    /// A board the game explains as it is wins: a knocked-off piece that was put back and
    /// moved on leaves its square empty legally.
    pub(super) fn seen_board(&self) -> shakmaty::Board {
        let raw = self.board.physical.placement(self.board.orientation).board;
        let Some(g) = self.game.as_ref().filter(|_| !self.watch.ghosts.is_empty()) else {
            return raw;
        };
        let mut b = raw.clone();
        for &(sq, piece) in &self.watch.ghosts {
            if b.piece_at(sq).is_none() && g.current().board().piece_at(sq) == Some(piece) {
                b.set_piece_at(sq, piece);
            }
        }
        if b != raw
            && reconstruct::interpret(g, &raw, self.decision_depth()) != Interpretation::Unexplained
        {
            return raw;
        }
        b
    }

    /// The player who pressed, once the clock's sides are known.
    pub(super) fn presser(&self, display: ClockSide) -> Option<Color> {
        let white = self.clock.white_side()?;
        Some(if display == white {
            Color::White
        } else {
            Color::Black
        })
    }

    /// A move of the player on move, other than `first` and not a square on `first`'s slide,
    /// that the board showed complete and that only the opponent's hands changed since (his
    /// pieces lifted or on their way, the moved piece taken off): the latest shown.
    pub(super) fn shown_then_answered(
        &self,
        first: &Move,
        shown: &shakmaty::Board,
    ) -> Option<Move> {
        let g = self.game.as_ref()?;
        let pos = g.current();
        let mut best: Option<(usize, Move)> = None;
        for m in reconstruct::legal_moves(pos) {
            if m == *first || reconstruct::slide_prefix(&m, first) {
                continue;
            }
            let Some(when) = self.when_shown(&m) else {
                continue;
            };
            if best.is_some_and(|(w, _)| w >= when) {
                continue;
            }
            if reconstruct::only_opponent_changed(pos, &m, shown) {
                best = Some((when, m));
            }
        }
        best.map(|(_, m)| m)
    }

    /// Two moves at once are believed only if the first was seen on the board by itself:
    /// "Qxg3, queen lifted by the recapturing hand" also reads as "Qxf4 gxf4".
    pub(super) fn believable(&self, path: &[Move]) -> bool {
        path.len() == 1 || self.reader.after_gap || self.was_shown(&path[0])
    }

    /// How many moves of `path`, from its start, the board showed one by one: the placement
    /// after each of them shown as that ply of the game. Moves followed in quick succession
    /// (`chained`) may be read two at a time from a placement in between, and a move in
    /// progress can read as two (the pawn on d4 taken off and the queen on c3 lifted for
    /// Qxd4 is the placement of Qxe3 dxe3 after ...e3: the board tells only which piece
    /// stands where, protocol §3.3): such a pair is no move the board showed. After a gap
    /// nothing was shown in between, and the whole path stands.
    pub(super) fn shown_prefix(&self, path: &[Move]) -> usize {
        let Some(g) = &self.game else { return 0 };
        if self.reader.after_gap {
            return path.len();
        }
        let mut pos = g.current().clone();
        path.iter()
            .enumerate()
            .take_while(|(k, m)| {
                pos.play_unchecked(**m);
                self.shown_as(g.plies() + k + 1, pos.board()).is_some()
            })
            .count()
    }

    /// How many moves of `path` (which starts with `mover`'s move) the press completed: up
    /// to the presser's own last move. A reply after it waits for its own press.
    ///
    /// A press judged only when the opponent's press overtook it came before that one: it
    /// completed the presser's first move, not one made after the opponent's reply, which
    /// the opponent's press completes and the presser's next move follows — unless
    /// two presses were read unseen before either press (they completed the moves between).
    /// `first_only`: moves followed one by one past a shorter reading, of which the
    /// press completed the presser's first.
    pub(super) fn completed_by_press(
        &self,
        display: ClockSide,
        mover: Color,
        path: &[Move],
        first_only: bool,
    ) -> usize {
        let presser = self.presser(display).unwrap_or(mover);
        let mut presser_moves = (0..path.len()).filter(|i| (i % 2 == 0) == (presser == mover));
        let last = if first_only
            || self
                .press
                .overtaken_by
                .is_some_and(|later| later != display)
                && !self.press.press_after_hidden
        {
            presser_moves.next()
        } else {
            presser_moves.next_back()
        };
        last.map_or(0, |i| i + 1)
    }
}
