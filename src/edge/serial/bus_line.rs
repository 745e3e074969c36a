//! One DGT bus line: several serial boards on one RS-232 port, each answering only the
//! commands sent to its address (protocol §2.4, §3.7). The host speaks, one board answers;
//! this task finds the boards, polls them in turn and hands each board's frames to the core
//! under that board's own label, as if it had a port of its own.
//!
//! The logic is [`BusPoller`], a state machine without I/O; this file only opens the port,
//! moves bytes between it and the machine, sleeps until the machine's next time-out and
//! stamps what the machine reports with the daemon's time.
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

use tokio::time::Instant;
use tokio_serial::SerialStream;

use super::line::{LineIoError, read_some, sleep_until, write_within};
use tokio_util::sync::CancellationToken;

use super::backoff::Backoff;
pub use super::bus_poller::{
    BusPoller, CHANGES_ATTEMPTS, LATE_REPLY_GRACE, PING_WINDOW, POLL_PERIOD, REDISCOVERY_INTERVAL,
    REPLY_TIMEOUT, SILENT_POLLS_LOST, label_for_address,
};
use super::ports::PortCandidate;
use super::{SerialContext, line};
use dgt_core::Input;

/// Runs the bus line until the port disappears or `cancel` fires.
pub async fn run(port: PortCandidate, context: SerialContext, cancel: CancellationToken) {
    let mut backoff = Backoff::new(context.timing.backoff_min, context.timing.backoff_max);
    // What is known of each board outlives one opening of the port (an owed changes packet).
    let mut poller = BusPoller::new(
        port.path.to_string_lossy().into_owned(),
        (*context.labels).clone(),
        Instant::now().into_std(),
    );
    loop {
        if cancel.is_cancelled() {
            return;
        }
        match line::open_port(&port.path) {
            Ok(mut stream) => {
                tracing::info!(port = %port.path.display(), "bus line opened");
                let reason = tokio::select! {
                    _ = cancel.cancelled() => "daemon stopped".to_string(),
                    end = drive(&mut poller, &mut stream, &context) => end,
                };
                let heard = poller.line_closed(&reason, cancel.is_cancelled());
                forward_events(&mut poller, &context).await;
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

/// Moves bytes between the open port and the machine until the port fails; returns why.
async fn drive(
    poller: &mut BusPoller,
    stream: &mut SerialStream,
    context: &SerialContext,
) -> String {
    poller.line_opened(Instant::now().into_std());
    match drive_inner(poller, stream, context).await {
        Ok(never) => match never {},
        Err(e) => e.to_string(),
    }
}

async fn drive_inner(
    poller: &mut BusPoller,
    stream: &mut SerialStream,
    context: &SerialContext,
) -> Result<std::convert::Infallible, LineIoError> {
    let mut buf = [0u8; 1024];
    loop {
        // What the machine decided before its next command is told first (protocol order).
        forward_events(poller, context).await;
        while let Some(transmit) = poller.poll_transmit() {
            let t = context.clock.now_ms();
            write_within(stream, &transmit.bytes, context.timing.write_timeout).await?;
            if let Some(board) = transmit.report_to {
                send(context, t, board, dgt_core::InputKind::Tx(transmit.bytes)).await;
            }
        }
        let wake = poller.poll_timeout().map(Instant::from_std);
        tokio::select! {
            read = read_some(stream, &mut buf) => {
                if let Some(n) = read? {
                    poller.handle_bytes(Instant::now().into_std(), &buf[..n]);
                }
            }
            _ = sleep_until(wake) => poller.handle_timeout(Instant::now().into_std()),
        }
    }
}

/// Hands everything the machine has for the core to it, stamped now.
async fn forward_events(poller: &mut BusPoller, context: &SerialContext) {
    while let Some(input) = poller.poll_event() {
        send(context, context.clock.now_ms(), input.board, input.kind).await;
    }
}

async fn send(context: &SerialContext, t_ms: u64, board: String, kind: dgt_core::InputKind) {
    // A closed channel means the core is gone (shutdown); nothing left to tell.
    let _ = context.inputs.send(Input { t_ms, board, kind }).await;
}
