//! The daemon's clock, a leaf shared by the daemon and the serial edge (which stamps what
//! it reads with it).

use tokio::time::Instant;

/// The daemon's clock: milliseconds since it started (monotonic), plus the time a journal
/// had reached when the daemon was restarted from it.
#[derive(Debug, Clone, Copy)]
pub struct DaemonClock {
    epoch: Instant,
    offset_ms: u64,
}

impl DaemonClock {
    pub fn start() -> Self {
        Self::start_at(0)
    }

    /// A clock that reads `offset_ms` now.
    pub fn start_at(offset_ms: u64) -> Self {
        DaemonClock {
            epoch: Instant::now(),
            offset_ms,
        }
    }

    /// The time it read when it started (the first time this daemon's session can stamp).
    pub fn start_ms(&self) -> u64 {
        self.offset_ms
    }

    pub fn now_ms(&self) -> u64 {
        self.offset_ms + self.epoch.elapsed().as_millis() as u64
    }

    /// The daemon time of an instant (one before the epoch reads as the epoch).
    pub fn ms_at(&self, at: std::time::Instant) -> u64 {
        self.offset_ms
            + at.saturating_duration_since(self.epoch.into_std())
                .as_millis() as u64
    }

    /// The instant a core time falls on.
    pub fn instant_at(&self, t_ms: u64) -> Instant {
        self.epoch + std::time::Duration::from_millis(t_ms.saturating_sub(self.offset_ms))
    }
}
