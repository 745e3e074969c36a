//! Lists, per alert-pace game, the alerts `verify --alerts` scores as false and the truth it
//! finds missed, with what really happened around them (clock stops, gesture, flags, end):
//! `cargo run --release --example inspect_false_alerts -- PACE FIRST N [KIND]`.

use dgt_core::{CoreConfig, Severity};
use dgt_emulator::generate_game;
use dgt_lab::verify_alerts::{SCORED, alert_spec, occurrences, pace_named, raised_alerts};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pace_name = args.first().map(String::as_str).unwrap_or("scramble");
    let first: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let n: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100);
    let only = args.get(3).cloned();
    let (pace, control) = pace_named(pace_name).expect("pace: careful, blitz or scramble");
    let config = CoreConfig::default();
    for seed in first..first + n {
        let game = generate_game(alert_spec(seed, pace, control));
        let alerts = raised_alerts(&game, &config);
        let mut lines = Vec::new();
        for kind in SCORED {
            let name = serde_json::to_value(kind).unwrap();
            let name = name.as_str().unwrap_or_default().to_string();
            if only.as_ref().is_some_and(|o| *o != name) {
                continue;
            }
            let truth = occurrences(kind, &game, &config);
            for a in alerts.iter().filter(|a| a.kind == kind) {
                let review = matches!(a.severity, Severity::Review | Severity::Intervene);
                if review && !truth.iter().any(|o| o.matches(a)) {
                    lines.push(format!("  FALSE {name} {a:?}"));
                }
            }
            for o in &truth {
                if o.wanted
                    && kind != dgt_core::AlertKind::TouchMove
                    && kind != dgt_core::AlertKind::TwoHandedMove
                    && !alerts.iter().any(|a| a.kind == kind && o.matches(a))
                {
                    lines.push(format!("  MISSED {name} {o:?}"));
                }
            }
        }
        if lines.is_empty() {
            continue;
        }
        let t = &game.truth;
        println!(
            "seed {seed}: {} plies, result {:?}, over at {:?}, stops {:?}, gesture {:?}",
            t.moves.len(),
            t.result,
            t.game_over,
            t.clock_stops,
            t.gesture
        );
        if let Some(m) = t.moves.last() {
            println!(
                "  last move ply {} {} made {} pressed {:?} ({} / {} ms left)",
                m.ply, m.uci, m.t_made_ms, m.t_pressed_ms, m.white_ms, m.black_ms
            );
        }
        for i in t.irregularities.iter().filter(|i| {
            matches!(
                i.kind,
                dgt_emulator::IrregularityKind::FlagFall { .. }
                    | dgt_emulator::IrregularityKind::LatePress { .. }
            )
        }) {
            println!("  irregularity t {} ply {:?} {:?}", i.t_ms, i.ply, i.kind);
        }
        for l in lines {
            println!("{l}");
        }
    }
}
