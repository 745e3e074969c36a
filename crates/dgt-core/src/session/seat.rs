//! A board's seat in a bughouse match: what the partner board tells, the reserves, the
//! clocks started together, a resignation out of turn, the finished board kept frozen, and
//! pieces the partner board's promotions take from this one. Drops are judged in
//! `bughouse_drops.rs`, mates and flags that wait for the other game in `bughouse_end.rs`. The
//! rules themselves are in [`crate::bughouse`]; the engine carries each board's
//! [`PartnerView`] to the other.

use shakmaty::{Color, Move, Piece, Position, Role};

use super::Session;
use super::timers::Timer;
use crate::arbiter;
use crate::bughouse::{self, PartnerView, Pieces, RankReading, Regulation, Standing};
use crate::event::Emitted;
use crate::event::{Alert, AlertKind, EventBody, Severity};
use crate::reconstruct::{Game, fen};
use crate::snapshot_as::*;
use crate::verdict::SeatVerdict;

/// How long after a promotion on the partner board the piece it took may leave this board
/// (3.1). A removal later than that is not matched to it: the new piece came from elsewhere.
const TAKE_WINDOW_MS: u64 = 10_000;

/// How long a press on a board with a piece missing waits for the partner board's promotion
/// under way to take it (the new piece is put on a second or two after the pawn leaves).
const PROMOTION_PRESS_WAIT_MS: u64 = 3_000;

/// The bughouse state of one board.
#[serde_with::serde_as]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Seat {
    pub regulation: Regulation,
    pub reading: RankReading,
    pub partner_label: String,
    /// What the partner board last told.
    pub partner: PartnerView,
    /// Pieces already taken off this board for the partner board's promotions (3.1).
    #[serde_as(as = "ByColorAs<ByRoleAs>")]
    pub taken_applied: Pieces,
    /// Since when a piece is due to leave this board for the partner's promotion.
    pub taken_due_since: Option<u64>,
    /// A mate or stalemate on the board waiting for the other game (5.4 / 5.5): its ply.
    pub pending: Option<(usize, Standing)>,
    /// The ply of the last drop judged illegal, while it is the last move: a press back
    /// without a move is the opponent's demand to take it back (7.6).
    pub illegal_drop_at: Option<usize>,
    /// When this board's clock was first seen running for a game from the initial position
    /// (6.4: both clocks are started together).
    pub clock_started: Option<u64>,
    /// How far apart the two clocks may start (ms).
    pub start_tolerance_ms: u64,
    /// The clocks' start was compared for this game.
    pub start_told: bool,
    /// The arbiter was told the final position changed (5.2).
    pub frozen_told: bool,
    /// Since when the finished board has differed from its final position.
    pub frozen_changed_at: Option<u64>,
    /// The reserves last sent (white, black), to send them only when they change.
    pub reserves_told: Option<(String, String)>,
    /// A resignation out of turn (5.3): the winner, on move, may still play one last move.
    #[serde_as(as = "Option<ColorAs>")]
    pub last_move_for: Option<Color>,
    /// Since when the board has shown an earlier position with one piece of the last mover
    /// lifted (most often the opponent about to capture it), and that placement.
    #[serde_as(as = "Option<(_, BoardAs)>")]
    pub drop_lifted_at: Option<(u64, shakmaty::Board)>,
    /// Since when a press has waited for the partner board's promotion under way.
    pub press_wait_since: Option<u64>,
    /// What the board showed at the first look at the last press, with when that press was
    /// seen (the move it completed, if a piece taken for the partner's promotion left it
    /// unreadable then).
    #[serde_as(as = "Option<(_, BoardAs)>")]
    pub at_press: Option<(u64, shakmaty::Board)>,
}

impl Seat {
    pub fn new(m: &bughouse::BughouseMatch, label: &str) -> Seat {
        let first = m.boards[0] == label;
        Seat {
            regulation: m.rules,
            reading: m.drop_ranks,
            partner_label: m.boards[if first { 1 } else { 0 }].clone(),
            partner: PartnerView::default(),
            taken_applied: Pieces::default(),
            taken_due_since: None,
            pending: None,
            illegal_drop_at: None,
            clock_started: None,
            start_tolerance_ms: m.clock_start_tolerance_ms,
            start_told: false,
            frozen_told: false,
            frozen_changed_at: None,
            drop_lifted_at: None,
            last_move_for: None,
            reserves_told: None,
            press_wait_since: None,
            at_press: None,
        }
    }

