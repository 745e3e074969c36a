//! The game record: moves committed (and corrected, taken back), the end by rule or by
//! gesture, and the board's return to a legal position after an irregularity.

use super::*;
use crate::verdict::{FlagNotCalled, HandsVerdict};

impl Session {
    /// Plays moves into the game and emits them; `pressed` marks them final. `shown_at` is
    /// when the board showed the result (for reading how the pieces were handled).
    pub(super) fn commit_shown(
        &mut self,
        t: u64,
        path: &[Move],
        pressed: bool,
        shown_at: u64,
        out: &mut Emitted,
    ) {
        if let ([m], Some(g)) = (path, &self.game) {
            let mover = g.current().turn();
            self.handling_signals(t, mover, m, shown_at, out);
        }
        self.commit(t, path, pressed, out);
        self.board.same_since = shown_at;
    }

    /// Plays moves into the game and emits them; `pressed` marks them final.
    pub(super) fn commit(&mut self, t: u64, path: &[Move], pressed: bool, out: &mut Emitted) {
        let clocks = match (pressed, self.press.reading.take()) {
            (true, Some(reading)) => self.clock.white_black_of(&reading),
            _ => self.clock.white_black_ms(),
        };
        if pressed {
            self.watch.owes_press = None;
        }
        for m in path {
            let Some(g) = self.playing_mut() else { return };
            let mover = g.current().turn();
            if !pressed
                && self.clock.running().is_some()
                && self.clock.display_of(mover.is_white()) == self.clock.running()
            {
                self.watch.owes_press = Some(mover);
            }
            let Some(g) = &mut self.game else { return };
            if !g.can_push(*m) {
                // Read from a position since changed by hand (bughouse 3.1: a piece taken
                // for the partner's promotion): not played; the board is read again.
                self.reader.forget_ahead();
                self.timers.set(Timer::Settle, t);
                return;
            }
            // A move that follows an unconfirmed one confirms it (the opponent has replied).
            g.confirm_all();
            g.push(*m, t, clocks);
            if let Some(e) = last_move_event(g, clocks) {
                out.push((t, e));
            }
            self.after_move(t, out);
        }
        if pressed {
            // The board may still be reporting the last square of a slide (up to ~400 ms
            // behind, protocol §4.1): the move stays correctable for a moment.
            self.timers.set(Timer::Correction, t + PRESS_CORRECTION_MS);
        }
        // What the board showed ahead of the game moves on with it (`ReaderState::committed`).
        self.reader.committed(path);
        self.timers.clear(Timer::PressWait);
        self.board.displaced = 0;
        self.press.move_recorded();
        self.bus_log.move_recorded();
    }

    pub(super) fn correct_last(&mut self, t: u64, m: Move, out: &mut Emitted) {
        if let Some(g) = &mut self.game {
            let n = g.plies();
            g.truncate(n - 1);
        }
        self.commit(t, &[m], false, out);
    }

    pub(super) fn after_move(&mut self, t: u64, out: &mut Emitted) {
        self.track_illegal_position(t, out);
        if self.bughouse.is_some() {
            self.bughouse_after_move(t, out);
            return;
        }
        let Some(g) = &mut self.game else { return };
        if let Some(end) = arbiter::end_by_rule(g, &self.rules.edition) {
            let ply = g.plies() as u32;
            g.result = Some((end.result, end.reason));
            let mut a = Alert::new(
                end.kind,
                arbiter::end_severity(),
                self.rules.edition.name,
                end.message,
            );
            a.article = Some(end.article.into());
            a.ply = Some(ply);
            a.fen = Some(fen(g.current()));
            a.game = Some(g.id.clone());
            // L17 T18: a flag not called had not fallen (6.8).
            let uncalled_flag = self.watch.flags.uncalled.as_ref().map(|f| FlagNotCalled {
                flagged: f.flagged,
                earlier_ms: t.saturating_sub(f.t_ms),
                article: self.rules.edition.flag_considered_fallen,
            });
            let verdict = RecordVerdict::EndedByRule {
                result: end.result,
                uncalled_flag,
            };
            a.prescription = Some(verdict.render());
            if let Some(note) = verdict.message_note() {
                a.message.push_str(&note);
            }
            a.verdict = Some(Box::new(verdict.into()));
            let id = g.id.clone();
            out.push((t, EventBody::Alert(a)));
            out.push((
                t,
                EventBody::GameEnd {
                    game: id,
                    result: end.result,
                    reason: end.reason,
                },
            ));
            return;
        }
        // Claims the player to move could make: for the arbiter only (12.6 forbids telling
        // the players).
        for c in arbiter::claims_available(g, &self.rules.edition) {
            let mut a = Alert::new(c.kind, Severity::Claim, self.rules.edition.name, c.message);
            a.article = Some(c.article.into());
            a.side = Some(g.current().turn().into());
            a.ply = Some(g.plies() as u32);
            a.fen = Some(fen(g.current()));
            a.game = Some(g.id.clone());
            a.uci = c.with_move;
            a.prescription = Some(
                "Only a correct claim by the player makes it count (9.2 / 9.3); the arbiter says nothing unless asked.".into(),
            );
            out.push((t, EventBody::Alert(a)));
        }
    }

