//! The service manager: readiness, status, stopping and the watchdog (`sd_notify(3)`), for
//! the unit in `systemd/dgt-arbiter.service` (`Type=notify`, `WatchdogSec=`). Outside
//! systemd (`NOTIFY_SOCKET` unset) every call does nothing.
//!
//! The watchdog ping should prove the daemon works, not only that a timer fires
//! (rust-dependencies §6): [`spawn_watchdog_checked`] pings only while its check passes,
//! e.g. "the core loop answered within the last seconds"; systemd restarts a daemon whose
//! pings stop.

use std::time::Duration;

use sd_notify::NotifyState;
use tokio::task::JoinHandle;

/// Startup is finished: the settings are valid, the ports are being scanned, the HTTP
/// port is bound. systemd holds units ordered after ours until this.
pub fn notify_ready() {
    send(&[NotifyState::Ready]);
}

/// Shutdown has begun (SIGTERM): systemd shows "deactivating" and waits `TimeoutStopSec`.
pub fn notify_stopping() {
    send(&[NotifyState::Stopping]);
}

/// One line for `systemctl status`, e.g. "58 boards connected, 3 alerts open".
pub fn notify_status(status: &str) {
    // The protocol is newline-separated: a status is one line.
    let line = status.replace('\n', " ");
    send(&[NotifyState::Status(&line)]);
}

fn send(states: &[NotifyState<'_>]) {
    if let Err(e) = sd_notify::notify(states) {
        tracing::warn!(error = %e, "cannot notify the service manager");
    }
}

/// How often to ping for a watchdog interval: half of it, as `sd_watchdog_enabled(3)`
/// advises, so one late ping does not kill the daemon.
pub fn ping_period(watchdog: Duration) -> Duration {
    (watchdog / 2).max(Duration::from_millis(1))
}

/// Pings `WATCHDOG=1` at half of `WATCHDOG_USEC` until the task is aborted; None when the
/// service has no watchdog (or runs outside systemd). Needs a tokio runtime.
pub fn spawn_watchdog() -> Option<JoinHandle<()>> {
    spawn_watchdog_checked(|| true)
}

/// [`spawn_watchdog`], pinging only when `alive()` says the daemon is working: a stuck
/// daemon misses its pings and systemd restarts it (`Restart=` in the unit).
pub fn spawn_watchdog_checked(alive: impl Fn() -> bool + Send + 'static) -> Option<JoinHandle<()>> {
    let interval = sd_notify::watchdog_enabled()?;
    Some(spawn_pings(ping_period(interval), alive, || {
        send(&[NotifyState::Watchdog])
    }))
}

/// The ping loop, with the sender given (tests count the pings on paused time).
pub fn spawn_pings(
    period: Duration,
    alive: impl Fn() -> bool + Send + 'static,
    ping: impl Fn() + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(period);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            if alive() {
                ping();
            } else {
                tracing::warn!("watchdog: the daemon is not answering; ping withheld");
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    use super::*;

    #[test]
    fn pings_at_half_the_watchdog_interval() {
        assert_eq!(
            ping_period(Duration::from_secs(30)),
            Duration::from_secs(15)
        );
        assert_eq!(ping_period(Duration::ZERO), Duration::from_millis(1));
    }

    #[tokio::test]
    async fn pings_only_while_alive() {
        let pings = Arc::new(AtomicU32::new(0));
        let alive = Arc::new(AtomicBool::new(true));
        let (p, a) = (pings.clone(), alive.clone());
        let task = spawn_pings(
            Duration::from_millis(20),
            move || a.load(Ordering::SeqCst),
            move || {
                p.fetch_add(1, Ordering::SeqCst);
            },
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert!(pings.load(Ordering::SeqCst) >= 2);
        alive.store(false, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(40)).await;
        let stopped = pings.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(pings.load(Ordering::SeqCst), stopped);
        task.abort();
    }

    #[test]
    fn outside_systemd_nothing_happens() {
        // NOTIFY_SOCKET is not set under `cargo test`.
        if std::env::var_os("NOTIFY_SOCKET").is_none() {
            notify_ready();
            notify_status("2 boards");
            notify_stopping();
        }
    }
}