    /// A new game on the board.
    pub fn reset(&mut self) {
        self.pending = None;
        self.illegal_drop_at = None;
        self.clock_started = None;
        self.start_told = false;
        self.frozen_told = false;
        self.frozen_changed_at = None;
        self.drop_lifted_at = None;
        self.last_move_for = None;
        self.reserves_told = None;
        self.press_wait_since = None;
        self.at_press = None;
    }

    /// Pieces the partner board's promotions took from here (3.1) that `shown` no longer
    /// has: taken out of the game's position, not moves. Returns whether any was.
    pub fn take_for_promotion(
        &mut self,
        g: &mut Game,
        shown: &shakmaty::Board,
        t: u64,
        out: &mut Emitted,
    ) -> bool {
        let mut taken = Vec::new();
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                while self.taken_applied[piece] < self.partner.taken[piece] {
                    let Some((sq, edited)) = taken_piece(g, piece, shown) else {
                        break;
                    };
                    self.taken_applied[piece] += 1;
                    g.replace_current(edited);
                    taken.push(sq);
                    let verdict = SeatVerdict::TakenForPromotion {
                        piece,
                        square: sq,
                        partner: self.partner_label.clone(),
                    };
                    let mut a = Alert::new(
                        AlertKind::PieceTakenForPromotion,
                        Severity::Info,
                        self.regulation.name(),
                        verdict.message(),
                    );
                    a.article = Some(verdict.article().into());
                    a.verdict = Some(Box::new(verdict.into()));
                    a.game = Some(g.id.clone());
                    a.ply = Some(g.plies() as u32);
                    a.fen = Some(fen(g.current()));
                    a.squares = vec![sq.to_string()];
                    out.push((t, EventBody::Alert(a)));
                }
            }
        }
        if self.taken_applied == self.partner.taken {
            self.taken_due_since = None;
        }
        !taken.is_empty()
    }

    /// The `reserves` event when what each player may drop has changed (2.7: the reserve
    /// stands visible beside the board; this is its upper bound).
    pub fn tell_reserves(&mut self, g: &Game, t: u64, out: &mut Emitted) {
        let letters = |c: Color| {
            bughouse::reserve_letters(&bughouse::reserve(&self.partner, g, g.plies(), c, true), c)
        };
        let now = (letters(Color::White), letters(Color::Black));
        let unchanged = match &self.reserves_told {
            Some(told) => *told == now,
            None => now.0.is_empty() && now.1.is_empty(),
        };
        if unchanged {
            return;
        }
        self.reserves_told = Some(now.clone());
        out.push((
            t,
            EventBody::Reserves {
                game: g.id.clone(),
                white: now.0,
                black: now.1,
            },
        ));
    }

    /// The last move, a drop, taken back and another move made in its place (7.4): the ply
    /// to go back to, when a move from there explains `shown`. Only once the opponent has
    /// pressed the clock back (`pressed_back`, 7.6).
    pub fn drop_replaced(
        &self,
        g: &Game,
        pressed_back: bool,
        shown: &shakmaty::Board,
    ) -> Option<usize> {
        let last = g.moves.last()?;
        if !matches!(last.mv, Move::Put { .. }) || !pressed_back {
            return None;
        }
        let k = g.plies() - 1;
        let mut budget = 20_000;
        let path =
            crate::reconstruct::find_path_with(&g.positions[k], shown, 1, &mut budget, true)?;
        (path != [last.mv]).then_some(k)
    }

    /// A drop onto an occupied square shows as one square changed from `before`: the
    /// opponent's piece replaced by one of `mover`'s (2.3; Flemish 5.c). The square, the
    /// piece dropped and the regulation.
    pub fn drop_onto_piece(
        &self,
        before: &shakmaty::Board,
        mover: Color,
        shown: &shakmaty::Board,
    ) -> Option<(shakmaty::Square, Role, Regulation)> {
        let sq = crate::board::diff(before, shown).single_square()?;
        let was = before.piece_at(sq)?;
        let now = shown.piece_at(sq)?;
        (was.color != mover
            && was.role != Role::King
            && now.color == mover
            && now.role != Role::King)
            .then_some((sq, now.role, self.regulation))
    }
}

