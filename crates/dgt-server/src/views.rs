//! The server's views as bytes: everything [`crate::Server::run`] builds from the history
//! (the arbiter hall with its rounds, alerts, acks and actions; the resume ring; the
//! counts; the delayed public hall and the public events still waiting out the delay), so
//! that a restarted daemon or hub restores them from a snapshot and applies only the events
//! after it instead of every event of the day.
//!
//! The bytes are a magic, a format version and the views as JSON compressed with deflate
//! (see `docs/decisions/views-snapshot-format.md`). A snapshot of another version, or of
//! other `[[tables]]` settings, or that does not decode, is refused with a [`ViewsError`]:
//! the caller then gives the server the whole history, as before snapshots.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use dgt_core::Event;
use dgt_pairings::TableMap;
use serde::{Deserialize, Serialize};

use crate::feed::{Counts, Feed, Frame};
use crate::hall::Hall;
use crate::public::{Arrivals, PublicFeed};

/// The first bytes of every views snapshot.
const MAGIC: &[u8; 4] = b"DGTV";

/// The layout of the views this build writes and reads. A change to any serialized view
/// type raises it: an older snapshot is then refused and the history applied instead.
pub const VIEWS_FORMAT: u32 = 1;

/// The server's views after every event with `seq <= seq`, as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewsSnapshot {
    pub seq: u64,
    pub bytes: Vec<u8>,
}

/// Why a views snapshot was refused: the caller applies the whole history instead.
#[derive(Debug, thiserror::Error)]
pub enum ViewsError {
    #[error("not a views snapshot (no header)")]
    NotASnapshot,
    #[error("views snapshot format {found}, this build reads format {expected}")]
    Version { found: u32, expected: u32 },
    #[error("views snapshot does not decode: {0}")]
    Decode(String),
    #[error("views snapshot says seq {said} but holds the views after seq {holds}")]
    SeqMismatch { said: u64, holds: u64 },
    #[error(
        "views snapshot was taken with other [[tables]] settings: the views are rebuilt from \
         the history with the current ones"
    )]
    TablesChanged,
}

/// A handle on a running (or about to run) server's views: takes a [`ViewsSnapshot`] from
/// any task while the server serves. Cheap to clone.
#[derive(Clone)]
pub struct ViewsTap {
    pub(crate) feed: Arc<Feed>,
    pub(crate) public: Arc<PublicFeed>,
    pub(crate) arrivals: Arrivals,
    /// The `[[tables]]` setting the views are built with.
    pub(crate) tables: TableMap,
}

/// One message of the resume ring.
#[derive(Serialize, Deserialize)]
struct StoredFrame {
    after_seq: u64,
    seq: Option<u64>,
    board: String,
    kind: String,
    text: String,
}

#[derive(Serialize, Deserialize)]
struct StoredCounts {
    events_by_type: BTreeMap<String, u64>,
    alerts: Vec<((String, String), u64)>,
    acks: u64,
    events_lost: u64,
}

/// Everything in a snapshot, after the header.
#[derive(Serialize, Deserialize)]
struct Stored {
    seq: u64,
    /// The `[[tables]]` setting the views were built with: the hall's own map has the
    /// claims and replacements the events made on top of it.
    tables: TableMap,
    hall: Hall,
    counts: StoredCounts,
    ring: Vec<StoredFrame>,
    evicted_up_to: u64,
    latest_t_ms: Option<u64>,
    public_hall: Hall,
    /// Public events waiting out the delay: how long ago (ms) each arrived, and the event.
    waiting: Vec<(u64, Event)>,
}

impl ViewsTap {
    /// Views of their own, not served: to build or check views away from a running server
    /// (a bench, a checkpoint written offline). Built with `config`'s tables, sections and
    /// capacities, as [`crate::Server::bind`] builds them.
    pub fn standalone(config: &crate::ServerConfig) -> ViewsTap {
        let feed = Arc::new(Feed::new(config.ring_capacity, config.client_queue));
        {
            let mut hall = Hall::with_tables(config.tables.clone());
            hall.set_sections(config.sections.clone());
            feed.desk().hall = hall;
        }
        ViewsTap {
            feed,
            public: Arc::new(PublicFeed::new(config.client_queue, config.tables.clone())),
            arrivals: Arrivals::new(config.public_queue_cap),
            tables: config.tables.clone(),
        }
    }

