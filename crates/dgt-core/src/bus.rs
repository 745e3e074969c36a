//! Bus mode, read by the core: what one board's bus replies (protocol §3.7) say, in the
//! terms the single-board pipeline already understands.
//!
//! On a bus line the host asks and each board answers in checksummed frames addressed by
//! its 14-bit bus address (§2.4). The serial edge splits the line into one stream per board
//! and tells the session with `Link::BusConnected`, so the session frames the bytes with
//! `LineMode::Bus` (0x86 is `BUS_FROM_START` there, not a board dump, §3.1). This module then
//! maps each reply onto what a single board would have sent:
//!
//! * `BUS_BRD_DUMP` (0x83) is a board dump (0x86 in single mode);
//! * `BUS_BWTIME` (0x84) is a clock message (0x8D), the same 7 bytes;
//! * `BUS_VERSION` (0x89) is the version (0x93); the address itself is the serial number
//!   ("the board's serial number as a 14-bit binary value", §2.4), reported once;
//! * `BUS_UPDATE` (0x85) carries the board's log since the previous `SEND_CHANGES` in EE
//!   format (§3.6): its field changes become field updates, in order. The whole batch
//!   arrives at the poll, so all of them take the frame's time: the log's r bit only says
//!   "less than ~250 ms since the previous change", not when. That is why they are
//!   [`BusFact::LoggedField`], not field updates: timing-based readings of the hands
//!   (two pieces lifted within 120 ms, a piece off the board for 400 ms) must not see a
//!   batch as simultaneous handling;
//! * `EE_POWERUP` in a log is followed by one field tag per piece on the board (§3.6), so
//!   from there on the log describes the whole board: it becomes a board dump;
//! * `BUS_FROM_START` (0x86) is the log since the start tag: replayed onto the board the
//!   session knows (or onto the board of the last power-up in it), it gives the board as it
//!   is now, i.e. a board dump. Its earlier states are history, not the present, and are
//!   not replayed as changes (they would walk the board back through the game);
//! * a clock time at a lever press in the log (§3.6) says which display's player pressed
//!   ([`BusFact::Pressed`]). The session uses it only to learn which display is White's at
//!   the start of a game: the clock is read once a poll, and its start and White's first
//!   press can fall between two readings, so the first reading may already show Black's
//!   clock running. Presses themselves still come from the polled `BUS_BWTIME` readings (lever
//!   bit and running time, §3.4): a log entry "might be" skipped on fast moves, holds only
//!   the stopped display's time and cannot be placed in time within the batch, and a second
//!   source of presses would risk counting one press twice. Their number is used once: two
//!   or more logged with the same display running at the next reading say that a move and
//!   its reply were both pressed between two readings
//!   ([`crate::clock::ClockTracker::presses_logged`]);
//! * pings, `START_GAME_WRITTEN` and anything else only show the board is there (the edge
//!   keeps the link state); bad checksums are the edge's business (it asks
//!   `REPEAT_CHANGES`).

use dgt_protocol::{BoardMessage, BusReply, BusReplyKind, EeEntry, parse_ee_log};

/// One thing a bus reply tells the session, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusFact {
    /// What the equivalent single-board message says: a board dump (a bus dump, or a board
    /// rebuilt from the log), a clock message, the version, the serial number.
    Message(BoardMessage),
    /// A square changed (piece code 0 = emptied), from the board's log: in order, without a
    /// time of its own.
    LoggedField { square: u8, piece: u8 },
    /// The packet logged lever presses, the first of them by the player of the left
    /// display or not (left and right are never swapped when the board is turned, §3.6),
    /// `count` of them in all (a lower bound: an entry "might be" skipped on fast moves).
    /// Comes after the packet's field changes: a press is logged at once, a piece only at
    /// the end of the board's 200–250 ms scan, so the order inside a packet says little.
    Pressed { first_left: bool, count: u8 },
}

/// What the session keeps about the bus side of one board.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct BusBoard {
    /// The board's address, when the link said it: replies for another address are not
    /// this board's (the edge demultiplexes, this is a safety net for hand-made captures).
    address: Option<u16>,
    identified: bool,
}

