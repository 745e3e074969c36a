//! A stream made anew after a broker lost its store, and the hubs' numbering.
//!
//! A hub that runs through the loss keeps its numbering and takes from the new stream only
//! what it lacks; the new stream holds the nodes' journals published again, in another order,
//! and none of the old hub records. A hub started later reads only the new stream, so its
//! `seq`s and alert ids differ from those of the hubs that ran through the loss, and nothing
//! left on the broker can tell it the old order. So the difference is said, not hidden: a
//! hub that ran through the loss writes [`HubRecord::StreamRemade`] into the new stream
//! (once, with the hub subject's expected-sequence check), and a hub that reads it without
//! having run through the loss raises `hub_numbering_differs` (hub-local, never cleared) and
//! logs it.

use std::time::Duration;

use async_nats::jetstream;

use super::local::{Change, NUMBERING_DIFFERS};
use super::{HubState, PublishError, Shared, lock, publish_hub_record};
use crate::cluster::Names;
use crate::cluster::wire::{HubRecord, unix_ms};

/// A `StreamRemade` record read from the stream.
pub(super) fn noticed(state: &mut HubState, read_up_to: u64, hub_seq: u64, stored_unix_ms: u64) {
    state.remade_told = true;
    if state.reader.recreated > 0 {
        // This hub ran through the loss: its numbering is the one the record speaks of.
        return;
    }
    let why = format!(
        "The event's stream was made anew (a broker lost its store; a hub that ran through it \
         had read {read_up_to} messages and numbered events up to {hub_seq}). This hub started \
         after that: its event and alert numbers differ from those hubs', whose dashboards \
         keep theirs. Games, moves and results are the same (each event keeps its node and \
         node_seq). See docs/cluster.md."
    );
    if state
        .local
        .set(NUMBERING_DIFFERS, Some(why.clone()), stored_unix_ms)
        == Change::Raised
    {
        tracing::warn!("hub: {why}");
    }
}

/// A node's first message into this stream says it had published into an earlier one: the
/// stream was made anew, perhaps with no hub running through it (a broker and hub on one PC,
/// replaced together), so only the nodes can tell.
pub(super) fn told_by_node(state: &mut HubState, node: &str, earlier: u64, stored_unix_ms: u64) {
    if state.reader.recreated > 0 || state.local.open(NUMBERING_DIFFERS).is_some() {
        return;
    }
    let why = format!(
        "The event's stream was made anew: the venue PC {node} had published into an earlier \
         one (made at Unix ms {earlier}) that is gone (a broker lost its store, or the stream \
         was removed). This hub reads only the new one: its event and alert numbers differ from \
         those any hub gave before, and dashboards from then reload. Games, moves and results \
         are the same (each event keeps its node and node_seq). See docs/cluster.md."
    );
    state
        .local
        .set(NUMBERING_DIFFERS, Some(why.clone()), stored_unix_ms);
    tracing::warn!("hub: {why}");
}

/// Writes the record once into the new stream, unless another hub did first.
pub(super) async fn tell(
    js: jetstream::Context,
    names: Names,
    shared: Shared,
    read_up_to: u64,
    hub_seq: u64,
) {
    let record = HubRecord::StreamRemade {
        read_up_to,
        hub_seq,
        unix_ms: unix_ms(),
    };
    for _ in 0..50 {
        let after = {
            let state = lock(&shared);
            if state.remade_told {
                return;
            }
            state.hub_subject_seq
        };
        match publish_hub_record(&js, &names, &record, after).await {
            Ok(()) => {
                tracing::info!(
                    read_up_to,
                    hub_seq,
                    "hub: recorded that the stream was made anew"
                );
                return;
            }
            Err(PublishError::NotNext) => tokio::time::sleep(Duration::from_millis(200)).await,
            Err(e) => {
                tracing::warn!("hub: cannot record that the stream was made anew: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}
