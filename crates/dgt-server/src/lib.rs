//! The arbiter's dashboard, the event WebSocket, the REST API and the LiveChess-compatible
//! API of dgt-arbiter (contract §4).
//!
//! The server is an edge: it knows no chess rules. It rebuilds its own view of the hall (the
//! [`Hall`]) only from the core's [`Event`]s, and forwards the arbiter's actions to the core
//! as [`Input`]s. The daemon hands it a broadcast of events and an input channel:
//!
//! ```no_run
//! # async fn demo(events: tokio::sync::broadcast::Sender<dgt_core::Event>,
//! #               ops: tokio::sync::mpsc::Sender<dgt_core::Input>) {
//! let config = dgt_server::ServerConfig::default(); // 127.0.0.1:1983
//! dgt_server::serve(config, events, ops, std::future::pending()).await.unwrap();
//! # }
//! ```
//!
//! Endpoints of the dashboard port (default 127.0.0.1:1983):
//!
//! | route | what |
//! |---|---|
//! | `GET /` , `/assets/*` | the dashboard |
//! | `GET /ws[?since=SEQ]` | snapshot (or the events after SEQ), then live events and `alert_ack` |
//! | `GET /ws/public` | delayed moves, clocks, game starts and results; no token |
//! | `GET /api/boards`, `/api/boards/{board}` | boards (with the current game's moves) |
//! | `GET /api/games`, `/api/games/{id}`, `/api/games/{id}/pgn` | games, moves with clocks, PGN |
//! | `GET /api/alerts[?open=true][&board=B]` | alerts |
//! | `POST /api/alerts/{id}/ack` | acknowledge (arbiter token) |
//! | `POST /api/boards/{board}/setup` / `result` / `claim` | actions (arbiter token) |
//! | `GET /api/public/games` | the delayed games; no token |
//! | `GET /health`, `GET /metrics` | JSON health (without a token: `status` only), Prometheus text |
//! | `GET /api/alerts/{id}/report` | an alert's incident report: positions, moves with clocks, who did what |
//! | `GET /api/boards/{board}/replay[?from_ms&to_ms]` | the board's events in a time window, for instant replay |
//! | `GET /signin`, `POST`/`GET`/`DELETE /api/session` | sign in (token → session cookie), who, sign out |
//!
//! Modules, in the order data flows through them:
//! - [`hall`]: the view of boards, games, clocks and alerts rebuilt from events;
//! - [`feed`]: the arbiter feed (hall, resume ring, bounded fan-out);
//! - [`preview`]: first sights of a hub's events, and the numbers that follow them;
//! - [`public`]: the delayed public feed (moves, clocks, results; never alerts);
//! - [`views`]: the views as bytes, restored after a restart instead of the whole history;
//! - [`ws`]: the WebSocket endpoints `/ws` and `/ws/public`;
//! - [`rest`]: `/api/…`, `/health`, `/metrics`;
//! - [`auth`]: tokens, Origin check, the bind rule;
//! - [`origin`]: the `Host` rule (DNS rebinding) and the LiveChess port's Origin lists;
//! - [`listen`]: connection caps (per port and per address), the whole-request deadline,
//!   body limits, descriptors kept for the boards;

//! - [`access`]: arbiter accounts, roles, sections, constant-time comparison;
//! - [`sessions`]: sign-in sessions, bounded per account, closing their sockets as they end;
//! - [`throttle`]: wrong tokens slowed per address;
//! - [`pgn`], [`metrics`]: output formats;
//! - [`livechess`]: the LiveChess 2 API on its own port (default 1982);
//! - [`assets`]: the dashboard (plain HTML/CSS/JS compiled into the binary).

pub mod access;
pub mod api;
pub mod assets;
pub mod auth;
pub mod cockpit;
pub mod feed;
pub mod hall;
pub mod listen;
pub mod livechess;
pub mod livechess_rest;
pub mod livechess_view;
pub mod metrics;
pub mod origin;
pub mod pgn;
pub mod preview;
pub mod public;
pub mod rest;
pub mod rounds;
mod scope;
pub mod sessions;
pub mod throttle;
pub mod views;
pub mod ws;

use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dgt_core::{Event, Input};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc, watch};

pub use hall::Hall;
pub use views::{DecodedViews, ViewsError, ViewsSnapshot, ViewsTap};

