//! How LiveChess names and shows a board (its serial number, its clock object, the epoch
//! time): shared by the LiveChess WebSocket and its REST routes, a leaf under both.

use std::time::{SystemTime, UNIX_EPOCH};

use dgt_core::Side;
use serde_json::{Value, json};

use crate::feed::Desk;
use crate::hall::BoardView;

pub(crate) fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The board's serial number as LiveChess names it: the serial the board reported, else our
/// label.
pub(crate) fn serialnr(b: &BoardView) -> String {
    b.status
        .as_ref()
        .and_then(|s| s.serial.clone())
        .unwrap_or_else(|| b.board.clone())
}

/// The `clock` object: seconds left, `run` true while White's clock runs, `time` the epoch
/// ms of the reading.
pub(crate) fn clock_json(desk: &Desk, b: &BoardView) -> Value {
    let Some(c) = &b.clock else {
        return Value::Null;
    };
    let age = desk.now_t_ms().saturating_sub(c.t_ms);
    json!({
        "white": c.white_ms.map(|ms| ms / 1000),
        "black": c.black_ms.map(|ms| ms / 1000),
        "run": c.running.map(|s| s == Side::White),
        "time": epoch_ms().saturating_sub(age),
    })
}
