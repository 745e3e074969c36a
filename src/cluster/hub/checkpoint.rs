//! The hub's checkpoint: everything the hub built from the event's stream up to a stream
//! sequence P, saved so that a restarted hub reads only what came after P.
//!
//! The hub's view is a pure function of the stream (and of `[cluster] round_nodes`), so a
//! checkpoint made at P and the messages after P give exactly what reading the whole stream
//! gives. What it holds: the numbering ([`ViewState`]: the nodes' chains and positions, the
//! next seq, the alert ids), what the hub knows of its own records and of a stream made anew,
//! acks its server had not matched yet, the server's views (hall, rounds, alerts, feed
//! ring, public feed) at the hub seq P ended at, and — on a hub that writes broadcast
//! folders — the broadcast writer's books (games, rounds) at the same seq.
//!
//! It names the stream it was read from (name and creation time): a checkpoint of another
//! stream — one made anew after a broker lost its store has another creation time — of
//! another format or program version, one made under other `round_nodes`, one ahead of the
//! stream, or one that does not decode is ignored with a warning, and the hub reads the
//! stream from its start (correctness first). It is one file written whole to a temporary
//! name, synced, then renamed over the old one: a crash leaves the old checkpoint or the
//! new, never half of one (docs/decisions/hub-checkpoint.md).
//!
//! The file: a magic, the hub's state ([`Saved`]) as gzip of its JSON (its CRC-32 and length
//! trailer catch a damaged state), then the server's views bytes as dgt-server gives them
//! (deflated already: not compressed twice) with their own CRC-32, then the broadcast books
//! (deflated already; length 0 when the hub writes no folders) with theirs.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::{Compression, Crc};
use serde::{Deserialize, Serialize};

use super::view::ViewState;

/// The layout of the file; another one is not read.
pub const FORMAT: u32 = 2;

/// The program that writes it: another version may build its views otherwise.
pub const PROGRAM: &str = env!("CARGO_PKG_VERSION");

/// The stream a checkpoint was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamIdentity {
    pub name: String,
    /// When the broker made it (Unix ms): a stream made anew under the same name has another.
    pub created_unix_ms: u64,
}

/// The hub's own state (everything but the server's views bytes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub format: u32,
    pub program: String,
    pub stream: StreamIdentity,
    /// The last stream sequence applied: the restarted hub reads from the one after.
    pub position: u64,
    /// When it was written (Unix ms), for the log.
    pub written_unix_ms: u64,
    pub view: ViewState,
    /// The stream sequence of the last hub record applied (the next hub record's check).
    pub hub_subject_seq: u64,
    /// Streams made anew this hub ran through (its numbering is the one from before).
    pub recreated: u64,
    /// Whether the stream read has told that it was made anew.
    pub remade_told: bool,
    /// The hub-local `hub_numbering_differs` alert, when open: its message and when raised.
    pub numbering_differs: Option<(String, u64)>,
    /// Acks read before the server had their alert.
    pub pending_acks: Vec<u64>,
    /// The hub seq the server's views were saved at (the view's seq at `position`).
    pub views_seq: u64,
}

/// A whole checkpoint: the hub's state, its server's views and its broadcast books.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    pub saved: Saved,
    pub views: Vec<u8>,
    /// The broadcast writer's books ([`crate::output::BroadcastWriter::snapshot`]) at the
    /// views' seq, when the hub writes broadcast folders.
    pub books: Option<Vec<u8>>,
}

/// Why a checkpoint was not used (the hub then reads the stream from its start).
#[derive(Debug, thiserror::Error)]
pub enum Unusable {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} does not decode ({detail}): damaged or not a checkpoint")]
    Corrupt { path: PathBuf, detail: String },
    #[error("{path} has format {found}, this program reads {FORMAT}")]
    Format { path: PathBuf, found: u32 },
    #[error("{path} was written by version {found}, this is {PROGRAM}")]
    Program { path: PathBuf, found: String },
    #[error(
        "{path} is of the stream {found_name} made at Unix ms {found_created}; the stream now \
         is {name} made at {created} (made anew, or another event)"
    )]
    OtherStream {
        path: PathBuf,
        found_name: String,
        found_created: u64,
        name: String,
        created: u64,
    },
    #[error("{path} ends at stream sequence {position}, past the stream's last {last}")]
    AheadOfStream {
        path: PathBuf,
        position: u64,
        last: u64,
    },
    #[error(
        "{path} was made with round_nodes {found:?}, the settings now give {now:?} (the \
         numbering depends on it)"
    )]
    RoundNodes {
        path: PathBuf,
        found: Vec<String>,
        now: Vec<String>,
    },
    #[error("{path} holds no server views (written without them)")]
    NoViews { path: PathBuf },
    #[error(
        "{path} holds no broadcast books (written by a hub without broadcast folders), and \
         this hub writes them"
    )]
    NoBooks { path: PathBuf },
}

