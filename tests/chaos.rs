//! The chaos suite: what flaky boards, foreign devices, a killed process and a
//! hostile LAN do to the daemon, on loopback and pseudo-terminals only, in bounded time.
//! Each case states its expectation and asserts it; the figures are printed (run with
//! `--nocapture` to see them). The server-side floods (connection caps, slow headers and
//! bodies, huge WebSocket messages, spectator caps, lag) are in
//! crates/dgt-server/tests/limits.rs; sessions, token guessing and scoped views in
//! accounts.rs; names that carry code in hostile_text.rs.

mod common;
mod daemon_processes;

use std::collections::BTreeSet;
use std::io::Read;
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use dgt_arbiter::edge::serial::PortCandidate;
use dgt_lab::simulated::pty_board::{self, BoardClock, PtyBoard};
use dgt_protocol::BoardMessage;
use tokio::io::AsyncWriteExt;
use tokio_serial::{SerialPort, SerialStream};

/// Expectation: a port that speaks another device's protocol (NMEA text), one that sends
/// endless noise with truncated and oversized DGT-looking frames in it, never becomes a
/// board, and a healthy board on a third port reads every move in step meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_protocols_and_garbage_frames_never_become_boards_nor_slow_a_real_one() {
    let mut h = start_daemon();
    let (mut gps, gps_slave) = SerialStream::pair().unwrap();
    h.ports.add(PortCandidate::at(gps_slave.name().unwrap()));
    let (mut noise, noise_slave) = SerialStream::pair().unwrap();
    h.ports.add(PortCandidate::at(noise_slave.name().unwrap()));
    let board = pty_board::share(quick_board("51515"));
    let pty = PtyBoard::plug_in(board.clone(), BoardClock::start(), None).unwrap();
    h.ports.add(PortCandidate::at(pty.path()));

    let mut sent = 0usize;
    let until = Instant::now() + Duration::from_secs(4);
    while Instant::now() < until {
        let _ = AsyncWriteExt::write_all(
            &mut gps,
            b"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n",
        )
        .await;
        // A field update cut short, a board dump announced with 16000 bytes that never
        // come, a length below its id's minimum, and bytes no DGT message starts with.
        let mut chunk = vec![0x8E, 0x00, 0x05, 0x34];
        chunk.extend([0x86, 0x7D, 0x00, 0x01, 0x02]);
        chunk.extend([0x8E, 0x00, 0x01]);
        chunk.extend((0..200u16).map(|i| (i % 0x7F) as u8));
        if AsyncWriteExt::write_all(&mut noise, &chunk).await.is_ok() {
            sent += chunk.len();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    h.inputs.for_a_while(Duration::from_secs(1)).await;
    let seen = &h.inputs.seen;
    let boards: BTreeSet<&str> = seen.iter().map(|i| i.board.as_str()).collect();
    assert_eq!(
        boards,
        BTreeSet::from(["board-51515"]),
        "only the real board reports"
    );
    let updates = received_messages(seen)
        .into_iter()
        .filter(|(_, m)| matches!(m, BoardMessage::FieldUpdate { .. }))
        .count();
    assert!(updates >= 10, "{updates} field updates");
    println!(
        "chaos: {sent} bytes of garbage frames and NMEA survived; the real board read {updates} field updates"
    );
    pty.unplug().await;
    h.daemon.shutdown().await;
}

/// Expectation: two ports whose boards claim the same serial number never share a label
/// (their moves would mix in one game): the first keeps `board-<serial>`, the second is
/// kept apart under its port's name, and both keep being read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_ports_with_one_serial_number_are_kept_apart() {
    let mut h = start_daemon();
    let first = PtyBoard::plug_in(
        pty_board::share(quick_board("42424")),
        BoardClock::start(),
        None,
    )
    .unwrap();
    h.ports.add(PortCandidate::at(first.path()));
    assert!(
        h.inputs
            .until(Duration::from_secs(5), |s| s
                .iter()
                .any(|i| i.board == "board-42424"))
            .await
    );
    let second = PtyBoard::plug_in(
        pty_board::share(quick_board("42424")),
        BoardClock::start(),
        None,
    )
    .unwrap();
    h.ports.add(PortCandidate::at(second.path()));
    let apart = format!(
        "board-{}",
        second
            .path()
            .to_string_lossy()
            .trim_start_matches("/dev/")
            .replace('/', "-")
    );
    let found = h
        .inputs
        .until(Duration::from_secs(8), |s| {
            s.iter().any(|i| i.board == apart)
        })
        .await;
    assert!(
        found,
        "the second board was not kept apart as {apart}: {:?}",
        h.inputs
            .seen
            .iter()
            .map(|i| i.board.as_str())
            .collect::<BTreeSet<_>>()
    );
    let connected_42424 = count(&h.inputs.seen, |i| {
        i.board == "board-42424" && is_connected(i)
    });
    assert_eq!(connected_42424, 1, "the label has one board");
    first.unplug().await;
    second.unplug().await;
    h.daemon.shutdown().await;
}

