//! Bughouse drops on one board: a drop judged against the reserve the partner board allows
//! (2.2, the regulation's ranks and checks), a reserve piece that touched the board (DJC
//! 4.1), a drop lifted or replaced before the press, a take-back demanded by a press back
//! (7.6), and a promotion forfeited for want of a piece on the other board (3.1).

use shakmaty::{Color, Move, Position, Role};

use super::Session;
use super::timers::Timer;
use crate::bughouse::{self, Regulation};
use crate::event::Emitted;
use crate::event::{AlertKind, EventBody, Severity};
use crate::reconstruct::fen;
use crate::verdict::DropVerdict;

impl Session {
    /// DJC 4.1: a reserve piece that touched the board must be dropped (unless it cannot be);
    /// a drop released on one square and moved to another before the press (FIDE 4.6 by
    /// analogy, L05 B22). Seen as a placement with one piece more shown for this ply.
    pub(super) fn reserve_piece_handling(&mut self, t: u64, out: &mut Emitted) {
        let (Some(seat), Some(g)) = (&self.bughouse, &self.game) else {
            return;
        };
        if seat.regulation.fide_underneath() {
            return;
        }
        let reg = seat.regulation;
        let ply = g.plies();
        let before = g.positions[ply - 1].board();
        let mover = g.positions[ply - 1].turn();
        let Some(made) = g.moves.last().map(|m| m.mv) else {
            return;
        };
        let made_drop = matches!(made, Move::Put { .. }).then(|| made.to());
        let after = g.positions[ply].board();
        // Only a placement read as this ply alone: one read as the previous move and the
        // reply together (an en passant with the captured pawn lifted last shows as the
        // capture and a pawn dropped on its square) is no reserve piece of this player's.
        let shown_drop = self.reader.seen.newest_first().find_map(|s| {
            if s.ply != ply || s.steps != 1 {
                return None;
            }
            let d = crate::board::diff(before, &s.board);
            let sq = d.single_square()?;
            let p = s.board.piece_at(sq)?;
            // A piece that stands there after the move made is that move's piece arriving,
            // reported before its start square within one scan (protocol §1.1: a scan
            // reports the squares it found changed in square order): no reserve piece.
            (before.piece_at(sq).is_none()
                && p.color == mover
                && p.role != Role::King
                && Some(sq) != made_drop
                && after.piece_at(sq) != Some(p))
            .then_some((sq, p.role))
        });
        let Some((square, piece)) = shown_drop else {
            return;
        };
        let (article, verdict) = match made {
            Move::Put { role: r, to } if r == piece => (
                "4.1; FIDE 4.6 by analogy",
                DropVerdict::MovedAfterDrop {
                    dropper: mover,
                    piece,
                    square,
                    to,
                },
            ),
            _ => (
                "4.1",
                DropVerdict::TakenBackForAnother {
                    dropper: mover,
                    piece,
                    square,
                },
            ),
        };
        let message = verdict.message();
        let mut a = self.alert(AlertKind::TouchMove, Severity::Claim, Some(mover), message);
        a.edition = reg.name().into();
        a.article = Some(article.into());
        a.squares = vec![square.to_string()];
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// The board shows an earlier position with one piece of the player who moved last
    /// lifted, and perhaps one of the player on move — or one of the player on move alone.
    /// In bughouse material grows (drops), so this is most often the opponent about to
    /// capture that piece (a piece dropped, or moved since it was dropped) with the piece in
    /// his hand, or making his move, not a restored position: it counts as restored only once it has stood for
    /// `illegal_position_ms`, or at once when the opponent pressed the clock back (7.6).
    /// Returns whether to wait.
    pub(super) fn drop_lifted_waits(&mut self, t: u64) -> bool {
        let wait = self.rules.illegal_position_ms;
        let shown = self.seen_board();
        let (Some(seat), Some(g)) = (&mut self.bughouse, &self.game) else {
            return false;
        };
        let last_mover = !g.current().turn();
        let current = g.current().board();
        // A capture in progress: the piece to be taken lifted, the capturer perhaps already
        // in the hand too. When both were just dropped (`B@a2`, `P@e6`, then `Bxe6`), the
        // board with both lifted is the position of two plies before.
        let d = crate::board::diff(current, &shown);
        let only_lifted = d.into_iter().all(|sq| shown.piece_at(sq).is_none());
        let victims = d
            .into_iter()
            .filter(|&sq| current.piece_at(sq).is_some_and(|p| p.color == last_mover))
            .count();
        // Or a piece of the player on move lifted alone, the start of his move: a pawn
        // lifted from its seventh rank to promote while its piece is fetched from the partner
        // board (3.1) — when that pawn was dropped there, and the plies since cancel out
        // (`P@c7`, `Kc8-d8`), the board with it lifted is an earlier position too.
        let lifted = only_lifted && ((victims == 1 && d.count() <= 2) || d.count() == 1);
        let running = self.clock.running();
        let pressed_back =
            running.is_some() && running == self.clock.display_of(last_mover.is_white());
        if !lifted || pressed_back {
            seat.drop_lifted_at = None;
            return false;
        }
        // Timed from when the board first showed this placement.
        let since = match &seat.drop_lifted_at {
            Some((since, board)) if *board == shown => *since,
            _ => {
                seat.drop_lifted_at = Some((t, shown));
                t
            }
        };
        if t >= since + wait {
            seat.drop_lifted_at = None;
            return false;
        }
        self.timers.set(Timer::Settle, since + wait);
        true
    }

    /// The last move, a drop, taken back and another move made in its place (7.4): the ply
    /// to go back to, when a move from there explains the board. Only once the opponent has
    /// pressed the clock back (7.6): while his own clock runs, a change is his — the piece
    /// the drop joined lifted for a capture reads just like it moving to the drop's square.
    pub(super) fn drop_replaced(&self) -> Option<usize> {
        let (seat, g) = (self.bughouse.as_ref()?, self.game.as_ref()?);
        let dropper = !g.current().turn();
        let running = self.clock.running();
        let pressed_back =
            running.is_some() && running == self.clock.display_of(dropper.is_white());
        seat.drop_replaced(g, pressed_back, &self.seen_board())
    }

    /// DJC 3.1: with no queen, rook, bishop or knight of his colour on the other board, a
    /// player whose pawn reaches the last rank loses the right to promote, and the pawn. Seen
    /// as his pawn gone from the seventh rank, nothing put down, and the clock pressed: the
    /// game records it as the pawn's move to the last rank with no piece (`e7e8`).
    pub(super) fn promotion_forfeited(
        &mut self,
        t: u64,
        mover: Color,
        shown: &shakmaty::Board,
        out: &mut Emitted,
    ) -> bool {
        let Some((from, to, after)) = self.forfeited_promotion(mover, shown) else {
            return false;
        };
        let Some(seat) = &self.bughouse else {
            return false;
        };
        let reg = seat.regulation;
        let partner = seat.partner_label.clone();
        let step = crate::reconstruct::IllegalStep {
            mv: Move::Normal {
                role: Role::Pawn,
                from,
                capture: None,
                to,
                promotion: None,
            },
            uci: format!("{from}{to}"),
            san: format!("{to}"),
        };
        let clocks = match self.press.reading.take() {
            Some(reading) => self.clock.white_black_of(&reading),
            None => self.clock.white_black_ms(),
        };
        let Some(g) = &mut self.game else {
            return false;
        };
        g.push_illegal(step, after, t, clocks);
        if let Some(e) = super::last_move_event(g, clocks) {
            out.push((t, e));
        }
        let verdict = DropVerdict::PromotionForfeited {
            player: mover,
            square: to,
            partner,
        };
        let mut a = self.alert(
            AlertKind::PieceTakenForPromotion,
            Severity::Info,
            Some(mover),
            verdict.message(),
        );
        a.edition = reg.name().into();
        a.article = Some("3.1, 3.2".into());
        a.squares = vec![from.to_string(), to.to_string()];
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
        self.reader.last_ahead = None;
        self.timers.clear(Timer::PressWait);
        self.board.displaced = 0;
        self.board.same_since = t;
        self.after_move(t, out);
        true
    }

    /// The pawn `mover` could promote straight ahead, gone from the board with nothing put
    /// down (DJC 3.1, with no piece on the partner board to take): its square, the square
    /// it reached, and the position after the forfeit.
    fn forfeited_promotion(
        &self,
        mover: Color,
        shown: &shakmaty::Board,
    ) -> Option<(shakmaty::Square, shakmaty::Square, shakmaty::Chess)> {
        let (seat, g) = (self.bughouse.as_ref()?, self.game.as_ref()?);
        let pos = g.current();
        if seat.regulation.fide_underneath()
            || pos.turn() != mover
            || bughouse::has_piece_to_take(&seat.partner.pieces, mover)
        {
            return None;
        }
        let from = crate::board::diff(pos.board(), shown).single_square()?;
        // The promotion straight ahead, which the pawn could legally make.
        let to = crate::reconstruct::legal_moves(pos)
            .iter()
            .find(|m| m.from() == Some(from) && m.is_promotion() && !m.is_capture())
            .map(|m| m.to())?;
        if shown.piece_at(from).is_some() {
            return None;
        }
        let after = crate::reconstruct::edited(pos, g.castling_mode, |setup| {
            setup.board.discard_piece_at(from);
            setup.turn = !mover;
            setup.ep_square = None;
            setup.halfmoves = 0;
            if mover.is_black() {
                setup.fullmoves = setup.fullmoves.saturating_add(1);
            }
        })?;
        Some((from, to, after))
    }

    /// A drop onto an occupied square shows as one square changed: the opponent's piece
    /// replaced by one of the mover's (2.3; Flemish 5.c). The square and the piece dropped.
    pub(super) fn drop_onto_piece(
        &self,
        mover: Color,
        shown: &shakmaty::Board,
    ) -> Option<(shakmaty::Square, Role, Regulation)> {
        let seat = self.bughouse.as_ref()?;
        let before = self.game.as_ref()?.current().board();
        seat.drop_onto_piece(before, mover, shown)
    }

    pub(super) fn judge_drop(&mut self, t: u64, out: &mut Emitted) {
        let (Some(seat), Some(g)) = (&mut self.bughouse, &self.game) else {
            return;
        };
        seat.illegal_drop_at = None;
        let ply = g.plies();
        let Some(Move::Put { role, to }) = g.moves.last().map(|m| m.mv) else {
            return;
        };
        let before = &g.positions[ply - 1];
        let mover = before.turn();
        let available = bughouse::reserve(&seat.partner, g, ply - 1, mover, true);
        let pressed = bughouse::reserve(&seat.partner, g, ply - 1, mover, false);
        let early = *pressed.get(role) == 0 && *available.get(role) > 0;
        let faults =
            bughouse::judge_drop(before, role, to, seat.regulation, seat.reading, &available);
        if faults.is_empty() {
            if early && seat.regulation == Regulation::Flemish {
                self.passed_before_press(t, role, to, out);
            }
            return;
        }
        let reg = seat.regulation;
        seat.illegal_drop_at = Some(ply);
        let before_fen = fen(before);
        let san = g.moves.last().map(|m| m.san.clone()).unwrap_or_default();
        let count = self.count_offence(mover, super::Offence::IllegalMove);
        let articles: Vec<&str> = faults.iter().map(|f| reg.article(*f).as_str()).collect();
        let verdict = DropVerdict::Illegal {
            dropper: mover,
            notation: san,
            faults,
            held: bughouse::reserve_words(&available),
            number: count,
            fide_blitz: reg
                .fide_underneath()
                .then_some(self.rules.edition.illegal_move),
        };
        let mut a = self.alert(
            AlertKind::IllegalDrop,
            Severity::Claim,
            Some(mover),
            verdict.message(),
        );
        a.edition = reg.name().into();
        a.article = Some(articles.join(", "));
        a.fen_before = Some(before_fen);
        a.squares = vec![to.to_string()];
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// Flemish 5.b / 6.b: a captured piece may be passed only after the capturer pressed his
    /// clock. A drop of a piece whose capture on the partner board was not yet completed by
    /// the press hints at a piece passed too early (the hand-over itself cannot be seen).
    fn passed_before_press(&mut self, t: u64, role: Role, to: shakmaty::Square, out: &mut Emitted) {
        let Some(seat) = &self.bughouse else { return };
        let partner = seat.partner_label.clone();
        let mover = !self
            .game
            .as_ref()
            .map_or(Color::White, |g| g.current().turn());
        let verdict = DropVerdict::PassedBeforePress {
            dropper: mover,
            piece: role,
            square: to,
            partner,
        };
        let mut a = self.alert(
            AlertKind::IllegalDrop,
            Severity::Review,
            Some(mover),
            verdict.message(),
        );
        a.edition = Regulation::Flemish.name().into();
        a.article = Some("5.b, 6.b".into());
        a.squares = vec![to.to_string()];
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// A press back without a move right after an illegal drop: the opponent demands it be
    /// taken back (7.6) — no irregularity of his. Returns whether it was that.
    pub(super) fn take_back_demanded(&mut self, t: u64, presser: Color, out: &mut Emitted) -> bool {
        let (Some(seat), Some(g)) = (&self.bughouse, &self.game) else {
            return false;
        };
        if seat.regulation.fide_underneath()
            || seat.illegal_drop_at != Some(g.plies())
            || g.current().turn() != presser
        {
            return false;
        }
        let reg = seat.regulation;
        let verdict = DropVerdict::TakeBackDemanded { presser };
        let mut a = self.alert(
            AlertKind::IllegalDrop,
            Severity::Info,
            Some(presser),
            verdict.message(),
        );
        a.edition = reg.name().into();
        a.article = Some("7.4, 7.6".into());
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
        true
    }
}
