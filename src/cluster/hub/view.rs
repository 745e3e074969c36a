//! The hub's view of the stream, pure and deterministic: messages in stream order in, the
//! hub's events out. Every hub that reads the same stream from its start numbers the same
//! events the same way, so a restarted hub, or a second one for the broadcast room, serves
//! the same `seq`s and alert ids.
//!
//! On the hub (contract §5) every event carries `node` and `node_seq` (the node's own seq);
//! `seq` is the hub's; board and game ids are `<node>/<id>`; an alert's id is its hub seq;
//! `t_ms` is Unix milliseconds, so that boards of different PCs share one clock.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use dgt_core::{Alert, AlertKind, Event, EventBody, Severity};
use serde::{Deserialize, Serialize};

use crate::cluster::wire::{HubRecord, NodeBatch, Record};

/// What one stream message gave: events for the hall, acknowledgements by hub alert id.
#[derive(Debug, Default, PartialEq)]
pub struct Applied {
    pub events: Vec<Event>,
    pub acks: Vec<u64>,
}

/// One node as the stream describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeTrack {
    /// The last journal step applied (a message at or below it is a duplicate).
    pub to_step: u64,
    /// The node's last event seq seen.
    pub last_seq: u64,
    /// The last state the hub recorded in the stream (`None`: never recorded).
    pub online: Option<bool>,
    /// Messages that did not start where the previous one ended (should stay 0).
    pub gaps: u64,
    /// Messages skipped as already applied.
    pub duplicates: u64,
}

/// A node state reaching the stream later than this after the hub decided it was decided by
/// a hub cut off from the broker (its publish waited in a buffer): the state it describes is
/// long gone, so no hub applies it. Compared with the broker's storing time, which assumes
/// the PCs' clocks agree within seconds (the hub already puts every node on one clock).
pub const STATE_RECORD_TTL_MS: u64 = 10_000;

#[derive(Debug, Default)]
pub struct HubView {
    seq: u64,
    /// The nodes whose pairings and table results count (`[cluster] round_nodes`).
    round_nodes: BTreeSet<String>,
    /// Node states refused as decided by a hub that was cut off.
    pub stale_states: u64,
    nodes: BTreeMap<String, NodeTrack>,
    /// (node, the node's alert id) → hub alert id.
    alert_ids: HashMap<(String, u64), u64>,
    /// hub alert id → (node, the node's alert id); `None` for the hub's own alerts.
    owners: HashMap<u64, Option<(String, u64)>>,
}

/// Everything a [`HubView`] holds, as saved in the hub's checkpoint: restored, the view
/// numbers what follows exactly as the view that saved it would have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewState {
    pub seq: u64,
    /// The `round_nodes` the view applied: another list would have numbered the refused
    /// round records differently, so a checkpoint made under another list is not used.
    pub round_nodes: Vec<String>,
    pub stale_states: u64,
    pub nodes: BTreeMap<String, NodeTrack>,
    /// (node, the node's alert id, hub alert id), sorted.
    pub alert_ids: Vec<(String, u64, u64)>,
    /// (hub alert id, its owner), sorted.
    pub owners: Vec<(u64, Option<(String, u64)>)>,
}

impl HubView {
    /// The view's whole state (maps sorted, so that two equal views save equal bytes).
    pub fn state(&self) -> ViewState {
        let mut alert_ids: Vec<(String, u64, u64)> = self
            .alert_ids
            .iter()
            .map(|((node, id), hub)| (node.clone(), *id, *hub))
            .collect();
        alert_ids.sort();
        let mut owners: Vec<(u64, Option<(String, u64)>)> =
            self.owners.iter().map(|(k, v)| (*k, v.clone())).collect();
        owners.sort();
        ViewState {
            seq: self.seq,
            round_nodes: self.round_nodes.iter().cloned().collect(),
            stale_states: self.stale_states,
            nodes: self.nodes.clone(),
            alert_ids,
            owners,
        }
    }

