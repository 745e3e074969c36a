//! First sights (`/ws?preview=1`, contract §5): a hub hears a node's event on the node's
//! live subject before the stream has numbered it, and shows it at once as a preview. When
//! the numbered event follows, a client that was sent its preview needs only the numbers:
//! the server sends `{"type":"numbered","node","node_seq","seq","count"}` for a run of such
//! events instead of each event again (the previews of `node_seq`…`node_seq + count - 1` take
//! the seqs `seq`…`seq + count - 1`; an alert's id is its seq). So a dashboard that asks for
//! previews reads each event once, not twice.

use std::collections::HashMap;

use axum::extract::ws::Utf8Bytes;
use serde_json::json;

/// Previews remembered while their numbered events are awaited: one never numbered (a node
/// whose journal failed released it anyway), or numbered after a long stall of the stream, is
/// forgotten after between this many and twice as many more (its event then comes whole). A
/// client must keep at least twice as many (the dashboard keeps 50,000).
const REMEMBERED: u64 = 16_384;

/// Which events were previewed, by their node and node seq, and as which preview (previews
/// are numbered in the order they were sent).
#[derive(Debug, Default)]
pub struct PreviewBook {
    next_no: u64,
    sent: HashMap<(String, u64), u64>,
}

impl PreviewBook {
    /// The number the next preview will have: a client joining now is sent the previews
    /// from it on.
    pub fn next_no(&self) -> u64 {
        self.next_no
    }

    /// A preview of `node`'s event `node_seq` is sent now: its number.
    pub fn sent(&mut self, node: &str, node_seq: u64) -> u64 {
        let no = self.next_no;
        self.next_no += 1;
        self.sent.insert((node.to_string(), node_seq), no);
        if self.sent.len() as u64 > 2 * REMEMBERED {
            let oldest = self.next_no.saturating_sub(REMEMBERED);
            self.sent.retain(|_, no| *no >= oldest);
        }
        no
    }

    /// `node`'s event `node_seq` is numbered now: the number of its preview, if one was sent.
    pub fn numbered(&mut self, node: &str, node_seq: u64) -> Option<u64> {
        self.sent.remove(&(node.to_string(), node_seq))
    }
}

/// On a numbered event's frame: its preview went out as preview `no`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Previewed {
    pub no: u64,
    pub node: String,
    pub node_seq: u64,
}

/// Consecutive numbered events one client was sent the previews of, told as one `numbered`
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NumberedRun {
    node: String,
    node_seq: u64,
    seq: u64,
    count: u64,
}

impl NumberedRun {
    fn new(p: &Previewed, seq: u64) -> NumberedRun {
        NumberedRun {
            node: p.node.clone(),
            node_seq: p.node_seq,
            seq,
            count: 1,
        }
    }

    /// Takes the next numbered event if it continues the run (same node, both numbers next).
    fn extend(&mut self, p: &Previewed, seq: u64) -> bool {
        let next = p.node == self.node
            && p.node_seq == self.node_seq + self.count
            && seq == self.seq + self.count;
        if next {
            self.count += 1;
        }
        next
    }

    fn text(&self) -> Utf8Bytes {
        let v = json!({
            "type": "numbered",
            "node": self.node,
            "node_seq": self.node_seq,
            "seq": self.seq,
            "count": self.count,
        });
        Utf8Bytes::from(v.to_string())
    }
}

/// What one client is sent of a burst of live messages, in order: whole messages, and the
/// numbers of consecutive events it had the previews of, gathered into one `numbered`
/// message between them.
#[derive(Debug, Default)]
pub struct Outgoing {
    texts: Vec<Utf8Bytes>,
    run: Option<NumberedRun>,
}

impl Outgoing {
    /// A message sent as it is.
    pub fn whole(&mut self, text: Utf8Bytes) {
        self.close_run();
        self.texts.push(text);
    }

    /// The numbers of an event whose preview the client had: its hub `seq`.
    pub fn numbers(&mut self, p: &Previewed, seq: u64) {
        if !self.run.as_mut().is_some_and(|r| r.extend(p, seq)) {
            self.close_run();
            self.run = Some(NumberedRun::new(p, seq));
        }
    }

    fn close_run(&mut self) {
        if let Some(run) = self.run.take() {
            self.texts.push(run.text());
        }
    }

    /// The messages, in order.
    pub fn finish(mut self) -> Vec<Utf8Bytes> {
        self.close_run();
        self.texts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn previewed(no: u64, node: &str, node_seq: u64) -> Previewed {
        Previewed {
            no,
            node: node.into(),
            node_seq,
        }
    }

    #[test]
    fn a_preview_is_found_once_when_its_event_is_numbered() {
        let mut book = PreviewBook::default();
        assert_eq!(book.sent("hall-a", 7), 0);
        assert_eq!(book.sent("hall-b", 7), 1);
        assert_eq!(book.next_no(), 2);
        assert_eq!(book.numbered("hall-b", 7), Some(1));
        assert_eq!(book.numbered("hall-b", 7), None);
        assert_eq!(book.numbered("hall-a", 8), None);
    }

    #[test]
    fn previews_never_numbered_are_forgotten_in_the_end() {
        let mut book = PreviewBook::default();
        for s in 0..3 * REMEMBERED {
            book.sent("hall-a", s);
        }
        assert!(book.sent.len() as u64 <= 2 * REMEMBERED);
        assert_eq!(book.numbered("hall-a", 0), None, "the oldest is forgotten");
        assert!(book.numbered("hall-a", 3 * REMEMBERED - 1).is_some());
    }

    #[test]
    fn a_run_holds_consecutive_events_of_one_node_only() {
        let mut run = NumberedRun::new(&previewed(0, "hall-a", 10), 100);
        assert!(run.extend(&previewed(1, "hall-a", 11), 101));
        assert!(
            !run.extend(&previewed(2, "hall-b", 12), 102),
            "another node"
        );
        assert!(
            !run.extend(&previewed(2, "hall-a", 13), 102),
            "a node seq skipped"
        );
        assert!(
            !run.extend(&previewed(2, "hall-a", 12), 103),
            "a hub seq skipped"
        );
        let v: serde_json::Value = serde_json::from_str(&run.text()).unwrap();
        assert_eq!(
            v,
            json!({"type": "numbered", "node": "hall-a", "node_seq": 10, "seq": 100, "count": 2})
        );
    }

    #[test]
    fn numbers_are_gathered_between_whole_messages_in_order() {
        let mut out = Outgoing::default();
        out.numbers(&previewed(0, "hall-a", 10), 100);
        out.numbers(&previewed(1, "hall-a", 11), 101);
        out.whole(Utf8Bytes::from_static("own"));
        out.numbers(&previewed(2, "hall-a", 12), 103);
        let texts: Vec<serde_json::Value> = out
            .finish()
            .iter()
            .map(|t| serde_json::from_str(t).unwrap_or(json!(t.as_str())))
            .collect();
        assert_eq!(
            texts,
            [
                json!({"type": "numbered", "node": "hall-a", "node_seq": 10, "seq": 100, "count": 2}),
                json!("own"),
                json!({"type": "numbered", "node": "hall-a", "node_seq": 12, "seq": 103, "count": 1}),
            ]
        );
    }
}
