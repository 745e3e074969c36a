//! Emulated boards for `demo` and `emulate`: a [`dgt_emulator::EmulatedBoard`] (scanning
//! sensor, DGT 3000 clock, seeded human handling) behind the [`BoardModel`] a pseudo-terminal
//! runs, playing one game after another.
//!
//! Between two games the players set the pieces up again: the board reports the squares
//! that change from the final position to the next start position one by one, as a real
//! board would, and the next game begins on the same powered-up board (same serial number,
//! same mode — the host is not asked to start it up again).

use dgt_emulator::{BoardSpec, EmulatedBoard, GameScript, corpus_spec};

use crate::simulated::pty_board::BoardModel;

/// The host bytes replayed into the next game's board so that it is in the mode the host
/// put the first one in (update mode, clock relay). The start-up sequence is short.
const MODE_BYTES_KEPT: usize = 64;
/// Time between two pieces put back while setting up (ms).
const SETUP_STEP_MS: u64 = 120;
/// Pause after the last game before the pieces are set up again (ms).
const PAUSE_AFTER_GAME_MS: u64 = 4000;
/// The next board's replies to the replayed start-up bytes are dropped before this time on
/// its own clock (its game starts seconds later, `BoardSpec::start_delay_ms`).
const QUIET_UNTIL_MS: u64 = 1000;

/// How the games of one emulated board are chosen.
#[derive(Debug, Clone)]
pub struct GameSeries {
    /// The board's serial number (5 digits on the wire).
    pub serial: u32,
    /// Seed of the first game; game k uses `first_seed + k * seed_step`.
    pub first_seed: u64,
    pub seed_step: u64,
    /// A fixed spec for every game (the seed still changes); `None` takes the varied corpus
    /// spec (time controls from bullet to classical, rotated boards, gestures, flags).
    pub template: Option<BoardSpec>,
}

impl GameSeries {
    /// The spec of game `game` (0-based). With a template, the first game plays the
    /// template's own script (a PGN game, say) and later games random ones like it.
    pub fn spec(&self, game: u64) -> BoardSpec {
        let seed = self
            .first_seed
            .wrapping_add(game.wrapping_mul(self.seed_step));
        let mut spec = match &self.template {
            Some(t) if game == 0 => t.clone(),
            Some(t) => {
                let mut s = t.clone();
                s.seed = seed;
                s.script = GameScript::random(seed, t.script.moves.len().clamp(20, 160));
                s
            }
            None => {
                let mut s = corpus_spec(seed);
                // One board keeps its orientation the whole event.
                s.rotated = false;
                s
            }
        };
        spec.serial = self.serial;
        spec
    }
}

/// A board that plays its series of games on its own time (ms since power-up).
pub struct SeriesBoard {
    series: GameSeries,
    game: u64,
    board: EmulatedBoard,
    /// Board time at which the current game's board time is 0.
    t0: u64,
    /// Field updates of the set-up between games, with their board times.
    setup: Vec<(u64, Vec<u8>)>,
    mode_bytes: Vec<u8>,
    now: u64,
}

impl SeriesBoard {
    pub fn new(series: GameSeries) -> Self {
        let board = EmulatedBoard::new(series.spec(0));
        SeriesBoard {
            series,
            game: 0,
            board,
            t0: 0,
            setup: Vec::new(),
            mode_bytes: Vec::new(),
            now: 0,
        }
    }

    /// The game being played now (0-based) and its board.
    pub fn current(&self) -> (u64, &EmulatedBoard) {
        (self.game, &self.board)
    }

    fn local(&self, t_ms: u64) -> u64 {
        t_ms.saturating_sub(self.t0)
    }

