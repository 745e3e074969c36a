//! The processes a bench starts and measures: daemons (`run`), the hub, `nats-server`. CPU
//! time and resident memory come from `/proc/PID/stat` and `/proc/PID/status`, so each
//! number is that process's alone.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::BenchError;

/// A child process whose stderr goes to a log file.
pub struct Process {
    pub child: Child,
    pub log: PathBuf,
    pub what: String,
}

impl Process {
    pub fn spawn(
        what: &str,
        program: &Path,
        args: &[&str],
        log: PathBuf,
    ) -> Result<Self, BenchError> {
        let file = std::fs::File::create(&log).map_err(|source| BenchError::File {
            path: log.clone(),
            source,
        })?;
        let child = Command::new(program)
            .args(args)
            .env("NO_COLOR", "1")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .map_err(|source| BenchError::Start {
                what: what.to_string(),
                program: program.to_path_buf(),
                source,
            })?;
        Ok(Process {
            child,
            log,
            what: what.to_string(),
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the "dashboard at http://ADDR/" line on stderr.
    pub fn dashboard_addr(&mut self, within: Duration) -> Result<SocketAddr, BenchError> {
        let end = Instant::now() + within;
        loop {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            for line in text.lines() {
                if let Some(rest) = line.split("dashboard at http://").nth(1)
                    && let Ok(addr) = rest.trim_end_matches('/').trim().parse()
                {
                    return Ok(addr);
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(BenchError::ExitedBeforeServing {
                    what: self.what.clone(),
                    status,
                    log: text,
                });
            }
            if Instant::now() > end {
                return Err(BenchError::NotServing {
                    what: self.what.clone(),
                    within,
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM (a clean stop: the journal is flushed), then waits; SIGKILL after `within`.
    pub fn stop(&mut self, within: Duration) -> Result<(), BenchError> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        let end = Instant::now() + within;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => {
                    return Err(BenchError::StoppedWith {
                        what: self.what.clone(),
                        status,
                    });
                }
                Ok(None) if Instant::now() > end => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return Err(BenchError::NotStopped {
                        what: self.what.clone(),
                        within,
                    });
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err(source) => {
                    return Err(BenchError::Wait {
                        what: self.what.clone(),
                        source,
                    });
                }
            }
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A free loopback port (bound and released: another process could take it meanwhile,
/// which nobody does on a test machine in the milliseconds in between).
pub fn free_port() -> Result<u16, BenchError> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(BenchError::NoFreePort)
}

/// `nats-server` on PATH, or where Debian installs it.
pub fn nats_server() -> Result<PathBuf, BenchError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/usr/bin".into()])
        .map(|d| d.join("nats-server"))
        .find(|p| p.is_file())
        .ok_or(BenchError::NoNatsServer)
}

/// The bytes of every file under `dir` (the broker's store), 0 when it cannot be read.
pub fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}

/// Starts `nats-server` with JetStream on a free loopback port, its store under `dir`.
pub fn start_broker(dir: &Path) -> Result<(Process, u16), BenchError> {
    let port = free_port()?;
    let store = dir.join("jetstream");
    let store = store.to_str().ok_or(BenchError::TempPathNotUtf8)?;
    let broker = Process::spawn(
        "nats-server",
        &nats_server()?,
        &[
            "-js",
            "-a",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-sd",
            store,
        ],
        dir.join("nats-server.log"),
    )?;
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let end = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(addr).is_err() {
        if Instant::now() > end {
            return Err(BenchError::BrokerNotListening(addr));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((broker, port))
}

/// CPU time (user + system) of a process, in clock ticks.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count fields after its ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 (utime) and 15 (stime) of proc(5), here 11 and 12 after the state.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 on Linux when it cannot be asked).
pub fn ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// Resident memory (VmRSS) of a process, in MiB.
pub fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// `GET path` on loopback, the body as text. The daemons are on this machine: no proxy from
/// the environment, no redirect followed, and an error status is an answer like another
/// (the caller reads what the body says).
pub fn http_get(addr: SocketAddr, path: &str) -> Result<String, BenchError> {
    let failed = |source| BenchError::Http {
        addr,
        path: path.to_string(),
        source: Box::new(source),
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .timeout_connect(Some(Duration::from_secs(5)))
        .timeout_global(Some(Duration::from_secs(15)))
        .build()
        .into();
    let mut answer = agent
        .get(format!("http://{addr}{path}"))
        .call()
        .map_err(failed)?;
    answer.body_mut().read_to_string().map_err(failed)
}

/// `/health` as JSON.
pub fn health(addr: SocketAddr) -> Result<serde_json::Value, BenchError> {
    let body = http_get(addr, "/health")?;
    serde_json::from_str(&body).map_err(|source| BenchError::Health { addr, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One HTTP answer on a loopback port, as a daemon gives it; the port.
    fn answer_once(answer: &'static str) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            use std::io::{BufRead, BufReader, Write};
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap() > 0 && line != "\r\n" {
                line.clear();
            }
            (&stream).write_all(answer.as_bytes()).unwrap();
        });
        addr
    }

    #[test]
    fn a_get_returns_the_body_whatever_the_status() {
        let ok = answer_once(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}",
        );
        assert_eq!(http_get(ok, "/health").unwrap(), r#"{"ok":true}"#);
        let busy = answer_once("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy");
        assert_eq!(http_get(busy, "/health").unwrap(), "busy");
    }

    #[test]
    fn a_get_to_a_closed_port_names_the_address_and_path() {
        let addr = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let e = http_get(addr, "/health").unwrap_err().to_string();
        assert!(e.starts_with(&format!("{addr}/health: ")), "{e}");
    }

    #[test]
    fn this_process_has_cpu_time_and_memory() {
        let me = std::process::id();
        assert!(cpu_ticks(me).is_some());
        assert!(rss_mib(me).is_some_and(|m| m > 0.0));
        assert!(ticks_per_second() > 0.0);
    }
}
