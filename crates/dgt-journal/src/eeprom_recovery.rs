//! Moves made while a board was disconnected, read back from the board's own memory
//! (protocol §3.6). The algorithm lives in the core ([`dgt_core::eeprom`]), which calls it
//! when a board's log arrives after a reconnection; it is re-exported here for the tools
//! that read a journal.

pub use dgt_core::eeprom::*;
