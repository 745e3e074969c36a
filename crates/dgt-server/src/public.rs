//! The public feed for spectators and broadcasts: moves, clocks, game starts and results
//! only, each released `public_delay_ms` after the server received it. It has its own
//! [`Hall`], fed only what the public may see, so no alert, claim or acknowledgement can leak
//! into it by construction (Laws 12.6).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::ws::Utf8Bytes;
use dgt_core::Event;
use tokio::sync::{broadcast, mpsc};

use crate::feed::{Frame, Joined, event_frame, is_public};
use crate::hall::Hall;

/// The delayed public view and its broadcast.
pub struct PublicFeed {
    hall: Mutex<Hall>,
    live: broadcast::Sender<Arc<Frame>>,
}

impl PublicFeed {
    pub fn new(client_queue: usize) -> Self {
        let (live, _) = broadcast::channel(client_queue.max(16));
        PublicFeed {
            hall: Mutex::new(Hall::new()),
            live,
        }
    }

    /// The delayed hall.
    pub fn hall(&self) -> MutexGuard<'_, Hall> {
        self.hall.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Releases one event to the public.
    fn release(&self, event: &Event) {
        if !is_public(&event.body) {
            return;
        }
        let mut hall = self.hall();
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

/// Releases each public event `delay` after it arrived, in order.
pub async fn run(
    public: Arc<PublicFeed>,
    mut arrivals: mpsc::UnboundedReceiver<(Instant, Event)>,
    delay: Duration,
) {
    while let Some((arrived, event)) = arrivals.recv().await {
        tokio::time::sleep_until((arrived + delay).into()).await;
        public.release(&event);
    }
}
