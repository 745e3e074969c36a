//! Shared by the server tests: events from the real capture run through the core, a server
//! on a loopback port 0; the HTTP and WebSocket clients are the test kit's.
#![allow(dead_code)]

#[allow(unused_imports)]
pub use dgt_testkit::ws::*;

use std::net::SocketAddr;
use std::time::Duration;

use dgt_core::capture::parse_capture;
use dgt_core::input::Link;
use dgt_core::{Core, CoreConfig, Event, Input, InputKind};
use dgt_server::{Server, ServerConfig};
use dgt_testkit::fixtures::real_game_capture;
use dgt_testkit::http::request_async;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{broadcast, mpsc, oneshot};

/// The real blitz game's inputs, then the board's link lost (which the core reports).
pub fn capture_inputs() -> Vec<Input> {
    let mut inputs = parse_capture(&real_game_capture()).unwrap();
    let last = inputs.last().map_or(0, |i| i.t_ms);
    inputs.push(Input {
        t_ms: last + 1000,
        board: "board-1".into(),
        kind: InputKind::Link(Link::Disconnected {
            reason: Some("test".into()),
            stopping: false,
        }),
    });
    inputs
}

/// The events the core makes of the real capture.
pub fn capture_events() -> Vec<Event> {
    let mut core = Core::new(CoreConfig::default());
    let mut out = Vec::new();
    for i in capture_inputs() {
        out.extend(core.handle(&i));
    }
    while let Some(d) = core.next_deadline() {
        out.extend(core.advance(d));
    }
    out
}

/// The expected SAN-free move list (UCI) of the real game.
#[allow(unused_imports)]
pub use dgt_testkit::fixtures::real_game_moves as expected_uci;

/// A server running on loopback port 0.
pub struct TestServer {
    pub addr: SocketAddr,
    pub livechess: Option<SocketAddr>,
    pub events: broadcast::Sender<Event>,
    pub ops: mpsc::Receiver<Input>,
    /// A token that may read, when the server has tokens (`/health` shows the seq only to it).
    pub read_token: Option<String>,
    /// First sights of events (what a hub hears before the stream numbers it).
    pub previews: dgt_server::Previews,
    stop: Option<oneshot::Sender<()>>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

pub fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

pub fn test_config() -> ServerConfig {
    ServerConfig {
        listen: loopback(),
        public_delay_ms: 0,
        ..ServerConfig::default()
    }
}

pub async fn start(config: ServerConfig) -> TestServer {
    let read_token = config
        .viewer_token
        .clone()
        .or_else(|| config.arbiter_token.clone())
        .or_else(|| config.arbiters.first().map(|a| a.token.clone()));
    start_bound(Server::bind(config).await.expect("bind"), read_token)
}

/// Runs a server already bound (and given what a test needs, e.g. a board log);
/// `read_token` is the token the helpers send to read.
pub fn start_bound(server: Server, read_token: Option<String>) -> TestServer {
    let addr = server.local_addr();
    let livechess = server.livechess_addr();
    let previews = server.previews();
    let (events, _) = broadcast::channel(200_000);
    let (ops_tx, ops) = mpsc::channel(64);
    let (stop, stopped) = oneshot::channel::<()>();
    let fut = server.run(&events, ops_tx, async move {
        let _ = stopped.await;
    });
    tokio::spawn(fut);
    TestServer {
        addr,
        livechess,
        events,
        ops,
        read_token,
        previews,
        stop: Some(stop),
    }
}

impl TestServer {
    /// The next action sent to the core, past the `by` ops naming who took the ones before.
    pub async fn next_action(&mut self) -> Input {
        loop {
            let op = self.ops.recv().await.expect("ops channel open");
            if !matches!(op.kind, InputKind::Op(dgt_core::Operation::By(_))) {
                return op;
            }
        }
    }

    pub fn send(&self, events: &[Event]) {
        for e in events {
            self.events.send(e.clone()).unwrap();
        }
    }

