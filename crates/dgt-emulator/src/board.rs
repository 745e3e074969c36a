//! The board's firmware: modes, command answers (single-board and bus), the scan loop, the
//! clock link and the EEPROM log, driven by the planned human actions, all in time order.
//!
//! Protocol facts used here (docs/dgt-protocol.md):
//! * §2.1 single-board commands and their answers; IDLE / UPDATE_BOARD / UPDATE /
//!   UPDATE_NICE modes; the boot loader 0x4E is never obeyed;
//! * §2.2 clock commands run one at a time and are acked only in UPDATE / UPDATE_NICE;
//! * §2.4 bus mode is the power-up default; any single-board command leaves it (to IDLE)
//!   and is executed; 0x4A or any bus command enters it, and that bus command is not run;
//! * §3.7 bus replies carry the 14-bit address and a checksum; a ping to address 0 is
//!   answered after a random delay below 1100 ms.

use std::collections::VecDeque;

use dgt_protocol::bus::address_of_serial;
use dgt_protocol::message::{self, frame};
use dgt_protocol::{
    BusCommand, BusCommandKind, BusReply, BusReplyKind, ClockAck, ClockCommand, ClockMessage,
    Command, CommandDecoder, HostBytes,
};

use crate::clock::{ClockSide, Dgt3000};
use crate::game_script::ScriptError;
use crate::human::{ClockAct, ClockActKind, plan_game};
use crate::line::Line;
use crate::memory::Memory;
use crate::prng::Prng;
use crate::scanner::Scanner;
use crate::spec::BoardSpec;
use crate::surface::{Surface, physical_codes, physical_index};
use crate::truth::Truth;

/// What the board sends on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Power-up default: only answers addressed bus commands.
    Bus,
    /// Single-board mode, answering commands only.
    Idle,
    /// 0x44: field updates.
    UpdateBoard,
    /// 0x43: field updates and clock messages at least every second.
    Update,
    /// 0x4B: field updates and clock messages when a shown value changed.
    UpdateNice,
}

impl Mode {
    fn sends_field_updates(self) -> bool {
        matches!(self, Mode::UpdateBoard | Mode::Update | Mode::UpdateNice)
    }
    fn sends_clock(self) -> bool {
        matches!(self, Mode::Update | Mode::UpdateNice)
    }
}

/// Clock data when no clock is cabled: D5 set, times invalid (protocol §3.4; the exact
/// bytes of a real board are an open question, §7.3).
const NO_CLOCK: [u8; 7] = [0, 0, 0, 0, 0, 0, 0x20];

#[derive(Debug, Clone)]
enum Pending {
    Command(Command),
    Send(Vec<u8>),
    PowerUp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    ClockAct,
    Pending,
    Sweep,
    ClockPoll,
}

/// The link to the clock: the board polls it 2–3 times a second (protocol §2.2, BT notes)
/// and relays what changed; clock commands wait in line, one per poll.
#[derive(Debug, Clone)]
struct ClockLink {
    next_poll: u64,
    last_sent: Option<([u8; 7], u64)>,
    commands: VecDeque<ClockCommand>,
}

/// A DGT e-board with a DGT 3000 clock and two seeded humans playing a scripted game.
#[derive(Debug)]
pub struct EmulatedBoard {
    spec: BoardSpec,
    address: u16,
    now: u64,
    mode: Mode,
    decoder: CommandDecoder,
    scanner: Scanner,
    clock: Option<Dgt3000>,
    clock_acts: Vec<ClockAct>,
    next_act: usize,
    link: ClockLink,
    memory: Memory,
    last_changes: Vec<u8>,
    ignore_next_ping: bool,
    line: Line,
    pending: Vec<(u64, u64, Pending)>,
    pending_seq: u64,
    commands_free_at: u64,
    rng: Prng,
    truth: Truth,
}