/// The LiveChess port when the LiveChess API is enabled without an address.
pub const LIVECHESS_DEFAULT: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 1982);

/// How the server listens and whom it lets in.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The dashboard, `/ws`, REST (default 127.0.0.1:1983).
    pub listen: SocketAddr,
    /// Allows actions (ack, setup, claim, result) and reading. Required beyond loopback.
    pub arbiter_token: Option<String>,
    /// Allows reading only.
    pub viewer_token: Option<String>,
    /// Origins besides the server's own allowed to open `/ws` and POST (`"*"` for any).
    pub allowed_origins: Vec<String>,
    /// How long the public feed holds back moves and clocks.
    pub public_delay_ms: u64,
    /// The LiveChess-compatible API; `None` disables it (see [`LIVECHESS_DEFAULT`]). It has
    /// no authentication (LiveChess clients send none), so it must be a loopback address.
    pub livechess_listen: Option<SocketAddr>,
    /// Recent messages kept for resuming clients.
    pub ring_capacity: usize,
    /// How many messages a client may fall behind before it is resynced.
    pub client_queue: usize,
    /// A client that takes no message for this long is disconnected.
    pub send_timeout_ms: u64,
    /// The PGN `Site` tag.
    pub site: String,
    /// The event's name (PGN `Event`, the LiveChess tournament) when the pairings give none.
    pub event: String,
    /// Which board stands at which table of the pairings (`[[tables]]`).
    pub tables: dgt_pairings::TableMap,
    /// The PGN `TimeControl` of the event ("5400+30"), and of boards that play another.
    pub time_control: Option<String>,
    pub board_time_controls: std::collections::BTreeMap<String, String>,
    /// Host names (besides IP literals and `localhost`) requests may name in `Host`; any
    /// other is refused, which stops DNS rebinding (see [`origin`]).
    pub allowed_hosts: Vec<String>,
    /// Web origins that may read the LiveChess API (the lichess board-play client's
    /// `https://lichess.org` by default).
    pub livechess_origins: Vec<String>,
    /// Web origins that may also `setup` / `flip` boards through it; [`origin::NO_ORIGIN`]
    /// (`"none"`) lets clients that send no Origin (programs, not web pages) act.
    pub livechess_action_origins: Vec<String>,
    /// The LiveChess API may listen beyond loopback, read-only: no Origin may act then,
    /// since a program on the network can send any.
    pub livechess_lan: bool,
    /// Connections the dashboard port holds at once (HTTP and WebSocket together).
    pub max_connections: usize,
    /// Connections the LiveChess port holds at once.
    pub livechess_max_connections: usize,
    /// Connections one client address (an IPv6 client: its /64) holds on the dashboard
    /// port: one machine cannot take the port from the others. Behind a reverse proxy on
    /// the same machine every connection comes from the proxy: raise it to
    /// `max_connections` there.
    pub max_connections_per_address: usize,
    /// The same on the LiveChess port.
    pub livechess_max_connections_per_address: usize,
    /// The largest request body (JSON actions, sign-in); larger is refused (413).
    pub max_body_bytes: usize,
    /// The largest upload (a round's pairing file).
    pub max_upload_bytes: usize,
    /// `/ws/public` clients at once (spectators may not take every connection).
    pub max_public_clients: usize,
    /// `eboardevent` subscriptions one LiveChess client may hold.
    pub livechess_max_subscriptions: usize,
    /// How long a client may take to send a whole request, headers and body, from its
    /// first byte (and how long an idle keep-alive connection is kept); 408 beyond it.
    pub header_timeout_ms: u64,
    /// How long a signed-in browser's session lasts without use; it then ends, and the
    /// WebSockets it opened close.
    pub session_idle_ms: u64,
    /// Public events waiting out the delay at most; beyond it the oldest clock readings
    /// are dropped (a later one replaces them), and a warning is logged.
    pub public_queue_cap: usize,

    /// The parts of the hall (`[[sections]]`): floor arbiters cover some of them.
    pub sections: Vec<access::Section>,
    /// Named arbiter accounts (`[[server.arbiters]]`), each with its own token and role.
    pub arbiters: Vec<access::Account>,
}

