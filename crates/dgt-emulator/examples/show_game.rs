//! Prints one generated game: the truth and the decoded traffic (for eyeballing realism).
//! `cargo run -p dgt-emulator --example show_game -- <seed> <plies>`

use dgt_emulator::{BoardSpec, Dir, chess_square, generate_game};
use dgt_protocol::{Decoded, Decoder, LineMode};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let plies = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let spec = BoardSpec::random(seed, plies);
    let rotated = spec.rotated;
    let game = generate_game(spec);
    for m in &game.truth.moves {
        println!(
            "ply {:3} {:6} {:7} touch {:7} made {:7} press {:?} W {} B {} {:?} {:?}",
            m.ply,
            m.uci,
            m.san,
            m.t_touch_ms,
            m.t_made_ms,
            m.t_pressed_ms,
            m.white_ms,
            m.black_ms,
            m.handling,
            m.slid_via
        );
    }
    for i in &game.truth.irregularities {
        println!("irregularity {i:?}");
    }
    println!("result {:?} end {}", game.truth.result, game.truth.end_ms);
    let mut d = Decoder::new(LineMode::Single);
    for t in &game.traffic {
        if t.dir == Dir::Tx {
            println!("{:7} TX {:02X?}", t.t_ms, t.bytes);
            continue;
        }
        for item in d.decode(&t.bytes) {
            match item {
                Decoded::Message(dgt_protocol::BoardMessage::FieldUpdate { square, piece }) => {
                    println!(
                        "{:7} RX field {} = {}",
                        t.t_ms,
                        chess_square(square as usize, rotated),
                        piece
                    )
                }
                Decoded::Message(m) => {
                    let s = format!("{m:?}");
                    println!("{:7} RX {}", t.t_ms, &s[..s.len().min(150)]);
                }
                other => println!("{:7} RX ?? {other:?}", t.t_ms),
            }
        }
    }
}