impl BusBoard {
    pub fn new(address: Option<u16>) -> Self {
        BusBoard {
            address,
            ..Default::default()
        }
    }

    pub fn address(&self) -> Option<u16> {
        self.address
    }

    /// Reads one reply. `current` is the board as the session knows it, when it does.
    pub fn interpret(&mut self, reply: BusReply, current: Option<&[u8; 64]>) -> Vec<BusFact> {
        if self.address.is_some_and(|a| a != reply.address) {
            return Vec::new();
        }
        let mut facts = Vec::new();
        if !self.identified {
            // Addresses are 14 bits; serials above 16383 cannot be told apart (§2.4 gap).
            self.identified = true;
            facts.push(BusFact::Message(BoardMessage::SerialNumber(format!(
                "{:05}",
                reply.address
            ))));
        }
        match reply.kind {
            BusReplyKind::BoardDump(codes) => {
                facts.push(BusFact::Message(BoardMessage::BoardDump(codes)))
            }
            BusReplyKind::Clock(c) => facts.push(BusFact::Message(BoardMessage::Clock(c))),
            BusReplyKind::Version { major, minor } => {
                facts.push(BusFact::Message(BoardMessage::Version { major, minor }))
            }
            BusReplyKind::Update(data) => facts.extend(changes(&parse_ee_log(&data))),
            BusReplyKind::FromStart(data) => {
                facts.extend(board_now(&parse_ee_log(&data), current).map(dump))
            }
            BusReplyKind::Ping | BusReplyKind::StartGameWritten | BusReplyKind::Other { .. } => {}
        }
        facts
    }
}

fn dump(codes: [u8; 64]) -> BusFact {
    BusFact::Message(BoardMessage::BoardDump(Box::new(codes)))
}

/// The field changes of a log, in order (a power-up block becomes a whole board), then its
/// presses.
fn changes(log: &[EeEntry]) -> Vec<BusFact> {
    let mut facts = Vec::new();
    let mut first_press = None;
    let mut presses: u8 = 0;
    // The board being rebuilt from a power-up's field tags, until another kind of entry.
    let mut rebuilding: Option<[u8; 64]> = None;
    for entry in log {
        match *entry {
            EeEntry::Field { square, piece, .. } => match rebuilding.as_mut() {
                Some(board) => board[square.index() as usize] = piece.code(),
                None => facts.push(BusFact::LoggedField {
                    square: square.index(),
                    piece: piece.code(),
                }),
            },
            EeEntry::PowerUp => {
                if let Some(board) = rebuilding.take() {
                    facts.push(dump(board));
                }
                rebuilding = Some([0; 64]);
            }
            // NOPs come in threes around a power-up (§3.6).
            EeEntry::Nop => {}
            // Anything else closes a power-up block.
            other => {
                if let Some(board) = rebuilding.take() {
                    facts.push(dump(board));
                }
                if let EeEntry::LeverPress { left, .. } = other {
                    first_press = first_press.or(Some(left));
                    presses = presses.saturating_add(1);
                }
            }
        }
    }
    if let Some(board) = rebuilding {
        facts.push(dump(board));
    }
    facts.extend(first_press.map(|first_left| BusFact::Pressed {
        first_left,
        count: presses,
    }));
    facts
}

/// The board as a `FROM_START` log leaves it: its field changes replayed onto the board at
/// its last power-up, or else onto the board the session knows. Every square that changed
/// since the start tag is in the log; the others are as they were. `None` when neither
/// starting point is known.
fn board_now(log: &[EeEntry], current: Option<&[u8; 64]>) -> Option<[u8; 64]> {
    let (mut board, from) = match log.iter().rposition(|e| *e == EeEntry::PowerUp) {
        Some(i) => ([0u8; 64], i + 1),
        None => (*current?, 0),
    };
    for entry in &log[from..] {
        if let EeEntry::Field { square, piece, .. } = entry {
            board[square.index() as usize] = piece.code();
        }
    }
    Some(board)
}

