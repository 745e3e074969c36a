//! `dgt-arbiter hub`: no boards of its own; it reads the event's stream from its start and
//! serves the dashboard, `/ws` (with resume), REST, `/health`, `/metrics`, the delayed public
//! feed and the broadcast folders for every node of the event (contract §5).
//!
//! The hub's view comes from the stream alone ([`view`]): a restarted hub, or a second one,
//! rebuilds the same view with the same numbers. What the hub itself decides — that a node
//! went silent or came back, that the arbiter acknowledged one of those alerts — it also
//! writes into the stream before acting on it, so that every hub agrees.
//!
//! Arbiter actions on a node's boards go to that node by request/reply and are answered
//! only once the node has journaled them ([`HubActions`]).

pub mod checkpoint;
pub mod local;
mod probe;
pub mod reader;
pub mod recent;
mod remade;
mod saving;
pub mod sign_in;
mod status;
pub mod view;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_nats::jetstream;
use async_nats::{Client, HeaderMap};
use dgt_core::{Event, Operation};
use dgt_server::{ActionError, ActionSink, AlertBook, Previews, Server};
use futures_util::StreamExt;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use self::local::LocalAlerts;
use self::reader::{ReaderStats, Stored, StreamReader};
use self::recent::RecentEvents;
use self::status::HubStatus;
use self::view::{Applied, HubView};
use super::connect::LinkHealth;
use super::history::{EXPECTED_STREAM, EXPECTED_SUBJECT_SEQ};
use super::wire::{ActionReply, ActionRequest, Heartbeat, HubRecord, NodeBatch, Preview, unix_ms};
use super::{HUB_TOKEN, Names};
use crate::settings::{ClusterSettings, Settings};

/// Events in flight between the stream reader and the hub's server.
const EVENT_CAPACITY: usize = 65_536;

/// What the hub knows of a node besides the stream: its last heartbeat.
#[derive(Debug, Clone)]
struct Liveness {
    heard: Instant,
    beat: Heartbeat,
}

/// Shared between the stream reader, the heartbeat listener, the action sink and `/health`.
struct HubState {
    view: HubView,
    live: BTreeMap<String, Liveness>,
    /// The state last written to the stream for a node and when (not written again before
    /// the stream shows it, or a few seconds passed).
    asked: BTreeMap<String, (bool, Instant)>,
    /// Acks read from the stream before the server had the alert (it learns events through
    /// a channel): tried again until it has.
    pending_acks: Vec<u64>,
    /// The last stream sequence applied, and what the reader went through.
    stream_position: u64,
    reader: ReaderStats,
    /// The stream sequence of the last hub record applied: the hub's next record is stored
    /// only if it is still the last (so two hubs never write the same change twice, and a
    /// hub whose view is behind writes nothing).
    hub_subject_seq: u64,
    /// What the client meets on its link (credentials, certificates).
    link: Arc<LinkHealth>,
    /// The last time the broker answered the hub's probe, and the stream's last sequence it
    /// gave.
    probe_ok_at: Option<Instant>,
    stream_last: u64,
    /// When the hub's view last moved (or was last known to be at the stream's end).
    view_moved_at: Instant,
    connected: bool,
    /// Since when the hub has been able to hear heartbeats: its start, or the moment it
    /// found the broker again. Silence shorter than an offline period since then proves
    /// nothing about a node.
    listening_since: Instant,
    /// When the hub found itself cut off from the broker (None while connected).
    lost_since: Option<Instant>,
    /// The hub's alerts about itself (no seq: see [`local`]).
    local: LocalAlerts,
    /// Whether the stream read now has told that it was made anew (see [`remade`]).
    remade_told: bool,
    /// Nodes the broker refused to sign in, as it reported (see [`sign_in`]).
    refusals: sign_in::Refusals,
    /// The link of the listener of the broker's sign-in reports, when it is configured.
    events_link: Option<Arc<LinkHealth>>,
    /// The hub's checkpoint: restored, ignored, last saved (see [`saving`]).
    checkpoint: saving::CheckpointStatus,
}