/// The piece of kind `piece` that left the board for a promotion on the partner board, and
/// the position without it: one the board no longer shows, whose removal leaves what it
/// shows — or that and one move made since. A piece lifted for a move in progress (a
/// knight in the hand, its capture's victim lifted too) is no such piece: the board shows
/// something else missing that no move explains.
fn taken_piece(
    g: &Game,
    piece: Piece,
    shown: &shakmaty::Board,
) -> Option<(shakmaty::Square, shakmaty::Chess)> {
    let pos = g.current();
    let mut budget = 20_000;
    let without = |sq| {
        crate::reconstruct::edited(pos, g.castling_mode, |setup| {
            setup.board.discard_piece_at(sq);
            setup.castling_rights.discard(sq);
        })
    };
    let lifted = (pos.board().by_piece(piece) & !shown.occupied())
        .into_iter()
        .find_map(|sq| {
            let edited = without(sq)?;
            let explained = edited.board() == shown
                || crate::reconstruct::find_path_with(&edited, shown, 1, &mut budget, true)
                    .is_some();
            explained.then_some((sq, edited))
        });
    // The square it left may already hold a piece dropped there by the player on move
    // (`P@a2` where the knight taken stood): a drop onto the emptied square, not onto the
    // piece (2.3). Only a drop: a piece moved there may as well have captured it.
    lifted.or_else(|| {
        (pos.board().by_piece(piece) & shown.occupied() & !shown.by_piece(piece))
            .into_iter()
            .find_map(|sq| {
                let edited = without(sq)?;
                let path =
                    crate::reconstruct::find_path_with(&edited, shown, 1, &mut budget, true)?;
                matches!(path[..], [Move::Put { to, .. }] if to == sq).then_some((sq, edited))
            })
    })
}

impl Session {
    /// The board this one is paired with in a bughouse match.
    pub fn bughouse_partner(&self) -> Option<&str> {
        self.bughouse.as_ref().map(|s| s.partner_label.as_str())
    }

    /// What the partner board last told this one.
    pub fn partner_view(&self) -> Option<&PartnerView> {
        self.bughouse.as_ref().map(|s| &s.partner)
    }

    /// What this board tells its partner board.
    pub fn view_for_partner(&self) -> PartnerView {
        let mut v = PartnerView::of(self.game.as_ref());
        // Moves the board shows now but whose press has not come: only while the board
        // still shows them (a capture put back releases nothing).
        if let (Some(g), Some((_, path))) = (&self.game, &self.reader.last_ahead)
            && !g.is_over()
        {
            let mut after = g.current().clone();
            for m in path {
                after.play_unchecked(*m);
            }
            if *after.board() == self.seen_board() {
                v = v.with_unpressed(g.current(), path);
            }
        }
        v.clock_started = self.bughouse.as_ref().and_then(|s| s.clock_started);
        v.promoting = self.promotion_under_way();
        v
    }

    /// The colour of the player on move when a pawn of his has left its seventh rank and
    /// the board shows no move yet: a promotion under way (3.1).
    fn promotion_under_way(&self) -> Option<Color> {
        let g = self.game.as_ref().filter(|g| !g.is_over())?;
        let pos = g.current();
        let turn = pos.turn();
        let seventh = shakmaty::Bitboard::from_rank(
            turn.fold_wb(shakmaty::Rank::Seventh, shakmaty::Rank::Second),
        );
        let pawns = pos.board().by_color(turn) & pos.board().by_role(Role::Pawn) & seventh;
        let shown = self.seen_board();
        pawns
            .into_iter()
            .any(|sq| shown.piece_at(sq).is_none())
            .then_some(turn)
    }