/// What a checkpoint must match to be used.
#[derive(Debug, Clone)]
pub struct Expected<'a> {
    pub stream: &'a StreamIdentity,
    /// The stream's last sequence now.
    pub last: u64,
    pub round_nodes: &'a [String],
    /// Whether the hub writes broadcast folders (their books must be in it).
    pub books: bool,
}

fn corrupt(path: &Path, detail: impl ToString) -> Unusable {
    Unusable::Corrupt {
        path: path.to_path_buf(),
        detail: detail.to_string(),
    }
}

/// What starts a checkpoint file.
const MAGIC: &[u8; 8] = b"DGTHUBCP";

/// The checkpoint's bytes: the magic, the hub's state (gzip of its JSON: gzip's CRC-32 and
/// length trailer check it), then the server's views and the broadcast books as they are
/// (already deflated) each with its own CRC-32.
pub fn encode(c: &Checkpoint) -> Result<Vec<u8>, serde_json::Error> {
    let saved = serde_json::to_vec(&c.saved)?;
    let mut gz = GzEncoder::new(Vec::with_capacity(saved.len() / 4), Compression::fast());
    // Writes into a Vec do not fail.
    gz.write_all(&saved).expect("writing into memory");
    let state = gz.finish().expect("writing into memory");
    let books = c.books.as_deref().unwrap_or_default();
    let mut out = Vec::with_capacity(MAGIC.len() + 36 + state.len() + c.views.len() + books.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(state.len() as u64).to_le_bytes());
    out.extend_from_slice(&state);
    for part in [c.views.as_slice(), books] {
        let mut crc = Crc::new();
        crc.update(part);
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part);
        out.extend_from_slice(&crc.sum().to_le_bytes());
    }
    Ok(out)
}

/// Takes one part written by [`encode`]: its length, its bytes, their CRC-32.
fn take_part<'a>(path: &Path, rest: &mut &'a [u8], what: &str) -> Result<&'a [u8], Unusable> {
    let short = || corrupt(path, "shorter than its header says");
    let len = take_u64(rest).ok_or_else(short)?;
    let part = take(rest, usize::try_from(len).map_err(|_| short())?).ok_or_else(short)?;
    let sum = take(rest, 4).ok_or_else(short)?;
    let mut crc = Crc::new();
    crc.update(part);
    if crc.sum().to_le_bytes() != sum {
        return Err(corrupt(path, format!("{what} fail their CRC-32")));
    }
    Ok(part)
}

/// Takes `n` bytes off the front of `rest`.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if rest.len() < n {
        return None;
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Some(head)
}

fn take_u64(rest: &mut &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(take(rest, 8)?.try_into().ok()?))
}

/// A checkpoint from its bytes (`path` names it in errors).
pub fn decode(path: &Path, bytes: &[u8]) -> Result<Checkpoint, Unusable> {
    let short = || corrupt(path, "shorter than its header says");
    let mut rest = bytes;
    if take(&mut rest, MAGIC.len()) != Some(MAGIC.as_slice()) {
        return Err(corrupt(path, "not a hub checkpoint"));
    }
    let len = take_u64(&mut rest).ok_or_else(short)?;
    let state = take(&mut rest, usize::try_from(len).map_err(|_| short())?).ok_or_else(short)?;
    let mut saved = Vec::new();
    GzDecoder::new(state)
        .read_to_end(&mut saved)
        .map_err(|e| corrupt(path, e))?;
    // The format first: a later one may have other fields.
    #[derive(Deserialize)]
    struct Head {
        format: u32,
        program: String,
    }
    let head: Head = serde_json::from_slice(&saved).map_err(|e| corrupt(path, e))?;
    if head.format != FORMAT {
        return Err(Unusable::Format {
            path: path.to_path_buf(),
            found: head.format,
        });
    }
    if head.program != PROGRAM {
        return Err(Unusable::Program {
            path: path.to_path_buf(),
            found: head.program,
        });
    }
    let saved: Saved = serde_json::from_slice(&saved).map_err(|e| corrupt(path, e))?;
    let views = take_part(path, &mut rest, "the server's views")?;
    let books = take_part(path, &mut rest, "the broadcast books")?;
    if !rest.is_empty() {
        return Err(corrupt(path, "bytes after its end"));
    }
    Ok(Checkpoint {
        saved,
        views: views.to_vec(),
        books: (!books.is_empty()).then(|| books.to_vec()),
    })
}

