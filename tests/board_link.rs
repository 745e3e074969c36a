//! A single-board port's link (start-up, identification, heartbeat; protocol §4.4) on
//! virtual time against the scripted board: no port and no sleeping, so the timings are
//! exact. `serial_heartbeat.rs` keeps the same story through a pseudo-terminal.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dgt_arbiter::edge::serial::SerialTiming;
use dgt_arbiter::edge::serial::board_link::{BoardLink, LabelClaims, LinkPort};
use dgt_arbiter::test_support::LinkSim;
use dgt_core::{InputKind, Link};
use dgt_lab::simulated::pty_board::BoardModel;
use dgt_lab::simulated::scripted_board::{ScriptedBoard, ScriptedBoardSpec};

fn timing() -> SerialTiming {
    SerialTiming {
        heartbeat: Duration::from_millis(1500),
        dead_after: Duration::from_secs(5),
        identify_timeout: Duration::from_secs(3),
        command_gap: Duration::from_millis(100),
        ..SerialTiming::default()
    }
}

fn board(serial: &str) -> ScriptedBoard {
    let mut spec = ScriptedBoardSpec::new(serial);
    spec.first_move_ms = 400;
    spec.move_interval_ms = 700;
    spec.update_gap_ms = 40;
    ScriptedBoard::new(spec)
}

/// A link on `path` with the file's timings, `board` behind it.
fn open_link<M: BoardModel>(
    board: M,
    path: &str,
    labels: BTreeMap<String, String>,
    claims: LabelClaims,
) -> LinkSim<M> {
    LinkSim::new(board, path, labels, claims, timing())
}

fn claims() -> LabelClaims {
    Arc::new(Mutex::new(BTreeMap::new()))
}

#[test]
fn the_start_up_goes_out_with_its_gaps_and_a_silent_board_is_only_probed() {
    let mut b = board("11111");
    b.pause_moves(true, 0);
    let mut sim = open_link(b, "/dev/ttyACM0", BTreeMap::new(), claims());
    assert_eq!(sim.run_until(30_000), None);
    let sent = sim.sent_bytes();
    assert_eq!(
        sent[..9],
        [0x45, 0x4D, 0x42, 0x4B, 0x2B, 0x03, 0x03, 0x09, 0x00]
    );
    // One command every command gap (the board buffers only 10 bytes, §1.1).
    let starts: Vec<u64> = sim.written[..5].iter().map(|(t, _)| *t).collect();
    assert_eq!(starts, [0, 100, 200, 300, 400]);
    // Then probes, one a heartbeat after the board's last byte, answered, never more.
    let probes: Vec<u64> = sim.written[5..].iter().map(|(t, _)| *t).collect();
    assert!(sim.written[5..].iter().all(|(_, b)| b == &[0x45]));
    assert!(probes.len() >= 17, "{probes:?}");
    for pair in probes.windows(2) {
        assert!(pair[1] - pair[0] >= 1500, "{probes:?}");
        assert!(pair[1] - pair[0] <= 1510, "{probes:?}");
    }
    assert!(sim.told.iter().all(|(_, b, _)| b == "board-11111"));
}

