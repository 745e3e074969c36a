//! A whole game against a simulated host: the daemon's start-up sequence, then every byte
//! both ways with its time, and the truth. This is what the test corpus is made of.

use crate::board::EmulatedBoard;
use crate::clock::ClockSide;
use crate::game_script::GameScript;
use crate::prng::Prng;
use crate::spec::{BoardSpec, HandlingRates, ResultGesture};
use crate::time_control::TimeControl;
use crate::truth::Truth;

/// The daemon's start-up sequence at t = 0: serial number (0x45), version (0x4D), board dump
/// (0x42), UPDATE_NICE (0x4B), then the clock version request `2B 03 03 09 00`. Nine bytes:
/// within the board's 10-byte command buffer (protocol §1.1).
pub const STARTUP_SEQUENCE: [u8; 9] = [0x45, 0x4D, 0x42, 0x4B, 0x2B, 0x03, 0x03, 0x09, 0x00];

/// Direction, as seen by the host (the daemon): `Rx` board→host, `Tx` host→board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Rx,
    Tx,
}

/// Bytes that crossed the line at `t_ms` (for `Rx`: when their last bit arrived).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traffic {
    pub t_ms: u64,
    pub dir: Dir,
    pub bytes: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedGame {
    pub spec_seed: u64,
    pub traffic: Vec<Traffic>,
    pub truth: Truth,
}

impl GeneratedGame {
    /// Every byte the board sent, in order.
    pub fn rx_bytes(&self) -> Vec<u8> {
        self.traffic
            .iter()
            .filter(|t| t.dir == Dir::Rx)
            .flat_map(|t| t.bytes.iter().copied())
            .collect()
    }
}

/// Runs the board of `spec` from power-up to the end of its game against a host that sends
/// [`STARTUP_SEQUENCE`] at t = 0 and then only listens.
///
/// # Panics
/// If the spec's script is not legal chess.
pub fn generate_game(spec: BoardSpec) -> GeneratedGame {
    let seed = spec.seed;
    let mut board = EmulatedBoard::new(spec);
    let mut traffic = vec![Traffic {
        t_ms: 0,
        dir: Dir::Tx,
        bytes: STARTUP_SEQUENCE.to_vec(),
    }];
    board.on_host_bytes(0, &STARTUP_SEQUENCE);
    while !board.finished() {
        let Some(t) = board.next_deadline() else {
            break;
        };
        let bytes = board.poll_output(t);
        if !bytes.is_empty() {
            traffic.push(Traffic {
                t_ms: t,
                dir: Dir::Rx,
                bytes,
            });
        }
    }
    GeneratedGame {
        spec_seed: seed,
        traffic,
        truth: board.truth().clone(),
    }
}

/// A varied, realistic spec for corpus number `seed`: time controls from bullet to classical
/// (script lengths that fit them, so flags fall only when scripted), 10% rotated boards, 15%
/// clocks with White on the right, 3% without a clock, result gestures in 40%, scripted flag
/// falls in 5%, clean handling in 10% and noisy handling otherwise.
pub fn corpus_spec(seed: u64) -> BoardSpec {
    let mut rng = Prng::stream(seed, 0xC0_4905);
    // (time control, most plies that fit it without a flag)
    const CONTROLS: [(&str, u64); 8] = [
        ("60+1", 160),
        ("180+2", 200),
        ("300", 140),
        ("300+3", 200),
        ("600+5", 200),
        ("900+10", 200),
        ("300d3", 160),
        ("40/5400+30:1800+30", 160),
    ];
    let (tc, max_plies) = *rng.pick(&CONTROLS);
    let plies = rng.range(20, max_plies) as usize;
    let mut spec = BoardSpec::new(seed, GameScript::random(seed, plies));
    spec.time_control = TimeControl::parse(tc).expect("valid table entry");
    spec.rotated = rng.chance(0.10);
    if rng.chance(0.15) {
        spec.white_clock_side = ClockSide::Right;
    }
    spec.clock_present = !rng.chance(0.03);
    spec.result_gesture = match rng.below(10) {
        0..=2 => ResultGesture::CentreKings,
        3 => ResultGesture::MagicPiece,
        _ => ResultGesture::None,
    };
    if rng.chance(0.05) && spec.script.moves.len() > 10 {
        spec.script.flag_fall_at_ply =
            Some(rng.range(10, spec.script.moves.len() as u64 - 1) as usize);
    }
    if rng.chance(0.10) {
        spec.rates = HandlingRates::clean();
    }
    spec.start_delay_ms = rng.range(1500, 8000);
    spec
}
