//! The server's views as bytes: everything [`crate::Server::run`] builds from the history
//! (the arbiter hall with its rounds, alerts, acks and actions; the resume ring; the
//! counts; the delayed public hall and the public events still waiting out the delay), so
//! that a restarted daemon or hub restores them from a snapshot and applies only the events
//! after it instead of every event of the day.
//!
//! The bytes are a magic, a format version and the views compressed with deflate: the views
//! as JSON but for the texts of the resume ring's messages and of the public events waiting
//! out the delay, which follow it one by one, each after its length (see
//! `docs/decisions/views-snapshot-format.md`). A snapshot of another version, or of
//! other `[[tables]]` settings, or that does not decode, is refused with a [`ViewsError`]:
//! the caller then gives the server the whole history, as before snapshots.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use dgt_core::Event;
use dgt_pairings::TableMap;
use serde::{Deserialize, Serialize};

use crate::feed::{Counts, Feed, Frame};
use crate::hall::Hall;
use crate::public::{Arrivals, PublicFeed, Waiter};

/// The first bytes of every views snapshot.
const MAGIC: &[u8; 4] = b"DGTV";

/// The layout of the views this build writes and reads. A change to any serialized view
/// type raises it: an older snapshot is then refused and the history applied instead.
pub const VIEWS_FORMAT: u32 = 2;

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

/// One message of the resume ring, but its text (which follows the JSON).
#[derive(Serialize, Deserialize)]
struct StoredFrame {
    after_seq: u64,
    seq: Option<u64>,
    board: String,
    kind: String,
}

/// One public event waiting out the delay, but its JSON text (which follows the JSON).
#[derive(Serialize, Deserialize)]
struct StoredArrival {
    /// How long ago (ms) it arrived.
    age_ms: u64,
    /// A clock reading: the first to go when the queue is full.
    clock: bool,
}

#[derive(Serialize, Deserialize)]
struct StoredCounts {
    events_by_type: BTreeMap<String, u64>,
    alerts: Vec<((String, String), u64)>,
    acks: u64,
    events_lost: u64,
}

/// Everything in a snapshot, after the header, but the texts.
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
    /// Public events waiting out the delay, oldest first.
    waiting: Vec<StoredArrival>,
}

