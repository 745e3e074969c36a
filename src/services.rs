//! The whole daemon assembled, as `run` and `demo` start it: the journal (recovered first),
//! the core task, the serial edge and the HTTP server, and their orderly stop.
//!
//! Start-up order matters for "nothing lost":
//! 1. the journal is opened and replayed through a fresh core (`dgt_journal::recover`), so
//!    every board's game is back and the next event continues the journal's `seq`;
//! 2. the server binds its ports (a port in use stops the start here, before any board is
//!    touched) and is given the recovered events and acknowledgements;
//! 3. the server subscribes to the core's events, then the core and the ports start.
//!
//! Stop order: ports (each reports its link down), core (handles what is queued), the
//! journal writer (commits what is queued), the server.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use dgt_journal::view_snapshots::{BROADCAST_VIEWS, SERVER_VIEWS};
use dgt_journal::{Journal, JournalError, JournalWriter, WriterSettings};
use dgt_server::{DecodedViews, Server, StatusSource, ViewsError, ViewsSnapshot};
use serde_json::json;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::edge::daemon::{
    CoreOptions, CoreSummary, Daemon, DaemonClock, InputRecorder, SerialOptions,
};
use crate::edge::metrics::DaemonMetrics;
use crate::server_config::ServerConfigError;
use crate::settings::Settings;

/// What is needed besides the settings.
pub struct ServiceOptions {
    pub serial: SerialOptions,
    /// The journal file; `None` runs without one.
    pub journal: Option<PathBuf>,
    pub recorders: Vec<Box<dyn InputRecorder>>,
    pub print_events: bool,
}

/// A running daemon with its journal and server.
pub struct Services {
    daemon: Daemon,
    journal: Option<Arc<JournalWriter>>,
    server_stop: CancellationToken,
    server_task: JoinHandle<Result<(), dgt_server::ServeError>>,
    broadcast_task: Option<JoinHandle<()>>,
    /// Stores the views snapshots; told to store a last one at the stop.
    views: Option<(CancellationToken, JoinHandle<()>)>,
    addr: SocketAddr,
    livechess: Option<SocketAddr>,
    /// The node's link to the event (`[cluster]`).
    cluster: Option<crate::cluster::node::NodeLink>,
}

