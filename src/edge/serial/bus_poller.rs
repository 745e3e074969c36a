//! The bus line's logic without its I/O: a state machine that is told what the line said
//! ([`BusPoller::handle_bytes`]) and what time it is ([`BusPoller::handle_timeout`]), and
//! says what to write ([`BusPoller::poll_transmit`]), when to wake it
//! ([`BusPoller::poll_timeout`]) and what to tell the core ([`BusPoller::poll_event`]).
//! [`super::bus_line`] drives it over a real port; tests drive it on virtual time against
//! the emulated bus, many cases in milliseconds.
//!
//! The protocol it follows (discovery by ping, polling, repeats, loss) is described in
//! [`super::bus_line`]. The machine runs a list of [`Step`]s; a step that asks a board
//! something writes one command and waits for the answer (or the line's silence) before the
//! next step runs. So at any time at most one command is waiting to be written, and
//! everything [`BusPoller::poll_event`] has to say was decided before it: a driver hands
//! out the events first, then writes.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use dgt_core::{InputKind, Link};
use dgt_protocol::bus::{self, address_of_serial};
use dgt_protocol::{
    BusCommand, BusCommandKind, BusReply, BusReplyKind, Decoded, Decoder, LineMode,
};

use super::identity::label_for_serial;

/// How long a board may take to start its reply, and the longest pause inside one: "allow
/// about 80 ms for a reply; a board writing EEPROM can take up to 20 ms" (§2.4). A long reply
/// (a 7.9 kB log takes ~8 s at 9600 baud, 1.04 ms a byte, §1.1) is waited for while its
/// bytes keep coming.
pub const REPLY_TIMEOUT: Duration = Duration::from_millis(80);
/// After a time-out, a reply that is merely late gets this much longer before the command
/// is repeated, so that the late one is not taken for the answer to the next command.
pub const LATE_REPLY_GRACE: Duration = Duration::from_millis(80);
/// The window after a ping to address 0: every board answers within 1100 ms (§2.4), plus
/// the 6-byte answer itself and some slack.
pub const PING_WINDOW: Duration = Duration::from_millis(1250);
/// The shortest time between two polls of a board. DGT polls "every few seconds" (§2.4);
/// once a second keeps move and press times close, and a round costs per board about 30
/// bytes (two 4-byte commands, a 6+ byte changes packet and a 13-byte clock reply: ~31 ms
/// at 9600 baud) plus two reply delays — about 60 ms, so eight boards take ~0.5 s. The
/// clock data lag the display by up to 1 s anyway (§2.4).
pub const POLL_PERIOD: Duration = Duration::from_millis(1000);
/// Tries for one changes packet (`SEND_CHANGES` or `REPEAT_CHANGES`, then repeats).
pub const CHANGES_ATTEMPTS: u32 = 3;
/// Polls in a row without a byte from a board before its link is reported lost (~3 s).
pub const SILENT_POLLS_LOST: u32 = 3;
/// How often a broadcast ping looks for boards plugged in later. It stops polling for
/// [`PING_WINDOW`].
pub const REDISCOVERY_INTERVAL: Duration = Duration::from_secs(15);
/// Broadcast rounds at most when the line is opened (each finds the boards whose answers
/// did not collide; known boards stay quiet in the next).
const MAX_DISCOVERY_ROUNDS: u32 = 10;

/// The label of the board at `address`: a serial the settings name whose low 14 bits are
/// this address, else `board-<address as 5 digits>` (the serial, for serials below 16384).
pub fn label_for_address(address: u16, labels: &BTreeMap<String, String>) -> String {
    labels
        .iter()
        .find(|(serial, _)| address_of_serial(serial) == Some(address))
        .map(|(_, label)| label.clone())
        .unwrap_or_else(|| label_for_serial(&format!("{address:05}"), labels))
}

/// Something for the core, under the label of the board it concerns. The driver stamps it
/// with the daemon's time when it takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardInput {
    pub board: String,
    pub kind: InputKind,
}