    /// The view a [`ViewState`] describes.
    pub fn restore(state: ViewState) -> Self {
        HubView {
            seq: state.seq,
            round_nodes: state.round_nodes.into_iter().collect(),
            stale_states: state.stale_states,
            nodes: state.nodes,
            alert_ids: state
                .alert_ids
                .into_iter()
                .map(|(node, id, hub)| ((node, id), hub))
                .collect(),
            owners: state.owners.into_iter().collect(),
        }
    }

    /// A view that applies round-wide records (pairings, table results) only from these
    /// nodes (and from the hub).
    pub fn new(round_nodes: impl IntoIterator<Item = String>) -> Self {
        HubView {
            round_nodes: round_nodes.into_iter().collect(),
            ..Default::default()
        }
    }

    pub fn nodes(&self) -> &BTreeMap<String, NodeTrack> {
        &self.nodes
    }

    /// The hub's last seq.
    pub fn last_seq(&self) -> u64 {
        self.seq
    }

    /// Who raised a hub alert: `Some(Some((node, id)))` for a node's alert, `Some(None)` for
    /// the hub's own (a node's state), `None` for no such alert.
    pub fn owner_of(&self, hub_alert: u64) -> Option<Option<(String, u64)>> {
        self.owners.get(&hub_alert).cloned()
    }

    /// A node's journal records.
    pub fn apply_batch(&mut self, batch: NodeBatch) -> Applied {
        let track = self.nodes.entry(batch.node.clone()).or_default();
        if batch.to_step <= track.to_step {
            track.duplicates += 1;
            return Applied::default();
        }
        if batch.from_step > track.to_step {
            // The node never sends past a message the broker has not stored; a gap means the
            // stream lost messages (a damaged store) or the node's journal was replaced. (A
            // message that starts before the last step applied is a journal published again
            // into a stream made anew: its events already applied are skipped below.)
            track.gaps += 1;
            tracing::warn!(
                node = %batch.node,
                expected = track.to_step,
                got = batch.from_step,
                "hub: a node's stream does not continue where it stopped"
            );
        }
        track.to_step = batch.to_step;
        let node = batch.node;
        let mut out = Applied::default();
        for record in batch.records {
            match record {
                Record::Event(e) => {
                    let mut e = *e;
                    let track = self.nodes.get_mut(&node).expect("inserted above");
                    if e.seq <= track.last_seq {
                        continue;
                    }
                    track.last_seq = e.seq;
                    if round_wide(&e.body) && !self.round_nodes.contains(&node) {
                        out.events
                            .push(self.refused_round_record(&node, &e, batch.clock_unix_ms));
                        continue;
                    }
                    self.seq += 1;
                    let hub_seq = self.seq;
                    to_hub_form(&mut e, &node, batch.clock_unix_ms);
                    e.seq = hub_seq;
                    if let EventBody::Alert(a) = &mut e.body {
                        self.alert_ids.insert((node.clone(), a.id), hub_seq);
                        self.owners.insert(hub_seq, Some((node.clone(), a.id)));
                        a.id = hub_seq;
                    }
                    // Who acknowledged or confirmed: the alert by its hub id.
                    if let EventBody::ArbiterAction(by) = &mut e.body
                        && let dgt_core::Operation::Ack(id) | dgt_core::Operation::Confirm(id) =
                            by.action.as_mut()
                        && let Some(hub_id) = self.alert_ids.get(&(node.clone(), *id))
                    {
                        *id = *hub_id;
                    }
                    out.events.push(e);
                }
                Record::Ack { alert, .. } => {
                    if let Some(id) = self.alert_ids.get(&(node.clone(), alert)) {
                        out.acks.push(*id);
                    }
                }
            }
        }
        out
    }

