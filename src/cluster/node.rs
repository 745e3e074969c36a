//! A node: its journal published onward to the event's stream, its heartbeat, and the
//! arbiter actions the hub sends it.
//!
//! The journal stays the source of truth. The publisher reads what the journal committed
//! after the last step the broker holds and sends it in order, one message at a time, each
//! only after the broker acknowledged the previous one; a failed or unanswered publish is
//! followed by asking the broker again which step it holds. So after a broker outage or a
//! partition the node sends what it missed with no gap and no duplicate, while its boards,
//! journal and local dashboard go on as if nothing happened.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::Client;
use async_nats::jetstream::{self, context::PublishErrorKind};
use dgt_core::{AlertKind, Operation};
use dgt_journal::{Journal, JournalWriter, TailRecord};
use dgt_server::AlertBook;
use futures_util::StreamExt;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::Names;
use super::connect::LinkHealth;
use super::epochs::Epochs;
use super::history::{History, Position};
use super::stream::Found;
use super::wire::{ActionReply, ActionRequest, Heartbeat, NodeBatch, Preview, Record, unix_ms};
use crate::edge::daemon::{DaemonClock, DaemonHandle};
use crate::settings::ClusterSettings;

/// How long a publish waits for the broker's acknowledgement.
const PUBLISH_ACK_TIMEOUT: Duration = Duration::from_secs(5);
/// How often the journal is looked at when no event woke the publisher (acknowledgements
/// produce no event).
const IDLE_POLL: Duration = Duration::from_millis(25);
/// How soon a stopping node tries the broker again after a failure.
const STOPPING_RETRY: Duration = Duration::from_millis(200);
/// How often a node whose journal is behind the stream, or that refuses the stream, asks the
/// broker again.
const STALE_RECHECK: Duration = Duration::from_secs(3);
/// How often a publishing node checks the stream again (its configuration, its whole chain):
/// a stream changed by an admin mid-event (rollups or purges allowed) is refused within this.
const RECHECK_EVERY: Duration = Duration::from_secs(5);
/// How often a node asks again for a stream the hub has not made yet.
const WAITING_RECHECK: Duration = Duration::from_millis(500);

/// What a running node shares with its tasks and its `/health`.
#[derive(Default)]
struct Shared {
    /// What the client meets on its link (credentials, certificates, permissions).
    link: Arc<LinkHealth>,
    /// The last journal step the broker acknowledged.
    published_step: AtomicU64,
    /// Why the node publishes nothing although the broker answers (told in its heartbeat).
    refusal: Mutex<Option<String>>,
    /// A broker answer that must never come (`duplicate` for a new step): publishing stops
    /// until the node is restarted, and the node says why everywhere.
    alarm: Mutex<Option<String>>,
}

impl Shared {
    fn alarm(&self) -> Option<String> {
        self.alarm.lock().map(|r| r.clone()).unwrap_or(None)
    }

    /// What stops the node from publishing, the alarm first: (kind, message).
    fn problem(&self) -> Option<(String, String)> {
        if let Some(a) = self.alarm() {
            return Some(("duplicate".into(), a));
        }
        if let Some(r) = self.refusal() {
            return Some(("refused".into(), r));
        }
        self.link.problem().map(|p| (p.kind.to_string(), p.message))
    }

    fn refusal(&self) -> Option<String> {
        self.refusal.lock().map(|r| r.clone()).unwrap_or(None)
    }

    fn set_refusal(&self, why: Option<String>) {
        if let Ok(mut r) = self.refusal.lock() {
            *r = why;
        }
    }
}

/// The node's link as its own `/health` shows it: made before the server starts, filled by
/// the link once it runs.
#[derive(Clone, Default)]
pub struct NodeHealth {
    shared: Arc<Shared>,
}

impl NodeHealth {
    /// `(ok, details)`: not ok while the node cannot publish (no broker, a refused stream, a
    /// refused sign-in or permission, the `duplicate` alarm).
    pub fn status(&self) -> (bool, serde_json::Value) {
        let problem = self.shared.problem();
        let connected = self.shared.link.connected();
        let ok = connected && problem.is_none();
        (
            ok,
            serde_json::json!({
                "broker_connected": connected,
                "published_step": self.shared.published_step.load(Ordering::Acquire),
                "problem_kind": problem.as_ref().map(|p| p.0.clone()),
                "problem": problem.map(|p| p.1),
            }),
        )
    }
}