/// A command to write on the line.
#[derive(Debug, Clone, PartialEq)]
pub struct Transmit {
    pub bytes: Vec<u8>,
    /// The label of the connected board it is addressed to: once written, the core is told
    /// (`Tx`, stamped with the time the write began). `None` for a ping to a board not
    /// polled, or to every board.
    pub report_to: Option<String>,
}

/// One board of the line.
#[derive(Debug)]
struct Board {
    label: String,
    /// Polled and reported connected.
    connected: bool,
    /// A `SEND_CHANGES` went out and its packet has not come in whole: the board still holds
    /// it for `REPEAT_CHANGES`.
    changes_pending: bool,
    /// The data of the last changes packet passed on.
    last_packet: Vec<u8>,
    /// Its whole board has not come in since it was found.
    needs_board: bool,
    /// Any frame (even a garbled one) from it since the current poll began.
    heard: bool,
    silent_polls: u32,
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Got,
    /// The answer came with a bad checksum.
    Corrupt,
    TimedOut,
}

/// The answer a request waits for: from this address, one of these reply ids.
#[derive(Debug, Clone, Copy)]
struct Want {
    address: u16,
    ids: &'static [u8],
}

/// The line is being listened to until `deadline` (later while a frame is coming in).
#[derive(Debug, Clone, Copy)]
struct Wait {
    want: Option<Want>,
    deadline: Instant,
    /// On a time-out, wait [`LATE_REPLY_GRACE`] more before giving up.
    grace: bool,
}

/// A frame as received, with its decoding.
struct Heard {
    raw: Vec<u8>,
    item: Decoded,
}

/// Cuts the received bytes into bus frames, keeping each frame's bytes as they came.
struct Frames {
    decoder: Decoder,
    /// The bytes of the frame in progress (what the decoder holds).
    held: Vec<u8>,
}

impl Frames {
    fn new() -> Self {
        Frames {
            decoder: Decoder::new(LineMode::Bus),
            held: Vec::new(),
        }
    }

    /// Frames completed by `bytes`, and whether bytes that belong to no frame went by (two
    /// boards talking at once, or line noise).
    fn push(&mut self, bytes: &[u8]) -> (Vec<Heard>, bool) {
        let mut frames = Vec::new();
        let mut noise = false;
        for &b in bytes {
            self.held.push(b);
            self.decoder.push(&[b]);
            let mut completed = false;
            while let Some(item) = self.decoder.next_decoded() {
                match item {
                    Decoded::Bus(_) | Decoded::BadChecksum { .. } => {
                        completed = true;
                        frames.push(Heard {
                            raw: frame_tail(&self.held).to_vec(),
                            item,
                        });
                    }
                    // Reported with the next frame; counted below as it is dropped.
                    Decoded::Garbage(_) | Decoded::Message(_) => {}
                }
            }
            let keep = self.decoder.pending().min(self.held.len());
            let dropped = self.held.len() - keep;
            if dropped > 0 && !completed {
                noise = true;
            }
            self.held.drain(..dropped);
        }
        (frames, noise)
    }

    fn in_progress(&self) -> bool {
        self.decoder.pending() > 0
    }
}

/// The frame that ends `held`: from the start byte whose length field reaches the end.
fn frame_tail(held: &[u8]) -> &[u8] {
    let n = held.len();
    (0..n.saturating_sub(2))
        .find(|&p| {
            held[p] & 0x80 != 0 && (((held[p + 1] as usize) << 7) | held[p + 2] as usize) == n - p
        })
        .map_or(held, |p| &held[p..])
}