impl EmulatedBoard {
    /// Powers the board up at t = 0 with the pieces of the start position on it.
    ///
    /// # Panics
    /// If the script is not legal chess; use [`EmulatedBoard::try_new`] to get the error.
    pub fn new(spec: BoardSpec) -> Self {
        match Self::try_new(spec) {
            Ok(b) => b,
            Err(e) => panic!("invalid game script: {e}"),
        }
    }

    pub fn try_new(spec: BoardSpec) -> Result<Self, ScriptError> {
        let plan = plan_game(&spec)?;
        let rotated = spec.rotated;
        let changes: Vec<(u64, usize, u8)> = plan
            .changes
            .iter()
            .map(|c| (c.t_ms, physical_index(c.square, rotated), c.code))
            .collect();
        let surface = Surface::new(physical_codes(&plan.initial, rotated), &changes);
        let mut rng = Prng::stream(spec.seed, 0x424F_4152);
        let scanner = Scanner::new(surface, Prng::stream(spec.seed, 0x5343_414E));
        let memory = Memory::power_up(scanner.image());
        let clock = spec.clock_present.then(|| {
            let mut c = Dgt3000::new(spec.time_control.clone(), plan.first_side);
            c.battery_low = plan.truth.battery_low;
            c
        });
        let first_poll = rng.range(100, 450);
        let mut acts = plan.clock_acts;
        acts.sort_by_key(|a| a.t_ms);
        Ok(EmulatedBoard {
            address: address_of_serial(&spec.serial_text()).unwrap_or(0),
            spec,
            now: 0,
            mode: Mode::Bus,
            decoder: CommandDecoder::default(),
            scanner,
            clock,
            clock_acts: acts,
            next_act: 0,
            link: ClockLink {
                next_poll: first_poll,
                last_sent: None,
                commands: VecDeque::new(),
            },
            memory,
            last_changes: Vec::new(),
            ignore_next_ping: false,
            line: Line::default(),
            pending: Vec::new(),
            pending_seq: 0,
            commands_free_at: 0,
            rng,
            truth: plan.truth,
        })
    }

