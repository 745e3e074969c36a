//! The arbiter's feed: one task takes the daemon's events, applies them to the [`Hall`], keeps
//! a bounded ring of recent messages for resuming clients, and fans every message out on a
//! bounded broadcast. Nothing here waits for a client, so a stalled dashboard can never slow
//! the boards: a client that falls behind the broadcast's capacity is told to resync.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use axum::extract::ws::Utf8Bytes;
use dgt_core::{Event, EventBody};
use serde_json::json;
use tokio::sync::broadcast;

use crate::hall::Hall;
use crate::preview::{PreviewBook, Previewed};

/// One message for feed clients, serialized once for all of them.
#[derive(Debug)]
pub struct Frame {
    /// The event's seq; `None` for messages that are not events (`alert_ack`).
    pub seq: Option<u64>,
    pub board: String,
    /// The message `type`.
    pub kind: &'static str,
    pub text: Utf8Bytes,
    /// A numbered event whose preview was sent: a client that had it gets the numbers only.
    pub previewed: Option<Previewed>,
    /// A preview message: each event's board and JSON (a client shown part of the hall gets
    /// only its boards').
    pub previews: Vec<(String, Utf8Bytes)>,
}

/// The message of previews `events` (each an event's JSON).
pub fn preview_text<'a>(events: impl IntoIterator<Item = &'a Utf8Bytes>) -> Utf8Bytes {
    let mut text = String::from(r#"{"type":"preview","events":["#);
    for (i, e) in events.into_iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(e.as_str());
    }
    text.push_str("]}");
    Utf8Bytes::from(text)
}

/// The `kind` of a preview frame: sent only to clients that asked (see [`Feed::preview`]).
pub const PREVIEW: &str = "preview";

/// What a joining (or resyncing) client is sent before live messages.
pub struct Joined {
    /// A snapshot, or the messages missed since the seq the client resumed from.
    pub backlog: Vec<Utf8Bytes>,
    /// Live messages, subscribed at the same instant the backlog was taken.
    pub live: broadcast::Receiver<Arc<Frame>>,
    /// The seq the client has once it has the backlog: live events up to it are skipped.
    pub seq: u64,
    /// The first preview the client is sent live (see [`crate::preview`]).
    pub first_preview: u64,
}

/// Counts for `/metrics`, kept with the hall so they agree with it.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    pub events_by_type: BTreeMap<&'static str, u64>,
    /// (kind, severity) → alerts raised.
    pub alerts: BTreeMap<(String, String), u64>,
    pub acks: u64,
    /// Events the server missed because it fell behind the daemon's broadcast.
    pub events_lost: u64,
}

struct RingEntry {
    /// For events their seq; for other messages the last event seq when they were sent.
    after_seq: u64,
    frame: Arc<Frame>,
}

/// The hall, the ring and the counts, behind one lock so that a join sees them agree.
pub struct Desk {
    pub hall: Hall,
    pub counts: Counts,
    ring: VecDeque<RingEntry>,
    ring_capacity: usize,
    /// The largest event seq dropped from the ring: resuming from below it needs a snapshot.
    evicted_up_to: u64,
    /// The newest event time and when it arrived, to estimate the event time now.
    latest: Option<(u64, Instant)>,
    /// The previews sent whose numbered events are awaited.
    previews: PreviewBook,
}

impl Desk {
    /// The event time now, estimated from the newest event and the time since it arrived.
    pub fn now_t_ms(&self) -> u64 {
        match self.latest {
            Some((t, at)) => t + at.elapsed().as_millis() as u64,
            None => 0,
        }
    }
}

/// The arbiter feed: hall, ring and the live broadcast.
pub struct Feed {
    desk: Mutex<Desk>,
    live: broadcast::Sender<Arc<Frame>>,
}

/// Whether the public may see an event of this kind (moves, clocks, game starts and results;
/// never alerts, claims or acks — Laws 12.6).
/// The round's record: pairings, the arbiter's table results and table games. They go to
/// the delayed public view (the round PGN takes results from it, so an entered result
/// reaches the public when the moves before it do) but are not sent to spectators.
pub fn is_round_record(body: &EventBody) -> bool {
    matches!(
        body,
        EventBody::Pairings(_) | EventBody::TableResult(_) | EventBody::TableGame(_)
    )
}