type Shared = Arc<Mutex<HubState>>;

fn lock(s: &Shared) -> MutexGuard<'_, HubState> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why the hub did not start.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("the hub needs a [cluster] table: nats, event and credentials")]
    NoCluster,
    #[error("{0}")]
    Connect(#[from] super::connect::ConnectError),
    #[error("the event's stream {stream}: {detail}")]
    EventStream { stream: String, detail: String },
    #[error("{0}")]
    Stream(#[from] reader::StreamError),
    #[error("{0}")]
    Config(#[from] crate::server_config::ServerConfigError),
    #[error("{0}")]
    Broadcast(#[from] crate::output::BroadcastDirError),
    #[error("{0}")]
    Serve(#[from] dgt_server::ServeError),
    #[error("the server's views from the checkpoint: {0}")]
    Views(#[from] dgt_server::ViewsError),
}

/// Why a hub record was not stored (the broker's own words).
#[derive(Debug, thiserror::Error)]
enum PublishError {
    #[error("{0}")]
    Encode(#[from] serde_json::Error),
    #[error("{0}")]
    Broker(String),
    #[error("the broker did not acknowledge in time")]
    NoAck,
    /// Another hub recorded something first (or this hub's view is behind): not stored.
    #[error("another hub's record came first")]
    NotNext,
    /// The broker answered `duplicate`: never expected (hub records carry no message id).
    #[error("the broker answered `duplicate` for a new hub record")]
    Duplicate,
}

/// How long a starting hub waits for a broker that does not answer about the stream yet.
const STREAM_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// A running hub.
pub struct Hub {
    addr: SocketAddr,
    stop: CancellationToken,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    server: tokio::task::JoinHandle<Result<(), dgt_server::ServeError>>,
}

impl Hub {
    /// Connects, reads the stream up to its current end, then serves and follows it.
    pub async fn start(settings: &Settings) -> Result<Hub, HubError> {
        match Hub::start_with(settings, None).await {
            Err(HubError::Views(e)) => {
                // Views the server cannot take (other `[[tables]]`): everything from the
                // stream instead, as without a checkpoint.
                let why = format!("the views or broadcast books in it: {e}");
                tracing::warn!("hub: checkpoint ignored: {why}; reading the stream from its start");
                Hub::start_with(settings, Some(why)).await
            }
            r => r,
        }
    }

    /// `ignored`: the checkpoint was found unusable already (it is not read again).
    async fn start_with(settings: &Settings, ignored: Option<String>) -> Result<Hub, HubError> {
        let cluster = settings.cluster.clone().ok_or(HubError::NoCluster)?;
        let names = Names::new(&cluster.event);
        let link = Arc::new(LinkHealth::default());
        let client =
            super::connect::connect_reporting(&cluster, hub_name(&cluster), link.clone()).await?;
        let js = jetstream::new(client.clone());
        super::stream::ensure(&js, &names, cluster.replicas, STREAM_PATIENCE)
            .await
            .map_err(|detail| HubError::EventStream {
                stream: names.stream(),
                detail,
            })?;
        let mut reader = StreamReader::new(js.clone(), names.clone(), cluster.replicas);
        let now = reader::stream_state(js.clone(), names.stream()).await?;
        let end = now.last;
        let stream = checkpoint::StreamIdentity {
            name: names.stream(),
            created_unix_ms: now.created,
        };
        // A hub that writes broadcast folders keeps the writer's books (games, rounds) in its
        // checkpoint: one saved without them cannot start it.
        let writes_folders = settings.journal.writes_broadcast_folders();
        let checkpoint_path = cluster.hub_checkpoint_path();
        let mut checkpoint_status = saving::CheckpointStatus {
            path: checkpoint_path.clone(),
            ignored: ignored.clone(),
            ..Default::default()
        };
        let usable = checkpoint_path.as_deref().filter(|_| ignored.is_none());
        let restored = usable.and_then(|path| {
            let expected = checkpoint::Expected {
                stream: &stream,
                last: end,
                round_nodes: &cluster.round_nodes,
                books: writes_folders,
            };
            saving::load(path, &expected, &mut checkpoint_status)
        });
        let shared: Shared = Arc::new(Mutex::new(HubState {
            view: HubView::new(cluster.round_nodes.clone()),
            live: BTreeMap::new(),
            asked: BTreeMap::new(),
            pending_acks: Vec::new(),
            stream_position: 0,
            reader: ReaderStats::default(),
            hub_subject_seq: 0,
            link,
            probe_ok_at: Some(Instant::now()),
            stream_last: end,
            view_moved_at: Instant::now(),
            connected: true,
            listening_since: Instant::now(),
            lost_since: None,
            local: LocalAlerts::default(),
            remade_told: false,
            refusals: sign_in::Refusals::default(),
            events_link: None,
            checkpoint: checkpoint_status,
        }));
        let (mut views, mut books) = (None, None);
        if let Some(c) = restored {
            let position = c.saved.position;
            views = Some((c.saved.views_seq, c.views));
            books = c.books;
            let stats = saving::restore(&mut lock(&shared), c.saved);
            reader.resume(position, stream.created_unix_ms, stats);
        }
        // The stream up to its end now (after the checkpoint) is the history the server
        // starts from.
        let mut history = Vec::new();
        let mut acks = Vec::new();
        let read_started = Instant::now();
        let read_from = reader.position();
        while reader.position() < end {
            let msg = reader.next().await;
            lock(&shared).reader = reader.stats;
            let applied = apply_message(&names, &shared, &msg);
            history.extend(applied.events);
            acks.extend(applied.acks);
            // Where the view is: `/health` and the stall probe compare it with the stream's
            // end, and the checkpoint saves from it.
            lock(&shared).stream_position = msg.sequence;
        }
        tracing::info!(
            messages = end - read_from,
            from = read_from,
            events = history.len(),
            ms = read_started.elapsed().as_millis() as u64,
            "hub: the event's stream read"
        );
        let config = crate::server_config::server_config(settings)?;
        let clock = crate::edge::daemon::DaemonClock::start_at(unix_ms());
        let mut broadcast_writer = crate::output::BroadcastWriter::new(settings)?;
        if let (Some(writer), Some(bytes)) = (&mut broadcast_writer, &books) {
            // Books the writer cannot take (other `[[tables]]`): the start is made again
            // without the checkpoint, as for the server's views.
            let seq = writer.restore(bytes)?;
            tracing::info!(seq, "hub: broadcast books restored from its checkpoint");
        }
        // Twice the broadcast channel below: a server that falls behind it catches up
        // from here (a daemon reads its journal instead).
        let recent = Arc::new(RecentEvents::new(2 * EVENT_CAPACITY));
        for e in &history {
            recent.keep(e);
        }
        // The history is copied for the broadcast writer only when there is one: on a hub
        // reading a whole event it is millions of events.
        let writer_history = match &broadcast_writer {
            Some(_) => history.clone(),
            None => Vec::new(),
        };
        let mut server = Server::bind(config).await?;
        if let Some((seq, bytes)) = views {
            server = saving::with_views(server, seq, bytes)?;
        }
        let server = server
            .with_event_source(recent.clone())
            .with_history(history)
            .with_acks(acks)
            .with_status(Arc::new(HubStatus {
                shared: shared.clone(),
                offline_after: Duration::from_millis(cluster.offline_after_ms),
            }))
            .with_action_sink(Arc::new(HubActions {
                client: client.clone(),
                js: js.clone(),
                names: names.clone(),
                shared: shared.clone(),
                timeout: Duration::from_millis(cluster.request_timeout_ms),
            }));
        let addr = server.local_addr();
        let book = server.alert_book();
        let previews = server.previews();
        let saver = checkpoint_path.map(|path| {
            saving::Saver::new(
                path,
                Duration::from_secs(cluster.hub_checkpoint_every_s),
                stream,
                server.views_tap(),
                broadcast_writer.as_mut().map(|w| w.books_tap()),
            )
        });
        let stop = CancellationToken::new();
        let (events, _) = broadcast::channel(EVENT_CAPACITY);
        // The hub takes no input of its own: actions go to the sink.
        let (ops, _ops_rx) = mpsc::channel(1);
        let server_stop = stop.clone();
        let server_task =
            tokio::spawn(server.run(&events, ops, async move { server_stop.cancelled().await }));
        let mut tasks = Vec::new();
        if let Some(writer) = broadcast_writer {
            tasks.push(tokio::spawn(writer.run(
                writer_history,
                events.subscribe(),
                clock,
                Duration::from_secs(1),
                stop.clone(),
            )));
        }
        tasks.push(tokio::spawn(follow(
            js.clone(),
            names.clone(),
            shared.clone(),
            reader,
            Outlet {
                events,
                recent,
                book,
                saver,
            },
            stop.clone(),
        )));
        tasks.push(tokio::spawn(probe::probe(
            js.clone(),
            names.clone(),
            cluster.replicas,
            shared.clone(),
            stop.clone(),
        )));
        tasks.push(tokio::spawn(sign_in::listen(
            cluster.clone(),
            shared.clone(),
            stop.clone(),
        )));
        tasks.push(tokio::spawn(show_previews(
            client.clone(),
            names.clone(),
            shared.clone(),
            previews,
            stop.clone(),
        )));
        tasks.push(tokio::spawn(watch_nodes(
            client,
            js,
            names,
            shared,
            cluster,
            stop.clone(),
        )));
        tracing::info!(%addr, "hub dashboard listening");
        Ok(Hub {
            addr,
            stop,
            tasks,
            server: server_task,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub async fn shutdown(self) {
        self.stop.cancel();
        for t in self.tasks {
            let _ = t.await;
        }
        match self.server.await {
            Ok(Err(e)) => tracing::error!("hub server: {e}"),
            Err(e) => tracing::error!("hub server task: {e}"),
            Ok(Ok(())) => {}
        }
    }
}

fn hub_name(cluster: &ClusterSettings) -> &str {
    if cluster.node.is_empty() {
        "hub"
    } else {
        &cluster.node
    }
}

/// One stream message into the view.
fn apply_message(names: &Names, shared: &Shared, msg: &Stored) -> Applied {
    let (subject, payload) = (msg.subject.as_str(), msg.payload.as_slice());
    let Some(node) = names.node_of(subject) else {
        return Applied::default();
    };
    let mut state = lock(shared);
    if node == HUB_TOKEN {
        state.hub_subject_seq = msg.sequence;
        match serde_json::from_slice::<HubRecord>(payload) {
            Ok(r) => {
                if let HubRecord::StreamRemade {
                    read_up_to,
                    hub_seq,
                    ..
                } = r
                {
                    remade::noticed(&mut state, read_up_to, hub_seq, msg.stored_unix_ms);
                }
                state.view.apply_hub(r, msg.stored_unix_ms)
            }
            Err(e) => {
                tracing::error!(subject, "hub: an unreadable hub record: {e}");
                Applied::default()
            }
        }
    } else {
        if let Some(earlier) = msg.earlier_stream {
            remade::told_by_node(&mut state, node, earlier, msg.stored_unix_ms);
        }
        match NodeBatch::decode(payload) {
            Ok(b) if b.node == node => state.view.apply_batch(b),
            Ok(b) => {
                tracing::error!(subject, claimed = %b.node, "hub: a message names another node than its subject; ignored");
                Applied::default()
            }
            Err(e) => {
                tracing::error!(subject, "hub: an unreadable node message: {e}");
                Applied::default()
            }
        }
    }
}

/// Where the hub's server takes what the stream brings: events, and acks for its alerts.
struct Outlet {
    events: broadcast::Sender<Event>,
    recent: Arc<RecentEvents>,
    book: AlertBook,
    /// Saves the hub's checkpoint, when it keeps one.
    saver: Option<saving::Saver>,
}

/// Follows the stream after the history: events to the server, acks to its alerts.
async fn follow(
    js: jetstream::Context,
    names: Names,
    shared: Shared,
    mut reader: StreamReader,
    out: Outlet,
    stop: CancellationToken,
) {
    let Outlet {
        events,
        recent,
        book,
        mut saver,
    } = out;
    // The reader waits as long as it must (its own time-outs find a lost consumer): it runs
    // on its own, so that the ack retries below never cut one of its waits short.
    let (tx, mut rx) = mpsc::channel(1024);
    let read_stop = stop.clone();
    let read = tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = read_stop.cancelled() => return,
                msg = reader.next() => {
                    if tx.send((msg, reader.stats)).await.is_err() {
                        return;
                    }
                }
            }
        }
    });
    let mut retry = tokio::time::interval(Duration::from_millis(50));
    let every = saver
        .as_ref()
        .map_or(Duration::from_secs(3600), |s| s.every);
    let mut save = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    save.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = retry.tick() => {}
            _ = save.tick() => {
                if let Some(s) = saver.as_mut() {
                    s.make_due();
                }
            }
            msg = rx.recv() => {
                let Some((msg, stats)) = msg else { break };
                {
                    let mut state = lock(&shared);
                    if stats.recreated != state.reader.recreated {
                        // A stream made anew has none of the hub records read so far, and
                        // hubs started later must learn that their numbering differs.
                        state.hub_subject_seq = 0;
                        state.remade_told = false;
                        tokio::spawn(remade::tell(
                            js.clone(),
                            names.clone(),
                            shared.clone(),
                            state.stream_position,
                            state.view.last_seq(),
                        ));
                    }
                    state.reader = stats;
                }
                let applied = apply_message(&names, &shared, &msg);
                // The stream keeps everything: in a catch-up the hub reads it no faster than
                // its server applies it, so the server never falls behind the channel and
                // loses events (nor would a checkpoint save such views).
                while events.len() > EVENT_CAPACITY / 2 && !stop.is_cancelled() {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                for e in applied.events {
                    recent.keep(&e);
                    let _ = events.send(e);
                }
                let mut state = lock(&shared);
                state.pending_acks.extend(applied.acks);
                state.stream_position = msg.sequence;
                state.view_moved_at = Instant::now();
            }
        }
        if let Some(s) = saver.as_mut()
            && s.due(&events)
        {
            s.save(&shared, &events).await;
        }
        let pending = std::mem::take(&mut lock(&shared).pending_acks);
        let mut left = Vec::new();
        for id in pending {
            if book.record_ack(id).is_none() {
                left.push(id);
            }
        }
        // An ack the server still does not know after its alert went out is for an alert it
        // will never have (kept a little while, then dropped).
        if left.len() > 10_000 {
            left.drain(..left.len() - 10_000);
        }
        lock(&shared).pending_acks = left;
    }
    if let Some(s) = saver.as_mut() {
        s.finish().await;
    }
    let _ = read.await;
}

/// Subscribes to `subject`, trying again every second until the hub stops (`None`).
async fn subscribe(
    client: &Client,
    subject: String,
    what: &str,
    stop: &CancellationToken,
) -> Option<async_nats::Subscriber> {
    loop {
        match client.subscribe(subject.clone()).await {
            Ok(s) => return Some(s),
            Err(e) => {
                tracing::warn!("hub: cannot hear {what} yet: {e}");
                tokio::select! {
                    _ = stop.cancelled() => return None,
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        }
    }
}

/// Shows the dashboards that ask (`/ws?preview=1`) what the nodes journal, as they tell it on
/// their live subjects ([`Preview`]), before the stream has numbered it: a node gathers its
/// stream messages for `publish_every_ms`, and this is how the hub's arbiter sees a move
/// within the hub's delay anyway. Nothing here touches the view: the stream stays the
/// record, and an event the view has applied already is not shown again.
async fn show_previews(
    client: Client,
    names: Names,
    shared: Shared,
    previews: Previews,
    stop: CancellationToken,
) {
    let Some(mut live) =
        subscribe(&client, names.all_live(), "the nodes' live events", &stop).await
    else {
        return;
    };
    loop {
        let first = tokio::select! {
            _ = stop.cancelled() => return,
            msg = live.next() => match msg {
                Some(msg) => msg,
                None => return,
            },
        };
        // What the nodes tell within PREVIEW_GATHER goes out together, in one message: every
        // dashboard is then woken once for all of it, not once per event (with a hundred
        // dashboards the wake-ups and messages, not the bytes, are the cost).
        let mut told = vec![first];
        let until = tokio::time::Instant::now() + PREVIEW_GATHER;
        while let Ok(Some(msg)) = tokio::time::timeout_at(until, live.next()).await {
            told.push(msg);
        }
        let told: Vec<Preview> = told
            .iter()
            .filter_map(|msg| {
                // A node tells only its own events (the broker's users let it publish only
                // under its own name).
                let node = names.node_of(&msg.subject).filter(|n| *n != HUB_TOKEN)?;
                let preview = serde_json::from_slice::<Preview>(&msg.payload).ok()?;
                (preview.node == node).then_some(preview)
            })
            .collect();
        let shown: Vec<Event> = {
            let state = lock(&shared);
            told.into_iter()
                .flat_map(|p| {
                    let (node, clock) = (p.node, p.clock_unix_ms);
                    p.events
                        .into_iter()
                        .filter_map(|e| state.view.preview(&node, clock, e))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        previews.send(&shown);
    }
}

/// How long the hub gathers the nodes' live events before showing them (a preview waits at
/// most this long).
const PREVIEW_GATHER: Duration = Duration::from_millis(10);

/// Listens to heartbeats and writes node state changes into the stream.
async fn watch_nodes(
    client: Client,
    js: jetstream::Context,
    names: Names,
    shared: Shared,
    cluster: ClusterSettings,
    stop: CancellationToken,
) {
    let offline_after = Duration::from_millis(cluster.offline_after_ms);
    let Some(mut beats) = subscribe(&client, names.all_heartbeats(), "heartbeats", &stop).await
    else {
        return;
    };
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            beat = beats.next() => match beat {
                Some(msg) => {
                    let from = names.node_of(&msg.subject).map(str::to_string);
                    if let (Some(node), Ok(beat)) = (from, serde_json::from_slice::<Heartbeat>(&msg.payload))
                        && beat.node == node
                    {
                        let mut state = lock(&shared);
                        state.refusals.heard(&node, offline_after);
                        state.live.insert(node, Liveness { heard: Instant::now(), beat });
                    }
                }
                None => return,
            },
            _ = tick.tick() => {}
        }
        let changes = {
            let mut state = lock(&shared);
            state.connected = client.connection_state() == async_nats::connection::State::Connected;
            if !state.connected {
                // Cut off, the hub hears no node at all: their silence says nothing, and
                // a state could not be written anyway.
                state.lost_since.get_or_insert_with(Instant::now);
                continue;
            }
            if state.lost_since.take().is_some() {
                state.listening_since = Instant::now();
            }
            // Silence proves something only if the hub's own link was proven to work when
            // the node had already been silent a whole offline period: the broker answered a
            // probe then. A connection that looks open while nothing crosses it (a hung
            // switch) answers no probe, so the hub judges nobody while it is cut off, and
            // nobody in its first offline period after it starts or finds the broker again.
            let probe_ok_at = state.probe_ok_at;
            let listening_since = state.listening_since;
            let mut nodes: Vec<String> = state.view.nodes().keys().cloned().collect();
            nodes.extend(state.live.keys().cloned());
            nodes.sort();
            nodes.dedup();
            let mut changes = Vec::new();
            for node in nodes {
                let last_heard = state.live.get(&node).map(|l| l.heard);
                let heard = last_heard.is_some_and(|t| t.elapsed() < offline_after);
                let silent_since = last_heard.map_or(listening_since, |t| t.max(listening_since));
                let silence_proven = probe_ok_at
                    .is_some_and(|p| p.saturating_duration_since(silent_since) >= offline_after);
                if !heard && !silence_proven {
                    continue;
                }
                let recorded = state.view.nodes().get(&node).and_then(|t| t.online);
                if recorded == Some(heard) {
                    state.asked.remove(&node);
                    continue;
                }
                if recorded.is_none() && !heard {
                    continue;
                }
                if let Some((asked, when)) = state.asked.get(&node)
                    && *asked == heard
                    && when.elapsed() < Duration::from_secs(5)
                {
                    continue;
                }
                state.asked.insert(node.clone(), (heard, Instant::now()));
                changes.push((node, heard, state.hub_subject_seq));
            }
            changes
        };
        for (node, online, after) in changes {
            let record = HubRecord::NodeState {
                node: node.clone(),
                online,
                unix_ms: unix_ms(),
            };
            // Stored only if no hub record came since the last this hub read: two hubs seeing
            // the same change write it once, and a hub behind the stream writes nothing.
            if let Err(e) = publish_hub_record(&js, &names, &record, after).await {
                if matches!(e, PublishError::NotNext) {
                    tracing::info!(%node, online, "hub: another hub recorded first; reading it");
                    lock(&shared).asked.remove(&node);
                } else {
                    tracing::warn!(%node, online, "hub: cannot record a node's state: {e}");
                }
            } else if online {
                tracing::info!(%node, "hub: node online");
            } else {
                tracing::warn!(%node, "hub: node offline");
            }
        }
    }
}

/// Stores one hub record, only if the last hub record on the stream is still `after` (the
/// stream sequence of the last one this hub read).
async fn publish_hub_record(
    js: &jetstream::Context,
    names: &Names,
    record: &HubRecord,
    after: u64,
) -> Result<(), PublishError> {
    let payload = serde_json::to_vec(record)?;
    let mut headers = HeaderMap::new();
    headers.insert(EXPECTED_STREAM, names.stream().as_str());
    headers.insert(EXPECTED_SUBJECT_SEQ, after.to_string().as_str());
    let ack = js
        .publish_with_headers(names.events(HUB_TOKEN), headers, payload.into())
        .await
        .map_err(|e| PublishError::Broker(e.to_string()))?;
    match tokio::time::timeout(Duration::from_secs(2), ack)
        .await
        .map_err(|_| PublishError::NoAck)?
    {
        Ok(ack) if ack.duplicate => {
            tracing::error!("hub: the broker answered `duplicate` for a new hub record");
            Err(PublishError::Duplicate)
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == jetstream::context::PublishErrorKind::WrongLastSequence => {
            Err(PublishError::NotNext)
        }
        Err(e) => Err(PublishError::Broker(e.to_string())),
    }
}

/// Arbiter actions made on the hub, sent to the node that reads the board.
struct HubActions {
    client: Client,
    js: jetstream::Context,
    names: Names,
    shared: Shared,
    timeout: Duration,
}

impl HubActions {
    async fn act_now(&self, board: String, op: Operation) -> Result<(), ActionError> {
        if board == dgt_core::pairing::ROUND_BOARD {
            // The event's rounds are the hub's: the chief's pairings and results are recorded
            // in the stream by the hub itself, not sent to a venue PC.
            if view::round_body(op.clone()).is_none() {
                return Err(ActionError::Refused(format!(
                    "board {board} takes only pairings, table results and table games"
                )));
            }
            let record = HubRecord::Round {
                op,
                unix_ms: unix_ms(),
            };
            return self.record(&record).await;
        }
        // Who acknowledged or confirmed an alert: named by the node's own id in its journal.
        let op = match op {
            Operation::By(mut by) => {
                if let Operation::Ack(id) | Operation::Confirm(id) = by.action.as_mut()
                    && let Some(Some((_, local))) = lock(&self.shared).view.owner_of(*id)
                {
                    *id = local;
                }
                Operation::By(by)
            }
            op => op,
        };
        // An alert id on the hub is the hub's seq: the node knows it by its own.
        let owner = match &op {
            Operation::Ack(id) | Operation::Confirm(id) => Some(
                lock(&self.shared)
                    .view
                    .owner_of(*id)
                    .ok_or_else(|| ActionError::Refused(format!("no alert {id}")))?,
            ),
            _ => None,
        };
        if let Some(None) = owner {
            // One of the hub's own alerts (a node's state).
            let Operation::Ack(id) = op else {
                return Err(ActionError::Refused(
                    "only two_handed_move alerts can be confirmed".into(),
                ));
            };
            let record = HubRecord::Ack {
                alert: id,
                unix_ms: unix_ms(),
            };
            return self.record(&record).await;
        }
        let (node, local) = board.split_once('/').ok_or_else(|| {
            ActionError::Refused(format!("no board {board}: hub boards are <node>/<board>"))
        })?;
        let op = match (op, owner) {
            (Operation::Ack(_), Some(Some((owner, id)))) => {
                check_owner(&owner, node)?;
                Operation::Ack(id)
            }
            (Operation::Confirm(_), Some(Some((owner, id)))) => {
                check_owner(&owner, node)?;
                Operation::Confirm(id)
            }
            (op, _) => op,
        };
        let request = ActionRequest {
            board: local.to_string(),
            op,
        };
        let payload =
            serde_json::to_vec(&request).map_err(|e| ActionError::Refused(e.to_string()))?;
        let answer = tokio::time::timeout(
            self.timeout,
            self.client
                .request(self.names.actions(node), payload.into()),
        )
        .await
        .map_err(|_| {
            ActionError::Unavailable(format!(
                "the venue PC {node} did not confirm within {} s; the action may not have \
                 been taken — look at the board before trying again",
                self.timeout.as_secs()
            ))
        })?
        .map_err(|e| {
            ActionError::Unavailable(format!("the venue PC {node} is not reachable: {e}"))
        })?;
        let reply: ActionReply = serde_json::from_slice(&answer.payload).map_err(|e| {
            ActionError::Unavailable(format!("the venue PC {node} answered oddly: {e}"))
        })?;
        match reply {
            ActionReply { ok: true, .. } => Ok(()),
            ActionReply {
                refused: true,
                error,
                ..
            } => Err(ActionError::Refused(error.unwrap_or_default())),
            ActionReply { error, .. } => Err(ActionError::Unavailable(format!(
                "the venue PC {node}: {}",
                error.unwrap_or_default()
            ))),
        }
    }
}

impl HubActions {
    /// Stores one of the hub's records for an arbiter's action. Another hub's record may come
    /// first: this hub waits to read it, then tries again.
    async fn record(&self, record: &HubRecord) -> Result<(), ActionError> {
        let mut tries = 0;
        loop {
            let after = lock(&self.shared).hub_subject_seq;
            match publish_hub_record(&self.js, &self.names, record, after).await {
                Err(PublishError::NotNext) if tries < 10 => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                r => return r.map_err(|e| ActionError::Unavailable(format!("the broker: {e}"))),
            }
        }
    }
}

fn check_owner(owner: &str, node: &str) -> Result<(), ActionError> {
    if owner == node {
        Ok(())
    } else {
        Err(ActionError::Refused(format!(
            "the alert belongs to {owner}, not {node}"
        )))
    }
}

impl ActionSink for HubActions {
    fn act(
        &self,
        board: String,
        op: Operation,
    ) -> Pin<Box<dyn Future<Output = Result<(), ActionError>> + Send + 'static>> {
        let this = HubActions {
            client: self.client.clone(),
            js: self.js.clone(),
            names: self.names.clone(),
            shared: self.shared.clone(),
            timeout: self.timeout,
        };
        Box::pin(async move { this.act_now(board, op).await })
    }
}
