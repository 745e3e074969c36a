//! The deterministic core of dgt-arbiter.
//!
//! A plain function of its inputs: timestamped bytes per board, link changes and operator
//! actions go in ([`Input`]); events come out ([`Event`]). It owns no sockets, threads, files
//! or clocks: time is the `t_ms` it is given, and timers are deadlines the caller asks for
//! with [`Core::next_deadline`] and fires with [`Core::advance`]. `run`, `demo`, `replay`, the
//! tests and the benchmarks all drive this same code.
//!
//! Stages, in data-flow order:
//! 1. `dgt_protocol` frames and decodes the bytes;
//! 2. [`board`] keeps the 64 squares as the board reports them, and the orientation;
//! 3. [`reconstruct`] turns settled placements into legal moves (shakmaty), never inventing one;
//! 4. [`clock`] turns readings into White/Black times, presses and flags;
//! 5. [`arbiter`] applies the Laws of Chess for the edition in force.

pub mod arbiter;
pub mod arbitrary_play;
pub mod article;
pub mod board;
pub mod bughouse;
pub mod bus;
pub mod capture;
pub mod capture_hands;
pub mod claim;
pub mod clock;
pub mod config;
pub mod dead;
pub mod edition;
pub mod eeprom;
pub mod engine;
pub mod event;
#[cfg(feature = "test-support")]
pub mod event_script;
pub mod handling;
pub mod input;
pub mod log_gap;
pub mod outcome;
pub mod pairing;
pub mod reconstruct;
pub mod remedy;
pub mod session;
pub mod side;
mod snapshot_as;
pub mod text;
pub mod time_control;
pub mod verdict;
pub mod verdict_bughouse_end;
pub mod verdict_claim;
pub mod verdict_clock;
pub mod verdict_drop;
pub mod verdict_equipment;
pub mod verdict_evidence;
pub mod verdict_flag;
pub mod verdict_hands;
pub mod verdict_illegal_change;
pub mod verdict_match;
pub mod verdict_position;
pub mod verdict_record;
pub mod verdict_seat;
pub mod verdict_under_way;
pub mod words;

pub use config::CoreConfig;
pub use engine::{Core, CoreImage, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, SnapshotError};
pub use event::{Alert, AlertKind, Event, EventBody, Severity, Side};
pub use input::{Input, InputKind, Link, Operation};
pub use outcome::{GameResult, TableResult};
