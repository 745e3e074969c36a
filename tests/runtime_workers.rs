//! `runtime_workers`: the daemon runs its ports, core and clients on one runtime thread
//! unless the settings ask for more (0: one per core), says how many in `/metrics`, and
//! `check-config` refuses an absurd count with the key and the fix.

mod daemon_processes;

use std::time::Duration;

use daemon_processes::*;
use serde_json::json;

/// Starts `run` with a port that is not there and `extra` settings; returns its `dgt_runtime_workers`.
fn workers_with(extra: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let journal = temp_path(&dir, "j.sqlite");
    let config = temp_path(&dir, "dgt-arbiter.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\n{extra}\n[serial]\nscan = \"off\"\nports = [{{ path = {} }}]\n\n[journal]\npath = {}\n",
            json!(path_str(&temp_path(&dir, "ttyNONE"))),
            json!(path_str(&journal)),
        ),
    )
    .unwrap();
    let mut daemon = Proc::spawn(&["run", "--config", path_str(&config)]);
    let addr = dashboard_addr(&daemon.stderr_line("dashboard at", Duration::from_secs(20)));
    let (status, metrics) = get(addr, "/metrics");
    assert_eq!(status, 200, "{metrics}");
    daemon.terminate();
    let line = metrics
        .lines()
        .find(|l| l.starts_with("dgt_runtime_workers "))
        .unwrap_or_else(|| panic!("no dgt_runtime_workers in /metrics:\n{metrics}"));
    line["dgt_runtime_workers ".len()..].parse().unwrap()
}

#[test]
fn the_daemon_runs_on_one_runtime_thread_unless_told_otherwise() {
    assert_eq!(workers_with(""), 1, "the default");
    assert_eq!(workers_with("runtime_workers = 3"), 3);
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(
        workers_with("runtime_workers = 0"),
        cores,
        "0: one per core"
    );
}

#[test]
fn check_config_refuses_a_thread_count_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let config = temp_path(&dir, "dgt-arbiter.toml");
    std::fs::write(&config, "runtime_workers = 65\n").unwrap();
    let (ok, _, stderr) = run_to_end(&["check-config", path_str(&config)]);
    assert!(!ok, "65 threads refused: {stderr}");
    assert!(
        stderr.contains("runtime_workers") && stderr.contains("0 for one per core"),
        "the key and the fix: {stderr}"
    );
    std::fs::write(&config, "runtime_workers = 64\n").unwrap();
    let (ok, stdout, stderr) = run_to_end(&["check-config", path_str(&config)]);
    assert!(ok, "64 accepted: {stdout}{stderr}");
}
