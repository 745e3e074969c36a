//! One port, for as long as it exists: open it, run a link (start-up sequence, bytes to
//! the core, heartbeat), notice the disconnect, back off, open it again.
//!
//! The link's logic is [`BoardLink`], a state machine without I/O; this file opens the
//! port, moves bytes between it and the machine, sleeps until the machine's next time-out
//! and stamps what the machine reports with the daemon's time.

use dgt_core::Input;
use tokio::time::Instant;
use tokio_serial::SerialStream;

use super::line::{LineIoError, read_some, sleep_until, write_within};
use tokio_util::sync::CancellationToken;

use super::backoff::Backoff;
use super::board_link::{BoardLink, LinkPort};
use super::ports::PortCandidate;
use super::{SerialContext, line};

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
                let end = run_link(&port, &context, stream, &cancel).await;
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

/// How a link ended.
struct LinkEnd {
    /// The label it reported under, if it ever reported.
    label: Option<String>,
    reason: String,
}

/// Why a port stopped working.
#[derive(Debug, thiserror::Error)]
enum PortError {
    /// The line itself: end of file, a read or write error, a stalled write.
    #[error(transparent)]
    Line(#[from] LineIoError),
    #[error("daemon stopped")]
    Stopped,
    /// The link's own verdict (no answer to the heartbeat, no DGT board).
    #[error("{0}")]
    Dead(String),
}

/// One open period of a port.
async fn run_link(
    port: &PortCandidate,
    context: &SerialContext,
    mut stream: SerialStream,
    cancel: &CancellationToken,
) -> LinkEnd {
    let mut link = BoardLink::new(
        LinkPort {
            path: port.path.clone(),
            label: port.label.clone(),
        },
        context.labels.clone(),
        context.claims.clone(),
        context.timing.clone(),
        Instant::now().into_std(),
    );
    let reason = match drive(&mut link, &mut stream, context, cancel).await {
        Ok(never) => match never {},
        Err(e) => e.to_string(),
    };
    let label = link.finish(&reason, cancel.is_cancelled(), Instant::now().into_std());
    forward_events(&mut link, context).await;
    LinkEnd { label, reason }
}

async fn drive(
    link: &mut BoardLink,
    stream: &mut SerialStream,
    context: &SerialContext,
    cancel: &CancellationToken,
) -> Result<std::convert::Infallible, PortError> {
    let mut buf = [0u8; 1024];
    // The board's log is asked for once per link, when the core finds a game under way.
    let mut log_requests = context.log_requests.subscribe();
    let mut log_asked = false;
    loop {
        while let Some(command) = link.poll_transmit() {
            let bytes = command.encode();
            let began = Instant::now();
            write_within(stream, &bytes, context.timing.write_timeout).await?;
            link.handle_written(&command, began.into_std(), Instant::now().into_std());
        }
        forward_events(link, context).await;
        if let Some(reason) = link.ended() {
            return Err(PortError::Dead(reason.to_string()));
        }
        let wake = link.poll_timeout().map(Instant::from_std);
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(PortError::Stopped),
            read = read_some(stream, &mut buf) => {
                if let Some(n) = read? {
                    link.handle_bytes(Instant::now().into_std(), &buf[..n]);
                }
            }
            _ = sleep_until(wake) => link.handle_timeout(Instant::now().into_std()),
            board = log_requests.recv(), if !log_asked => match board {
                Ok(board) if link.label() == Some(board.as_str()) => {
                    log_asked = true;
                    link.request_board_log(Instant::now().into_std());
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => log_asked = true,
                _ => {}
            },
        }
    }
}

/// Hands everything the link has for the core to it, at the daemon time it happened.
async fn forward_events(link: &mut BoardLink, context: &SerialContext) {
    while let Some(input) = link.poll_event() {
        let input = Input {
            t_ms: context.clock.ms_at(input.at),
            board: input.board,
            kind: input.kind,
        };
        // A closed channel means the core is gone (shutdown); nothing left to tell.
        let _ = context.inputs.send(input).await;
    }
}
