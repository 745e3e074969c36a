//! What the daemon says to a board: the start-up sequence after opening the port, and the
//! heartbeat probe. Only read-only commands, checked against
//! [`Command::is_safe_during_a_game`]; never the boot loader (0x4E, absent from `Command`)
//! and never clock-setting frames: a game may be running when the daemon (re)connects.

use dgt_protocol::{ClockCommand, Command};

/// The start-up sequence, in order (protocol §4.4, after picochess and python-asyncdgt):
/// * `0x45` serial number first: it names the board, so a re-plugged board keeps its label;
/// * `0x4D` version: also tells a DGT board from any other serial device;
/// * `0x42` a board dump: the daemon's picture of the board after any gap in the line;
/// * `0x49` the EEPROM log (§3.6), only when `read_board_log` is set: after an outage, the
///   moves made meanwhile, with the clock times of the lever presses. The board marks the
///   log `EE_DOWNLOADED` as it is read, so the next reading starts here. A full log is
///   7.9 kB, ~8 s at 9600 baud, during which the board's field updates wait behind it: moves
///   made then arrive as a burst. Hence off by default (the reconnection dump and a 6-ply
///   search recover short outages); its bytes keep the heartbeat quiet;
/// * `0x4B` UPDATE_NICE: field updates, clock messages only on change. A board switches to
///   IDLE on power-up and on any single-board command in bus mode, so this is sent on every
///   (re)connect (§2.1);
/// * `2B 03 03 09 00` the clock version: learns whether a clock is attached.
pub fn startup_sequence(read_board_log: bool) -> Vec<Command> {
    let mut sequence = vec![
        Command::ReturnSerialNr,
        Command::SendVersion,
        Command::SendBoard,
    ];
    if read_board_log {
        sequence.push(Command::SendEeMoves);
    }
    sequence.extend([
        Command::SendUpdateNice,
        Command::Clock(ClockCommand::Version),
    ]);
    debug_assert!(sequence.iter().all(Command::is_safe_during_a_game));
    sequence
}

/// The heartbeat: `0x45` is answered by every board in every mode and changes nothing
/// (picochess polls it every second, §4.4).
pub fn heartbeat_probe() -> Command {
    Command::ReturnSerialNr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startup_bytes_are_the_documented_ones_and_all_safe() {
        let bytes = |log: bool| -> Vec<u8> {
            startup_sequence(log)
                .iter()
                .flat_map(Command::encode)
                .collect()
        };
        assert_eq!(
            bytes(false),
            [0x45, 0x4D, 0x42, 0x4B, 0x2B, 0x03, 0x03, 0x09, 0x00]
        );
        assert_eq!(
            bytes(true),
            [0x45, 0x4D, 0x42, 0x49, 0x4B, 0x2B, 0x03, 0x03, 0x09, 0x00]
        );
        for log in [false, true] {
            assert!(!bytes(log).contains(&0x4E));
            assert!(
                startup_sequence(log)
                    .iter()
                    .all(Command::is_safe_during_a_game)
            );
        }
        assert!(heartbeat_probe().is_safe_during_a_game());
    }
}
