//! Agreement of the dead-position analysis with chasolver's labelled sets, which ship inside
//! the crate package (found through `cargo metadata`). `positions.txt` (3,414 positions) runs
//! whole; `lichess.txt` (65,536) runs on a sample here and whole with `--ignored`.

use std::path::PathBuf;
use std::process::Command;

use dgt_core::dead::check_labelled_parallel as check_labelled;

fn chasolver_tests() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "chasolver")
        .expect("chasolver is a dependency")["manifest_path"]
        .as_str()
        .unwrap()
        .to_string();
    PathBuf::from(manifest).parent().unwrap().join("tests")
}

#[test]
fn agrees_with_every_community_position() {
    let text = std::fs::read_to_string(chasolver_tests().join("positions.txt")).unwrap();
    let a = check_labelled(&text);
    eprintln!("positions.txt: {a:?}");
    assert_eq!(a.positions, 3414, "{a:?}");
    assert_eq!(a.unsound, 0, "never 'cannot mate' where mate exists");
    assert_eq!(a.agree, 2 * a.positions, "{a:?}");
}

#[test]
fn agrees_with_a_sample_of_lichess_positions() {
    let text = std::fs::read_to_string(chasolver_tests().join("lichess.txt")).unwrap();
    let sample: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .step_by(32)
        .map(|l| format!("{l}\n"))
        .collect();
    let a = check_labelled(&sample);
    eprintln!("lichess.txt sample: {a:?}");
    assert_eq!(a.unsound, 0);
    assert_eq!(a.agree, 2 * a.positions, "{a:?}");
}

#[test]
#[ignore = "the whole lichess set takes minutes in a debug build; run with --ignored --release"]
fn agrees_with_every_lichess_position() {
    let text = std::fs::read_to_string(chasolver_tests().join("lichess.txt")).unwrap();
    let a = check_labelled(&text);
    eprintln!("lichess.txt: {a:?}");
    assert_eq!(a.positions, 65536);
    assert_eq!(a.unsound, 0);
    assert_eq!(a.agree, 2 * a.positions, "{a:?}");
}
