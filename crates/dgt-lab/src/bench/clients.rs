//! The bench's WebSocket clients: each reads `/ws?since=0&preview=1` (the backlog, then live
//! events) and notes, for every event, when it arrived numbered (whole, or as the numbers of
//! a preview it had) and (on a hub) when it was first seen as a preview. An event is known by its journal: the node it comes from (index 0 for a lone
//! daemon) and its seq there (`node_seq` on a hub).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use serde::Deserialize;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::BenchError;
use super::boards::unix_us;

/// What one client saw: per node, the arrival time (Unix µs) of each seq (0: not received).
#[derive(Debug, Default)]
pub struct Received {
    /// The numbered events (the record: loss is judged on these).
    pub arrivals: Vec<Vec<u64>>,
    /// Previews: a hub's first sight of a node's event before the stream numbers it.
    pub previews: Vec<Vec<u64>>,
    /// `{"type":"resync"}` frames: the client fell behind and events were skipped.
    pub resyncs: u64,
    /// Frames that were not events (snapshots, acks) or could not be read.
    pub other_frames: u64,
}

/// Notes the first arrival of `seq` of `node` in a per-node table.
fn note_in(table: &mut Vec<Vec<u64>>, node: usize, seq: u64, at: u64) {
    if table.len() <= node {
        table.resize_with(node + 1, Vec::new);
    }
    let list = &mut table[node];
    let i = seq as usize;
    if list.len() <= i {
        list.resize(i + 1, 0);
    }
    if list[i] == 0 {
        list[i] = at;
    }
}

fn arrival_in(table: &[Vec<u64>], node: usize, seq: u64) -> Option<u64> {
    table
        .get(node)
        .and_then(|l| l.get(seq as usize))
        .copied()
        .filter(|&t| t != 0)
}

impl Received {
    fn note(&mut self, node: usize, seq: u64, at: u64) {
        note_in(&mut self.arrivals, node, seq, at);
    }

    /// The arrival of `seq` of `node` numbered, if it came.
    pub fn arrival(&self, node: usize, seq: u64) -> Option<u64> {
        arrival_in(&self.arrivals, node, seq)
    }

    /// When `seq` of `node` was first seen: its preview or, if none came sooner, its
    /// numbered event.
    pub fn first_sight(&self, node: usize, seq: u64) -> Option<u64> {
        let numbered = self.arrival(node, seq);
        match arrival_in(&self.previews, node, seq) {
            Some(p) => Some(numbered.map_or(p, |n| n.min(p))),
            None => numbered,
        }
    }

    /// Whether every seq 1..=last of each node has arrived.
    pub fn has_all(&self, last: &[u64]) -> bool {
        last.iter()
            .enumerate()
            .all(|(node, &last)| (1..=last).all(|s| self.arrival(node, s).is_some()))
    }
}

/// The fields of an event frame the bench needs.
#[derive(Deserialize)]
struct Frame<'a> {
    seq: Option<u64>,
    #[serde(borrow)]
    node: Option<&'a str>,
    node_seq: Option<u64>,
    #[serde(rename = "type", borrow)]
    kind: Option<&'a str>,
    /// A preview message's events.
    #[serde(borrow)]
    events: Option<Vec<Previewed<'a>>>,
    /// A `numbered` message: how many previewed events took their numbers.
    count: Option<u64>,
}

/// The fields of a previewed event the bench needs.
#[derive(Deserialize)]
struct Previewed<'a> {
    #[serde(borrow)]
    node: Option<&'a str>,
    node_seq: Option<u64>,
}

/// Maps the names of a hub's nodes to their indexes.
pub type NodeIndex = Arc<HashMap<String, usize>>;

/// The running clients.
pub struct Clients {
    tasks: Vec<JoinHandle<Result<Received, BenchError>>>,
    stop: watch::Sender<bool>,
    seen: Vec<Arc<Mutex<Received>>>,
}

/// The clients' WebSocket settings: tungstenite zeroes its whole read buffer (128 KiB by
/// default) before every read, and a client reads one small frame at a time, so at 100
/// clients the default spent a tenth of the machine in `memset` — CPU taken from the daemons
/// and the hub being measured. 8 KiB still takes any frame (the buffer grows for a long one).
fn small_reads() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(8 * 1024)
}

impl Clients {
    /// Connects `n` clients to `addr`'s `/ws`; returns once all are connected.
    pub async fn connect(
        addr: SocketAddr,
        n: usize,
        nodes: NodeIndex,
    ) -> Result<Clients, BenchError> {
        let (stop, stopped) = watch::channel(false);
        let mut tasks = Vec::new();
        let mut seen = Vec::new();
        for _ in 0..n {
            let (ws, _) = tokio_tungstenite::connect_async_with_config(
                format!("ws://{addr}/ws?since=0&preview=1"),
                Some(small_reads()),
                false,
            )
            .await
            .map_err(|e| BenchError::WebSocketConnect {
                addr,
                source: Box::new(e),
            })?;
            let received = Arc::new(Mutex::new(Received::default()));
            seen.push(received.clone());
            let nodes = nodes.clone();
            let mut stopped = stopped.clone();
            tasks.push(tokio::spawn(async move {
                let (_sink, mut stream) = ws.split();
                loop {
                    tokio::select! {
                        _ = stopped.changed() => break,
                        frame = stream.next() => {
                            let at = unix_us();
                            let Some(frame) = frame else { break };
                            let frame = frame.map_err(|e| BenchError::WebSocket(Box::new(e)))?;
                            let Ok(text) = frame.to_text() else { continue };
                            let mut r = received.lock().unwrap_or_else(|e| e.into_inner());
                            note(&mut r, text, &nodes, at);
                        }
                    }
                }
                let r = std::mem::take(&mut *received.lock().unwrap_or_else(|e| e.into_inner()));
                Ok(r)
            }));
        }
        Ok(Clients { tasks, stop, seen })
    }

