//! What a program under test wrote into a folder, read back for comparison.

use std::path::{Path, PathBuf};

/// Every file under `root`, in subfolders too, as (path relative to `root`, text), in path
/// order; a file that cannot be read as text fails the test, naming it.
pub fn files_under(root: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.push((path.strip_prefix(root).unwrap().to_path_buf(), text));
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_of_every_subfolder_come_with_their_text_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("round-1/board-2")).unwrap();
        std::fs::write(dir.path().join("round-1/board-2/game.pgn"), "1. e4").unwrap();
        std::fs::write(dir.path().join("games.pgn"), "").unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        assert_eq!(
            files_under(dir.path()),
            [
                (PathBuf::from("games.pgn"), String::new()),
                (
                    PathBuf::from("round-1/board-2/game.pgn"),
                    "1. e4".to_string()
                ),
            ]
        );
    }
}
