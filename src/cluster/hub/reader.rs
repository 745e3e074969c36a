//! Reads the event's stream in order from a given sequence, without a gap, surviving broker
//! restarts, a failover between brokers and a stream made anew.
//!
//! The hub's consumer is ephemeral (the hub keeps no state of its own: it rebuilds from the
//! stream), and a broker restart forgets ephemeral consumers. So the reader remembers the
//! next stream sequence it needs and makes a new consumer from there whenever the old one
//! fails, or stays silent while the stream has grown past what it delivered.
//!
//! Every sequence is read, in order: a consumer that delivers a later sequence than the one
//! wanted (a new leader after a failover can) does not make the reader skip — the missing
//! ones are fetched one by one by sequence first. A sequence the stream does not have (the
//! stream denies deletes, so only a damaged store loses one) is counted in `missing`.
//!
//! A stream made anew (its creation time changed, or it ends before what was read — a
//! broker whose store was lost) is read again from its first sequence: nodes publish their
//! journals again into it, and the view takes only what it has not applied yet.

use std::collections::VecDeque;
use std::time::Duration;

use async_nats::jetstream::{self, consumer, stream};
use futures_util::StreamExt;

use crate::cluster::Names;

/// How long the reader waits for a message before it asks the stream whether one is due.
const STALL: Duration = Duration::from_secs(2);

/// One stored message.
#[derive(Debug, Clone)]
pub struct Stored {
    pub sequence: u64,
    pub subject: String,
    pub payload: Vec<u8>,
    /// When the broker stored it (Unix ms, the broker's clock).
    pub stored_unix_ms: u64,
    /// A node's first message into a stream made anew: when the stream it had published into
    /// before was made (`Dgt-Earlier-Stream`).
    pub earlier_stream: Option<u64>,
}

fn earlier_stream(headers: Option<&async_nats::HeaderMap>) -> Option<u64> {
    headers?
        .get(crate::cluster::history::EARLIER_STREAM_HEADER)?
        .as_str()
        .parse()
        .ok()
}

/// What the reader went through, for `/health`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReaderStats {
    /// Consumers made after the first (broker restarts, failures).
    pub restarts: u64,
    /// Sequences fetched one by one because a consumer delivered past them.
    pub refetched: u64,
    /// Sequences the stream did not have when asked (a damaged store).
    pub missing: u64,
    /// Times the stream was found made anew and read again from its start.
    pub recreated: u64,
}

pub struct StreamReader {
    js: jetstream::Context,
    names: Names,
    replicas: usize,
    /// The next stream sequence wanted.
    next: u64,
    stream: Option<stream::Stream>,
    /// The creation time of the stream being read (Unix ms).
    created: Option<u64>,
    messages: Option<consumer::pull::Ordered>,
    /// Messages fetched by sequence, delivered before anything else.
    filled: VecDeque<Stored>,
    /// Whether a consumer was made already (the next one counts as a restart).
    opened: bool,
    pub stats: ReaderStats,
}

impl StreamReader {
    pub fn new(js: jetstream::Context, names: Names, replicas: usize) -> Self {
        StreamReader {
            js,
            names,
            replicas,
            next: 1,
            stream: None,
            created: None,
            messages: None,
            filled: VecDeque::new(),
            opened: false,
            stats: ReaderStats::default(),
        }
    }

    /// A reader that goes on after `position` of the stream made at `created_unix_ms` (a
    /// hub restored from its checkpoint): a stream found made anew since is read from its
    /// start, as by a reader that read up to there itself.
    pub fn resume(&mut self, position: u64, created_unix_ms: u64, stats: ReaderStats) {
        self.next = position + 1;
        self.created = Some(created_unix_ms);
        self.stats = stats;
    }

    /// The stream's last sequence now (0 for an empty stream).
    pub async fn last_sequence(&mut self) -> Result<u64, StreamError> {
        last_sequence(self.js.clone(), self.names.stream())
            .await
            .map(|(last, _)| last)
    }

    /// The sequence of the last message read (0 before the first).
    pub fn position(&self) -> u64 {
        self.next - 1
    }

    /// Whether the stream found is another one than the one read so far; if so, reading
    /// starts again at its first sequence.
    fn notice_identity(&mut self, created: u64, last: u64) -> bool {
        let other = self.created.is_some_and(|c| c != created) || last < self.position();
        if other {
            tracing::warn!(
                stream = %self.names.stream(),
                read_up_to = self.position(),
                now_ends_at = last,
                "hub: the event's stream was made anew (a broker's store was lost?): reading it \
                 again from its start; nodes publish their journals into it again"
            );
            self.stats.recreated += 1;
            self.next = 1;
            self.filled.clear();
            self.messages = None;
        }
        self.created = Some(created);
        other
    }

    async fn open(&mut self) -> Result<(), StreamError> {
        // The hub made the stream; if it is gone (a broker's store lost), the hub makes it
        // again, checked as at the start. One attempt: the reader's own loop asks again.
        let mut stream = crate::cluster::stream::ensure(
            &self.js,
            &self.names,
            self.replicas,
            std::time::Duration::ZERO,
        )
        .await
        .map_err(|detail| StreamError::Stream {
            stream: self.names.stream(),
            detail,
        })?;
        let info = stream.info().await.map_err(|e| StreamError::Stream {
            stream: self.names.stream(),
            detail: e.to_string(),
        })?;
        let created = crate::cluster::stream::unix_ms_of(&info.created);
        let last = info.state.last_sequence;
        self.notice_identity(created, last);
        let consumer = stream
            .create_consumer(consumer::pull::OrderedConfig {
                filter_subject: self.names.stream_subjects(),
                deliver_policy: consumer::DeliverPolicy::ByStartSequence {
                    start_sequence: self.next,
                },
                ..Default::default()
            })
            .await
            .map_err(|e| StreamError::Consumer {
                stream: self.names.stream(),
                detail: e.to_string(),
            })?;
        let messages = consumer.messages().await.map_err(|e| StreamError::Read {
            stream: self.names.stream(),
            detail: e.to_string(),
        })?;
        if self.opened {
            self.stats.restarts += 1;
        }
        self.opened = true;
        self.messages = Some(messages);
        self.stream = Some(stream);
        Ok(())
    }

