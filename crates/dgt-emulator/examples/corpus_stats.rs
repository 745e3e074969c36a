//! Generates many games and prints statistics; checks each decodes cleanly and replays to
//! the truth. `cargo run --release -p dgt-emulator --example corpus_stats -- <games>`

use std::collections::BTreeMap;

use dgt_emulator::{
    BoardSpec, ClockSide, Dir, IrregularityKind, ResultGesture, TimeControl, corpus_spec,
    generate_game,
};
use dgt_protocol::{BoardMessage, Decoded, Decoder, LineMode};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    // `mixed`: any script length with any control (unscripted flags happen); default: the
    // corpus mix of `corpus_spec`.
    let corpus = std::env::args().nth(2).as_deref() != Some("mixed");
    let mut stats: BTreeMap<String, u64> = BTreeMap::new();
    let mut bytes = 0usize;
    let mut sim_ms = 0u64;
    for seed in 0..n {
        let spec = if corpus {
            corpus_spec(seed)
        } else {
            mixed_spec(seed)
        };
        let game = generate_game(spec);
        let mut d = Decoder::new(LineMode::Single);
        let mut board = [0u8; 64];
        for t in game.traffic.iter().filter(|t| t.dir == Dir::Rx) {
            bytes += t.bytes.len();
            for item in d.decode(&t.bytes) {
                match item {
                    Decoded::Message(BoardMessage::BoardDump(b)) => board = *b,
                    Decoded::Message(BoardMessage::FieldUpdate { square, piece }) => {
                        board[square as usize] = piece
                    }
                    Decoded::Message(_) => {}
                    other => panic!("seed {seed}: {other:?}"),
                }
            }
        }
        assert_eq!(board, game.truth.final_board, "seed {seed}");
        sim_ms += game.truth.end_ms;
        *stats.entry("moves".into()).or_default() += game.truth.moves.len() as u64;
        for i in &game.truth.irregularities {
            let key = match &i.kind {
                IrregularityKind::FlagFall {
                    scripted,
                    final_flag,
                    ..
                } => {
                    format!(
                        "flag scripted={scripted} final={final_flag} {} ply {:?}",
                        game.truth.time_control,
                        i.ply.map(|p| p / 50 * 50)
                    )
                }
                k => format!("{k:?}")
                    .split([' ', '{'])
                    .next()
                    .unwrap()
                    .to_string(),
            };
            *stats.entry(key).or_default() += 1;
        }
        for m in &game.truth.moves {
            *stats
                .entry(format!("handling {:?}", m.handling))
                .or_default() += 1;
            if !m.slid_via.is_empty() {
                *stats.entry("slid".into()).or_default() += 1;
            }
        }
        if let Some(r) = game.truth.result {
            *stats.entry(format!("result {:?}", r.reason)).or_default() += 1;
        }
    }
    for (k, v) in stats {
        println!("{k:40} {v}");
    }
    println!(
        "bytes {bytes}, simulated hours {:.1}",
        sim_ms as f64 / 3.6e6
    );
}

fn mixed_spec(seed: u64) -> BoardSpec {
    let tcs = [
        "180+2",
        "300",
        "60",
        "900+10",
        "40/5400+30:1800+30",
        "300d3",
    ];
    let mut spec = BoardSpec::random(seed, 40 + (seed as usize * 37) % 200);
    spec.time_control = TimeControl::parse(tcs[seed as usize % tcs.len()]).unwrap();
    spec.rotated = seed.is_multiple_of(5);
    if seed.is_multiple_of(3) {
        spec.white_clock_side = ClockSide::Right;
    }
    spec.result_gesture = match seed % 4 {
        0 => ResultGesture::CentreKings,
        1 => ResultGesture::MagicPiece,
        _ => ResultGesture::None,
    };
    if seed % 10 == 7 {
        spec.script.flag_fall_at_ply = Some(spec.script.moves.len() / 2);
    }
    spec
}
