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
            // Spectators are never sent previews.
            first_preview: u64::MAX,
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
    queue: Mutex<Waiting>,
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
            queue: Mutex::new(Waiting::default()),
            cap: cap.max(1),
            ready: Notify::new(),
            dropped_clocks: AtomicU64::new(0),
            dropped_events: AtomicU64::new(0),
        }))
    }

    /// Queues an event that arrived at `at`; never waits. Dropping for the cap takes the
    /// front of one of the two queues: constant time however full, so a restart that
    /// re-applies a long history through a full queue stays linear.
    pub fn send(&self, at: Instant, event: Event) {
        self.queue(at, Waiter::Event(event));
    }

    fn queue(&self, at: Instant, waiter: Waiter) {
        let mut q = self.0.queue.lock().unwrap_or_else(|p| p.into_inner());
        self.push_capped(&mut q, at, waiter);
        drop(q);
        self.0.ready.notify_one();
    }

    /// Queues into `q` (the queue, held), dropping for the cap.
    fn push_capped(&self, q: &mut Waiting, at: Instant, waiter: Waiter) {
        if q.len() >= self.0.cap {
            if q.clocks.pop_front().is_some() {
                self.0.dropped_clocks.fetch_add(1, Ordering::Relaxed);
            } else {
                q.others.pop_front();
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
        q.push(at, waiter);
    }

    /// The events waiting and how long ago each arrived, oldest first.
    pub(crate) fn waiting(&self) -> Vec<(Duration, Waiter)> {
        let q = self.0.queue.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        q.in_order()
            .map(|(at, w)| (now.saturating_duration_since(at), w.clone()))
            .collect()
    }

    /// Queues events that arrived each `age` ago, oldest first (a views snapshot's queue,
    /// after a restart): the queue is held once for all of them.
    pub(crate) fn send_aged(&self, waiting: Vec<(Duration, Waiter)>) {
        let now = Instant::now();
        let mut q = self.0.queue.lock().unwrap_or_else(|p| p.into_inner());
        for (age, waiter) in waiting {
            self.push_capped(&mut q, now.checked_sub(age).unwrap_or(now), waiter);
        }
        drop(q);
        self.0.ready.notify_one();
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
    fn pop_due(&self, delay: Duration) -> Option<Waiter> {
        let mut q = self.0.queue.lock().unwrap_or_else(|p| p.into_inner());
        match q.front_arrival() {
            Some(at) if at + delay <= Instant::now() => q.pop_front(),
            _ => None,
        }
    }

    fn peek_arrival(&self) -> Option<Instant> {
        self.0
            .queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .front_arrival()
    }
}

/// A public event waiting out the delay: as the feed handed it over, or, restored from a
/// views snapshot, as its JSON text, read when it is released. A restart at the end of a day
/// restores up to the queue's cap (200,000 by default) of them, and reading each into an
/// [`Event`] (a flattened, internally tagged type) is most of a snapshot's decoding; once
/// restored they leave over the delay, a few per second.
// The queue holds events inline as it did before restored texts: boxing them would cost
// every live public event an allocation for the few restored ones' sake.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum Waiter {
    Event(Event),
    Json { clock: bool, text: Utf8Bytes },
}

impl Waiter {
    pub(crate) fn is_clock(&self) -> bool {
        match self {
            Waiter::Event(e) => matches!(e.body, EventBody::Clock(_)),
            Waiter::Json { clock, .. } => *clock,
        }
    }

    /// The event; a text that does not read as one is an error for the log.
    pub(crate) fn into_event(self) -> Result<Event, serde_json::Error> {
        match self {
            Waiter::Event(e) => Ok(e),
            Waiter::Json { text, .. } => serde_json::from_str(text.as_str()),
        }
    }
}

/// The waiting events in two queues, clock readings and the rest, each entry numbered in
/// order of arrival: the oldest clock reading (the first to drop for the cap) is a queue's
/// front, and the events leave in arrival order by comparing the two fronts.
#[derive(Default)]
struct Waiting {
    clocks: VecDeque<(u64, Instant, Waiter)>,
    others: VecDeque<(u64, Instant, Waiter)>,
    next: u64,
}

impl Waiting {
    fn len(&self) -> usize {
        self.clocks.len() + self.others.len()
    }

    fn push(&mut self, at: Instant, waiter: Waiter) {
        let n = self.next;
        self.next += 1;
        if waiter.is_clock() {
            self.clocks.push_back((n, at, waiter));
        } else {
            self.others.push_back((n, at, waiter));
        }
    }

    /// The queue whose front arrived first.
    fn first(&mut self) -> Option<&mut VecDeque<(u64, Instant, Waiter)>> {
        match (self.clocks.front(), self.others.front()) {
            (Some(c), Some(o)) if c.0 < o.0 => Some(&mut self.clocks),
            (_, Some(_)) => Some(&mut self.others),
            (Some(_), None) => Some(&mut self.clocks),
            (None, None) => None,
        }
    }

    fn front_arrival(&mut self) -> Option<Instant> {
        self.first().and_then(|q| q.front()).map(|(_, at, _)| *at)
    }

    fn pop_front(&mut self) -> Option<Waiter> {
        self.first().and_then(|q| q.pop_front()).map(|(_, _, e)| e)
    }

    /// Every waiting event with its arrival, oldest first.
    fn in_order(&self) -> impl Iterator<Item = (Instant, &Waiter)> {
        let mut all: Vec<_> = self.clocks.iter().chain(self.others.iter()).collect();
        all.sort_unstable_by_key(|(n, _, _)| *n);
        all.into_iter().map(|(_, at, e)| (*at, e))
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
        match arrivals.pop_due(delay).map(Waiter::into_event) {
            Some(Ok(event)) => public.release(&mut hall, &event),
            Some(Err(e)) => {
                let n = arrivals.0.dropped_events.fetch_add(1, Ordering::Relaxed) + 1;
                tracing::error!(
                    dropped = n,
                    "a public event restored from the views snapshot does not read ({e}): \
                     the public feed lacks it (the arbiter's feed and journal keep it)"
                );
            }
            None => {}
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
    fn events_leave_in_arrival_order_after_the_cap_dropped_the_oldest_clock_reading() {
        let q = Arrivals::new(4);
        let now = Instant::now();
        for event in [start(0), clock(1), start(2), clock(3), clock(4), start(5)] {
            q.send(now, event);
        }
        let waiting: Vec<u64> = q
            .waiting()
            .into_iter()
            .map(|(_, w)| w.into_event().unwrap().seq)
            .collect();
        assert_eq!(waiting, [0, 2, 4, 5]);
        let left: Vec<u64> = std::iter::from_fn(|| q.pop_due(Duration::ZERO))
            .map(|w| w.into_event().unwrap().seq)
            .collect();
        assert_eq!(left, [0, 2, 4, 5]);
        assert_eq!(q.stats().dropped_clocks.load(Ordering::Relaxed), 2);
        assert!(q.is_empty());
    }

    #[test]
    fn events_restored_as_text_keep_their_place_and_kind_and_read_back_whole() {
        let q = Arrivals::new(3);
        let as_text = |e: &Event| Waiter::Json {
            clock: matches!(e.body, EventBody::Clock(_)),
            text: e.to_json().into(),
        };
        q.send_aged(vec![
            (Duration::from_secs(2), as_text(&start(0))),
            (Duration::from_secs(1), as_text(&clock(1))),
        ]);
        q.send(Instant::now(), start(2));
        // Full: the restored clock reading is the one dropped, as a parsed one would be.
        q.send(Instant::now(), clock(3));
        assert_eq!(q.stats().dropped_clocks.load(Ordering::Relaxed), 1);
        let left: Vec<Event> = std::iter::from_fn(|| q.pop_due(Duration::ZERO))
            .map(|w| w.into_event().unwrap())
            .collect();
        assert_eq!(left, [start(0), start(2), clock(3)]);
        let damaged = Waiter::Json {
            clock: false,
            text: "{\"seq\":".into(),
        };
        assert!(damaged.into_event().is_err());
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