#[test]
fn a_board_that_stops_answering_is_dead_a_heartbeat_and_dead_after_later() {
    for hang_at in [2_000u64, 7_777, 12_345] {
        let mut sim = open_link(board("22222"), "/dev/ttyACM0", BTreeMap::new(), claims());
        assert_eq!(sim.run_until(hang_at), None);
        sim.board.set_answering(false);
        let last_rx = sim
            .told
            .iter()
            .filter(|(_, _, k)| matches!(k, InputKind::Rx(_)))
            .map(|(t, _, _)| *t)
            .next_back()
            .unwrap();
        let reason = sim.run_until(60_000).expect("never declared dead");
        assert_eq!(reason, "no answer to the heartbeat for 5.0 s");
        // First probe a heartbeat after the last byte; dead `dead_after` after it.
        let first_probe = sim
            .written
            .iter()
            .map(|(t, _)| *t)
            .find(|&t| t > last_rx)
            .unwrap();
        assert!(
            (last_rx + 1500..=last_rx + 1505).contains(&first_probe),
            "hung at {hang_at}: last byte {last_rx}, probe {first_probe}"
        );
        assert!(
            (first_probe + 5000..=first_probe + 5005).contains(&sim.t_ms()),
            "hung at {hang_at}: probe {first_probe}, dead {}",
            sim.t_ms()
        );
        let label = sim.link.finish(&reason, false, sim.at(sim.t_ms()));
        sim.exchange();
        assert_eq!(label.as_deref(), Some("board-22222"));
        assert!(matches!(
            sim.told.last(),
            Some((_, b, InputKind::Link(Link::Disconnected { reason: Some(r), stopping: false })))
                if b == "board-22222" && r == &reason
        ));
    }
}

#[test]
fn what_came_before_the_serial_number_is_told_under_the_label_with_its_own_time() {
    let labels = BTreeMap::from([("33333".to_string(), "table-9".to_string())]);
    let mut sim = open_link(board("33333"), "/dev/ttyACM0", labels, claims());
    // Nothing is told before the board has named itself.
    assert!(sim.told.is_empty());
    sim.run_until(3_000);
    let (t0, b0, k0) = &sim.told[0];
    assert_eq!((*t0, b0.as_str()), (0, "table-9"));
    assert!(matches!(k0, InputKind::Link(Link::Connected { .. })));
    // The first command, then its answer, in order and at their own times.
    assert!(matches!(&sim.told[1], (0, _, InputKind::Tx(b)) if b == &[0x45]));
    assert!(matches!(&sim.told[2], (t, _, InputKind::Rx(_)) if *t > 0));
    assert!(sim.told.iter().all(|(_, b, _)| b == "table-9"));
    let times: Vec<u64> = sim.told.iter().map(|(t, _, _)| *t).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
}

/// A device on the port that is no DGT board: it prints a banner now and then.
struct Modem;

impl BoardModel for Modem {
    fn on_host_bytes(&mut self, _t_ms: u64, _bytes: &[u8]) {}
    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        if t_ms % 1000 < 5 {
            b"OK\r\n".to_vec()
        } else {
            Vec::new()
        }
    }
    fn next_deadline(&self) -> Option<u64> {
        None
    }
    fn finished(&self) -> bool {
        false
    }
}

#[test]
fn a_port_where_nothing_speaks_dgt_is_never_reported() {
    let mut sim = open_link(Modem, "/dev/ttyUSB3", BTreeMap::new(), claims());
    let reason = sim.run_until(60_000);
    assert_eq!(reason.as_deref(), Some("no DGT board answers"));
    // identify_timeout + dead_after.
    assert_eq!(sim.t_ms(), 8_000);
    assert_eq!(
        sim.link
            .finish("no DGT board answers", false, sim.at(8_000)),
        None
    );
    sim.exchange();
    assert!(sim.told.is_empty(), "{:?}", sim.told);
}

/// A board whose serial-number answer never arrives (another firmware, a lost reply).
struct NoSerial(ScriptedBoard);

impl BoardModel for NoSerial {
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        let without: Vec<u8> = bytes.iter().copied().filter(|&b| b != 0x45).collect();
        self.0.on_host_bytes(t_ms, &without);
    }
    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        self.0.poll_output(t_ms)
    }
    fn next_deadline(&self) -> Option<u64> {
        self.0.next_deadline()
    }
    fn finished(&self) -> bool {
        self.0.finished()
    }
}

