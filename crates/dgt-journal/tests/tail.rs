//! Reading the journal onward from a step: what a cluster node publishes and resumes from.

mod common;

use dgt_core::{Event, Input, InputKind, Operation};
use dgt_journal::{Batch, Journal, TailRecord};

use common::clock_event;

fn rx(t_ms: u64) -> Input {
    Input {
        t_ms,
        board: "board-7".into(),
        kind: InputKind::Rx(vec![0x8e, 0, 5, 0x34, 0]),
    }
}

/// Steps: 1 → events 1, 2; 2 → none; 3 → event 3; 4 → ack of alert 2; 5 → events 4, 5, 6.
fn journal() -> (tempfile::TempDir, Journal) {
    let dir = tempfile::tempdir().unwrap();
    let mut j = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let mut b = Batch::new();
    b.record_input(rx(10), vec![clock_event(1, 10), clock_event(2, 20)]);
    b.record_input(rx(20), vec![]);
    b.record_input(rx(30), vec![clock_event(3, 30)]);
    b.record_input(
        Input {
            t_ms: 40,
            board: "board-7".into(),
            kind: InputKind::Op(Operation::Ack(2)),
        },
        vec![],
    );
    b.record_input(
        rx(50),
        vec![clock_event(4, 40), clock_event(5, 50), clock_event(6, 60)],
    );
    j.append(&b).unwrap();
    (dir, j)
}

fn seqs(records: &[TailRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| match r {
            TailRecord::Event { seq, .. } => format!("e{seq}"),
            TailRecord::Ack { alert, .. } => format!("ack{alert}"),
        })
        .collect()
}

#[test]
fn the_tail_is_everything_after_a_step_in_journal_order() {
    let (_dir, j) = journal();
    let all = j.tail(0, 1000).unwrap();
    assert_eq!(all.to_step, 5);
    assert_eq!(
        seqs(&all.records),
        ["e1", "e2", "e3", "ack2", "e4", "e5", "e6"]
    );
    let TailRecord::Event { json, .. } = &all.records[0] else {
        panic!("an event first");
    };
    let back: Event = serde_json::from_str(json).unwrap();
    assert_eq!(back, clock_event(1, 10));
    assert_eq!(j.last_step().unwrap(), 5);
}

#[test]
fn a_bounded_tail_takes_whole_steps_and_resumes_where_it_stopped() {
    let (_dir, j) = journal();
    // One event asked for: step 1 has two, both come (a step is never split).
    let first = j.tail(0, 1).unwrap();
    assert_eq!(
        (first.to_step, seqs(&first.records)),
        (1, vec!["e1".into(), "e2".into()])
    );
    let second = j.tail(first.to_step, 1).unwrap();
    assert_eq!(
        (second.to_step, seqs(&second.records)),
        (3, vec!["e3".into()])
    );
    // Two events asked for after step 3: the ack of step 4 and the whole of step 5.
    let third = j.tail(second.to_step, 2).unwrap();
    assert_eq!(third.to_step, 5);
    assert_eq!(seqs(&third.records), ["ack2", "e4", "e5", "e6"]);
    // Nothing new: the same step comes back, with nothing.
    let none = j.tail(third.to_step, 10).unwrap();
    assert_eq!((none.to_step, none.records.len()), (5, 0));
}

#[test]
fn an_acknowledgement_alone_is_published_too() {
    let (_dir, j) = journal();
    let after_three = j.tail(3, 100).unwrap();
    assert_eq!(seqs(&after_three.records), ["ack2", "e4", "e5", "e6"]);
    let mut j = j;
    let mut b = Batch::new();
    b.record_input(
        Input {
            t_ms: 60,
            board: "board-7".into(),
            kind: InputKind::Op(Operation::Ack(5)),
        },
        vec![],
    );
    j.append(&b).unwrap();
    let only_ack = j.tail(5, 100).unwrap();
    assert_eq!(
        (only_ack.to_step, seqs(&only_ack.records)),
        (6, vec!["ack5".into()])
    );
}