impl ServerConfig {
    /// The PGN `TimeControl` of a board's games: its own, else the event's.
    pub fn time_control_of(&self, board: &str) -> Option<&str> {
        self.board_time_controls
            .get(board)
            .or(self.time_control.as_ref())
            .map(String::as_str)
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 1983),
            arbiter_token: None,
            viewer_token: None,
            allowed_origins: Vec::new(),
            public_delay_ms: 15 * 60 * 1000,
            livechess_listen: None,
            ring_capacity: 100_000,
            client_queue: 2048,
            send_timeout_ms: 10_000,
            site: "?".to_string(),
            event: "?".to_string(),
            tables: dgt_pairings::TableMap::default(),
            time_control: None,
            board_time_controls: std::collections::BTreeMap::new(),
            allowed_hosts: Vec::new(),
            livechess_origins: vec!["https://lichess.org".to_string()],
            livechess_action_origins: Vec::new(),
            livechess_lan: false,
            max_connections: 512,
            livechess_max_connections: 64,
            max_connections_per_address: 64,
            livechess_max_connections_per_address: 16,
            max_body_bytes: 64 * 1024,
            max_upload_bytes: 1024 * 1024,
            max_public_clients: 256,
            livechess_max_subscriptions: 64,
            header_timeout_ms: 10_000,
            public_queue_cap: 200_000,
            session_idle_ms: access::SESSION_IDLE.as_millis() as u64,

            sections: Vec::new(),
            arbiters: Vec::new(),
        }
    }
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Listening beyond loopback without an arbiter token (or the LiveChess API beyond
    /// loopback).
    #[error("{0}")]
    Insecure(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}

/// What the daemon around the server reports about itself (the journal, the serial edge):
/// shown in `/health` and appended to `/metrics`.
pub trait StatusSource: Send + Sync {
    /// A JSON object; `"ok": false` in it turns `/health`'s status to `degraded`.
    fn health(&self) -> serde_json::Value;
    /// Prometheus text (with `# HELP`/`# TYPE` lines).
    fn metrics(&self) -> String;
    /// On a hub: every node of the event (`GET /api/nodes`, contract §5); `None` elsewhere.
    fn nodes(&self) -> Option<serde_json::Value> {
        None
    }
}

/// One field update a board sent (protocol §3.3, `0x8E`): the square as the board numbers
/// it (0 = a8 in normal orientation … 63 = h1) and the piece now on it (FEN letter, `None`
/// for empty), at the input's time.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldUpdate {
    pub t_ms: u64,
    pub index: u8,
    pub piece: Option<char>,
}

/// What a board sent, read back from the journal for instant replay. A daemon has it; a hub
/// (which has only the nodes' events) does not.
pub trait BoardLog: Send + Sync {
    /// The field updates `board` sent with `from_ms <= t_ms <= to_ms`, in order.
    fn field_updates(
        &self,
        board: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<FieldUpdate>, SourceError>;
}

/// Why a [`BoardLog`] or an [`feed::EventSource`] could not read: the source's own error
/// (a journal's, in a daemon), boxed because the server does not know the source.
pub type SourceError = Box<dyn std::error::Error + Send + Sync>;

/// Why an action sent elsewhere was not carried out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// The owner refused it (an unknown board or alert, a bad set-up): the arbiter's fault.
    #[error("{0}")]
    Refused(String),
    /// The owner could not be reached or did not confirm in time: try again.
    #[error("{0}")]
    Unavailable(String),
}

/// Where arbiter actions go when the boards are not this process's own: the hub sends each
/// to the node that reads the board, and answers only once that node has journaled it.
pub trait ActionSink: Send + Sync {
    fn act(
        &self,
        board: String,
        op: dgt_core::Operation,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<(), ActionError>> + Send + 'static>>;
}

/// The alerts as this server knows them, for code outside it that takes arbiter actions
/// (a cluster node answering the hub): look an alert up, record its acknowledgement so every
/// dashboard client sees it.
#[derive(Clone)]
pub struct AlertBook(Arc<feed::Feed>);

impl AlertBook {
    /// The alert's board and kind, if it was raised.
    pub fn alert(&self, id: u64) -> Option<(String, dgt_core::AlertKind)> {
        self.0
            .desk()
            .hall
            .alert(id)
            .map(|a| (a.board.clone(), a.alert.kind))
    }

    /// Records an acknowledgement; `None` for an unknown alert.
    pub fn record_ack(&self, id: u64) -> Option<String> {
        self.0.record_ack(id)
    }