    /// Whether every client has every seq up to `last` of each node.
    pub fn all_have(&self, last: &[u64]) -> bool {
        self.seen
            .iter()
            .all(|r| r.lock().unwrap_or_else(|e| e.into_inner()).has_all(last))
    }

    /// Disconnects them and hands back what each received.
    pub async fn finish(self) -> Result<Vec<Received>, BenchError> {
        let _ = self.stop.send(true);
        let mut out = Vec::new();
        for t in self.tasks {
            out.push(t.await.map_err(BenchError::ClientTask)??);
        }
        Ok(out)
    }
}

fn note(r: &mut Received, text: &str, nodes: &HashMap<String, usize>, at: u64) {
    let Ok(f) = serde_json::from_str::<Frame>(text) else {
        r.other_frames += 1;
        return;
    };
    if f.kind == Some("resync") {
        r.resyncs += 1;
        return;
    }
    if f.kind == Some("preview") {
        for e in f.events.unwrap_or_default() {
            match e.node.and_then(|n| nodes.get(n)).zip(e.node_seq) {
                Some((&i, seq)) => note_in(&mut r.previews, i, seq, at),
                None => r.other_frames += 1,
            }
        }
        return;
    }
    if f.kind == Some("numbered") {
        // The previews of node_seq … node_seq + count − 1 are numbered now: the record.
        match (f.node.and_then(|n| nodes.get(n)), f.node_seq, f.count) {
            (Some(&i), Some(first), Some(count)) => {
                for seq in first..first.saturating_add(count) {
                    r.note(i, seq, at);
                }
            }
            _ => r.other_frames += 1,
        }
        return;
    }
    match (f.node, f.node_seq, f.seq) {
        // On a hub: the node's own numbering (the hub's events of its own have no node_seq).
        (Some(node), Some(seq), _) => match nodes.get(node) {
            Some(&i) => r.note(i, seq, at),
            None => r.other_frames += 1,
        },
        (None, None, Some(seq)) if nodes.is_empty() => r.note(0, seq, at),
        _ => r.other_frames += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_notes_events_by_node_and_seq_and_counts_resyncs() {
        let mut r = Received::default();
        let lone = HashMap::new();
        note(
            &mut r,
            r#"{"seq":1,"type":"clock","board":"b","t_ms":3}"#,
            &lone,
            10,
        );
        note(
            &mut r,
            r#"{"seq":2,"type":"clock","board":"b","t_ms":4}"#,
            &lone,
            11,
        );
        note(&mut r, r#"{"type":"resync"}"#, &lone, 12);
        assert_eq!(r.arrival(0, 2), Some(11));
        assert!(r.has_all(&[2]));
        assert!(!r.has_all(&[3]));
        assert_eq!(r.resyncs, 1);
        let hub: HashMap<String, usize> = [("n-a".to_string(), 0), ("n-b".to_string(), 1)].into();
        let mut h = Received::default();
        note(
            &mut h,
            r#"{"seq":7,"node":"n-b","node_seq":1,"type":"clock"}"#,
            &hub,
            5,
        );
        note(&mut h, r#"{"seq":8,"node":"n-b","type":"alert"}"#, &hub, 6);
        assert_eq!(h.arrival(1, 1), Some(5));
        assert!(h.has_all(&[0, 1]));
        assert_eq!(h.other_frames, 1);
        // A preview is a first sight, not the record.
        note(
            &mut h,
            r#"{"type":"preview","events":[{"node":"n-a","node_seq":4,"type":"move"}]}"#,
            &hub,
            20,
        );
        assert_eq!((h.arrival(0, 4), h.first_sight(0, 4)), (None, Some(20)));
        assert!(!h.has_all(&[4, 1]));
        note(
            &mut h,
            r#"{"seq":9,"node":"n-a","node_seq":4,"type":"move"}"#,
            &hub,
            90,
        );
        assert_eq!((h.arrival(0, 4), h.first_sight(0, 4)), (Some(90), Some(20)));
        // Numbers for previewed events: each of them arrives numbered.
        note(
            &mut h,
            r#"{"type":"numbered","node":"n-a","node_seq":5,"seq":10,"count":3}"#,
            &hub,
            95,
        );
        assert_eq!((h.arrival(0, 7), h.arrival(0, 8)), (Some(95), None));
        assert_eq!(
            h.first_sight(1, 1),
            Some(5),
            "no preview: the numbered event"
        );
    }
}
