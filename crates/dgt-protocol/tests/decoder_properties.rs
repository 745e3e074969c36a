//! Properties of the framer over arbitrary byte streams: it never panics, chunking never
//! changes what it finds, and valid messages hidden in garbage all come out, in order.

use dgt_protocol::bus::{BusReply, BusReplyKind};
use dgt_protocol::clock::{ClockAck, ClockMessage, ClockStatus, ClockTimes, SideTime};
use dgt_protocol::{BoardMessage, Decoded, Decoder, LineMode};
use proptest::prelude::*;

fn side_time() -> impl Strategy<Value = SideTime> {
    (0u64..36_000, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(s, f, sh, inc)| {
        SideTime {
            ms: s * 1000,
            final_flag: f,
            flag_shown: sh,
            increment_shown: inc,
        }
    })
}

fn board_message() -> impl Strategy<Value = BoardMessage> {
    prop_oneof![
        (0u8..64, 0u8..16).prop_map(|(square, piece)| BoardMessage::FieldUpdate { square, piece }),
        proptest::collection::vec(0u8..16, 64).prop_map(|v| {
            let mut sq = [0u8; 64];
            sq.copy_from_slice(&v);
            BoardMessage::BoardDump(Box::new(sq))
        }),
        (side_time(), side_time(), 0u8..0x40).prop_map(|(left, right, st)| {
            BoardMessage::Clock(ClockMessage::Times(ClockTimes {
                left,
                right,
                status: ClockStatus::from_byte(st),
            }))
        }),
        (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(a, b, c, d)| {
            BoardMessage::Clock(ClockMessage::Ack(ClockAck {
                ack0: a,
                ack1: b,
                ack2: c,
                ack3: d,
            }))
        }),
        "[0-9]{5}".prop_map(BoardMessage::SerialNumber),
        "[0-9A-Z.]{10}".prop_map(BoardMessage::LongSerialNumber),
        (0u8..0x80, 0u8..0x80).prop_map(|(major, minor)| BoardMessage::Version { major, minor }),
        "[ -~]{0,200}".prop_map(BoardMessage::Trademark),
        proptest::collection::vec(0u8..0x80, 0..300).prop_map(BoardMessage::EeMoves),
        (0u16..0x4000).prop_map(BoardMessage::BusAddress),
    ]
}

fn decode_all(mode: LineMode, bytes: &[u8], chunks: &[usize]) -> Vec<Decoded> {
    let mut d = Decoder::new(mode);
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut i = 0;
    while !rest.is_empty() {
        let n = chunks
            .get(i)
            .copied()
            .unwrap_or(rest.len())
            .clamp(1, rest.len());
        out.extend(d.decode(&rest[..n]));
        rest = &rest[n..];
        i += 1;
    }
    out.extend(d.flush());
    out
}

fn is_subsequence<T: PartialEq>(needle: &[T], hay: &[T]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2000),
                                 chunks in proptest::collection::vec(1usize..64, 0..64)) {
        decode_all(LineMode::Single, &bytes, &chunks);
        decode_all(LineMode::Bus, &bytes, &chunks);
    }

    #[test]
    fn chunking_does_not_change_the_result(bytes in proptest::collection::vec(any::<u8>(), 0..1500),
                                           chunks in proptest::collection::vec(1usize..40, 0..80)) {
        // Garbage may be reported in different pieces; messages may not differ at all.
        let msgs = |v: Vec<Decoded>| v.into_iter().filter(|d| !matches!(d, Decoded::Garbage(_))).collect::<Vec<_>>();
        prop_assert_eq!(msgs(decode_all(LineMode::Single, &bytes, &chunks)),
                        msgs(decode_all(LineMode::Single, &bytes, &[])));
    }

    #[test]
    fn messages_embedded_in_garbage_are_all_recovered(
        parts in proptest::collection::vec((proptest::collection::vec(any::<u8>(), 0..40), board_message()), 1..20),
        chunks in proptest::collection::vec(1usize..50, 0..100),
    ) {
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        for (garbage, msg) in &parts {
            stream.extend(garbage);
            stream.extend(msg.encode());
            // The encoder writes exactly what a board sends; decoding it gives the value back,
            // except that an ack and a reading share a layout the decoder must classify.
            expected.push(BoardMessage::from_frame(msg.encode()[0], &msg.encode()[3..]));
        }
        let got: Vec<BoardMessage> = decode_all(LineMode::Single, &stream, &chunks)
            .into_iter()
            .filter_map(|d| match d { Decoded::Message(m) => Some(m), _ => None })
            .collect();
        prop_assert!(is_subsequence(&expected, &got), "expected {:?}\n got {:?}", expected, got);
    }

    #[test]
    fn bus_replies_embedded_in_garbage_are_all_recovered(
        parts in proptest::collection::vec((proptest::collection::vec(any::<u8>(), 0..30), 0u16..0x4000, 0u8..64), 1..12),
    ) {
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        for (garbage, address, sq) in &parts {
            stream.extend(garbage);
            let reply = BusReply { address: *address, kind: BusReplyKind::Update(vec![0x40, *sq]) };
            stream.extend(reply.encode());
            expected.push(Decoded::Bus(reply));
        }
        let got = decode_all(LineMode::Bus, &stream, &[]);
        prop_assert!(is_subsequence(&expected, &got));
    }

    #[test]
    fn clock_readings_round_trip(left in side_time(), right in side_time(), st in 0u8..0x40) {
        let t = ClockTimes { left, right, status: ClockStatus::from_byte(st) };
        let m = ClockMessage::Times(t);
        let back = ClockMessage::decode(&m.to_bytes());
        // A reading whose hours nibble would be 0xA cannot exist (hours ≤ 9).
        prop_assert_eq!(back, m);
    }
}
