//! A small scripted e-board: answers the identity and dump commands and plays a game as
//! field updates — a seeded random legal game or the moves of a PGN — lifting before
//! placing, captured piece first. No clock, no handling noise. It stands in for
//! `dgt_emulator::EmulatedBoard` in `demo`, `emulate` and the serial tests; it is not a
//! model of human handling.

use std::collections::VecDeque;

use dgt_protocol::{BoardMessage, Command, CommandDecoder, DgtPiece, HostBytes};
use shakmaty::{Board, Chess, Position, Square, san::SanPlus};

use crate::simulated::pty_board::BoardModel;

/// What the board is and how it plays.
#[derive(Debug, Clone)]
pub struct ScriptedBoardSpec {
    /// The 5-digit serial number it reports to `0x45`.
    pub serial: String,
    /// Firmware version reported to `0x4D`.
    pub version: (u8, u8),
    /// Seed of the random games (each new game uses the next seed).
    pub seed: u64,
    /// SAN moves to play instead of random ones.
    pub moves: Option<Vec<String>>,
    /// When the first move starts (board time, ms).
    pub first_move_ms: u64,
    /// From the start of one move to the start of the next.
    pub move_interval_ms: u64,
    /// Between the lift and the placement of one move (and between the squares of it).
    pub update_gap_ms: u64,
    /// A random game ends after this many plies if nothing ended it before.
    pub max_plies: u32,
    /// When a game ends: set the pieces up again and play a new one, forever.
    pub endless: bool,
}

impl ScriptedBoardSpec {
    pub fn new(serial: &str) -> Self {
        ScriptedBoardSpec {
            serial: serial.to_string(),
            version: (1, 8),
            seed: 1,
            moves: None,
            first_move_ms: 1500,
            move_interval_ms: 2000,
            update_gap_ms: 80,
            max_plies: 80,
            endless: true,
        }
    }
}

/// A field update due at a time (board square index as the board numbers it, piece code).
#[derive(Debug, Clone, Copy)]
struct Update {
    t_ms: u64,
    square: u8,
    piece: u8,
}

pub struct ScriptedBoard {
    spec: ScriptedBoardSpec,
    /// What the squares hold now (protocol §3.2 order: 0 = a8 … 63 = h1).
    squares: [u8; 64],
    /// What they will hold once every scheduled update is done.
    planned: [u8; 64],
    position: Chess,
    plies: u32,
    games: u64,
    rng: u64,
    commands: CommandDecoder,
    /// In an update mode (0x43/0x44/0x4B) field updates are sent; IDLE after 0x40 and at
    /// power-up (protocol §2.1).
    updating: bool,
    answering: bool,
    scheduled: VecDeque<Update>,
    next_move_at: Option<u64>,
    done: bool,
    out: Vec<u8>,
}

/// The board's square index of a chess square in normal orientation (a8 = 0, h1 = 63).
pub fn board_index(sq: Square) -> usize {
    let file = u32::from(sq.file()) as usize;
    let rank = u32::from(sq.rank()) as usize;
    (7 - rank) * 8 + file
}

/// The 64 piece codes of a position, in the board's order.
pub fn board_squares(board: &Board) -> [u8; 64] {
    let mut squares = [0u8; 64];
    for sq in Square::ALL {
        if let Some(piece) = board.piece_at(sq) {
            squares[board_index(sq)] = DgtPiece::from_fen_char(piece.char())
                .map(DgtPiece::code)
                .unwrap_or(0);
        }
    }
    squares
}

impl ScriptedBoard {
    pub fn new(spec: ScriptedBoardSpec) -> Self {
        let start = board_squares(Chess::default().board());
        let rng = spec.seed ^ 0x9E37_79B9_7F4A_7C15;
        let first = spec.first_move_ms;
        ScriptedBoard {
            spec,
            squares: start,
            planned: start,
            position: Chess::default(),
            plies: 0,
            games: 0,
            rng,
            commands: CommandDecoder::default(),
            updating: false,
            answering: true,
            scheduled: VecDeque::new(),
            next_move_at: Some(first),
            done: false,
            out: Vec::new(),
        }
    }

    pub fn serial(&self) -> &str {
        &self.spec.serial
    }

    /// What the squares hold now, as a dump would report them.
    pub fn squares(&self) -> [u8; 64] {
        self.squares
    }

    /// Plies completed on the board in the current game.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// A hung board: no replies and no updates while `false`.
    pub fn set_answering(&mut self, answering: bool) {
        self.answering = answering;
    }

    /// Stop (or resume) playing moves: the players think.
    pub fn pause_moves(&mut self, paused: bool, t_ms: u64) {
        self.next_move_at = if paused {
            None
        } else {
            Some(t_ms + self.spec.move_interval_ms)
        };
    }

