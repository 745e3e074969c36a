//! One single-board port's logic without its I/O: the start-up sequence, identification
//! (the board is named once it tells its serial number) and the heartbeat (protocol §4.4),
//! as a state machine. It is told what the line said ([`BoardLink::handle_bytes`]), what
//! time it is ([`BoardLink::handle_timeout`]) and what was written
//! ([`BoardLink::handle_written`]); it says what to write ([`BoardLink::poll_transmit`]),
//! when to wake it ([`BoardLink::poll_timeout`]), what to tell the core
//! ([`BoardLink::poll_event`]) and when the link is dead ([`BoardLink::ended`]).
//! [`super::port_task`] drives it over a real port; tests drive it on virtual time.
//!
//! The link reports to the core only under the board's label, which is known once the
//! board has told its serial number; everything before (the `Link::Connected`, the start-up
//! commands, the first replies) is held with its time and passed on in order as soon as the
//! label is known. A port on which nothing ever decodes as a DGT message is not a board and
//! is never reported.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use dgt_core::{InputKind, Link};
use dgt_protocol::Command;

use super::SerialTiming;
use super::identity::{Identifier, label_for_port, label_for_serial};
use super::startup;

/// At most this many bytes are held for a board not yet named; a chattering non-DGT device
/// cannot grow the buffer without bound.
const MAX_HELD_BYTES: usize = 64 * 1024;

/// Board label → the port whose open link reports under it, shared by every port.
pub type LabelClaims = Arc<Mutex<BTreeMap<String, PathBuf>>>;

/// Something for the core, with the instant it happened (the driver turns it into the
/// daemon's time), under the board's label.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkInput {
    pub at: Instant,
    pub board: String,
    pub kind: InputKind,
}

/// The port as the link knows it.
#[derive(Debug, Clone)]
pub struct LinkPort {
    pub path: PathBuf,
    /// A configured label for the board on this port.
    pub label: Option<String>,
}

/// One open period of a single-board port.
pub struct BoardLink {
    port: LinkPort,
    /// Board serial number → label (settings `[serial.labels]`).
    labels: Arc<BTreeMap<String, String>>,
    claims: LabelClaims,
    timing: SerialTiming,
    identifier: Identifier,
    label: Option<String>,
    /// Inputs waiting for the label.
    held: Vec<(Instant, InputKind)>,
    held_bytes: usize,
    opened_at: Instant,
    last_rx: Instant,
    last_probe: Option<Instant>,
    /// When the first probe that got no byte back was sent.
    unanswered_since: Option<Instant>,
    to_send: VecDeque<Command>,
    next_send: Instant,
    transmits: VecDeque<Command>,
    events: VecDeque<LinkInput>,
    /// Why the link is dead, once it is.
    ended: Option<String>,
}

/// Whether a released event asks the port of its board (`event.board`) for the board's log:
/// the core found a game under way there (`game_found_under_way`) and waits for the moves
/// before.
pub fn asks_for_log(event: &dgt_core::Event) -> bool {
    matches!(&event.body, dgt_core::EventBody::Alert(a) if a.kind == dgt_core::AlertKind::GameFoundUnderWay)
}

impl BoardLink {
    /// The port was opened at `now`: the link is reported connected (once the board is
    /// named) and the start-up sequence begins.
    pub fn new(
        port: LinkPort,
        labels: Arc<BTreeMap<String, String>>,
        claims: LabelClaims,
        timing: SerialTiming,
        now: Instant,
    ) -> Self {
        let to_send = startup::startup_sequence(timing.read_board_log).into();
        let mut link = BoardLink {
            port,
            labels,
            claims,
            timing,
            identifier: Identifier::new(),
            label: None,
            held: Vec::new(),
            held_bytes: 0,
            opened_at: now,
            last_rx: now,
            last_probe: None,
            unanswered_since: None,
            to_send,
            next_send: now,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            ended: None,
        };
        let port_name = link.port.path.to_string_lossy().into_owned();
        link.emit(
            now,
            InputKind::Link(Link::Connected {
                port: Some(port_name),
            }),
        );
        link.handle_timeout(now);
        link
    }

    /// The label the link reports under, once known.
    pub fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// Why the link is dead (no answer to the heartbeat, no DGT board), once it is.
    pub fn ended(&self) -> Option<&str> {
        self.ended.as_deref()
    }

