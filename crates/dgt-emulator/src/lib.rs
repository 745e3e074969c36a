//! An emulated DGT e-board with a DGT 3000-style clock cabled to it, played by a seeded
//! model of two humans: faithful, deterministic and sans-IO.
//!
//! The emulator owns no sockets, threads or clocks; time is the `t_ms` it is given. A
//! wrapper (a pseudo-terminal, a test) feeds it the host's bytes with
//! [`EmulatedBoard::on_host_bytes`], collects what the board sends with
//! [`EmulatedBoard::poll_output`] and sleeps until [`EmulatedBoard::next_deadline`]. The
//! [`Truth`] says what really happened, for checking the move-reconstruction engine.
//!
//! The data flow follows the modules:
//! * [`game_script`]: what the players play (UCI, PGN or a seeded random game);
//! * `human`: how they play it (think times, hands, slides, captures, presses, mishaps),
//!   planned ahead from the seed;
//! * `surface`: the pieces on the physical squares over time, in the board's numbering;
//! * `scanner`: the board's periodic scan, reporting squares that differ from the last scan;
//! * [`clock`]: the DGT 3000 and its readings;
//! * `memory`: the board's EEPROM log;
//! * `line`: the 9600-baud serial line;
//! * `board`: the firmware that ties them together and answers commands (incl. bus mode);
//! * `corpus`: a whole game against a simulated host, every byte with its time.

pub mod bughouse;
pub mod clock;
pub mod game_script;
pub mod prng;
pub mod spec;
pub mod time_control;
pub mod truth;

mod board;
mod corpus;
mod game_end;
mod human;
mod line;
mod memory;
mod scanner;
mod surface;

pub use board::{EmulatedBoard, Mode};
pub use clock::{ClockSide, Dgt3000};
pub use corpus::{Dir, GeneratedGame, STARTUP_SEQUENCE, Traffic, corpus_spec, generate_game};
pub use game_script::{GameOutcome, GameScript, ScriptError, parse_pgn_moves, random_game};
pub use spec::{BoardSpec, HandlingRates, IrregularityRates, Pace, ResultGesture};
pub use surface::{chess_square, physical_index};
pub use time_control::{Category, Period, TimeControl};
pub use truth::{
    ClockStop, ClockStopReason, GameOverBy, GameResult, Handling, Irregularity, IrregularityKind,
    PerformedGesture, ResultReason, Truth, TruthMove,
};