/// Expectation: six boards unplugged and plugged in again four times each, all at once:
/// every cycle is one `disconnected` and one `connected` under the board's own label, no
/// input goes to a wrong label, and every board reads moves again at the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unplug_and_replug_storm_keeps_every_board_on_its_label() {
    const BOARDS: usize = 6;
    const CYCLES: usize = 4;
    let mut h = start_daemon();
    let serials: Vec<String> = (0..BOARDS).map(|i| format!("6060{i}")).collect();
    let boards: Vec<_> = serials
        .iter()
        .map(|s| pty_board::share(quick_board(s)))
        .collect();
    let clock = BoardClock::start();
    let mut plugged: Vec<PtyBoard> = boards
        .iter()
        .map(|b| PtyBoard::plug_in(b.clone(), clock, None).unwrap())
        .collect();
    for p in &plugged {
        h.ports.add(PortCandidate::at(p.path()));
    }
    let labels: BTreeSet<String> = serials.iter().map(|s| format!("board-{s}")).collect();
    let all_connected = |n: usize| {
        let labels = labels.clone();
        move |seen: &[dgt_core::Input]| {
            labels.iter().all(|l| {
                seen.iter()
                    .filter(|i| &i.board == l && is_connected(i))
                    .count()
                    >= n
            })
        }
    };
    assert!(
        h.inputs
            .until(Duration::from_secs(10), all_connected(1))
            .await
    );
    for cycle in 0..CYCLES {
        for p in plugged.drain(..) {
            h.ports.remove(p.path());
            p.unplug().await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        plugged = boards
            .iter()
            .map(|b| PtyBoard::plug_in(b.clone(), clock, None).unwrap())
            .collect();
        for p in &plugged {
            h.ports.add(PortCandidate::at(p.path()));
        }
        assert!(
            h.inputs
                .until(Duration::from_secs(15), all_connected(cycle + 2))
                .await,
            "cycle {cycle}: not every board came back"
        );
    }
    h.inputs.for_a_while(Duration::from_secs(2)).await;
    let seen = &h.inputs.seen;
    for l in &labels {
        let connected = count(seen, |i| &i.board == l && is_connected(i));
        let disconnected = count(seen, |i| &i.board == l && is_disconnected(i));
        assert_eq!(connected, CYCLES + 1, "{l}");
        assert_eq!(disconnected, CYCLES, "{l}");
    }
    let strays: BTreeSet<&str> = seen
        .iter()
        .filter(|i| !labels.contains(&i.board))
        .map(|i| i.board.as_str())
        .collect();
    assert!(strays.is_empty(), "inputs under wrong labels: {strays:?}");
    println!(
        "chaos: {} unplug/replug cycles survived ({BOARDS} boards × {CYCLES}), {} inputs, all on their labels",
        BOARDS * CYCLES,
        seen.len()
    );
    for p in plugged {
        p.unplug().await;
    }
    h.daemon.shutdown().await;
}

fn demo_config(dir: &tempfile::TempDir, extra: &str) -> std::path::PathBuf {
    let path = dir.path().join("chaos.toml");
    std::fs::write(
        &path,
        format!(
            "[server]\narbiter_token = \"3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d6\"\n\
             viewer_token = \"9a8b7c6d5e4f30211203f4e5d6c7b8a9\"\nmax_connections = 64\n{extra}"
        ),
    )
    .unwrap();
    path
}

/// A running `demo`, killed when dropped — also when a test panics half-way, so a failed
/// test leaves no daemon behind holding its port and journal.
struct Demo(std::process::Child);