/// The node's link to the event: started by `run`/`demo` when `[cluster]` is set.
pub struct NodeLink {
    stop: CancellationToken,
    teller: JoinHandle<()>,
    publisher: JoinHandle<()>,
    heartbeat: JoinHandle<()>,
    responder: JoinHandle<()>,
    shared: Arc<Shared>,
}

/// Everything a node needs from the daemon around it.
pub struct NodeParts {
    pub journal_path: PathBuf,
    pub writer: Arc<JournalWriter>,
    pub daemon: DaemonHandle,
    pub alerts: AlertBook,
    pub clock: DaemonClock,
    /// Where the node's `/health` reads the link's state.
    pub health: NodeHealth,
}

impl NodeLink {
    /// Connects (retrying in the background) and starts publishing, heartbeating and
    /// answering. Fails only on a configuration the broker can never accept (a bad URL or
    /// unreadable credentials).
    pub async fn start(
        settings: &ClusterSettings,
        parts: NodeParts,
    ) -> Result<NodeLink, super::connect::ConnectError> {
        let shared = parts.health.shared.clone();
        let client =
            super::connect::connect_reporting(settings, &settings.node, shared.link.clone())
                .await?;
        let names = Names::new(&settings.event);
        let stop = CancellationToken::new();
        // Where this session's clock 0 falls in Unix time, for the stream and the previews
        // alike (so a preview and its numbered event carry the same time).
        let clock_unix_ms = unix_ms().saturating_sub(parts.clock.now_ms());
        let teller = tokio::spawn(tell_live(
            client.clone(),
            names.live(&settings.node),
            settings.node.clone(),
            clock_unix_ms,
            parts.daemon.subscribe(),
            shared.clone(),
            stop.clone(),
        ));
        let publisher = tokio::spawn(publish_loop(
            Publisher {
                client: client.clone(),
                names: names.clone(),
                node: settings.node.clone(),
                replicas: settings.replicas,
                batch_events: settings.batch_events.max(1),
                publish_every: Duration::from_millis(settings.publish_every_ms),
                journal_path: parts.journal_path.clone(),
                clock: parts.clock,
                epochs: Epochs::record(&parts.journal_path, parts.clock.start_ms(), clock_unix_ms),
                seen: super::stream_seen::StreamSeen::of(&parts.journal_path),
                shared: shared.clone(),
            },
            parts.daemon.subscribe(),
            stop.clone(),
        ));
        let heartbeat = tokio::spawn(heartbeat_loop(
            client.clone(),
            names.clone(),
            settings.node.clone(),
            Duration::from_millis(settings.heartbeat_ms.max(1)),
            parts.writer.clone(),
            parts.alerts.clone(),
            shared.clone(),
            stop.clone(),
        ));
        let responder = tokio::spawn(answer_actions(
            client,
            names.actions(&settings.node),
            parts,
            stop.clone(),
        ));
        tracing::info!(
            node = %settings.node,
            event = %settings.event,
            brokers = %settings.nats.join(", "),
            "publishing the journal to the event's stream"
        );
        Ok(NodeLink {
            stop,
            teller,
            publisher,
            heartbeat,
            responder,
            shared,
        })
    }

    /// The last journal step the broker holds from this node.
    pub fn published_step(&self) -> u64 {
        self.shared.published_step.load(Ordering::Acquire)
    }

    /// Stops: the publisher first sends what the journal committed (a few seconds at most,
    /// the broker permitting; what is left goes out at the next start).
    pub async fn shutdown(self) {
        self.stop.cancel();
        let _ = self.teller.await;
        let _ = self.responder.await;
        let _ = self.heartbeat.await;
        match tokio::time::timeout(Duration::from_secs(10), self.publisher).await {
            Ok(_) => tracing::info!(
                step = self.shared.published_step.load(Ordering::Acquire),
                "cluster: the journal is published up to its last step"
            ),
            Err(_) => tracing::warn!(
                step = self.shared.published_step.load(Ordering::Acquire),
                "cluster: stopping before the broker took everything; the rest goes at the next start"
            ),
        }
    }
}

