//! The DGT e-board and clock serial protocol, byte by byte (see `docs/dgt-protocol.md`).
//!
//! The data flow of this crate follows the wire:
//!
//! * [`frame`] cuts a byte stream (in any chunking, with any garbage) into frames and never panics;
//! * [`message`] gives each board→host frame its meaning ([`BoardMessage`]);
//! * [`clock`] decodes the 7 bytes a board relays from a DGT XL / DGT 3000 clock (times or acks);
//! * [`eeprom`] reads the board's own move log (EE_MOVES, bus UPDATE / FROM_START);
//! * [`bus`] is bus mode: addressed commands and checksummed replies;
//! * [`command`] is every host→board command as a typed value, both ways (the daemon encodes,
//!   the emulator decodes).
//!
//! Nothing here knows chess or time; it only moves between bytes and typed values.

pub mod bus;
pub mod clock;
pub mod command;
pub mod eeprom;
pub mod frame;
pub mod message;
pub mod piece;

pub use bus::{BusCommand, BusCommandKind, BusReply, BusReplyKind};
pub use clock::{ClockAck, ClockButton, ClockMessage, ClockStatus, ClockTimes, SideTime};
pub use command::{ClockCommand, Command, CommandDecoder, HostBytes};
pub use eeprom::{EeEntry, parse_ee_log};
pub use frame::{Decoded, Decoder, LineMode};
pub use message::BoardMessage;
pub use piece::{DgtPiece, PhysicalSquare};
