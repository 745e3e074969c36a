//! A board model behind a pseudo-terminal, in real time: the daemon opens the slave path
//! exactly as it opens `/dev/ttyACM0`, so `demo`, `emulate` and the tests exercise the
//! production serial code. Closing the master is unplugging the cable: the daemon reads
//! end of file (rust-dependencies §7).
//!
//! The model is sans-IO ([`BoardModel`]): it gets host bytes and the time, and is polled for
//! output and its next deadline. `dgt_emulator::EmulatedBoard` has this shape; so does the
//! small [`crate::simulated::scripted_board::ScriptedBoard`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::io::AsyncReadExt;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_serial::{SerialPort, SerialStream};
use tokio_util::sync::CancellationToken;

/// A board as a state machine on its own time (ms since the board was switched on).
pub trait BoardModel: Send + 'static {
    /// Bytes the host wrote to the board.
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]);
    /// Bytes the board sends by `t_ms` (replies, field updates, clock messages).
    fn poll_output(&mut self, t_ms: u64) -> Vec<u8>;
    /// When the board next has something to do, if ever.
    fn next_deadline(&self) -> Option<u64>;
    /// The game is over and nothing more will happen.
    fn finished(&self) -> bool;
}

/// A board shared between its pty runner and whoever drives or inspects it (a test can keep
/// the board while it is "unplugged" and plug it in again on a new pty).
pub type SharedBoard<M> = Arc<Mutex<M>>;

pub fn share<M: BoardModel>(board: M) -> SharedBoard<M> {
    Arc::new(Mutex::new(board))
}

fn lock<M>(board: &SharedBoard<M>) -> MutexGuard<'_, M> {
    board.lock().unwrap_or_else(|e| e.into_inner())
}

/// Called when the model says its game is over; typically starts a new game (new seed).
pub type Restart<M> = Box<dyn FnMut(u64, &mut M) + Send>;

/// The board's own clock: one epoch for the whole life of a board, across re-plugs.
#[derive(Debug, Clone, Copy)]
pub struct BoardClock {
    epoch: Instant,
}

impl BoardClock {
    pub fn start() -> Self {
        BoardClock {
            epoch: Instant::now(),
        }
    }

    pub fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn instant_at(&self, t_ms: u64) -> Instant {
        self.epoch + std::time::Duration::from_millis(t_ms)
    }
}

/// A board plugged in on a pseudo-terminal.
pub struct PtyBoard {
    path: PathBuf,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl PtyBoard {
    /// Opens a pty pair and runs `board` on the master. Must be called inside a tokio
    /// runtime. What the board said while it was not plugged in is dropped, as a cable
    /// would: only its state (the pieces) carries over.
    pub fn plug_in<M: BoardModel>(
        board: SharedBoard<M>,
        clock: BoardClock,
        restart: Option<Restart<M>>,
    ) -> std::io::Result<PtyBoard> {
        let (master, slave) = SerialStream::pair().map_err(std::io::Error::from)?;
        let path = slave
            .name()
            .map(PathBuf::from)
            .ok_or_else(|| std::io::Error::other("pty without a slave name"))?;
        let stop = CancellationToken::new();
        let task = tokio::spawn(run(board, master, slave, clock, restart, stop.clone()));
        Ok(PtyBoard { path, stop, task })
    }

    /// The slave path the daemon opens (`/dev/pts/N`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Pulls the cable: closes the master (and this side's slave), so the daemon's next
    /// read returns end of file. The board itself lives on in its [`SharedBoard`].
    pub async fn unplug(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }

    /// Whether the runner has stopped by itself (the master failed).
    pub fn is_unplugged(&self) -> bool {
        self.task.is_finished()
    }
}

async fn run<M: BoardModel>(
    board: SharedBoard<M>,
    mut master: SerialStream,
    // Held open so the master does not read EIO while the daemon has the slave closed
    // (between its reconnect attempts); dropped together with the master on unplug.
    _slave: SerialStream,
    clock: BoardClock,
    mut restart: Option<Restart<M>>,
    stop: CancellationToken,
) {
    let _ = lock(&board).poll_output(clock.now_ms());
    let mut buf = [0u8; 256];
    loop {
        let deadline = lock(&board).next_deadline().map(|t| clock.instant_at(t));
        tokio::select! {
            biased;
            _ = stop.cancelled() => break,
            read = master.read(&mut buf) => match read {
                Ok(n) if n > 0 => lock(&board).on_host_bytes(clock.now_ms(), &buf[..n]),
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!("pty master: {e}");
                    break;
                }
            },
            _ = sleep_until(deadline) => {}
        }
        let output = {
            let mut b = lock(&board);
            let now = clock.now_ms();
            let mut out = b.poll_output(now);
            if b.finished()
                && let Some(restart) = restart.as_mut()
            {
                restart(now, &mut b);
                out.extend(b.poll_output(now));
            }
            out
        };
        send_or_drop(&mut master, &output);
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Writes what the line takes now and drops the rest: a board's UART does not wait for a
/// listener, so bytes sent while nobody reads are lost, as on a real cable.
fn send_or_drop(master: &mut SerialStream, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        match master.try_write(bytes) {
            Ok(0) => break,
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}
