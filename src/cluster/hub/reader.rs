//! Reads the event's stream in order from a given sequence, surviving broker restarts.
//!
//! The hub's consumer is ephemeral (the hub keeps no state of its own: it rebuilds from the
//! stream), and a broker restart forgets ephemeral consumers. So the reader remembers the
//! next stream sequence it needs and makes a new consumer from there whenever the old one
//! fails, or stays silent while the stream has grown past what it delivered.

use std::time::Duration;

use async_nats::jetstream::{self, consumer};
use futures_util::StreamExt;

/// How long the reader waits for a message before it asks the stream whether one is due.
const STALL: Duration = Duration::from_secs(2);

/// One stored message.
#[derive(Debug, Clone)]
pub struct Stored {
    pub sequence: u64,
    pub subject: String,
    pub payload: Vec<u8>,
}

pub struct StreamReader {
    js: jetstream::Context,
    stream: String,
    subjects: String,
    /// The next stream sequence wanted.
    next: u64,
    messages: Option<consumer::pull::Ordered>,
    /// Consumers made after the first (broker restarts, failures).
    pub restarts: u64,
}

impl StreamReader {
    pub fn new(js: jetstream::Context, stream: String, subjects: String) -> Self {
        StreamReader {
            js,
            stream,
            subjects,
            next: 1,
            messages: None,
            restarts: 0,
        }
    }

    /// The stream's last sequence now (0 for an empty stream).
    pub async fn last_sequence(&mut self) -> Result<u64, StreamError> {
        last_sequence(self.js.clone(), self.stream.clone()).await
    }

    /// The sequence of the last message read (0 before the first).
    pub fn position(&self) -> u64 {
        self.next - 1
    }

    async fn open(&mut self) -> Result<(), StreamError> {
        let stream = self
            .js
            .get_stream(&self.stream)
            .await
            .map_err(|e| StreamError::Stream {
                stream: self.stream.clone(),
                detail: e.to_string(),
            })?;
        let consumer = stream
            .create_consumer(consumer::pull::OrderedConfig {
                filter_subject: self.subjects.clone(),
                deliver_policy: consumer::DeliverPolicy::ByStartSequence {
                    start_sequence: self.next,
                },
                ..Default::default()
            })
            .await
            .map_err(|e| StreamError::Consumer {
                stream: self.stream.clone(),
                detail: e.to_string(),
            })?;
        let messages = consumer.messages().await.map_err(|e| StreamError::Read {
            stream: self.stream.clone(),
            detail: e.to_string(),
        })?;
        if self.messages.is_some() || self.next > 1 {
            self.restarts += 1;
        }
        self.messages = Some(messages);
        Ok(())
    }

    /// The next message, waiting as long as it takes; errors are logged and retried.
    pub async fn next(&mut self) -> Stored {
        let mut failures = 0u32;
        loop {
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
                    let Ok(sequence) = msg.info().map(|i| i.stream_sequence) else {
                        continue;
                    };
                    if sequence < self.next {
                        continue;
                    }
                    self.next = sequence + 1;
                    return Stored {
                        sequence,
                        subject: msg.subject.to_string(),
                        payload: msg.payload.to_vec(),
                    };
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
                    // Silence: fine if nothing new was stored, a lost consumer otherwise.
                    if let Ok(last) = last_sequence(self.js.clone(), self.stream.clone()).await
                        && last >= self.next
                    {
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

/// A stream's last sequence (0 for an empty stream). Owns its arguments: the reader's
/// consumer may not be shared between threads, so nothing borrows it across this wait.
async fn last_sequence(js: jetstream::Context, stream: String) -> Result<u64, StreamError> {
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
    Ok(info.state.last_sequence)
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
