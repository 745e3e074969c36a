//! The hub's alerts about itself: its view stopped following the stream, the stream's
//! configuration changed under it, its numbering is not that of the hubs that ran through a
//! broker's store loss.
//!
//! These are one hub's own condition, not the event's: two hubs reading the same stream must
//! number the event's events alike (contract §5), so an alert only this hub raises takes no
//! `seq` and is not sent on `/ws`. It lives on the hub's `/health` (`hub.alerts`, with when
//! it was raised and cleared), in the dashboard's banner (`notice`), in `/metrics` and in the
//! log (docs/decisions/hub-local-alerts.md).

use serde_json::{Value, json};

/// The kinds (contract §5, hub-local).
pub const VIEW_STALLED: &str = "hub_view_stalled";
pub const STREAM_CONFIG_CHANGED: &str = "stream_config_changed";
pub const NUMBERING_DIFFERS: &str = "hub_numbering_differs";

/// Every kind, for `/metrics` (each shows 0 until raised).
pub const KINDS: [&str; 3] = [VIEW_STALLED, STREAM_CONFIG_CHANGED, NUMBERING_DIFFERS];

/// Cleared alerts kept for `/health`, besides the open ones.
const KEPT_CLEARED: usize = 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalAlert {
    pub kind: &'static str,
    pub message: String,
    pub raised_unix_ms: u64,
    pub cleared_unix_ms: Option<u64>,
}

/// What a call to [`LocalAlerts::set`] changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Raised,
    Cleared,
    None,
}

#[derive(Debug, Default)]
pub struct LocalAlerts {
    list: Vec<LocalAlert>,
}

impl LocalAlerts {
    /// Raises `kind` with `why` (or clears it with `None`). An open alert keeps its first
    /// time; its message follows the condition (a stall's seconds grow).
    pub fn set(&mut self, kind: &'static str, why: Option<String>, now_unix_ms: u64) -> Change {
        let open = self
            .list
            .iter_mut()
            .find(|a| a.kind == kind && a.cleared_unix_ms.is_none());
        let change = match (open, why) {
            (Some(a), Some(why)) => {
                a.message = why;
                Change::None
            }
            (Some(a), None) => {
                a.cleared_unix_ms = Some(now_unix_ms);
                Change::Cleared
            }
            (None, Some(why)) => {
                self.list.push(LocalAlert {
                    kind,
                    message: why,
                    raised_unix_ms: now_unix_ms,
                    cleared_unix_ms: None,
                });
                Change::Raised
            }
            (None, None) => Change::None,
        };
        let cleared = self
            .list
            .iter()
            .filter(|a| a.cleared_unix_ms.is_some())
            .count();
        if cleared > KEPT_CLEARED {
            let mut drop = cleared - KEPT_CLEARED;
            self.list.retain(|a| {
                let old = drop > 0 && a.cleared_unix_ms.is_some();
                drop -= usize::from(old);
                !old
            });
        }
        change
    }

    pub fn open(&self, kind: &str) -> Option<&LocalAlert> {
        self.list
            .iter()
            .find(|a| a.kind == kind && a.cleared_unix_ms.is_none())
    }

    /// The open alerts' messages, in the order they were raised.
    pub fn open_messages(&self) -> Vec<String> {
        self.list
            .iter()
            .filter(|a| a.cleared_unix_ms.is_none())
            .map(|a| a.message.clone())
            .collect()
    }

    /// For `/health`: open and recently cleared, oldest first.
    pub fn to_json(&self) -> Value {
        Value::Array(
            self.list
                .iter()
                .map(|a| {
                    json!({
                        "kind": a.kind,
                        "severity": "review",
                        "message": a.message,
                        "raised_unix_ms": a.raised_unix_ms,
                        "cleared_unix_ms": a.cleared_unix_ms,
                    })
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alert_is_raised_once_and_cleared_once() {
        let mut a = LocalAlerts::default();
        assert_eq!(a.set(VIEW_STALLED, None, 1), Change::None);
        assert_eq!(a.set(VIEW_STALLED, Some("5 s".into()), 2), Change::Raised);
        assert_eq!(a.set(VIEW_STALLED, Some("6 s".into()), 3), Change::None);
        assert_eq!(a.open(VIEW_STALLED).unwrap().message, "6 s");
        assert_eq!(a.open(VIEW_STALLED).unwrap().raised_unix_ms, 2);
        assert_eq!(a.set(VIEW_STALLED, None, 4), Change::Cleared);
        assert_eq!(a.set(VIEW_STALLED, None, 5), Change::None);
        assert!(a.open(VIEW_STALLED).is_none());
        let json = a.to_json();
        assert_eq!(json[0]["kind"], "hub_view_stalled");
        assert_eq!(json[0]["cleared_unix_ms"], 4);
        // A new stall is a new alert; the cleared one stays listed.
        assert_eq!(a.set(VIEW_STALLED, Some("again".into()), 6), Change::Raised);
        assert_eq!(a.to_json().as_array().unwrap().len(), 2);
        assert_eq!(a.open_messages(), vec!["again".to_string()]);
    }

    #[test]
    fn only_the_latest_cleared_alerts_are_kept() {
        let mut a = LocalAlerts::default();
        a.set(NUMBERING_DIFFERS, Some("for good".into()), 0);
        for t in 0..50 {
            a.set(VIEW_STALLED, Some("x".into()), 2 * t);
            a.set(VIEW_STALLED, None, 2 * t + 1);
        }
        let json = a.to_json();
        let list = json.as_array().unwrap();
        assert_eq!(list.len(), KEPT_CLEARED + 1);
        assert_eq!(list[0]["kind"], "hub_numbering_differs");
        assert_eq!(list[KEPT_CLEARED]["cleared_unix_ms"], 99);
    }
}
