//! Fuzzes the core as it runs with `serial.read_board_log = true`: boards that connect, send
//! their EEPROM move log (0x8F, protocol §3.6) and other frames, drop off and come back —
//! the outage recovery path the plain `core` target rarely reaches. Nothing may panic.
//! Run: `cargo +nightly fuzz run --sanitizer none core_board_log`.
#![no_main]

use dgt_core::input::Link;
use dgt_core::{Core, CoreConfig, Input, InputKind};
use dgt_protocol::message::EE_MOVES;
use libfuzzer_sys::fuzz_target;

/// One EEPROM log frame around `body` (the 14-bit length counts the 3 header bytes), its
/// bytes kept below 0x80 as the protocol has them.
fn eeprom_frame(body: &[u8]) -> Vec<u8> {
    let body: Vec<u8> = body.iter().map(|b| b & 0x7F).take(8000).collect();
    let len = body.len() + 3;
    let mut frame = vec![EE_MOVES, ((len >> 7) & 0x7F) as u8, (len & 0x7F) as u8];
    frame.extend(body);
    frame
}

fuzz_target!(|data: &[u8]| {
    let mut core = Core::new(CoreConfig::default());
    let mut t = 0u64;
    let connect = |t| Input {
        t_ms: t,
        board: "fuzz".into(),
        kind: InputKind::Link(Link::Connected { port: None }),
    };
    core.handle(&connect(t));
    let mut rest = data;
    while let [op, dt, tail @ ..] = rest {
        t += u64::from(*dt) * 20;
        let n = tail.len().min(usize::from(op >> 2) + 1);
        let (chunk, after) = tail.split_at(n);
        rest = after;
        let kind = match op & 3 {
            0 => InputKind::Rx(chunk.to_vec()),
            1 => InputKind::Rx(eeprom_frame(chunk)),
            2 => InputKind::Link(Link::Disconnected {
                reason: None,
                stopping: false,
            }),
            _ => {
                core.handle(&connect(t));
                InputKind::Rx(eeprom_frame(chunk))
            }
        };
        core.handle(&Input {
            t_ms: t,
            board: "fuzz".into(),
            kind,
        });
        core.advance(t);
    }
    core.advance(t + 60_000);
});