/// The id a reply came with.
fn reply_id(reply: &BusReply) -> u8 {
    match &reply.kind {
        BusReplyKind::BoardDump(_) => bus::BUS_BRD_DUMP,
        BusReplyKind::Clock(_) => bus::BUS_BWTIME,
        BusReplyKind::Update(_) => bus::BUS_UPDATE,
        BusReplyKind::FromStart(_) => bus::BUS_FROM_START,
        BusReplyKind::Ping => bus::BUS_PING,
        BusReplyKind::StartGameWritten => bus::BUS_START_GAME_WRITTEN,
        BusReplyKind::Version { .. } => bus::BUS_VERSION,
        BusReplyKind::Other { id, .. } => *id,
    }
}

/// Why a broadcast round runs, so that its end knows what comes next.
#[derive(Debug, Clone, Copy)]
enum RoundKind {
    /// The `n`-th round after the line was opened.
    Opening(u32),
    /// The periodic search for boards plugged in later.
    Rediscovery,
}

/// One step of the machine's program. Steps that ask something wait for the answer; the
/// step after reads it from [`BusPoller::outcome`].
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Writes a command and waits for the answer (one of `ids` from its address).
    Ask {
        address: u16,
        kind: BusCommandKind,
        ids: &'static [u8],
    },
    /// Starts reporting the board if the ping before was answered.
    ConnectIfAnswered(u16),
    /// Starts reporting a board that answered: its link, version, changes and whole board.
    Connect(u16),
    /// A broadcast round: known boards told to ignore it, then a ping to address 0.
    Round(RoundKind),
    /// The ping to address 0, and [`PING_WINDOW`] of listening.
    BroadcastPing,
    /// The boards found by the round's ping are connected; then what follows the round.
    RoundFound(RoundKind),
    /// The opening rounds are over until one hears nothing (the second always runs).
    OpeningRoundDone { round: u32, heard: bool },
    /// The opening rounds are done: polling starts.
    StartPolling,
    /// A periodic broadcast round is done: the next is due in [`REDISCOVERY_INTERVAL`].
    RediscoveryDone,
    /// One polling round: each connected board, then the lost ones pinged, then maybe a
    /// broadcast round, then silence until the period is over.
    PollRound,
    /// Pings every board not connected; one that answers is connected again.
    PingLost,
    /// A broadcast round if one is due.
    MaybeRediscover,
    /// Listens only, until the instant.
    ListenUntil(Instant),
    /// One poll of one board: its changes, then its clock.
    Poll(u16),
    /// `REPEAT_CHANGES` while a packet is owed (never `SEND_CHANGES`, which would discard
    /// it, §2.4), then `SEND_CHANGES`; sets [`BusPoller::changes_complete`].
    FetchChanges { address: u16, failures: u32 },
    /// What the changes request brought.
    ChangesAnswered {
        address: u16,
        repeat: bool,
        failures: u32,
    },
    /// The whole board when it is still missing, or when the changes never came whole.
    AfterChanges(u16),
    /// The whole board came in place of the lost changes packet.
    BoardReplacedChanges(u16),
    /// Counts a poll without a byte; reports the board lost after [`SILENT_POLLS_LOST`].
    CountSilence(u16),
}

/// The logic of one bus line, across openings of its port: what is known of each board (an
/// owed changes packet) outlives one opening.
pub struct BusPoller {
    /// The port's name, for logs and for `Link::BusConnected`.
    port: String,
    /// Board serial number → label (settings `[serial.labels]`).
    labels: BTreeMap<String, String>,
    boards: BTreeMap<u16, Board>,
    /// The line is open (between [`Self::line_opened`] and [`Self::line_closed`]).
    open: bool,
    frames: Frames,
    last_byte: Instant,
    /// Boards not (or no longer) polled that answered a ping.
    found: BTreeSet<u16>,
    /// Bytes that made no frame, or a bad checksum, since the last broadcast ping.
    noise: bool,
    /// Any frame at all since the line was opened.
    heard_any: bool,
    /// Steps still to run, the next first.
    steps: VecDeque<Step>,
    /// The wait the machine is in, if any.
    wait: Option<Wait>,
    /// How the last request ended.
    outcome: Outcome,
    /// Whether the last changes fetch got its packet whole.
    changes_complete: bool,
    /// When the current polling round began.
    round_start: Instant,
    /// When the next broadcast round is due.
    next_discovery: Instant,
    transmits: VecDeque<Transmit>,
    events: VecDeque<BoardInput>,
}