    pub(super) fn restore(&mut self, t: u64, k: usize, out: &mut Emitted) {
        let Some(g) = &mut self.game else { return };
        let n = g.plies();
        g.truncate(k);
        let mut a = Alert::new(
            AlertKind::PositionRestored,
            Severity::Review,
            self.rules.edition.name,
            format!(
                "The board went back to the position after ply {k} (of {n}); later moves are taken back."
            ),
        );
        a.ply = Some(k as u32);
        a.fen = Some(fen(g.current()));
        a.game = Some(g.id.clone());
        // 7.1 (2005 6.14): the clocks go back to the times logged at that position.
        if let Some(m) = g.moves.last() {
            (a.white_ms, a.black_ms) = (m.white_ms, m.black_ms);
            let verdict = RecordVerdict::Restored {
                ply: k,
                article: self.rules.edition.clocks_after_irregularity,
            };
            a.prescription = Some(verdict.render());
            a.verdict = Some(Box::new(verdict.into()));
        }
        out.push((t, EventBody::Alert(a)));
        self.watch.illegal_alerted = false;
        self.watch.stood = None;
        self.watch.lost_track = false;
        self.reader.forget_ahead();
        self.timers.clear(Timer::PressWait);
    }

    /// The board shows a legal state again after an irregularity was raised.
    pub(super) fn back_to_legal(&mut self, t: u64, out: &mut Emitted) {
        self.timers.clear(Timer::IllegalPosition);
        self.watch.stood = None;
        self.watch.lost_track = false;
        if !self.watch.ghosts.is_empty() {
            // Moves are followed with the knocked-off pieces thought in place; the board is
            // legal again only once they are back (or the position was reinstated).
            let raw = self.board.physical.placement(self.board.orientation).board;
            if raw != self.seen_board() {
                return;
            }
            self.watch.ghosts.clear();
        }
        if self.watch.illegal_alerted {
            self.watch.illegal_alerted = false;
            let Some(g) = &self.game else { return };
            let mut a = Alert::new(
                AlertKind::PositionRestored,
                Severity::Info,
                self.rules.edition.name,
                "The board shows the last legal position again.".into(),
            );
            a.ply = Some(g.plies() as u32);
            a.fen = Some(fen(g.current()));
            a.game = Some(g.id.clone());
            out.push((t, EventBody::Alert(a)));
        }
    }

    pub(super) fn raise_illegal_position(&mut self, t: u64, out: &mut Emitted) {
        let Some(g) = self.playing() else { return };
        if self.watch.illegal_alerted {
            return;
        }
        let placement = self.board.physical.placement(self.board.orientation);
        let d = board::diff(g.current().board(), &placement.board);
        // Only pieces missing (knocked off the board): play can be followed as if they stood
        // there, while the arbiter decides (L17 T43).
        let missing: Vec<(shakmaty::Square, shakmaty::Piece)> = d
            .into_iter()
            .filter_map(|sq| {
                let piece = g.current().board().piece_at(sq)?;
                placement
                    .board
                    .piece_at(sq)
                    .is_none()
                    .then_some((sq, piece))
            })
            .collect();
        let only_missing = !missing.is_empty() && missing.len() == d.count();
        let mut a = Alert::new(
            AlertKind::IllegalPosition,
            Severity::Review,
            self.rules.edition.name,
            format!(
                "The board shows a position no legal move explains (squares {}); a piece may be knocked over, missing or extra.",
                board::square_names(d).join(" ")
            ),
        );
        a.side = Some(g.current().turn().into());
        a.ply = Some(g.plies() as u32);
        a.fen = Some(format!("{} (on the board)", placement.board));
        a.fen_before = Some(fen(g.current()));
        a.game = Some(g.id.clone());
        a.squares = board::square_names(d);
        if only_missing {
            let verdict = RecordVerdict::PiecesMissing {
                missing: missing.clone(),
                ply: g.plies(),
            };
            a.prescription = Some(verdict.render());
            a.verdict = Some(Box::new(verdict.into()));
            self.watch.ghosts = missing;
        }
        self.watch.illegal_alerted = true;
        out.push((t, EventBody::Alert(a)));
    }

    pub(super) fn end_by_gesture(
        &mut self,
        t: u64,
        result: GameResult,
        how: String,
        out: &mut Emitted,
    ) {
        let Some(g) = &mut self.game else { return };
        g.result = Some((result, EndReason::ResultGesture));
        let mut a = Alert::new(
            AlertKind::ResultGesture,
            Severity::Review,
            self.rules.edition.name,
            format!("The players signalled {result} on the board ({how}); confirm the result."),
        );
        a.ply = Some(g.plies() as u32);
        a.fen = Some(fen(g.current()));
        a.game = Some(g.id.clone());
        let id = g.id.clone();
        out.push((t, EventBody::Alert(a)));
        out.push((
            t,
            EventBody::GameEnd {
                game: id,
                result,
                reason: EndReason::ResultGesture,
            },
        ));
        self.timers.clear(Timer::PressWait);
        self.timers.clear(Timer::IllegalPosition);
    }

