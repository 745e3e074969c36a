//! The edges: everything that touches the outside world. No chess and no rules here.
//!
//! * [`serial`] finds ports, opens them, identifies the board on each and moves its bytes
//!   to the core (one task per port, reconnecting);
//! * [`daemon`] owns the one [`dgt_core::Core`]: stamps time, fires timers, records every
//!   input and publishes events;
//! * [`pty_board`] puts a board model behind a pseudo-terminal, so the daemon reads it
//!   through the production serial code;
//! * [`emulated`] is the full emulated board with its DGT 3000 clock, playing one game after
//!   another (`demo`, `emulate`);
//! * [`scripted_board`] is a small board model (serial number, version, dump, field updates
//!   of a seeded or PGN game) used by the serial tests.

pub mod bus_line_board;
pub mod daemon;
pub mod emulated;
pub mod metrics;
pub mod pty_board;
pub mod scripted_board;
pub mod serial;
pub mod systemd;