/// Writes `c` to `path` whole: a temporary file next to it, synced, renamed over it, and the
/// folder synced (the rename itself survives a power cut).
pub fn write(path: &Path, c: &Checkpoint) -> std::io::Result<u64> {
    let bytes = encode(c).map_err(std::io::Error::other)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
    tmp.write_all(&bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(bytes.len() as u64)
}

/// Reads the checkpoint at `path` and checks it against the stream now. `Ok(None)`: there
/// is none (a first start).
pub fn load(path: &Path, expected: &Expected<'_>) -> Result<Option<Checkpoint>, Unusable> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Unusable::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let c = decode(path, &bytes)?;
    check(path, &c, expected)?;
    Ok(Some(c))
}

fn check(path: &Path, c: &Checkpoint, expected: &Expected<'_>) -> Result<(), Unusable> {
    let s = &c.saved;
    if &s.stream != expected.stream {
        return Err(Unusable::OtherStream {
            path: path.to_path_buf(),
            found_name: s.stream.name.clone(),
            found_created: s.stream.created_unix_ms,
            name: expected.stream.name.clone(),
            created: expected.stream.created_unix_ms,
        });
    }
    if s.position > expected.last {
        return Err(Unusable::AheadOfStream {
            path: path.to_path_buf(),
            position: s.position,
            last: expected.last,
        });
    }
    let mut now = expected.round_nodes.to_vec();
    now.sort();
    now.dedup();
    if s.view.round_nodes != now {
        return Err(Unusable::RoundNodes {
            path: path.to_path_buf(),
            found: s.view.round_nodes.clone(),
            now,
        });
    }
    if c.views.is_empty() {
        return Err(Unusable::NoViews {
            path: path.to_path_buf(),
        });
    }
    if expected.books && c.books.is_none() {
        return Err(Unusable::NoBooks {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::hub::view::HubView;

    fn stream() -> StreamIdentity {
        StreamIdentity {
            name: "DGT_open".into(),
            created_unix_ms: 1_700_000_000_000,
        }
    }

    fn sample() -> Checkpoint {
        Checkpoint {
            saved: Saved {
                format: FORMAT,
                program: PROGRAM.into(),
                stream: stream(),
                position: 40,
                written_unix_ms: 5,
                view: HubView::new(["hall-a".to_string()]).state(),
                hub_subject_seq: 12,
                recreated: 0,
                remade_told: false,
                numbering_differs: None,
                pending_acks: vec![3],
                views_seq: 0,
            },
            views: b"views".to_vec(),
            books: Some(b"books".to_vec()),
        }
    }

    fn expected<'a>(stream: &'a StreamIdentity, round_nodes: &'a [String]) -> Expected<'a> {
        Expected {
            stream,
            last: 50,
            round_nodes,
            books: true,
        }
    }

    #[test]
    fn a_checkpoint_written_is_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hub.checkpoint");
        write(&path, &sample()).unwrap();
        let nodes = ["hall-a".to_string()];
        let s = stream();
        let back = load(&path, &expected(&s, &nodes)).unwrap().unwrap();
        assert_eq!(back, sample());
        // Written again over it: the new one whole, no temporary file left.
        let mut later = sample();
        later.saved.position = 50;
        write(&path, &later).unwrap();
        assert_eq!(
            load(&path, &expected(&s, &nodes))
                .unwrap()
                .unwrap()
                .saved
                .position,
            50
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(
            load(&dir.path().join("none"), &expected(&s, &nodes))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_checkpoint_that_does_not_fit_the_stream_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hub.checkpoint");
        write(&path, &sample()).unwrap();
        let nodes = ["hall-a".to_string()];
        let remade = StreamIdentity {
            created_unix_ms: 1_700_000_000_001,
            ..stream()
        };
        assert!(matches!(
            load(&path, &expected(&remade, &nodes)),
            Err(Unusable::OtherStream { .. })
        ));
        let s = stream();
        let short = Expected {
            last: 39,
            ..expected(&s, &nodes)
        };
        assert!(matches!(
            load(&path, &short),
            Err(Unusable::AheadOfStream { .. })
        ));
        assert!(matches!(
            load(&path, &expected(&s, &[])),
            Err(Unusable::RoundNodes { .. })
        ));
        let mut other = sample();
        other.saved.program = "0.0.1".into();
        write(&path, &other).unwrap();
        assert!(matches!(
            load(&path, &expected(&s, &nodes)),
            Err(Unusable::Program { .. })
        ));
        // A hub without broadcast folders saves no books: a hub that writes them cannot use it.
        let mut no_books = sample();
        no_books.books = None;
        write(&path, &no_books).unwrap();
        assert!(matches!(
            load(&path, &expected(&s, &nodes)),
            Err(Unusable::NoBooks { .. })
        ));
        let without_folders = Expected {
            books: false,
            ..expected(&s, &nodes)
        };
        assert_eq!(load(&path, &without_folders).unwrap().unwrap(), no_books);
        let mut bare = sample();
        bare.views.clear();
        write(&path, &bare).unwrap();
        assert!(matches!(
            load(&path, &expected(&s, &nodes)),
            Err(Unusable::NoViews { .. })
        ));
    }

    #[test]
    fn a_damaged_checkpoint_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hub.checkpoint");
        let nodes = ["hall-a".to_string()];
        let s = stream();
        let good = encode(&sample()).unwrap();
        // One byte changed in the middle, cut short, not gzip at all.
        let mut flipped = good.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x55;
        for bytes in [flipped, good[..good.len() - 6].to_vec(), b"{}".to_vec()] {
            std::fs::write(&path, bytes).unwrap();
            let err = load(&path, &expected(&s, &nodes)).unwrap_err();
            assert!(matches!(err, Unusable::Corrupt { .. }), "{err}");
        }
    }
}