    /// Power lost and back (a USB board re-plugged): the board starts in IDLE.
    pub fn power_cycle(&mut self) {
        self.updating = false;
        self.commands = CommandDecoder::default();
    }

    fn next_random(&mut self) -> u64 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn game_over(&self) -> bool {
        match &self.spec.moves {
            Some(moves) => self.plies as usize >= moves.len(),
            None => self.position.is_game_over() || self.plies >= self.spec.max_plies,
        }
    }

    fn choose_move(&mut self) -> Option<shakmaty::Move> {
        match self.spec.moves.clone() {
            Some(moves) => {
                let text = moves.get(self.plies as usize)?;
                let san = SanPlus::from_ascii(text.as_bytes()).ok()?;
                san.san.to_move(&self.position).ok()
            }
            None => {
                let legal = self.position.legal_moves();
                if legal.is_empty() {
                    return None;
                }
                let i = (self.next_random() % legal.len() as u64) as usize;
                Some(legal[i])
            }
        }
    }

    /// Schedules the updates that turn `planned` into `target`: lifts (captured pieces
    /// first), then placements, `update_gap_ms` apart from `t_ms`.
    fn schedule_towards(&mut self, target: [u8; 64], t_ms: u64) -> u64 {
        let mut captured = Vec::new();
        let mut lifts = Vec::new();
        let mut places = Vec::new();
        for (i, (&before, &after)) in self.planned.iter().zip(&target).enumerate() {
            if before == after {
                continue;
            }
            match (before, after) {
                (_, 0) => lifts.push(i),
                (0, _) => places.push(i),
                _ => {
                    captured.push(i);
                    places.push(i);
                }
            }
        }
        let mut t = t_ms;
        let steps = captured
            .iter()
            .chain(&lifts)
            .map(|&i| (i, 0u8))
            .chain(places.iter().map(|&i| (i, target[i])));
        for (i, piece) in steps {
            self.scheduled.push_back(Update {
                t_ms: t,
                square: i as u8,
                piece,
            });
            t += self.spec.update_gap_ms;
        }
        self.planned = target;
        t
    }

    fn plan_next(&mut self, t_ms: u64) {
        if self.game_over() {
            if !self.spec.endless {
                self.done = true;
                self.next_move_at = None;
                return;
            }
            // The players set the pieces up again; a new game with the next seed.
            self.games += 1;
            self.rng = self.spec.seed.wrapping_add(self.games) ^ 0x9E37_79B9_7F4A_7C15;
            self.position = Chess::default();
            self.plies = 0;
            let start = board_squares(self.position.board());
            let end = self.schedule_towards(start, t_ms);
            self.next_move_at = Some(end + self.spec.move_interval_ms);
            return;
        }
        let Some(m) = self.choose_move() else {
            tracing::warn!(
                ply = self.plies + 1,
                "scripted board: no playable move; game over"
            );
            self.spec.max_plies = self.plies;
            self.spec.moves = None;
            self.next_move_at = Some(t_ms + self.spec.move_interval_ms);
            return;
        };
        self.position.play_unchecked(m);
        self.plies += 1;
        let target = board_squares(self.position.board());
        self.schedule_towards(target, t_ms);
        self.next_move_at = Some(t_ms + self.spec.move_interval_ms);
    }

    fn answer(&mut self, command: &Command) {
        let reply = match command {
            Command::ReturnSerialNr => Some(BoardMessage::SerialNumber(self.spec.serial.clone())),
            Command::SendVersion => Some(BoardMessage::Version {
                major: self.spec.version.0,
                minor: self.spec.version.1,
            }),
            Command::SendBoard => Some(BoardMessage::BoardDump(Box::new(self.squares))),
            Command::SendUpdate | Command::SendUpdateBoard | Command::SendUpdateNice => {
                self.updating = true;
                None
            }
            Command::Reset => {
                self.updating = false;
                None
            }
            // No clock is attached: clock commands go unanswered, as on a bare board.
            _ => None,
        };
        if let Some(message) = reply {
            self.out.extend(message.encode());
        }
    }
}