/// A snapshot's parts: the texts are those of `stored.ring`'s messages, then those of
/// `stored.waiting`'s events, in order.
struct Parts {
    stored: Stored,
    texts: Vec<String>,
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
                .iter()
                .map(|(after_seq, f)| StoredFrame {
                    after_seq: *after_seq,
                    seq: f.seq,
                    board: f.board.clone(),
                    kind: f.kind.to_string(),
                })
                .collect(),
            evicted_up_to,
            latest_t_ms,
            public_hall,
            waiting: waiting
                .iter()
                .map(|(age, w)| StoredArrival {
                    age_ms: age.as_millis() as u64,
                    clock: w.is_clock(),
                })
                .collect(),
        };
        let texts =
            ring.iter()
                .map(|(_, f)| f.text.as_str().to_owned())
                .chain(waiting.into_iter().map(|(_, w)| match w {
                    Waiter::Event(e) => e.to_json(),
                    Waiter::Json { text, .. } => text.into(),
                }));
        ViewsSnapshot {
            seq,
            bytes: encode(&stored, texts),
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
        let Parts { stored, texts } = decoded.parts;
        let mut texts = texts.into_iter();
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
            .zip(texts.by_ref())
            .map(|(f, text)| {
                let frame = Frame {
                    seq: f.seq,
                    board: f.board,
                    kind: intern(&f.kind),
                    text: Utf8Bytes::from(text),
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
        for (arrival, text) in stored.waiting.into_iter().zip(texts) {
            self.arrivals.send_aged(
                Duration::from_millis(arrival.age_ms),
                Waiter::Json {
                    clock: arrival.clock,
                    text: text.into(),
                },
            );
        }
        Ok(())
    }
}

/// A views snapshot decoded, not yet in place ([`ViewsTap::install`]). Decoding is most of a
/// restore's time and needs no server: a daemon decodes while its core replays the journal.
pub struct DecodedViews {
    parts: Parts,
}

impl DecodedViews {
    /// The views are those after every event with `seq <= seq()`.
    pub fn seq(&self) -> u64 {
        self.parts.stored.seq
    }
}

impl ViewsSnapshot {
    /// The views these bytes hold; refused as [`crate::Server::with_views`] says, but for
    /// the `[[tables]]` settings, which [`ViewsTap::install`] checks.
    pub fn decode(&self) -> Result<DecodedViews, ViewsError> {
        let parts = decode(&self.bytes)?;
        let stored = &parts.stored;
        if stored.seq != self.seq || stored.hall.last_seq() != stored.seq {
            return Err(ViewsError::SeqMismatch {
                said: self.seq,
                holds: stored.hall.last_seq(),
            });
        }
        Ok(DecodedViews { parts })
    }
}

/// The header, then deflated: the JSON's length (a little-endian `u64`), the JSON of
/// `stored`, and each of `texts` as its length (a little-endian `u32`) and its UTF-8 bytes.
/// The texts are JSON already (the ring's messages, the waiting events): kept out of the
/// views' JSON they are neither escaped nor read character by character at a restart.
fn encode<T: AsRef<[u8]>>(stored: &Stored, texts: impl Iterator<Item = T>) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 << 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VIEWS_FORMAT.to_le_bytes());
    let z = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
    // Many small pieces: buffered, the deflater takes them in large blocks.
    let mut w = std::io::BufWriter::with_capacity(1 << 16, z);
    // Writing into memory cannot fail, and the view types serialize to JSON (string or
    // integer map keys only).
    let json = serde_json::to_vec(stored).expect("views serialize to JSON");
    let mut put = |bytes: &[u8]| w.write_all(bytes).expect("deflate into memory");
    put(&(json.len() as u64).to_le_bytes());
    put(&json);
    for text in texts {
        let text = text.as_ref();
        // A message or an event is far below 4 GiB.
        put(&(text.len() as u32).to_le_bytes());
        put(text);
    }
    let z = w
        .into_inner()
        .map_err(|e| e.into_error())
        .expect("deflate into memory");
    z.finish().expect("deflate into memory")
}

fn decode(bytes: &[u8]) -> Result<Parts, ViewsError> {
    let body = inflate(MAGIC, VIEWS_FORMAT, bytes)?;
    let bad = |what: &str| ViewsError::Decode(what.to_string());
    let (len, rest) = body
        .split_first_chunk::<8>()
        .ok_or_else(|| bad("no views"))?;
    let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| bad("no views"))?;
    if rest.len() < len {
        return Err(bad("the views end early"));
    }
    let (json, mut rest) = rest.split_at(len);
    let stored: Stored =
        serde_json::from_slice(json).map_err(|e| ViewsError::Decode(e.to_string()))?;
    let count = stored.ring.len() + stored.waiting.len();
    let mut texts = Vec::with_capacity(count);
    for _ in 0..count {
        let (len, after) = rest
            .split_first_chunk::<4>()
            .ok_or_else(|| bad("the texts end early"))?;
        let len = u32::from_le_bytes(*len) as usize;
        if after.len() < len {
            return Err(bad("the texts end early"));
        }
        let (text, after) = after.split_at(len);
        let text = std::str::from_utf8(text).map_err(|_| bad("a text is not UTF-8"))?;
        texts.push(text.to_owned());
        rest = after;
    }
    if !rest.is_empty() {
        return Err(bad("bytes after the last text"));
    }
    Ok(Parts { stored, texts })
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
    let json = inflate(magic, format, bytes)?;
    serde_json::from_slice(&json).map_err(|e| ViewsError::Decode(e.to_string()))
}

