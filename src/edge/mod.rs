//! The edges: everything that touches the outside world. No chess and no rules here.
//!
//! * [`serial`] finds ports, opens them, identifies the board on each and moves its bytes
//!   to the core (one task per port, reconnecting);
//! * [`daemon`] owns the one [`dgt_core::Core`]: stamps time, fires timers, records every
//!   input and publishes events;
//! * [`clock`] is the daemon's clock, shared by both.
//!
//! The simulated boards (emulated, scripted, on pseudo-terminals) are not an edge: they are
//! [`dgt_lab::simulated`].

pub mod clock;
pub mod daemon;
pub mod metrics;
pub mod serial;
pub mod systemd;
