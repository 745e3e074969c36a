//! The event's stream: how it must be configured, created by the hub only, and checked by
//! every PC before it writes or reads.
//!
//! The stream is the event's record, so nothing may shorten or rewrite it: deletes, purges
//! and rollups are denied in its own configuration (a broker enforces them for every user,
//! the stream's creator too), it keeps everything (no age, size or count limit), and it is
//! nobody's mirror or copy. A stream found with another configuration — one a node created
//! before the hub, say with `allow_rollup_hdrs` — is refused with the reason: the hub does
//! not start on it and nodes publish nothing to it.

use std::time::Duration;

use async_nats::jetstream::{self, stream};

use super::Names;

/// How long a message id is remembered by the broker. Nothing of ours carries one any more
/// (a stream-wide id is something another user could claim first), so the window only has to
/// be valid.
const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);

/// The stream's configuration, as the hub creates it.
pub fn config(names: &Names, replicas: usize) -> stream::Config {
    stream::Config {
        name: names.stream(),
        subjects: vec![names.stream_subjects()],
        storage: stream::StorageType::File,
        retention: stream::RetentionPolicy::Limits,
        num_replicas: replicas.max(1),
        duplicate_window: DUPLICATE_WINDOW,
        // Nodes read back their own last and first messages, and the hub fills a gap, by
        // direct get (any replica answers).
        allow_direct: true,
        deny_delete: true,
        deny_purge: true,
        allow_rollup: false,
        ..Default::default()
    }
}

/// Why a stream's configuration is not the event's: every difference, each with its risk.
/// `replicas`: what `[cluster] replicas` asks for.
pub fn differences(found: &stream::Config, names: &Names, replicas: usize) -> Vec<String> {
    let mut out = Vec::new();
    if found.subjects != vec![names.stream_subjects()] {
        out.push(format!(
            "it stores {:?} instead of only {:?}",
            found.subjects,
            names.stream_subjects()
        ));
    }
    if !found.deny_delete {
        out.push("it allows deleting messages (deny_delete is off)".into());
    }
    if !found.deny_purge {
        out.push("it allows purging (deny_purge is off)".into());
    }
    if found.allow_rollup {
        out.push("it allows rollups (allow_rollup_hdrs is on: one message can wipe a subject or the whole stream)".into());
    }
    if found.retention != stream::RetentionPolicy::Limits {
        out.push(format!(
            "its retention is {:?}, which removes messages once read",
            found.retention
        ));
    }
    if !found.max_age.is_zero() {
        out.push(format!(
            "it drops messages older than {} s (max_age)",
            found.max_age.as_secs()
        ));
    }
    if found.max_messages > 0 || found.max_messages_per_subject > 0 || found.max_bytes > 0 {
        out.push(
            "it has a message or size limit (max_msgs, max_msgs_per_subject or max_bytes) that would drop old events".into(),
        );
    }
    if found.storage != stream::StorageType::File {
        out.push("it is kept in memory only (storage is not file)".into());
    }
    if found.mirror.is_some() || found.sources.as_ref().is_some_and(|s| !s.is_empty()) {
        out.push("it copies messages from another stream (mirror or sources)".into());
    }
    if found.sealed {
        out.push("it is sealed (nothing can be added)".into());
    }
    if !found.allow_direct {
        out.push("it does not allow direct gets (allow_direct is off)".into());
    }
    if found.num_replicas.max(1) != replicas.max(1) {
        out.push(format!(
            "it has {} replica(s) where [cluster] replicas asks for {}",
            found.num_replicas.max(1),
            replicas.max(1)
        ));
    }
    out
}

/// The refusal of a stream whose configuration differs, in words a technician can act on.
pub fn refusal(names: &Names, differences: &[String]) -> String {
    format!(
        "the event's stream {} is not configured as the event's record: {}. It was not created \
         by the hub (or was changed). Fix: with the broker's admin user, save what it holds if \
         needed (`nats stream backup`), remove it (`nats stream rm {}`) and start the hub, which \
         creates it anew; every node then republishes its whole journal (docs/cluster.md)",
        names.stream(),
        differences.join("; "),
        names.stream()
    )
}

/// What a PC found when it looked at the event's stream.
#[derive(Debug)]
pub enum Found {
    /// The stream, configured as the event's record.
    Good(Box<stream::Stream>),
    /// No stream of that name (the hub creates it).
    Missing,
    /// A stream that differs (the refusal, with the fix).
    Refused(String),
}

/// Looks the stream up and checks its configuration.
pub async fn look(
    js: &jetstream::Context,
    names: &Names,
    replicas: usize,
) -> Result<Found, String> {
    match js.get_stream(names.stream()).await {
        Ok(mut s) => {
            let info = s.info().await.map_err(|e| e.to_string())?;
            let diff = differences(&info.config, names, replicas);
            if diff.is_empty() {
                Ok(Found::Good(Box::new(s)))
            } else {
                Ok(Found::Refused(refusal(names, &diff)))
            }
        }
        Err(e) => {
            if let jetstream::context::GetStreamErrorKind::JetStream(inner) = e.kind()
                && inner.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND
            {
                Ok(Found::Missing)
            } else {
                Err(e.to_string())
            }
        }
    }
}

/// The hub's side: the stream, created when missing, refused when it differs.
///
/// A broker that does not answer yet (the venue PC boots the broker and the hub together;
/// JetStream takes a moment to read its store) is asked again for up to `patience`: only a
/// stream that differs is refused at once, and a broker silent for that long is an error.
pub async fn ensure(
    js: &jetstream::Context,
    names: &Names,
    replicas: usize,
    patience: Duration,
) -> Result<stream::Stream, String> {
    let until = tokio::time::Instant::now() + patience;
    loop {
        let failure = match look(js, names, replicas).await {
            Ok(Found::Good(s)) => return Ok(*s),
            Ok(Found::Refused(why)) => return Err(why),
            Ok(Found::Missing) => match js.create_stream(config(names, replicas)).await {
                Ok(created) => {
                    tracing::info!(stream = %names.stream(), replicas, "created the event's stream");
                    return Ok(created);
                }
                Err(e) => format!("creating it: {e}"),
            },
            Err(e) => e,
        };
        if tokio::time::Instant::now() >= until {
            return Err(failure);
        }
        tracing::warn!(
            stream = %names.stream(),
            "the broker did not answer about the event's stream ({failure}); asking again"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Unix milliseconds of a broker timestamp (when a message was stored).
pub fn unix_ms_of(t: &async_nats::datetime::DateTime) -> u64 {
    (t.unix_timestamp_nanos() / 1_000_000).max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hubs_own_configuration_has_no_differences() {
        let names = Names::new("open-2026");
        for replicas in [1, 3] {
            assert!(differences(&config(&names, replicas), &names, replicas).is_empty());
        }
    }

    #[test]
    fn a_stream_that_can_be_wiped_is_refused_with_every_reason() {
        let names = Names::new("open-2026");
        let mut c = config(&names, 1);
        c.allow_rollup = true;
        c.deny_purge = false;
        c.max_age = Duration::from_secs(60);
        let d = differences(&c, &names, 1);
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(d[1].contains("rollups"), "{d:?}");
        let why = refusal(&names, &d);
        assert!(why.contains("nats stream rm DGT_open-2026"), "{why}");
        // A single-replica stream where three are asked for is a difference too.
        assert_eq!(differences(&config(&names, 1), &names, 3).len(), 1);
    }
}