impl BusPoller {
    /// A line on `port` whose boards are named by `labels` (serial number → label).
    pub fn new(port: String, labels: BTreeMap<String, String>, now: Instant) -> Self {
        BusPoller {
            port,
            labels,
            boards: BTreeMap::new(),
            open: false,
            frames: Frames::new(),
            last_byte: now,
            found: BTreeSet::new(),
            noise: false,
            heard_any: false,
            steps: VecDeque::new(),
            wait: None,
            outcome: Outcome::TimedOut,
            changes_complete: false,
            round_start: now,
            next_discovery: now,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    /// The port was opened: boards the settings name are pinged by address (§2.4: "discover
    /// boards with addressed pings"), then broadcast rounds until one hears nothing.
    pub fn line_opened(&mut self, now: Instant) {
        self.open = true;
        self.frames = Frames::new();
        self.last_byte = now;
        self.found.clear();
        self.noise = false;
        self.heard_any = false;
        self.wait = None;
        self.steps.clear();
        self.transmits.clear();
        let named: BTreeSet<u16> = self
            .labels
            .keys()
            .filter_map(|s| address_of_serial(s))
            .filter(|&a| a != 0)
            .chain(self.boards.keys().copied())
            .collect();
        for address in named {
            self.steps.push_back(ping(address));
            self.steps.push_back(Step::ConnectIfAnswered(address));
        }
        self.steps.push_back(Step::Round(RoundKind::Opening(0)));
        self.run(now);
    }

    /// The port is closed (an error, or the daemon stopping): every connected board's link
    /// ends with `reason`. Returns whether anything was heard since it was opened.
    pub fn line_closed(&mut self, reason: &str, stopping: bool) -> bool {
        self.open = false;
        self.wait = None;
        self.steps.clear();
        self.transmits.clear();
        let connected: Vec<u16> = self.connected().collect();
        for address in connected {
            self.emit(
                address,
                InputKind::Link(Link::Disconnected {
                    reason: Some(reason.to_string()),
                    stopping,
                }),
            );
            if let Some(b) = self.boards.get_mut(&address) {
                b.connected = false;
            }
        }
        self.heard_any
    }

    /// Bytes read from the line at `now`.
    pub fn handle_bytes(&mut self, now: Instant, bytes: &[u8]) {
        if !self.open || bytes.is_empty() {
            return;
        }
        self.last_byte = now;
        let (frames, noise) = self.frames.push(bytes);
        self.noise |= noise;
        let want = self.wait.and_then(|w| w.want);
        let mut outcome = None;
        for heard in frames {
            let o = self.on_frame(heard, want);
            outcome = outcome.or(o);
        }
        if let (Some(o), Some(_)) = (outcome, self.wait) {
            self.resolve(o, now);
        }
    }

    /// When [`Self::handle_timeout`] is due, if the machine waits for anything.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let wait = self.wait?;
        Some(if self.frames.in_progress() {
            wait.deadline.max(self.last_byte + REPLY_TIMEOUT)
        } else {
            wait.deadline
        })
    }

    /// The time is `now`: a wait whose time is up ends (a late answer first gets
    /// [`LATE_REPLY_GRACE`]). Early calls do nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        let (Some(wait), Some(due)) = (self.wait, self.poll_timeout()) else {
            return;
        };
        if now < due {
            return;
        }
        if wait.grace {
            self.wait = Some(Wait {
                want: wait.want,
                deadline: now + LATE_REPLY_GRACE,
                grace: false,
            });
            return;
        }
        self.resolve(Outcome::TimedOut, now);
    }

    /// The next command to write.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next input for the core.
    pub fn poll_event(&mut self) -> Option<BoardInput> {
        self.events.pop_front()
    }

    /// The labels of the boards polled now.
    pub fn connected_boards(&self) -> impl Iterator<Item = &str> {
        self.boards
            .values()
            .filter(|b| b.connected)
            .map(|b| b.label.as_str())
    }

    fn connected(&self) -> impl Iterator<Item = u16> + '_ {
        self.boards
            .iter()
            .filter(|(_, b)| b.connected)
            .map(|(&a, _)| a)
    }

    /// The wait ended with `outcome`: the program goes on.
    fn resolve(&mut self, outcome: Outcome, now: Instant) {
        self.wait = None;
        self.outcome = outcome;
        self.run(now);
    }

    /// Runs steps until one waits.
    fn run(&mut self, now: Instant) {
        while self.open && self.wait.is_none() {
            let Some(step) = self.steps.pop_front() else {
                return;
            };
            self.step(step, now);
        }
    }

    /// Puts `steps` before every step still to run, in their order.
    fn then(&mut self, steps: impl IntoIterator<Item = Step>) {
        let steps: Vec<Step> = steps.into_iter().collect();
        for s in steps.into_iter().rev() {
            self.steps.push_front(s);
        }
    }

    fn step(&mut self, step: Step, now: Instant) {
        match step {
            Step::Ask { address, kind, ids } => {
                self.write(BusCommand { kind, address });
                self.wait = Some(Wait {
                    want: Some(Want { address, ids }),
                    deadline: now + REPLY_TIMEOUT,
                    grace: true,
                });
            }
            Step::ConnectIfAnswered(address) => {
                if self.outcome == Outcome::Got {
                    self.then([Step::Connect(address)]);
                }
            }
            Step::Connect(address) => self.connect(address),
            Step::Round(kind) => {
                let known: Vec<u16> = self.connected().collect();
                let ignore = known.into_iter().map(|address| Step::Ask {
                    address,
                    kind: BusCommandKind::IgnoreNextPing,
                    ids: &[bus::BUS_PING],
                });
                let rest = [Step::BroadcastPing, Step::RoundFound(kind)];
                self.then(ignore.chain(rest));
            }
            Step::BroadcastPing => {
                self.found.clear();
                self.noise = false;
                self.write(BusCommand {
                    kind: BusCommandKind::Ping,
                    address: 0,
                });
                self.wait = Some(Wait {
                    want: None,
                    deadline: now + PING_WINDOW,
                    grace: false,
                });
            }
            Step::RoundFound(kind) => {
                let found = std::mem::take(&mut self.found);
                let heard = !found.is_empty() || self.noise;
                if heard {
                    tracing::debug!(
                        port = self.port,
                        found = found.len(),
                        collisions = self.noise,
                        "bus ping round"
                    );
                }
                let next = match kind {
                    RoundKind::Opening(round) => Step::OpeningRoundDone { round, heard },
                    RoundKind::Rediscovery => Step::RediscoveryDone,
                };
                let connects = found.into_iter().map(Step::Connect);
                self.then(connects.chain([next]));
            }
            Step::OpeningRoundDone { round, heard } => {
                // The second round always runs: boards in single-board mode only switch
                // back on the first ping.
                if (!heard && round > 0) || round + 1 >= MAX_DISCOVERY_ROUNDS {
                    self.then([Step::StartPolling]);
                } else {
                    self.then([Step::Round(RoundKind::Opening(round + 1))]);
                }
            }
            Step::StartPolling => {
                self.next_discovery = now + REDISCOVERY_INTERVAL;
                self.then([Step::PollRound]);
            }
            Step::RediscoveryDone => self.next_discovery = now + REDISCOVERY_INTERVAL,
            Step::PollRound => {
                self.round_start = now;
                let polled: Vec<u16> = self.connected().collect();
                let polls = polled.into_iter().map(Step::Poll);
                let rest = [
                    Step::PingLost,
                    Step::MaybeRediscover,
                    Step::ListenUntil(now + POLL_PERIOD),
                    Step::PollRound,
                ];
                self.then(polls.chain(rest));
            }
            Step::PingLost => {
                let lost: Vec<u16> = self
                    .boards
                    .iter()
                    .filter(|(_, b)| !b.connected)
                    .map(|(&a, _)| a)
                    .collect();
                let pings = lost
                    .into_iter()
                    .flat_map(|a| [ping(a), Step::ConnectIfAnswered(a)]);
                self.then(pings);
            }
            Step::MaybeRediscover => {
                if now >= self.next_discovery {
                    self.then([Step::Round(RoundKind::Rediscovery)]);
                }
            }
            Step::ListenUntil(deadline) => {
                self.wait = Some(Wait {
                    want: None,
                    deadline,
                    grace: false,
                });
            }
            Step::Poll(address) => {
                if let Some(b) = self.boards.get_mut(&address) {
                    b.heard = false;
                }
                self.then([
                    Step::FetchChanges {
                        address,
                        failures: 0,
                    },
                    Step::AfterChanges(address),
                    ask(address, BusCommandKind::SendClock, &[bus::BUS_BWTIME]),
                    Step::CountSilence(address),
                ]);
            }
            Step::FetchChanges { address, failures } => {
                let Some(b) = self.boards.get_mut(&address) else {
                    self.changes_complete = false;
                    return;
                };
                let repeat = b.changes_pending;
                b.changes_pending = true;
                let kind = if repeat {
                    BusCommandKind::RepeatChanges
                } else {
                    BusCommandKind::SendChanges
                };
                self.then([
                    ask(address, kind, &[bus::BUS_UPDATE]),
                    Step::ChangesAnswered {
                        address,
                        repeat,
                        failures,
                    },
                ]);
            }
            Step::ChangesAnswered {
                address,
                repeat,
                failures,
            } => match self.outcome {
                // The owed packet is in: now the changes since.
                Outcome::Got if repeat => self.then([Step::FetchChanges { address, failures }]),
                Outcome::Got => self.changes_complete = true,
                Outcome::Corrupt | Outcome::TimedOut => {
                    let failures = failures + 1;
                    if failures >= CHANGES_ATTEMPTS {
                        self.changes_complete = false;
                    } else {
                        self.then([Step::FetchChanges { address, failures }]);
                    }
                }
            },
            Step::AfterChanges(address) => {
                let board = self.boards.get(&address);
                let send_board = ask(address, BusCommandKind::SendBoard, &[bus::BUS_BRD_DUMP]);
                if self.changes_complete && board.is_some_and(|b| b.needs_board) {
                    // Its whole board did not come through when it was found.
                    self.then([send_board]);
                } else if !self.changes_complete && board.is_some_and(|b| b.heard) {
                    // The board answers, but its packet never came through whole: its whole
                    // board stands in for it (§2.4, "on a mismatch, ask for a full board").
                    self.then([send_board, Step::BoardReplacedChanges(address)]);
                }
            }
            Step::BoardReplacedChanges(address) => {
                if self.outcome == Outcome::Got
                    && let Some(b) = self.boards.get_mut(&address)
                {
                    tracing::warn!(
                        board = b.label,
                        "changes lost; the whole board replaces them"
                    );
                    b.changes_pending = false;
                }
            }
            Step::CountSilence(address) => self.count_silence(address),
        }
    }

    fn connect(&mut self, address: u16) {
        let label = label_for_address(address, &self.labels);
        let board = self.boards.entry(address).or_insert_with(|| Board {
            label: label.clone(),
            connected: false,
            changes_pending: false,
            last_packet: Vec::new(),
            needs_board: true,
            heard: false,
            silent_polls: 0,
        });
        if board.connected {
            return;
        }
        board.connected = true;
        board.silent_polls = 0;
        board.needs_board = true;
        tracing::info!(port = self.port, address, board = label, "bus board found");
        let port = self.port.clone();
        self.emit(
            address,
            InputKind::Link(Link::BusConnected {
                port: Some(port),
                address: Some(address),
            }),
        );
        // The changes since the last SEND_CHANGES: the moves made while nobody polled it
        // (the first time, its log since power-up), so later packets hold only new ones.
        self.then([
            ask(address, BusCommandKind::SendVersion, &[bus::BUS_VERSION]),
            Step::FetchChanges {
                address,
                failures: 0,
            },
            ask(address, BusCommandKind::SendBoard, &[bus::BUS_BRD_DUMP]),
        ]);
    }

    fn count_silence(&mut self, address: u16) {
        let Some(b) = self.boards.get_mut(&address) else {
            return;
        };
        if b.heard {
            b.silent_polls = 0;
            return;
        }
        b.silent_polls += 1;
        if b.silent_polls >= SILENT_POLLS_LOST {
            b.connected = false;
            tracing::warn!(board = b.label, "bus board silent; link lost");
            let reason = format!("no answer on the bus for {} polls", b.silent_polls);
            self.emit(
                address,
                InputKind::Link(Link::Disconnected {
                    reason: Some(reason),
                    stopping: false,
                }),
            );
        }
    }

    fn write(&mut self, command: BusCommand) {
        let report_to = self
            .boards
            .get(&command.address)
            .filter(|b| b.connected)
            .map(|b| b.label.clone());
        self.transmits.push_back(Transmit {
            bytes: command.encode().to_vec(),
            report_to,
        });
    }

    /// Hands a frame to its board (or notes a board found) and says whether it is the
    /// wanted answer.
    fn on_frame(&mut self, heard: Heard, want: Option<Want>) -> Option<Outcome> {
        self.heard_any = true;
        let is_wanted = |address: u16, id: u8| {
            want.is_some_and(|w| w.address == address && w.ids.contains(&id))
        };
        match heard.item {
            Decoded::Bus(reply) => {
                let address = reply.address;
                let wanted = is_wanted(address, reply_id(&reply));
                match self.boards.get_mut(&address) {
                    Some(b) if b.connected => {
                        b.heard = true;
                        let forward = match &reply.kind {
                            // Only the first copy of a packet counts: a late original and
                            // its repeat carry the same changes, and a board that never got
                            // the SEND_CHANGES repeats the packet before. Field changes are
                            // absolute, so a packet equal to the last one adds nothing even
                            // when it is new.
                            BusReplyKind::Update(data) => {
                                let owed = std::mem::replace(&mut b.changes_pending, false);
                                let again = !data.is_empty() && *data == b.last_packet;
                                if owed && !again {
                                    b.last_packet.clone_from(data);
                                }
                                owed && !again
                            }
                            BusReplyKind::BoardDump(_) => {
                                b.needs_board = false;
                                true
                            }
                            _ => true,
                        };
                        if forward {
                            self.emit(address, InputKind::Rx(heard.raw));
                        } else {
                            tracing::debug!(
                                board = b.label,
                                "a changes packet came again; dropped"
                            );
                        }
                    }
                    // A board not polled (new, or lost) that answers a ping.
                    _ if reply.kind == BusReplyKind::Ping && address != 0 => {
                        self.found.insert(address);
                    }
                    _ => {}
                }
                wanted.then_some(Outcome::Got)
            }
            Decoded::BadChecksum { id, address } => {
                self.noise = true;
                if let Some(b) = self.boards.get_mut(&address)
                    && b.connected
                {
                    b.heard = true;
                    self.emit(address, InputKind::Rx(heard.raw));
                }
                is_wanted(address, id).then_some(Outcome::Corrupt)
            }
            Decoded::Message(_) | Decoded::Garbage(_) => None,
        }
    }

    fn emit(&mut self, address: u16, kind: InputKind) {
        let Some(b) = self.boards.get(&address) else {
            return;
        };
        self.events.push_back(BoardInput {
            board: b.label.clone(),
            kind,
        });
    }
}