    /// Applies one event as the server applies its history: to the arbiter feed, and the
    /// public ones to the public queue.
    pub fn apply(&self, event: &Event) {
        self.feed.publish_then(event, || {
            if crate::feed::to_public_view(&event.body) {
                self.arrivals.send(std::time::Instant::now(), event.clone());
            }
        });
    }

    /// The hall's boards as `GET /api/boards` answers an arbiter who sees every board: views
    /// built away from a server (a bench's history) compared with a served one's.
    pub fn boards_json(&self) -> Vec<serde_json::Value> {
        let desk = self.feed.desk();
        desk.hall
            .boards()
            .map(|b| desk.hall.board_json(b, true))
            .collect()
    }

    /// The views now. The arbiter desk is held only while its parts are copied (the ring's
    /// messages are shared, not copied); encoding happens after.
    pub fn snapshot(&self) -> ViewsSnapshot {
        let (hall, counts, ring, evicted_up_to, latest_t_ms, public_hall, waiting) = {
            // The same order as the feed (desk, then the public queue) and the public
            // release (delayed hall, then the queue): an event is in exactly one place.
            let desk = self.feed.desk();
            let public_hall = self.public.hall();
            let waiting = self.arrivals.waiting();
            let (ring, evicted) = desk.ring();
            (
                desk.hall.clone(),
                desk.counts.clone(),
                ring,
                evicted,
                desk.latest_t_ms(),
                public_hall.clone(),
                waiting,
            )
        };
        let seq = hall.last_seq();
        let stored = Stored {
            seq,
            tables: self.tables.clone(),
            hall,
            counts: StoredCounts {
                events_by_type: counts
                    .events_by_type
                    .iter()
                    .map(|(k, v)| (k.to_string(), *v))
                    .collect(),
                alerts: counts.alerts.into_iter().collect(),
                acks: counts.acks,
                events_lost: counts.events_lost,
            },
            ring: ring
                .into_iter()
                .map(|(after_seq, f)| StoredFrame {
                    after_seq,
                    seq: f.seq,
                    board: f.board.clone(),
                    kind: f.kind.to_string(),
                    text: f.text.as_str().to_string(),
                })
                .collect(),
            evicted_up_to,
            latest_t_ms,
            public_hall,
            waiting: waiting
                .into_iter()
                .map(|(age, e)| (age.as_millis() as u64, e))
                .collect(),
        };
        ViewsSnapshot {
            seq,
            bytes: encode(&stored),
        }
    }

    /// Puts the snapshot's views in place of the current ones; refused (nothing changed)
    /// as [`crate::Server::with_views`] says.
    pub fn restore(&self, snapshot: ViewsSnapshot) -> Result<(), ViewsError> {
        self.install(snapshot.decode()?)
    }

    /// Puts views decoded beforehand in place of the current ones; refused (nothing
    /// changed) when they were taken with other `[[tables]]` settings.
    pub fn install(&self, decoded: DecodedViews) -> Result<(), ViewsError> {
        let stored = decoded.stored;
        if stored.tables != self.tables {
            return Err(ViewsError::TablesChanged);
        }
        let counts = Counts {
            events_by_type: stored
                .counts
                .events_by_type
                .into_iter()
                .map(|(k, v)| (intern(&k), v))
                .collect(),
            alerts: stored.counts.alerts.into_iter().collect(),
            acks: stored.counts.acks,
            events_lost: stored.counts.events_lost,
        };
        let ring = stored
            .ring
            .into_iter()
            .map(|f| {
                let frame = Frame {
                    seq: f.seq,
                    board: f.board,
                    kind: intern(&f.kind),
                    text: Utf8Bytes::from(f.text),
                };
                (f.after_seq, Arc::new(frame))
            })
            .collect();
        let mut desk = self.feed.desk();
        let mut hall = stored.hall;
        hall.set_sections(desk.hall.sections().to_vec());
        let mut public_hall = stored.public_hall;
        public_hall.set_sections(self.public.hall().sections().to_vec());
        desk.restore(hall, counts, ring, stored.evicted_up_to, stored.latest_t_ms);
        *self.public.hall() = public_hall;
        for (age_ms, event) in stored.waiting {
            self.arrivals
                .send_aged(Duration::from_millis(age_ms), event);
        }
        Ok(())
    }
}

