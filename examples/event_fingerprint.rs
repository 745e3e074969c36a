//! Prints every event the core makes of a range of emulated games, one JSON line each, so a
//! refactoring can prove the core's behaviour unchanged by comparing the output before and
//! after (`cargo run --release --example event_fingerprint -- FIRST_SEED GAMES > out`).
//!
//! Two kinds of game per seed: the corpus game (handling noise, result gestures, boards
//! with and without a clock) and the same game at each of the three alert paces with the
//! irregularities `verify --alerts` scores (two hands, rook-first castling, adjustments),
//! so the move reader, the referee and the flag and clock checks are all exercised.

use dgt_core::CoreConfig;
use dgt_emulator::{BoardSpec, corpus_spec, generate_game};
use dgt_lab::verify::events_of;
use dgt_lab::verify_alerts::{PACES, alert_spec};
use std::io::Write;

fn play(label: &str, spec: BoardSpec, config: &CoreConfig, out: &mut impl Write) {
    let game = generate_game(spec);
    for e in events_of(&game, "board-1", config) {
        let json = serde_json::to_string(&e).expect("events serialise");
        writeln!(out, "{label} {json}").expect("stdout");
    }
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse()
                .expect("usage: event_fingerprint FIRST_SEED GAMES")
        })
        .collect();
    let (first, games) = match args[..] {
        [first, games] => (first, games),
        _ => (1, 200),
    };
    // Each edition in turn, and reduced supervision now and then (Art. III.5 / A.5), so the
    // prescriptions of every edition are in the output. Built through serde so the example
    // survives changes to the settings' types.
    let editions = ["fide-2023", "fide-2018", "fide-2017", "fide-2005"];
    let config_for = |seed: u64| -> CoreConfig {
        serde_json::from_value(serde_json::json!({
            "edition": editions[(seed % 4) as usize],
            "supervision": if seed % 7 == 3 { "reduced" } else { "full" },
        }))
        .expect("a valid core config")
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for seed in first..first + games {
        let config = config_for(seed);
        play(
            &format!("corpus:{seed}"),
            corpus_spec(seed),
            &config,
            &mut out,
        );
        for (pace, name, control) in PACES {
            play(
                &format!("{name}:{seed}"),
                alert_spec(seed, pace, control),
                &config,
                &mut out,
            );
        }
    }
}