#[test]
fn a_board_without_a_serial_number_is_named_by_its_port_after_the_identify_time() {
    let mut sim = open_link(
        NoSerial(board("44444")),
        "/dev/ttyACM7",
        BTreeMap::new(),
        claims(),
    );
    sim.run_until(2_990);
    assert!(sim.told.is_empty());
    sim.run_until(3_010);
    assert!(!sim.told.is_empty());
    assert!(sim.told.iter().all(|(_, b, _)| b == "board-ttyACM7"));
    assert!(matches!(
        sim.told[0],
        (0, _, InputKind::Link(Link::Connected { .. }))
    ));
}

#[test]
fn one_serial_number_on_two_ports_keeps_the_second_apart_until_the_first_ends() {
    let shared = claims();
    let mut first = open_link(
        board("55555"),
        "/dev/ttyACM0",
        BTreeMap::new(),
        shared.clone(),
    );
    first.run_until(1_000);
    let mut second = open_link(
        board("55555"),
        "/dev/ttyACM1",
        BTreeMap::new(),
        shared.clone(),
    );
    second.run_until(1_000);
    assert_eq!(first.link.label(), Some("board-55555"));
    assert_eq!(second.link.label(), Some("board-ttyACM1"));
    // The first port closes; a new link on the second port gets the label back.
    first.link.finish("end of file", false, first.at(1_000));
    second.link.finish("end of file", false, second.at(1_000));
    let mut again = open_link(board("55555"), "/dev/ttyACM1", BTreeMap::new(), shared);
    again.run_until(1_000);
    assert_eq!(again.link.label(), Some("board-55555"));
}

#[test]
fn only_read_only_commands_are_ever_written() {
    for log in [false, true] {
        let mut sim = open_link(board("66666"), "/dev/ttyACM0", BTreeMap::new(), claims());
        sim.link = BoardLink::new(
            LinkPort {
                path: PathBuf::from("/dev/ttyACM0"),
                label: None,
            },
            Arc::new(BTreeMap::new()),
            claims(),
            SerialTiming {
                read_board_log: log,
                ..timing()
            },
            sim.epoch(),
        );
        sim.run_until(20_000);
        // 0x45 serial, 0x4D version, 0x42 board, 0x49 log, 0x4B update-nice, and the clock
        // version query (2B 03 03 09 00): never 0x4E (boot loader) nor a clock setting.
        let sent = sim.sent_bytes();
        assert!(!sent.contains(&0x4E));
        for (t, bytes) in &sim.written {
            let ok = matches!(bytes[..], [0x45] | [0x4D] | [0x42] | [0x49] | [0x4B])
                || bytes[..] == [0x2B, 0x03, 0x03, 0x09, 0x00];
            assert!(ok, "at {t} ms: {bytes:02x?}");
        }
    }
}

/// Two ports whose boards report the same serial number: the first keeps
/// the label, the second is followed apart under its port's name, and the core is told so on
/// that board (`Link::Duplicate`, which it raises as `duplicate_board`), not only the log.
#[test]
fn a_second_port_with_the_same_serial_is_kept_apart_and_told() {
    let shared = claims();
    let mut first = open_link(
        board("44444"),
        "/dev/ttyACM0",
        BTreeMap::new(),
        shared.clone(),
    );
    first.run_until(3_000);
    let mut second = open_link(board("44444"), "/dev/ttyACM1", BTreeMap::new(), shared);
    second.run_until(3_000);
    let first_label = first.told[0].1.clone();
    let second_label = second.told[0].1.clone();
    assert_ne!(first_label, second_label);
    assert!(
        !first
            .told
            .iter()
            .any(|(_, _, k)| matches!(k, InputKind::Link(Link::Duplicate { .. })))
    );
    let told: Vec<&Link> = second
        .told
        .iter()
        .filter_map(|(_, _, k)| match k {
            InputKind::Link(l @ Link::Duplicate { .. }) => Some(l),
            _ => None,
        })
        .collect();
    assert_eq!(
        told,
        [&Link::Duplicate {
            serial: "44444".into(),
            claimed: first_label,
            other_port: Some("/dev/ttyACM0".into()),
        }]
    );
    assert!(second.told.iter().all(|(_, b, _)| *b == second_label));
}