/// Whether the public (delayed) view takes the event.
pub fn to_public_view(body: &EventBody) -> bool {
    is_public(body) || is_round_record(body)
}

pub fn is_public(body: &EventBody) -> bool {
    matches!(
        body,
        EventBody::GameStart { .. }
            | EventBody::GameReplaced { .. }
            | EventBody::Move(_)
            | EventBody::Clock(_)
            | EventBody::GameEnd { .. }
    )
}

pub(crate) fn event_frame(event: &Event) -> Arc<Frame> {
    Arc::new(Frame {
        seq: Some(event.seq),
        board: event.board.clone(),
        kind: event.body.type_name(),
        text: Utf8Bytes::from(event.to_json()),
        previewed: None,
        previews: Vec::new(),
    })
}

impl Feed {
    /// `ring_capacity` messages are kept for resuming; a client more than `client_queue`
    /// messages behind is resynced.
    pub fn new(ring_capacity: usize, client_queue: usize) -> Self {
        let (live, _) = broadcast::channel(client_queue.max(16));
        Feed {
            desk: Mutex::new(Desk {
                hall: Hall::new(),
                counts: Counts::default(),
                ring: VecDeque::new(),
                ring_capacity: ring_capacity.max(1),
                evicted_up_to: 0,
                latest: None,
                previews: PreviewBook::default(),
            }),
            live,
        }
    }

    /// The desk, for reading the hall and the counts. Hold it briefly: the feed waits for it.
    pub fn desk(&self) -> MutexGuard<'_, Desk> {
        self.desk.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Live messages from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Frame>> {
        self.live.subscribe()
    }

    /// Applies an event and sends it to every client. Returns false for an event already
    /// applied (a seq not above the last one).
    pub fn publish(&self, event: &Event) -> bool {
        self.publish_then(event, || {})
    }

    /// [`Feed::publish`], and `then` runs before the desk is let go when the event was
    /// applied: the server queues public events there, so a views snapshot (taken under the
    /// same lock) never holds an event in the hall that the public queue lacks.
    pub fn publish_then(&self, event: &Event, then: impl FnOnce()) -> bool {
        let mut desk = self.desk();
        if desk.hall.last_seq() != 0 && event.seq <= desk.hall.last_seq() {
            return false;
        }
        desk.hall.apply(event);
        desk.latest = Some((
            event.t_ms.max(desk.latest.map_or(0, |l| l.0)),
            Instant::now(),
        ));
        *desk
            .counts
            .events_by_type
            .entry(event.body.type_name())
            .or_default() += 1;
        if let EventBody::Alert(a) = &event.body {
            let key = (enum_name(&a.kind), enum_name(&a.severity));
            *desk.counts.alerts.entry(key).or_default() += 1;
        }
        let mut frame = event_frame(event);
        if let (Some(node), Some(node_seq)) = (&event.node, event.node_seq)
            && let Some(no) = desk.previews.numbered(node, node_seq)
        {
            Arc::get_mut(&mut frame).expect("just made").previewed = Some(Previewed {
                no,
                node: node.clone(),
                node_seq,
            });
        }
        desk.remember(event.seq, frame.clone());
        let _ = self.live.send(frame);
        then();
        true
    }

    /// First sights of events the server will be given numbered later (a hub hears a node's
    /// events on the node's live subject before the stream has stored them): sent at once,
    /// in one message, to the clients that asked for previews (`/ws?preview=1`), as
    /// `{"type":"preview","events":[…]}`, each event without its `seq` or an alert's `id`,
    /// which only the numbered event carries. It changes nothing here (no hall, no ring, no
    /// counts): a client that resumes gets the numbered events, as before. Only a node's
    /// event (with `node` and `node_seq`) has a preview.
    pub fn preview(&self, events: &[Event]) {
        let parts: Vec<(&Event, &str, u64, Utf8Bytes)> = events
            .iter()
            .filter_map(|e| {
                let (node, node_seq) = (e.node.as_deref()?, e.node_seq?);
                let serde_json::Value::Object(mut fields) = serde_json::to_value(e).ok()? else {
                    return None;
                };
                fields.remove("seq");
                if matches!(e.body, EventBody::Alert(_)) {
                    fields.remove("id");
                }
                let text = serde_json::to_string(&fields).ok()?;
                Some((e, node, node_seq, Utf8Bytes::from(text)))
            })
            .collect();
        if parts.is_empty() {
            return;
        }
        let text = preview_text(parts.iter().map(|(_, _, _, t)| t));
        // Numbered and sent under the desk's lock: a client joins either before (and gets
        // them) or after (and is told the numbers are not for it).
        let mut desk = self.desk();
        let mut by_board = Vec::with_capacity(parts.len());
        for (e, node, node_seq, text) in parts {
            desk.previews.sent(node, node_seq);
            by_board.push((e.board.clone(), text));
        }
        let _ = self.live.send(Arc::new(Frame {
            seq: None,
            board: String::new(),
            kind: PREVIEW,
            text,
            previewed: None,
            previews: by_board,
        }));
    }

