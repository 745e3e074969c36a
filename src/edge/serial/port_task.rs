//! One port, for as long as it exists: open it, run a session (start-up sequence, bytes to
//! the core, heartbeat), notice the disconnect, back off, open it again.
//!
//! A session reports to the core only under the board's label, which is known once the
//! board has told its serial number; everything before (the `Link::Connected`, the start-up
//! commands, the first replies) is held with its time and forwarded in order as soon as the
//! label is known. A port on which nothing ever decodes as a DGT message is not a board and
//! is never reported.

use std::collections::VecDeque;

use dgt_core::{Input, InputKind, Link};
use dgt_protocol::Command;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;

use super::backoff::Backoff;
use super::discovery::PortCandidate;
use super::identity::{Identifier, label_for_port, label_for_serial};
use super::{SerialContext, line, startup};

/// At most this many bytes are held for a board not yet named; a chattering non-DGT device
/// cannot grow the buffer without bound.
const MAX_HELD_BYTES: usize = 64 * 1024;

/// Runs the port until it disappears or `cancel` fires.
pub async fn run(port: PortCandidate, context: SerialContext, cancel: CancellationToken) {
    let mut backoff = Backoff::new(context.timing.backoff_min, context.timing.backoff_max);
    let mut open_failures = 0u32;
    loop {
        if cancel.is_cancelled() {
            return;
        }
        match line::open_port(&port.path) {
            Ok(stream) => {
                tracing::info!(port = %port.path.display(), "port opened");
                let end = Session::new(&port, &context).run(stream, &cancel).await;
                match &end.label {
                    Some(board) => {
                        tracing::info!(port = %port.path.display(), board, reason = %end.reason, "link ended");
                        backoff.reset();
                        open_failures = 0;
                    }
                    // Not (yet) a board: quiet, it may be any serial device.
                    None => {
                        tracing::debug!(port = %port.path.display(), reason = %end.reason, "no board")
                    }
                }
            }
            Err(e) if line::is_gone(&e) => {
                tracing::debug!(port = %port.path.display(), "port gone: {e}");
                return;
            }
            Err(e) => {
                // Say it once; the back-off retries quietly.
                if open_failures == 0 {
                    tracing::warn!(port = %port.path.display(), "cannot open: {e}");
                } else {
                    tracing::debug!(port = %port.path.display(), "cannot open: {e}");
                }
                open_failures += 1;
            }
        }
        let wait = backoff.next_wait();
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// How a session ended.
struct SessionEnd {
    /// The label it reported under, if it ever reported.
    label: Option<String>,
    reason: String,
}

/// One open period of a port.
struct Session<'a> {
    port: &'a PortCandidate,
    context: &'a SerialContext,
    identifier: Identifier,
    label: Option<String>,
    /// Inputs (time, kind) waiting for the label.
    held: Vec<(u64, InputKind)>,
    held_bytes: usize,
    opened_at: Instant,
    last_rx: Instant,
    last_probe: Option<Instant>,
    /// When the first probe that got no byte back was sent.
    unanswered_since: Option<Instant>,
    to_send: VecDeque<Command>,
    next_send: Instant,
}

impl<'a> Session<'a> {
    fn new(port: &'a PortCandidate, context: &'a SerialContext) -> Self {
        let now = Instant::now();
        Session {
            port,
            context,
            identifier: Identifier::new(),
            label: None,
            held: Vec::new(),
            held_bytes: 0,
            opened_at: now,
            last_rx: now,
            last_probe: None,
            unanswered_since: None,
            to_send: startup::startup_sequence(context.timing.read_board_log).into(),
            next_send: now,
        }
    }

    async fn run(mut self, mut stream: SerialStream, cancel: &CancellationToken) -> SessionEnd {
        let port_name = self.port.path.to_string_lossy().into_owned();
        self.emit(
            self.context.clock.now_ms(),
            InputKind::Link(Link::Connected {
                port: Some(port_name),
            }),
        )
        .await;
        let mut buf = [0u8; 1024];
        let reason = loop {
            let wake = self.next_wake();
            tokio::select! {
                biased;
                _ = cancel.cancelled() => break "daemon stopped".to_string(),
                read = stream.read(&mut buf) => match read {
                    // Dropping a pty master, or a USB unplug, reads as end of file
                    // (rust-dependencies §1); retrying would spin.
                    Ok(0) => break "end of file".to_string(),
                    Ok(n) => self.on_rx(&buf[..n]).await,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => break format!("read error: {e}"),
                },
                _ = tokio::time::sleep_until(wake) => {}
            }
            if let Err(reason) = self.on_timers(&mut stream).await {
                break reason;
            }
        };
        let stopping = cancel.is_cancelled();
        self.finish(reason, stopping).await
    }

    /// The next instant a timer of this session is due.
    fn next_wake(&self) -> Instant {
        let t = &self.context.timing;
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
        wake
    }

    async fn on_rx(&mut self, bytes: &[u8]) {
        let t = self.context.clock.now_ms();
        self.last_rx = Instant::now();
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
                    let label = self.claim(self.label_for(&serial), &serial);
                    tracing::info!(port = %self.port.path.display(), serial, board = label, "board identified");
                    self.label = Some(label);
                }
                Some(label) if label_for_serial(&serial, &self.context.labels) != *label => {
                    tracing::warn!(
                        board = label,
                        serial,
                        "a different serial number on an open link"
                    );
                }
                Some(_) => {}
            }
        }
        self.emit(t, InputKind::Rx(bytes.to_vec())).await;
    }

    /// Takes `label` for this port, unless another open port already reports under it (the
    /// same serial number on two ports): then this board is kept apart under its port's
    /// name, and the conflict is logged as an error for the arbiter to resolve.
    fn claim(&self, label: String, serial: &str) -> String {
        let mut claims = self
            .context
            .claims
            .lock()
            .unwrap_or_else(|p| p.into_inner());
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
                apart
            }
            _ => {
                claims.insert(label.clone(), self.port.path.clone());
                label
            }
        }
    }

    /// The serial table first, then the port's configured label, then `board-<serial>`.
    fn label_for(&self, serial: &str) -> String {
        if let Some(table) = self.context.labels.get(serial) {
            return table.clone();
        }
        self.port
            .label
            .clone()
            .unwrap_or_else(|| label_for_serial(serial, &self.context.labels))
    }

    /// Sends a due command or probe, and checks the heartbeat and identification clocks.
    async fn on_timers(&mut self, stream: &mut SerialStream) -> Result<(), String> {
        let now = Instant::now();
        let timing = self.context.timing.clone();
        if !self.to_send.is_empty() {
            if now >= self.next_send
                && let Some(command) = self.to_send.pop_front()
            {
                self.write(stream, &command).await?;
                self.next_send = Instant::now() + timing.command_gap;
            }
        } else {
            let quiet = now.duration_since(self.last_rx) >= timing.heartbeat;
            let probe_due = self
                .last_probe
                .is_none_or(|p| now.duration_since(p) >= timing.heartbeat);
            if quiet && probe_due {
                self.write(stream, &startup::heartbeat_probe()).await?;
                self.last_probe = Some(now);
                self.unanswered_since.get_or_insert(now);
            }
        }
        if let Some(since) = self.unanswered_since
            && now.duration_since(since) >= timing.dead_after
        {
            return Err(format!(
                "no answer to the heartbeat for {:.1} s",
                timing.dead_after.as_secs_f64()
            ));
        }
        if self.label.is_none() {
            let open_for = now.duration_since(self.opened_at);
            if self.identifier.heard_dgt() && open_for >= timing.identify_timeout {
                let label = self.fallback_label();
                tracing::warn!(port = %self.port.path.display(), board = label, "no serial number; labelled by port");
                self.label = Some(label);
                self.release_held().await;
            } else if open_for >= timing.identify_timeout + timing.dead_after {
                return Err("no DGT board answers".into());
            }
        }
        Ok(())
    }

    fn fallback_label(&self) -> String {
        self.port
            .label
            .clone()
            .unwrap_or_else(|| label_for_port(&self.port.path))
    }

    async fn write(&mut self, stream: &mut SerialStream, command: &Command) -> Result<(), String> {
        debug_assert!(command.is_safe_during_a_game());
        let bytes = command.encode();
        let t = self.context.clock.now_ms();
        let written = tokio::time::timeout(self.context.timing.write_timeout, async {
            stream.write_all(&bytes).await?;
            stream.flush().await
        })
        .await;
        match written {
            Ok(Ok(())) => {
                self.emit(t, InputKind::Tx(bytes)).await;
                Ok(())
            }
            Ok(Err(e)) => Err(format!("write error: {e}")),
            Err(_) => Err("write stalled".into()),
        }
    }

    /// Forwards an input under the label, or holds it until the label is known.
    async fn emit(&mut self, t_ms: u64, kind: InputKind) {
        if self.label.is_some() {
            self.release_held().await;
            self.send(t_ms, kind).await;
        } else {
            self.held_bytes += match &kind {
                InputKind::Rx(b) | InputKind::Tx(b) => b.len(),
                _ => 0,
            };
            self.held.push((t_ms, kind));
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

    async fn release_held(&mut self) {
        for (t, kind) in std::mem::take(&mut self.held) {
            self.send(t, kind).await;
        }
        self.held_bytes = 0;
    }

    async fn send(&self, t_ms: u64, kind: InputKind) {
        let Some(board) = self.label.clone() else {
            return;
        };
        // A closed channel means the core is gone (shutdown); nothing left to tell.
        let _ = self.context.inputs.send(Input { t_ms, board, kind }).await;
    }

    async fn finish(mut self, reason: String, stopping: bool) -> SessionEnd {
        if self.label.is_none() && self.identifier.heard_dgt() {
            self.label = Some(self.fallback_label());
        }
        if self.label.is_some() {
            self.release_held().await;
            let t = self.context.clock.now_ms();
            self.send(
                t,
                InputKind::Link(Link::Disconnected {
                    reason: Some(reason.clone()),
                    stopping,
                }),
            )
            .await;
        }
        if let Some(label) = &self.label {
            let mut claims = self
                .context
                .claims
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if claims.get(label) == Some(&self.port.path) {
                claims.remove(label);
            }
        }
        SessionEnd {
            label: self.label,
            reason,
        }
    }
}
