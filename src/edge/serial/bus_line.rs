//! One DGT bus line: several serial boards on one RS-232 port, each answering only the
//! commands sent to its address (protocol §2.4, §3.7). The host speaks, one board answers;
//! this task finds the boards, polls them in turn and hands each board's frames to the core
//! under that board's own label, as if it had a port of its own.
//!
//! * **Addresses and labels.** A board's address is its serial number as 14 bits (§2.4), so
//!   `board-<serial>` (or the table label the settings give that serial) follows the board
//!   from line to line. The port's own `label` is not used: a line has many boards.
//! * **Discovery.** Boards the settings name are pinged by address first. Then `PING` to
//!   address 0: every board answers "at random times within 1100 ms" (§2.4), and two answers
//!   that overlap garble each other. DGT's tip (§2.4) is followed: every board already known
//!   gets `IGNORE_NEXT_BUS_PING` (it answers at once and stays quiet on the next broadcast),
//!   then address 0 is pinged again, until a round hears nothing at all. Later, a broadcast
//!   round every [`REDISCOVERY_INTERVAL`] finds boards plugged in meanwhile, and a board that
//!   was lost is pinged by address every round.
//!   A board left in single-board mode by another program goes back to bus mode on the
//!   first bus command, which it does not execute (§2.4): the second round, which always
//!   runs, finds it.
//! * **Start of a board.** `Link::BusConnected` (the core then frames its bytes as bus
//!   replies), `SEND_VERSION`, then its changes (the first time: its log since power-up,
//!   §3.6, up to 7.9 kB, ~8 s at 9600 baud; after an outage: the moves made meanwhile),
//!   then `SEND_BRD`, the whole board (asked again at the next polls until it comes).
//!   Nothing is ever sent that touches the clock; `SET_START_GAME` (it only writes a tag in
//!   the board's log, §2.4) is not needed and not sent.
//! * **Polling.** Each board in turn: `SEND_CHANGES` (every change since the previous one,
//!   §2.4), then `SEND_CLK`. A changes packet that arrives with a bad checksum, or not at all
//!   within [`REPLY_TIMEOUT`], is asked for again with `REPEAT_CHANGES` — never
//!   `SEND_CHANGES`, which would discard it (§2.4). A packet still missing after
//!   [`CHANGES_ATTEMPTS`] tries is replaced by a full `SEND_BRD` ("on a mismatch, ask for a
//!   full board", §2.4), if the board answers at all; a silent board keeps its packet owed
//!   and is asked `REPEAT_CHANGES` first when it answers again.
//! * **Loss.** A board that answers nothing for [`SILENT_POLLS_LOST`] polls in a row is
//!   reported `Link::Disconnected`; when an addressed ping reaches it again, it starts over
//!   (and its owed packet comes first). A port error ends every board's link at once.
//! * **What the core sees.** Every frame received from a board, byte for byte as received
//!   (bad checksums included, so a capture holds what came in), as `Rx`; every command
//!   addressed to a connected board as `Tx`. A changes packet received twice (the original
//!   came late, after its repeat was asked; or the board never heard the `SEND_CHANGES` and
//!   repeated its previous packet) is passed on once.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use dgt_core::{Input, InputKind, Link};
use dgt_protocol::bus::{self, address_of_serial};
use dgt_protocol::{
    BusCommand, BusCommandKind, BusReply, BusReplyKind, Decoded, Decoder, LineMode,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;

use super::backoff::Backoff;
use super::discovery::PortCandidate;
use super::identity::label_for_serial;
use super::{SerialContext, line};

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

/// Runs the bus line until the port disappears or `cancel` fires.
pub async fn run(port: PortCandidate, context: SerialContext, cancel: CancellationToken) {
    let mut backoff = Backoff::new(context.timing.backoff_min, context.timing.backoff_max);
    // What is known of each board outlives one opening of the port (an owed changes packet).
    let mut boards: BTreeMap<u16, Board> = BTreeMap::new();
    loop {
        if cancel.is_cancelled() {
            return;
        }
        match line::open_port(&port.path) {
            Ok(stream) => {
                tracing::info!(port = %port.path.display(), "bus line opened");
                let mut session = Session::new(&port, &context, stream, &mut boards);
                let reason = {
                    let work = session.work();
                    tokio::select! {
                        _ = cancel.cancelled() => "daemon stopped".to_string(),
                        end = work => end,
                    }
                };
                let heard = session.finish(&reason, cancel.is_cancelled()).await;
                tracing::info!(port = %port.path.display(), reason, "bus line ended");
                if heard {
                    backoff.reset();
                }
            }
            Err(e) if line::is_gone(&e) => {
                tracing::debug!(port = %port.path.display(), "port gone: {e}");
                return;
            }
            Err(e) => tracing::warn!(port = %port.path.display(), "cannot open: {e}"),
        }
        let wait = backoff.next_wait();
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// The label of the board at `address`: a serial the settings name whose low 14 bits are
/// this address, else `board-<address as 5 digits>` (the serial, for serials below 16384).
pub fn label_for_address(
    address: u16,
    labels: &std::collections::BTreeMap<String, String>,
) -> String {
    labels
        .iter()
        .find(|(serial, _)| address_of_serial(serial) == Some(address))
        .map(|(_, label)| label.clone())
        .unwrap_or_else(|| label_for_serial(&format!("{address:05}"), labels))
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
#[derive(Debug)]
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

/// One open period of the port.
struct Session<'a> {
    port: &'a PortCandidate,
    context: &'a SerialContext,
    stream: SerialStream,
    frames: Frames,
    boards: &'a mut BTreeMap<u16, Board>,
    last_byte: Instant,
    /// Boards not (or no longer) polled that answered a ping.
    found: BTreeSet<u16>,
    /// Bytes that made no frame, or a bad checksum, since the last broadcast ping.
    noise: bool,
    /// Any frame at all in this session.
    heard_any: bool,
}

impl<'a> Session<'a> {
    fn new(
        port: &'a PortCandidate,
        context: &'a SerialContext,
        stream: SerialStream,
        boards: &'a mut BTreeMap<u16, Board>,
    ) -> Self {
        Session {
            port,
            context,
            stream,
            frames: Frames::new(),
            boards,
            last_byte: Instant::now(),
            found: BTreeSet::new(),
            noise: false,
            heard_any: false,
        }
    }

    /// Discovers, then polls for ever; returns why it stopped.
    async fn work(&mut self) -> String {
        match self.work_inner().await {
            Ok(never) => match never {},
            Err(reason) => reason,
        }
    }

    async fn work_inner(&mut self) -> Result<std::convert::Infallible, String> {
        // Boards the settings name, by address (§2.4: "discover boards with addressed
        // pings"), then broadcast rounds until one hears nothing.
        let named: BTreeSet<u16> = self
            .context
            .labels
            .keys()
            .filter_map(|s| address_of_serial(s))
            .filter(|&a| a != 0)
            .chain(self.boards.keys().copied())
            .collect();
        for address in named {
            if let Outcome::Got = self
                .ask(address, BusCommandKind::Ping, &[bus::BUS_PING])
                .await?
            {
                self.connect(address).await?;
            }
        }
        for round in 0..MAX_DISCOVERY_ROUNDS {
            let heard = self.discovery_round().await?;
            // The second round always runs: boards in single-board mode only switch back
            // on the first ping.
            if !heard && round > 0 {
                break;
            }
        }
        let mut next_discovery = Instant::now() + REDISCOVERY_INTERVAL;
        loop {
            let round_start = Instant::now();
            let polled: Vec<u16> = self.connected().collect();
            for address in polled {
                self.poll(address).await?;
            }
            let lost: Vec<u16> = self
                .boards
                .iter()
                .filter(|(_, b)| !b.connected)
                .map(|(&a, _)| a)
                .collect();
            for address in lost {
                if let Outcome::Got = self
                    .ask(address, BusCommandKind::Ping, &[bus::BUS_PING])
                    .await?
                {
                    self.connect(address).await?;
                }
            }
            if Instant::now() >= next_discovery {
                self.discovery_round().await?;
                next_discovery = Instant::now() + REDISCOVERY_INTERVAL;
            }
            // Between rounds the line is only listened to.
            self.listen(None, round_start + POLL_PERIOD).await?;
        }
    }

    fn connected(&self) -> impl Iterator<Item = u16> + '_ {
        self.boards
            .iter()
            .filter(|(_, b)| b.connected)
            .map(|(&a, _)| a)
    }

    /// One broadcast round: known boards are told to ignore it, then every other board
    /// answers within [`PING_WINDOW`]. Returns whether anything at all was heard.
    async fn discovery_round(&mut self) -> Result<bool, String> {
        let known: Vec<u16> = self.connected().collect();
        for address in known {
            self.ask(address, BusCommandKind::IgnoreNextPing, &[bus::BUS_PING])
                .await?;
        }
        self.found.clear();
        self.noise = false;
        self.write(BusCommand {
            kind: BusCommandKind::Ping,
            address: 0,
        })
        .await?;
        self.listen(None, Instant::now() + PING_WINDOW).await?;
        let found = std::mem::take(&mut self.found);
        let heard = !found.is_empty() || self.noise;
        if !found.is_empty() || self.noise {
            tracing::debug!(port = %self.port.path.display(), found = found.len(), collisions = self.noise, "bus ping round");
        }
        for address in found {
            self.connect(address).await?;
        }
        Ok(heard)
    }

    /// Starts reporting a board that answered: its link, version, changes and whole board.
    async fn connect(&mut self, address: u16) -> Result<(), String> {
        let label = label_for_address(address, &self.context.labels);
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
            return Ok(());
        }
        board.connected = true;
        board.silent_polls = 0;
        board.needs_board = true;
        tracing::info!(port = %self.port.path.display(), address, board = label, "bus board found");
        let port = self.port.path.to_string_lossy().into_owned();
        self.emit(
            address,
            InputKind::Link(Link::BusConnected {
                port: Some(port),
                address: Some(address),
            }),
        )
        .await;
        self.ask(address, BusCommandKind::SendVersion, &[bus::BUS_VERSION])
            .await?;
        // The changes since the last SEND_CHANGES: the moves made while nobody polled it
        // (the first time, its log since power-up), so later packets hold only new ones.
        self.fetch_changes(address).await?;
        self.ask(address, BusCommandKind::SendBoard, &[bus::BUS_BRD_DUMP])
            .await?;
        Ok(())
    }

    fn needs_board(&self, address: u16) -> bool {
        self.boards.get(&address).is_some_and(|b| b.needs_board)
    }

    /// One poll of one board: its changes, then its clock.
    async fn poll(&mut self, address: u16) -> Result<(), String> {
        if let Some(b) = self.boards.get_mut(&address) {
            b.heard = false;
        }
        let complete = self.fetch_changes(address).await?;
        if complete && self.needs_board(address) {
            // Its whole board did not come through when it was found.
            self.ask(address, BusCommandKind::SendBoard, &[bus::BUS_BRD_DUMP])
                .await?;
        } else if !complete && self.boards.get(&address).is_some_and(|b| b.heard) {
            // The board answers, but its packet never came through whole: its whole board
            // stands in for it (§2.4, "on a mismatch, ask for a full board").
            if let Outcome::Got = self
                .ask(address, BusCommandKind::SendBoard, &[bus::BUS_BRD_DUMP])
                .await?
                && let Some(b) = self.boards.get_mut(&address)
            {
                tracing::warn!(
                    board = b.label,
                    "changes lost; the whole board replaces them"
                );
                b.changes_pending = false;
            }
        }
        self.ask(address, BusCommandKind::SendClock, &[bus::BUS_BWTIME])
            .await?;
        let Some(b) = self.boards.get_mut(&address) else {
            return Ok(());
        };
        if b.heard {
            b.silent_polls = 0;
            return Ok(());
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
            )
            .await;
        }
        Ok(())
    }

    /// Gets the board's changes: `REPEAT_CHANGES` while a packet is owed (never
    /// `SEND_CHANGES`, which would discard it, §2.4), then `SEND_CHANGES`. Returns whether
    /// the packet came in whole within [`CHANGES_ATTEMPTS`] tries.
    async fn fetch_changes(&mut self, address: u16) -> Result<bool, String> {
        let mut failures = 0;
        loop {
            let Some(b) = self.boards.get_mut(&address) else {
                return Ok(false);
            };
            let repeat = b.changes_pending;
            b.changes_pending = true;
            let kind = if repeat {
                BusCommandKind::RepeatChanges
            } else {
                BusCommandKind::SendChanges
            };
            match self.ask(address, kind, &[bus::BUS_UPDATE]).await? {
                // The owed packet is in: now the changes since.
                Outcome::Got if repeat => {}
                Outcome::Got => return Ok(true),
                Outcome::Corrupt | Outcome::TimedOut => {
                    failures += 1;
                    if failures >= CHANGES_ATTEMPTS {
                        return Ok(false);
                    }
                }
            }
        }
    }

    /// Sends one command and waits for its answer. On a time-out a late answer still gets
    /// [`LATE_REPLY_GRACE`].
    async fn ask(
        &mut self,
        address: u16,
        kind: BusCommandKind,
        ids: &'static [u8],
    ) -> Result<Outcome, String> {
        self.write(BusCommand { kind, address }).await?;
        let want = Some(Want { address, ids });
        match self.listen(want, Instant::now() + REPLY_TIMEOUT).await? {
            Outcome::TimedOut => self.listen(want, Instant::now() + LATE_REPLY_GRACE).await,
            done => Ok(done),
        }
    }

    async fn write(&mut self, command: BusCommand) -> Result<(), String> {
        let bytes = command.encode();
        let t = self.context.clock.now_ms();
        let written = tokio::time::timeout(self.context.timing.write_timeout, async {
            self.stream.write_all(&bytes).await?;
            self.stream.flush().await
        })
        .await;
        match written {
            Ok(Ok(())) => {
                if self
                    .boards
                    .get(&command.address)
                    .is_some_and(|b| b.connected)
                {
                    self.emit_at(t, command.address, InputKind::Tx(bytes.to_vec()))
                        .await;
                }
                Ok(())
            }
            Ok(Err(e)) => Err(format!("write error: {e}")),
            Err(_) => Err("write stalled".into()),
        }
    }

    /// Reads the line until `deadline` (longer while a frame is coming in), handling every
    /// frame; returns as soon as the wanted answer is in.
    async fn listen(&mut self, want: Option<Want>, deadline: Instant) -> Result<Outcome, String> {
        let mut buf = [0u8; 1024];
        loop {
            let wake = if self.frames.in_progress() {
                deadline.max(self.last_byte + REPLY_TIMEOUT)
            } else {
                deadline
            };
            let read = tokio::select! {
                read = self.stream.read(&mut buf) => read,
                _ = tokio::time::sleep_until(wake) => return Ok(Outcome::TimedOut),
            };
            let n = match read {
                // A pty master dropped, or a USB unplug, reads as end of file.
                Ok(0) => return Err("end of file".into()),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("read error: {e}")),
            };
            self.last_byte = Instant::now();
            let t = self.context.clock.now_ms();
            let (frames, noise) = self.frames.push(&buf[..n]);
            self.noise |= noise;
            let mut outcome = None;
            for heard in frames {
                let o = self.on_frame(t, heard, want).await;
                outcome = outcome.or(o);
            }
            if let Some(o) = outcome {
                return Ok(o);
            }
        }
    }

    /// Hands a frame to its board (or notes a board found) and says whether it is the
    /// wanted answer.
    async fn on_frame(&mut self, t: u64, heard: Heard, want: Option<Want>) -> Option<Outcome> {
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
                            self.emit_at(t, address, InputKind::Rx(heard.raw)).await;
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
                    self.emit_at(t, address, InputKind::Rx(heard.raw)).await;
                }
                is_wanted(address, id).then_some(Outcome::Corrupt)
            }
            Decoded::Message(_) | Decoded::Garbage(_) => None,
        }
    }

    async fn emit(&self, address: u16, kind: InputKind) {
        self.emit_at(self.context.clock.now_ms(), address, kind)
            .await;
    }

    async fn emit_at(&self, t_ms: u64, address: u16, kind: InputKind) {
        let Some(b) = self.boards.get(&address) else {
            return;
        };
        let input = Input {
            t_ms,
            board: b.label.clone(),
            kind,
        };
        // A closed channel means the core is gone (shutdown); nothing left to tell.
        let _ = self.context.inputs.send(input).await;
    }

    /// Ends every board's link; returns whether anything was heard in this session.
    async fn finish(&mut self, reason: &str, stopping: bool) -> bool {
        let connected: Vec<u16> = self.connected().collect();
        for address in connected {
            self.emit(
                address,
                InputKind::Link(Link::Disconnected {
                    reason: Some(reason.to_string()),
                    stopping,
                }),
            )
            .await;
            if let Some(b) = self.boards.get_mut(&address) {
                b.connected = false;
            }
        }
        self.heard_any
    }
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
}