/// What follows the header `magic`, `format`, inflated; refused for another header.
fn inflate(magic: &[u8; 4], format: u32, bytes: &[u8]) -> Result<Vec<u8>, ViewsError> {
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
    let mut out = Vec::with_capacity(body.len() * 8);
    flate2::read::DeflateDecoder::new(body)
        .read_to_end(&mut out)
        .map_err(|e| ViewsError::Decode(e.to_string()))?;
    Ok(out)
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

    /// A game start whose names hold what JSON escapes: quotes, backslashes, control and
    /// non-ASCII characters, a line separator.
    fn hostile(seq: u64) -> Event {
        Event::new(
            seq,
            "b\"1\\ é",
            seq * 10,
            dgt_core::EventBody::GameStart {
                game: format!("g\"{seq}\\\n\u{2028}♞\t\u{1}"),
                start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
                found_under_way: false,
            },
        )
    }

    type RingTexts = Vec<(u64, Option<u64>, String, &'static str, String)>;

    fn ring_texts(tap: &ViewsTap) -> (RingTexts, u64) {
        let (ring, evicted) = tap.feed.desk().ring();
        let texts = ring
            .iter()
            .map(|(after, f)| (*after, f.seq, f.board.clone(), f.kind, f.text.to_string()))
            .collect();
        (texts, evicted)
    }

    fn waiting_events(tap: &ViewsTap) -> Vec<Event> {
        let waiting = tap.arrivals.waiting().into_iter();
        waiting.map(|(_, w)| w.into_event().unwrap()).collect()
    }

    #[test]
    fn texts_that_need_escaping_come_back_byte_for_byte() {
        let config = crate::ServerConfig::default();
        let before = ViewsTap::standalone(&config);
        for seq in 1..=3 {
            before.apply(&hostile(seq));
        }
        let after = ViewsTap::standalone(&config);
        after.restore(before.snapshot()).unwrap();

        let (ring, _) = ring_texts(&before);
        assert_eq!(ring.len(), 3);
        assert_eq!(ring[0].4, hostile(1).to_json());
        assert_eq!(ring_texts(&after), ring_texts(&before));
        let want: Vec<Event> = (1..=3).map(hostile).collect();
        assert_eq!(waiting_events(&before), want);
        assert_eq!(waiting_events(&after), want);
        // Restored, the waiting events are texts until released; a snapshot of the
        // restored views holds them unchanged.
        let waiting = after.arrivals.waiting();
        assert!(
            waiting
                .iter()
                .all(|(_, w)| matches!(w, Waiter::Json { .. }))
        );
        let again = ViewsTap::standalone(&config);
        again.restore(after.snapshot()).unwrap();
        assert_eq!(ring_texts(&again), ring_texts(&before));
        assert_eq!(waiting_events(&again), want);
    }

    #[test]
    fn texts_that_do_not_fit_the_views_are_refused() {
        let tap = ViewsTap::standalone(&crate::ServerConfig::default());
        tap.apply(&hostile(1));
        let Parts { stored, texts } = decode(&tap.snapshot().bytes).unwrap();
        // The message in the ring and the event waiting for the public.
        assert_eq!(texts.len(), 2);
        let refusal = |texts: Vec<&[u8]>| match decode(&encode(&stored, texts.into_iter())) {
            Err(ViewsError::Decode(why)) => why,
            other => panic!("not refused: {:?}", other.map(|p| p.texts)),
        };
        let text = texts[0].as_bytes();
        assert_eq!(refusal(vec![text]), "the texts end early");
        assert_eq!(refusal(vec![text, text, text]), "bytes after the last text");
        assert_eq!(refusal(vec![text, b"\xff\xfe"]), "a text is not UTF-8");
    }

    #[test]
    fn a_type_name_is_kept_once() {
        let a = intern("clock");
        let b = intern(&String::from("clock"));
        assert!(std::ptr::eq(a, b));
    }
}
