//! A bus line on virtual time: the [`BusPoller`], the simulated line of boards, and the real
//! core that the poller's inputs go to, with the games the core read as a consumer rebuilds
//! them.

use std::collections::BTreeMap;
use std::time::Instant;

use dgt_core::{AlertKind, Core, CoreConfig, Event, EventBody, Input, InputKind, Link};
use dgt_emulator::Truth;
use dgt_lab::simulated::pty_board::BoardModel;
use dgt_protocol::{BusReplyKind, Decoded, Decoder, LineMode};

use super::VirtualClock;
use super::moves::{assert_first_games, note_first_game};
use crate::edge::serial::bus_poller::BusPoller;

/// The port name the poller is given.
const PORT: &str = "/dev/ttyBUS";

/// One bus line and its poller on a virtual clock (ms since the line was powered), the line
/// opened at 0 ms. What the poller writes reaches the line at once.
pub struct BusSim {
    /// The machine under test.
    pub poller: BusPoller,
    /// The boards of the line, as one model.
    pub line: Box<dyn BoardModel>,
    clock: VirtualClock,
    labels: BTreeMap<String, String>,
    /// What the core was given, in order.
    pub inputs: Vec<Input>,
    /// Every command written, with its time.
    pub written: Vec<(u64, Vec<u8>)>,
    /// The core the inputs go to (default settings).
    pub core: Core,
    /// Each board's first game as a consumer rebuilds it (contract §3: a move with a `ply`
    /// already sent replaces it and every later one), in UCI.
    pub moves: BTreeMap<String, Vec<String>>,
    /// When set, prints what the core is told and the moves and alerts it says.
    trace: Option<Decoder>,
    /// `illegal_position` alerts that said the board no longer follows the game.
    pub lost_track_alerts: usize,
    /// `illegal_position` and `illegal_move` alerts of any wording: the arbiter was told the
    /// board shows something the game does not explain.
    pub board_alerts: usize,
}

impl BusSim {
    /// The line opened at 0 ms with the settings' serial → label map; what the poller says at
    /// once is exchanged.
    pub fn new(line: impl BoardModel, labels: BTreeMap<String, String>) -> Self {
        let clock = VirtualClock::start();
        let mut sim = BusSim {
            poller: BusPoller::new(PORT.into(), labels.clone(), clock.epoch()),
            line: Box::new(line),
            clock,
            labels,
            inputs: Vec::new(),
            written: Vec::new(),
            core: Core::new(CoreConfig::default()),
            moves: BTreeMap::new(),
            trace: None,
            lost_track_alerts: 0,
            board_alerts: 0,
        };
        sim.poller.line_opened(clock.epoch());
        sim.exchange();
        sim
    }

    /// From now on, prints what the core is told (decoded) and the moves and alerts it says.
    pub fn trace(&mut self) {
        self.trace = Some(Decoder::new(LineMode::Bus));
    }

    /// The current time, ms since the line was powered.
    pub fn t_ms(&self) -> u64 {
        self.clock.t_ms()
    }

    /// The instant of the current time.
    pub fn now(&self) -> Instant {
        self.clock.now()
    }

    /// What the poller has to say is told, then what it writes goes on the line (and, for a
    /// command to a connected board, to the core as `Tx`).
    pub fn exchange(&mut self) {
        while let Some(i) = self.poller.poll_event() {
            self.tell_core(i.board, i.kind);
        }
        while let Some(t) = self.poller.poll_transmit() {
            self.line.on_host_bytes(self.t_ms(), &t.bytes);
            self.written.push((self.t_ms(), t.bytes.clone()));
            if let Some(board) = t.report_to {
                self.tell_core(board, InputKind::Tx(t.bytes));
            }
        }
    }

    /// Runs until `end_ms`, waking at the line's and the poller's deadlines: the line's output
    /// is handed to the poller, then the poller is told the time.
    pub fn run_until(&mut self, end_ms: u64) {
        while self.t_ms() < end_ms {
            let poller = self
                .poller
                .poll_timeout()
                .map(|at| self.clock.deadline_ms(at));
            let t_ms = self.clock.step([poller, self.line.next_deadline()], end_ms);
            let bytes = self.line.poll_output(t_ms);
            let now = self.now();
            self.poller.handle_bytes(now, &bytes);
            self.exchange();
            self.poller.handle_timeout(now);
            self.exchange();
        }
    }