    /// Every board the events named, by label.
    pub fn boards(&self) -> Vec<String> {
        self.0.desk().hall.board_labels()
    }
}

/// Where code outside the server hands it first sights of events it will be given numbered
/// later (a hub's previews of its nodes' live events, [`feed::Feed::preview`]).
#[derive(Clone)]
pub struct Previews(Arc<feed::Feed>);

impl Previews {
    /// Sends these first sights, in one message.
    pub fn send(&self, events: &[Event]) {
        self.0.preview(events);
    }
}

/// Shared by every handler.
pub(crate) struct App {
    pub status: Option<Arc<dyn StatusSource>>,
    pub config: ServerConfig,
    pub feed: Arc<feed::Feed>,
    pub public: Arc<public::PublicFeed>,
    pub ops: mpsc::Sender<Input>,
    /// Set on a hub: actions go there instead of `ops`.
    pub actions: Option<Arc<dyn ActionSink>>,
    /// The journal's record of what boards sent (for replay), when there is one.
    pub board_log: Option<Arc<dyn BoardLog>>,
    pub gauges: metrics::Gauges,
    /// The last `/public/round/{n}.pgn` of each round, for `ETag` / `Last-Modified`.
    pub round_pgn: std::sync::Mutex<std::collections::BTreeMap<u32, rounds::CachedPgn>>,
    /// LiveChess `setup` calls waiting for their game (see [`livechess`]).
    pub setups: std::sync::Mutex<std::collections::BTreeMap<String, livechess::PendingSetup>>,
    pub started: Instant,
    pub shutdown: watch::Receiver<bool>,
    /// Places for `/ws/public` clients (`max_public_clients`).
    pub public_slots: Arc<tokio::sync::Semaphore>,

    /// Signed-in browsers.
    pub sessions: access::Sessions,
    /// Wrong tokens by address.
    pub throttle: throttle::Throttle,
}

impl App {
    /// The server's millisecond clock for the inputs it sends (the daemon restamps them).
    pub fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// A server with its ports bound, not yet running: tests learn the ports (bind port 0),
/// the daemon may seed it with the journal's events.
pub struct Server {
    config: ServerConfig,
    listener: TcpListener,
    livechess: Option<TcpListener>,
    history: Vec<Event>,
    acks: Vec<u64>,
    status: Option<Arc<dyn StatusSource>>,
    actions: Option<Arc<dyn ActionSink>>,
    board_log: Option<Arc<dyn BoardLog>>,
    feed: Arc<feed::Feed>,
    public: Arc<public::PublicFeed>,
    arrivals: public::Arrivals,
    events_source: Option<Arc<dyn feed::EventSource>>,
}

impl Server {
    /// Checks the security rules and binds the ports.
    pub async fn bind(config: ServerConfig) -> Result<Server, ServeError> {
        auth::check_bind(config.listen, &config)
            .map_err(|e| ServeError::Insecure(e.to_string()))?;
        if let Some(addr) = config.livechess_listen
            && !addr.ip().is_loopback()
        {
            if !config.livechess_lan {
                return Err(ServeError::Insecure(format!(
                    "refusing to serve the LiveChess API on {addr}: it has no authentication, so \
                     it listens on loopback (127.0.0.1:1982) unless livechess_lan makes it a \
                     read-only API for the venue network"
                )));
            }
            if !config.livechess_action_origins.is_empty() {
                return Err(ServeError::Insecure(format!(
                    "refusing to serve the LiveChess API on {addr} with livechess_action_origins: \
                     beyond loopback any program can send any Origin, so it is read-only"
                )));
            }
        }
        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| ServeError::Bind {
                    addr: config.listen,
                    source,
                })?;
        let livechess = match config.livechess_listen {
            Some(addr) => Some(
                TcpListener::bind(addr)
                    .await
                    .map_err(|source| ServeError::Bind { addr, source })?,
            ),
            None => None,
        };
        let feed = Arc::new(feed::Feed::new(config.ring_capacity, config.client_queue));
        {
            let mut hall = Hall::with_tables(config.tables.clone());
            hall.set_sections(config.sections.clone());
            feed.desk().hall = hall;
        }
        let public = Arc::new(public::PublicFeed::new(
            config.client_queue,
            config.tables.clone(),
        ));
        let arrivals = public::Arrivals::new(config.public_queue_cap);
        Ok(Server {
            config,
            listener,
            livechess,
            history: Vec::new(),
            acks: Vec::new(),
            status: None,
            actions: None,
            board_log: None,
            feed,
            public,
            arrivals,
            events_source: None,
        })
    }

