//! The lab around the daemon: what stands in for the hall and what measures the daemon, kept
//! apart from the product (`dgt-arbiter`'s library) so that the product builds and reads
//! without it. It depends on the core crates only; the `dgt-arbiter` binary hosts its
//! commands.
//!
//! * [`simulated`] holds the boards that stand in for real ones (emulated, scripted and
//!   bus-line boards on pseudo-terminals) for `demo`, `emulate`, `bench` and the tests;
//! * [`verify`], [`verify_alerts`] and [`verify_bughouse`] play seeded emulated games through
//!   the core and score the moves and alerts against what was played (`dgt-arbiter verify`);
//! * [`bench`] measures daemons and the hub under load from outside (`dgt-arbiter bench`).

pub mod bench;
pub mod simulated;
pub mod verify;
pub mod verify_alerts;
pub mod verify_bughouse;
