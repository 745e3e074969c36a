//! A real `nats-server` (Debian's package) with JetStream, on a free loopback port and a
//! store in a temporary folder, for the cluster tests. `.ci/run` installs the package; on a
//! machine without it each test that needs it skips with a notice ([`nats_server_or_skip`]).

#![allow(dead_code)]

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dgt_testkit::skip_note;

pub struct Broker {
    child: Option<Child>,
    pub port: u16,
    store: PathBuf,
    log: PathBuf,
    /// A configuration file (`-c`), when the broker runs with one.
    config: Option<PathBuf>,
}

fn installed() -> Option<PathBuf> {
    ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

fn executable() -> PathBuf {
    installed().expect("nats-server is installed (checked by nats_server_or_skip)")
}

/// Whether `nats-server` is installed; when it is not, `test` is noted as skipped (and fails
/// under CI) — the caller returns at once.
#[must_use]
pub fn nats_server_or_skip(test: &str) -> bool {
    if installed().is_some() {
        return true;
    }
    skip_note::skipped(test, "nats-server", "sudo apt-get install nats-server");
    false
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Broker {
    /// Starts a broker with JetStream storing under `dir`.
    pub fn start(dir: &Path) -> Broker {
        let mut b = Broker {
            child: None,
            port: free_port(),
            store: dir.join("jetstream"),
            log: dir.join("nats-server.log"),
            config: None,
        };
        b.restart();
        b
    }

    /// Starts a broker from a configuration file's text, its `listen` and `store_dir` lines
    /// replaced by a free loopback port and a folder under `dir`.
    pub fn start_with_config(dir: &Path, text: &str) -> Broker {
        let port = free_port();
        let store = dir.join("jetstream");
        let mut replaced = 0;
        let text: String = text
            .lines()
            .map(|l| {
                let t = l.trim_start();
                if t.starts_with("listen:") {
                    replaced += 1;
                    format!("listen: 127.0.0.1:{port}")
                } else if t.starts_with("store_dir:") {
                    replaced += 1;
                    format!("  store_dir: {:?}", store.display().to_string())
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            replaced, 2,
            "the configuration has listen and store_dir lines"
        );
        let config = dir.join("nats-server.conf");
        std::fs::write(&config, text).unwrap();
        let mut b = Broker {
            child: None,
            port,
            store,
            log: dir.join("nats-server.log"),
            config: Some(config),
        };
        b.restart();
        b
    }

    /// The shipped `config/nats-server.conf` and its users (`config/nats-accounts.conf`), the
    /// passwords set to `test-pw-<user>` (`hub-events` first: `hub` is a prefix of it).
    pub fn start_shipped(dir: &Path) -> Broker {
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("config");
        let set = |text: String| {
            ["hall-a", "hall-b", "hub-events", "hub", "admin"]
                .iter()
                .fold(text, |t, u| {
                    t.replace(&format!("CHANGE-ME-{u}"), &format!("test-pw-{u}"))
                })
        };
        let accounts = std::fs::read_to_string(config.join("nats-accounts.conf")).unwrap();
        std::fs::write(dir.join("nats-accounts.conf"), set(accounts)).unwrap();
        let server = std::fs::read_to_string(config.join("nats-server.conf")).unwrap();
        Broker::start_with_config(dir, &set(server))
    }

    /// The store's folder (to lose it, as a broker PC whose disk was replaced).
    pub fn store(&self) -> &Path {
        &self.store
    }

    /// Started from a configuration file (with users).
    pub fn secured(&self) -> bool {
        self.config.is_some()
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Starts it again on the same port and store (after [`Broker::kill`]).
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "the broker is running");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let mut command = Command::new(executable());
        match &self.config {
            Some(config) => {
                command.arg("-c").arg(config);
            }
            None => {
                command
                    .args(["-js", "-a", "127.0.0.1", "-p"])
                    .arg(self.port.to_string())
                    .arg("-sd")
                    .arg(&self.store);
            }
        }
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("nats-server starts");
        self.child = Some(child);
        let addr: SocketAddr = format!("127.0.0.1:{}", self.port).parse().unwrap();
        let end = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_err() {
            assert!(Instant::now() < end, "nats-server did not listen on {addr}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A broker on a free port whose JetStream does not answer (started without it, as one
    /// still reading its store); [`Broker::kill`] then [`Broker::restart`] brings it up with
    /// JetStream on the same port.
    pub fn start_without_jetstream(dir: &Path) -> Broker {
        let mut b = Broker {
            child: None,
            port: free_port(),
            store: dir.join("jetstream"),
            log: dir.join("nats-server.log"),
            config: None,
        };
        let child = Command::new(executable())
            .args(["-a", "127.0.0.1", "-p"])
            .arg(b.port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        let addr: SocketAddr = format!("127.0.0.1:{}", b.port).parse().unwrap();
        let end = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_err() {
            assert!(Instant::now() < end, "nats-server did not listen on {addr}");
            std::thread::sleep(Duration::from_millis(50));
        }
        b.child = Some(child);
        b
    }

    /// SIGKILL: the broker dies as in a power cut of its PC.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.kill();
    }
}