impl std::ops::Deref for Demo {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for Demo {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `demo` under `sh -c` with a given umask and open-files limit; stderr piped (not a tty).
fn spawn_demo(journal: &std::path::Path, config: &std::path::Path) -> Demo {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 000; ulimit -n 400; exec {} demo --boards 2 --listen 127.0.0.1:0 --journal {} --config {}",
            daemon_processes::binary(),
            journal.display(),
            config.display()
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Demo(child)
}

/// Reads stderr until the dashboard line; returns the address and a thread that keeps
/// collecting the rest.
fn dashboard(
    child: &mut std::process::Child,
) -> (
    std::net::SocketAddr,
    std::sync::mpsc::Receiver<String>,
    String,
) {
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).to_string())
                    .is_err()
            {
                break;
            }
        }
    });
    let mut text = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(s) = rx.recv_timeout(Duration::from_millis(200)) {
            text.push_str(&s);
        }
        // Only a whole line (the pipe may hand it over in pieces).
        if let Some(at) = text.find("dashboard at")
            && let Some(end) = text[at..].find('\n')
        {
            let line = &text[at..at + end];
            return (daemon_processes::dashboard_addr(line), rx, text.clone());
        }
    }
    panic!("no dashboard line: {text}");
}

fn get_with(
    addr: std::net::SocketAddr,
    path: &str,
    token: Option<&str>,
) -> (u16, serde_json::Value) {
    request_with(addr, "GET", path, token, "")
}

/// One request (a body is sent as CSV, the pairing upload's type); the status and the JSON
/// answer.
fn request_with(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, serde_json::Value) {
    // While a flood holds every slot the server closes the connection at once: (0, null).
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = Vec::new();
    if let Some(b) = &bearer {
        headers.push(("Authorization", b.as_str()));
    }
    if !body.is_empty() {
        headers.push(("Content-Type", "text/csv"));
    }
    match dgt_testkit::http::try_request(addr, method, path, &headers, body) {
        Ok(r) => (r.status, serde_json::from_str(&r.body).unwrap_or_default()),
        Err(_) => (0, serde_json::Value::Null),
    }
}

const VIEWER: &str = "9a8b7c6d5e4f30211203f4e5d6c7b8a9";

fn committed(addr: std::net::SocketAddr) -> Option<u64> {
    get_with(addr, "/health", Some(VIEWER)).1["daemon"]["journal"]["committed_seq"].as_u64()
}

/// Expectation: under umask 000 and a 400-descriptor limit, the journal is still mode 0600;
/// 2,000 connections from the LAN are held to the cap while the boards go on being read and
/// /health answers; wrong tokens get 401 and nothing more; the logs carry no ANSI codes;
/// after SIGKILL a restart recovers every event already journaled.
#[test]
fn a_flooded_then_killed_daemon_keeps_its_boards_its_secrets_and_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal.sqlite");
    let config = demo_config(&dir, "");
    let mut child = spawn_demo(&journal, &config);
    let (addr, rx, mut logs) = dashboard(&mut child);

    let mode = std::fs::metadata(&journal).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "journal mode under umask 000");

    // Wrong tokens: 401, and /health without a token says only the status.
    for token in [
        Some("wrong-token-0123456789abcdef"),
        Some(""),
        Some("3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d"),
    ] {
        let (status, _) = get_with(addr, "/api/alerts", token);
        assert_eq!(status, 401, "{token:?}");
    }
    let (_, bare) = get_with(addr, "/health", None);
    assert_eq!(bare.as_object().map(|o| o.len()), Some(1), "{bare}");

    // The flood: 2,000 connections that never send a byte.
    let before = daemon_processes::eventually(Duration::from_secs(30), "events journaled", || {
        committed(addr).filter(|&c| c > 0)
    });
    let mut flood = Vec::new();
    let mut refused_at_once = 0;
    for _ in 0..2000 {
        match TcpStream::connect(addr) {
            Ok(s) => flood.push(s),
            Err(_) => refused_at_once += 1,
        }
    }
    // Give the daemon time to accept (and close) what it does not hold.
    std::thread::sleep(Duration::from_secs(2));
    let mut held = 0;
    for s in flood.iter_mut() {
        s.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        let mut b = [0u8; 1];
        match s.read(&mut b) {
            Ok(0) => {}
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                held += 1
            }
            _ => {}
        }
    }
    assert!(held <= 64, "{held} connections held with a cap of 64");
    // The boards went on being read and journaled during the flood.
    let during = committed(addr);
    drop(flood);
    let after_flood =
        daemon_processes::eventually(Duration::from_secs(30), "the journal moves on", || {
            committed(addr).filter(|&c| c > before)
        });
    let health = get_with(addr, "/health", Some(VIEWER)).1;
    assert_eq!(health["boards_connected"], 2, "{health}");
    println!(
        "chaos: 2000 connections opened, {held} held (cap 64), {refused_at_once} refused by the kernel; \
         committed seq {before} → {during:?} → {after_flood}"
    );

    // SIGKILL: no clean shutdown at all.
    let last_committed = committed(addr).unwrap();
    child.kill().unwrap();
    let _ = child.wait();
    while let Ok(s) = rx.try_recv() {
        logs.push_str(&s);
    }
    assert!(!logs.contains('\u{1b}'), "ANSI codes in piped logs: {logs}");

    let mut again = spawn_demo(&journal, &config);
    let (addr2, _rx2, _) = dashboard(&mut again);
    let recovered =
        daemon_processes::eventually(Duration::from_secs(30), "restarted", || committed(addr2));
    assert!(
        recovered >= last_committed,
        "events lost: journaled up to {last_committed}, recovered {recovered}"
    );
    println!(
        "chaos: SIGKILL at committed seq {last_committed}; restart resumed at {recovered}; events lost: 0"
    );
    let _ = again.kill();
    let _ = again.wait();
}