    /// The link facts the core was given for `board`, in order.
    pub fn links(&self, board: &str) -> Vec<&Link> {
        self.inputs
            .iter()
            .filter(|i| i.board == board)
            .filter_map(|i| match &i.kind {
                InputKind::Link(l) => Some(l),
                _ => None,
            })
            .collect()
    }

    /// Whether any board was reported lost.
    pub fn lost_any(&self) -> bool {
        self.inputs
            .iter()
            .any(|i| matches!(i.kind, InputKind::Link(Link::Disconnected { .. })))
    }

    /// Asserts that each board's first game, by its serial number (its bus address), was read
    /// move for move as the emulator played it.
    pub fn assert_games(&self, truths: &[(u32, Truth)]) {
        assert_first_games(&self.moves, truths, &self.labels);
    }

    fn tell_core(&mut self, board: String, kind: InputKind) {
        let input = Input {
            t_ms: self.t_ms(),
            board,
            kind,
        };
        if let (Some(decoder), InputKind::Rx(bytes)) = (self.trace.as_mut(), &input.kind) {
            print_decoded(input.t_ms, decoder.decode(bytes));
        }
        for e in self.core.handle(&input) {
            if self.trace.is_some() && matches!(e.body, EventBody::Move(_) | EventBody::Alert(_)) {
                println!("{:>7} => {:?}", input.t_ms, e.body);
            }
            self.note(&e);
        }
        self.inputs.push(input);
    }

    /// Counts the board alerts and rebuilds the first games from what the core said.
    fn note(&mut self, e: &Event) {
        if let EventBody::Alert(a) = &e.body
            && matches!(a.kind, AlertKind::IllegalPosition | AlertKind::IllegalMove)
        {
            self.board_alerts += 1;
            if a.lost_track().is_some() {
                self.lost_track_alerts += 1;
            }
        }
        note_first_game(&mut self.moves, e);
    }
}

/// Prints what the line said at `t_ms`: the changes packets as board-log entries (protocol
/// §3.6), clock replies, and everything else as decoded.
fn print_decoded(t_ms: u64, decoded: Vec<Decoded>) {
    for d in decoded {
        match d {
            Decoded::Bus(r) => match r.kind {
                BusReplyKind::Update(data) => {
                    println!("{t_ms:>7} log {:?}", dgt_protocol::parse_ee_log(&data))
                }
                BusReplyKind::Clock(c) => println!("{t_ms:>7} clock {c:?}"),
                other => println!("{t_ms:>7} {other:?}"),
            },
            other => println!("{t_ms:>7} {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use dgt_emulator::{BoardSpec, EmulatedBoard, HandlingRates, TimeControl};
    use dgt_lab::simulated::bus_line_board::BusLineBoard;

    use super::*;

    #[test]
    fn a_one_board_line_is_found_and_its_game_read_move_for_move() {
        let mut spec = BoardSpec::random(100, 8)
            .with_rates(HandlingRates::clean())
            .with_time_control(TimeControl::parse("60+1").unwrap());
        spec.serial = 1025;
        spec.start_delay_ms = 6000;
        let board = EmulatedBoard::new(spec);
        let truth = board.truth().clone();
        let labels = BTreeMap::from([("01025".to_string(), "table-3".to_string())]);
        let mut sim = BusSim::new(BusLineBoard::of_boards(vec![board]), labels);
        sim.run_until(truth.end_ms + 5000);
        assert_eq!(sim.t_ms(), truth.end_ms + 5000);
        assert!(matches!(
            sim.links("table-3")[..],
            [Link::BusConnected { .. }]
        ));
        assert!(!sim.lost_any());
        assert!(!truth.ucis().is_empty());
        sim.assert_games(&[(1025, truth)]);
        assert_eq!(sim.moves.keys().collect::<Vec<_>>(), ["table-3"]);
        assert_eq!(sim.board_alerts, 0);
        // Every command went on the line; those to the connected board were told as `Tx`.
        let told = sim
            .inputs
            .iter()
            .filter(|i| matches!(i.kind, InputKind::Tx(_)));
        assert!(told.count() <= sim.written.len());
    }
}