#[cfg(test)]
mod tests {
    use dgt_protocol::eeprom::encode_ee_log;
    use dgt_protocol::{BusReply, ClockMessage, DgtPiece, PhysicalSquare};
    use proptest::prelude::*;

    use super::*;
    use crate::{Core, CoreConfig, Event, EventBody, Input, InputKind, Link};

    fn field(square: u8, piece: u8) -> EeEntry {
        EeEntry::Field {
            square: PhysicalSquare::new(square).unwrap(),
            piece: DgtPiece::from_code(piece),
            fast: false,
        }
    }

    const START: [u8; 64] = {
        let mut b = [0u8; 64];
        let back = [8, 9, 10, 12, 11, 10, 9, 8];
        let mut f = 0;
        while f < 8 {
            b[f] = back[f];
            b[8 + f] = 7;
            b[48 + f] = 1;
            b[56 + f] = back[f] - 6;
            f += 1;
        }
        b
    };

    #[test]
    fn replies_become_single_board_messages_and_the_address_is_the_serial() {
        let mut bus = BusBoard::new(Some(1025));
        let r = BusReply {
            address: 1025,
            kind: BusReplyKind::Version { major: 1, minor: 8 },
        };
        assert_eq!(
            bus.interpret(r.clone(), None),
            vec![
                BusFact::Message(BoardMessage::SerialNumber("01025".into())),
                BusFact::Message(BoardMessage::Version { major: 1, minor: 8 }),
            ]
        );
        // Reported once; another address is not this board.
        assert_eq!(bus.interpret(r, None).len(), 1);
        let other = BusReply {
            address: 1026,
            kind: BusReplyKind::Ping,
        };
        assert!(bus.interpret(other, None).is_empty());
    }

    #[test]
    fn a_changes_log_gives_fields_in_order_and_a_power_up_a_whole_board() {
        let log = [
            field(52, 0),
            EeEntry::LeverPress {
                left: true,
                seconds: 170,
            },
            field(36, 1),
            EeEntry::LeverPress {
                left: false,
                seconds: 175,
            },
            EeEntry::Nop,
            EeEntry::Nop,
            EeEntry::Nop,
            EeEntry::PowerUp,
            field(0, 8),
            field(63, 2),
            EeEntry::BeginPos,
            field(1, 0),
        ];
        let mut board = [0u8; 64];
        board[0] = 8;
        board[63] = 2;
        assert_eq!(
            changes(&log),
            vec![
                BusFact::LoggedField {
                    square: 52,
                    piece: 0
                },
                BusFact::LoggedField {
                    square: 36,
                    piece: 1
                },
                dump(board),
                BusFact::LoggedField {
                    square: 1,
                    piece: 0
                },
                BusFact::Pressed {
                    first_left: true,
                    count: 2
                },
            ]
        );
    }

    #[test]
    fn from_start_gives_the_board_as_it_is_now() {
        let log = [EeEntry::StartTag, field(52, 0), field(36, 1), field(12, 0)];
        let mut now = START;
        now[52] = 0;
        now[36] = 1;
        now[12] = 0;
        assert_eq!(board_now(&log, Some(&START)), Some(now));
        assert_eq!(board_now(&log, None), None);
        let powered = [
            EeEntry::StartTag,
            field(0, 0),
            EeEntry::PowerUp,
            field(5, 5),
        ];
        let mut only_king = [0u8; 64];
        only_king[5] = 5;
        assert_eq!(board_now(&powered, Some(&START)), Some(only_king));
    }

