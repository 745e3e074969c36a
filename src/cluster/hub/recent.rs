//! The hub's recent events, kept so that its server can catch up when it falls behind the
//! stream (issue 16, item 6). A daemon reads what its server missed back from its journal;
//! the hub has no journal, so it keeps the last events it sent in a bounded ring — enough
//! for twice the broadcast channel's capacity — and only a server behind by more
//! than that loses events (and says so).

use std::collections::VecDeque;
use std::sync::Mutex;

use dgt_core::Event;

/// The last `capacity` events the hub sent to its server, oldest first.
pub struct RecentEvents {
    capacity: usize,
    ring: Mutex<VecDeque<Event>>,
}

impl RecentEvents {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            ring: Mutex::new(VecDeque::new()),
        }
    }

    /// Keeps `event` (the hub's seqs only grow), dropping the oldest beyond the capacity.
    pub fn keep(&self, event: &Event) {
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        if ring.len() == self.capacity {
            ring.pop_front();
        }
        ring.push_back(event.clone());
    }
}

impl dgt_server::feed::EventSource for RecentEvents {
    /// Every kept event after `seq`, if the ring still holds the one right after it.
    fn events_after(&self, seq: u64) -> Result<Vec<Event>, dgt_server::SourceError> {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let oldest = ring.front().map(|e| e.seq);
        match oldest {
            Some(oldest) if oldest > seq + 1 => Err(format!(
                "the hub keeps its last {} events only (from seq {oldest}); seq {} and later \
                 are gone from it — a reload of the dashboard shows the current state",
                self.capacity,
                seq + 1
            )
            .into()),
            _ => Ok(ring.iter().filter(|e| e.seq > seq).cloned().collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_core::{Alert, AlertKind, EventBody, Severity};
    use dgt_server::feed::EventSource;

    fn event(seq: u64) -> Event {
        let alert = Alert::new(
            AlertKind::NodeOnline,
            Severity::Info,
            "cluster",
            "up".into(),
        );
        Event::new(seq, "hall-a", seq * 10, EventBody::Alert(alert))
    }

    #[test]
    fn a_server_behind_gets_every_event_it_missed_in_order() {
        let recent = RecentEvents::new(100);
        for seq in 1..=50 {
            recent.keep(&event(seq));
        }
        let missed = recent.events_after(20).unwrap();
        assert_eq!(
            missed.iter().map(|e| e.seq).collect::<Vec<_>>(),
            (21..=50).collect::<Vec<_>>()
        );
        assert!(recent.events_after(50).unwrap().is_empty());
    }

    #[test]
    fn a_server_behind_the_ring_is_told_the_events_are_gone() {
        let recent = RecentEvents::new(10);
        for seq in 1..=30 {
            recent.keep(&event(seq));
        }
        // Seqs 21..=30 are kept: from 20 on the server can catch up, from 19 it cannot.
        assert_eq!(recent.events_after(20).unwrap().len(), 10);
        let err = recent.events_after(19).unwrap_err().to_string();
        assert!(err.contains("seq 20 and later"), "{err}");
    }
}
