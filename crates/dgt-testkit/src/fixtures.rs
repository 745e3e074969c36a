//! The repository's test files, found from any crate of the workspace.

use std::path::PathBuf;

/// The workspace's root folder.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The repository's test captures (`tests/captures` at the workspace root), where the real
/// DGT recording lives with its origin and licence.
pub fn captures() -> PathBuf {
    workspace_root().join("tests/captures")
}

/// A capture file's text (`name` inside [`captures`]).
pub fn capture_text(name: &str) -> String {
    let path = captures().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The real blitz game's recording (`real-blitz-game-1.jsonl`), the capture's text.
pub fn real_game_capture() -> String {
    capture_text("real-blitz-game-1.jsonl")
}

/// The moves of the real blitz game as played (UCI), from `real-blitz-game-1.moves`.
pub fn real_game_moves() -> Vec<String> {
    capture_text("real-blitz-game-1.moves")
        .split_whitespace()
        .map(String::from)
        .collect()
}