    /// Where events the server missed (it fell behind the stream) are read back from: the
    /// daemon's journal. Without one they are counted as lost.
    pub fn with_event_source(mut self, source: Arc<dyn feed::EventSource>) -> Self {
        self.events_source = Some(source);
        self
    }

    /// The address of the dashboard port.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().unwrap_or(self.config.listen)
    }

    /// The address of the LiveChess port, when enabled.
    pub fn livechess_addr(&self) -> Option<SocketAddr> {
        self.livechess.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// The views of a [`ViewsSnapshot`] in place of empty ones: then only the events after
    /// `snapshot.seq` need [`Server::with_history`] (those up to it are skipped anyway).
    /// A snapshot that does not decode, of another format or of other `[[tables]]`
    /// settings is refused and changes nothing: give the whole history instead.
    pub fn with_views(mut self, snapshot: ViewsSnapshot) -> Result<Self, ViewsError> {
        self.restore_views(snapshot)?;
        Ok(self)
    }

    /// [`Server::with_views`] on a server kept whatever the outcome: on an error it is
    /// unchanged, ready for the whole history (its ports stay bound).
    pub fn restore_views(&mut self, snapshot: ViewsSnapshot) -> Result<(), ViewsError> {
        self.views_tap().restore(snapshot)
    }

    /// A handle that takes snapshots of the views from any task while the server runs.
    pub fn views_tap(&self) -> ViewsTap {
        ViewsTap {
            feed: self.feed.clone(),
            public: self.public.clone(),
            arrivals: self.arrivals.clone(),
            tables: self.config.tables.clone(),
        }
    }

    /// Events that happened before this server started (from the journal), applied first.
    pub fn with_history(mut self, events: impl IntoIterator<Item = Event>) -> Self {
        self.history.extend(events);
        self
    }

    /// Alerts acknowledged before this server started (from the journal), applied after the
    /// history.
    pub fn with_acks(mut self, acks: impl IntoIterator<Item = u64>) -> Self {
        self.acks.extend(acks);
        self
    }

    /// The daemon's own health (journal, serial edge) for `/health` and `/metrics`.
    pub fn with_status(mut self, status: Arc<dyn StatusSource>) -> Self {
        self.status = Some(status);
        self
    }

    /// Sends arbiter actions to `sink` instead of the local core (a hub).
    pub fn with_action_sink(mut self, sink: Arc<dyn ActionSink>) -> Self {
        self.actions = Some(sink);
        self
    }

    /// Field updates from the journal for instant replay.
    pub fn with_board_log(mut self, log: Arc<dyn BoardLog>) -> Self {
        self.board_log = Some(log);
        self
    }

    /// The server's alerts, for actions taken outside its REST API.
    pub fn alert_book(&self) -> AlertBook {
        AlertBook(self.feed.clone())
    }

    /// Where first sights of events go before the events themselves.
    pub fn previews(&self) -> Previews {
        Previews(self.feed.clone())
    }

    /// Serves until `shutdown` completes. Subscribes to `events` before returning the
    /// future, so no event sent after this call is missed.
    pub fn run<S>(
        self,
        events: &broadcast::Sender<Event>,
        ops: mpsc::Sender<Input>,
        shutdown: S,
    ) -> impl Future<Output = Result<(), ServeError>> + Send + 'static + use<S>
    where
        S: Future<Output = ()> + Send + 'static,
    {
        let receiver = events.subscribe();
        let Server {
            config,
            listener,
            livechess,
            history,
            acks,
            status,
            actions,
            board_log,
            feed,
            public,
            arrivals: public_tx,
            events_source,
        } = self;
        async move {
            let (stop_tx, stop_rx) = watch::channel(false);
            let public_rx = public_tx.clone();
            for event in &history {
                feed.publish_then(event, || {
                    if feed::to_public_view(&event.body) {
                        public_tx.send(Instant::now(), event.clone());
                    }
                });
            }
            for id in acks {
                feed.record_ack(id);
            }
            let delay = Duration::from_millis(config.public_delay_ms);
            let public_slots = Arc::new(tokio::sync::Semaphore::new(config.max_public_clients));
            let config_session_idle_ms = config.session_idle_ms;
            let app = Arc::new(App {
                status,
                config,
                feed: feed.clone(),
                public: public.clone(),
                ops,
                actions,
                board_log,
                gauges: metrics::Gauges::default(),
                round_pgn: Default::default(),
                setups: Default::default(),
                started: Instant::now(),
                shutdown: stop_rx.clone(),
                public_slots,

                sessions: access::Sessions::new(
                    Duration::from_millis(config_session_idle_ms),
                    access::MAX_SESSIONS_PER_ACCOUNT,
                ),
                throttle: throttle::Throttle::default(),
            });
            // Sessions idle too long end on time (and their WebSockets with them), not only
            // when next presented.
            let sweeper = {
                let app = app.clone();
                let every = (app.sessions.idle() / 4)
                    .clamp(Duration::from_millis(10), Duration::from_secs(60));
                tokio::spawn(async move {
                    loop {
                        tokio::time::sleep(every).await;
                        app.sessions.expire();
                    }
                })
            };
            let hub = tokio::spawn(feed::run(
                feed,
                receiver,
                move |at, event| public_tx.send(at, event),
                events_source,
            ));
            let delayer = tokio::spawn(public::run(public, public_rx, delay));
            tokio::spawn(async move {
                shutdown.await;
                let _ = stop_tx.send(true);
            });

            // Both ports' caps stay below the descriptor limit, with room for the boards.
            let (dashboard_cap, livechess_cap) = listen::fit_to_fd_limit(
                (
                    app.config.max_connections,
                    app.config.livechess_max_connections,
                ),
                listen::fd_soft_limit(),
            );
            if dashboard_cap < app.config.max_connections {
                tracing::warn!(
                    dashboard_cap,
                    livechess_cap,
                    reserve = listen::FD_RESERVE,
                    "the open-files limit is low: connection caps lowered to keep descriptors \
                     for the boards (raise LimitNOFILE)"
                );
            }
            let request_timeout = Duration::from_millis(app.config.header_timeout_ms.max(1));
            let router = rest::router(app.clone())
                .layer(axum::middleware::from_fn_with_state(
                    app.clone(),
                    throttle::guard,
                ))
                .layer(axum::middleware::from_fn_with_state(
                    app.clone(),
                    origin::host_guard,
                ));
            let main = listen::serve(
                listener,
                router,
                listen::Limits {
                    max_connections: dashboard_cap,
                    max_per_address: app.config.max_connections_per_address,
                    request_timeout,
                    max_body: app.config.max_body_bytes,
                    max_upload: app.config.max_upload_bytes,
                    uploads: rest::is_upload,
                },
                stop_rx.clone(),
                app.gauges.listen.clone(),
            );
            let result = match livechess {
                Some(l) => {
                    let router = livechess::router(app.clone()).layer(
                        axum::middleware::from_fn_with_state(app.clone(), origin::host_guard),
                    );
                    let lc = listen::serve(
                        l,
                        router,
                        listen::Limits {
                            max_connections: livechess_cap,
                            max_per_address: app.config.livechess_max_connections_per_address,
                            request_timeout,
                            max_body: app.config.max_body_bytes,
                            max_upload: app.config.max_body_bytes,
                            uploads: |_| false,
                        },
                        stop_rx.clone(),
                        app.gauges.listen.clone(),
                    );
                    let (a, b) = tokio::join!(main, lc);
                    a.and(b)
                }
                None => main.await,
            };
            hub.abort();
            delayer.abort();
            sweeper.abort();
            result.map_err(ServeError::Io)
        }
    }
}

/// Completes when the server is asked to stop.
pub(crate) async fn stop_requested(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|stop| *stop).await;
}

/// Binds `config.listen` (and the LiveChess port when enabled) and serves until `shutdown`
/// completes. Refuses a non-loopback address without an arbiter token.
pub async fn serve(
    config: ServerConfig,
    events: broadcast::Sender<Event>,
    ops: mpsc::Sender<Input>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let server = Server::bind(config).await?;
    tracing::info!(addr = %server.local_addr(), "dashboard listening");
    server.run(&events, ops, shutdown).await
}