/// Pads the journal with `bytes` in a table of its own (as other files would fill a disk).
fn pad_journal(journal: &std::path::Path, bytes: usize) {
    let conn = rusqlite::Connection::open(journal).unwrap();
    conn.execute_batch("CREATE TABLE IF NOT EXISTS chaos_padding (b BLOB)")
        .unwrap();
    conn.execute(
        "INSERT INTO chaos_padding (b) VALUES (?1)",
        [vec![0x5Au8; bytes]],
    )
    .unwrap();
}

fn unpad_journal(journal: &std::path::Path) {
    let conn = rusqlite::Connection::open(journal).unwrap();
    conn.execute_batch("DROP TABLE chaos_padding; VACUUM;")
        .unwrap();
}

/// Expectation: the journal full (its size cap reached: the cap stands in for a full disk,
/// as root mounts are not available here) — the live feed goes on, /health turns degraded
/// and names `disk_full`, the log says so; nothing journaled before is lost; once space is
/// back the daemon journals again from where it was.
#[test]
fn a_full_journal_is_told_the_feed_goes_on_and_writing_resumes_when_space_returns() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal.sqlite");
    let config = demo_config(&dir, "[journal]\nmax_size_mb = 2\n");
    // A first run journals some events.
    let mut child = spawn_demo(&journal, &config);
    let (addr, _rx, _) = dashboard(&mut child);
    let first = daemon_processes::eventually(Duration::from_secs(30), "events journaled", || {
        committed(addr).filter(|&c| c > 0)
    });
    child.kill().unwrap();
    let _ = child.wait();
    let seqs = |journal: &std::path::Path| -> Vec<i64> {
        let mut out = Vec::new();
        dgt_journal::Journal::open_read_only(journal)
            .unwrap()
            .for_each_event(|seq, _| {
                out.push(seq as i64);
                true
            })
            .unwrap();
        out
    };
    let before_full = seqs(&journal);
    let journaled = *before_full.last().unwrap() as u64;
    assert!(journaled >= first);

    // The disk fills: 3 MiB of other data under a 2 MiB cap.
    pad_journal(&journal, 3 * 1024 * 1024);
    let mut child = spawn_demo(&journal, &config);
    let (addr, rx, mut logs) = dashboard(&mut child);
    let health = daemon_processes::eventually(Duration::from_secs(30), "the failure told", || {
        let h = get_with(addr, "/health", Some(VIEWER)).1;
        (h["status"] == "degraded").then_some(h)
    });
    assert_eq!(
        health["daemon"]["journal"]["failure"]["kind"], "disk_full",
        "{health}"
    );
    // The feed goes on: the hall moves past what the journal holds (a few small commits may
    // still fit in pages already allocated; then nothing more does).
    // So the test asks for the feed to run well ahead of what is committed, both read anew.
    let seq_now = |a| get_with(a, "/health", Some(VIEWER)).1["seq"].as_u64();
    let ahead = daemon_processes::eventually(
        Duration::from_secs(30),
        "the feed goes on past the journal",
        || {
            let committed = committed(addr)?;
            seq_now(addr).filter(|&s| s > committed + 5)
        },
    );
    std::thread::sleep(Duration::from_millis(500));
    while let Ok(s) = rx.try_recv() {
        logs.push_str(&s);
    }
    assert!(
        logs.contains("size cap"),
        "no log line names the cap: {logs}"
    );
    child.kill().unwrap();
    let _ = child.wait();
    // Where the full journal really ends (read after the stop, so no late commit is missed).
    let stuck_at = *seqs(&journal).last().unwrap() as u64;
    assert!(
        stuck_at < ahead,
        "the journal holds the feed's events: {stuck_at} ≥ {ahead}"
    );

    // Space returns: the journal resumes from where it was; what it held is all there.
    unpad_journal(&journal);
    let mut child = spawn_demo(&journal, &config);
    let (addr, _rx, _) = dashboard(&mut child);
    let resumed = daemon_processes::eventually(Duration::from_secs(30), "journaling again", || {
        committed(addr).filter(|&c| c > stuck_at)
    });
    println!(
        "chaos: journal full at seq {stuck_at} (cap 2 MiB), feed went on to seq {ahead}, \
         degraded/disk_full told; after space returned it journals again (seq {resumed}); \
         events journaled before ({journaled}): all kept"
    );
    let _ = child.kill();
    let _ = child.wait();
    let after = seqs(&journal);
    assert!(
        before_full.iter().all(|s| after.binary_search(s).is_ok()),
        "an event journaled before the disk filled is gone"
    );
}