/// Why the daemon's services (or the hub's server) did not start.
#[derive(Debug, thiserror::Error)]
pub enum ServicesError {
    #[error("{0}")]
    Config(#[from] ServerConfigError),
    #[error("{0}")]
    Journal(#[from] JournalError),
    #[error("new journal {}: {source}", .path.display())]
    NewJournal { path: PathBuf, source: JournalError },
    #[error(
        "journal {} is damaged and cannot be moved aside ({source}); fix: move it away by hand",
        .path.display()
    )]
    CannotSetAside {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Broadcast(#[from] crate::output::BroadcastDirError),
    #[error("{0}")]
    Serve(#[from] dgt_server::ServeError),
    #[error("{0}")]
    Cluster(#[from] crate::cluster::connect::ConnectError),
    #[error("[cluster] needs the journal: a node publishes what it journaled")]
    ClusterWithoutJournal,
}

/// The journal as the server's source of events it missed (it fell behind the stream).
struct JournalEvents(PathBuf);

impl dgt_server::feed::EventSource for JournalEvents {
    fn events_after(&self, seq: u64) -> Result<Vec<dgt_core::Event>, dgt_server::SourceError> {
        let journal = Journal::open_read_only(&self.0)?;
        journal
            .events_since(seq)?
            .iter()
            .map(|json| serde_json::from_str(json).map_err(Into::into))
            .collect()
    }
}

/// The daemon's state for `/health` and `/metrics`: its counters, and the journal's.
struct DaemonStatus {
    metrics: Arc<DaemonMetrics>,
    journal: Option<JournalStatus>,
    clock: DaemonClock,
    /// The node's link to the event (`[cluster]`).
    cluster: Option<crate::cluster::node::NodeHealth>,
}

impl StatusSource for DaemonStatus {
    fn health(&self) -> serde_json::Value {
        let mut health = match &self.journal {
            Some(j) => j.health(),
            None => json!({ "ok": true, "journal": null }),
        };
        // Where the core's `t_ms` 0 falls in Unix time (ms): `bench` maps event times to
        // the wall clock with it, as a cluster node does for the hub.
        health["clock_epoch_unix_ms"] = json!(unix_ms().saturating_sub(self.clock.now_ms()));
        if let Some(c) = &self.cluster {
            let (ok, detail) = c.status();
            if !ok {
                health["ok"] = json!(false);
            }
            health["cluster"] = detail;
        }
        health
    }

    fn metrics(&self) -> String {
        let mut out = self.metrics.render();
        if let Some(j) = &self.journal {
            out.push_str(&j.metrics());
        }
        out
    }
}

/// The journal's state.
struct JournalStatus {
    writer: Arc<JournalWriter>,
    path: PathBuf,
    /// Something the arbiter must know about the journal (a damaged one set aside).
    notice: Option<String>,
}

impl JournalStatus {
    fn health(&self) -> serde_json::Value {
        let h = self.writer.health();
        let ok = h.failure.is_none() && h.dropped_batches == 0 && self.notice.is_none();
        json!({
            "ok": ok,
            "notice": self.notice,
            "journal": {
                "path": self.path.display().to_string(),
                "committed_seq": self.writer.committed_seq(),
                "pending_batches": h.pending_batches,
                "dropped_batches": h.dropped_batches,
                "failure": h.failure.map(|(kind, message)| json!({"kind": kind, "message": message})),
                "last_commit_us": h.last_commit_us,
                "size_bytes": h.size_bytes,
                "cap": h.cap.name(),
            }
        })
    }

    fn metrics(&self) -> String {
        let h = self.writer.health();
        let mut out = String::new();
        for (name, kind, help, value) in [
            (
                "dgt_journal_committed_batches_total",
                "counter",
                "Batches committed to the journal.",
                h.committed_batches,
            ),
            (
                "dgt_journal_pending_batches",
                "gauge",
                "Batches waiting to be committed (journal lag).",
                h.pending_batches as u64,
            ),
            (
                "dgt_journal_dropped_batches_total",
                "counter",
                "Batches the journal could not keep (memory limit while the disk failed).",
                h.dropped_batches,
            ),
            (
                "dgt_journal_failed_attempts_total",
                "counter",
                "Failed journal writes.",
                h.failed_attempts,
            ),
            (
                "dgt_journal_failing",
                "gauge",
                "1 while journal writes fail.",
                u64::from(h.failure.is_some()),
            ),
            (
                "dgt_journal_last_commit_microseconds",
                "gauge",
                "Duration of the last journal commit.",
                h.last_commit_us,
            ),
        ] {
            out.push_str(&format!(
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n"
            ));
        }
        out
    }
}

impl Services {
    pub async fn start(
        settings: &Settings,
        options: ServiceOptions,
    ) -> Result<Services, ServicesError> {
        let server_config = crate::server_config::server_config(settings)?;
        let mut history = History::default();
        let mut acks = Vec::new();
        let mut recovered_core = None;
        let mut clock = DaemonClock::start();
        let mut writer = None;
        let mut notice = None;
        // The newest views snapshot and the events after it, read before the writer owns
        // the journal.
        let mut views: Option<(Result<DecodedViews, ViewsError>, Vec<dgt_core::Event>)> = None;
        let mut books: Option<(ViewsSnapshot, Vec<dgt_core::Event>)> = None;
        if let Some(path) = &options.journal {
            let (journal, core, report, recovered, read) = match open_and_recover(path, settings) {
                Ok(r) => r,
                // A damaged journal must not keep the boards unwatched: it is kept aside
                // for inspection, untouched, and a new one is started (loudly).
                Err(e @ JournalError::Corrupt { .. }) => {
                    let aside = set_aside(path)?;
                    let text = format!(
                        "The journal {} was damaged ({e}); it was moved to {} untouched and a \
                         new journal was started: games before this restart are not restored.",
                        path.display(),
                        aside.display()
                    );
                    tracing::error!("{text}");
                    notice = Some(text);
                    open_and_recover(path, settings).map_err(|source| {
                        ServicesError::NewJournal {
                            path: path.clone(),
                            source,
                        }
                    })?
                }
                Err(e) => return Err(e.into()),
            };
            // A core restored from a snapshot taken after the last step replays no step.
            if report.steps > 0 || report.from_snapshot.is_some() {
                tracing::info!(
                    journal = %path.display(),
                    from_snapshot = report.from_snapshot,
                    snapshot_refused = report.snapshot_refused,
                    steps = report.steps,
                    events = report.journaled_events,
                    exact = report.is_exact(),
                    next_seq = report.next_seq,
                    ms = report.duration.as_millis() as u64,
                    "games restored from the journal"
                );
                // The core's time continues after the journal's last step.
                clock = DaemonClock::start_at(recovered.last_t_ms + 1);
                history = History {
                    events: recovered.events,
                    complete: recovered.events_complete,
                    journal: Some(path.clone()),
                };
                acks = recovered.acks;
            }
            views = read.server;
            books = read.books;
            recovered_core = Some(core);
            writer = Some(Arc::new(JournalWriter::start(
                journal,
                WriterSettings::default(),
            )));
        }
        let mut broadcast = crate::output::BroadcastWriter::new(settings)?;
        // The broadcast books from their snapshot and the events after it, else every event.
        let broadcast_history = match (&mut broadcast, books) {
            (None, _) => Vec::new(),
            (Some(writer), Some((snapshot, after))) => match writer.restore(&snapshot.bytes) {
                Ok(seq) => {
                    tracing::info!(
                        seq,
                        events_after = after.len(),
                        "broadcast books restored from the journal's snapshot"
                    );
                    after
                }
                Err(e) => {
                    tracing::warn!(
                        "the broadcast books snapshot is not used ({e}): they are rebuilt from \
                         every event"
                    );
                    history.whole()?.clone()
                }
            },
            (Some(_), None) => history.whole()?.clone(),
        };
        let server = Server::bind(server_config).await?;
        // The views from the snapshot and the events after it; the whole history when there
        // is none or it is refused (another format, other [[tables]]).
        let history = match views {
            Some((decoded, after)) => {
                let tap = server.views_tap();
                match decoded.and_then(|d| {
                    let seq = d.seq();
                    tap.install(d).map(|()| seq)
                }) {
                    Ok(seq) => {
                        tracing::info!(
                            seq,
                            events_after = after.len(),
                            "dashboard views restored from the journal's snapshot"
                        );
                        after
                    }
                    Err(e) => {
                        tracing::warn!(
                            "the views snapshot is not used ({e}): the views are rebuilt from \
                             every event"
                        );
                        history.into_whole()?
                    }
                }
            }
            None => history.into_whole()?,
        };
        let views_tap = server.views_tap();
        let mut server = server.with_history(history).with_acks(acks);
        let metrics = Arc::new(DaemonMetrics::default());
        let journal_status = match (&writer, &options.journal) {
            (Some(w), Some(path)) => Some(JournalStatus {
                writer: w.clone(),
                path: path.clone(),
                notice,
            }),
            _ => None,
        };
        if let (Some(_), Some(path)) = (&writer, &options.journal) {
            server = server.with_event_source(Arc::new(JournalEvents(path.clone())));
        }
        let node_health = settings
            .cluster
            .as_ref()
            .map(|_| crate::cluster::node::NodeHealth::default());
        server = server.with_status(Arc::new(DaemonStatus {
            metrics: metrics.clone(),
            journal: journal_status,
            clock,
            cluster: node_health.clone(),
        }));
        if let (Some(_), Some(path)) = (&writer, &options.journal) {
            server = server.with_board_log(Arc::new(crate::board_log::JournalBoardLog {
                path: path.clone(),
            }));
        }
        let addr = server.local_addr();
        let livechess = server.livechess_addr();
        let alert_book = server.alert_book();
        let server_stop = CancellationToken::new();
        let stop = server_stop.clone();
        let (daemon, (server_future, broadcast_events)) = Daemon::start_with(
            CoreOptions {
                core: settings.core.clone(),
                recovered: recovered_core,
                journal: writer.clone(),
                metrics,
                recorders: options.recorders,
                print_events: options.print_events,
                snapshot_every_ms: Some(settings.journal.snapshot_every_s.saturating_mul(1000)),
                ..Default::default()
            },
            options.serial,
            clock,
            |handle| {
                (
                    server.run(handle.events(), handle.inputs(), stop.cancelled_owned()),
                    handle.subscribe(),
                )
            },
        );
        let server_task = tokio::spawn(server_future);
        let views = match (&writer, &options.journal) {
            (Some(w), Some(path)) if settings.journal.view_snapshot_s > 0 => {
                let stop = CancellationToken::new();
                let keeper =
                    crate::view_snapshots::ViewsKeeper::new(views_tap, w.clone(), path.clone());
                let every = Duration::from_secs(settings.journal.view_snapshot_s);
                Some((stop.clone(), tokio::spawn(keeper.run(every, stop))))
            }
            _ => None,
        };
        let broadcast = match (broadcast, &writer, &options.journal) {
            (Some(b), Some(w), Some(path)) if settings.journal.view_snapshot_s > 0 => {
                Some(b.with_keeper(crate::output::BooksKeeper {
                    writer: w.clone(),
                    path: path.clone(),
                    every: Duration::from_secs(settings.journal.view_snapshot_s),
                }))
            }
            (b, _, _) => b,
        };
        let broadcast_task = broadcast.map(|writer| {
            tokio::spawn(writer.run(
                broadcast_history,
                broadcast_events,
                clock,
                Duration::from_secs(1),
                server_stop.clone(),
            ))
        });
        let cluster = match (&settings.cluster, &writer, &options.journal) {
            (Some(c), Some(w), Some(path)) => Some(
                crate::cluster::node::NodeLink::start(
                    c,
                    crate::cluster::node::NodeParts {
                        journal_path: path.clone(),
                        writer: w.clone(),
                        daemon: daemon.handle().clone(),
                        alerts: alert_book,
                        clock,
                        health: node_health.unwrap_or_default(),
                    },
                )
                .await?,
            ),
            (Some(_), _, _) => return Err(ServicesError::ClusterWithoutJournal),
            _ => None,
        };
        tracing::info!(%addr, "dashboard listening");
        Ok(Services {
            daemon,
            journal: writer,
            server_stop,
            server_task,
            broadcast_task,
            views,
            addr,
            livechess,
            cluster,
        })
    }

    /// The dashboard's address (the port the server really bound).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn livechess_addr(&self) -> Option<SocketAddr> {
        self.livechess
    }

    pub fn daemon(&self) -> &Daemon {
        &self.daemon
    }

    /// Stops everything in order; nothing handled is lost.
    pub async fn shutdown(self) -> CoreSummary {
        let summary = self.daemon.shutdown().await;
        let journal = self.journal;
        if let Some(writer) = &journal
            && !writer.flush(Duration::from_secs(10))
        {
            tracing::error!("the journal could not commit everything before the stop");
        }
        // A last views snapshot, of everything committed: the next start applies nothing
        // more (the keeper lets go of the writer as it ends).
        if let Some((stop, task)) = self.views {
            stop.cancel();
            let _ = task.await;
        }
        // What the journal committed goes to the event's stream before the stop.
        if let Some(link) = self.cluster {
            link.shutdown().await;
        }
        if let Some(writer) = journal {
            match Arc::try_unwrap(writer) {
                Ok(w) => {
                    if !w.flush(Duration::from_secs(10)) {
                        tracing::error!("the journal could not commit everything before the stop");
                    }
                    w.stop();
                }
                Err(w) => {
                    // Still shared (the server's status): flushing is all that matters.
                    if !w.flush(Duration::from_secs(10)) {
                        tracing::error!("the journal could not commit everything before the stop");
                    }
                }
            }
        }
        self.server_stop.cancel();
        if let Some(task) = self.broadcast_task {
            let _ = task.await;
        }
        match self.server_task.await {
            Ok(Err(e)) => tracing::error!("server: {e}"),
            Err(e) => tracing::error!("server task: {e}"),
            Ok(Ok(())) => {}
        }
        summary
    }
}

/// The journal's events for the views, read only when a views snapshot cannot serve: a core
/// restored from its snapshot hands back none of the events before it.
#[derive(Default)]
struct History {
    events: Vec<dgt_core::Event>,
    /// False: `events` lacks those before the core snapshot; read them from `journal`.
    complete: bool,
    journal: Option<PathBuf>,
}

impl History {
    /// Every journaled event (read from the journal the first time when needed).
    fn whole(&mut self) -> Result<&Vec<dgt_core::Event>, ServicesError> {
        if !self.complete {
            if let Some(path) = &self.journal {
                let journal = Journal::open_read_only(path)?;
                self.events = dgt_journal::journaled_events(&journal)?;
            }
            self.complete = true;
        }
        Ok(&self.events)
    }

    fn into_whole(mut self) -> Result<Vec<dgt_core::Event>, ServicesError> {
        self.whole()?;
        Ok(self.events)
    }
}

/// The journal's newest views snapshot of `kind` and the events after it; `None` without one (or
/// when it cannot be read: the whole history serves then).
fn views_and_events_after(
    journal: &Journal,
    kind: &str,
) -> Option<(ViewsSnapshot, Vec<dgt_core::Event>)> {
    let read = || -> Result<Option<(ViewsSnapshot, Vec<dgt_core::Event>)>, String> {
        let Some(stored) = journal
            .newest_view_snapshot(kind)
            .map_err(|e| e.to_string())?
        else {
            return Ok(None);
        };
        let after = journal
            .events_since(stored.seq)
            .map_err(|e| e.to_string())?
            .iter()
            .map(|json| serde_json::from_str(json).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some((
            ViewsSnapshot {
                seq: stored.seq,
                bytes: stored.bytes,
            },
            after,
        )))
    };
    read().unwrap_or_else(|e| {
        tracing::warn!(
            "cannot read the views snapshot ({e}): the views are rebuilt from every event"
        );
        None
    })
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

type Opened = (
    Journal,
    dgt_core::Core,
    dgt_journal::RecoveryReport,
    dgt_journal::Recovered,
    ViewsRead,
);

/// What a restart reads for the views, beside the core's recovery.
#[derive(Default)]
struct ViewsRead {
    /// The server's views decoded from their newest snapshot (or why they cannot be), with
    /// the events after it.
    server: Option<(Result<DecodedViews, ViewsError>, Vec<dgt_core::Event>)>,
    /// The broadcast books' newest snapshot and the events after it.
    books: Option<(ViewsSnapshot, Vec<dgt_core::Event>)>,
}

/// Reads and decodes the newest views snapshots of `journal` (a reader: the writable handle
/// is the recovery's), with the events after them.
fn read_views(journal: &Journal, books: bool) -> ViewsRead {
    ViewsRead {
        server: views_and_events_after(journal, SERVER_VIEWS)
            .map(|(snapshot, after)| (snapshot.decode(), after)),
        books: books
            .then(|| views_and_events_after(journal, BROADCAST_VIEWS))
            .flatten(),
    }
}

fn open_and_recover(path: &Path, settings: &Settings) -> Result<Opened, JournalError> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.exists()
    {
        return Err(JournalError::CannotOpen {
            path: path.to_path_buf(),
            detail: format!("the directory {} does not exist", dir.display()),
        });
    }
    let mut journal = Journal::open(path)?;
    journal.set_segment_rule(settings.journal.segment);
    journal.set_max_size(settings.journal.max_size_mb.saturating_mul(1024 * 1024))?;
    tracing::info!(
        path = %path.display(),
        max_size_mb = settings.journal.max_size_mb,
        "journal size capped"
    );
    // The views are read and decoded on a thread of their own while the core replays the
    // steps after its snapshot: the two read different rows and share nothing until the
    // server starts, and at the end of a long day they take about as long as each other.
    let books = settings.journal.writes_broadcast_folders();
    let views = match journal.reader() {
        Ok(reader) if settings.journal.view_snapshot_s > 0 => Some(
            std::thread::Builder::new()
                .name("views-restore".into())
                .spawn(move || read_views(&reader, books)),
        ),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!(
                "cannot read the views snapshots ({e}): the views are rebuilt from every event"
            );
            None
        }
    };
    let recovered = dgt_journal::recover_collecting(&journal, settings.core.clone());
    let read = match views {
        Some(Ok(thread)) => thread.join().unwrap_or_default(),
        Some(Err(e)) => {
            tracing::warn!("no thread for the views ({e}): they are read after the core");
            read_views(&journal, books)
        }
        None => ViewsRead::default(),
    };
    let (core, report, recovered) = recovered?;
    Ok((journal, core, report, recovered, read))
}

/// Renames a damaged journal (and its WAL and shared-memory files) to
/// `<name>.damaged-<unix seconds>`.
fn set_aside(path: &Path) -> Result<PathBuf, ServicesError> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let with_suffix = |p: &Path, suffix: &str| {
        let mut name = p.as_os_str().to_os_string();
        name.push(suffix);
        PathBuf::from(name)
    };
    let aside = with_suffix(path, &format!(".damaged-{stamp}"));
    std::fs::rename(path, &aside).map_err(|source| ServicesError::CannotSetAside {
        path: path.to_path_buf(),
        source,
    })?;
    for side in ["-wal", "-shm"] {
        let file = with_suffix(path, side);
        if file.exists() {
            let _ = std::fs::rename(&file, with_suffix(&aside, side));
        }
    }
    // The closed segments stay where they are, untouched; their list goes aside with the
    // open segment, so that the new journal starts without them.
    let manifest = dgt_journal::segments::manifest_path(path);
    if manifest.exists() {
        let _ = std::fs::rename(
            &manifest,
            with_suffix(&manifest, &format!(".damaged-{stamp}")),
        );
    }
    Ok(aside)
}
