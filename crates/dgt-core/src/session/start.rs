//! Games begin: a start position (or a set-up an operator announced) shown on the board,
//! or a wrong set-up from which a move is made (7.2.1; 2005 7.1a).

use super::*;
use crate::verdict::{Evidence, SetupVerdict};

impl Session {
    /// A start position set up again begins a new game — unless legal moves of this game
    /// reach it (knights out and back home repeat the start position). A board set up
    /// wrongly is watched. Returns whether a game began.
    pub(super) fn settled_new_game(&mut self, t: u64, depth: usize, out: &mut Emitted) -> bool {
        let placement_now = self.board.physical.placement(self.board.orientation).board;
        let new_game_possible = match self.phase() {
            Phase::NoGame | Phase::Over(_) => true,
            Phase::Playing(g) => {
                g.plies() >= 2
                    && matches!(
                        reconstruct::interpret(g, &placement_now, depth),
                        Interpretation::Unexplained | Interpretation::Earlier(_)
                    )
            }
        };
        if new_game_possible && self.try_start_game(t, out) {
            self.before.wrong_setup = None;
            return true;
        }
        let start_shown = self.before.start_shown.take();
        if new_game_possible
            && !self.phase().is_playing()
            && let Some((pos, mode, orientation, seen_at)) = start_shown
            && reconstruct::one_move_to(&pos, &self.board.physical.placement(orientation).board)
                .is_some()
        {
            // The start position stood too briefly to settle, and the first move was made
            // from it: the game began there; the move is then read as usual.
            self.before.wrong_setup = None;
            self.begin_game(t, pos, mode, orientation, out);
            self.after_early_press(seen_at);
            return false;
        }
        if new_game_possible || self.game.as_ref().is_some_and(|g| g.plies() == 0) {
            self.watch_wrong_setup(t, out);
        }
        false
    }

    /// 7.2.1 (2005 7.1a): a board set up wrongly is remembered; when a move is made from it,
    /// the game is followed from there and the arbiter told at once (before the first move
    /// is completed, when the game can still be set up again).
    pub(super) fn watch_wrong_setup(&mut self, t: u64, out: &mut Emitted) {
        for orientation in [Orientation::Normal, Orientation::Rotated] {
            let placement = self.board.physical.placement(orientation).board;
            if reconstruct::wrong_setup(&placement).is_some() {
                self.before.wrong_setup = Some((placement, orientation, t));
                return;
            }
        }
        let Some((setup, orientation, seen_at)) = self.before.wrong_setup.clone() else {
            return;
        };
        let Some((pos, what)) = reconstruct::wrong_setup(&setup) else {
            return;
        };
        let placement = self.board.physical.placement(orientation).board;
        if reconstruct::one_move_to(&pos, &placement).is_none() {
            return;
        }
        self.before.wrong_setup = None;
        // Started as if the board showed the set-up; the move is then read as usual.
        self.begin_game(t, pos, CastlingMode::Standard, orientation, out);
        self.after_early_press(seen_at);
        let (window, moves) = self.rules.edition.setup_claim_window;
        let mut verdict = if self.reduced() {
            SetupVerdict::ClaimWithin { window, moves }
        } else {
            SetupVerdict::SetUpAgain {
                article: self.rules.edition.setup_invalid,
            }
        };
        let evidence = Evidence::from(what);
        let mut a = self.alert(
            AlertKind::SetupInvalid,
            Severity::Intervene,
            None,
            evidence.message(),
        );
        a.evidence = Some(Box::new(evidence));
        a.article = Some(
            if self.reduced() {
                window
            } else {
                self.rules.edition.setup_invalid
            }
            .into(),
        );
        if let Some(seat) = &self.bughouse
            && !seat.regulation.fide_underneath()
        {
            // DJC 7.1: restarted if found before Black completed his third move; 10.1:
            // the arbiter acts on request.
            a.severity = Severity::Claim;
            a.edition = seat.regulation.name().into();
            a.article = Some("7.1".into());
            verdict = SetupVerdict::BughouseRestart;
        }
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// A game begun from a position shown at `seen_at` with its first move already made:
    /// White's press may have come before the board settled, and then Black's clock runs.
    pub(super) fn after_early_press(&mut self, seen_at: u64) {
        if self.press.any_press_at > seen_at
            && let Some(d) = self.clock.running()
        {
            self.clock.reset_inference();
            self.clock.infer_white_side(d.other());
        }
    }

    /// Remembers a start position shown while no game is played (`start_shown`).
    pub(super) fn note_start_shown(&mut self, t: u64) {
        if self.phase().is_playing() {
            return;
        }
        for orientation in [Orientation::Normal, Orientation::Rotated] {
            if let Some((pos, mode)) =
                reconstruct::start_position(&self.board.physical.placement(orientation).board)
            {
                self.before.start_shown = Some((pos, mode, orientation, t));
                return;
            }
        }
    }

    pub(super) fn try_start_game(&mut self, t: u64, out: &mut Emitted) -> bool {
        for orientation in [Orientation::Normal, Orientation::Rotated] {
            let placement = self.board.physical.placement(orientation);
            let start = match &self.before.next_start {
                Some((pos, mode)) if pos.board() == &placement.board => Some((pos.clone(), *mode)),
                _ => reconstruct::start_position(&placement.board),
            };
            let Some((pos, mode)) = start else { continue };
            if let Some(g) = self.playing()
                && g.positions.len() == 1
                && g.current() == &pos
            {
                return false;
            }
            self.begin_game(t, pos, mode, orientation, out);
            return true;
        }
        false
    }

    pub(super) fn begin_game(
        &mut self,
        t: u64,
        pos: Chess,
        mode: CastlingMode,
        orientation: Orientation,
        out: &mut Emitted,
    ) {
        self.before.next_start = None;
        self.before.start_shown = None;
        self.before.forget_found();
        self.before.replaced = false;
        self.board.orientation = orientation;
        self.games_started += 1;
        let id = format!("{}/{}", self.label, self.games_started);
        let mut game = Game::new(id.clone(), pos, mode);
        game.drops = self.bughouse.is_some();
        if let Some(seat) = &mut self.bughouse {
            seat.reset();
        }
        out.push((
            t,
            EventBody::GameStart {
                game: id,
                start_fen: game.start_fen.clone(),
                found_under_way: false,
            },
        ));
        self.game = Some(game);
        // A bus board's presses count from the game's start (`plies_logged`).
        self.bus_log.move_recorded();
        self.clock.reset_inference();
        // The clock of the player to move runs at the start (White's, unless a set-up
        // position has Black to move).
        if let Some(d) = self.clock.running() {
            self.infer_running_side_to_move(d);
        }
        self.reader.forget_ahead();
        self.board.handling.clear();
        self.board.same_since = t;
        self.watch = GameWatch::default();
        // Bughouse: the reserves the partner board has given so far.
        self.tell_reserves(t, out);
        self.timers.clear(Timer::PressWait);
        self.timers.clear(Timer::IllegalPosition);
        self.emit_status(t, out);
    }
}