    /// A round-wide record from a node not named for it: a `result_conflict` alert in its
    /// place, never the record (a PC could otherwise rewrite the event's pairings or
    /// results).
    fn refused_round_record(&mut self, node: &str, e: &Event, clock_unix_ms: u64) -> Event {
        let what = match &e.body {
            EventBody::Pairings(p) => format!("pairings for round {}", p.round),
            EventBody::TableResult(r) => format!(
                "the result {} for round {} table {}",
                r.result
                    .map_or("(withdrawn)".to_string(), |x| x.to_string()),
                r.round,
                r.table
            ),
            _ => "a round-wide record".to_string(),
        };
        tracing::warn!(%node, "hub: {what} from a node not named in [cluster] round_nodes; not applied");
        self.seq += 1;
        let hub_seq = self.seq;
        self.owners.insert(hub_seq, None);
        let mut alert = Alert::new(
            AlertKind::ResultConflict,
            Severity::Review,
            "cluster",
            format!(
                "The venue PC {node} sent {what}, but only the hub and the nodes named in \
                 [cluster] round_nodes set the event's rounds: it was not applied. Enter it on \
                 the hub if it is right."
            ),
        );
        alert.id = hub_seq;
        let mut out = Event::new(
            hub_seq,
            dgt_core::pairing::ROUND_BOARD,
            clock_unix_ms.saturating_add(e.t_ms),
            EventBody::Alert(alert),
        );
        out.node = Some(node.to_string());
        out.node_seq = Some(e.seq);
        out
    }

    /// One of the hub's own records, stored by the broker at `stored_unix_ms`.
    pub fn apply_hub(&mut self, record: HubRecord, stored_unix_ms: u64) -> Applied {
        if let HubRecord::NodeState { node, unix_ms, .. } = &record
            && stored_unix_ms > unix_ms.saturating_add(STATE_RECORD_TTL_MS)
        {
            self.stale_states += 1;
            tracing::warn!(
                %node,
                decided = unix_ms,
                stored = stored_unix_ms,
                "hub: a node state reached the stream long after it was decided (its hub was \
                 cut off); not applied"
            );
            return Applied::default();
        }
        match record {
            // Told by the hub around the view (hub-local: it takes no number).
            HubRecord::StreamRemade { .. } => Applied::default(),
            HubRecord::Ack { alert, .. } => Applied {
                events: Vec::new(),
                acks: vec![alert],
            },
            HubRecord::Round { op, unix_ms } => {
                let Some(body) = round_body(op) else {
                    return Applied::default();
                };
                self.seq += 1;
                Applied {
                    events: vec![Event::new(
                        self.seq,
                        dgt_core::pairing::ROUND_BOARD,
                        unix_ms,
                        body,
                    )],
                    acks: Vec::new(),
                }
            }
            HubRecord::NodeState {
                node,
                online,
                unix_ms,
            } => {
                let track = self.nodes.entry(node.clone()).or_default();
                if track.online == Some(online) {
                    return Applied::default();
                }
                track.online = Some(online);
                self.seq += 1;
                let hub_seq = self.seq;
                self.owners.insert(hub_seq, None);
                let (kind, severity, message) = if online {
                    (
                        AlertKind::NodeOnline,
                        Severity::Info,
                        format!("The venue PC {node} is connected to the event."),
                    )
                } else {
                    (
                        AlertKind::NodeOffline,
                        Severity::Review,
                        format!(
                            "The venue PC {node} stopped sending heartbeats: its boards are not \
                             seen from here until it is back (its own journal keeps everything, \
                             and it catches up when it returns). Check the PC and its network."
                        ),
                    )
                };
                let mut alert = Alert::new(kind, severity, "cluster", message);
                alert.id = hub_seq;
                let mut e = Event::new(hub_seq, node.clone(), unix_ms, EventBody::Alert(alert));
                e.node = Some(node);
                Applied {
                    events: vec![e],
                    acks: Vec::new(),
                }
            }
        }
    }

    /// A node's event as the hub will serve it, before the stream has it (its first sight,
    /// heard on the node's live subject): the same form as [`HubView::apply_batch`] gives,
    /// but without the hub's `seq` or an alert's hub id (both 0), which only the stream's
    /// order decides. `None` for an event the view has applied already, for a round-wide
    /// record (those count only as the stream orders them) and for an arbiter's action
    /// (it names alerts by their hub ids).
    pub fn preview(&self, node: &str, clock_unix_ms: u64, mut e: Event) -> Option<Event> {
        let applied = self.nodes.get(node).map_or(0, |t| t.last_seq);
        if e.seq <= applied || round_wide(&e.body) || matches!(e.body, EventBody::ArbiterAction(_))
        {
            return None;
        }
        to_hub_form(&mut e, node, clock_unix_ms);
        e.seq = 0;
        if let EventBody::Alert(a) = &mut e.body {
            a.id = 0;
        }
        Some(e)
    }
}

