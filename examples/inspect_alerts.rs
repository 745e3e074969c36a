//! Lists the alerts of kinds with no truth kept (illegal_move, clock_pressed_without_move…)
//! raised on alert-pace games, with the truth around them:
//! `cargo run --release --example inspect_alerts -- PACE FIRST N [KIND]`.

use dgt_core::{CoreConfig, EventBody};
use dgt_emulator::generate_game;
use dgt_lab::verify::{events_of, moves_read};
use dgt_lab::verify_alerts::{alert_spec, pace_named};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pace_name = args.first().map(String::as_str).unwrap_or("scramble");
    let first: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let n: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100);
    let kind = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| "illegal_move".into());
    let (pace, control) = pace_named(pace_name).expect("pace: careful, blitz or scramble");
    let config = CoreConfig::default();
    for seed in first..first + n {
        let game = generate_game(alert_spec(seed, pace, control));
        let events = events_of(&game, "board-1", &config);
        let rebuilt = moves_read(&events);
        for e in &events {
            let EventBody::Alert(a) = &e.body else {
                continue;
            };
            let k = serde_json::to_value(a.kind).unwrap();
            if k.as_str() != Some(kind.as_str()) {
                continue;
            }
            let ply = a.ply.unwrap_or(0) as usize;
            println!(
                "seed {seed} t {} ply {ply} {:?}: {}",
                e.t_ms, a.severity, a.message
            );
            for m in game
                .truth
                .moves
                .iter()
                .filter(|m| m.ply + 2 >= ply && m.ply <= ply + 2)
            {
                println!(
                    "   truth ply {} {} {:?} touch {} made {} pressed {:?} adj {:?}",
                    m.ply, m.uci, m.handling, m.t_touch_ms, m.t_made_ms, m.t_pressed_ms, m.adjusted
                );
            }
            // The irregularities around the alert (knocked pieces, late presses…).
            for irr in game
                .truth
                .irregularities
                .iter()
                .filter(|irr| irr.t_ms + 10_000 >= e.t_ms && irr.t_ms <= e.t_ms + 2_000)
            {
                println!("   irregularity t {} {:?}", irr.t_ms, irr.kind);
            }
        }
        let truth: Vec<&str> = game.truth.moves.iter().map(|m| m.uci.as_str()).collect();
        let same = truth
            .iter()
            .zip(&rebuilt)
            .take_while(|(a, b)| **a == b.as_str())
            .count();
        if same != truth.len() || rebuilt.len() != truth.len() {
            println!(
                "seed {seed}: rebuilt {} of {} moves, first difference at ply {}",
                rebuilt.len(),
                truth.len(),
                same + 1
            );
        }
    }
}
