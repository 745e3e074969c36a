//! The hub's probe: every second it asks the broker for the stream's state. The answer proves
//! the hub's link (a connection can look open while nothing crosses it: a hung switch), bounds
//! how far behind the view may be, and shows the stream's configuration as it is now — one
//! changed by an admin after the hub checked it (rollups allowed, say) is alarmed at once.

use std::time::{Duration, Instant};

use async_nats::jetstream;
use tokio_util::sync::CancellationToken;

use super::local::{Change, STREAM_CONFIG_CHANGED, VIEW_STALLED};
use super::{HubState, Shared, lock, reader};
use crate::cluster::Names;
use crate::cluster::wire::unix_ms;

/// How long a probe may take, and how often one is made.
const PROBE_FRESH: Duration = Duration::from_millis(2_500);
const PROBE_EVERY: Duration = Duration::from_millis(1_000);
/// The hub's view is stalled when the stream has more than it applied for this long, or the
/// broker has not answered a probe for this long.
const STALLED_AFTER: Duration = Duration::from_secs(5);

/// Asks the broker for the stream's state every second, and raises or clears the hub's own
/// alerts from the answer (or its absence).
pub(super) async fn probe(
    js: jetstream::Context,
    names: Names,
    replicas: usize,
    shared: Shared,
    stop: CancellationToken,
) {
    let mut tick = tokio::time::interval(PROBE_EVERY);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let answer = tokio::time::timeout(
            PROBE_FRESH,
            reader::stream_state(js.clone(), names.stream()),
        )
        .await;
        let mut state = lock(&shared);
        let now_unix = unix_ms();
        if let Ok(Ok(found)) = answer {
            let now = Instant::now();
            state.probe_ok_at = Some(now);
            state.stream_last = found.last;
            if state.stream_position >= found.last {
                state.view_moved_at = now;
            }
            let changed = config_changed(&found.config, &names, replicas);
            match state
                .local
                .set(STREAM_CONFIG_CHANGED, changed.clone(), now_unix)
            {
                Change::Raised => tracing::error!("hub: {}", changed.unwrap_or_default()),
                Change::Cleared => {
                    tracing::info!("hub: the event's stream is configured as its record again")
                }
                Change::None => {}
            }
        }
        let why = stall(&state);
        match state.local.set(VIEW_STALLED, why.clone(), now_unix) {
            Change::Raised => tracing::warn!("hub: {}", why.unwrap_or_default()),
            Change::Cleared => tracing::info!("hub: the view follows the stream again"),
            Change::None => {}
        }
    }
}

/// Why the stream, as the broker holds it now, is no longer the event's record.
fn config_changed(
    found: &jetstream::stream::Config,
    names: &Names,
    replicas: usize,
) -> Option<String> {
    let diff = crate::cluster::stream::differences(found, names, replicas);
    (!diff.is_empty()).then(|| {
        format!(
            "The event's stream {} was changed while the hub reads it: {}. Venue PCs publish \
             nothing to it until it is put back. Fix: with the broker's admin user, undo the \
             change (`nats stream edit {}`), or see docs/cluster.md for a stream made anew",
            names.stream(),
            diff.join("; "),
            names.stream()
        )
    })
}

/// Why the hub's view does not follow the stream now, if it does not.
pub(super) fn stall(state: &HubState) -> Option<String> {
    let unanswered = state.probe_ok_at.map_or(Duration::MAX, |t| t.elapsed());
    if unanswered >= STALLED_AFTER {
        return Some(format!(
            "The hub has had no answer from the broker for {} s: boards and node states are \
             as last heard; the venue PCs keep journaling and catch up when it is back. \
             Check the network between the hub and the broker.",
            unanswered.as_secs().min(86_400)
        ));
    }
    let behind = state.view_moved_at.elapsed();
    if state.stream_last > state.stream_position && behind >= STALLED_AFTER {
        return Some(format!(
            "The hub's view stopped following the event's stream {} s ago (it has read up to \
             {} of {}): boards on screen may be behind the hall.",
            behind.as_secs(),
            state.stream_position,
            state.stream_last
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_changed_to_allow_rollups_is_named_with_the_fix() {
        let names = Names::new("open-2026");
        let mut c = crate::cluster::stream::config(&names, 1);
        assert_eq!(config_changed(&c, &names, 1), None);
        c.allow_rollup = true;
        let why = config_changed(&c, &names, 1).unwrap();
        assert!(why.contains("allows rollups"), "{why}");
        assert!(why.contains("nats stream edit DGT_open-2026"), "{why}");
    }
}
