//! The moves before a game found under way, read from the board's own log (protocol §3.6):
//! the board logs every field change and lever press "during all power-up time" and tags the
//! start position when the pieces stand in it (`EE_BEGINPOS`), so a board that kept power
//! since the game began gives the whole game. A single-board link is asked for its log when
//! a game is found under way (the edge reads the `game_found_under_way` alert as the
//! request; the log is a read-only command, protocol §4.4), and decisions wait for it as
//! after a reconnection (`Timer::LogWait`). The game is rebuilt from the log only when the
//! log's moves lead to the placement on the board; otherwise it is followed from where it
//! stands (`under_way.rs`).

use super::*;
use crate::verdict::UnderWayVerdict;

/// How long a game found under way waits for the board's log: a full log takes ~8 s at
/// 9600 baud (protocol §4.4), behind whatever the board is sending; a busy host reads it
/// later still. A log that comes after the wait still rebuilds a game found under way in
/// which no move has been read yet (`late_log`).
const FOUND_LOG_WAIT_MS: u64 = 20_000;

/// Whether the log's game leads to the placement on the board: it ends there, the board
/// shows its end with a piece or two lifted (a move begun as the log was read), or a move or
/// two made while the log was sent (the board's reports wait behind it, protocol §4.4).
fn leads_to(game: &Game, shown: &shakmaty::Board) -> bool {
    let end = game.current().board();
    let lifted = shown.occupied().is_subset(end.occupied())
        && (end.occupied() ^ shown.occupied()).count() <= 2
        && shown
            .occupied()
            .into_iter()
            .all(|sq| shown.piece_at(sq) == end.piece_at(sq));
    lifted
        || matches!(
            reconstruct::interpret(game, shown, 2),
            Interpretation::Ahead(_)
        )
}

impl Session {
    /// Whether the board's log may still tell the moves before the placement found: it was
    /// read already and rebuilds the game now, or it is asked for and awaited.
    pub(super) fn board_log_may_tell(&mut self, t: u64, out: &mut Emitted) -> bool {
        if let Some(entries) = self.before.found_log.take() {
            self.before.found_log_asked = true;
            return self.rebuild_from_log(t, &entries, out);
        }
        if self.before.found_log_asked
            || self.link.bus.is_some()
            || self.link.port.is_none()
            || self.link.state == LinkState::Disconnected
        {
            return false;
        }
        self.before.found_log_asked = true;
        let until = t + FOUND_LOG_WAIT_MS;
        self.timers.set(Timer::LogWait, until);
        self.timers.set(Timer::Settle, until);
        let placement = self.board.physical.placement(self.board.orientation).board;
        let fen = placement.to_string();
        let verdict = UnderWayVerdict::ReadingLog {
            placement,
            wait_ms: FOUND_LOG_WAIT_MS,
        };
        let mut a = self.under_way_alert(Severity::Review, None, verdict);
        a.fen = Some(fen);
        out.push((t, EventBody::Alert(a)));
        true
    }

    /// The board's log came while no game is followed: kept for a placement found under way,
    /// and acted on at once when one waits for it.
    pub(super) fn log_without_game(
        &mut self,
        t: u64,
        entries: &[dgt_protocol::EeEntry],
        out: &mut Emitted,
    ) {
        self.before.found_log = Some(entries.to_vec());
        if self.before.found.is_some() && self.timers.take(Timer::LogWait).is_some() {
            self.before.found_log_asked = true;
            let rebuilt = self
                .before
                .found_log
                .take()
                .is_some_and(|log| self.rebuild_from_log(t, &log, out));
            if !rebuilt {
                self.follow_found(t, out);
            }
        }
    }

    /// The log came after the wait, while the game found under way has no move yet: the game
    /// is rebuilt from it under the same id (its `game_start` is sent again, from the start
    /// position) when the log leads to the placement.
    pub(super) fn late_log(
        &mut self,
        t: u64,
        entries: &[dgt_protocol::EeEntry],
        out: &mut Emitted,
    ) {
        let kept = self.games_started;
        self.games_started = kept.saturating_sub(1);
        if !self.rebuild_from_log(t, entries, out) {
            self.games_started = kept;
        }
    }

    /// Rebuilds the game from the log when its moves since the start position lead to the
    /// placement the board shows. Returns whether it did.
    fn rebuild_from_log(
        &mut self,
        t: u64,
        entries: &[dgt_protocol::EeEntry],
        out: &mut Emitted,
    ) -> bool {
        let Some(since) = eeprom::since_begin_position(entries, self.clock.white_side()) else {
            return false;
        };
        let shown = self.board.physical.placement(since.orientation).board;
        if since.game.plies() == 0 || !leads_to(&since.game, &shown) {
            return false;
        }
        self.begin_game(
            t,
            Chess::default(),
            CastlingMode::Standard,
            since.orientation,
            out,
        );
        let moves: Vec<(Move, Option<u64>)> = since
            .game
            .moves
            .iter()
            .zip(since.clocks.iter().chain(std::iter::repeat(&None)))
            .map(|(m, c)| (m.mv, *c))
            .collect();
        self.push_logged_moves(t, &moves, (None, None), out);
        // The clock of the player on move runs: White's display follows from it.
        self.clock.reset_inference();
        if let Some(d) = self.clock.running() {
            self.infer_running_side_to_move(d);
        }
        let verdict = UnderWayVerdict::RebuiltFromLog {
            moves: moves.len(),
            gap: since.gap.clone(),
        };
        let a = self.under_way_alert(Severity::Review, None, verdict);
        out.push((t, EventBody::Alert(a)));
        true
    }

    /// Moves read from the board's log, each with the mover's logged clock, put into the
    /// game being played with their `move` events; `clocks` are the times before the first.
    pub(super) fn push_logged_moves(
        &mut self,
        t: u64,
        moves: &[(Move, Option<u64>)],
        mut clocks: (Option<u64>, Option<u64>),
        out: &mut Emitted,
    ) {
        for (m, logged) in moves {
            let Some(g) = self.playing_mut() else {
                break;
            };
            match (g.current().turn(), logged) {
                (Color::White, Some(ms)) => clocks.0 = Some(*ms),
                (Color::Black, Some(ms)) => clocks.1 = Some(*ms),
                _ => {}
            }
            g.confirm_all();
            let ply = g.push(*m, t, clocks);
            let Some(p) = g.moves.last().cloned() else {
                break;
            };
            let side: Side = (!g.current().turn()).into();
            let (game, fen) = (g.id.clone(), fen(g.current()));
            let (uci, san) = (p.uci, p.san);
            let (white_ms, black_ms) = clocks;
            let body = MoveEvent {
                game,
                ply,
                side,
                uci,
                san,
                fen,
                white_ms,
                black_ms,
            };
            out.push((t, EventBody::Move(body)));
            self.after_move(t, out);
        }
    }
}