    /// Bytes the host wrote at `t_ms`. Each command is taken 1–3 ms after the previous one;
    /// replies are queued on the line behind whatever is being sent.
    pub fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        self.run_until(t_ms);
        for item in self.decoder.decode(bytes) {
            match item {
                HostBytes::Command(c) => {
                    let t = self.commands_free_at.max(self.now) + self.rng.range(1, 3);
                    self.commands_free_at = t;
                    self.schedule(t, Pending::Command(c));
                }
                // The boot loader (0x4E), draughts scans and anything unknown are ignored:
                // an emulator must never "jump to FLIP" (protocol §2.1).
                HostBytes::Unknown(_) => {}
            }
        }
    }

    /// Every byte the board has sent up to and including `t_ms`, in order.
    pub fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        self.run_until(t_ms);
        self.line.take_until(t_ms)
    }

    /// When the board next does or sends something (its scan never stops).
    pub fn next_deadline(&self) -> Option<u64> {
        let internal = self.next_event().map(|(t, _)| t);
        let line = self.line.next_message_end_ms();
        match (internal, line) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
        .map(|t| t.max(self.now))
    }

    /// The ground truth of the whole game, known from construction on (it is planned ahead
    /// from the seed). Clock times in it assume the host sends no clock-setting command.
    pub fn truth(&self) -> &Truth {
        &self.truth
    }

    /// The game is over, the board is quiet and everything has been sent.
    pub fn finished(&self) -> bool {
        self.now >= self.truth.end_ms && self.line.is_idle() && self.pending.is_empty()
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn spec(&self) -> &BoardSpec {
        &self.spec
    }

    /// The bus address (the serial number's low 14 bits, protocol §2.4).
    pub fn bus_address(&self) -> u16 {
        self.address
    }

    /// What the board saw in its last scan, by physical square.
    pub fn scanned_board(&self) -> [u8; 64] {
        *self.scanner.image()
    }

    // ---- the event loop ----

    fn schedule(&mut self, t: u64, p: Pending) {
        self.pending_seq += 1;
        self.pending.push((t, self.pending_seq, p));
        self.pending.sort_by_key(|&(t, seq, _)| (t, seq));
    }

    fn next_event(&self) -> Option<(u64, Event)> {
        let mut best: Option<(u64, Event)> = None;
        let mut consider = |t: Option<u64>, e: Event| {
            if let Some(t) = t
                && best.is_none_or(|(b, _)| t < b)
            {
                best = Some((t, e));
            }
        };
        // Ties: presses first, then host commands, then the scan, then the clock poll.
        consider(
            self.clock_acts.get(self.next_act).map(|a| a.t_ms),
            Event::ClockAct,
        );
        consider(self.pending.first().map(|p| p.0), Event::Pending);
        consider(Some(self.scanner.sweep_end()), Event::Sweep);
        consider(Some(self.link.next_poll), Event::ClockPoll);
        best
    }

    fn run_until(&mut self, t: u64) {
        while let Some((te, e)) = self.next_event() {
            if te > t {
                break;
            }
            self.now = self.now.max(te);
            match e {
                Event::ClockAct => {
                    let act = self.clock_acts[self.next_act];
                    self.next_act += 1;
                    self.clock_act(act);
                }
                Event::Pending => {
                    let (_, _, p) = self.pending.remove(0);
                    match p {
                        Pending::Command(c) => self.execute(c),
                        Pending::Send(bytes) => self.line.send(self.now, &bytes),
                        Pending::PowerUp => {
                            self.memory.record_power_up(self.scanner.image());
                            self.mode = Mode::Bus;
                            self.link.last_sent = None;
                        }
                    }
                }
                Event::Sweep => self.sweep(),
                Event::ClockPoll => self.poll_clock(),
            }
        }
        self.now = self.now.max(t);
    }

    fn send(&mut self, id: u8, data: &[u8]) {
        self.line.send(self.now, &frame(id, data));
    }

    fn sweep(&mut self) {
        let changes = self.scanner.sweep();
        for &(sq, code) in &changes {
            self.memory.record_field(self.now, sq as usize, code);
            if self.mode.sends_field_updates() {
                self.send(message::FIELD_UPDATE, &[sq, code]);
            }
        }
        if !changes.is_empty() {
            self.memory.check_setup(self.scanner.image());
        }
    }

    fn clock_act(&mut self, act: ClockAct) {
        let Some(clock) = self.clock.as_mut() else {
            return;
        };
        match act.kind {
            ClockActKind::Start(side) => clock.start(act.t_ms, side),
            ClockActKind::Press(side) => {
                if clock.press(act.t_ms, side) {
                    // EE log: the time of the clock that just stopped (protocol §3.6).
                    let r = clock.reading(act.t_ms);
                    let shown = match side {
                        ClockSide::Left => r.left,
                        ClockSide::Right => r.right,
                    };
                    self.memory
                        .record_lever_press(side == ClockSide::Left, (shown.ms / 1000) as u32);
                }
            }
            ClockActKind::Pause => clock.pause(act.t_ms),
        }
    }

    fn clock_data(&mut self) -> [u8; 7] {
        match self.clock.as_mut() {
            Some(c) => ClockMessage::Times(c.reading(self.now)).to_bytes(),
            None => NO_CLOCK,
        }
    }

    fn poll_clock(&mut self) {
        self.link.next_poll = self.now + self.rng.range(300, 450);
        if self.clock.is_none() {
            self.link.commands.clear();
        } else if let Some(cmd) = self.link.commands.pop_front() {
            let ack = self.run_clock_command(&cmd);
            // Acks come back only in UPDATE or UPDATE_NICE (protocol §2.2).
            if self.mode.sends_clock() {
                self.send(message::BWTIME, &ack.to_bytes());
            }
            return;
        }
        let data = self.clock_data();
        let send = match self.mode {
            // "At least every second": with polls ≤ 450 ms apart, resending after 550 ms
            // keeps every gap under a second.
            Mode::Update => self
                .link
                .last_sent
                .is_none_or(|(d, t)| d != data || self.now - t >= 550),
            Mode::UpdateNice => self.link.last_sent.is_none_or(|(d, _)| d != data),
            _ => false,
        };
        if send {
            self.send(message::BWTIME, &data);
            self.link.last_sent = Some((data, self.now));
        }
    }

    fn run_clock_command(&mut self, cmd: &ClockCommand) -> ClockAck {
        let now = self.now;
        let mut ack = ClockAck {
            ack0: 0x10,
            ack1: cmd.code(),
            ack2: 0,
            ack3: 0,
        };
        match cmd {
            // DGT 3000: main version 2, sub 0, as in "Clock ACK (16, 9, 32, 0)" (§2.2).
            ClockCommand::Version => ack.ack2 = 0x20,
            ClockCommand::SetAndRun {
                left_ms,
                right_ms,
                flags,
            } => {
                if let Some(c) = self.clock.as_mut() {
                    c.set_and_run(now, *left_ms, *right_ms, *flags);
                }
            }
            _ => {}
        }
        ack
    }

    fn set_mode(&mut self, mode: Mode) {
        if mode != self.mode && mode.sends_clock() {
            self.link.last_sent = None;
        }
        self.mode = mode;
    }

    fn execute(&mut self, cmd: Command) {
        if let Command::Bus(b) = cmd {
            self.bus_command(b);
            return;
        }
        // Any single-board command leaves bus mode, to IDLE, and is executed (§2.4).
        if self.mode == Mode::Bus {
            self.mode = Mode::Idle;
        }
        match cmd {
            Command::Reset => self.set_mode(Mode::Idle),
            Command::SendClock => {
                let d = self.clock_data();
                self.send(message::BWTIME, &d);
            }
            Command::SendBoard => {
                let image = *self.scanner.image();
                self.send(message::BOARD_DUMP, &image);
            }
            Command::SendUpdate => self.set_mode(Mode::Update),
            Command::SendUpdateBoard => self.set_mode(Mode::UpdateBoard),
            Command::SendUpdateNice => self.set_mode(Mode::UpdateNice),
            Command::ReturnSerialNr => {
                let s = self.spec.serial_text();
                self.send(message::SERIALNR, s.as_bytes());
            }
            Command::ReturnBusAddress => {
                let a = self.address;
                self.send(message::BUSADRES, &[(a >> 7) as u8 & 0x7F, a as u8 & 0x7F]);
            }
            Command::SendTrademark => {
                let text = format!(
                    "Digital Game Technology\r\nCopyright (c) DGT Projects, emulated board\r\n\
                     software version: {}.{:02}, build: emulator\r\n\
                     hardware version: 1.00, serial no: {}",
                    self.spec.version.0,
                    self.spec.version.1,
                    self.spec.serial_text()
                );
                self.send(message::TRADEMARK, text.as_bytes());
            }
            Command::SendEeMoves => {
                let dump = self.memory.dump();
                self.send(message::EE_MOVES, &dump);
                self.memory.record_downloaded();
            }
            Command::ToBusMode => self.mode = Mode::Bus,
            Command::SendBatteryStatus => {
                let minutes_on = self.now / 60_000;
                let percent = if self.truth.battery_low { 12 } else { 87 };
                let data = [
                    percent,
                    0x7F,
                    0x7F,
                    (minutes_on / 60).min(99) as u8,
                    (minutes_on % 60) as u8,
                    0,
                    0,
                    0,
                    0x02,
                ];
                self.send(message::BATTERY_STATUS, &data);
            }
            Command::SendVersion => {
                let (major, minor) = self.spec.version;
                self.send(message::VERSION, &[major, minor]);
            }
            Command::ReturnLongSerialNr => {
                let s = format!("{:010}", self.spec.serial % 100_000);
                self.send(message::LONG_SERIALNR, s.as_bytes());
            }
            Command::Clock(c) => {
                if self.clock.is_some() {
                    self.link.commands.push_back(c);
                }
            }
            // Not a Revelation II: no LEDs.
            Command::SetLeds(_) => {}
            Command::Bus(_) => unreachable!("handled above"),
        }
    }

    fn bus_reply(&self, kind: BusReplyKind) -> Vec<u8> {
        BusReply {
            address: self.address,
            kind,
        }
        .encode()
    }

    fn bus_command(&mut self, b: BusCommand) {
        if self.mode != Mode::Bus {
            // The bus command that switches the line to bus mode is not executed (§2.4).
            self.mode = Mode::Bus;
            return;
        }
        let broadcast = b.address == 0;
        if !broadcast && b.address != self.address {
            return;
        }
        let quick = self.now + self.rng.range(3, 15);
        match b.kind {
            BusCommandKind::Ping if broadcast => {
                if self.ignore_next_ping {
                    self.ignore_next_ping = false;
                } else {
                    // Every board answers, at a random moment within 1100 ms (§2.4).
                    let t = self.now + self.rng.below(1100);
                    let r = self.bus_reply(BusReplyKind::Ping);
                    self.schedule(t, Pending::Send(r));
                }
            }
            BusCommandKind::Ping => {
                let r = self.bus_reply(BusReplyKind::Ping);
                self.schedule(quick, Pending::Send(r));
            }
            BusCommandKind::IgnoreNextPing => {
                let r = self.bus_reply(BusReplyKind::Ping);
                self.schedule(quick, Pending::Send(r));
                self.ignore_next_ping = true;
            }
            BusCommandKind::SendVersion => {
                // Answered on address 0 too: LiveChess probes with `8B 00 00 0B` (§2.4).
                let (major, minor) = self.spec.version;
                let r = self.bus_reply(BusReplyKind::Version { major, minor });
                self.schedule(quick, Pending::Send(r));
            }
            BusCommandKind::EndBusMode => self.mode = Mode::Idle,
            BusCommandKind::Reset => {
                let t = self.now + 2000;
                self.schedule(t, Pending::PowerUp);
            }
            // Everything else is for one board only.
            _ if broadcast => {}
            BusCommandKind::SendClock => {
                let d = self.clock_data();
                let r = self.bus_reply(BusReplyKind::Clock(ClockMessage::decode(&d)));
                self.schedule(quick, Pending::Send(r));
            }
            BusCommandKind::SendBoard => {
                let r = self.bus_reply(BusReplyKind::BoardDump(Box::new(*self.scanner.image())));
                self.schedule(quick, Pending::Send(r));
            }
            BusCommandKind::SendChanges => {
                let r = self.changes_reply();
                self.schedule(quick, Pending::Send(r));
            }
            BusCommandKind::RepeatChanges => {
                let r = self.bus_reply(BusReplyKind::Update(self.last_changes.clone()));
                self.schedule(quick, Pending::Send(r));
            }
            BusCommandKind::SetStartGame => {
                self.memory.record_start_tag();
                let r = self.bus_reply(BusReplyKind::StartGameWritten);
                let t = self.now + 70;
                self.schedule(t, Pending::Send(r));
            }
            BusCommandKind::SendFromStart => {
                let r = self.bus_reply(BusReplyKind::FromStart(self.memory.since_start_tag()));
                self.schedule(quick, Pending::Send(r));
            }
            BusCommandKind::SendAll => {
                let mut r = self.changes_reply();
                let d = self.clock_data();
                r.extend(self.bus_reply(BusReplyKind::Clock(ClockMessage::decode(&d))));
                r.extend(self.bus_reply(BusReplyKind::BoardDump(Box::new(*self.scanner.image()))));
                self.schedule(quick, Pending::Send(r));
            }
        }
    }

    fn changes_reply(&mut self) -> Vec<u8> {
        self.last_changes = self.memory.take_changes();
        self.bus_reply(BusReplyKind::Update(self.last_changes.clone()))
    }
}
