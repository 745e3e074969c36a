//! `/metrics` in the Prometheus text format: boards connected, events by type, alerts by kind
//! and severity, WebSocket clients and the clients that fell behind.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::access::Principal;
use crate::feed::Desk;

/// Client counts the connection tasks keep.
#[derive(Debug, Default)]
pub struct Gauges {
    pub ws_clients: AtomicU64,
    pub public_clients: AtomicU64,
    pub livechess_clients: AtomicU64,
    /// Clients that fell behind and were resynced.
    pub lagging_clients: AtomicU64,
    /// Clients disconnected because they stopped reading.
    pub stalled_disconnects: AtomicU64,
    /// What the listeners turned away (both ports): connections beyond a cap, requests
    /// too slow or too large.
    pub listen: crate::listen::Refusals,
    /// Requests refused for a `Host` that is not this server's (DNS rebinding).
    pub foreign_hosts: AtomicU64,
    /// Public feed clients refused because `max_public_clients` were connected.
    pub refused_public_clients: AtomicU64,
    /// LiveChess `subscribe` calls refused for the per-client cap.
    pub refused_subscriptions: AtomicU64,
}

/// Counts one connected client while alive.
pub struct ClientGuard<'a>(&'a AtomicU64);

impl<'a> ClientGuard<'a> {
    pub fn new(gauge: &'a AtomicU64) -> Self {
        gauge.fetch_add(1, Ordering::Relaxed);
        ClientGuard(gauge)
    }
}

impl Drop for ClientGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Renders every metric `who` may see: the hall's for a principal of the whole hall; for
/// one of some sections (a floor arbiter) the boards and open alerts of those sections and
/// the server's own figures, none of the hall-wide counts.
pub fn render(
    desk: &Desk,
    gauges: &Gauges,
    throttle: &crate::throttle::Throttle,
    who: &Principal,
) -> String {
    let mut out = String::new();
    let hall = &desk.hall;
    let covered = |board: &str| hall.covers(who, board);
    let connected = hall
        .boards()
        .filter(|b| covered(&b.board) && b.is_connected())
        .count();
    metric(
        &mut out,
        "dgt_boards_connected",
        "gauge",
        "Boards whose link is up.",
    );
    let _ = writeln!(out, "dgt_boards_connected {connected}");
    metric(
        &mut out,
        "dgt_boards_known",
        "gauge",
        "Boards seen since the server started.",
    );
    let known = hall.boards().filter(|b| covered(&b.board)).count();
    let _ = writeln!(out, "dgt_boards_known {known}");
    metric(
        &mut out,
        "dgt_alerts_open",
        "gauge",
        "Alerts not yet acknowledged.",
    );
    let open = hall
        .open_alerts()
        .into_iter()
        .filter(|a| covered(&a.board))
        .count();
    let _ = writeln!(out, "dgt_alerts_open {open}");
    if who.whole_hall() {
        hall_counts(&mut out, desk);
    }
    server_counts(&mut out, gauges, throttle);
    out
}

/// What only a principal of the whole hall sees: events, alerts and acks counted over it.
fn hall_counts(out: &mut String, desk: &Desk) {
    let hall = &desk.hall;
    metric(
        out,
        "dgt_events_total",
        "counter",
        "Events received, by type.",
    );
    for (kind, n) in &desk.counts.events_by_type {
        let _ = writeln!(out, "dgt_events_total{{type=\"{kind}\"}} {n}");
    }
    metric(
        out,
        "dgt_alerts_total",
        "counter",
        "Alerts raised, by kind and severity.",
    );
    for ((kind, severity), n) in &desk.counts.alerts {
        let _ = writeln!(
            out,
            "dgt_alerts_total{{kind=\"{kind}\",severity=\"{severity}\"}} {n}"
        );
    }
    metric(
        out,
        "dgt_alert_acks_total",
        "counter",
        "Alerts acknowledged.",
    );
    let _ = writeln!(out, "dgt_alert_acks_total {}", desk.counts.acks);
    metric(
        out,
        "dgt_events_lost_total",
        "counter",
        "Events missed by the server.",
    );
    let _ = writeln!(out, "dgt_events_lost_total {}", desk.counts.events_lost);
    metric(
        out,
        "dgt_last_seq",
        "gauge",
        "Seq of the last event applied.",
    );
    let _ = writeln!(out, "dgt_last_seq {}", hall.last_seq());
}

/// The server's own figures: clients, refusals.
fn server_counts(out: &mut String, gauges: &Gauges, throttle: &crate::throttle::Throttle) {
    let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        metric(
            out,
            "dgt_runtime_workers",
            "gauge",
            "Threads that run the ports, the core and the clients (setting runtime_workers).",
        );
        let _ = writeln!(
            out,
            "dgt_runtime_workers {}",
            runtime.metrics().num_workers()
        );
    }
    metric(
        out,
        "dgt_ws_clients",
        "gauge",
        "Connected WebSocket clients, by feed.",
    );
    let _ = writeln!(
        out,
        "dgt_ws_clients{{feed=\"arbiter\"}} {}",
        g(&gauges.ws_clients)
    );
    let _ = writeln!(
        out,
        "dgt_ws_clients{{feed=\"public\"}} {}",
        g(&gauges.public_clients)
    );
    let _ = writeln!(
        out,
        "dgt_ws_clients{{feed=\"livechess\"}} {}",
        g(&gauges.livechess_clients)
    );
    metric(
        out,
        "dgt_ws_lagging_clients_total",
        "counter",
        "Clients resynced after falling behind.",
    );
    let _ = writeln!(
        out,
        "dgt_ws_lagging_clients_total {}",
        g(&gauges.lagging_clients)
    );
    metric(
        out,
        "dgt_ws_stalled_disconnects_total",
        "counter",
        "Clients dropped for not reading.",
    );
    let _ = writeln!(
        out,
        "dgt_ws_stalled_disconnects_total {}",
        g(&gauges.stalled_disconnects)
    );
    metric(
        out,
        "dgt_refused_total",
        "counter",
        "Connections and requests refused by a limit, by reason.",
    );
    for (reason, n) in [
        ("connection_cap", g(&gauges.listen.connection_cap)),
        ("address_cap", g(&gauges.listen.address_cap)),
        ("request_timeout", g(&gauges.listen.request_timeout)),
        ("body_too_large", g(&gauges.listen.body_too_large)),
        ("foreign_host", g(&gauges.foreign_hosts)),
        ("public_client_cap", g(&gauges.refused_public_clients)),
        (
            "livechess_subscription_cap",
            g(&gauges.refused_subscriptions),
        ),
        ("auth_throttled", g(&throttle.throttled)),
    ] {
        let _ = writeln!(out, "dgt_refused_total{{reason=\"{reason}\"}} {n}");
    }
    metric(
        out,
        "dgt_auth_failures_total",
        "counter",
        "Wrong tokens (bearer, WebSocket, sign-in).",
    );
    let _ = writeln!(out, "dgt_auth_failures_total {}", g(&throttle.failures));
}

fn metric(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}
