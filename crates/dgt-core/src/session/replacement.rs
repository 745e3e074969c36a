//! A replacement board: a board fails mid-game, the arbiter sets the position up on a spare
//! one and moves the table's game to it (`take_over` op, on the spare). The game
//! continues there with its id, its moves and what was watched over it (offences, flags,
//! clock checks); the faulty board keeps nothing and raises nothing for the position it may
//! still show, until a start position is set up on it again. A game the spare was following
//! of its own (found under way once the position stood on it) gives way: `game_replaced`.

use super::*;
use crate::verdict::UnderWayVerdict;

/// A game on its way from one board to another.
pub(crate) struct MovedGame {
    game: Game,
    watch: GameWatch,
    orientation: Orientation,
}

impl Session {
    /// Gives the game being played away to board `to`; `None` when none is being played.
    pub(crate) fn give_game(&mut self, t: u64, to: &str, out: &mut Emitted) -> Option<MovedGame> {
        if !self.phase().is_playing() {
            return None;
        }
        let game = self.game.take()?;
        let watch = std::mem::take(&mut self.watch);
        for timer in [
            Timer::PressWait,
            Timer::IllegalPosition,
            Timer::Correction,
            Timer::LogWait,
        ] {
            self.timers.clear(timer);
        }
        self.press.pending.take();
        self.before.replaced = true;
        let verdict = UnderWayVerdict::MovedAway {
            game: game.id.clone(),
            to: to.to_string(),
        };
        let mut a = self.under_way_alert(Severity::Info, None, verdict);
        a.game = Some(game.id.clone());
        a.ply = Some(game.plies() as u32);
        a.fen = Some(fen(game.current()));
        out.push((t, EventBody::Alert(a)));
        Some(MovedGame {
            game,
            watch,
            orientation: self.board.orientation,
        })
    }

    /// Takes over the game `moved` from board `from`: it goes on here from its position, which
    /// the arbiter has set up on this board. A game with moves already followed here stays.
    pub(crate) fn take_game(
        &mut self,
        t: u64,
        moved: Option<MovedGame>,
        from: &str,
        out: &mut Emitted,
    ) {
        let Some(moved) = moved else {
            let verdict = UnderWayVerdict::NothingToMove {
                from: from.to_string(),
            };
            let a = self.under_way_alert(Severity::Review, None, verdict);
            out.push((t, EventBody::Alert(a)));
            return;
        };
        if self
            .playing()
            .is_some_and(|g| g.plies() > 0 && !self.watch.found_under_way)
        {
            let verdict = UnderWayVerdict::BoardBusy {
                from: from.to_string(),
            };
            let a = self.under_way_alert(Severity::Review, None, verdict);
            out.push((t, EventBody::Alert(a)));
            return;
        }
        let MovedGame {
            game,
            watch,
            orientation,
        } = moved;
        if let Some(own) = self.playing() {
            // This board's own game (found under way once the position was set up on it) was
            // the moved game all along: its record gives way.
            let body = EventBody::GameReplaced {
                game: own.id.clone(),
                replaced_by: game.id.clone(),
            };
            out.push((t, body));
        }
        self.game = Some(game);
        self.watch = watch;
        self.board.orientation = orientation;
        self.read_afresh(t);
        let Some(g) = &self.game else { return };
        let verdict = UnderWayVerdict::MovedHere {
            game: g.id.clone(),
            from: from.to_string(),
            plies: g.plies(),
        };
        let a = self.under_way_alert(Severity::Info, None, verdict);
        out.push((t, EventBody::Alert(a)));
        self.emit_status(t, out);
    }

    /// Reading starts afresh on a game moved here: nothing found or ahead is kept, and what
    /// the board shows is settled and read as after any gap.
    fn read_afresh(&mut self, t: u64) {
        self.before.forget_found();
        self.before.replaced = false;
        self.reader.forget_ahead();
        // What the spare shows now may be a move or two on: read it as after any gap.
        self.reader.after_gap = true;
        self.board.handling.clear();
        self.board.same_since = t;
        self.clock.reset_inference();
        if let Some(d) = self.clock.running() {
            self.infer_running_side_to_move(d);
        }
        for timer in [Timer::PressWait, Timer::IllegalPosition, Timer::LogWait] {
            self.timers.clear(timer);
        }
        self.timers.set(Timer::Settle, t);
    }
}