struct Publisher {
    client: Client,
    names: Names,
    node: String,
    replicas: usize,
    batch_events: usize,
    /// The shortest time between two messages ([`ClusterSettings::publish_every_ms`]).
    publish_every: Duration,
    journal_path: PathBuf,
    clock: DaemonClock,
    /// The journal's sessions and their clocks (original times for a republished journal).
    epochs: Epochs,
    /// The stream the journal was published into (to tell hubs it was made anew).
    seen: super::stream_seen::StreamSeen,
    shared: Arc<Shared>,
}

/// Why the broker could not be asked or told something (logged, then retried).
#[derive(Debug, thiserror::Error)]
enum BrokerError {
    #[error("{0}")]
    Ask(String),
    #[error("{0}")]
    Encode(#[from] serde_json::Error),
    #[error("{0}")]
    Publish(String),
    /// The subject's last message is not the one the node knew: asked again, not an error.
    #[error("the stream's last message from this node is not the one it knew")]
    NotNext,
    #[error("the broker did not acknowledge in time")]
    AckTimeout,
    /// The broker answered `duplicate`: something already holds this message's place.
    #[error("the broker answered `duplicate` for step {0}")]
    Duplicate(u64),
}

/// What the node found when it asked the broker where its chain ends.
enum Start {
    /// Publishing goes on from here; the node's last message on the stream, read back.
    At(Position, Option<Box<NodeBatch>>),
    /// Nothing can be published now (the reason, with the fix).
    Refused(String),
    /// The stream is not there yet (the hub makes it when it starts): asked again soon.
    Waiting(String),
}

impl Publisher {
    /// The records of one session of the tail, with that session's clock and the last step
    /// they cover: (clock, to_step, records).
    fn one_session(&self, tail: dgt_journal::Tail) -> (u64, u64, Vec<Record>) {
        let t_of = |r: &Record| match r {
            Record::Event(e) => e.t_ms,
            Record::Ack { t_ms, .. } => *t_ms,
        };
        let mut records: Vec<(u64, Record)> = tail
            .records
            .into_iter()
            .filter_map(|r| {
                let step = r.step();
                record(r).map(|x| (step, x))
            })
            .collect();
        let Some((_, first)) = records.first() else {
            return (
                unix_ms().saturating_sub(self.clock.now_ms()),
                tail.to_step,
                Vec::new(),
            );
        };
        let (clock, next) = self.epochs.clock_of(t_of(first));
        let mut to_step = tail.to_step;
        if let Some(next) = next
            && let Some(i) = records.iter().position(|(_, r)| t_of(r) >= next)
        {
            // A later session's steps go in the next message, with their own clock.
            to_step = records[i].0 - 1;
            records.truncate(i);
        }
        (
            clock,
            to_step,
            records.into_iter().map(|(_, r)| r).collect(),
        )
    }

    /// Where this node's chain ends on the stream, after checking the stream's configuration
    /// and that the stream holds the whole chain. Nodes never create the stream (the hub does,
    /// with deletes, purges and rollups denied).
    async fn start_position(&self, js: &jetstream::Context) -> Result<Start, BrokerError> {
        let stream = match super::stream::look(js, &self.names, self.replicas)
            .await
            .map_err(BrokerError::Ask)?
        {
            Found::Good(s) => s,
            Found::Missing => {
                return Ok(Start::Waiting(format!(
                    "the event's stream {} does not exist yet: start the hub, which creates it \
                     (docs/cluster.md); the journal keeps everything until then",
                    self.names.stream()
                )));
            }
            Found::Refused(why) => return Ok(Start::Refused(why)),
        };
        let created = super::stream::unix_ms_of(&stream.cached_info().created);
        let (history, last) = super::history::check(&stream, &self.names.events(&self.node))
            .await
            .map_err(BrokerError::Ask)?;
        match history {
            History::Whole(mut pos) => {
                pos.earlier_stream = self.seen.compare(&self.names.stream(), created, pos.batch);
                if let Some(earlier) = pos.earlier_stream {
                    tracing::warn!(
                        earlier,
                        created,
                        "cluster: the event's stream was made anew since this node published \
                         into it (a broker lost its store, or it was removed): publishing the \
                         whole journal again, telling the hubs"
                    );
                }
                // Undecodable (a later version's form): the steps alone are compared.
                let last = last.and_then(|p| NodeBatch::decode(&p).ok());
                Ok(Start::At(pos, last.map(Box::new)))
            }
            History::Damaged(why) => Ok(Start::Refused(why)),
        }
    }