/// A node's event in the hub's form (contract §5), but for `seq` and an alert's id: `node`
/// and `node_seq` set, board and game ids prefixed with the node, `t_ms` on the Unix clock.
fn to_hub_form(e: &mut Event, node: &str, clock_unix_ms: u64) {
    e.node_seq = Some(e.seq);
    e.node = Some(node.to_string());
    // Pairings and table results are the event's, not a board's: they keep the round-wide
    // board, and the hub's table map places them.
    if !round_wide(&e.body) {
        e.board = format!("{node}/{}", e.board);
    }
    e.t_ms = clock_unix_ms.saturating_add(e.t_ms);
    prefix_game(&mut e.body, node);
}

fn prefix_game(body: &mut EventBody, node: &str) {
    let prefix = |g: &mut String| *g = format!("{node}/{g}");
    match body {
        EventBody::GameStart { game, .. }
        | EventBody::GameEnd { game, .. }
        | EventBody::Reserves { game, .. } => prefix(game),
        EventBody::Move(m) => prefix(&mut m.game),
        EventBody::GameReplaced { game, replaced_by } => {
            prefix(game);
            prefix(replaced_by);
        }
        EventBody::Alert(a) => {
            if let Some(g) = &mut a.game {
                prefix(g);
            }
        }
        // A table's game named by a node's arbiter is that node's game.
        EventBody::TableGame(t) => {
            if let Some(g) = &mut t.game {
                prefix(g);
            }
        }
        EventBody::BoardStatus(_)
        | EventBody::Clock(_)
        | EventBody::Pairings(_)
        | EventBody::TableResult(_)
        | EventBody::ArbiterAction(_) => {}
    }
}

/// The event a round-wide action entered on the hub stands for, as a node's core passes it
/// back (`None` for anything that is not round-wide).
pub fn round_body(op: dgt_core::Operation) -> Option<EventBody> {
    use dgt_core::Operation;
    match op {
        Operation::Pairings(p) => Some(EventBody::Pairings(p)),
        Operation::TableResult(r) => Some(EventBody::TableResult(r)),
        // The chief names a table's game (a node's game, `hall-a/7/2`): every hub binds it.
        Operation::TableGame(t) => Some(EventBody::TableGame(t)),
        Operation::By(by)
            if matches!(
                *by.action,
                Operation::Pairings(_) | Operation::TableResult(_) | Operation::TableGame(_)
            ) =>
        {
            Some(EventBody::ArbiterAction(by))
        }
        _ => None,
    }
}

