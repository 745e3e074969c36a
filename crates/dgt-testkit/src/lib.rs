//! What the tests of the workspace share, in one dev-dependency:
//!
//! * [`http`]: the HTTP client (ureq), blocking and, for tokio tests, awaitable;
//! * [`ws`]: the WebSocket client (tokio-tungstenite) reading JSON messages;
//! * [`cdp`]: a driver for headless Chromium over the DevTools protocol;
//! * [`files`]: what a program wrote into a folder, read back;
//! * [`fixtures`]: the repository's test files (the real captures);
//! * [`skip_note`]: what a test does when a program it drives is not installed.
//!
//! It depends on no crate of the workspace, so that every crate, the core included, may use
//! it in its tests without a circle. Harnesses built on a crate's own types stay with that
//! crate: the core's scripted board and the daemon's serial `Harness` in their `tests/common`,
//! the serial edge's virtual-time `LinkSim` and `BusSim` in `dgt_arbiter::test_support`
//! behind its `test-support` feature (docs/architecture.md, "Product and lab";
//! docs/decisions/serial-sim-harnesses.md).

pub mod cdp;
pub mod files;
pub mod fixtures;
pub mod http;
pub mod skip_note;
pub mod ws;
