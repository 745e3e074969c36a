//! The public feed for spectators and broadcasts: moves, clocks, game starts and results
//! only, each released `public_delay_ms` after the server received it. It has its own
//! [`Hall`], fed only what the public may see, so no alert, claim or acknowledgement can leak
//! into it by construction (Laws 12.6).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::ws::Utf8Bytes;
use dgt_core::{Event, EventBody};
use tokio::sync::{Notify, broadcast};

use crate::feed::{Frame, Joined, event_frame, is_public, is_round_record};
use crate::hall::Hall;

/// The delayed public view and its broadcast.
pub struct PublicFeed {
    hall: Mutex<Hall>,
    live: broadcast::Sender<Arc<Frame>>,
}

impl PublicFeed {
    pub fn new(client_queue: usize, tables: dgt_pairings::TableMap) -> Self {
        let (live, _) = broadcast::channel(client_queue.max(16));
        PublicFeed {
            hall: Mutex::new(Hall::with_tables(tables)),
            live,
        }
    }

    /// The delayed hall.
    pub fn hall(&self) -> MutexGuard<'_, Hall> {
        self.hall.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Releases one event to the public, into the delayed hall the caller holds.
    fn release(&self, hall: &mut Hall, event: &Event) {
        if is_round_record(&event.body) {
            // The round's record: for the public round PGN, not a spectator frame.
            hall.apply(event);
            return;
        }
        if !is_public(&event.body) {
            return;
        }
        hall.apply(event);
        let _ = self.live.send(event_frame(event));
    }

    /// A spectator joins: always a snapshot of the delayed view (no resume, no alerts).
    pub fn join(&self, resync: bool) -> Joined {
        let hall = self.hall();
        let live = self.live.subscribe();
        let snapshot = hall.snapshot(resync, false, hall.last_t_ms());
        Joined {
            backlog: vec![Utf8Bytes::from(snapshot.to_string())],
            live,
            seq: hall.last_seq(),
        }
    }
}

/// The public events waiting out the delay: a bounded queue. A 15-minute delay over many
/// boards holds many clock readings; when the queue is full the oldest clock reading is
/// dropped (a later reading of the same clocks supersedes it), else the oldest event, each
/// counted and logged, so memory stays bounded whatever the rate.
#[derive(Clone)]
pub struct Arrivals(Arc<ArrivalQueue>);

pub struct ArrivalQueue {
    queue: Mutex<VecDeque<(Instant, Event)>>,
    cap: usize,
    ready: Notify,
    /// Clock readings dropped for the cap (superseded by later ones).
    pub dropped_clocks: AtomicU64,
    /// Other events dropped for the cap: the public feed lacks them (the arbiter's has them).
    pub dropped_events: AtomicU64,
}

impl Arrivals {
    pub fn new(cap: usize) -> Self {
        Arrivals(Arc::new(ArrivalQueue {
            queue: Mutex::new(VecDeque::new()),
            cap: cap.max(1),
            ready: Notify::new(),
            dropped_clocks: AtomicU64::new(0),
            dropped_events: AtomicU64::new(0),
        }))
    }

    /// Queues an event that arrived at `at`; never waits.
    pub fn send(&self, at: Instant, event: Event) {
        let mut q = self.0.queue.lock().unwrap_or_else(|p| p.into_inner());
        if q.len() >= self.0.cap {
            match q
                .iter()
                .position(|(_, e)| matches!(e.body, EventBody::Clock(_)))
            {
                Some(i) => {
                    q.remove(i);
                    self.0.dropped_clocks.fetch_add(1, Ordering::Relaxed);
                }
                None => {
                    q.pop_front();
                    let n = self.0.dropped_events.fetch_add(1, Ordering::Relaxed) + 1;
                    if n == 1 || n.is_power_of_two() {
                        tracing::error!(
                            cap = self.0.cap,
                            dropped = n,
                            "the public delay queue is full: its oldest events are dropped \
                             from the public feed (the arbiter's feed and journal keep them)"
                        );
                    }
                }
            }
        }
        q.push_back((at, event));
        drop(q);
        self.0.ready.notify_one();
    }

    /// The events waiting and how long ago each arrived, oldest first.
    pub(crate) fn waiting(&self) -> Vec<(Duration, Event)> {
        let q = self.0.queue.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        q.iter()
            .map(|(at, e)| (now.saturating_duration_since(*at), e.clone()))
            .collect()
    }

    /// Queues an event that arrived `age` ago (a views snapshot's queue, after a restart).
    pub(crate) fn send_aged(&self, age: Duration, event: Event) {
        let now = Instant::now();
        self.send(now.checked_sub(age).unwrap_or(now), event);
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.0.queue.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The counters.
    pub fn stats(&self) -> &ArrivalQueue {
        &self.0
    }

    /// Waits until an event is queued; its arrival time.
    async fn first_arrival(&self) -> Instant {
        loop {
            let notified = self.0.ready.notified();
            if let Some(at) = self.peek_arrival() {
                return at;
            }
            notified.await;
        }
    }

    /// The front event, if it arrived `delay` ago or earlier.
    fn pop_due(&self, delay: Duration) -> Option<Event> {
        let mut q = self.0.queue.lock().unwrap_or_else(|p| p.into_inner());
        match q.front() {
            Some((at, _)) if *at + delay <= Instant::now() => q.pop_front().map(|(_, e)| e),
            _ => None,
        }
    }

    fn peek_arrival(&self) -> Option<Instant> {
        self.0
            .queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .front()
            .map(|(at, _)| *at)
    }
}

/// Releases each public event `delay` after it arrived, in order. The event stays in the
/// queue while it waits (so the cap sees it), and is taken out when due.
pub async fn run(public: Arc<PublicFeed>, arrivals: Arrivals, delay: Duration) {
    loop {
        let at = arrivals.first_arrival().await;
        if at + delay > Instant::now() {
            tokio::time::sleep_until((at + delay).into()).await;
            continue;
        }
        // The cap may have dropped it meanwhile: then the next one waits its own turn. The
        // delayed hall is held while the event moves from the queue into it, so a views
        // snapshot finds it in one or the other.
        let mut hall = public.hall();
        if let Some(event) = arrivals.pop_due(delay) {
            public.release(&mut hall, &event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_core::event::ClockEvent;

    fn clock(seq: u64) -> Event {
        Event {
            seq,
            t_ms: seq,
            board: "1".into(),
            body: EventBody::Clock(ClockEvent {
                white_ms: Some(seq),
                black_ms: Some(1000),
                running: None,
                left_ms: seq,
                right_ms: 1000,
                white_side: None,
            }),
            node: None,
            node_seq: None,
        }
    }

    fn start(seq: u64) -> Event {
        let mut e = clock(seq);
        e.body = EventBody::GameEnd {
            game: "1/1".into(),
            result: "1-0".parse().unwrap(),
            reason: dgt_core::event::EndReason::Checkmate,
        };
        e
    }

    #[test]
    fn a_full_queue_drops_clock_readings_first_and_stays_bounded() {
        let q = Arrivals::new(100);
        let now = Instant::now();
        q.send(now, start(0));
        for seq in 1..10_000 {
            q.send(now, clock(seq));
        }
        assert_eq!(q.len(), 100);
        assert_eq!(q.stats().dropped_clocks.load(Ordering::Relaxed), 9_900);
        assert_eq!(q.stats().dropped_events.load(Ordering::Relaxed), 0);
        for seq in 10_000..10_200 {
            q.send(now, start(seq));
        }
        assert_eq!(q.len(), 100);
        assert!(q.stats().dropped_events.load(Ordering::Relaxed) > 0);
    }
}
