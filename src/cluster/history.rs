//! A node's history on the event's stream: its messages form one chain on its own subject,
//! and the node proves where the chain ends before every write.
//!
//! Each message says which journal steps it covers (`Dgt-From-Step`, `Dgt-To-Step`) and
//! which message of the node it is (`Dgt-Batch`: 1, 2, 3, …), and is stored only if the
//! subject's last message is still the one the node knows
//! (`Nats-Expected-Last-Subject-Sequence`). No message carries a `Nats-Msg-Id`: the broker
//! de-duplicates those across the whole stream, so an id another user can guess is an id
//! another user can claim first, and the node's real message would be answered `duplicate`
//! and dropped. A retried or replayed publish of a message already stored is refused by the
//! broker as a wrong last sequence instead, and the node asks again where its chain ends.
//!
//! On every (re)connection the node checks that the stream holds its whole chain: the number
//! of messages on its subject equals the batch number of the last one (deletes and purges
//! are denied by the stream's configuration, so a shorter count means the broker lost
//! messages). An empty subject — a broker whose store was lost, or a stream created anew —
//! makes the node publish its journal again from the first step.

use async_nats::HeaderMap;
use async_nats::jetstream::stream;
use futures_util::StreamExt;

/// The last journal step a message covers.
pub const TO_STEP_HEADER: &str = "Dgt-To-Step";
/// The journal step the message continues from (0 for the first).
pub const FROM_STEP_HEADER: &str = "Dgt-From-Step";
/// The message's number in the node's chain, from 1.
pub const BATCH_HEADER: &str = "Dgt-Batch";
/// On a node's first message into a stream: the creation time (Unix ms) of an earlier stream
/// of the event the node had published into and that is gone (a broker lost its store, or it
/// was removed). Hubs started later learn from it that their numbering is not the earlier one.
pub const EARLIER_STREAM_HEADER: &str = "Dgt-Earlier-Stream";
/// The broker's check that nothing was written on the subject since the node's last write.
pub const EXPECTED_SUBJECT_SEQ: &str = "Nats-Expected-Last-Subject-Sequence";
/// The broker's check that the message goes to the event's stream and no other.
pub const EXPECTED_STREAM: &str = "Nats-Expected-Stream";

/// Where a node's chain ends on the stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position {
    /// The last journal step the stream holds (0: none).
    pub step: u64,
    /// The stream sequence of the node's last message (0: none).
    pub subject_seq: u64,
    /// How many messages the node has on the stream.
    pub batch: u64,
    /// Told on the first message (see [`EARLIER_STREAM_HEADER`]).
    pub earlier_stream: Option<u64>,
}

impl Position {
    /// The headers of the message that continues the chain with steps `from..=to`.
    pub fn next_headers(&self, stream: &str, to_step: u64) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(EXPECTED_STREAM, stream);
        h.insert(EXPECTED_SUBJECT_SEQ, self.subject_seq.to_string().as_str());
        h.insert(FROM_STEP_HEADER, self.step.to_string().as_str());
        h.insert(TO_STEP_HEADER, to_step.to_string().as_str());
        h.insert(BATCH_HEADER, (self.batch + 1).to_string().as_str());
        if let (0, Some(created)) = (self.batch, self.earlier_stream) {
            h.insert(EARLIER_STREAM_HEADER, created.to_string().as_str());
        }
        h
    }

    /// The position once that message is stored at `sequence`.
    pub fn after(&self, to_step: u64, sequence: u64) -> Position {
        Position {
            step: to_step,
            subject_seq: sequence,
            batch: self.batch + 1,
            earlier_stream: None,
        }
    }
}

/// What the stream holds of a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum History {
    /// The whole chain, ending here.
    Whole(Position),
    /// Messages are missing (the reason, with the fix).
    Damaged(String),
}

fn header_u64(h: &HeaderMap, name: &str) -> Option<u64> {
    h.get(name).and_then(|v| v.as_str().parse().ok())
}

/// Checks the node's chain on `subject`: its count and its last message. Also hands back that
/// message's payload (so the node can tell whether it is its own journal's).
pub async fn check(
    stream: &stream::Stream,
    subject: &str,
) -> Result<(History, Option<Vec<u8>>), String> {
    let mut count: u64 = 0;
    let mut subjects = stream
        .info_with_subjects(subject)
        .await
        .map_err(|e| format!("asking the stream for {subject}: {e}"))?;
    while let Some(entry) = subjects.next().await {
        let (s, n) = entry.map_err(|e| format!("asking the stream for {subject}: {e}"))?;
        if s == subject {
            count += n as u64;
        }
    }
    let last = match stream.direct_get_last_for_subject(subject).await {
        Ok(m) => Some(m),
        Err(e) if e.kind() == stream::DirectGetErrorKind::NotFound => None,
        Err(e) => return Err(format!("reading the last message of {subject}: {e}")),
    };
    let history = judge(count, last.as_ref().map(|m| (&m.headers, m.sequence)));
    Ok((history, last.map(|m| m.payload.to_vec())))
}

/// The verdict on a count and a last message (its headers and stream sequence).
pub fn judge(count: u64, last: Option<(&HeaderMap, u64)>) -> History {
    let Some((headers, sequence)) = last else {
        return if count == 0 {
            History::Whole(Position::default())
        } else {
            History::Damaged(format!(
                "the stream counts {count} messages from this node but cannot read its last one"
            ))
        };
    };
    let (Some(step), Some(batch)) = (
        header_u64(headers, TO_STEP_HEADER),
        header_u64(headers, BATCH_HEADER),
    ) else {
        return History::Damaged(
            "the node's last message on the stream has no Dgt-To-Step/Dgt-Batch header: it was \
             not written by this version, or not by this node"
                .into(),
        );
    };
    if batch != count {
        return History::Damaged(format!(
            "the stream holds {count} of this node's messages but its last one is message \
             {batch}: {} are missing (the broker lost part of its store). Fix: with the \
             broker's admin user remove the stream (`nats stream rm`), start the hub to create \
             it anew, and every node republishes its whole journal (docs/cluster.md)",
            batch.saturating_sub(count)
        ));
    }
    History::Whole(Position {
        step,
        subject_seq: sequence,
        batch,
        earlier_stream: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_subject_is_a_chain_of_nothing() {
        assert_eq!(judge(0, None), History::Whole(Position::default()));
    }

    #[test]
    fn a_chain_is_whole_when_its_count_is_its_last_batch_number() {
        let pos = Position::default().after(7, 3).after(12, 9);
        let h = Position::default().after(7, 3).next_headers("S", 12);
        assert_eq!(judge(2, Some((&h, 9))), History::Whole(pos));
        assert_eq!(h.get(EXPECTED_SUBJECT_SEQ).unwrap().as_str(), "3");
        assert_eq!(h.get(FROM_STEP_HEADER).unwrap().as_str(), "7");
        // Message 2 is the last but the stream has only one: the first was lost.
        let History::Damaged(why) = judge(1, Some((&h, 9))) else {
            panic!("a missing message must be seen")
        };
        assert!(why.contains("1 are missing"), "{why}");
    }
}