    /// Fetches the sequences from `self.next` up to `upto` (excluded) by sequence. False
    /// when the broker could not be asked (the consumer is then made again from `next`).
    async fn fill(&mut self, upto: u64) -> bool {
        let Some(stream) = self.stream.clone() else {
            return false;
        };
        tracing::warn!(
            from = self.next,
            upto,
            "hub: the stream's consumer delivered past what was wanted; reading the sequences \
             between one by one"
        );
        for seq in self.next..upto {
            match stream.direct_get(seq).await {
                Ok(m) => {
                    self.stats.refetched += 1;
                    self.filled.push_back(Stored {
                        sequence: m.sequence,
                        subject: m.subject.to_string(),
                        payload: m.payload.to_vec(),
                        stored_unix_ms: crate::cluster::stream::unix_ms_of(&m.time),
                        earlier_stream: earlier_stream(Some(&m.headers)),
                    });
                }
                Err(e) if e.kind() == stream::DirectGetErrorKind::NotFound => {
                    self.stats.missing += 1;
                    tracing::error!(
                        seq,
                        "hub: the event's stream does not have this sequence (its store is \
                         damaged); the node it belonged to shows a gap"
                    );
                }
                Err(e) => {
                    tracing::warn!(seq, "hub: reading a sequence again: {e}");
                    self.filled.clear();
                    return false;
                }
            }
        }
        true
    }

    /// The next message, waiting as long as it takes; errors are logged and retried.
    pub async fn next(&mut self) -> Stored {
        let mut failures = 0u32;
        loop {
            if let Some(s) = self.filled.pop_front() {
                self.next = s.sequence + 1;
                return s;
            }
            if self.messages.is_none()
                && let Err(e) = self.open().await
            {
                failures += 1;
                if failures == 1 || failures.is_multiple_of(20) {
                    tracing::warn!("hub: cannot read the stream yet: {e}");
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
                continue;
            }
            let messages = self.messages.as_mut().expect("opened above");
            match tokio::time::timeout(STALL, messages.next()).await {
                Ok(Some(Ok(msg))) => {
                    let Ok(info) = msg.info() else {
                        continue;
                    };
                    let sequence = info.stream_sequence;
                    let stored_unix_ms = crate::cluster::stream::unix_ms_of(&info.published);
                    if sequence < self.next {
                        continue;
                    }
                    let stored = Stored {
                        sequence,
                        subject: msg.subject.to_string(),
                        payload: msg.payload.to_vec(),
                        stored_unix_ms,
                        earlier_stream: earlier_stream(msg.headers.as_ref()),
                    };
                    if sequence > self.next {
                        if !self.fill(sequence).await {
                            self.messages = None;
                            continue;
                        }
                        self.filled.push_back(stored);
                        continue;
                    }
                    self.next = sequence + 1;
                    return stored;
                }
                Ok(Some(Err(e))) => {
                    tracing::warn!(
                        "hub: reading the stream: {e}; reading again from {}",
                        self.next
                    );
                    self.messages = None;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Ok(None) => self.messages = None,
                Err(_) => {
                    // Silence: fine if nothing new was stored, a lost consumer otherwise — or
                    // a stream made anew, which starts again at 1.
                    if let Ok((last, created)) =
                        last_sequence(self.js.clone(), self.names.stream()).await
                    {
                        if self.notice_identity(created, last) {
                            continue;
                        }
                        if last >= self.next {
                            tracing::warn!(
                                next = self.next,
                                last,
                                "hub: the stream's consumer went quiet; reading again"
                            );
                            self.messages = None;
                        }
                    }
                }
            }
        }
    }
}

/// What the broker says of the stream now.
#[derive(Debug, Clone)]
pub struct StreamState {
    /// The last sequence (0 for an empty stream).
    pub last: u64,
    /// The creation time (Unix ms).
    pub created: u64,
    /// Its configuration, as the broker holds it now.
    pub config: stream::Config,
}

/// The stream's state now. Owns its arguments: the reader's consumer may not be shared
/// between threads, so nothing borrows it across this wait.
pub async fn stream_state(
    js: jetstream::Context,
    stream: String,
) -> Result<StreamState, StreamError> {
    let s = js
        .get_stream(&stream)
        .await
        .map_err(|e| StreamError::Stream {
            stream: stream.clone(),
            detail: e.to_string(),
        })?;
    let info = s.get_info().await.map_err(|e| StreamError::Stream {
        stream: stream.clone(),
        detail: e.to_string(),
    })?;
    Ok(StreamState {
        last: info.state.last_sequence,
        created: crate::cluster::stream::unix_ms_of(&info.created),
        config: info.config,
    })
}

/// A stream's last sequence (0 for an empty stream) and its creation time (Unix ms).
pub async fn last_sequence(
    js: jetstream::Context,
    stream: String,
) -> Result<(u64, u64), StreamError> {
    stream_state(js, stream).await.map(|s| (s.last, s.created))
}

/// What went wrong reading the event's stream (the broker's own words in `detail`).
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    #[error("the stream {stream}: {detail}")]
    Stream { stream: String, detail: String },
    #[error("a consumer on {stream}: {detail}")]
    Consumer { stream: String, detail: String },
    #[error("reading {stream}: {detail}")]
    Read { stream: String, detail: String },
}