/// A views snapshot decoded, not yet in place ([`ViewsTap::install`]). Decoding is most of a
/// restore's time and needs no server: a daemon decodes while its core replays the journal.
pub struct DecodedViews {
    stored: Stored,
}

impl DecodedViews {
    /// The views are those after every event with `seq <= seq()`.
    pub fn seq(&self) -> u64 {
        self.stored.seq
    }
}

impl ViewsSnapshot {
    /// The views these bytes hold; refused as [`crate::Server::with_views`] says, but for
    /// the `[[tables]]` settings, which [`ViewsTap::install`] checks.
    pub fn decode(&self) -> Result<DecodedViews, ViewsError> {
        let stored = decode(&self.bytes)?;
        if stored.seq != self.seq || stored.hall.last_seq() != stored.seq {
            return Err(ViewsError::SeqMismatch {
                said: self.seq,
                holds: stored.hall.last_seq(),
            });
        }
        Ok(DecodedViews { stored })
    }
}

fn encode(stored: &Stored) -> Vec<u8> {
    pack(MAGIC, VIEWS_FORMAT, stored)
}

fn decode(bytes: &[u8]) -> Result<Stored, ViewsError> {
    unpack(MAGIC, VIEWS_FORMAT, bytes)
}

/// `magic`, `format` (a little-endian `u32`), then `value` as JSON compressed with deflate:
/// the layout of the views snapshots, and of other snapshots of views built from events (the
/// broadcast folders' books).
pub fn pack<T: Serialize>(magic: &[u8; 4], format: u32, value: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 << 16);
    out.extend_from_slice(magic);
    out.extend_from_slice(&format.to_le_bytes());
    let z = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
    // JSON is written in small pieces: buffered, the deflater takes them in large blocks.
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, z);
    // Writing into memory cannot fail, and the view types serialize to JSON (string or
    // integer map keys only).
    serde_json::to_writer(&mut buffered, value).expect("views serialize to JSON");
    let z = buffered
        .into_inner()
        .map_err(|e| e.into_error())
        .expect("deflate into memory");
    z.finish().expect("deflate into memory")
}

/// Reads what [`pack`] wrote with the same `magic` and `format`; refused otherwise.
pub fn unpack<T: serde::de::DeserializeOwned>(
    magic: &[u8; 4],
    format: u32,
    bytes: &[u8],
) -> Result<T, ViewsError> {
    let rest = bytes.strip_prefix(magic).ok_or(ViewsError::NotASnapshot)?;
    let (version, body) = rest
        .split_first_chunk::<4>()
        .ok_or(ViewsError::NotASnapshot)?;
    let found = u32::from_le_bytes(*version);
    if found != format {
        return Err(ViewsError::Version {
            found,
            expected: format,
        });
    }
    let mut json = Vec::with_capacity(body.len() * 8);
    flate2::read::DeflateDecoder::new(body)
        .read_to_end(&mut json)
        .map_err(|e| ViewsError::Decode(e.to_string()))?;
    serde_json::from_slice(&json).map_err(|e| ViewsError::Decode(e.to_string()))
}

/// The `'static` name of a message type read back from a snapshot. Frames and counts name
/// their type by a `&'static str` (an event's `type_name`); the names are few, so each
/// distinct one is kept once for the process. A damaged snapshot cannot grow the set past a
/// bound: names beyond it read as "unknown".
fn intern(name: &str) -> &'static str {
    const MAX_NAMES: usize = 256;
    static NAMES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(&known) = names.get(name) {
        return known;
    }
    if names.len() >= MAX_NAMES {
        return "unknown";
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_a_snapshot_are_refused() {
        assert!(matches!(decode(b"nope"), Err(ViewsError::NotASnapshot)));
        let mut other = MAGIC.to_vec();
        other.extend_from_slice(&(VIEWS_FORMAT + 1).to_le_bytes());
        assert!(matches!(
            decode(&other),
            Err(ViewsError::Version { found, .. }) if found == VIEWS_FORMAT + 1
        ));
        let mut damaged = MAGIC.to_vec();
        damaged.extend_from_slice(&VIEWS_FORMAT.to_le_bytes());
        damaged.extend_from_slice(b"\x00\x01garbage");
        assert!(matches!(decode(&damaged), Err(ViewsError::Decode(_))));
    }

    #[test]
    fn a_type_name_is_kept_once() {
        let a = intern("clock");
        let b = intern(&String::from("clock"));
        assert!(std::ptr::eq(a, b));
    }
}