    /// The next command to write. Once written, the driver calls
    /// [`Self::handle_written`].
    pub fn poll_transmit(&mut self) -> Option<Command> {
        self.transmits.pop_front()
    }

    /// The next input for the core.
    pub fn poll_event(&mut self) -> Option<LinkInput> {
        self.events.pop_front()
    }

    /// `command`, whose write began at `began`, is written at `now`: the core is told (`Tx`)
    /// and the next start-up command waits its gap.
    pub fn handle_written(&mut self, command: &Command, began: Instant, now: Instant) {
        self.emit(began, InputKind::Tx(command.encode()));
        self.next_send = now + self.timing.command_gap;
    }

    /// Bytes read from the line at `now`.
    pub fn handle_bytes(&mut self, now: Instant, bytes: &[u8]) {
        if self.ended.is_some() {
            return;
        }
        self.last_rx = now;
        self.unanswered_since = None;
        let noise_before = self.identifier.noise_pieces();
        let identified = self.identifier.feed(bytes);
        let noise = self.identifier.noise_pieces();
        if noise > noise_before && (noise_before == 0 || noise.is_power_of_two()) {
            tracing::warn!(
                port = %self.port.path.display(),
                board = self.label.as_deref().unwrap_or("?"),
                kib = noise * (dgt_protocol::frame::GARBAGE_MAX as u64) / 1024,
                "the line carries bytes that are no DGT message (another device, a failing \
                 board or cable): the decoder's garbage cap was reached"
            );
        }
        if let Some(serial) = identified {
            match &self.label {
                None => {
                    let wanted = self.label_for(&serial);
                    let (label, other_port) = self.claim(wanted.clone(), &serial);
                    tracing::info!(port = %self.port.path.display(), serial, board = label, "board identified");
                    self.label = Some(label);
                    if let Some(other_port) = other_port {
                        // The arbiter is told on the board kept apart, not only in the log.
                        self.emit(
                            now,
                            InputKind::Link(Link::Duplicate {
                                serial: serial.clone(),
                                claimed: wanted,
                                other_port: Some(other_port),
                            }),
                        );
                    }
                }
                Some(label) if label_for_serial(&serial, &self.labels) != *label => {
                    tracing::warn!(
                        board = label,
                        serial,
                        "a different serial number on an open link"
                    );
                }
                Some(_) => {}
            }
        }
        self.emit(now, InputKind::Rx(bytes.to_vec()));
        self.handle_timeout(now);
    }

