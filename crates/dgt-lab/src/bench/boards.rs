//! The emulated boards of a bench, hosted in the bench process itself: the daemons under
//! test are other processes and read them through real pseudo-terminals. Each board notes
//! the wall-clock time of every write to its pty, the start of each event's latency.

use dgt_emulator::{BoardSpec, TimeControl};

use super::BenchError;
use crate::simulated::emulated::{GameSeries, SeriesBoard};
use crate::simulated::pty_board::{self, BoardClock, BoardModel, PtyBoard, SharedBoard};

/// The first board's serial number; board `i` reports `FIRST_SERIAL + i` (5 digits, at most
/// 16383: the bus address holds 14 bits).
pub const FIRST_SERIAL: u32 = 10001;
/// The most boards one bench can emulate with distinct 5-digit serial numbers.
pub const MAX_BOARDS: usize = (16383 - FIRST_SERIAL + 1) as usize;

/// Microseconds since the Unix epoch: the one clock the bench and the daemons share.
pub fn unix_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// A series board that notes when it wrote: the pty runner writes what `poll_output`
/// returns right after it returns, so the time taken here is the write's, within
/// microseconds.
pub struct TimedBoard {
    series: SeriesBoard,
    /// Unix µs of every non-empty output, in order.
    writes: Vec<u64>,
}

impl BoardModel for TimedBoard {
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        self.series.on_host_bytes(t_ms, bytes);
    }

    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        let out = self.series.poll_output(t_ms);
        if !out.is_empty() {
            self.writes.push(unix_us());
        }
        out
    }

    fn next_deadline(&self) -> Option<u64> {
        self.series.next_deadline()
    }

    fn finished(&self) -> bool {
        self.series.finished()
    }
}

/// The boards on their ptys.
pub struct Boards {
    boards: Vec<SharedBoard<TimedBoard>>,
    ptys: Vec<PtyBoard>,
}

/// One board's games: blitz (3 minutes + 2 seconds) with the human model's handling, so
/// the daemon sees the irregularities of real play too.
fn series(index: usize, seed: u64) -> GameSeries {
    let first_seed = seed.wrapping_add(index as u64);
    let mut template = BoardSpec::random(first_seed, 80);
    template.time_control = TimeControl::parse("180+2").expect("a valid time control");
    GameSeries {
        serial: FIRST_SERIAL + index as u32,
        first_seed,
        seed_step: 7919,
        template: Some(template),
    }
}

impl Boards {
    /// Plugs in `n` boards, each on its own pty. Must run inside a tokio runtime.
    pub fn plug_in(n: usize, seed: u64) -> Result<Boards, BenchError> {
        let mut boards = Vec::with_capacity(n);
        let mut ptys = Vec::with_capacity(n);
        for i in 0..n {
            let board = pty_board::share(TimedBoard {
                series: SeriesBoard::new(series(i, seed)),
                writes: Vec::new(),
            });
            let pty = PtyBoard::plug_in(board.clone(), BoardClock::start(), None)
                .map_err(|source| BenchError::Pty { board: i, source })?;
            boards.push(board);
            ptys.push(pty);
        }
        Ok(Boards { boards, ptys })
    }

    /// The pty path of board `i`, which the daemon opens.
    pub fn paths(&self) -> Vec<String> {
        self.ptys
            .iter()
            .map(|p| p.path().display().to_string())
            .collect()
    }

    /// Pulls every cable (the daemon reads end of file) and hands back the write times.
    pub async fn unplug(self) -> WriteLog {
        for pty in self.ptys {
            pty.unplug().await;
        }
        WriteLog {
            writes: self
                .boards
                .iter()
                .map(|b| {
                    let mut b = b.lock().unwrap_or_else(|e| e.into_inner());
                    std::mem::take(&mut b.writes)
                })
                .collect(),
        }
    }
}

/// When each board wrote to its pty.
#[derive(Debug, Default, Clone)]
pub struct WriteLog {
    writes: Vec<Vec<u64>>,
}

impl WriteLog {
    #[cfg(test)]
    pub fn from_writes(writes: Vec<Vec<u64>>) -> Self {
        WriteLog { writes }
    }

    /// The last write of the board labelled `board` (`board-<serial>`, on a hub prefixed
    /// with `<node>/`) at or before `at_us`.
    pub fn last_write(&self, board: &str, at_us: u64) -> Option<u64> {
        let label = board.rsplit('/').next()?;
        let serial: u32 = label.strip_prefix("board-")?.parse().ok()?;
        let index = serial.checked_sub(FIRST_SERIAL)? as usize;
        let writes = self.writes.get(index)?;
        let after = writes.partition_point(|&t| t <= at_us);
        after.checked_sub(1).map(|i| writes[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_is_the_boards_last_write_not_after_the_event() {
        let log = WriteLog::from_writes(vec![vec![100, 200, 300], vec![150]]);
        assert_eq!(log.last_write("board-10001", 250), Some(200));
        assert_eq!(log.last_write("board-10001", 200), Some(200));
        assert_eq!(log.last_write("node-1/board-10002", 1000), Some(150));
        assert_eq!(log.last_write("board-10001", 99), None);
        assert_eq!(log.last_write("board-10003", 1000), None);
        assert_eq!(log.last_write("table-1", 1000), None);
    }
}