    proptest! {
        /// Any payload, truncated or odd: no panic, squares on the board, codes 4 bits.
        #[test]
        fn garbage_logs_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200), kind in 0..2u8) {
            let mut bus = BusBoard::new(None);
            let reply = BusReply {
                address: 7,
                kind: if kind == 0 { BusReplyKind::Update(data) } else { BusReplyKind::FromStart(data) },
            };
            for fact in bus.interpret(reply, Some(&START)) {
                if let BusFact::LoggedField { square, piece } = fact {
                    prop_assert!(square < 64 && piece < 16);
                }
            }
        }
    }

    proptest! {
        /// A bus line's bytes through the whole session: garbage, and well-formed frames
        /// with any payload (dumps, clocks, logs), never make it panic.
        #[test]
        fn a_bus_session_survives_any_bytes(
            chunks in proptest::collection::vec(
                (0..4u8, proptest::collection::vec(any::<u8>(), 0..80)),
                0..40,
            )
        ) {
            let mut core = Core::new(CoreConfig::default());
            let mut t = 0;
            core.handle(&input(0, InputKind::Link(Link::BusConnected { port: None, address: Some(5) })));
            core.handle(&input(1, InputKind::Rx(BusReply {
                address: 5,
                kind: BusReplyKind::BoardDump(Box::new(START)),
            }.encode())));
            for (kind, data) in chunks {
                t += 97;
                let bytes = match kind {
                    0 => data,
                    1 => BusReply { address: 5, kind: BusReplyKind::Update(data) }.encode(),
                    2 => BusReply { address: 5, kind: BusReplyKind::FromStart(data) }.encode(),
                    _ => {
                        let mut d = [0u8; 64];
                        for (i, b) in data.iter().take(64).enumerate() {
                            d[i] = b & 0x0F;
                        }
                        BusReply { address: 5, kind: BusReplyKind::BoardDump(Box::new(d)) }.encode()
                    }
                };
                core.handle(&input(t, InputKind::Rx(bytes)));
            }
            core.advance(t + 60_000);
        }
    }

    // ---- the same game through a single-board line and a bus line ------------------------

    /// e4 e5 Nf3 Nc6 Nxe5, made by the board square by square (lift, place; the capture
    /// with the capturer lifted first), with a clock press after each move. Each step: the
    /// (square, piece) changes and the clock after them.
    fn game() -> Vec<(Vec<(u8, u8)>, ClockMessage)> {
        // Physical squares, connector on White's left: a8 = 0 … h1 = 63.
        let sq = |name: &str| {
            let b = name.as_bytes();
            8 * (b'8' - b[1]) + (b[0] - b'a')
        };
        let moves: [&[(&str, u8)]; 5] = [
            &[("e2", 0), ("e4", 1)],
            &[("e7", 0), ("e5", 7)],
            &[("g1", 0), ("f3", 3)],
            &[("b8", 0), ("c6", 9)],
            &[("f3", 0), ("e5", 0), ("e5", 3)],
        ];
        let mut out = Vec::new();
        let (mut left, mut right) = (300u32, 300u32);
        for (i, changes) in moves.iter().enumerate() {
            if i % 2 == 0 {
                left -= 3;
            } else {
                right -= 4;
            }
            // After White's move the right display runs (lever high on the right).
            let right_runs = i % 2 == 0;
            out.push((
                changes.iter().map(|&(s, p)| (sq(s), p)).collect(),
                clock(left, right, right_runs),
            ));
        }
        out
    }

    fn clock(left_s: u32, right_s: u32, right_runs: bool) -> ClockMessage {
        let bcd = |v: u32| (((v / 10) << 4) | (v % 10)) as u8;
        let side = |s: u32| [(s / 3600) as u8, bcd(s / 60 % 60), bcd(s % 60)];
        let r = side(right_s);
        let l = side(left_s);
        let status = 0x01 | if right_runs { 0x02 } else { 0 };
        ClockMessage::decode(&[r[0], r[1], r[2], l[0], l[1], l[2], status])
    }

    fn moves(events: &[Event]) -> Vec<(String, u32, String)> {
        events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::Move(m) => Some((m.game.clone(), m.ply, m.uci.clone())),
                _ => None,
            })
            .collect()
    }

    fn alerts(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::Alert(a) => Some(format!("{:?}: {}", a.kind, a.message)),
                _ => None,
            })
            .collect()
    }

    fn run(inputs: &[Input]) -> Vec<Event> {
        let mut core = Core::new(CoreConfig::default());
        let mut events = Vec::new();
        for i in inputs {
            events.extend(core.handle(i));
        }
        events.extend(core.advance(u64::MAX / 2));
        events
    }

    fn input(t_ms: u64, kind: InputKind) -> Input {
        Input {
            t_ms,
            board: "b".into(),
            kind,
        }
    }

    #[test]
    fn a_bus_line_gives_the_moves_of_the_single_board_line() {
        let address = 1025;
        let reply = |kind| BusReply { address, kind }.encode();
        let start_clock = clock(300, 300, false);

        // Single-board: dump, then updates as they happen, each move's press 400 ms later.
        let mut single = vec![
            input(0, InputKind::Link(Link::Connected { port: None })),
            input(
                10,
                InputKind::Rx(BoardMessage::BoardDump(Box::new(START)).encode()),
            ),
            input(20, InputKind::Rx(BoardMessage::Clock(start_clock).encode())),
        ];
        // Bus: the same, but the host polls every 1000 ms: the changes of the last second
        // in one UPDATE frame, then the clock.
        let mut bus = vec![
            input(
                0,
                InputKind::Link(Link::BusConnected {
                    port: None,
                    address: Some(address),
                }),
            ),
            input(
                10,
                InputKind::Rx(reply(BusReplyKind::Version { major: 1, minor: 8 })),
            ),
            input(
                15,
                InputKind::Rx(reply(BusReplyKind::BoardDump(Box::new(START)))),
            ),
            input(20, InputKind::Rx(reply(BusReplyKind::Clock(start_clock)))),
        ];
        for (k, (fields, after)) in game().into_iter().enumerate() {
            let t = 2000 + 3000 * k as u64;
            for (j, (square, piece)) in fields.iter().enumerate() {
                let m = BoardMessage::FieldUpdate {
                    square: *square,
                    piece: *piece,
                };
                single.push(input(t + 300 * j as u64, InputKind::Rx(m.encode())));
            }
            single.push(input(
                t + 700,
                InputKind::Rx(BoardMessage::Clock(after).encode()),
            ));
            let log: Vec<EeEntry> = fields.iter().map(|&(s, p)| field(s, p)).collect();
            let poll = t + 800;
            bus.push(input(
                poll,
                InputKind::Rx(reply(BusReplyKind::Update(encode_ee_log(&log)))),
            ));
            bus.push(input(
                poll + 30,
                InputKind::Rx(reply(BusReplyKind::Clock(after))),
            ));
            // Quiet polls in between: empty updates.
            bus.push(input(
                poll + 1000,
                InputKind::Rx(reply(BusReplyKind::Update(vec![]))),
            ));
        }
        let single_events = run(&single);
        let bus_events = run(&bus);
        let from_single = moves(&single_events);
        let from_bus = moves(&bus_events);
        assert_eq!(from_single.len(), 5, "{from_single:?}");
        assert_eq!(from_bus, from_single);
        let uci: Vec<&str> = from_bus.iter().map(|m| m.2.as_str()).collect();
        assert_eq!(uci, ["e2e4", "e7e5", "g1f3", "b8c6", "f3e5"]);
        // The capture's three changes came in one batch: not "two hands" (their timing is
        // unknown), and nothing else to tell the arbiter on either line.
        assert!(alerts(&bus_events).is_empty(), "{:?}", alerts(&bus_events));
        assert!(alerts(&single_events).is_empty());
    }

    #[test]
    fn a_bus_board_is_identified_by_its_address() {
        let address = 1025;
        let inputs = [
            input(
                0,
                InputKind::Link(Link::BusConnected {
                    port: Some("/dev/ttyUSB0".into()),
                    address: Some(address),
                }),
            ),
            input(
                10,
                InputKind::Rx(
                    BusReply {
                        address,
                        kind: BusReplyKind::Version { major: 1, minor: 8 },
                    }
                    .encode(),
                ),
            ),
        ];
        let events = run(&inputs);
        let last = events
            .iter()
            .rev()
            .find_map(|e| match &e.body {
                EventBody::BoardStatus(s) => Some(s.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(last.serial.as_deref(), Some("01025"));
        assert_eq!(last.version.as_deref(), Some("1.8"));
    }
}
