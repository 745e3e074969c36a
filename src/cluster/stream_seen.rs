//! Which stream of the event a node's journal was published into, kept next to the journal
//! (`<journal>.stream`: the stream's name and creation time, Unix ms).
//!
//! A stream made anew (a broker that lost its store, a stream removed by the admin) holds
//! none of the old one's order, so a hub that reads only the new one numbers events otherwise
//! than the hubs before it. When no hub ran through the loss — a broker and hub on the same
//! PC, replaced together — only the nodes know: a node whose subject is empty on a stream
//! created at another time than the one it published into says so on its first message
//! (`Dgt-Earlier-Stream`), and every hub that reads it tells its own numbering differs.

use std::path::{Path, PathBuf};

pub struct StreamSeen {
    path: PathBuf,
}

impl StreamSeen {
    pub fn of(journal: &Path) -> StreamSeen {
        let mut name = journal.as_os_str().to_owned();
        name.push(".stream");
        StreamSeen {
            path: PathBuf::from(name),
        }
    }

    /// The stream last published into and its creation time, if known.
    pub fn read(&self) -> Option<(String, u64)> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        let (name, created) = text.trim().split_once(' ')?;
        Some((name.to_string(), created.parse().ok()?))
    }

    /// Records the stream the node's messages are in now (logged when it cannot be written:
    /// a later loss would then go untold by this node).
    pub fn write(&self, stream: &str, created_unix_ms: u64) {
        if let Err(e) = std::fs::write(&self.path, format!("{stream} {created_unix_ms}\n")) {
            tracing::warn!(
                file = %self.path.display(),
                "cluster: cannot record which stream this journal is published into ({e})"
            );
        }
    }

    /// Compares with the stream found (`stream`, made at `created_unix_ms`, where the node
    /// has `batch` messages): records it once the node's messages are there, and returns the
    /// earlier stream's creation time when the node had published into another stream of the
    /// same name and starts this one from nothing.
    pub fn compare(&self, stream: &str, created_unix_ms: u64, batch: u64) -> Option<u64> {
        let recorded = self
            .read()
            .filter(|(name, _)| name == stream)
            .map(|(_, c)| c);
        if batch > 0 {
            if recorded != Some(created_unix_ms) {
                self.write(stream, created_unix_ms);
            }
            return None;
        }
        recorded.filter(|r| *r != created_unix_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_tells_an_earlier_stream_only_when_it_starts_a_new_one_from_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let seen = StreamSeen::of(&dir.path().join("hall-a.sqlite"));
        // The event's first stream: nothing earlier.
        assert_eq!(seen.compare("DGT_a", 1_000, 0), None);
        assert_eq!(seen.compare("DGT_a", 1_000, 3), None);
        assert_eq!(seen.read(), Some(("DGT_a".to_string(), 1_000)));
        // The broker lost its store: a stream made at 2,000, empty of this node.
        assert_eq!(seen.compare("DGT_a", 2_000, 0), Some(1_000));
        // Another event's stream is no earlier stream of this one.
        assert_eq!(seen.compare("DGT_b", 3_000, 0), None);
        // Once its first message is in, the new stream is the one recorded.
        assert_eq!(seen.compare("DGT_a", 2_000, 1), None);
        assert_eq!(seen.compare("DGT_a", 2_000, 0), None);
    }
}