    /// The game is over: plan the set-up and start the next game's board after it.
    fn next_game(&mut self, t_ms: u64) {
        let before = self.board.scanned_board();
        self.game += 1;
        let mut next = EmulatedBoard::new(self.series.spec(self.game));
        next.on_host_bytes(0, &self.mode_bytes);
        let _ = next.poll_output(QUIET_UNTIL_MS);
        let after = next.scanned_board();
        // Pieces are cleared first, then the start position is put up, square by square.
        let mut t = t_ms + PAUSE_AFTER_GAME_MS;
        let mut updates = Vec::new();
        for (square, (&old, &new)) in before.iter().zip(after.iter()).enumerate() {
            if old != new && old != 0 {
                updates.push((square, 0u8));
            }
        }
        for (square, (&old, &new)) in before.iter().zip(after.iter()).enumerate() {
            if old != new && new != 0 {
                updates.push((square, new));
            }
        }
        for (square, code) in updates {
            t += SETUP_STEP_MS;
            // DGT_MSG_FIELD_UPDATE: 0x8E, length 5, square, piece (protocol §3.3).
            self.setup
                .push((t, vec![0x8E, 0x00, 0x05, square as u8, code]));
        }
        self.t0 = (t + SETUP_STEP_MS).saturating_sub(QUIET_UNTIL_MS);
        self.board = next;
    }
}

impl BoardModel for SeriesBoard {
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        self.now = self.now.max(t_ms);
        let room = MODE_BYTES_KEPT.saturating_sub(self.mode_bytes.len());
        self.mode_bytes.extend(bytes.iter().take(room));
        let local = self
            .local(t_ms)
            .max(if self.game > 0 { QUIET_UNTIL_MS } else { 0 });
        self.board.on_host_bytes(local, bytes);
    }

    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        self.now = self.now.max(t_ms);
        let mut out = Vec::new();
        while let Some((t, _)) = self.setup.first() {
            if *t > t_ms {
                break;
            }
            out.extend(self.setup.remove(0).1);
        }
        if self.setup.is_empty() && t_ms >= self.t0 {
            let local = self.local(t_ms);
            if self.game == 0 || local >= QUIET_UNTIL_MS {
                out.extend(self.board.poll_output(local));
            }
            if self.board.finished() {
                self.next_game(t_ms);
            }
        }
        out
    }

    fn next_deadline(&self) -> Option<u64> {
        if let Some((t, _)) = self.setup.first() {
            return Some(*t);
        }
        let local = self.board.next_deadline();
        Some(match local {
            Some(l) => self.t0 + l.max(if self.game > 0 { QUIET_UNTIL_MS } else { 0 }),
            // Finished and idle: the next game is planned at the next poll.
            None => self.now + 1,
        })
    }

    /// A series never ends.
    fn finished(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Vec<dgt_protocol::Decoded> {
        let mut d = dgt_protocol::Decoder::new(dgt_protocol::LineMode::Single);
        d.decode(bytes)
    }

    /// A board in update mode plays two games; the second starts after the set-up, which
    /// the board reports as field updates ending in the start position.
    #[test]
    fn a_series_plays_the_next_game_after_setting_up_the_pieces() {
        let mut template = dgt_emulator::BoardSpec::random(7, 24);
        template.rates = dgt_emulator::HandlingRates::clean();
        template.time_control = dgt_emulator::TimeControl::parse("60+1").unwrap();
        let mut board = SeriesBoard::new(GameSeries {
            serial: 12345,
            first_seed: 7,
            seed_step: 1,
            template: Some(template),
        });
        let initial = board.current().1.scanned_board();
        // UPDATE_NICE (0x4B), as the daemon's start-up sends.
        board.on_host_bytes(0, &[0x4B]);
        let mut all = Vec::new();
        let mut t = 0;
        while board.current().0 < 1 && t < 3_600_000 {
            t = board.next_deadline().unwrap().max(t + 1);
            all.extend(board.poll_output(t));
        }
        assert_eq!(board.current().0, 1, "the first game ended");
        // The set-up, and not yet the second game's first move.
        while !board.setup.is_empty() {
            t = board.next_deadline().unwrap().max(t + 1);
            all.extend(board.poll_output(t));
        }
        t += 500;
        all.extend(board.poll_output(t));
        let mut placement = initial;
        let mut updates = 0;
        for m in decode(&all) {
            if let dgt_protocol::Decoded::Message(dgt_protocol::BoardMessage::FieldUpdate {
                square,
                piece,
            }) = m
            {
                placement[square as usize] = piece;
                updates += 1;
            }
        }
        assert!(
            updates > 40,
            "moves and set-up were reported ({updates} updates)"
        );
        assert_eq!(
            placement,
            board.current().1.scanned_board(),
            "the board shows the next game's start position"
        );
        assert_eq!(
            placement, initial,
            "both games start from the standard position"
        );
    }
}
