//! Everything that makes one emulated board and game: identity, orientation, clock, the
//! game script and how carefully the humans handle the pieces.

use crate::clock::ClockSide;
use crate::game_script::GameScript;
use crate::time_control::TimeControl;

/// How often the humans do each thing, as probabilities per occasion. Some are plain
/// variations of correct handling (capture order, promotion style), the rest are the
/// irregularities and artefacts the reconstruction must survive.
#[derive(Debug, Clone, PartialEq)]
pub struct HandlingRates {
    /// A sliding piece (R, B, Q, castling king, pawn double step) touches the squares it
    /// passes (protocol §4.1), per such move.
    pub slide: f64,
    /// A badly centred piece toggles on/off 1–4 times after being placed, per placement.
    pub flicker: f64,
    /// A piece is knocked over and put back 0.5–3 s later, per ply.
    pub knocked_piece: f64,
    /// The clock is pressed 3–20 s late, per ply.
    pub late_press: f64,
    /// Castling with the rook first (an irregularity, Laws 4.4.2), per castling.
    pub castle_rook_first: f64,
    /// King and rook lifted together (an irregularity, Laws 4.1), per castling.
    pub castle_two_handed: f64,
    /// Battery-low shown on the clock during the whole game, per game.
    pub battery_low: f64,
    /// Correct handling: the captured piece is removed before the capturer is lifted
    /// (otherwise it is removed with the capturer in hand), per capture.
    pub capture_remove_first: f64,
    /// Correct handling: the en-passant pawn is removed before the capturing pawn moves.
    pub en_passant_remove_first: f64,
    /// Correct handling: the promoted piece goes straight on without the pawn being placed.
    pub promotion_direct: f64,
    /// Irregular: a capture made with two hands (the captured piece taken off with one, the
    /// capturer lifted with the other within 0–80 ms), per capture (Laws 4.1, 7.5.4).
    /// Zero in the corpus rates: the random stream is drawn only when it is above zero.
    pub capture_two_handed: f64,
    /// An own piece, not the one moved, lifted and put back on its square before the move
    /// (an adjustment, or a touch), per move. Zero in the corpus rates.
    pub adjust_piece: f64,
    /// The share of those adjustments announced beforehand ("j'adoube", 4.2.1): the board
    /// cannot hear it, the truth keeps it.
    pub adjust_announced: f64,
}

impl HandlingRates {
    /// No irregularities at all: no slides, flicker, knocks, late presses, irregular
    /// castling or battery warning. Correct-handling variations stay.
    pub fn clean() -> Self {
        HandlingRates {
            slide: 0.0,
            flicker: 0.0,
            knocked_piece: 0.0,
            late_press: 0.0,
            castle_rook_first: 0.0,
            castle_two_handed: 0.0,
            battery_low: 0.0,
            capture_remove_first: 0.45,
            en_passant_remove_first: 0.3,
            promotion_direct: 0.35,
            capture_two_handed: 0.0,
            adjust_piece: 0.0,
            adjust_announced: 0.0,
        }
    }

    /// Realistic club/tournament handling.
    pub fn noisy() -> Self {
        HandlingRates {
            slide: 0.3,
            flicker: 0.08,
            knocked_piece: 0.01,
            late_press: 0.02,
            castle_rook_first: 0.08,
            castle_two_handed: 0.05,
            battery_low: 0.03,
            ..Self::clean()
        }
    }
}

/// How fast the hands move, whatever the clock says (the alert check plays each pace on
/// its own); `Natural` follows the time left, as the corpus does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pace {
    #[default]
    Natural,
    /// Careful, unhurried hands (standard play).
    Careful,
    /// Blitz hands: 0.6 of the careful times.
    Blitz,
    /// A time scramble: 0.25 of the careful times (one-handed captures down to ~60 ms
    /// between the two lifts).
    Scramble,
}

impl Pace {
    /// The factor on hand times, `None` for `Natural`.
    pub fn tempo(self) -> Option<f64> {
        match self {
            Pace::Natural => None,
            Pace::Careful => Some(1.0),
            Pace::Blitz => Some(0.6),
            Pace::Scramble => Some(0.25),
        }
    }
}

/// The name the brief uses for [`HandlingRates`].
pub type IrregularityRates = HandlingRates;

impl Default for HandlingRates {
    fn default() -> Self {
        Self::noisy()
    }
}

/// How the players signal the result at the end (protocol §4.5, "Special result gestures").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResultGesture {
    #[default]
    None,
    /// Both kings on the centre squares: e4/d5 (light) 1-0, d4/e5 (dark) 0-1, mixed ½-½.
    CentreKings,
    /// A magic piece placed on an empty square: 13 draw, 14 White wins, 15 Black wins.
    MagicPiece,
}

/// One emulated board and its game.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardSpec {
    /// Serial number, shown as 5 digits (e.g. 1025 → "01025"); the bus address is its low 14
    /// bits (protocol §2.4).
    pub serial: u32,
    /// Firmware version reported by 0x4D, e.g. (1, 8).
    pub version: (u8, u8),
    pub seed: u64,
    pub script: GameScript,
    pub time_control: TimeControl,
    /// Board turned 180°: chess square i is physical square 63 − i (protocol §3.2).
    pub rotated: bool,
    pub clock_present: bool,
    /// The display White uses (left unless configured right).
    pub white_clock_side: ClockSide,
    pub rates: HandlingRates,
    pub result_gesture: ResultGesture,
    /// Time from power-up until White's clock is started (plus 0–2 s from the seed).
    pub start_delay_ms: u64,
    /// How fast the hands move ([`Pace::Natural`]: with the time left).
    pub pace: Pace,
}

impl BoardSpec {
    /// A 3+2 blitz game with noisy handling, clock on White's left, serial from the seed.
    pub fn new(seed: u64, script: GameScript) -> Self {
        BoardSpec {
            serial: 1000 + (seed % 15_000) as u32,
            version: (1, 8),
            seed,
            script,
            time_control: TimeControl::fischer(180, 2),
            rotated: false,
            clock_present: true,
            white_clock_side: ClockSide::Left,
            rates: HandlingRates::noisy(),
            result_gesture: ResultGesture::None,
            start_delay_ms: 3000,
            pace: Pace::Natural,
        }
    }

    /// A random game of at most `max_plies` (see [`crate::random_game`]).
    pub fn random(seed: u64, max_plies: usize) -> Self {
        Self::new(seed, GameScript::random(seed, max_plies))
    }

    pub fn with_rates(mut self, rates: HandlingRates) -> Self {
        self.rates = rates;
        self
    }

    pub fn with_time_control(mut self, tc: TimeControl) -> Self {
        self.time_control = tc;
        self
    }

    pub fn serial_text(&self) -> String {
        format!("{:05}", self.serial % 100_000)
    }
}