    /// A press whose board shows a piece of colour C missing while the partner board's
    /// player of colour C is promoting: the piece is on its way to that promotion, lifted
    /// before the promotion was completed there (3.1). The verdict on the press waits for it,
    /// up to `PROMOTION_PRESS_WAIT_MS` (FIDE blitz rules, Flemish 3, would otherwise judge an
    /// illegal move completed at once).
    pub(super) fn press_awaits_partner_promotion(
        &mut self,
        t: u64,
        shown: &shakmaty::Board,
    ) -> bool {
        let (Some(seat), Some(g)) = (&mut self.bughouse, &self.game) else {
            return false;
        };
        let Some(c) = seat.partner.promoting else {
            seat.press_wait_since = None;
            return false;
        };
        let now = g.current().board();
        let missing = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .any(|r| {
                (shown.by_color(c) & shown.by_role(r)).count()
                    < (now.by_color(c) & now.by_role(r)).count()
            });
        let since = *seat.press_wait_since.get_or_insert(t);
        if missing && t < since + PROMOTION_PRESS_WAIT_MS {
            return true;
        }
        seat.press_wait_since = None;
        false
    }

    /// The partner board changed: its captures fill this board's reserves, its promotions
    /// take pieces from here, and its end makes a waiting mate or stalemate final (5.4, 5.5).
    pub fn partner_update(&mut self, t: u64, view: PartnerView, out: &mut Emitted) {
        let Some(seat) = &mut self.bughouse else {
            return;
        };
        let ended_now = seat.partner.ended.is_none() && view.ended.is_some();
        for (applied, taken) in seat.taken_applied.iter_mut().zip(view.taken) {
            for (a, n) in applied.iter_mut().zip(taken) {
                *a = (*a).min(n);
            }
        }
        seat.partner = view;
        if seat.taken_applied != seat.partner.taken && seat.taken_due_since.is_none() {
            seat.taken_due_since = Some(t);
            // Looked at again when the wait is over (`expire_partner_takes`).
            let at = t + TAKE_WINDOW_MS;
            self.timers.set_earliest(Timer::Settle, at);
        }
        if self.take_for_partner_promotion(t, out) {
            self.timers.set(Timer::Settle, t);
        }
        self.check_clocks_together(t, out);
        self.tell_reserves(t, out);
        let Some(g) = &self.game else { return };
        if g.is_over() {
            return;
        }
        let plies = g.plies();
        if !ended_now {
            // New pieces to drop may lift a mate or stalemate (or a capture taken back there
            // restore it).
            self.judge_standing(t, false, out);
        } else if let Some(seat) = &mut self.bughouse
            && let Some((ply, standing)) = seat.pending
            && ply == plies
        {
            seat.pending = None;
            self.end_standing(t, standing, out);
        }
    }

    /// After a move on a bughouse board: the drop judged, then mate and stalemate as the
    /// regulation reads them. Repetition, the 50/75-move rules and dead positions are not
    /// imported (DJC 1.5 takes FIDE articles 1–6 only).
    pub(super) fn bughouse_after_move(&mut self, t: u64, out: &mut Emitted) {
        self.tell_reserves(t, out);
        self.judge_drop(t, out);
        self.reserve_piece_handling(t, out);
        self.judge_standing(t, true, out);
    }

    /// The `reserves` event when what each player may drop has changed (2.7: the reserve
    /// stands visible beside the board; this is its upper bound).
    pub(super) fn tell_reserves(&mut self, t: u64, out: &mut Emitted) {
        if let (Some(seat), Some(g)) = (&mut self.bughouse, &self.game) {
            seat.tell_reserves(g, t, out);
        }
    }

