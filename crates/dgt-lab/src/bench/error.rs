//! Why a bench stopped: its options, the processes it starts, the boards, the clients and
//! the journals it reads back. The messages name the process, node or file concerned.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use dgt_journal::JournalError;
use tokio_tungstenite::tungstenite;

use super::boards::MAX_BOARDS;

/// A bench that could not run or finish.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("--boards must be 1 to {MAX_BOARDS}")]
    BoardCount,
    #[error("--seconds must be at least 1")]
    NoSeconds,
    #[error("--nodes cannot exceed --boards (each node needs a board)")]
    MoreNodesThanBoards,
    #[error("--clients must be at least 1 (they measure latency and loss)")]
    NoClients,
    #[error("temporary directory: {0}")]
    TempDir(std::io::Error),
    #[error("this program's path: {0}")]
    OwnPath(std::io::Error),
    /// A file the bench writes (a log, a node's settings).
    #[error("{}: {source}", .path.display())]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not UTF-8", .0.display())]
    PathNotUtf8(PathBuf),
    #[error("temporary path is not UTF-8")]
    TempPathNotUtf8,
    #[error("cannot open a pseudo-terminal for board {board}: {source}")]
    Pty {
        board: usize,
        source: std::io::Error,
    },
    #[error("cannot start {what} ({}): {source}", .program.display())]
    Start {
        what: String,
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("{what} exited ({status}) before serving; its log:\n{log}")]
    ExitedBeforeServing {
        what: String,
        status: ExitStatus,
        log: String,
    },
    #[error("{what} did not serve within {within:?}")]
    NotServing { what: String, within: Duration },
    #[error("{what} stopped with {status}")]
    StoppedWith { what: String, status: ExitStatus },
    #[error("{what} did not stop within {within:?}")]
    NotStopped { what: String, within: Duration },
    /// Waiting for a process failed.
    #[error("{what}: {source}")]
    Wait {
        what: String,
        source: std::io::Error,
    },
    #[error("no free loopback port: {0}")]
    NoFreePort(std::io::Error),
    #[error("nats-server is not installed (apt-get install nats-server)")]
    NoNatsServer,
    #[error("nats-server did not listen on {0}")]
    BrokerNotListening(SocketAddr),
    /// A request to a daemon: no connection, no answer in time, or an answer that is no
    /// HTTP.
    #[error("{addr}{path}: {source}")]
    Http {
        addr: SocketAddr,
        path: String,
        source: Box<ureq::Error>,
    },
    #[error("{addr}/health: {source}")]
    Health {
        addr: SocketAddr,
        source: serde_json::Error,
    },
    /// A daemon's `/health` lacks a field the bench needs.
    #[error("{node}: /health has no {field}")]
    HealthField { node: String, field: &'static str },
    #[error("{node}: only {connected} of {boards} boards connected after {within:?}")]
    NotConnected {
        node: String,
        connected: usize,
        boards: usize,
        within: Duration,
    },
    #[error("WebSocket client on {addr}: {source}")]
    WebSocketConnect {
        addr: SocketAddr,
        source: Box<tungstenite::Error>,
    },
    #[error("WebSocket: {0}")]
    WebSocket(Box<tungstenite::Error>),
    #[error("client task: {0}")]
    ClientTask(tokio::task::JoinError),
    #[error("{source}")]
    ReadJournal { path: PathBuf, source: JournalError },
    #[error("journal {}: an event that is not JSON ({source})", .path.display())]
    EventJson {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("empty journal: {0}")]
    EmptyJournal(JournalError),
    /// `--restart-history`: writing or preparing the long journal.
    #[error("restart history {}: {detail}", .path.display())]
    History { path: PathBuf, detail: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_what_failed() {
        let addr: SocketAddr = ([127, 0, 0, 1], 4000).into();
        let cases = [
            (
                BenchError::BoardCount.to_string(),
                format!("--boards must be 1 to {MAX_BOARDS}"),
            ),
            (
                BenchError::NotConnected {
                    node: "node-1".into(),
                    connected: 3,
                    boards: 5,
                    within: Duration::from_secs(60),
                }
                .to_string(),
                "node-1: only 3 of 5 boards connected after 60s".into(),
            ),
            (
                BenchError::Http {
                    addr,
                    path: "/health".into(),
                    source: Box::new(ureq::Error::ConnectionFailed),
                }
                .to_string(),
                format!("127.0.0.1:4000/health: {}", ureq::Error::ConnectionFailed),
            ),
            (
                BenchError::HealthField {
                    node: "node-2".into(),
                    field: "committed_seq",
                }
                .to_string(),
                "node-2: /health has no committed_seq".into(),
            ),
            (
                BenchError::PathNotUtf8("/tmp/x".into()).to_string(),
                "/tmp/x is not UTF-8".into(),
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
