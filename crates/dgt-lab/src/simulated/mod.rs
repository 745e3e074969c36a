//! Simulated boards: board models that play games and answer the DGT protocol as real
//! boards do, for `demo`, `emulate`, the bench and the tests. No chess rules are decided here;
//! the daemon reads them through its production serial code.
//!
//! * [`pty_board`] puts a board model behind a pseudo-terminal;
//! * [`emulated`] is the full emulated board with its DGT 3000 clock, playing one game after
//!   another (`demo`, `emulate`);
//! * [`scripted_board`] is a small board model (serial number, version, dump, field updates
//!   of a seeded or PGN game) used by the serial tests;
//! * [`bus_line_board`] puts several emulated boards on one bus line (protocol §2.4).

pub mod bus_line_board;
pub mod emulated;
pub mod pty_board;
pub mod scripted_board;
