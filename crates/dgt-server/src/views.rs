//! The server's views as bytes: everything [`crate::Server::run`] builds from the history
//! (the arbiter hall with its rounds, alerts, acks and actions; the resume ring; the
//! counts; the delayed public hall and the public events still waiting out the delay), so
//! that a restarted daemon or hub restores them from a snapshot and applies only the events
//! after it instead of every event of the day.
//!
//! The bytes are a magic, a format version and the views compressed with deflate: the views
//! as JSON but for the resume ring's messages and the public events waiting out the delay,
//! which follow it in a binary form of their own (see `encode`, and
//! `docs/decisions/views-snapshot-format.md`). A snapshot of another version, or of
//! other `[[tables]]` settings, or that does not decode, is refused with a [`ViewsError`]:
//! the caller then gives the server the whole history, as before snapshots.

use std::collections::{BTreeMap, BTreeSet, HashMap};
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

#[derive(Serialize, Deserialize)]
struct StoredCounts {
    events_by_type: BTreeMap<String, u64>,
    alerts: Vec<((String, String), u64)>,
    acks: u64,
    events_lost: u64,
}

/// A snapshot's JSON: the views but the ring's messages and the waiting public events.
#[derive(Serialize, Deserialize)]
struct Stored {
    seq: u64,
    /// The `[[tables]]` setting the views were built with: the hall's own map has the
    /// claims and replacements the events made on top of it.
    tables: TableMap,
    hall: Hall,
    counts: StoredCounts,
    evicted_up_to: u64,
    latest_t_ms: Option<u64>,
    public_hall: Hall,
    /// How many messages of the resume ring follow the JSON, then how many public events
    /// waiting out the delay.
    ring_len: usize,
    waiting_len: usize,
}