fn round_wide(body: &EventBody) -> bool {
    matches!(
        body,
        EventBody::Pairings(_) | EventBody::TableResult(_) | EventBody::TableGame(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_core::Side;
    use dgt_core::event::MoveEvent;

    fn start(seq: u64, board: &str) -> Record {
        Record::Event(Box::new(Event::new(
            seq,
            board,
            seq * 100,
            EventBody::GameStart {
                game: format!("{board}/1"),
                start_fen: "x".into(),
                found_under_way: false,
            },
        )))
    }

    fn alert(seq: u64, board: &str) -> Record {
        let mut a = Alert::new(
            AlertKind::IllegalMove,
            Severity::Review,
            "fide-2023",
            "m".into(),
        );
        a.id = seq;
        a.game = Some(format!("{board}/1"));
        Record::Event(Box::new(Event::new(
            seq,
            board,
            seq * 100,
            EventBody::Alert(a),
        )))
    }

    fn mv(seq: u64, board: &str) -> Record {
        Record::Event(Box::new(Event::new(
            seq,
            board,
            seq * 100,
            EventBody::Move(MoveEvent {
                game: format!("{board}/1"),
                ply: 1,
                side: Side::White,
                uci: "e2e4".into(),
                san: "e4".into(),
                fen: "f".into(),
                white_ms: None,
                black_ms: None,
            }),
        )))
    }

    fn batch(node: &str, from: u64, to: u64, records: Vec<Record>) -> NodeBatch {
        NodeBatch {
            node: node.into(),
            from_step: from,
            to_step: to,
            clock_unix_ms: 1_000_000,
            records,
        }
    }

    #[test]
    fn node_events_get_the_hubs_seq_and_prefixed_ids() {
        let mut v = HubView::default();
        let a = v.apply_batch(batch("hall-a", 0, 4, vec![start(1, "7"), mv(2, "7")]));
        let b = v.apply_batch(batch("hall-b", 0, 2, vec![start(1, "7"), alert(2, "7")]));
        let all: Vec<_> = a.events.iter().chain(&b.events).collect();
        assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert_eq!(all[1].board, "hall-a/7");
        assert_eq!(all[1].node.as_deref(), Some("hall-a"));
        assert_eq!(all[1].node_seq, Some(2));
        assert_eq!(all[1].t_ms, 1_000_200);
        let EventBody::Move(m) = &all[1].body else {
            panic!("a move")
        };
        assert_eq!(m.game, "hall-a/7/1");
        let EventBody::Alert(x) = &all[3].body else {
            panic!("an alert")
        };
        assert_eq!((x.id, x.game.as_deref()), (4, Some("hall-b/7/1")));
        assert_eq!(v.owner_of(4), Some(Some(("hall-b".into(), 2))));
    }

    /// A first sight is the event the stream will give, but for the numbers only the
    /// stream's order decides; nothing is shown twice, and seeing it changes no number.
    #[test]
    fn a_preview_is_the_numbered_event_without_its_numbers() {
        let mut v = HubView::default();
        v.apply_batch(batch("hall-b", 0, 1, vec![start(1, "9")]));
        v.apply_batch(batch("hall-a", 0, 1, vec![start(1, "7")]));
        let unwrap = |r: Record| match r {
            Record::Event(e) => *e,
            Record::Ack { .. } => unreachable!(),
        };
        let shown: Vec<Event> = [mv(2, "7"), alert(3, "7")]
            .into_iter()
            .map(|r| {
                v.preview("hall-a", 1_000_000, unwrap(r))
                    .expect("not applied yet")
            })
            .collect();
        assert_eq!(v.last_seq(), 2, "a preview numbers nothing");
        let out = v.apply_batch(batch("hall-a", 1, 3, vec![mv(2, "7"), alert(3, "7")]));
        for (preview, numbered) in shown.iter().zip(&out.events) {
            let mut numbered = numbered.clone();
            numbered.seq = 0;
            if let EventBody::Alert(a) = &mut numbered.body {
                a.id = 0;
            }
            assert_eq!(*preview, numbered);
        }
        assert_eq!(out.events[0].seq, 3);
        // Once applied, and for what only the stream's order may decide: nothing.
        assert_eq!(v.preview("hall-a", 1_000_000, unwrap(mv(2, "7"))), None);
        let mut pairings = unwrap(mv(4, "*"));
        pairings.body = EventBody::Pairings(Default::default());
        assert_eq!(v.preview("hall-a", 1_000_000, pairings), None);
    }

    #[test]
    fn who_acknowledged_names_the_alert_by_its_hub_id() {
        let mut v = HubView::default();
        // Another node's events first, so hub seqs and node seqs differ.
        v.apply_batch(batch("hall-b", 0, 2, vec![start(1, "9"), mv(2, "9")]));
        v.apply_batch(batch("hall-a", 0, 2, vec![start(1, "7"), mv(2, "7")]));
        let signed = Record::Event(Box::new(Event::new(
            4,
            "7",
            400,
            EventBody::ArbiterAction(dgt_core::input::ActionBy {
                arbiter: "Ana".into(),
                role: "floor".into(),
                action: Box::new(dgt_core::Operation::Ack(3)),
            }),
        )));
        let out = v.apply_batch(batch("hall-a", 2, 4, vec![alert(3, "7"), signed]));
        let EventBody::ArbiterAction(by) = &out.events[1].body else {
            panic!("an arbiter action")
        };
        // Node alert 3 is the hub's alert 3 here too; its hub seq is what the hub shows.
        assert_eq!(
            v.owner_of(out.events[0].seq),
            Some(Some(("hall-a".into(), 3)))
        );
        assert_eq!(
            *by.action,
            dgt_core::Operation::Ack(out.events[0].seq),
            "{by:?}"
        );
        assert_eq!(out.events[1].board, "hall-a/7");
    }

    #[test]
    fn a_message_seen_again_changes_nothing_and_acks_find_their_alert() {
        let mut v = HubView::default();
        v.apply_batch(batch("n", 0, 3, vec![alert(1, "7")]));
        let again = v.apply_batch(batch("n", 0, 3, vec![alert(1, "7")]));
        assert_eq!(again, Applied::default());
        assert_eq!(v.nodes()["n"].duplicates, 1);
        let ack = v.apply_batch(batch(
            "n",
            3,
            4,
            vec![Record::Ack {
                alert: 1,
                board: "7".into(),
                t_ms: 5,
            }],
        ));
        assert_eq!(ack.acks, [1]);
        assert_eq!(v.nodes()["n"].gaps, 0);
        // A message that does not continue where the last one ended is counted.
        v.apply_batch(batch("n", 9, 10, vec![mv(2, "7")]));
        assert_eq!(v.nodes()["n"].gaps, 1);
    }

    #[test]
    fn node_states_raise_alerts_once_per_change() {
        let mut v = HubView::default();
        let state = |online| HubRecord::NodeState {
            node: "hall-a".into(),
            online,
            unix_ms: 5,
        };
        let off = v.apply_hub(state(false), 5);
        let EventBody::Alert(a) = &off.events[0].body else {
            panic!("an alert")
        };
        assert_eq!(
            (a.kind, a.severity),
            (AlertKind::NodeOffline, Severity::Review)
        );
        assert_eq!(off.events[0].board, "hall-a");
        assert!(v.apply_hub(state(false), 5).events.is_empty());
        let on = v.apply_hub(state(true), 5);
        let EventBody::Alert(a) = &on.events[0].body else {
            panic!("an alert")
        };
        assert_eq!(a.kind, AlertKind::NodeOnline);
        assert_eq!(v.owner_of(1), Some(None));
    }

    #[test]
    fn a_node_state_stored_long_after_its_decision_is_not_applied() {
        let mut v = HubView::default();
        let state = HubRecord::NodeState {
            node: "hall-a".into(),
            online: false,
            unix_ms: 1_000,
        };
        // Buffered by a hub cut off from the broker, delivered after the partition healed.
        assert_eq!(
            v.apply_hub(state.clone(), 1_000 + STATE_RECORD_TTL_MS + 1),
            Applied::default()
        );
        assert_eq!(v.stale_states, 1);
        assert_eq!(v.nodes().get("hall-a"), None);
        assert_eq!(v.apply_hub(state, 1_500).events.len(), 1);
    }

    fn result(seq: u64) -> Record {
        Record::Event(Box::new(Event::new(
            seq,
            dgt_core::pairing::ROUND_BOARD,
            seq * 100,
            EventBody::TableResult(dgt_core::pairing::TableResultOp {
                round: 3,
                table: 7,
                result: Some("+-".parse().unwrap()),
            }),
        )))
    }

    #[test]
    fn round_records_count_only_from_the_nodes_named_for_them() {
        let mut v = HubView::new(["hall-b".to_string()]);
        let forged = v.apply_batch(batch("hall-a", 0, 1, vec![result(1)]));
        let EventBody::Alert(a) = &forged.events[0].body else {
            panic!("a conflict alert in place of the result: {forged:?}")
        };
        assert_eq!(a.kind, AlertKind::ResultConflict);
        assert!(a.message.contains("hall-a"), "{}", a.message);
        assert_eq!(forged.events[0].node.as_deref(), Some("hall-a"));
        let named = v.apply_batch(batch("hall-b", 0, 1, vec![result(1)]));
        assert!(
            matches!(named.events[0].body, EventBody::TableResult(_)),
            "{named:?}"
        );
        assert_eq!(named.events[0].node.as_deref(), Some("hall-b"));
    }

    #[test]
    fn a_journal_published_again_from_its_start_adds_only_what_is_new() {
        let mut v = HubView::default();
        v.apply_batch(batch("n", 0, 2, vec![start(1, "7"), mv(2, "7")]));
        // The stream was made anew: the node sends its journal again, in other batches.
        let again = v.apply_batch(batch(
            "n",
            0,
            3,
            vec![start(1, "7"), mv(2, "7"), mv(3, "7")],
        ));
        assert_eq!(again.events.len(), 1);
        assert_eq!(again.events[0].node_seq, Some(3));
        assert_eq!(v.nodes()["n"].gaps, 0);
    }

    #[test]
    fn the_chiefs_round_actions_on_the_hub_are_the_hubs_events() {
        let mut v = HubView::default();
        let op = dgt_core::Operation::TableResult(dgt_core::pairing::TableResultOp {
            round: 3,
            table: 7,
            result: Some("1-0".parse().unwrap()),
        });
        let by = dgt_core::Operation::By(dgt_core::input::ActionBy {
            arbiter: "Chief".into(),
            role: "chief".into(),
            action: Box::new(op.clone()),
        });
        let out = v.apply_hub(HubRecord::Round { op, unix_ms: 9 }, 9);
        assert!(matches!(out.events[0].body, EventBody::TableResult(_)));
        assert_eq!(out.events[0].board, dgt_core::pairing::ROUND_BOARD);
        // No node: the hub's own.
        assert_eq!(out.events[0].node, None);
        let out = v.apply_hub(HubRecord::Round { op: by, unix_ms: 9 }, 9);
        let EventBody::ArbiterAction(who) = &out.events[0].body else {
            panic!("who entered it")
        };
        assert_eq!(who.arbiter, "Chief");
        // Anything else is not a round record.
        let ack = dgt_core::Operation::Ack(1);
        assert_eq!(
            v.apply_hub(
                HubRecord::Round {
                    op: ack,
                    unix_ms: 9
                },
                9
            ),
            Applied::default()
        );
    }

    #[test]
    fn a_view_restored_from_its_saved_state_numbers_the_rest_alike() {
        let first = vec![
            batch("hall-a", 0, 2, vec![start(1, "7"), alert(2, "7")]),
            batch("hall-b", 0, 1, vec![start(1, "3")]),
        ];
        let ack = || NodeBatch {
            records: vec![Record::Ack {
                alert: 2,
                board: "7".into(),
                t_ms: 5,
            }],
            ..batch("hall-a", 2, 3, Vec::new())
        };
        let state_record = || HubRecord::NodeState {
            node: "hall-b".into(),
            online: false,
            unix_ms: 9,
        };
        let mut whole = HubView::new(["hall-a".to_string()]);
        for b in first.clone() {
            whole.apply_batch(b);
        }
        let saved = serde_json::to_vec(&whole.state()).unwrap();
        let mut restored = HubView::restore(serde_json::from_slice(&saved).unwrap());
        assert_eq!(restored.state(), whole.state());
        // What follows: a duplicate, an ack of a saved alert, a node state, new events.
        let rest = |v: &mut HubView| {
            let mut out = vec![v.apply_batch(first[1].clone())];
            out.push(v.apply_batch(ack()));
            out.push(v.apply_hub(state_record(), 9));
            out.push(v.apply_batch(batch("hall-b", 1, 3, vec![mv(2, "3"), alert(3, "3")])));
            out
        };
        let a = rest(&mut whole);
        let b = rest(&mut restored);
        assert_eq!(a, b);
        assert_eq!(a[1].acks, vec![2], "the saved alert's hub id");
        assert_eq!(restored.owner_of(2), Some(Some(("hall-a".into(), 2))));
        assert_eq!(restored.last_seq(), 6);
        assert_eq!(restored.nodes()["hall-b"].duplicates, 1);
    }
}
