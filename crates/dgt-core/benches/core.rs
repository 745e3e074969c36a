//! How long the core takes per board event (issue: a move within 300 ms of the board
//! settling, of which the sensor itself needs ~200 ms). Run: `cargo bench -p dgt-core`.

use dgt_core::capture::parse_capture;
use dgt_core::{Core, CoreConfig, Input, InputKind};

fn main() {
    divan::main();
}

fn real_capture() -> Vec<Input> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/captures/real-blitz-game-1.jsonl"
    ))
    .unwrap();
    parse_capture(&text).unwrap()
}

/// The whole real blitz game (455 inputs: dumps, field updates, clock readings).
#[divan::bench]
fn whole_real_game(bencher: divan::Bencher) {
    let inputs = real_capture();
    bencher
        .counter(divan::counter::ItemsCount::new(inputs.len()))
        .bench(|| {
            let mut core = Core::new(CoreConfig::default());
            let mut n = 0;
            for i in &inputs {
                n += core.handle(divan::black_box(i)).len();
            }
            n
        });
}

/// One field update in the middle of a game: a piece lifted, then put back (the most
/// common event, and the one that triggers the search for legal moves).
#[divan::bench]
fn one_field_update_mid_game(bencher: divan::Bencher) {
    let inputs = real_capture();
    let mut core = Core::new(CoreConfig::default());
    for i in &inputs[..200] {
        core.handle(i);
    }
    let mut t = inputs[199].t_ms;
    // a7 pawn (square 8) lifted and put back
    bencher.bench_local(|| {
        t += 1;
        let a = core.handle(&Input {
            t_ms: t,
            board: "board-1".into(),
            kind: InputKind::Rx(vec![0x8E, 0, 5, 8, 0]),
        });
        let b = core.handle(&Input {
            t_ms: t,
            board: "board-1".into(),
            kind: InputKind::Rx(vec![0x8E, 0, 5, 8, 7]),
        });
        a.len() + b.len()
    });
}