    /// 6.4 (DJC): both clocks are started at the same time by the two Black players. Told
    /// by the board whose clock started later, once per game.
    fn check_clocks_together(&mut self, t: u64, out: &mut Emitted) {
        let Some(seat) = &mut self.bughouse else {
            return;
        };
        let (Some(mine), Some(theirs)) = (seat.clock_started, seat.partner.clock_started) else {
            return;
        };
        if seat.start_told || seat.regulation.fide_underneath() || mine < theirs {
            return;
        }
        seat.start_told = true;
        let gap = mine - theirs;
        if gap <= seat.start_tolerance_ms {
            return;
        }
        let reg = seat.regulation;
        let verdict = SeatVerdict::ClocksStartedApart {
            gap_ms: gap,
            partner: seat.partner_label.clone(),
        };
        let mut a = self.alert(
            AlertKind::ClockSettingMismatch,
            Severity::Review,
            None,
            verdict.message(),
        );
        a.edition = reg.name().into();
        a.article = Some(verdict.article().into());
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// Notes the clock's start for 6.4 (a game from the initial position, before any move).
    pub(super) fn note_clock_start(&mut self, t: u64, out: &mut Emitted) {
        let running = self.clock.running().is_some();
        let (Some(seat), Some(g)) = (&mut self.bughouse, &self.game) else {
            return;
        };
        if seat.clock_started.is_some()
            || !running
            || g.plies() > 0
            || g.positions[0].board() != &shakmaty::Board::default()
        {
            return;
        }
        seat.clock_started = Some(t);
        self.check_clocks_together(t, out);
    }

    /// DJC 5.3: a player resigns only when on move; a resignation out of turn stands, but
    /// the opponent may play one last move (which may feed his partner). Called when the
    /// arbiter enters a decisive result while the winner is on move.
    pub(super) fn resigned_out_of_turn(&mut self, result: crate::GameResult) {
        let (Some(seat), Some(g)) = (&mut self.bughouse, &self.game) else {
            return;
        };
        let Some(winner) = result.winner() else {
            return;
        };
        if !seat.regulation.fide_underneath() && g.current().turn() == winner {
            seat.last_move_for = Some(winner);
        }
    }

    /// The one last move after a resignation out of turn, when the board shows it: recorded
    /// (its capture feeds the partner), then the board is frozen.
    fn last_move_after_resignation(&mut self, t: u64, out: &mut Emitted) -> bool {
        let shown = self.seen_board();
        let (Some(seat), Some(g)) = (&mut self.bughouse, &mut self.game) else {
            return false;
        };
        if seat.last_move_for != Some(g.current().turn()) {
            return false;
        }
        let mut budget = 20_000;
        let Some(path) =
            crate::reconstruct::find_path_with(g.current(), &shown, 1, &mut budget, true)
        else {
            return false;
        };
        seat.last_move_for = None;
        seat.frozen_changed_at = None;
        let reg = seat.regulation;
        let clocks = self.clock.white_black_ms();
        let mover = g.current().turn();
        g.push(path[0], t, clocks);
        let Some(played) = g.moves.last().cloned() else {
            return false;
        };
        if let Some(e) = super::last_move_event(g, clocks) {
            out.push((t, e));
        }
        let mut a = self.alert(
            AlertKind::MoveAfterGameEnd,
            Severity::Info,
            Some(mover),
            format!(
                "{} played {} after the opponent resigned out of turn: the one last move allowed (5.3); the result stands.",
                arbiter::side_name(mover),
                played.san
            ),
        );
        a.edition = reg.name().into();
        a.article = Some("5.3".into());
        out.push((t, EventBody::Alert(a)));
        true
    }

    /// The board of a game that has ended while the other game runs keeps its final
    /// position (5.2), but for pieces taken for a promotion on the other board (3.1): a
    /// change is reported once it has lasted `illegal_position_ms` (the promotion it serves
    /// may be completed on the other board a moment later).
    pub(super) fn watch_frozen_board(&mut self, t: u64, out: &mut Emitted) {
        self.take_for_partner_promotion(t, out);
        if self.last_move_after_resignation(t, out) {
            return;
        }
        let shown = self.board.physical.placement(self.board.orientation).board;
        let wait = self.rules.illegal_position_ms;
        let (Some(seat), Some(g)) = (&mut self.bughouse, &self.game) else {
            return;
        };
        if seat.frozen_told || seat.partner.ended.is_some() || seat.regulation.fide_underneath() {
            return;
        }
        if &shown == g.current().board() {
            seat.frozen_changed_at = None;
            return;
        }
        let since = *seat.frozen_changed_at.get_or_insert(t);
        if t < since + wait {
            self.timers.set(Timer::Settle, since + wait);
            return;
        }
        seat.frozen_told = true;
        let reg = seat.regulation;
        let partner = seat.partner_label.clone();
        let d = crate::board::diff(g.current().board(), &shown);
        let mut a = self.alert(
            AlertKind::IllegalPosition,
            Severity::Review,
            None,
            format!(
                "The game here is over, but the final position changed (squares {}) while board {partner} still plays: it must stay until the other game has ended (5.2).",
                crate::board::square_names(d).join(" ")
            ),
        );
        a.edition = reg.name().into();
        a.article = Some("5.2".into());
        a.squares = crate::board::square_names(d);
        a.fen = Some(format!("{shown} (on the board)"));
        a.fen_before = Some(fen(g.current()));
        a.prescription = Some(format!(
            "Put the final position back; only a piece taken for a promotion on board {partner} may leave it (3.1)."
        ));
        out.push((t, EventBody::Alert(a)));
    }

    /// Pieces the partner board's promotions took from here (3.1) that the board shows gone:
    /// taken out of the position, not moves. Returns whether any was.
    pub(super) fn take_for_partner_promotion(&mut self, t: u64, out: &mut Emitted) -> bool {
        self.expire_partner_takes(t, out);
        let shown = self.board.physical.placement(self.board.orientation).board;
        if let Some(m) = self.moved_then_taken(&shown) {
            self.commit(t, &[m], true, out);
        }
        let (Some(seat), Some(g)) = (&mut self.bughouse, &mut self.game) else {
            return false;
        };
        let taken = seat.take_for_promotion(g, &shown, t, out);
        if taken {
            // What the board showed ahead was read from the position before: read again.
            self.reader.forget_ahead();
            if let Some(m) = self.move_awaiting_promotion() {
                self.commit(t, &[m], true, out);
            }
        }
        taken
    }

    /// The player on move in the game has pressed (his opponent's clock runs): a move of his
    /// is made, not yet read.
    fn on_move_pressed(&self) -> bool {
        let Some(g) = self.game.as_ref().filter(|g| !g.is_over()) else {
            return false;
        };
        let running = self.clock.running();
        running.is_some() && running == self.clock.display_of(!g.current().turn().is_white())
    }

    /// Notes what the board shows at the first look at a press (bughouse only).
    pub(super) fn note_board_at_press(&mut self) {
        let shown = self.seen_board();
        if let Some(seat) = &mut self.bughouse {
            seat.at_press = Some((self.press.seen_at, shown));
        }
    }

    /// The move a press still waiting for its verdict completed, now that a piece taken for
    /// the partner board's promotion is out of the game: read from what the board showed at
    /// the press, which lacked that piece (3.1) and so was no move then. The board may show
    /// less by now — the opponent already lifting a piece just dropped to capture it
    /// (`P@a4`, then `Qc2xa4`), which reads as no move at all.
    fn move_awaiting_promotion(&mut self) -> Option<Move> {
        let (seen_at, at_press) = self.bughouse.as_mut()?.at_press.take()?;
        // Only for the press still waiting for its verdict.
        if !self.press.pending.is_waiting()
            || seen_at != self.press.seen_at
            || !self.on_move_pressed()
        {
            return None;
        }
        let pos = self.game.as_ref()?.current();
        let mut budget = 20_000;
        match crate::reconstruct::find_path_with(pos, &at_press, 1, &mut budget, true)?[..] {
            [m] => Some(m),
            _ => None,
        }
    }

    /// A piece owed to the partner board's promotion (3.1) that its player had just moved
    /// here: the board showed the move, the player pressed, then the piece left from where
    /// it arrived. The board alone now shows the piece gone from where it stood — what
    /// taking it before the move shows too — but the press says a move was made, and the
    /// placement shown says which: that move, to be recorded before the piece is taken.
    fn moved_then_taken(&self, shown: &shakmaty::Board) -> Option<Move> {
        let (seat, g) = (self.bughouse.as_ref()?, self.game.as_ref()?);
        if !self.on_move_pressed() {
            return None;
        }
        let pos = g.current();
        let mover = pos.turn();
        pos.legal_moves().into_iter().find(|m| {
            let Move::Normal {
                role,
                to,
                promotion,
                ..
            } = *m
            else {
                return false;
            };
            let piece = Piece {
                color: mover,
                role: promotion.unwrap_or(role),
            };
            if seat.taken_applied[piece] >= seat.partner.taken[piece] {
                return false;
            }
            let after = g.position_after(*m);
            let mut without = after.board().clone();
            without.discard_piece_at(to);
            without == *shown && self.reader.shown_as(g.plies() + 1, after.board()).is_some()
        })
    }

    /// The partner's promotion took no piece from this board within `TAKE_WINDOW_MS`: the
    /// new piece came from somewhere else (DJC 3.1 says from this board: review; the Flemish
    /// 6.a also allows the player's own reserve: info). Nothing is owed any more, so a later
    /// lift of such a piece is read as usual.
    pub(super) fn expire_partner_takes(&mut self, t: u64, out: &mut Emitted) {
        let Some(seat) = &mut self.bughouse else {
            return;
        };
        let Some(since) = seat.taken_due_since else {
            return;
        };
        if t < since + TAKE_WINDOW_MS {
            return;
        }
        let mut owed = Vec::new();
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                for _ in seat.taken_applied[piece]..seat.partner.taken[piece] {
                    owed.push(format!(
                        "{} {}",
                        if color.is_white() { "white" } else { "black" },
                        crate::reconstruct::role_name(role)
                    ));
                }
            }
        }
        seat.taken_applied = seat.partner.taken;
        seat.taken_due_since = None;
        if owed.is_empty() {
            return;
        }
        let reg = seat.regulation;
        // The Flemish 6.a also allows the player's own reserve: info; DJC 3.1 takes the
        // piece from this board: review.
        let own_reserve_allowed = reg == Regulation::Flemish;
        let verdict = SeatVerdict::PromotedPieceFromElsewhere {
            owed,
            window_s: TAKE_WINDOW_MS / 1000,
            partner: seat.partner_label.clone(),
            own_reserve_allowed,
        };
        let severity = if own_reserve_allowed {
            Severity::Info
        } else {
            Severity::Review
        };
        let mut a = self.alert(
            AlertKind::PieceTakenForPromotion,
            severity,
            None,
            verdict.message(),
        );
        a.edition = reg.name().into();
        a.article = Some(verdict.article().into());
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Chess, Square};

    fn seat() -> Seat {
        let m = bughouse::BughouseMatch {
            boards: ["a".into(), "b".into()],
            ..Default::default()
        };
        Seat::new(&m, "a")
    }

    /// The start position with `role` of `color` put on `sq` (replacing what stood there).
    fn with_piece(sq: Square, color: Color, role: Role) -> shakmaty::Board {
        let mut b = shakmaty::Board::default();
        b.set_piece_at(sq, Piece { color, role });
        b
    }

    #[test]
    fn the_seat_knows_its_partner_board() {
        assert_eq!(seat().partner_label, "b");
    }

    #[test]
    fn a_drop_onto_an_opponent_piece_is_seen_from_the_boards_alone() {
        let before = shakmaty::Board::default();
        // A white knight where Black's pawn on e7 stood: one square changed.
        let shown = with_piece(Square::E7, Color::White, Role::Knight);
        assert_eq!(
            seat().drop_onto_piece(&before, Color::White, &shown),
            Some((Square::E7, Role::Knight, Regulation::DjcStein))
        );
        // The mover's own piece replaced, or a king involved, is no such drop.
        let own = with_piece(Square::E2, Color::White, Role::Knight);
        assert_eq!(seat().drop_onto_piece(&before, Color::White, &own), None);
        let onto_king = with_piece(Square::E8, Color::White, Role::Queen);
        assert_eq!(
            seat().drop_onto_piece(&before, Color::White, &onto_king),
            None
        );
    }

    #[test]
    fn a_drop_is_replaced_only_after_the_press_back() {
        let mut g = Game::new("a/1".into(), Chess::default(), CastlingMode::Standard);
        g.drops = true;
        let e4 = Move::Normal {
            role: Role::Pawn,
            from: Square::E2,
            capture: None,
            to: Square::E4,
            promotion: None,
        };
        g.push(e4, 0, (None, None));
        // Not a drop: nothing to replace, pressed back or not.
        let shown = g.current().board().clone();
        assert_eq!(seat().drop_replaced(&g, true, &shown), None);
        let drop = Move::Put {
            role: Role::Knight,
            to: Square::E5,
        };
        g.push(drop, 0, (None, None));
        // Black's knight taken back and put on d5 instead.
        let mut instead = g.positions[1].clone();
        instead.play_unchecked(Move::Put {
            role: Role::Knight,
            to: Square::D5,
        });
        let shown = instead.board().clone();
        assert_eq!(seat().drop_replaced(&g, false, &shown), None);
        assert_eq!(seat().drop_replaced(&g, true, &shown), Some(1));
        // The drop as made is no replacement.
        let made = g.current().board().clone();
        assert_eq!(seat().drop_replaced(&g, true, &made), None);
    }
}
