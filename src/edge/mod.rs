//! The edges: everything that touches the outside world. No chess and no rules here.
//!
//! * [`serial`] finds ports, opens them, identifies the board on each and moves its bytes
//!   to the core (one task per port, reconnecting);
//! * [`daemon`] owns the one [`dgt_core::Core`]: stamps time, fires timers, records every
//!   input and publishes events;
//! * [`pty_board`] puts a board model behind a pseudo-terminal, so the daemon reads it
//!   through the production serial code;
//! * [`scripted_board`] is a small board model (serial number, version, dump, field updates
//!   of a seeded or PGN game) used by `demo`, `emulate` and the tests.

pub mod daemon;
pub mod pty_board;
pub mod scripted_board;
pub mod serial;