fn ask(address: u16, kind: BusCommandKind, ids: &'static [u8]) -> Step {
    Step::Ask { address, kind, ids }
}

fn ping(address: u16) -> Step {
    ask(address, BusCommandKind::Ping, &[bus::BUS_PING])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_keep_their_bytes_and_noise_is_noticed() {
        let ping = BusReply {
            address: 1025,
            kind: BusReplyKind::Ping,
        }
        .encode();
        let update = BusReply {
            address: 77,
            kind: BusReplyKind::Update(vec![0x40, 52, 0x51, 36]),
        }
        .encode();
        let mut bad = ping.clone();
        *bad.last_mut().unwrap() ^= 1;
        let mut bytes = vec![0x12, 0x34];
        bytes.extend(&update);
        bytes.extend(&bad);
        bytes.extend(&ping);
        let mut frames = Frames::new();
        // Any chunking.
        let (a, b) = bytes.split_at(9);
        let (mut heard, noise_a) = frames.push(a);
        let (more, noise_b) = frames.push(b);
        heard.extend(more);
        assert!(noise_a && !noise_b);
        assert_eq!(heard.len(), 3);
        assert_eq!(heard[0].raw, update);
        assert!(matches!(heard[0].item, Decoded::Bus(_)));
        assert_eq!(heard[1].raw, bad);
        assert!(matches!(
            heard[1].item,
            Decoded::BadChecksum {
                id: 0x87,
                address: 1025
            }
        ));
        assert_eq!(heard[2].raw, ping);
        assert!(!frames.in_progress());
    }

    #[test]
    fn boards_are_named_by_their_address() {
        let mut labels = BTreeMap::new();
        labels.insert("01025".to_string(), "table-3".to_string());
        // 17410 = 16384 + 1026: above 14 bits, named by its low 14 bits (§2.4 gap).
        labels.insert("17410".to_string(), "table-4".to_string());
        assert_eq!(label_for_address(1025, &labels), "table-3");
        assert_eq!(label_for_address(1026, &labels), "table-4");
        assert_eq!(label_for_address(1027, &labels), "board-01027");
        assert_eq!(label_for_address(77, &BTreeMap::new()), "board-00077");
    }

    /// A reply whose bytes keep coming is waited for past the deadline; a silent board
    /// gets [`LATE_REPLY_GRACE`] more, then the command counts as unanswered.
    #[test]
    fn a_reply_in_progress_holds_the_time_out_and_silence_gets_a_grace() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut p = BusPoller::new("p".into(), BTreeMap::new(), t0);
        p.line_opened(t0);
        let ping = p.poll_transmit().unwrap();
        assert_eq!(ping.bytes[..3], [0x87, 0, 0]);
        assert_eq!(p.poll_timeout(), Some(ms(1250)));
        // Half a ping answer at 1200 ms: the window waits for the rest.
        let answer = BusReply {
            address: 300,
            kind: BusReplyKind::Ping,
        }
        .encode();
        p.handle_bytes(ms(1200), &answer[..3]);
        assert_eq!(p.poll_timeout(), Some(ms(1280)));
        p.handle_timeout(ms(1250));
        assert_eq!(p.poll_transmit(), None);
        p.handle_bytes(ms(1260), &answer[3..]);
        p.handle_timeout(ms(1280));
        // The board is connected and asked its version.
        assert!(matches!(
            p.poll_event().unwrap().kind,
            InputKind::Link(Link::BusConnected { .. })
        ));
        let version = p.poll_transmit().unwrap();
        assert_eq!(version.bytes[0], 0x8B);
        assert_eq!(version.report_to.as_deref(), Some("board-00300"));
        // No answer: at 80 ms the grace starts, at 160 ms the next command goes out.
        p.handle_timeout(ms(1360));
        assert_eq!(p.poll_transmit(), None);
        assert_eq!(p.poll_timeout(), Some(ms(1440)));
        p.handle_timeout(ms(1440));
        assert_eq!(p.poll_transmit().unwrap().bytes[0], 0x83);
    }
}
