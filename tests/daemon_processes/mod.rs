//! Running the real `dgt-arbiter` binary as a child process: demo, run, emulate, export.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_dgt-arbiter")
}

/// A child process whose stderr and stdout lines are collected by threads.
pub struct Proc {
    pub child: Child,
    stderr: mpsc::Receiver<String>,
    stdout: mpsc::Receiver<String>,
    pub stderr_seen: Vec<String>,
    pub stdout_seen: Vec<String>,
}

impl Proc {
    pub fn spawn(args: &[&str]) -> Proc {
        let mut child = Command::new(binary())
            .args(args)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stderr = lines(child.stderr.take().unwrap());
        let stdout = lines(child.stdout.take().unwrap());
        Proc {
            child,
            stderr,
            stdout,
            stderr_seen: Vec::new(),
            stdout_seen: Vec::new(),
        }
    }

    fn pump(&mut self) {
        while let Ok(l) = self.stderr.try_recv() {
            self.stderr_seen.push(l);
        }
        while let Ok(l) = self.stdout.try_recv() {
            self.stdout_seen.push(l);
        }
    }

    /// Waits for a stderr line containing `needle`; returns it.
    pub fn stderr_line(&mut self, needle: &str, within: Duration) -> String {
        let end = Instant::now() + within;
        loop {
            self.pump();
            if let Some(l) = self.stderr_seen.iter().find(|l| l.contains(needle)) {
                return l.clone();
            }
            assert!(
                Instant::now() < end,
                "no stderr line with {needle:?}; stderr so far:\n{}",
                self.stderr_seen.join("\n")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the first stdout line.
    pub fn first_stdout_line(&mut self, within: Duration) -> String {
        let end = Instant::now() + within;
        loop {
            self.pump();
            if let Some(l) = self.stdout_seen.first() {
                return l.clone();
            }
            assert!(Instant::now() < end, "no stdout line");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stdout lines so far.
    pub fn stdout_lines(&mut self) -> Vec<String> {
        self.pump();
        self.stdout_seen.clone()
    }

    /// SIGTERM, then waits for the exit.
    pub fn terminate(mut self) -> Vec<String> {
        signal(&self.child, "TERM");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "clean exit after SIGTERM: {status}");
        // Let the reader threads finish.
        std::thread::sleep(Duration::from_millis(100));
        self.pump();
        std::mem::take(&mut self.stdout_seen)
    }

    /// SIGTERM, then waits for the exit; every stderr line.
    pub fn terminate_for_stderr(mut self) -> Vec<String> {
        signal(&self.child, "TERM");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "clean exit after SIGTERM: {status}");
        std::thread::sleep(Duration::from_millis(100));
        self.pump();
        std::mem::take(&mut self.stderr_seen)
    }

    /// SIGKILL: no chance to flush or say goodbye.
    pub fn kill(mut self) {
        signal(&self.child, "KILL");
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{name}");
}

fn lines(r: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Starts `dgt-arbiter demo` with `boards` simulated boards on a loopback port, journaling
/// to `journal`, with a seed and a config file if given; waits for its dashboard and
/// returns the process and the dashboard's address.
pub fn start_demo(
    boards: u32,
    seed: Option<u64>,
    journal: &Path,
    config: Option<&Path>,
) -> (Proc, SocketAddr) {
    let boards = boards.to_string();
    let seed = seed.map(|s| s.to_string());
    let mut args = vec!["demo", "--boards", &boards];
    if let Some(seed) = &seed {
        args.extend(["--seed", seed]);
    }
    args.extend(["--listen", "127.0.0.1:0", "--journal", path_str(journal)]);
    if let Some(config) = config {
        args.extend(["--config", path_str(config)]);
    }
    let mut proc = Proc::spawn(&args);
    let addr = dashboard_addr(&proc.stderr_line("dashboard at", Duration::from_secs(30)));
    (proc, addr)
}

/// Starts `dgt-arbiter hub` with the settings file `config`; waits for its dashboard (a hub
/// reads the event's stream before it serves) and returns the process and its address.
pub fn start_hub_from(config: &Path) -> (Proc, SocketAddr) {
    let mut proc = Proc::spawn(&["hub", "--config", path_str(config)]);
    let addr = dashboard_addr(&proc.stderr_line("dashboard at", Duration::from_secs(60)));
    (proc, addr)
}

/// The address in a "dashboard at http://ADDR/" line.
pub fn dashboard_addr(line: &str) -> SocketAddr {
    let start = line.find("http://").expect("an address") + 7;
    let rest = &line[start..];
    let end = rest.find('/').unwrap_or(rest.len());
    rest[..end].parse().expect("host:port")
}

/// The daemon's REST answers, through the test kit's HTTP client.
#[allow(unused_imports)]
pub use dgt_testkit::http::{get, get_json, post};

/// Runs the binary to completion: (exit ok, stdout, stderr).
pub fn run_to_end(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(binary()).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// An emulated board on a pseudo-terminal (`emulate --pty`, clean handling, 180+2) with
/// serial number `serial`, playing the PGN `game` (written to `<name>.pgn` in `dir`);
/// returns the process and its pseudo-terminal's path.
pub fn emulate_pgn(dir: &Path, name: &str, serial: &str, game: &str) -> (Proc, String) {
    let script = dir.join(format!("{name}.pgn"));
    std::fs::write(&script, game).unwrap();
    let mut board = Proc::spawn(&[
        "emulate",
        "--pty",
        "--serial",
        serial,
        "--time-control",
        "180+2",
        "--pgn",
        path_str(&script),
        "--clean",
    ]);
    let pty = board.first_stdout_line(Duration::from_secs(20));
    (board, pty)
}

/// Polls `f` until it gives `Some`, at most `within`.
pub fn eventually<T>(within: Duration, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + within;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn temp_path(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

/// Every `move` event's (game, ply, uci) in a JSON-lines text, corrections applied.
pub fn final_moves(events: &[serde_json::Value]) -> Vec<(String, u64, String)> {
    let mut moves: Vec<(String, u64, String)> = Vec::new();
    for e in events.iter().filter(|e| e["type"] == "move") {
        let game = e["game"].as_str().unwrap().to_string();
        let ply = e["ply"].as_u64().unwrap();
        moves.retain(|(g, p, _)| !(g == &game && *p >= ply));
        moves.push((game, ply, e["uci"].as_str().unwrap().to_string()));
    }
    moves
}

/// The moves (game, ply, uci) of the first game started in `events`, corrections applied.
pub fn first_game_moves(events: &[serde_json::Value]) -> Vec<(String, u64, String)> {
    let first = events
        .iter()
        .find(|e| e["type"] == "game_start")
        .map(|e| e["game"].as_str().unwrap().to_string());
    final_moves(events)
        .into_iter()
        .filter(|(g, _, _)| Some(g) == first.as_ref())
        .collect()
}

/// Writes the settings of a daemon `name` reading one port, `pty`, with no port scan, its
/// journal `<name>.sqlite` in `dir` (`journal_extra`: more lines of `[journal]`); returns
/// the settings file's path.
pub fn one_port_settings(dir: &Path, name: &str, pty: &str, journal_extra: &str) -> String {
    let path = dir.join(format!("{name}.toml"));
    let journal = dir.join(format!("{name}.sqlite"));
    std::fs::write(
        &path,
        format!(
            "listen = \"127.0.0.1:0\"\n[serial]\nscan = \"off\"\nports = [{{ path = \"{pty}\" }}]\n[journal]\npath = \"{}\"\n{journal_extra}",
            journal.display()
        ),
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

/// The events of the journal `<name>.sqlite` in `dir`, as `export events` writes them; none
/// while the daemon has not made the journal yet.
pub fn exported_events(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    let j = dir.join(format!("{name}.sqlite"));
    if !j.exists() {
        return Vec::new();
    }
    let (ok, out, err) = run_to_end(&["export", "events", "--journal", path_str(&j)]);
    assert!(ok, "{err}");
    parse_lines(&out)
}

pub fn parse_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
