//! `dgt-arbiter pairings import|results`: a round's pairings in, its results out.
//!
//! Import checks the file whole first (every problem with its line and a fix; nothing is
//! imported from a file with a problem), then hands it over as one `pairings` operator
//! action:
//!
//! * to the running daemon, by REST with the arbiter token (`POST /api/rounds/{n}/pairings`
//!   on the settings' `listen` address, or `--url`) — the normal way during an event;
//! * or, with `--journal J`, straight into the journal of a stopped daemon (preparing a
//!   round before the service starts): the journal is replayed through the core, which
//!   numbers the action's event after the last one. It refuses when the daemon's port
//!   answers, since two writers would number events twice.
//!
//! Either way the pairings are journaled and survive a restart, and `export pgn` and the
//! broadcast folders carry them.

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use dgt_core::pairing::{ROUND_BOARD, RoundPairings};
use dgt_core::{Input, InputKind, Operation};
use dgt_journal::{Batch, Journal, JournalError};
use dgt_pairings::RoundBook;

use crate::settings::Settings;

/// What can stop an import or a results export, each case with its fix.
#[derive(Debug, thiserror::Error)]
pub enum PairingsError {
    #[error("listen = {listen:?}: {source}")]
    BadListen {
        listen: String,
        source: std::net::AddrParseError,
    },
    #[error(
        "cannot reach the daemon at {addr} ({source}); fix: start it (systemctl start \
         dgt-arbiter), give its address with --url, or import into a stopped daemon's \
         journal with --journal"
    )]
    Unreachable { addr: String, source: ureq::Error },
    #[error("no answer from the daemon at {addr}: {source}")]
    NoAnswer { addr: String, source: ureq::Error },
    #[error("talking to the daemon at {addr}: {source}")]
    Http { addr: String, source: ureq::Error },
    #[error(
        "the daemon refused the arbiter token ({status}); fix: give --token or set \
         server.arbiter_token in the configuration"
    )]
    TokenRefused { status: u16 },
    #[error("the daemon did not take the pairings ({status}): {text}")]
    Refused { status: u16, text: String },
    #[error(
        "something answers on the daemon's port {addr}: a running daemon owns the \
         journal; fix: import through it (leave out --journal)"
    )]
    DaemonRunning { addr: SocketAddr },
    #[error("no journal at {}; fix: give the daemon's journal (journal.path)", .path.display())]
    NoDaemonJournal { path: PathBuf },
    #[error(
        "no journal at {}; fix: give --journal PATH (or the configuration's journal.path)",
        .path.display()
    )]
    NoJournal { path: PathBuf },
    #[error("journal {}: {source}", .path.display())]
    Journal { path: PathBuf, source: JournalError },
    #[error("{0}")]
    JournalRead(JournalError),
    #[error(
        "the journal has no pairings for round {round}; fix: dgt-arbiter pairings import \
         FILE --round {round}"
    )]
    NoPairings { round: u32 },
    #[error(
        "round {round}'s pairings came from a pairing list, not a TRF; fix: import the \
         round's TRF, or ask for --format csv"
    )]
    NotTrf { round: u32 },
}

fn journal_error(path: &Path) -> impl FnOnce(JournalError) -> PairingsError + '_ {
    move |source| PairingsError::Journal {
        path: path.to_path_buf(),
        source,
    }
}

/// The dashboard's address to reach from this machine: the settings' `listen`, with a
/// wildcard address replaced by loopback.
pub fn daemon_addr(settings: &Settings) -> Result<SocketAddr, PairingsError> {
    let mut addr: SocketAddr =
        settings
            .listen
            .parse()
            .map_err(|source| PairingsError::BadListen {
                listen: settings.listen.clone(),
                source,
            })?;
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    Ok(addr)
}