    /// Records an acknowledgement and tells every client (the core emits no event for it).
    /// Returns the alert's board, or `None` when no such alert was raised.
    /// Acknowledging an alert twice (a hub hears of its own ack again from the stream)
    /// changes nothing and tells nobody.
    pub fn record_ack(&self, id: u64) -> Option<String> {
        let mut desk = self.desk();
        if let Some(a) = desk.hall.alert(id)
            && a.acked
        {
            return Some(a.board.clone());
        }
        let board = desk.hall.ack(id)?.board.clone();
        desk.counts.acks += 1;
        let text = json!({ "type": "alert_ack", "id": id, "board": board, "after_seq": desk.hall.last_seq() });
        let frame = Arc::new(Frame {
            seq: None,
            board: board.clone(),
            kind: "alert_ack",
            text: Utf8Bytes::from(text.to_string()),
            previewed: None,
            previews: Vec::new(),
        });
        let after = desk.hall.last_seq();
        desk.remember(after, frame.clone());
        let _ = self.live.send(frame);
        Some(board)
    }

    /// Counts events the server never saw (it fell behind the daemon's broadcast).
    pub fn count_lost(&self, n: u64) {
        self.desk().counts.events_lost += n;
    }

    /// A client joins: with `since`, the messages after that seq when the ring still holds
    /// them, else a snapshot (`resync: true` when a resume could not be honoured or `resync`
    /// is asked for).
    pub fn join(&self, since: Option<u64>, resync: bool) -> Joined {
        self.join_for(since, resync, None)
    }

    /// [`Feed::join`] for a principal: only the boards (and their alerts) it covers, and
    /// the round-wide messages.
    pub fn join_for(
        &self,
        since: Option<u64>,
        resync: bool,
        who: Option<&crate::access::Principal>,
    ) -> Joined {
        let desk = self.desk();
        let seen = |board: &str| who.is_none_or(|p| shown_to(p, desk.hall.tables(), board));
        let live = self.live.subscribe();
        let last = desk.hall.last_seq();
        if let Some(s) = since.filter(|&s| !resync && s >= desk.evicted_up_to && s <= last) {
            let backlog = desk
                .ring
                .iter()
                .filter(|e| match e.frame.seq {
                    Some(seq) => seq > s,
                    None => e.after_seq >= s,
                })
                .filter(|e| seen(&e.frame.board))
                .map(|e| e.frame.text.clone())
                .collect();
            return Joined {
                backlog,
                live,
                seq: last,
                first_preview: desk.previews.next_no(),
            };
        }
        let snapshot =
            desk.hall
                .snapshot_for(resync || since.is_some(), true, desk.now_t_ms(), who);
        Joined {
            backlog: vec![Utf8Bytes::from(snapshot.to_string())],
            live,
            seq: last,
            first_preview: desk.previews.next_no(),
        }
    }
}

impl Desk {
    /// The events of `board` with `from_ms <= t_ms <= to_ms` still in the resume ring, in
    /// order, and whether the ring reaches back to `from_ms` (older events were dropped).
    pub fn board_events(
        &self,
        board: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> (Vec<serde_json::Value>, bool) {
        let mut reaches = self.evicted_up_to == 0;
        let mut out = Vec::new();
        for entry in &self.ring {
            if entry.frame.seq.is_none() || entry.frame.board != board {
                continue;
            }
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&entry.frame.text) else {
                continue;
            };
            let t = v
                .get("t_ms")
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0);
            if t < from_ms {
                reaches = true;
            } else if t <= to_ms {
                out.push(v);
            }
        }
        (out, reaches)
    }
}