    /// Publishes one message as the next of the node's chain and waits for the broker to
    /// store it; the new end of the chain.
    async fn publish(
        &self,
        js: &jetstream::Context,
        at: Position,
        batch: &NodeBatch,
    ) -> Result<Position, BrokerError> {
        let payload = batch.encode()?;
        let headers = at.next_headers(&self.names.stream(), batch.to_step);
        let ack = js
            .publish_with_headers(self.names.events(&self.node), headers, payload.into())
            .await
            .map_err(|e| BrokerError::Publish(e.to_string()))?;
        match tokio::time::timeout(PUBLISH_ACK_TIMEOUT, ack).await {
            Ok(Ok(ack)) if ack.duplicate => Err(BrokerError::Duplicate(batch.to_step)),
            Ok(Ok(ack)) => Ok(at.after(batch.to_step, ack.sequence)),
            Ok(Err(e)) if e.kind() == PublishErrorKind::WrongLastSequence => {
                Err(BrokerError::NotNext)
            }
            Ok(Err(e)) => Err(BrokerError::Publish(e.to_string())),
            Err(_) => Err(BrokerError::AckTimeout),
        }
    }
}

/// Reads the journal from the last published step and publishes, in order, forever.
async fn publish_loop(
    p: Publisher,
    mut wake: broadcast::Receiver<dgt_core::Event>,
    stop: CancellationToken,
) {
    let js = jetstream::new(p.client.clone());
    let mut journal = None;
    let mut held: Option<Position> = None;
    let mut failures: u32 = 0;
    let mut checked_at = std::time::Instant::now();
    let mut last_sent: Option<std::time::Instant> = None;
    loop {
        if held.is_some() && checked_at.elapsed() >= RECHECK_EVERY {
            held = None;
        }
        if p.shared.alarm().is_some() {
            // Stopped for good: only a person can tell what took this node's place.
            if pause(&stop, STALE_RECHECK).await {
                return;
            }
            continue;
        }
        if journal.is_none() {
            match Journal::open_read_only(&p.journal_path) {
                Ok(j) => journal = Some(j),
                Err(e) => {
                    tracing::error!("cluster: cannot read the journal: {e}");
                    if pause(&stop, Duration::from_secs(1)).await {
                        return;
                    }
                    continue;
                }
            }
        }
        // The journal is compared with the stream only when the broker was just asked.
        let fresh = held.is_none();
        if fresh {
            checked_at = std::time::Instant::now();
        }
        // The node's last message on the stream, when the broker was just asked: it must be
        // this journal's own.
        let mut stream_last = None;
        let at = match held {
            Some(s) => s,
            None => match p.start_position(&js).await {
                Ok(Start::At(pos, last)) => {
                    stream_last = last;
                    if failures > 0 {
                        tracing::info!(step = pos.step, "cluster: the broker is back; resuming");
                    }
                    if pos.step < p.shared.published_step.load(Ordering::Acquire) {
                        tracing::warn!(
                            held = pos.step,
                            "cluster: the stream holds less of this node than it had \
                             acknowledged (a broker's store was lost or the stream made anew): \
                             publishing the journal again from there"
                        );
                    }
                    failures = 0;
                    held = Some(pos);
                    p.shared.published_step.store(pos.step, Ordering::Release);
                    pos
                }
                Ok(start @ (Start::Refused(_) | Start::Waiting(_))) => {
                    let (why, again) = match start {
                        Start::Waiting(why) => (why, WAITING_RECHECK),
                        Start::Refused(why) => (why, STALE_RECHECK),
                        Start::At(..) => unreachable!("matched above"),
                    };
                    if p.shared.refusal().as_deref() != Some(why.as_str()) {
                        tracing::warn!("cluster: {why}");
                        p.shared.set_refusal(Some(why));
                    }
                    if pause(&stop, again).await {
                        return;
                    }
                    continue;
                }
                Err(e) => {
                    failures += 1;
                    if failures == 1 || failures.is_multiple_of(30) {
                        tracing::warn!(
                            "cluster: the broker is unavailable ({e}); the journal keeps everything for later"
                        );
                    }
                    retry_pause(&stop, failures).await;
                    continue;
                }
            },
        };
        // Gathering: a message no sooner than `publish_every` after the one before. A full
        // message means a backlog (a catch-up after an outage, a journal published again):
        // the next follows at once, as does what is left at a stop.
        if let Some(wait) = last_sent.and_then(|t| p.publish_every.checked_sub(t.elapsed())) {
            pause(&stop, wait).await;
        }
        let from = at.step;
        // Whether the stop came before this read: the daemon commits its last steps before it
        // cancels the link, so only a read begun after the stop is known to see them all. An
        // empty read that began before the stop ends nothing (the steps committed meanwhile
        // would be left for the next start).
        let stopping = stop.is_cancelled();
        let j = journal.take().expect("opened above");
        let batch_events = p.batch_events;
        let (j, last, tail, own) = match tokio::task::spawn_blocking(move || {
            let last = fresh.then(|| j.last_step());
            let t = j.tail(from, batch_events);
            let own = stream_last.map(|b| holds_as_its_own(&j, &b));
            (j, last, t, own)
        })
        .await
        {
            Ok(r) => r,
            Err(_) => return,
        };
        journal = Some(j);
        // The stream holds more of this node than its journal has: another journal runs
        // under an old node name. Its steps would pass for the old journal's next ones, so
        // nothing is sent until the name changes.
        // So does a stream whose last message from this node is not this journal's records
        // (another journal that has grown past the old one's steps).
        let stale = match (last, own) {
            (Some(Ok(last)), _) if last < from => Some(format!("this journal ends at step {last}")),
            (_, Some(false)) => Some(format!(
                "its last message (to step {from}) is not this journal's steps"
            )),
            _ => None,
        };
        if let Some(what) = stale {
            let why = format!(
                "the event's stream holds steps up to {from} from node {} but {what}: another \
                 journal runs under an old node name. Give this PC a new [cluster] node name \
                 (docs/cluster.md); nothing is published until then",
                p.node
            );
            if p.shared.refusal().as_deref() != Some(why.as_str()) {
                tracing::error!("cluster: {why}");
                p.shared.set_refusal(Some(why));
            }
            held = None;
            if pause(&stop, STALE_RECHECK).await {
                return;
            }
            continue;
        }
        if held.is_some() && p.shared.refusal().is_some() {
            tracing::info!("cluster: the stream and the journal agree again; publishing");
            p.shared.set_refusal(None);
        }
        let tail = match tail {
            Ok(t) => t,
            Err(e) => {
                tracing::error!("cluster: reading the journal: {e}");
                journal = None;
                if pause(&stop, Duration::from_secs(1)).await {
                    return;
                }
                continue;
            }
        };
        if tail.records.is_empty() {
            if stopping {
                return;
            }
            tokio::select! {
                _ = stop.cancelled() => {}
                woke = wake.recv() => {
                    // The daemon's core has stopped: only the poll wakes us now.
                    if matches!(woke, Err(broadcast::error::RecvError::Closed)) {
                        tokio::time::sleep(IDLE_POLL).await;
                    }
                }
                _ = tokio::time::sleep(IDLE_POLL) => {}
            }
            continue;
        }
        let (clock_unix_ms, to_step, records) = p.one_session(tail);
        let batch = NodeBatch {
            node: p.node.clone(),
            from_step: from,
            to_step,
            clock_unix_ms,
            records,
        };
        match p.publish(&js, at, &batch).await {
            Ok(next) => {
                held = Some(next);
                last_sent = (batch.records.len() < batch_events).then(std::time::Instant::now);
                p.shared
                    .published_step
                    .store(batch.to_step, Ordering::Release);
            }
            Err(BrokerError::Duplicate(step)) => {
                let why = format!(
                    "the broker answered `duplicate` for this node's step {step}: something \
                     else holds its place on the stream, so publishing stopped. Fix: check the \
                     stream and the broker's users (docs/cluster.md), then restart this node"
                );
                tracing::error!("cluster: {why}");
                if let Ok(mut a) = p.shared.alarm.lock() {
                    *a = Some(why);
                }
                held = None;
            }
            Err(BrokerError::NotNext) => {
                // A replayed or retried publish was stored first, or the stream is new: the
                // broker says where the chain ends, and publishing goes on from there.
                tracing::info!(
                    step = from,
                    "cluster: the stream's end moved; asking the broker where this node's messages end"
                );
                held = None;
            }
            Err(e) => {
                // Stored or not, the broker is asked again before anything else is sent.
                held = None;
                failures += 1;
                if failures == 1 {
                    tracing::warn!(
                        "cluster: publishing failed ({e}); will resume from the broker's last step"
                    );
                }
                retry_pause(&stop, failures).await;
            }
        }
    }
}

/// Whether the journal holds `message` (a message of this node read back from the stream) as
/// its own: the same records from the same step on. A journal that does not reach that far
/// yet is judged by its steps alone (the caller compares them).
fn holds_as_its_own(journal: &Journal, message: &NodeBatch) -> bool {
    let Ok(tail) = journal.tail(message.from_step, message.records.len().max(1)) else {
        return true;
    };
    if tail.to_step < message.to_step {
        return true;
    }
    let mine: Vec<Record> = tail.records.into_iter().filter_map(record).collect();
    mine.len() >= message.records.len() && mine[..message.records.len()] == message.records[..]
}

fn record(r: TailRecord) -> Option<Record> {
    match r {
        TailRecord::Event { json, seq, .. } => match serde_json::from_str(&json) {
            Ok(e) => Some(Record::Event(Box::new(e))),
            Err(e) => {
                tracing::error!(seq, "cluster: a journaled event does not read back: {e}");
                None
            }
        },
        TailRecord::Ack {
            alert, board, t_ms, ..
        } => Some(Record::Ack { alert, board, t_ms }),
    }
}

fn backoff(failures: u32) -> Duration {
    Duration::from_millis((100u64 << failures.min(5)).min(2_000))
}

/// Sleeps, or returns true at once when asked to stop.
/// The wait before trying the broker again. While the daemon stops, the publisher keeps
/// trying at a short pace: `NodeLink::shutdown` bounds how long, and what the broker did
/// not take by then goes at the next start.
async fn retry_pause(stop: &CancellationToken, failures: u32) {
    if stop.is_cancelled() || pause(stop, backoff(failures)).await {
        tokio::time::sleep(STOPPING_RETRY).await;
    }
}

async fn pause(stop: &CancellationToken, d: Duration) -> bool {
    tokio::select! {
        _ = stop.cancelled() => true,
        _ = tokio::time::sleep(d) => false,
    }
}

/// Events told together on the live subject at most (one small message each).
const PREVIEW_EVENTS: usize = 64;

/// Tells the hubs each event as soon as the journal has committed it, on the node's live
/// subject ([`Preview`]: core NATS, not stored), what was released together in one message.
/// The stream gathers the same events for `publish_every_ms` and stays the record; this is
/// only the hub dashboards' first sight, so one missed (a broker away, a lagging receiver) is
/// not sent again.
async fn tell_live(
    client: Client,
    subject: String,
    node: String,
    clock_unix_ms: u64,
    mut released: broadcast::Receiver<dgt_core::Event>,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    loop {
        let first = tokio::select! {
            _ = stop.cancelled() => return,
            e = released.recv() => match e {
                Ok(e) => e,
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            },
        };
        let mut events = vec![first];
        while events.len() < PREVIEW_EVENTS {
            match released.try_recv() {
                Ok(e) => events.push(e),
                Err(_) => break,
            }
        }
        // While publishing to the stream is stopped or refused (another journal under this
        // name, a stream that is not the event's record) nothing is told: the hub would show
        // what the record will not hold.
        if shared.alarm().is_some() || shared.refusal().is_some() {
            continue;
        }
        let preview = Preview {
            node: node.clone(),
            clock_unix_ms,
            events,
        };
        if let Ok(payload) = serde_json::to_vec(&preview) {
            let _ = client.publish(subject.clone(), payload.into()).await;
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn heartbeat_loop(
    client: Client,
    names: Names,
    node: String,
    every: Duration,
    writer: Arc<JournalWriter>,
    alerts: AlertBook,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let subject = names.heartbeat(&node);
    let mut tick = tokio::time::interval(every);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let health = writer.health();
        let problem = shared.problem();
        let beat = Heartbeat {
            node: node.clone(),
            unix_ms: unix_ms(),
            last_seq: writer.committed_seq(),
            published_step: shared.published_step.load(Ordering::Acquire),
            boards: alerts.boards(),
            healthy: health.failure.is_none() && health.dropped_batches == 0 && problem.is_none(),
            problem_kind: problem.as_ref().map(|p| p.0.clone()),
            problem: problem.map(|p| p.1),
            version: env!("CARGO_PKG_VERSION").to_string(),
        };
        if let Ok(payload) = serde_json::to_vec(&beat) {
            // Core NATS, not stored: a lost beat is only a late one.
            let _ = client.publish(subject.clone(), payload.into()).await;
        }
    }
}

/// Answers the hub's actions, each once it is journaled.
async fn answer_actions(
    client: Client,
    subject: String,
    parts: NodeParts,
    stop: CancellationToken,
) {
    let mut requests = loop {
        match client.subscribe(subject.clone()).await {
            Ok(s) => break s,
            Err(e) => {
                tracing::warn!("cluster: cannot take actions from the hub yet: {e}");
                if pause(&stop, Duration::from_secs(1)).await {
                    return;
                }
            }
        }
    };
    loop {
        let msg = tokio::select! {
            _ = stop.cancelled() => return,
            m = requests.next() => match m { Some(m) => m, None => return },
        };
        let Some(reply_to) = msg.reply.clone() else {
            continue;
        };
        let reply = match serde_json::from_slice::<ActionRequest>(&msg.payload) {
            Ok(req) => act(&parts, req).await,
            Err(e) => refuse(format!("not an action: {e}")),
        };
        if let Ok(payload) = serde_json::to_vec(&reply) {
            let _ = client.publish(reply_to, payload.into()).await;
        }
    }
}

fn refuse(why: String) -> ActionReply {
    ActionReply {
        ok: false,
        error: Some(why),
        refused: true,
    }
}

/// One action from the hub: checked as the node's own REST API checks it, handed to the
/// core, flushed to the journal, then answered.
async fn act(parts: &NodeParts, req: ActionRequest) -> ActionReply {
    match &req.op {
        Operation::Ack(id) | Operation::Confirm(id) => match parts.alerts.alert(*id) {
            None => return refuse(format!("no alert {id} on this node")),
            Some((board, _)) if board != req.board => {
                return refuse(format!("alert {id} is on board {board}, not {}", req.board));
            }
            Some((_, kind)) => {
                if matches!(req.op, Operation::Confirm(_)) && kind != AlertKind::TwoHandedMove {
                    return refuse(format!(
                        "alert {id} is not a two_handed_move alert: only those can be confirmed"
                    ));
                }
            }
        },
        _ => {
            if !parts.alerts.boards().contains(&req.board) {
                return refuse(format!("no board {} on this node", req.board));
            }
        }
    }
    if parts
        .daemon
        .send_op_handled(&req.board, req.op.clone())
        .await
        .is_err()
    {
        return ActionReply {
            ok: false,
            error: Some("the node is stopping".into()),
            refused: false,
        };
    }
    let writer = parts.writer.clone();
    let journaled = tokio::task::spawn_blocking(move || writer.flush(Duration::from_secs(5)))
        .await
        .unwrap_or(false);
    if !journaled {
        return ActionReply {
            ok: false,
            error: Some("the node's journal did not confirm the action".into()),
            refused: false,
        };
    }
    if let Operation::Ack(id) = req.op {
        parts.alerts.record_ack(id);
    }
    ActionReply {
        ok: true,
        error: None,
        refused: false,
    }
}