    /// When [`Self::handle_timeout`] is next due; `None` once the link is dead.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.ended.is_some() {
            return None;
        }
        let t = &self.timing;
        let mut wake = if self.to_send.is_empty() {
            let after_rx = self.last_rx + t.heartbeat;
            let after_probe = self.last_probe.map_or(after_rx, |p| p + t.heartbeat);
            after_rx.max(after_probe)
        } else {
            self.next_send
        };
        if let Some(since) = self.unanswered_since {
            wake = wake.min(since + t.dead_after);
        }
        if self.label.is_none() {
            wake = wake.min(self.opened_at + t.identify_timeout);
            wake = wake.min(self.opened_at + t.identify_timeout + t.dead_after);
        }
        Some(wake)
    }

    /// The time is `now`: a due command or probe is queued, and the heartbeat and
    /// identification clocks are checked. Early calls change nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.ended.is_some() {
            return;
        }
        let timing = &self.timing;
        if !self.to_send.is_empty() {
            // One start-up command at a time: the next waits until this one is written.
            if now >= self.next_send
                && self.transmits.is_empty()
                && let Some(command) = self.to_send.pop_front()
            {
                self.queue(command);
            }
        } else {
            let quiet = now.duration_since(self.last_rx) >= timing.heartbeat;
            let probe_due = self
                .last_probe
                .is_none_or(|p| now.duration_since(p) >= timing.heartbeat);
            if quiet && probe_due {
                self.queue(startup::heartbeat_probe());
                self.last_probe = Some(now);
                self.unanswered_since.get_or_insert(now);
            }
        }
        let timing = &self.timing;
        if let Some(since) = self.unanswered_since
            && now.duration_since(since) >= timing.dead_after
        {
            self.ended = Some(format!(
                "no answer to the heartbeat for {:.1} s",
                timing.dead_after.as_secs_f64()
            ));
            return;
        }
        if self.label.is_none() {
            let open_for = now.duration_since(self.opened_at);
            if self.identifier.heard_dgt() && open_for >= timing.identify_timeout {
                let label = self.fallback_label();
                tracing::warn!(port = %self.port.path.display(), board = label, "no serial number; labelled by port");
                self.label = Some(label);
                self.release_held();
            } else if open_for >= timing.identify_timeout + timing.dead_after {
                self.ended = Some("no DGT board answers".into());
            }
        }
    }

    /// The link is over at `now` (`reason`; `stopping` when the daemon stops): a board that
    /// was heard is reported disconnected and its label freed. Returns the label it
    /// reported under, if it ever reported.
    pub fn finish(&mut self, reason: &str, stopping: bool, now: Instant) -> Option<String> {
        if self.label.is_none() && self.identifier.heard_dgt() {
            self.label = Some(self.fallback_label());
        }
        if self.label.is_some() {
            self.release_held();
            self.emit(
                now,
                InputKind::Link(Link::Disconnected {
                    reason: Some(reason.to_string()),
                    stopping,
                }),
            );
        }
        if let Some(label) = &self.label {
            let mut claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
            if claims.get(label) == Some(&self.port.path) {
                claims.remove(label);
            }
        }
        self.ended.get_or_insert_with(|| reason.to_string());
        self.label.clone()
    }

    /// The core found a game under way on this board: its log (protocol §3.6, a read-only
    /// command) is asked for after whatever start-up command is still waiting.
    pub fn request_board_log(&mut self, now: Instant) {
        if self.ended.is_none() {
            self.to_send.push_back(Command::SendEeMoves);
            self.handle_timeout(now);
        }
    }

    fn queue(&mut self, command: Command) {
        debug_assert!(command.is_safe_during_a_game());
        self.transmits.push_back(command);
    }

    /// Takes `label` for this port, unless another open port already reports under it (the
    /// same serial number on two ports): then this board is kept apart under its port's
    /// name, and the conflict is logged as an error for the arbiter to resolve.
    ///
    /// Returns the label taken and, when kept apart, the other port's name.
    fn claim(&self, label: String, serial: &str) -> (String, Option<String>) {
        let mut claims = self.claims.lock().unwrap_or_else(|p| p.into_inner());
        match claims.get(&label) {
            Some(other) if *other != self.port.path => {
                let apart = label_for_port(&self.port.path);
                tracing::error!(
                    serial,
                    board = label,
                    port = %self.port.path.display(),
                    other_port = %other.display(),
                    kept_apart_as = apart,
                    "duplicate board: this serial number (or this table's label) is already \
                     open on another port; this board is kept apart under its port's name"
                );
                (apart, Some(other.display().to_string()))
            }
            _ => {
                claims.insert(label.clone(), self.port.path.clone());
                (label, None)
            }
        }
    }

    /// The serial table first, then the port's configured label, then `board-<serial>`.
    fn label_for(&self, serial: &str) -> String {
        if let Some(table) = self.labels.get(serial) {
            return table.clone();
        }
        self.port
            .label
            .clone()
            .unwrap_or_else(|| label_for_serial(serial, &self.labels))
    }

    fn fallback_label(&self) -> String {
        self.port
            .label
            .clone()
            .unwrap_or_else(|| label_for_port(&self.port.path))
    }

    /// Passes an input on under the label, or holds it until the label is known.
    fn emit(&mut self, at: Instant, kind: InputKind) {
        if let Some(board) = self.label.clone() {
            self.release_held();
            self.events.push_back(LinkInput { at, board, kind });
        } else {
            self.held_bytes += match &kind {
                InputKind::Rx(b) | InputKind::Tx(b) => b.len(),
                _ => 0,
            };
            self.held.push((at, kind));
            if self.held_bytes > MAX_HELD_BYTES {
                // Keep the Link::Connected (first), drop the oldest traffic.
                let excess = self.held.len() / 2;
                self.held.drain(1..excess.max(2).min(self.held.len()));
                self.held_bytes = self
                    .held
                    .iter()
                    .map(|(_, k)| match k {
                        InputKind::Rx(b) | InputKind::Tx(b) => b.len(),
                        _ => 0,
                    })
                    .sum();
            }
        }
    }

    fn release_held(&mut self) {
        let Some(board) = self.label.clone() else {
            return;
        };
        for (at, kind) in std::mem::take(&mut self.held) {
            self.events.push_back(LinkInput {
                at,
                board: board.clone(),
                kind,
            });
        }
        self.held_bytes = 0;
    }
}