const ARBITER: &str = "3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d6";

/// One request from 127.0.0.2 — another machine on the LAN as far as the daemon can tell;
/// its status (0: closed without an answer).
async fn from_other_machine(addr: std::net::SocketAddr, head: &str) -> u16 {
    use tokio::io::AsyncReadExt;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
    let Ok(mut s) = socket.connect(addr).await else {
        return 0;
    };
    let request = format!("{head}\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    if s.write_all(request.as_bytes()).await.is_err() {
        return 0;
    }
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out)
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// Expectation: against the running daemon, one machine holding 512 POSTs whose
/// body never comes takes its share of the port and no more — /health and the boards go on;
/// its wrong tokens are looked at ten times or so, then answered 429; a pairing file whose
/// name carries a forged PGN tag behind a lone carriage return is refused with its line and
/// nothing is imported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_machine_on_the_lan_starves_no_one_guesses_slowly_and_forges_no_tag() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal.sqlite");
    let config = demo_config(&dir, "max_connections_per_address = 16\n");
    let mut child = spawn_demo(&journal, &config);
    let (addr, _rx, _) = dashboard(&mut child);
    let before = daemon_processes::eventually(Duration::from_secs(30), "events journaled", || {
        committed(addr).filter(|&c| c > 0)
    });

    let mut held = Vec::new();
    for _ in 0..512 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        if let Ok(mut s) = socket.connect(addr).await {
            let head = format!(
                "POST /api/boards/x/result HTTP/1.1\r\nHost: {addr}\r\n\
                 Content-Length: 1000\r\n\r\n{{"
            );
            if s.write_all(head.as_bytes()).await.is_ok() {
                held.push(s);
            }
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let (status, health) = get_with(addr, "/health", Some(VIEWER));
    let answered_in = started.elapsed();
    assert_eq!(status, 200, "/health starved: {health}");
    let after =
        daemon_processes::eventually(Duration::from_secs(30), "the journal moves on", || {
            committed(addr).filter(|&c| c > before)
        });

    drop(held);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let (mut looked_at, mut slowed) = (0, 0);
    for i in 0..100 {
        let status = from_other_machine(
            addr,
            &format!("GET /api/alerts HTTP/1.1\r\nAuthorization: Bearer guess-{i:04}"),
        )
        .await;
        match status {
            401 => looked_at += 1,
            429 => slowed += 1,
            other => panic!("a wrong token got {other}"),
        }
    }
    let guessing = started.elapsed();
    assert!(
        (1..=12).contains(&looked_at) && slowed >= 88,
        "{looked_at} wrong tokens looked at, {slowed} slowed"
    );

    let forged = "table,white,black\r\n1,\"Evil\r[Result \"\"1-0\"\"]\",Other\r\n2,Ann,Bob\r\n";
    let (status, answer) = request_with(
        addr,
        "POST",
        "/api/rounds/1/pairings",
        Some(ARBITER),
        forged,
    );
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["problems"][0]["line"], 2, "{answer}");
    let (status, _) = get_with(addr, "/api/rounds/1", Some(VIEWER));
    assert_eq!(status, 404, "nothing was imported");
    println!(
        "chaos: 512 unfinished bodies from one address; /health answered in {} ms, the journal \
         went on ({before} → {after}); 100 wrong tokens in {} ms, {looked_at} looked at; the \
         forged name refused at line 2",
        answered_in.as_millis(),
        guessing.as_millis()
    );
    let _ = child.kill();
    let _ = child.wait();
}