/// A snapshot decoded: the ring's messages (each after the seq it follows) and the public
/// events waiting (how long ago each arrived), oldest first.
struct Parts {
    stored: Stored,
    ring: Vec<(u64, Arc<Frame>)>,
    waiting: Vec<(Duration, Waiter)>,
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
            evicted_up_to,
            latest_t_ms,
            public_hall,
            ring_len: ring.len(),
            waiting_len: waiting.len(),
        };
        ViewsSnapshot {
            seq,
            bytes: encode(&stored, &ring, &waiting),
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
        let Parts {
            stored,
            ring,
            waiting,
        } = decoded.parts;
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
        let mut desk = self.feed.desk();
        let mut hall = stored.hall;
        hall.set_sections(desk.hall.sections().to_vec());
        let mut public_hall = stored.public_hall;
        public_hall.set_sections(self.public.hall().sections().to_vec());
        desk.restore(hall, counts, ring, stored.evicted_up_to, stored.latest_t_ms);
        *self.public.hall() = public_hall;
        self.arrivals.send_aged(waiting);
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

/// The header, then deflated: the JSON's length (little-endian `u64`) and the JSON of
/// `stored`; each message of `ring`: the seq it follows (`u64`), its seq (`0` or `1` then
/// the `u64`), its board, its type and its text; each waiting event: its age in ms (`u64`),
/// `1` for a clock reading else `0`, then `0` and its JSON text, or `1` and the index
/// (`u32`) of the ring message with the same text. Texts are a `u32` length and UTF-8
/// bytes; integers are little-endian.
///
/// The texts are JSON already: kept out of the views' JSON they are neither escaped nor read
/// character by character at a restart. Most public events waiting are also in the ring
/// (the newest events are in both), so their text is stored once.
fn encode(stored: &Stored, ring: &[(u64, Arc<Frame>)], waiting: &[(Duration, Waiter)]) -> Vec<u8> {
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
    let mut in_ring: HashMap<&str, u32> = HashMap::with_capacity(ring.len());
    for (i, (after_seq, frame)) in ring.iter().enumerate() {
        put(&after_seq.to_le_bytes());
        match frame.seq {
            Some(seq) => {
                put(&[1]);
                put(&seq.to_le_bytes());
            }
            None => put(&[0]),
        }
        put_text(&mut put, frame.board.as_bytes());
        put_text(&mut put, frame.kind.as_bytes());
        put_text(&mut put, frame.text.as_bytes());
        in_ring.entry(frame.text.as_str()).or_insert(i as u32);
    }
    for (age, waiter) in waiting {
        put(&(age.as_millis() as u64).to_le_bytes());
        put(&[u8::from(waiter.is_clock())]);
        let text = match waiter {
            Waiter::Event(event) => std::borrow::Cow::Owned(event.to_json()),
            Waiter::Json { text, .. } => std::borrow::Cow::Borrowed(text.as_str()),
        };
        match in_ring.get(text.as_ref()) {
            Some(i) => {
                put(&[1]);
                put(&i.to_le_bytes());
            }
            None => {
                put(&[0]);
                put_text(&mut put, text.as_bytes());
            }
        }
    }
    let z = w
        .into_inner()
        .map_err(|e| e.into_error())
        .expect("deflate into memory");
    z.finish().expect("deflate into memory")
}

fn put_text(put: &mut dyn FnMut(&[u8]), text: &[u8]) {
    // A message, an event, a board's name are far below 4 GiB.
    put(&(text.len() as u32).to_le_bytes());
    put(text);
}

fn decode(bytes: &[u8]) -> Result<Parts, ViewsError> {
    let body = inflate(MAGIC, VIEWS_FORMAT, bytes)?;
    let mut r = Reader(&body);
    let len = r.u64()?;
    let json = r.take(usize::try_from(len).map_err(|_| bad("the views end early"))?)?;
    let stored: Stored =
        serde_json::from_slice(json).map_err(|e| ViewsError::Decode(e.to_string()))?;
    // Counts from damaged bytes reserve no more than the bytes could hold.
    let mut ring = Vec::with_capacity(stored.ring_len.min(r.0.len() / 21));
    for _ in 0..stored.ring_len {
        let after_seq = r.u64()?;
        let seq = match r.u8()? {
            0 => None,
            1 => Some(r.u64()?),
            _ => return Err(bad("a message's seq is damaged")),
        };
        let board = r.text()?.to_owned();
        let kind = intern(r.text()?);
        let text = Utf8Bytes::from(r.text()?.to_owned());
        let frame = Frame {
            seq,
            board,
            kind,
            text,
            previewed: None,
            previews: Vec::new(),
        };
        ring.push((after_seq, Arc::new(frame)));
    }
    let mut waiting = Vec::with_capacity(stored.waiting_len.min(r.0.len() / 14));
    for _ in 0..stored.waiting_len {
        let age = Duration::from_millis(r.u64()?);
        let clock = match r.u8()? {
            0 => false,
            1 => true,
            _ => return Err(bad("a waiting event's kind is damaged")),
        };
        let text = match r.u8()? {
            0 => Utf8Bytes::from(r.text()?.to_owned()),
            1 => {
                let i = r.u32()? as usize;
                let (_, frame) = ring
                    .get(i)
                    .ok_or_else(|| bad("a waiting event names a message the ring lacks"))?;
                frame.text.clone()
            }
            _ => return Err(bad("a waiting event's text is damaged")),
        };
        waiting.push((age, Waiter::Json { clock, text }));
    }
    if !r.0.is_empty() {
        return Err(bad("bytes after the views"));
    }
    Ok(Parts {
        stored,
        ring,
        waiting,
    })
}

fn bad(what: &str) -> ViewsError {
    ViewsError::Decode(what.to_string())
}

/// Reads a snapshot's inflated bytes from the front.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ViewsError> {
        if self.0.len() < n {
            return Err(bad("the views end early"));
        }
        let (front, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(front)
    }

    fn u8(&mut self) -> Result<u8, ViewsError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, ViewsError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")))
    }

    fn u64(&mut self) -> Result<u64, ViewsError> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    fn text(&mut self) -> Result<&'a str, ViewsError> {
        let len = self.u32()? as usize;
        std::str::from_utf8(self.take(len)?).map_err(|_| bad("a text is not UTF-8"))
    }
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

    /// `body` under the views' header, deflated, as [`encode`] writes it.
    fn deflated(body: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&VIEWS_FORMAT.to_le_bytes());
        let mut z = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
        z.write_all(body).unwrap();
        z.finish().unwrap()
    }

    #[test]
    fn a_waiting_event_also_in_the_ring_is_stored_once() {
        let tap = ViewsTap::standalone(&crate::ServerConfig::default());
        tap.apply(&hostile(1));
        let body = inflate(MAGIC, VIEWS_FORMAT, &tap.snapshot().bytes).unwrap();
        let text = hostile(1).to_json();
        let times = body
            .windows(text.len())
            .filter(|w| *w == text.as_bytes())
            .count();
        assert_eq!(times, 1);
        let Parts { ring, waiting, .. } = decode(&deflated(&body)).unwrap();
        assert_eq!(ring.len(), 1);
        assert!(
            matches!(&waiting[..], [(_, Waiter::Json { text: t, clock: false })] if t.as_str() == text)
        );
    }

    #[test]
    fn views_that_do_not_read_whole_are_refused() {
        let tap = ViewsTap::standalone(&crate::ServerConfig::default());
        tap.apply(&hostile(1));
        let body = inflate(MAGIC, VIEWS_FORMAT, &tap.snapshot().bytes).unwrap();
        let refusal = |body: &[u8]| match decode(&deflated(body)) {
            Err(ViewsError::Decode(why)) => why,
            Err(other) => panic!("refused for another reason: {other}"),
            Ok(_) => panic!("not refused"),
        };
        assert_eq!(refusal(&body[..body.len() - 1]), "the views end early");
        let mut longer = body.clone();
        longer.push(0);
        assert_eq!(refusal(&longer), "bytes after the views");
        // The last byte is the waiting event's ring index (`u32`, 0): now past the ring.
        let mut past = body.clone();
        *past.last_mut().unwrap() = 1;
        assert_eq!(
            refusal(&past),
            "a waiting event names a message the ring lacks"
        );
        // The first byte of the board's "é" in the ring's message (the last text).
        let at = body.iter().rposition(|&b| b == 0xC3).unwrap();
        let mut not_utf8 = body.clone();
        not_utf8[at] = 0xFF;
        assert_eq!(refusal(&not_utf8), "a text is not UTF-8");
    }

    #[test]
    fn a_type_name_is_kept_once() {
        let a = intern("clock");
        let b = intern(&String::from("clock"));
        assert!(std::ptr::eq(a, b));
    }
}
