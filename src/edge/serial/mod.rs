//! The serial edge: finds ports, keeps one task per port, and turns each board's line into
//! core inputs (`Rx`, `Tx`, `Link`) under a label that follows the board, not the port.
//!
//! Data flow, one file per step:
//! * [`ports`] says what a port is (a candidate found or configured, its USB ids);
//! * [`discovery`] lists candidate ports every ~2 s (sysfs scan and configured paths) and
//!   starts a port task for each new one;
//! * [`line`] opens a port the way every DGT implementation does (9600 8N1, DTR/RTS up);
//! * [`startup`] is the command sequence sent after opening, and the heartbeat probe;
//! * [`identity`] learns the board's serial number from its first replies and names it;
//! * [`board_link`] is one single-board port's logic without I/O (start-up, naming the
//!   board, heartbeat), a state machine fed bytes and time;
//! * [`port_task`] runs one port: open, drive a [`board_link::BoardLink`], back off,
//!   reopen;
//! * [`bus_poller`] is the logic of a port declared a bus line (`bus = true`) without I/O:
//!   several boards on one RS-232 line, found by ping and polled by address (protocol
//!   §2.4), each reported under its own label;
//! * [`bus_line`] runs such a port: open, drive a [`bus_poller::BusPoller`], back off,
//!   reopen;
//! * [`probe`] asks a port once whether a DGT board answers (for `dgt-arbiter ports`).
//!
//! The state machines follow one shape (quinn-proto's): `handle_bytes(now, bytes)`,
//! `handle_timeout(now)`, `poll_transmit()`, `poll_timeout()`, `poll_event()`. Tests drive
//! them on virtual time against the emulated boards (`tests/bus_poller.rs`,
//! `tests/board_link.rs`); a few pty tests keep the I/O honest.

pub mod backoff;
pub mod board_link;
pub mod bus_line;
pub mod bus_poller;
pub mod discovery;
pub mod identity;
pub mod line;
pub mod port_task;
pub mod ports;
pub mod probe;
pub mod startup;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use dgt_core::Input;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use discovery::{ExplicitPort, PortCandidate, PortList, PortScan, ScanMode, SystemPorts};
pub use identity::{label_for_port, label_for_serial};

use crate::edge::clock::DaemonClock;

/// Every timing of the serial edge. The defaults follow protocol §4.4; tests shorten them.
#[derive(Debug, Clone)]
pub struct SerialTiming {
    /// How often the port list is scanned.
    pub scan_interval: Duration,
    /// Send `0x45` after this long without a byte: a board in UPDATE_NICE mode with no
    /// movement and no clock sends nothing, so silence alone means nothing (§4.4).
    pub heartbeat: Duration,
    /// The link is dead when nothing arrived this long after the first unanswered probe.
    pub dead_after: Duration,
    /// Without a serial number this long after opening, the port name labels the board.
    pub identify_timeout: Duration,
    /// Pause between start-up commands: the board buffers only 10 command bytes, and
    /// picochess waits 100 ms after each (§1.1).
    pub command_gap: Duration,
    /// A write that has not completed after this long means the line is stuck.
    pub write_timeout: Duration,
    /// Reconnect back-off, doubling from `backoff_min` to `backoff_max` (python-asyncdgt
    /// uses 0.5 s → 10 s, §4.4).
    pub backoff_min: Duration,
    pub backoff_max: Duration,
    /// Ask every board for its EEPROM log at each connection, so moves made during an outage
    /// are recovered from it (protocol §3.6; see `startup::startup_sequence`).
    pub read_board_log: bool,
}

impl Default for SerialTiming {
    fn default() -> Self {
        SerialTiming {
            scan_interval: Duration::from_secs(2),
            heartbeat: Duration::from_millis(1500),
            dead_after: Duration::from_secs(5),
            identify_timeout: Duration::from_secs(3),
            command_gap: Duration::from_millis(100),
            write_timeout: Duration::from_secs(2),
            backoff_min: Duration::from_millis(500),
            backoff_max: Duration::from_secs(10),
            read_board_log: false,
        }
    }
}

/// What every port task shares: where inputs go, the daemon's clock, how boards are named.
#[derive(Clone)]
pub struct SerialContext {
    pub inputs: mpsc::Sender<Input>,
    pub clock: DaemonClock,
    /// Board serial number → label (settings `[serial.labels]`).
    pub labels: Arc<BTreeMap<String, String>>,
    pub timing: SerialTiming,
    /// Board label → the port whose open session reports under it. Two ports claiming one
    /// serial number (or two serials of one table) would mix two boards' bytes in one game:
    /// the second is refused its label and kept apart under its port's name.
    pub claims: Arc<std::sync::Mutex<BTreeMap<String, std::path::PathBuf>>>,
    /// The boards whose log the core asks for: a port reads its board's log when the core
    /// finds a game under way on it (`board_link::asks_for_log`; [`route_log_requests`]).
    pub log_requests: tokio::sync::broadcast::Sender<String>,
}

/// Tells the ports which boards' logs the core asks for, read from its released events.
/// One task reads every event, so that a thousand ports are woken only by the rare event
/// meant for one of them, not each by every event (a thousand clones of each).
pub async fn route_log_requests(
    mut released: tokio::sync::broadcast::Receiver<dgt_core::Event>,
    log_requests: tokio::sync::broadcast::Sender<String>,
    stop: CancellationToken,
) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        let event = tokio::select! {
            _ = stop.cancelled() => return,
            event = released.recv() => event,
        };
        match event {
            Ok(e) if board_link::asks_for_log(&e) => {
                // No port listening (the board is gone): nothing to ask.
                let _ = log_requests.send(e.board.clone());
            }
            Err(RecvError::Closed) => return,
            _ => {}
        }
    }
}

/// Starts the serial edge: a discovery loop that spawns one task per port found by `scan`.
/// Cancelling `cancel` stops every port task (each reports its link as disconnected) and
/// then the loop; the returned handle completes when all of them have.
pub fn spawn(
    scan: Box<dyn PortScan>,
    context: SerialContext,
    cancel: CancellationToken,
) -> JoinHandle<()> {
    tokio::spawn(discovery::supervise(scan, context, cancel))
}
