//! What the board's link and the clock's equipment say, as data: noise on the line, a board
//! kept apart as a duplicate, the link down (or the daemon stopping) and up again, an outage
//! the board's log does not explain, the clock disconnected from the board, its battery low. These alerts prescribe nothing; the English
//! of their `message` is rendered here.

use crate::log_gap::LogGap;

/// A link alert's case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EquipmentVerdict {
    /// The line carries bytes that are not the DGT protocol: `run_bytes` discarded in one
    /// run, `total_bytes` so far.
    LineNoise { run_bytes: u64, total_bytes: u64 },
    /// This board reports serial number `serial`, which `claimed` already has (on
    /// `other_port`, when known): it is followed apart under its port's name.
    Duplicate {
        serial: String,
        claimed: String,
        other_port: Option<String>,
    },
    /// The link to the board is down (`reason`, when known), or the daemon is stopping.
    Disconnected {
        reason: Option<String>,
        stopping: bool,
    },
    /// The board is connected again.
    Reconnected,
    /// The board's log, read at the reconnection, does not explain the whole outage
    /// (`gap`); `recovered` moves were taken from it.
    OutageNotExplained { gap: LogGap, recovered: usize },
    /// The clock is no longer connected to the board (or the board reports no clock).
    ClockDisconnected,
    /// The clock shows its battery-low indicator.
    BatteryLow,
}

impl EquipmentVerdict {
    /// What happened, for the alert's message (before any repeat count is appended).
    pub fn message(&self) -> String {
        match self {
            EquipmentVerdict::LineNoise {
                run_bytes,
                total_bytes,
            } => format!(
                "The board's line carries bytes that are not the DGT protocol ({run_bytes} bytes discarded in one run, {total_bytes} so far): another device on the port, a damaged cable or a wrong line speed. Moves may be missed while it lasts."
            ),
            EquipmentVerdict::Duplicate {
                serial,
                claimed,
                other_port,
            } => format!(
                "This board reports serial number {serial}, which {claimed} already has{}: two boards with one number, one board seen on two ports, or a serial table giving two boards one table. It is followed apart under its port's name; check the cabling and the serial table.",
                other_port
                    .as_deref()
                    .map_or(String::new(), |p| format!(" on {p}"))
            ),
            EquipmentVerdict::Disconnected { stopping: true, .. } => {
                "The daemon is stopping: this board is not watched until it starts again; moves made meanwhile are recovered then.".into()
            }
            EquipmentVerdict::Disconnected {
                reason,
                stopping: false,
            } => format!(
                "The link to the board is down{}; moves made meanwhile are recovered when it is back.",
                reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            ),
            EquipmentVerdict::Reconnected => {
                "The board is connected again; its position is read afresh.".into()
            }
            EquipmentVerdict::OutageNotExplained { gap, recovered } => format!(
                "The board's memory does not explain the whole outage: {gap}. {recovered} move(s) were recovered from it; check the board against the position given and enter any further moves by hand."
            ),
            EquipmentVerdict::ClockDisconnected => {
                "The clock is no longer connected to the board (or reports no clock).".into()
            }
            EquipmentVerdict::BatteryLow => "The clock shows its battery-low indicator.".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the link alerts' English.
    #[test]
    fn each_link_case_renders_its_message() {
        let cases = [
            (
                EquipmentVerdict::LineNoise {
                    run_bytes: 256,
                    total_bytes: 1024,
                },
                "The board's line carries bytes that are not the DGT protocol (256 bytes discarded in one run, 1024 so far): another device on the port, a damaged cable or a wrong line speed. Moves may be missed while it lasts.",
            ),
            (
                EquipmentVerdict::Duplicate {
                    serial: "44444".into(),
                    claimed: "board-44444".into(),
                    other_port: Some("/dev/ttyACM0".into()),
                },
                "This board reports serial number 44444, which board-44444 already has on /dev/ttyACM0: two boards with one number, one board seen on two ports, or a serial table giving two boards one table. It is followed apart under its port's name; check the cabling and the serial table.",
            ),
            (
                EquipmentVerdict::Duplicate {
                    serial: "44444".into(),
                    claimed: "board-44444".into(),
                    other_port: None,
                },
                "This board reports serial number 44444, which board-44444 already has: two boards with one number, one board seen on two ports, or a serial table giving two boards one table. It is followed apart under its port's name; check the cabling and the serial table.",
            ),
            (
                EquipmentVerdict::Disconnected {
                    reason: Some("end of file".into()),
                    stopping: false,
                },
                "The link to the board is down (end of file); moves made meanwhile are recovered when it is back.",
            ),
            (
                EquipmentVerdict::Disconnected {
                    reason: None,
                    stopping: true,
                },
                "The daemon is stopping: this board is not watched until it starts again; moves made meanwhile are recovered then.",
            ),
            (
                EquipmentVerdict::Reconnected,
                "The board is connected again; its position is read afresh.",
            ),
            (
                EquipmentVerdict::OutageNotExplained {
                    gap: LogGap::BeyondLastRead,
                    recovered: 0,
                },
                "The board's memory does not explain the whole outage: the board's memory no longer reaches back to the last time it was read. 0 move(s) were recovered from it; check the board against the position given and enter any further moves by hand.",
            ),
            (
                EquipmentVerdict::ClockDisconnected,
                "The clock is no longer connected to the board (or reports no clock).",
            ),
            (
                EquipmentVerdict::BatteryLow,
                "The clock shows its battery-low indicator.",
            ),
        ];
        for (verdict, message) in cases {
            assert_eq!(verdict.message(), message, "{verdict:?}");
        }
    }
}
