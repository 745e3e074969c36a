//! dgt-arbiter: the daemon around the deterministic core (`dgt_core`).
//!
//! The core decides; this crate only moves bytes and events:
//! * [`replay`] feeds a capture file through the core on virtual time;
//! * [`edge`] holds the I/O: serial ports, the daemon's event loop, metrics, systemd;
//! * [`cluster`] joins daemons into one event on NATS JetStream (nodes and the hub);
//! * [`services`] assembles the daemon: journal recovery, core, ports, HTTP server;
//! * [`output`] writes games out: PGN tags, `export`, the broadcast folders;
//! * [`pairings`] brings a round's pairings in (to the daemon or its journal) and its results
//!   out;
//! * [`settings`] reads the daemon's configuration file and environment;
//! * `test_support` (feature `test-support`, tests only) drives the serial edge's machines
//!   on virtual time.
//!
//! The lab — simulated boards, `verify`, `bench` — is the `dgt-lab` crate; this library does
//! not use it (its unit tests may), the binary hosts its commands.

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
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod view_snapshots;