/// One POST to the daemon's own REST port; (status, body). Plain HTTP on the venue's own
/// network: no proxy from the environment, no redirect followed, a refusal (4xx) is an
/// answer to report.
fn post(
    addr: &str,
    path: &str,
    token: Option<&str>,
    body: &[u8],
) -> Result<(u16, String), PairingsError> {
    let failed = |source: ureq::Error| {
        let addr = addr.to_string();
        match &source {
            ureq::Error::HostNotFound
            | ureq::Error::ConnectionFailed
            | ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => {
                PairingsError::Unreachable { addr, source }
            }
            ureq::Error::Io(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionRefused
                        | std::io::ErrorKind::AddrNotAvailable
                        | std::io::ErrorKind::HostUnreachable
                        | std::io::ErrorKind::NetworkUnreachable
                ) =>
            {
                PairingsError::Unreachable { addr, source }
            }
            ureq::Error::Timeout(_) => PairingsError::NoAnswer { addr, source },
            _ => PairingsError::Http { addr, source },
        }
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .timeout_connect(Some(Duration::from_secs(5)))
        .timeout_global(Some(Duration::from_secs(20)))
        .build()
        .into();
    let mut request = agent
        .post(format!("http://{addr}{path}"))
        .header("Content-Type", "text/plain; charset=utf-8");
    if let Some(t) = token {
        request = request.header("Authorization", format!("Bearer {t}"));
    }
    let mut answer = request.send(body).map_err(failed)?;
    let status = answer.status().as_u16();
    let text = answer.body_mut().read_to_string().map_err(failed)?;
    Ok((status, text))
}

/// How the tables came out, for the arbiter to check against the pairing program.
pub fn summary(p: &RoundPairings, map: &dgt_pairings::TableMap) -> String {
    let mut out = format!(
        "round {}: {} tables, {} byes ({})\n",
        p.round,
        p.tables.len(),
        p.byes.len(),
        p.format.as_deref().unwrap_or("?")
    );
    for t in &p.tables {
        out.push_str(&format!(
            "  table {:>3} (board {}): {} - {}\n",
            t.table,
            map.label(t.table),
            t.white.name,
            t.black.name
        ));
    }
    for b in &p.byes {
        out.push_str(&format!("  bye ({}): {}\n", b.code, b.player.name));
    }
    out
}

/// Hands checked pairings to the running daemon. `raw` is the file as read (the daemon
/// checks it again and keeps the TRF text).
pub fn import_via_daemon(
    addr: &str,
    token: Option<&str>,
    round: u32,
    order: &str,
    raw: &[u8],
) -> Result<(), PairingsError> {
    let (status, body) = post(
        addr,
        &format!("/api/rounds/{round}/pairings?order={order}"),
        token,
        raw,
    )?;
    match status {
        200 => Ok(()),
        401 | 403 => Err(PairingsError::TokenRefused { status }),
        _ => {
            let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
            let mut text = v["error"].as_str().unwrap_or(&body).to_string();
            for p in v["problems"].as_array().into_iter().flatten() {
                text.push_str(&format!(
                    "\nline {}: {}; fix: {}",
                    p["line"],
                    p["message"].as_str().unwrap_or_default(),
                    p["fix"].as_str().unwrap_or_default()
                ));
            }
            Err(PairingsError::Refused { status, text })
        }
    }
}

/// Appends the pairings to a stopped daemon's journal as one operator action, numbered by
/// the core after the journal's last event. Returns the event's seq.
pub fn import_into_journal(
    path: &Path,
    settings: &Settings,
    pairings: RoundPairings,
) -> Result<u64, PairingsError> {
    if let Ok(addr) = daemon_addr(settings)
        && TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
    {
        return Err(PairingsError::DaemonRunning { addr });
    }
    if !path.exists() {
        return Err(PairingsError::NoDaemonJournal {
            path: path.to_path_buf(),
        });
    }
    let mut journal = Journal::open(path).map_err(journal_error(path))?;
    journal.set_segment_rule(settings.journal.segment);
    let (mut core, _report, recovered) =
        dgt_journal::recover_collecting(&journal, settings.core.clone())
            .map_err(journal_error(path))?;
    let input = Input {
        t_ms: recovered.last_t_ms,
        board: ROUND_BOARD.into(),
        kind: InputKind::Op(Operation::Pairings(pairings)),
    };
    let events = core.handle(&input);
    let seq = events.last().map_or(0, |e| e.seq);
    let mut batch = Batch::new();
    batch.record_input(input, events);
    journal.append(&batch).map_err(journal_error(path))?;
    Ok(seq)
}

/// Which results file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ResultsFormat {
    Csv,
    Trf,
}

/// A round's results for the pairing program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundResults {
    pub text: String,
    /// The pairing file's encoding when it was not UTF-8: the results are written in it.
    pub encoding: Option<String>,
    /// Tables still without a result.
    pub unfinished: Vec<u32>,
    /// Tables whose result waits for an arbiter's confirmation (a result gesture).
    pub unconfirmed: Vec<u32>,
}

/// The round's results out of the journal, with the tables still without a result and
/// those not confirmed.
pub fn results(
    journal_path: &Path,
    settings: &Settings,
    round: u32,
    format: ResultsFormat,
) -> Result<RoundResults, PairingsError> {
    if !journal_path.exists() {
        return Err(PairingsError::NoJournal {
            path: journal_path.to_path_buf(),
        });
    }
    let journal = Journal::open_read_only(journal_path).map_err(journal_error(journal_path))?;
    let map = crate::output::table_map(settings);
    let mut book = RoundBook::with_map(map.clone());
    let mut present: Vec<String> = Vec::new();
    for json in journal
        .events_since(0)
        .map_err(PairingsError::JournalRead)?
    {
        book.apply_json(&json);
        if json.contains("\"type\":\"board_status\"")
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(&json)
            && let Some(b) = v["board"].as_str()
            && !present.iter().any(|p| p == b)
        {
            present.push(b.to_string());
        }
    }
    let Some(info) = book.round(round) else {
        return Err(PairingsError::NoPairings { round });
    };
    let boards: Vec<&str> = present.iter().map(String::as_str).collect();
    let outcomes = book.outcomes(round, &map, &boards);
    let unfinished = dgt_pairings::results::unfinished(&outcomes);
    let text = match format {
        ResultsFormat::Csv => dgt_pairings::results::csv(&info.pairings, &outcomes),
        ResultsFormat::Trf => dgt_pairings::results::trf(&info.pairings, &outcomes)
            .ok_or(PairingsError::NotTrf { round })?,
    };
    Ok(RoundResults {
        text,
        encoding: info.pairings.encoding.clone(),
        unfinished,
        unconfirmed: dgt_pairings::results::unconfirmed(&outcomes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed errors read as the messages users had before them, fix included.
    #[test]
    fn errors_say_what_to_do() {
        assert_eq!(
            PairingsError::TokenRefused { status: 401 }.to_string(),
            "the daemon refused the arbiter token (401); fix: give --token or set \
             server.arbiter_token in the configuration"
        );
        assert_eq!(
            PairingsError::NoJournal {
                path: "/var/lib/j.sqlite".into()
            }
            .to_string(),
            "no journal at /var/lib/j.sqlite; fix: give --journal PATH (or the \
             configuration's journal.path)"
        );
        assert_eq!(
            PairingsError::NotTrf { round: 3 }.to_string(),
            "round 3's pairings came from a pairing list, not a TRF; fix: import the round's \
             TRF, or ask for --format csv"
        );
        let settings = Settings {
            listen: "nowhere".into(),
            ..Settings::default()
        };
        assert!(
            daemon_addr(&settings)
                .unwrap_err()
                .to_string()
                .starts_with("listen = \"nowhere\": ")
        );
    }
}