    /// Waits until the server has applied the event with this seq.
    pub async fn wait_seq(&self, seq: u64) {
        // A wait for progress, not a timing check: a loaded debug build takes seconds to
        // apply a 1,000-board hall's tens of thousands of events.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let bearer = self.read_token.as_ref().map(|t| format!("Bearer {t}"));
            let headers: Vec<(&str, &str)> = bearer
                .as_deref()
                .map(|b| vec![("Authorization", b)])
                .unwrap_or_default();
            let (_, body) = http(self.addr, "GET", "/health", &headers, "").await;
            let v: Value = serde_json::from_str(&body).unwrap();
            if v["seq"].as_u64().unwrap_or(0) >= seq {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "server never reached seq {seq}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// (status, head, body) of one request, sent as written (no Content-Type added).
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let r = request_async(addr, method, path, headers, body).await;
    (r.status, r.head(), r.body)
}

/// A header's value in a response head.
pub fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// One request (a JSON body says so); returns (status, body).
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut all = Vec::with_capacity(headers.len() + 1);
    if !body.is_empty() {
        all.push(("Content-Type", "application/json"));
    }
    all.extend_from_slice(headers);
    let r = request_async(addr, method, path, &all, body).await;
    (r.status, r.body)
}

/// A hall of `n` boards playing the real game, each cut at a different move (board-1 plays
/// it to the end and then loses its link), interleaved by time and numbered afresh, the way
/// one core with several boards numbers its events.
pub fn hall_events(n: usize) -> Vec<Event> {
    use dgt_core::EventBody;
    let game = capture_events();
    let mut all: Vec<(u64, usize, Event)> = Vec::new();
    for k in 0..n {
        let board = format!("board-{}", k + 1);
        let stop_ply = if k == 0 {
            u32::MAX
        } else {
            57 - (k as u32 * 11) % 50
        };
        let shift = k as u64 * 1700;
        for e in &game {
            if k > 0 {
                match &e.body {
                    EventBody::Move(m) if m.ply > stop_ply => break,
                    EventBody::Alert(_) | EventBody::BoardStatus(_) if e.seq > 10 => continue,
                    _ => {}
                }
            }
            let mut e = e.clone();
            e.board = board.clone();
            e.t_ms += shift;
            match &mut e.body {
                EventBody::GameStart { game, .. } => *game = format!("{board}/1"),
                EventBody::Move(m) => m.game = format!("{board}/1"),
                EventBody::Alert(a) => a.game = Some(format!("{board}/1")),
                EventBody::GameEnd { game, .. } => *game = format!("{board}/1"),
                _ => {}
            }
            all.push((e.t_ms, k, e));
        }
    }
    all.sort_by_key(|(t, k, e)| (*t, *k, e.seq));
    all.into_iter()
        .enumerate()
        .map(|(i, (_, _, mut e))| {
            e.seq = i as u64 + 1;
            if let EventBody::Alert(a) = &mut e.body {
                a.id = e.seq;
            }
            e
        })
        .collect()
}

/// Another machine on the LAN, as far as the server can tell: loopback's 127.0.0.2.
pub const OTHER_MACHINE: &str = "127.0.0.2";

/// A connection to `addr`, from `OTHER_MACHINE` when `other` is set.
pub async fn connect(addr: SocketAddr, other: bool) -> std::io::Result<TcpStream> {
    if !other {
        return TcpStream::connect(addr).await;
    }
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(OTHER_MACHINE.parse().unwrap(), 0))?;
    socket.connect(addr).await
}

/// One request with exactly these header lines (the Host among them, or none), then
/// `Connection: close`; the status (0: closed without an answer) and the whole raw answer.
pub async fn raw_request(addr: SocketAddr, other: bool, head: &str) -> (u16, String) {
    let Ok(mut s) = connect(addr, other).await else {
        return (0, String::new());
    };
    if s.write_all(format!("{head}\r\nConnection: close\r\n\r\n").as_bytes())
        .await
        .is_err()
    {
        return (0, String::new());
    }
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out))
        .await
        .expect("an answer in time")
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// The status of board `board` as the serial edge identified it, its serial number
/// `1310<board>`.
pub fn identified_status(board: &str) -> dgt_core::EventBody {
    use dgt_core::event::{BoardStatus, LinkState, Orientation};
    dgt_core::EventBody::BoardStatus(BoardStatus {
        state: LinkState::Identified,
        serial: Some(format!("1310{board}")),
        version: None,
        orientation: Orientation::Normal,
        port: None,
        clock_version: None,
    })
}

/// A round's pairings: table `i + 1` plays `tables[i]` (white, black), players named only.
pub fn pairings(round: u32, tables: &[(&str, &str)]) -> dgt_core::pairing::RoundPairings {
    let p = |name: &str| dgt_core::pairing::Player {
        name: name.into(),
        ..dgt_core::pairing::Player::default()
    };
    dgt_core::pairing::RoundPairings {
        round,
        tables: tables
            .iter()
            .zip(1..)
            .map(|(&(white, black), table)| dgt_core::pairing::Pairing {
                table,
                white: p(white),
                black: p(black),
            })
            .collect(),
        ..dgt_core::pairing::RoundPairings::default()
    }
}

/// `e` as a hub serves node hall-a's event `node_seq` (so that it can be previewed).
pub fn of_node(mut e: Event, node_seq: u64) -> Event {
    e.node = Some("hall-a".into());
    e.node_seq = Some(node_seq);
    e
}
