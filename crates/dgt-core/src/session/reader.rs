//! The move reader: what the board shows, read against the game — the moves it explains,
//! the placements it showed one by one, and what a settled board or a press means
//! ([`Reading`], [`PressReading`]). It decides nothing: the referee (`referee.rs`) acts on
//! its readings.

use super::*;

/// What a settled board shows, read by [`Session::read_settled`] while a game is played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reading {
    /// The players signalled a result on the board (protocol §4.5); `kings`: by the kings
    /// in the centre, not by a magic piece.
    Gesture {
        result: GameResult,
        how: String,
        kings: bool,
    },
    /// The current position.
    Same,
    /// The position after these legal moves (one, or a reply too).
    Moves(Vec<Move>),
    /// Another move than the last, unconfirmed one, shown soon after it: it replaces it.
    Correct(Move),
    /// An earlier position of the game, after this many plies (a take-back, a restored
    /// position).
    Restore(usize),
    /// Nothing the game explains: an illegal position, a move in progress, or a bughouse
    /// piece taken or a drop replaced.
    Unexplained,
}

/// What the board shows when a press is judged (6.2.1: the press completes the move on the
/// board), read by [`Session::read_press`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PressReading {
    /// Ply 0 and nothing moved: the press only started the opponent's clock.
    ClockStarted,
    /// The player not on move pressed while the board shows the opponent at work: his own
    /// move was read before the clock's report of the press came in; this completes nothing.
    NotOnMove,
    /// Two moves whose first the board never showed by itself, while it did show this move
    /// of the presser complete, which only the opponent's hands changed since.
    ShownThenAnswered(Move),
    /// The moves the board shows: the press completes the presser's, a reply waits.
    Moves(Vec<Move>),
    /// Moves the board showed one by one past a shorter reading of the same placement (a
    /// piece moved twice around the reply reads as one longer move, `followed_further`):
    /// the press completes the presser's first move of them, the rest wait.
    Followed(Vec<Move>),
    /// Another move than the last, unconfirmed one: it replaces it.
    Correct(Move),
    /// The move made, and the opponent already holding a piece for the reply.
    ReplyInHand(Move),
    /// The board has not caught up with the press: look again once it settles.
    LookAgain,
    /// The board moved on: the press completed the move the board showed last.
    LastShown,
    /// The position is unchanged and the player on move pressed (7.5.3 / 2017 7.8.1).
    PressWithoutMove,
    /// The position is unchanged and the player who owed a press for his earlier move made
    /// it (6.2.2).
    OwedPress,
    /// The position is unchanged and the other player pressed late: his move is confirmed.
    LatePress,
    /// A legal move, then pieces knocked off the board before the press was judged.
    MoveThenDisplaced(Move),
    /// No legal move explains the board shown: an illegal move, or tracking lost.
    Unexplained(shakmaty::Board),
}

/// A settled board as the reader finds it, before the session acts on it.
enum Settled {
    /// One king put in the centre while the other may still move (`CENTRE_KING_WAIT_MS`):
    /// read again once both stood still.
    KingsMoving {
        calm_at: u64,
    },
    Read(Reading),
    /// What moves explain the board, to be read once the session knows whether it ends a
    /// gap (`after_gap`).
    Shown(Interpretation),
}

/// The move reader: a read-only view of the session. It turns the game, the placement, the
/// placements shown and the clock into a [`Reading`] or a [`PressReading`]; it commits no
/// move, raises no alert and sets no timer — it holds only a shared borrow of the session.
pub(super) struct Reader<'a> {
    session: &'a Session,
}

impl std::ops::Deref for Reader<'_> {
    type Target = Session;

    fn deref(&self) -> &Session {
        self.session
    }
}

impl Session {
    /// The reader's view of this session.
    pub(super) fn reader_view(&self) -> Reader<'_> {
        Reader { session: self }
    }

    /// Reads the settled board while a game is played (`None` otherwise). Puts the settle
    /// off while a result gesture's second king may still move; clears the gap
    /// (`after_gap`) once the board shows something the game explains.
    pub(super) fn read_settled(&mut self, t: u64, depth: usize) -> Option<Reading> {
        let interp = match self.reader_view().settled(t, depth)? {
            Settled::KingsMoving { calm_at } => {
                self.timers.set(Timer::Settle, calm_at);
                return None;
            }
            Settled::Read(reading) => return Some(reading),
            Settled::Shown(interp) => interp,
        };
        if !matches!(interp, Interpretation::Unexplained) {
            self.reader.after_gap = false;
        }
        Some(self.reader_view().settled_reading(t, interp))
    }

    /// Reads the board for a press of `display` while a game is played (`None` otherwise),
    /// with the player on move.
    pub(super) fn read_press(
        &self,
        t: u64,
        display: ClockSide,
        final_look: bool,
    ) -> Option<(Color, PressReading)> {
        self.reader_view().press(t, display, final_look)
    }
}