impl BoardModel for ScriptedBoard {
    fn on_host_bytes(&mut self, _t_ms: u64, bytes: &[u8]) {
        for item in self.commands.decode(bytes) {
            if let HostBytes::Command(command) = item
                && self.answering
            {
                self.answer(&command);
            }
        }
    }

    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        loop {
            while let Some(u) = self.scheduled.front().copied().filter(|u| u.t_ms <= t_ms) {
                self.scheduled.pop_front();
                self.squares[u.square as usize] = u.piece;
                if self.updating {
                    self.out.extend(
                        BoardMessage::FieldUpdate {
                            square: u.square,
                            piece: u.piece,
                        }
                        .encode(),
                    );
                }
            }
            match self.next_move_at {
                Some(at) if at <= t_ms && self.scheduled.is_empty() => self.plan_next(at),
                _ => break,
            }
        }
        let out = std::mem::take(&mut self.out);
        if self.answering { out } else { Vec::new() }
    }

    fn next_deadline(&self) -> Option<u64> {
        let next_update = self.scheduled.front().map(|u| u.t_ms);
        match (next_update, self.next_move_at) {
            (Some(u), _) => Some(u),
            (None, m) => m,
        }
    }

    fn finished(&self) -> bool {
        self.done && self.scheduled.is_empty()
    }
}

/// The SAN moves of a PGN's main line: tags, comments, variations, move numbers, NAGs and
/// the result are skipped.
pub fn pgn_moves(text: &str) -> Vec<String> {
    let mut clean = String::with_capacity(text.len());
    let mut brace = false;
    let mut paren = 0u32;
    for line in text.lines() {
        if !brace && paren == 0 && line.trim_start().starts_with('[') {
            continue;
        }
        for c in line.chars() {
            match c {
                '{' if paren == 0 => brace = true,
                '}' if brace => brace = false,
                '(' if !brace => paren += 1,
                ')' if !brace && paren > 0 => paren -= 1,
                ';' if !brace && paren == 0 => break,
                _ if brace || paren > 0 => {}
                c => clean.push(c),
            }
        }
        clean.push(' ');
    }
    clean
        .split_whitespace()
        .map(|token| token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .map(|token| token.trim_end_matches(['!', '?']))
        .filter(|token| {
            !token.is_empty()
                && !token.starts_with('$')
                && !matches!(
                    *token,
                    "1-0" | "0-1" | "1/2-1/2" | "*" | "-0" | "-1" | "/2-1/2"
                )
        })
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_protocol::{Decoded, Decoder, LineMode};

    fn messages(bytes: &[u8]) -> Vec<BoardMessage> {
        Decoder::new(LineMode::Single)
            .decode(bytes)
            .into_iter()
            .filter_map(|d| match d {
                Decoded::Message(m) => Some(m),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn answers_identity_and_dump() {
        let mut b = ScriptedBoard::new(ScriptedBoardSpec::new("24680"));
        b.on_host_bytes(0, &[0x45, 0x4D, 0x42]);
        let m = messages(&b.poll_output(0));
        assert_eq!(m[0], BoardMessage::SerialNumber("24680".into()));
        assert_eq!(m[1], BoardMessage::Version { major: 1, minor: 8 });
        let BoardMessage::BoardDump(sq) = &m[2] else {
            panic!("{m:?}")
        };
        // a8 holds a black rook (8), e1 (index 60) the white king (5).
        assert_eq!((sq[0], sq[60]), (8, 5));
    }

    #[test]
    fn plays_pgn_moves_as_lift_then_place_only_in_update_mode() {
        let mut spec = ScriptedBoardSpec::new("24680");
        spec.moves = Some(pgn_moves(
            "[Event \"x\"]\n1. e4 {best} e5 (1... c5) 2. Nf3 1-0",
        ));
        spec.first_move_ms = 100;
        spec.move_interval_ms = 1000;
        let mut b = ScriptedBoard::new(spec);
        assert!(b.poll_output(500).is_empty(), "IDLE: no field updates");
        b.on_host_bytes(600, &[0x4B]);
        let m = messages(&b.poll_output(1300));
        // e7 is index 12, e5 index 28.
        assert_eq!(
            m,
            vec![
                BoardMessage::FieldUpdate {
                    square: 12,
                    piece: 0
                },
                BoardMessage::FieldUpdate {
                    square: 28,
                    piece: 7
                }
            ]
        );
        assert_eq!(b.plies(), 2);
    }

    #[test]
    fn pgn_tokens() {
        assert_eq!(
            pgn_moves("1.e4 e5 2. Nf3!? $1 Nc6 ; comment\n3.Bb5 a6 1/2-1/2"),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
        );
    }

    #[test]
    fn random_games_are_legal_and_restart() {
        let mut spec = ScriptedBoardSpec::new("1");
        spec.max_plies = 6;
        spec.first_move_ms = 0;
        spec.move_interval_ms = 100;
        let mut b = ScriptedBoard::new(spec);
        b.on_host_bytes(0, &[0x4B]);
        let out = b.poll_output(5000);
        assert!(!messages(&out).is_empty());
        assert!(!b.finished());
    }
}