/// Whether a feed message about `board` goes to `who`: the boards it covers, and the
/// round-wide messages (board [`dgt_core::pairing::ROUND_BOARD`]).
pub fn shown_to(
    who: &crate::access::Principal,
    tables: &dgt_pairings::TableMap,
    board: &str,
) -> bool {
    board == dgt_core::pairing::ROUND_BOARD || who.covers_board(tables, board)
}

impl Desk {
    /// The resume ring, oldest first, each message with the seq it follows; and the largest
    /// event seq already dropped from it.
    pub(crate) fn ring(&self) -> (Vec<(u64, Arc<Frame>)>, u64) {
        let ring = self
            .ring
            .iter()
            .map(|e| (e.after_seq, e.frame.clone()))
            .collect();
        (ring, self.evicted_up_to)
    }

    /// The newest event time seen.
    pub(crate) fn latest_t_ms(&self) -> Option<u64> {
        self.latest.map(|(t, _)| t)
    }

    /// Puts back what a views snapshot held: the hall, the counts, the ring (the newest
    /// `ring_capacity` of its messages) and the newest event time (as arrived now, as
    /// re-applying the history would have it).
    pub(crate) fn restore(
        &mut self,
        hall: Hall,
        counts: Counts,
        ring: Vec<(u64, Arc<Frame>)>,
        evicted_up_to: u64,
        latest_t_ms: Option<u64>,
    ) {
        self.hall = hall;
        self.counts = counts;
        self.ring.clear();
        self.evicted_up_to = evicted_up_to;
        for (after_seq, frame) in ring {
            self.remember(after_seq, frame);
        }
        self.latest = latest_t_ms.map(|t| (t, Instant::now()));
    }

    fn remember(&mut self, after_seq: u64, frame: Arc<Frame>) {
        if self.ring.len() >= self.ring_capacity
            && let Some(old) = self.ring.pop_front()
            && let Some(seq) = old.frame.seq
        {
            self.evicted_up_to = self.evicted_up_to.max(seq);
        }
        self.ring.push_back(RingEntry { after_seq, frame });
    }
}

/// The JSON spelling of a unit enum variant ("illegal_move", "intervene").
pub fn enum_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// Where the server finds events it missed (the daemon's journal), so that falling behind
/// the event stream never loses an alert for the dashboard.
pub trait EventSource: Send + Sync {
    /// The events after `seq`, oldest first, as far as they are kept.
    fn events_after(&self, seq: u64) -> Result<Vec<Event>, crate::SourceError>;
}

/// Takes the daemon's events until the daemon drops its sender: each goes to the arbiter
/// feed, and the public ones on to the delayed public feed. When the server falls behind
/// the stream, the events it missed are read back from `source` and applied in order (the
/// hall is resynchronised, clients get them as live events); only those the source does not
/// have are counted as lost.
pub async fn run(
    feed: Arc<Feed>,
    mut events: broadcast::Receiver<Event>,
    to_public: impl Fn(Instant, Event),
    source: Option<Arc<dyn EventSource>>,
) {
    let forward = |event: Event| {
        let public = to_public_view(&event.body);
        feed.publish_then(&event, || {
            if public {
                to_public(Instant::now(), event.clone());
            }
        });
    };
    loop {
        match events.recv().await {
            Ok(event) => forward(event),
            Err(broadcast::error::RecvError::Lagged(n)) => {
                let before = feed.desk().hall.last_seq();
                let recovered = match &source {
                    Some(source) => {
                        let source = source.clone();
                        tokio::task::spawn_blocking(move || source.events_after(before))
                            .await
                            .map_err(|e| e.to_string())
                            .and_then(|r| r.map_err(|e| e.to_string()))
                    }
                    None => Err("no journal to read them back from".to_string()),
                };
                match recovered {
                    Ok(missed) => {
                        for event in missed {
                            forward(event);
                        }
                        let now = feed.desk().hall.last_seq();
                        tracing::warn!(
                            missed = n,
                            resynchronised = now.saturating_sub(before),
                            "the server fell behind the event stream; resynchronised from the \
                             journal"
                        );
                    }
                    Err(why) => {
                        tracing::warn!(
                            missed = n,
                            "the server fell behind the event stream and lost events: {why}"
                        );
                        feed.count_lost(n);
                    }
                }
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}
