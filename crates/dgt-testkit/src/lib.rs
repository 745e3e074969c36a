//! What the tests of the workspace share, in one dev-dependency:
//!
//! * [`http`]: the HTTP client (ureq), blocking and, for tokio tests, awaitable;
//! * [`ws`]: the WebSocket client (tokio-tungstenite) reading JSON messages;
//! * [`cdp`]: a driver for headless Chromium over the DevTools protocol;
//! * [`fixtures`]: the repository's test files (the real captures);
//! * [`skip_note`]: what a test does when a program it drives is not installed.
//!
//! It depends on no crate of the workspace, so that every crate, the core included, may use
//! it in its tests without a circle. Harnesses built on a crate's own types (the core's
//! scripted board, the daemon's serial `Harness` and virtual-time `Sim`s) stay in that
//! crate's tests (docs/architecture.md, "Product and lab").

pub mod cdp;
pub mod fixtures;
pub mod http;
pub mod skip_note;
pub mod ws;
