//! Harnesses for the tests of this crate and of the workspace, behind the `test-support`
//! feature (a dev-dependency feature: the product never builds it;
//! `docs/decisions/serial-sim-harnesses.md`).
//!
//! Each drives one sans-IO machine of the serial edge on virtual time against a simulated
//! board of the lab, with no port and no sleeping, so that timings are exact and many lines
//! and faults are played in seconds:
//! * [`LinkSim`]: a single-board port's [`BoardLink`](crate::edge::serial::board_link::BoardLink)
//!   and the board behind it;
//! * [`BusSim`]: a bus line's [`BusPoller`](crate::edge::serial::bus_poller::BusPoller), the
//!   line's boards, and the core its inputs go to;
//! * [`VirtualClock`]: the clock both run on (ms since the port or line opened);
//! * [`moves`]: the games as a consumer of the event feed rebuilds them.
//!
//! This is the one place the library names the lab (`dgt_lab::simulated`): only in test
//! builds, for the boards the harnesses drive.

mod bus_sim;
mod clock;
mod link_sim;
pub mod moves;

pub use bus_sim::BusSim;
pub use clock::VirtualClock;
pub use link_sim::LinkSim;
