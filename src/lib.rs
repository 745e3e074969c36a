//! dgt-arbiter: the daemon around the deterministic core (`dgt_core`).
//!
//! The core decides; this crate only moves bytes and events:
//! * [`replay`] feeds a capture file through the core on virtual time;
//! * [`edge`] holds the I/O: serial ports, the daemon's event loop, metrics, systemd;
//! * [`simulated`] holds the boards that stand in for real ones (emulated, scripted and
//!   bus-line boards on pseudo-terminals) for `demo`, `emulate`, `bench` and the tests;
//! * [`cluster`] joins daemons into one event on NATS JetStream (nodes and the hub);
//! * [`services`] assembles the daemon: journal recovery, core, ports, HTTP server;
//! * [`output`] writes games out: PGN tags, `export`, the broadcast folders;
//! * [`pairings`] brings a round's pairings in (to the daemon or its journal) and its results
//!   out;
//! * [`bench`] measures daemons and the hub under load from outside (`dgt-arbiter bench`);
//! * [`verify`] and [`verify_alerts`] play seeded emulated games through the core and score
//!   the moves and alerts against what was played (`dgt-arbiter verify`);
//! * [`settings`] reads the daemon's configuration file and environment.

pub mod bench;

pub mod board_log;
pub mod cluster;
pub mod edge;
pub mod logging;
pub mod output;
pub mod pairings;
pub mod replay;
pub mod server_config;
pub mod services;
pub mod settings;
pub mod simulated;
pub mod verify;
pub mod verify_alerts;
pub mod verify_bughouse;
