//! End to end on the real DGT recording in `tests/captures`: a blitz game on a real board
//! with a real clock. The capture is also transformed the ways a venue varies it (the board
//! turned round, the clock on the other side, any chunking) and must give the same game.

use dgt_core::capture::parse_capture;
use dgt_core::{Core, CoreConfig, Event, EventBody, Input, InputKind};
use dgt_testkit::fixtures::{real_game_capture, real_game_moves};

fn capture() -> Vec<Input> {
    parse_capture(&real_game_capture()).unwrap()
}

fn expected_moves() -> Vec<String> {
    real_game_moves()
}

fn run(inputs: &[Input]) -> Vec<Event> {
    let mut core = Core::new(CoreConfig::default());
    let mut out = Vec::new();
    for i in inputs {
        out.extend(core.handle(i));
    }
    while let Some(d) = core.next_deadline() {
        out.extend(core.advance(d));
    }
    out
}

/// The final move list, with corrections applied the way the contract says consumers do.
fn final_moves(events: &[Event]) -> Vec<(String, Option<u64>, Option<u64>, u64)> {
    let mut list: Vec<(String, Option<u64>, Option<u64>, u64)> = Vec::new();
    for e in events {
        if let EventBody::Move(m) = &e.body {
            list.truncate(m.ply as usize - 1);
            list.push((m.uci.clone(), m.white_ms, m.black_ms, e.t_ms));
        }
    }
    list
}

fn move_events(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e.body, EventBody::Move(_)))
        .count()
}

#[test]
fn replays_to_exactly_the_57_moves_without_corrections() {
    let events = run(&capture());
    let moves: Vec<String> = final_moves(&events).into_iter().map(|m| m.0).collect();
    assert_eq!(moves, expected_moves());
    assert_eq!(move_events(&events), 57, "no correction was needed");
    assert!(
        !events.iter().any(|e| matches!(&e.body, EventBody::Alert(a) if a.severity == dgt_core::Severity::Intervene)),
        "a clean game raises nothing the arbiter must act on"
    );
}

/// Every move's clock times equal a reading taken around its press: the reading that
/// showed the press (with the increment) or the one just before it.
#[test]
fn move_times_are_the_clock_readings_at_the_press() {
    let inputs = capture();
    let events = run(&inputs);
    // Readings as (t_ms, left_ms, right_ms, running_right)
    let mut readings = Vec::new();
    for i in &inputs {
        if let InputKind::Rx(b) = &i.kind
            && b.len() == 10
            && b[0] == 0x8D
        {
            let ms = |h: u8, m: u8, s: u8| {
                (((h & 0x0F) as u64) * 3600
                    + ((m >> 4) * 10 + (m & 0x0F)) as u64 * 60
                    + ((s >> 4) * 10 + (s & 0x0F)) as u64)
                    * 1000
            };
            readings.push((i.t_ms, ms(b[6], b[7], b[8]), ms(b[3], b[4], b[5])));
        }
    }
    for (uci, w, b, t) in final_moves(&events) {
        let (w, b) = (w.expect("white time"), b.expect("black time"));
        // The move is emitted once the board has caught up with the press (a settle period
        // later): the press is the last reading at or before the move event.
        let idx = readings
            .iter()
            .rposition(|r| r.0 <= t)
            .expect("a clock reading before the move");
        let around = [readings[idx], readings[idx.saturating_sub(1)]];
        // White's display is the left one in this recording.
        assert!(
            around.iter().any(|r| r.1 == w && r.2 == b),
            "{uci} at {t}: {w}/{b} not in {around:?}"
        );
    }
}

#[test]
fn output_is_identical_on_every_run() {
    let a: Vec<String> = run(&capture()).iter().map(Event::to_json).collect();
    let b: Vec<String> = run(&capture()).iter().map(Event::to_json).collect();
    assert_eq!(a, b);
}

#[test]
fn any_chunking_gives_the_same_events() {
    let inputs = capture();
    // All bytes one at a time, with the time of the original chunk.
    let mut split = Vec::new();
    for i in &inputs {
        match &i.kind {
            InputKind::Rx(bytes) => {
                for b in bytes {
                    split.push(Input {
                        t_ms: i.t_ms,
                        board: i.board.clone(),
                        kind: InputKind::Rx(vec![*b]),
                    });
                }
            }
            _ => split.push(i.clone()),
        }
    }
    let norm = |ev: Vec<Event>| ev.into_iter().map(|e| (e.body, e.t_ms)).collect::<Vec<_>>();
    assert_eq!(norm(run(&split)), norm(run(&inputs)));
}

/// The board turned round: every square i reported as 63 − i.
#[test]
fn a_board_turned_round_gives_the_same_game() {
    let rotated: Vec<Input> = capture()
        .into_iter()
        .map(|mut i| {
            if let InputKind::Rx(b) = &mut i.kind {
                match b[0] {
                    0x86 => b[3..67].reverse(),
                    0x8E => b[3] = 63 - b[3],
                    _ => {}
                }
            }
            i
        })
        .collect();
    let events = run(&rotated);
    let moves: Vec<String> = final_moves(&events).into_iter().map(|m| m.0).collect();
    assert_eq!(moves, expected_moves());
    assert!(events.iter().any(|e| matches!(&e.body, EventBody::BoardStatus(s) if s.orientation == dgt_core::event::Orientation::Rotated)));
}

/// The clock on the other side of the table: displays and lever swapped.
#[test]
fn the_clock_on_the_other_side_gives_the_same_times() {
    let swapped: Vec<Input> = capture()
        .into_iter()
        .map(|mut i| {
            if let InputKind::Rx(b) = &mut i.kind
                && b[0] == 0x8D
            {
                let (r, l) = ([b[3], b[4], b[5]], [b[6], b[7], b[8]]);
                b[3..6].copy_from_slice(&l);
                b[6..9].copy_from_slice(&r);
                b[9] ^= 0x02; // the lever is high on the other side
            }
            i
        })
        .collect();
    let a = final_moves(&run(&capture()));
    let b = final_moves(&run(&swapped));
    assert_eq!(a, b);
}