    /// A game that ended by rule at the move made — players often do not notice a fivefold
    /// repetition, the 75-move rule or a dead position — and the board then shows a move
    /// from the final position: the arbiter is told once; the result stands (events after
    /// the end never change it; L05 T15).
    pub(super) fn watch_play_after_end(&mut self, t: u64, out: &mut Emitted) {
        if self.watch.told_play_after_end {
            return;
        }
        let Phase::Over(g) = Phase::of(self.game.as_ref()) else {
            return;
        };
        let Some((result, reason)) = g.result else {
            return;
        };
        if !matches!(
            reason,
            EndReason::FivefoldRepetition
                | EndReason::SeventyFiveMoveRule
                | EndReason::DeadPosition
                | EndReason::Stalemate
                | EndReason::Checkmate
        ) {
            return;
        }
        let placement = self.board.physical.placement(self.board.orientation).board;
        let Some(m) = reconstruct::one_move_to(g.current(), &placement) else {
            return;
        };
        // Players signal the result with the kings after an end by rule too (protocol §4.5):
        // the first king put on a centre square — whatever stood there pushed off — is half
        // of the gesture until the board has stayed so as long as a king move onto the
        // centre waits; the other king following makes it no move.
        let calm_at = self.board.last_change + CENTRE_KING_WAIT_MS;
        if reconstruct::king_to_centre(g.current(), &m, true) && t < calm_at {
            self.timers.set(Timer::Settle, calm_at);
            return;
        }
        let san = shakmaty::san::SanPlus::from_move(g.current().clone(), m).to_string();
        let ply = g.plies();
        self.watch.told_play_after_end = true;
        // The end by rule itself is `info` (the game is over at the move, 6.2.1.1); play going
        // on past it is where the arbiter must act now.
        let verdict = RecordVerdict::PlayAfterEnd {
            result,
            reason,
            ply,
            san,
        };
        let mut a = self.alert(
            AlertKind::MoveAfterGameEnd,
            Severity::Intervene,
            Some(g.current().turn()),
            verdict.message().unwrap_or_default(),
        );
        a.uci = Some(m.to_uci(g.castling_mode).to_string());
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// L17 T10: the king put two squares towards a rook, the rook not moved, and castling on
    /// that side is illegal. Before any press the arbiter is told (as a hint, since a release
    /// cannot be told from a resting hand) that the touched king must make another move if it
    /// has one, castling on the other side included (4.4.3 / 4.7.2; 2005 4.4c / 4.6b).
    pub(super) fn hint_illegal_castling(&mut self, t: u64, out: &mut Emitted) {
        use shakmaty::{File, Square};
        let Some(g) = self.playing() else {
            return;
        };
        if g.castling_mode != CastlingMode::Standard
            || self.watch.castling_hint_at == Some(g.plies())
        {
            return;
        }
        let pos = g.current();
        let mover = pos.turn();
        let placement = self.board.physical.placement(self.board.orientation).board;
        let d = board::diff(pos.board(), &placement);
        let Some(from) = pos.board().king_of(mover) else {
            return;
        };
        if from.file() != File::E || d.count() != 2 || !d.contains(from) {
            return;
        }
        let Some(to) = d.into_iter().find(|&sq| sq != from) else {
            return;
        };
        let short = to == Square::from_coords(File::G, from.rank());
        let long = to == Square::from_coords(File::C, from.rank());
        if !(short || long) || placement.king_of(mover) != Some(to) {
            return;
        }
        let side = if short {
            shakmaty::CastlingSide::KingSide
        } else {
            shakmaty::CastlingSide::QueenSide
        };
        let legal = reconstruct::legal_moves(pos);
        if legal.iter().any(|m| m.castling_side() == Some(side)) {
            return;
        }
        let king_moves: Vec<String> = legal
            .iter()
            .filter(|m| m.role() == shakmaty::Role::King)
            .map(|m| shakmaty::san::San::from_move(pos, *m).to_string())
            .collect();
        self.watch.castling_hint_at = Some(g.plies());
        let name = arbiter::side_name(mover);
        let article = self.rules.edition.castling_illegal;
        // 2005 rapid and blitz: Article 4 only on a claim (B5, C2).
        let severity = if self.rules.edition.art4_on_claim_in_rapid_blitz && self.rapid_or_blitz() {
            Severity::Claim
        } else {
            Severity::Info
        };
        let mut a = self.alert(
            AlertKind::TouchMove,
            severity,
            Some(mover),
            format!(
                "{name}'s king stands on {to} as if castling {}, which is illegal here.",
                if short { "short" } else { "long" }
            ),
        );
        a.article = Some(article.into());
        a.squares = vec![from.to_string(), to.to_string()];
        let verdict = HandsVerdict::KingToIllegalCastling {
            article,
            king_moves,
        };
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }
}