impl Reader<'_> {
    /// Reads the settled board while a game is played (`None` otherwise): a result
    /// signalled, a king still to be put in the centre, or what moves explain the board.
    fn settled(&self, t: u64, depth: usize) -> Option<Settled> {
        let game = self.playing()?;
        let placement = self.board.physical.placement(self.board.orientation);
        if let Some((result, how)) = reconstruct::result_gesture(&placement) {
            // Only the kings' gesture puts a king in the centre; a magic piece is a gesture
            // of its own (protocol §4.5).
            let kings = placement.magic.is_empty();
            // One king still where it stood in the game: only the other has been put in the
            // centre yet, and its player may still move the first to the square the result
            // needs (a draw from a king on d5: the white king to e4 — two light squares,
            // 1-0, for a moment — then the black king to e5). Read once both stood still.
            let one_king_unmoved = kings
                && [Color::White, Color::Black]
                    .into_iter()
                    .any(|c| placement.board.king_of(c) == game.current().board().king_of(c));
            let calm_at = self.board.last_change + CENTRE_KING_WAIT_MS;
            if one_king_unmoved && t < calm_at {
                return Some(Settled::KingsMoving { calm_at });
            }
            return Some(Settled::Read(Reading::Gesture { result, how, kings }));
        }
        let interp = match self.interpret_logged(game, &placement.board, depth) {
            // Moves in quick succession (time trouble): each placement was shown for less
            // than a settle, so none was decided, but the board showed each of them in turn
            // while watched (`chained`, `shown_move_by_move`). They are decided now as if
            // shown together: earlier ones stand, the last waits for its press if its
            // player's clock runs (without a clock, the board alone completes moves).
            Interpretation::Unexplained => self
                .chained()
                .filter(|path| self.shown_move_by_move(path))
                .map_or(Interpretation::Unexplained, Interpretation::Ahead),
            Interpretation::Ahead(path) => Interpretation::Ahead(self.followed_further(path)),
            other => other,
        };
        Some(Settled::Shown(interp))
    }

    /// The reading of a settled board from what moves explain it (`settled`).
    fn settled_reading(&self, t: u64, interp: Interpretation) -> Reading {
        match self.logged_on_the_way(self.prefer_shown(interp)) {
            Interpretation::Same => Reading::Same,
            Interpretation::Ahead(path) => Reading::Moves(path),
            // A piece moved on from where it was released long ago is a second move, not the
            // end of a slide (or of castling begun with the rook): 4.7, the move was made.
            Interpretation::Sibling(m) if t < self.board.same_since + SIBLING_MAX_MS => {
                Reading::Correct(m)
            }
            Interpretation::Earlier(k) => Reading::Restore(k),
            Interpretation::Sibling(_) | Interpretation::Unexplained => Reading::Unexplained,
        }
    }

    /// Reads the board for a press of `display` while a game is played (`None` otherwise),
    /// with the player on move. `final_look` is the deferred second look, after which an
    /// unexplained board is an illegal move.
    fn press(&self, t: u64, display: ClockSide, final_look: bool) -> Option<(Color, PressReading)> {
        let g = self.playing()?;
        let mover = g.current().turn();
        let mut placement = self.board.physical.placement(self.board.orientation);
        placement.board = self.seen_board();
        let interp = self.press_interpretation(g, &placement.board);
        if let Some(reading) = self.press_started_clock(g, &interp, final_look) {
            return Some((mover, reading));
        }
        let presser = self.presser(display);
        // 6.2.1: a press completes the presser's own move. The player not on move pressed:
        // the board showed his move settled before the clock's report of the press came in
        // (the clock is relayed by the board, protocol §3.4), and it is in the game already.
        // What the board shows now is the opponent's doing (a move in progress, a knocked
        // piece): this press completes none of it. A move the board shows complete is still
        // read below (`completed_by_press` leaves it to its own press).
        if presser == Some(!mover)
            && !matches!(
                interp,
                Interpretation::Ahead(_) | Interpretation::Sibling(_)
            )
        {
            return Some((mover, PressReading::NotOnMove));
        }
        // A piece moved twice around the reply in a time scramble (Bf1-h3, axb5, Bh3-g2,
        // each placement shown for less than a settle) leaves the placement of one longer
        // move and the reply (Bf1-g2 axb5); the board showed each move in turn while it was
        // watched (`followed_further`), and the press, made before the reply, completed
        // only the first (6.2.1). Only a line whose every placement but the last the
        // board showed as that ply: a capturer reported on a square of its slide, then the
        // piece it takes lifted (Rg2xg6 seen on g5), is no move answered.
        let followed = match &interp {
            Interpretation::Ahead(path) => Some(self.followed_further(path.clone()))
                .filter(|f| f.len() > path.len() && self.shown_move_by_move(f)),
            _ => None,
        };
        let reading =
            match self.press_on_moves_shown(interp, followed, presser, mover, &placement.board) {
                Ok(reading) => reading,
                Err(interp) => {
                    self.press_on_no_move_shown(t, g, interp, display, final_look, placement.board)
                }
            };
        Some((mover, reading))
    }

    /// What the board shows at a press, read as at a settle (`read_settled`) and with the
    /// longer line it showed move by move preferred.
    fn press_interpretation(&self, g: &Game, board: &shakmaty::Board) -> Interpretation {
        let interp = match self.interpret_logged(g, board, self.decision_depth()) {
            // A piece's two moves around the opponent's quick reply reach a placement that
            // one move of it and the reply also reach (Ke2-f2 …Bb7 Kf2-e3 and Ke2-e3 …Bb7).
            // The board showed the placement after each move of the longer line in turn
            // (`chained`): that line was played, as when the board settles (`read_settled`),
            // and a press judged before it settles reads it too. A first move that is
            // a square on the shorter line's slide (c2-c3 …f5 c3-c4 for c2-c4 …f5: a slide
            // reports every square it passes, protocol §4.1) is believed only with two
            // presses read unseen since the last press seen (three moves need three
            // presses): this press is the third.
            Interpretation::Ahead(path) => Interpretation::Ahead(
                self.chained()
                    .filter(|c| {
                        c.len() > path.len()
                            && self.shown_move_by_move(c)
                            && (self.press.press_after_hidden
                                || !reconstruct::slide_prefix(&c[0], &path[0]))
                    })
                    .unwrap_or(path),
            ),
            other => other,
        };
        self.logged_on_the_way(self.prefer_shown(interp))
    }

    /// A press at ply 0 that only starts White's clock, or asks for another look before it
    /// is read as one.
    fn press_started_clock(
        &self,
        g: &Game,
        interp: &Interpretation,
        final_look: bool,
    ) -> Option<PressReading> {
        let mover = g.current().turn();
        // At ply 0 with nothing moved, a press only starts White's clock. (Judged here, not
        // when the press is seen: White's first move may be on the board, not yet reported.)
        // At the first look the board may still be catching up — it reports a square up to
        // ~400 ms after the piece lands (protocol §4.1), and in a time scramble White presses
        // within ~50 ms of the placement — so look once more: a press read as a start too
        // early would turn the clock's sides round and credit every later press to the
        // wrong player. A first move whose piece the board reported landing later than that
        // after the press was made after it: the press only started the clock. Its first
        // landing after the lift counts, not its last: a badly centred piece toggles on its
        // square after it lands (protocol §4.1), and the square read again after the press
        // is no later move (a2-a3 reported on a3 before the press, then off and on again
        // ~450 ms after it: read as a start, the clock's sides would be turned round and
        // every later press read as a press without a move).
        if g.plies() == 0 && self.reader.last_ahead.is_none() && *interp == Interpretation::Same {
            let reading = if final_look {
                PressReading::ClockStarted
            } else {
                PressReading::LookAgain
            };
            return Some(reading);
        }
        if g.plies() == 0
            && final_look
            && let Interpretation::Ahead(path) = interp
            && self
                .board.handling
                .first_put_on_since(
                    path[0].to(),
                    mover,
                    path[0]
                        .from()
                        .and_then(|from| self.board.handling.last_change_on(&[from]))
                        .unwrap_or(0),
                )
                .is_some_and(|landed| landed > self.press.seen_at + REPORT_LAG_MS)
            // Nor is it a start if the board reported the piece lifted before the press: the
            // move was under way, and its landing came late (a piece flickering from the
            // moment it is put down: b2 off before the press, b4 first reported 430 ms
            // after it).
            && !path[0].from().is_some_and(|from| {
                self.board.handling
                    .last_lift_from(from, mover)
                    .is_some_and(|lifted| lifted < self.press.seen_at)
            })
        {
            return Some(PressReading::ClockStarted);
        }
        None
    }

    /// A press read from the moves the board shows, if it shows the presser's: the
    /// interpretation given back otherwise.
    fn press_on_moves_shown(
        &self,
        interp: Interpretation,
        followed: Option<Vec<Move>>,
        presser: Option<Color>,
        mover: Color,
        board: &shakmaty::Board,
    ) -> Result<PressReading, Interpretation> {
        match interp {
            Interpretation::Ahead(_) if let Some(further) = followed => {
                Ok(PressReading::Followed(further))
            }
            // Two moves at once whose first the board never showed by itself, while it did
            // show another move of the presser that only the opponent's hands changed since:
            // the press completed the move shown, and the rest is the reply in progress (the
            // moved piece taken off, the capturer sliding past a square that happens to make
            // two legal moves, protocol §4.1).
            Interpretation::Ahead(path)
                if presser != Some(!mover)
                    && !self.believable(&path)
                    && let Some(m) = self.shown_then_answered(&path[0], board) =>
            {
                Ok(PressReading::ShownThenAnswered(m))
            }
            // With the press known, the presser's move is complete: two moves the board
            // shows are believed unless a lifted piece explains it with the move shown.
            Interpretation::Ahead(path) if self.believable(&path) || !self.reply_in_hand(board) => {
                Ok(PressReading::Moves(path))
            }
            Interpretation::Sibling(m) => Ok(PressReading::Correct(m)),
            // The line the board showed move by move, and the player then on move holding a
            // piece for his next one: read as one move with the opponent's piece lifted, the
            // line turned into the shorter one the board never showed.
            Interpretation::Unexplained if let Some(path) = self.shown_line_then_lifted(board) => {
                Ok(PressReading::Moves(path))
            }
            other => Err(other),
        }
    }

    /// A press read when the board shows no move of the presser's to complete: a reply in
    /// hand, the board still catching up, the last move shown, no move, a move and pieces
    /// knocked off, or a board the game does not explain.
    fn press_on_no_move_shown(
        &self,
        t: u64,
        g: &Game,
        interp: Interpretation,
        display: ClockSide,
        final_look: bool,
        board: shakmaty::Board,
    ) -> PressReading {
        let mover = g.current().turn();
        match interp {
            // The opponent already holds a piece for the reply.
            _ if let Some(m) =
                reconstruct::one_move_with_reply_in_hand(g.current(), &board, |m| {
                    self.when_shown(m)
                })
                // The moved piece gone from its square is taken in reply only if it stays
                // gone: first look again (it may be flickering, or still on its way), until
                // the press's bound.
                .filter(|m| {
                    (final_look && t >= self.press.seen_at + PRESS_MAX_WAIT_MS)
                        || !own_piece_gone(g.current(), m, &board)
                }) =>
            {
                PressReading::ReplyInHand(m)
            }
            Interpretation::Unexplained if !final_look || self.board_catching_up(t, g, &board) => {
                PressReading::LookAgain
            }
            // The board moved on: the move the press completed is the last one the board
            // showed.
            _ if self
                .reader
                .last_ahead
                .as_ref()
                .is_some_and(|(_, p)| self.believable(p)) =>
            {
                PressReading::LastShown
            }
            Interpretation::Same => {
                let pressed_by_mover = self.clock.display_of(mover.is_white()) == Some(display);
                if !pressed_by_mover {
                    PressReading::LatePress
                } else if self.watch.owes_press == Some(mover) || self.replied_after_press(g) {
                    PressReading::OwedPress
                } else if !final_look {
                    // The board shows no move yet, but it reports a change up to ~400 ms
                    // after the piece lands (protocol §4.1) and at speed the press follows
                    // the placement within ~50 ms: look once more before calling it a press
                    // without a move (7.5.3). What the board cannot tell apart — a press
                    // just before the move — is then read as the move that press completed.
                    PressReading::LookAgain
                } else {
                    PressReading::PressWithoutMove
                }
            }
            // A legal move made, then a piece knocked off the board before the press was
            // judged (the clock's report is relayed behind the board's, protocol §3.4): the
            // press completes the move (6.2.1); the pieces off the board are a displacement,
            // watched as any other (7.1), not part of an illegal move.
            _ if self.watch.stood.is_none()
                && let Some((m, _)) =
                    reconstruct::one_move_with_pieces_off(g.current(), &board) =>
            {
                PressReading::MoveThenDisplaced(m)
            }
            _ => PressReading::Unexplained(board),
        }
    }

    /// The line the board showed last (`last_ahead`), of two moves or more, each shown as its
    /// ply in turn (`shown_prefix`), with one piece of the player then on move off the board:
    /// his next move under way. In a time scramble the press is judged after the board
    /// settles, and a piece lifted by then (a pawn taken up ~0.2 s after the last placement)
    /// makes the board one move short of the line with the opponent's piece in hand (Qb8-d8
    /// …h3 Qd8-b6 with the h3 pawn lifted is not Qb8-b6 with the h4 pawn lifted). Three
    /// moves need two presses read unseen before this one: the press judged is the third.
    fn shown_line_then_lifted(&self, shown: &shakmaty::Board) -> Option<Vec<Move>> {
        let g = self.game.as_ref()?;
        let (_, path) = self.reader.last_ahead.as_ref()?;
        if path.len() < 2
            || (path.len() > 2 && !self.press.press_after_hidden)
            || self.shown_prefix(path) < path.len()
        {
            return None;
        }
        let mut pos = g.current().clone();
        for m in path {
            pos.play_unchecked(*m);
        }
        let d = board::diff(pos.board(), shown);
        let sq = d.first().filter(|_| d.count() == 1)?;
        (shown.piece_at(sq).is_none() && pos.board().color_at(sq) == Some(pos.turn()))
            .then(|| path.clone())
    }

    /// The opponent's last move began after this press was seen: the board reported its
    /// piece leaving its square later than the clock reported the press. The press came
    /// before that reply and completed the presser's own move before it (6.2.1), pressed
    /// late — the opponent moved while the presser's clock still ran, and both moves were
    /// read before the press was judged (…f5 pressed ~5 s late, Rg2-c2 lifted 250 ms after
    /// the press's report). Not a press without a move.
    fn replied_after_press(&self, g: &Game) -> bool {
        g.plies() >= 2
            && g.moves
                .last()
                .and_then(|m| m.mv.from())
                .is_some_and(|from| {
                    self.board.square_changed_at[usize::from(from)] > self.press.seen_at
                })
    }

    /// An unexplained board at a press's first look, or later within the press's bound when
    /// the board is still catching up with a move made: the press is looked at again.
    fn board_catching_up(&self, t: u64, g: &Game, shown: &shakmaty::Board) -> bool {
        if t >= self.press.seen_at + PRESS_MAX_WAIT_MS {
            return false;
        }
        // A bus board's first press with White's piece still in the hand: the board logs a
        // press at once but a landing only at the end of its scan (protocol §3.6), so the
        // press's packet can show the piece lifted and the next poll, about a second later
        // (§2.4), its landing. Read as an illegal move, the opening's moves would be lost
        // (f3 read as an illegal f2 lifted, then f3 f4 as one move).
        if self.link.bus.is_some()
            && g.plies() == 0
            && reconstruct::piece_in_hand(g.current(), shown).is_some()
        {
            return true;
        }
        // The presser's moved piece is gone again from the square the board showed it on:
        // taken in reply, or still sliding — a slide reports every square it passes
        // (protocol §4.1), and the square it stops on can be reported ~400 ms late, longer
        // while the piece flickers (b7-b6 shown, the pawn off b6, b5 reported after the
        // press). The board tells which once it reports where the piece went: look again,
        // within the bound; past it the piece counts as taken.
        reconstruct::one_move_with_reply_in_hand(g.current(), shown, |m| self.when_shown(m))
            .is_some()
            // The presser's capturer is off the board and the piece it takes is gone: the
            // capture was made before the press, but the board has not reported the
            // capturer's square yet — a board reports a change up to ~400 ms late, and not
            // while the piece flickers (protocol §4.1). Its slide's last square, shown
            // earlier, is no move.
            || reconstruct::capture_in_hand(g.current(), shown).is_some()
            // The king stands on its castling square and the rook is off the board: the
            // castling is under way (3.8.2: the king two squares over, then the rook to the
            // square the king crossed), and the rook's square is reported late — a change up
            // to ~400 ms after the piece lands, later while it flickers (protocol §4.1). The
            // king's slide square shown on the way (Kd8 for O-O-O) is no move.
            || reconstruct::castling_in_hand(g.current(), shown).is_some()
            // Only a piece of the presser off the board, one that can move: the move was
            // made, and the square it landed on is not reported yet — a change up to ~400 ms
            // late, and not while the piece flickers on a badly centred square (protocol
            // §4.1: a6-a7 pressed with a7 toggling for ~700 ms). Past the
            // bound, pressing with the piece in hand is judged as it stands (7.5.3). Not at
            // the first move: there a landing reported late reads as a move made after a
            // press that only started the clock, and a flicker hiding it would turn the
            // clock's sides round for the whole game.
            || (g.plies() > 0 && reconstruct::piece_in_hand(g.current(), shown).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    /// The board's codes for `placement`, the board the right way round.
    fn codes_of(placement: &shakmaty::Board) -> [u8; 64] {
        let mut codes = [0u8; 64];
        for (i, code) in codes.iter_mut().enumerate() {
            if let Some(p) = placement.piece_at(board::to_square(i, Orientation::Normal)) {
                *code = (1..=12)
                    .find(|&c| board::chess_piece(dgt_protocol::DgtPiece::from_code(c)) == Some(p))
                    .expect("every piece has its code");
            }
        }
        codes
    }

    /// A session playing a game from the start, its board showing the start position after
    /// `shown` (UCI moves).
    fn playing_with(shown: &[&str]) -> (Session, Vec<Move>) {
        let mut s = Session::new("board-1", &CoreConfig::default());
        let start = Chess::default();
        s.game = Some(Game::new(
            "g1".into(),
            start.clone(),
            CastlingMode::Standard,
        ));
        let mut pos = start;
        let mut moves = Vec::new();
        for uci in shown {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            moves.push(m);
        }
        s.board.physical.apply_dump(&codes_of(pos.board()));
        (s, moves)
    }

    #[test]
    fn a_settled_board_one_move_on_reads_as_that_move() {
        let (mut s, moves) = playing_with(&["e2e4"]);
        assert_eq!(
            s.read_settled(1_000, DEPTH_WATCHED),
            Some(Reading::Moves(moves))
        );
    }

    #[test]
    fn a_settled_board_as_the_game_stands_reads_as_the_same() {
        let (mut s, _) = playing_with(&[]);
        assert_eq!(s.read_settled(1_000, DEPTH_WATCHED), Some(Reading::Same));
    }

    #[test]
    fn the_reader_reads_nothing_without_a_game() {
        let mut s = Session::new("board-1", &CoreConfig::default());
        assert_eq!(s.read_settled(1_000, DEPTH_WATCHED), None);
        assert_eq!(s.read_press(1_000, ClockSide::Left, true), None);
    }

    #[test]
    fn a_press_at_the_start_with_nothing_moved_looks_again_then_starts_the_clock() {
        let (s, _) = playing_with(&[]);
        assert_eq!(
            s.read_press(1_000, ClockSide::Left, false),
            Some((Color::White, PressReading::LookAgain))
        );
        assert_eq!(
            s.read_press(1_000, ClockSide::Left, true),
            Some((Color::White, PressReading::ClockStarted))
        );
    }

    #[test]
    fn a_press_with_the_move_on_the_board_completes_it() {
        let (s, moves) = playing_with(&["g1f3"]);
        assert_eq!(
            s.read_press(1_000, ClockSide::Left, true),
            Some((Color::White, PressReading::Moves(moves)))
        );
    }

    #[test]
    fn a_gap_ends_only_when_the_board_shows_what_the_game_explains() {
        let (mut s, _) = playing_with(&["e2e4"]);
        s.reader.after_gap = true;
        s.read_settled(1_000, DEPTH_WATCHED);
        assert!(!s.reader.after_gap);
        // A board no moves explain (a white rook on e5) leaves the gap open.
        let (mut s, _) = playing_with(&[]);
        let mut b = Chess::default().board().clone();
        b.set_piece_at(
            shakmaty::Square::E5,
            shakmaty::Piece {
                color: Color::White,
                role: shakmaty::Role::Rook,
            },
        );
        s.board.physical.apply_dump(&codes_of(&b));
        s.reader.after_gap = true;
        assert_eq!(
            s.read_settled(1_000, DEPTH_WATCHED),
            Some(Reading::Unexplained)
        );
        assert!(s.reader.after_gap);
    }
}
