//! The hub's `/health`, `/metrics` and `/api/nodes`: its nodes as heard and as the stream
//! records them, its link to the broker, its reader and its checkpoint.

use std::time::Duration;

use dgt_server::StatusSource;
use serde_json::json;

use super::{HUB_TOKEN, Shared, local, lock, probe};

/// `/health`, `/metrics` and `/api/nodes` of the hub.
pub(super) struct HubStatus {
    pub(super) shared: Shared,
    pub(super) offline_after: Duration,
}

impl HubStatus {
    fn node_list(&self) -> Vec<serde_json::Value> {
        let state = lock(&self.shared);
        let cut_off = !state.connected || probe::stall(&state).is_some();
        let mut names: Vec<&String> = state.view.nodes().keys().collect();
        names.extend(state.live.keys());
        names.extend(state.refusals.nodes());
        names.sort();
        names.dedup();
        names
            .into_iter()
            .filter(|n| n.as_str() != HUB_TOKEN)
            .map(|n| {
                let track = state.view.nodes().get(n).cloned().unwrap_or_default();
                let live = state.live.get(n);
                let heard = live.is_some_and(|l| l.heard.elapsed() < self.offline_after);
                let online = track.online.unwrap_or(heard);
                let mut entry = json!({
                    "node": n,
                    "state": if online { "online" } else { "offline" },
                    "last_seq": track.last_seq,
                    "boards": live.map_or(0, |l| l.beat.boards.len()),
                    "board_labels": live.map(|l| l.beat.boards.clone()).unwrap_or_default(),
                    "journal_seq": live.map(|l| l.beat.last_seq),
                    "healthy": live.map(|l| l.beat.healthy),
                    "problem": live.and_then(|l| l.beat.problem.clone()),
                    "problem_kind": live.and_then(|l| l.beat.problem_kind.clone()),
                    "heard_ms_ago": live.map(|l| l.heard.elapsed().as_millis() as u64),
                    "published_step": track.to_step,
                    "gaps": track.gaps,
                });
                if let Some(r) = state.refusals.get(n) {
                    // The node cannot tell it (it never got in): the broker did.
                    entry["problem_kind"] = json!("wrong_credentials");
                    entry["problem"] = json!(r.message(n));
                    entry["healthy"] = json!(false);
                    entry["sign_in_refused"] = json!({
                        "attempts": r.attempts,
                        "from": r.host,
                        "last_ms_ago": r.last.elapsed().as_millis() as u64,
                    });
                }
                if cut_off {
                    // What the hub heard before it lost the broker; nobody can know better.
                    entry["stale"] = json!(true);
                }
                entry
            })
            .collect()
    }
}

impl StatusSource for HubStatus {
    fn health(&self) -> serde_json::Value {
        let nodes = self.node_list();
        let state = lock(&self.shared);
        let stalled = probe::stall(&state);
        let link = state.link.problem();
        let reader = state.reader;
        let config_changed = state.local.open(local::STREAM_CONFIG_CHANGED).is_some();
        let offline = nodes.iter().filter(|n| n["state"] == "offline").count();
        let mut health = json!({
            "ok": state.connected && offline == 0 && stalled.is_none() && link.is_none()
                && reader.missing == 0 && !config_changed && state.refusals.nodes().next().is_none(),
            "hub": {
                "broker_connected": state.connected,
                "view_stalled": stalled.is_some(),
                "nodes": nodes.len(),
                "nodes_offline": offline,
                "nodes_refused": state.refusals.nodes().count(),
                "broker_events": state.events_link.as_ref().map(|l| json!({
                    "listening": l.connected(),
                    "problem_kind": l.problem().map(|p| p.kind),
                    "problem": l.problem().map(|p| p.message),
                })),
                "stream_position": state.stream_position,
                "stream_last": state.stream_last,
                "reader_restarts": reader.restarts,
                "reader_refetched": reader.refetched,
                "reader_missing": reader.missing,
                "stream_recreated": reader.recreated,
                "stale_node_states": state.view.stale_states,
                "numbering_differs": state.local.open(local::NUMBERING_DIFFERS).is_some(),
                "problem_kind": link.as_ref().map(|p| p.kind)
                    .or(config_changed.then_some("refused")),
                "problem": link.as_ref().map(|p| p.message.clone())
                    .or(state.local.open(local::STREAM_CONFIG_CHANGED).map(|a| a.message.clone())),
                "alerts": state.local.to_json(),
                "checkpoint": state.checkpoint.to_json(),
            },
        });
        // The dashboard shows `notice` in its banner: the arbiter must know the boards on
        // screen may be behind the hall (the nodes keep journaling; nothing is lost).
        let mut notices = Vec::new();
        if !state.connected {
            let ago = state.lost_since.map_or(0, |t| t.elapsed().as_secs());
            notices.push(format!(
                "The hub lost the broker {ago} s ago: boards and node states are as last \
                 heard; the venue PCs keep journaling and catch up when it is back."
            ));
        } else if let Some(why) = stalled {
            notices.push(why);
        }
        for kind in [local::STREAM_CONFIG_CHANGED, local::NUMBERING_DIFFERS] {
            if let Some(a) = state.local.open(kind) {
                notices.push(a.message.clone());
            }
        }
        if !notices.is_empty() {
            health["notice"] = json!(notices.join(" · "));
        }
        health
    }

    fn metrics(&self) -> String {
        let nodes = self.node_list();
        let state = lock(&self.shared);
        let mut out = String::new();
        out.push_str("# HELP dgt_hub_seq The hub's last event seq.\n# TYPE dgt_hub_seq gauge\n");
        out.push_str(&format!("dgt_hub_seq {}\n", state.view.last_seq()));
        out.push_str("# HELP dgt_hub_node_online 1 while a node is online.\n# TYPE dgt_hub_node_online gauge\n");
        for n in &nodes {
            out.push_str(&format!(
                "dgt_hub_node_online{{node=\"{}\"}} {}\n",
                n["node"].as_str().unwrap_or(""),
                u8::from(n["state"] == "online")
            ));
        }
        out.push_str("# HELP dgt_hub_local_alert 1 while one of the hub's own alerts is open.\n# TYPE dgt_hub_local_alert gauge\n");
        for kind in local::KINDS {
            out.push_str(&format!(
                "dgt_hub_local_alert{{kind=\"{kind}\"}} {}\n",
                u8::from(state.local.open(kind).is_some())
            ));
        }
        out.push_str("# HELP dgt_hub_node_gaps_total Node messages that did not continue the last one.\n# TYPE dgt_hub_node_gaps_total counter\n");
        for n in &nodes {
            out.push_str(&format!(
                "dgt_hub_node_gaps_total{{node=\"{}\"}} {}\n",
                n["node"].as_str().unwrap_or(""),
                n["gaps"]
            ));
        }
        out
    }

    fn nodes(&self) -> Option<serde_json::Value> {
        Some(serde_json::Value::Array(self.node_list()))
    }
}
