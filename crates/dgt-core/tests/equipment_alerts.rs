//! Equipment alerts coalesce per board (an arbiter paged per flicker stops reading): a
//! battery indicator that flickers or a clock that flaps between connected and not is one
//! alert, re-sent with the same id, a count and the latest time, not a new alert per
//! transition.

mod common;

use common::*;
use dgt_core::verdict::EquipmentVerdict;
use dgt_core::{Alert, AlertKind, Severity};

/// A clock frame (protocol §3.4) with both displays at 5:00 and the given status byte.
fn clock_frame(status: u8) -> Vec<u8> {
    vec![0x8D, 0, 0x0A, 0, 0x05, 0, 0, 0x05, 0, status]
}

fn flapping(kind_status: u8, times: usize) -> Vec<Alert> {
    let mut b = started();
    for _ in 0..times {
        b.rx(clock_frame(0x09));
        b.wait(1000);
        b.rx(clock_frame(kind_status));
        b.wait(1000);
    }
    b.wait(1000);
    let ev = b.run();
    ev.iter()
        .filter_map(|e| match &e.body {
            dgt_core::EventBody::Alert(a)
                if matches!(a.kind, AlertKind::BatteryLow | AlertKind::ClockDisconnected) =>
            {
                Some(a.clone())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_flickering_battery_indicator_is_one_alert_with_a_count() {
    // Status 0x09 | 0x04: running, battery low (protocol §3.4).
    let a = flapping(0x0D, 5);
    assert_eq!(a.len(), 5, "{a:?}");
    assert!(a.iter().all(|x| x.kind == AlertKind::BatteryLow));
    assert!(a.iter().all(|x| x.id == a[0].id), "{a:?}");
    assert_eq!(a[0].repeats, None);
    assert_eq!(a[4].repeats, Some(5));
    assert!(a[4].last_t_ms.is_some_and(|t| t > 8000), "{:?}", a[4]);
}

#[test]
fn a_clock_flapping_between_connected_and_not_is_one_alert_with_a_count() {
    // Status 0x20: no clock connected.
    let a = flapping(0x20, 4);
    assert_eq!(a.len(), 4, "{a:?}");
    assert!(a.iter().all(|x| x.kind == AlertKind::ClockDisconnected));
    assert!(a.iter().all(|x| x.id == a[0].id), "{a:?}");
    assert_eq!(a[3].repeats, Some(4));
    let json = serde_json::to_value(&a[3]).unwrap();
    assert_eq!(json["repeats"], 4);
    assert_eq!(json["kind"], "clock_disconnected");
}

/// Noise on a board's line — another device's protocol, a damaged cable — fills the
/// decoder's bound on unframed bytes: the arbiter is told once (`line_noise`,
/// review), later bursts coalesce into the same alert, and the board read before and
/// after the noise goes on being followed.
#[test]
fn noise_filling_the_decoders_bound_is_one_line_noise_alert() {
    let mut b = started();
    b.mv("e2", "e4", 'P').wait(1000);
    // Printable bytes below 0x80 never start a DGT message (protocol §3).
    for _ in 0..3 {
        b.rx(vec![b'A'; 10_000]);
        b.wait(500);
    }
    b.mv("e7", "e5", 'p').wait(1000);
    let ev = b.run();
    let noise = alert_of(&ev, AlertKind::LineNoise);
    assert!(!noise.is_empty(), "{:?}", alerts(&ev));
    assert!(noise.iter().all(|a| a.id == noise[0].id), "{noise:?}");
    assert_eq!(noise[0].severity, Severity::Review);
    assert!(
        noise.len() >= 2 && noise.last().unwrap().repeats.is_some(),
        "{noise:?}"
    );
    assert_eq!(
        serde_json::to_value(&noise[0]).unwrap()["kind"],
        "line_noise"
    );
    assert_eq!(moves(&ev), ["e2e4", "e7e5"]);
}

/// A few stray bytes (a resynchronisation after a glitch) are no noise alert.
#[test]
fn a_few_stray_bytes_are_no_line_noise() {
    let mut b = started();
    b.rx(vec![0x01, 0x02, 0x03]);
    b.mv("e2", "e4", 'P').wait(1000);
    let ev = b.run();
    assert!(alert_of(&ev, AlertKind::LineNoise).is_empty());
    assert_eq!(moves(&ev), ["e2e4"]);
}

/// The serial edge found this board's serial number open on another port: the
/// arbiter gets `duplicate_board` (review) on the board kept apart, once per board.
#[test]
fn a_board_kept_apart_as_a_duplicate_is_one_review_alert() {
    let mut b = started();
    for _ in 0..2 {
        b.op_link(r#"{"state": "duplicate", "serial": "44444", "claimed": "board-44444", "other_port": "/dev/ttyACM0"}"#);
        b.wait(1000);
    }
    let ev = b.run();
    let dup = alert_of(&ev, AlertKind::DuplicateBoard);
    assert_eq!(dup.len(), 2, "{:?}", alerts(&ev));
    assert_eq!(dup[0].id, dup[1].id);
    assert_eq!(dup[0].severity, Severity::Review);
    let verdict = dup[0].equipment_verdict().expect("a link verdict");
    assert_eq!(
        verdict,
        &EquipmentVerdict::Duplicate {
            serial: "44444".into(),
            claimed: "board-44444".into(),
            other_port: Some("/dev/ttyACM0".into())
        }
    );
    assert_eq!(dup[0].message, verdict.message());
    assert_eq!(
        dup[1].equipment_verdict(),
        Some(verdict),
        "a repeat says the same"
    );
}
