//! Where each session of a node's journal falls in Unix time, so that a journal published
//! again (into a stream made anew) keeps its events' original times.
//!
//! The core counts milliseconds from the daemon's start and continues from the journal's last
//! time after a restart, so one Unix time at the core's 0 holds for one session only. The node
//! writes each session's start next to the journal (`<journal>.clock`, one line per session:
//! the session's first core time and the Unix ms at core time 0) and gives every message the
//! clock of the session its records belong to, never mixing two sessions in one message.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The sessions of one journal: (first core time, Unix ms at core time 0), in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Epochs {
    list: Vec<(u64, u64)>,
}

fn file_of(journal: &Path) -> PathBuf {
    let mut name = journal.as_os_str().to_owned();
    name.push(".clock");
    PathBuf::from(name)
}

impl Epochs {
    /// Reads the journal's sessions and records this one (it stamps from `first_t_ms` on,
    /// with `clock_unix_ms` at core time 0). A file that cannot be written is logged: the
    /// sessions before stay known, this one is known while the node runs.
    pub fn record(journal: &Path, first_t_ms: u64, clock_unix_ms: u64) -> Epochs {
        let path = file_of(journal);
        let mut list: Vec<(u64, u64)> = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let (a, b) = l.split_once(' ')?;
                Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
            })
            .collect();
        // A session that stamped nothing is replaced by the next one.
        list.retain(|(t, _)| *t < first_t_ms);
        list.push((first_t_ms, clock_unix_ms));
        let text: String = list.iter().map(|(t, c)| format!("{t} {c}\n")).collect();
        let written = std::fs::File::create(&path).and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.sync_all()
        });
        if let Err(e) = written {
            tracing::warn!(
                file = %path.display(),
                "cluster: cannot record this session's clock ({e}); a journal published again \
                 later dates this session's events by a later session's clock"
            );
        }
        Epochs { list }
    }

    /// The Unix ms at core time 0 of the session that stamped `t_ms`, and the first core time
    /// of the next session (a message stops before it). Times before the first recorded
    /// session (a journal older than this file) take the first session's clock.
    pub fn clock_of(&self, t_ms: u64) -> (u64, Option<u64>) {
        let i = self
            .list
            .iter()
            .rposition(|(first, _)| *first <= t_ms)
            .unwrap_or(0);
        let clock = self.list.get(i).map_or(0, |(_, c)| *c);
        (clock, self.list.get(i + 1).map(|(first, _)| *first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_session_keeps_its_own_clock_across_restarts() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("hall-a.sqlite");
        Epochs::record(&journal, 0, 1_000_000);
        // Restarted 60 s later: the core goes on from 5,001 ms.
        let e = Epochs::record(&journal, 5_001, 1_065_000);
        assert_eq!(e.clock_of(4_000), (1_000_000, Some(5_001)));
        assert_eq!(e.clock_of(5_001), (1_065_000, None));
        // A third start before the second stamped anything replaces it.
        let e = Epochs::record(&journal, 5_001, 1_070_000);
        assert_eq!(e.clock_of(6_000), (1_070_000, None));
        assert_eq!(Epochs::record(&journal, 9_000, 2).list.len(), 3);
    }
}
