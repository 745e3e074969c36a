//! `dgt-arbiter bench` (contract §6) on a tiny load: the emulated boards in the bench
//! process, the daemons (and with --nodes a nats-server and the hub) as separate processes.
//! No timing is asserted: only that the report has its fields and that every event the
//! daemons journaled reached every client.

mod nats_broker;

use std::process::Command;

use serde_json::Value;

fn bench(args: &[&str]) -> Value {
    let path = format!(
        "{}:/usr/sbin:/usr/bin",
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .arg("bench")
        .args(args)
        .env("PATH", path)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "bench failed ({}):\n{stderr}\n{stdout}",
        out.status
    );
    let last = stdout.lines().last().expect("a last line");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("last line is not JSON ({e}): {last}"))
}

fn number(report: &Value, key: &str) -> f64 {
    report[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {report}"))
}

const FIELDS: [&str; 16] = [
    "events_per_s",
    "latency_ms_p50",
    "latency_ms_p99",
    "latency_ms_max",
    "record_latency_ms_p50",
    "record_latency_ms_p99",
    "record_latency_ms_max",
    "cpu_percent",
    "bench_cpu_percent",
    "rss_mib",
    "events_lost",
    "journal_mib_per_hour",
    "journal_snapshots_mib",
    "events",
    "latency_samples",
    "seconds",
];

fn check_common(report: &Value, boards: u64, nodes: u64, clients: u64) {
    assert_eq!(report["boards"], boards);
    assert_eq!(report["nodes"], nodes);
    assert_eq!(report["clients"], clients);
    for key in FIELDS {
        assert!(number(report, key) >= 0.0, "{key} in {report}");
    }
    assert_eq!(
        report["events_lost"], 0,
        "every client got every event: {report}"
    );
    assert!(
        number(report, "events") > 0.0,
        "the boards played: {report}"
    );
    assert!(
        number(report, "latency_samples") > 0.0,
        "events were timed: {report}"
    );
    assert!(
        number(report, "latency_ms_p50") <= number(report, "latency_ms_p99")
            && number(report, "latency_ms_p99") <= number(report, "latency_ms_max"),
        "percentiles in order: {report}"
    );
    // An event is seen (previewed on a hub) no later than its numbered event arrives.
    for q in ["p50", "p99", "max"] {
        assert!(
            number(report, &format!("latency_ms_{q}"))
                <= number(report, &format!("record_latency_ms_{q}")),
            "{q}: {report}"
        );
    }
    assert!(
        number(report, "rss_mib") > 0.0,
        "the daemons' memory: {report}"
    );
}

#[test]
fn a_tiny_bench_on_one_daemon_loses_nothing() {
    let report = bench(&["--boards", "3", "--seconds", "6", "--clients", "3"]);
    check_common(&report, 3, 0, 3);
    assert!(report["hub_cpu_percent"].is_null(), "no hub: {report}");
    assert!(report["hub_rss_mib"].is_null(), "no hub: {report}");
    // The growth leaves out the snapshots taken at the stop (bounded, reported apart).
    assert!(
        number(&report, "journal_mib") >= number(&report, "journal_snapshots_mib"),
        "{report}"
    );
}

#[test]
fn a_tiny_bench_across_two_nodes_and_a_hub_loses_nothing() {
    if !nats_broker::nats_server_or_skip(
        "bench_cli::a_tiny_bench_across_two_nodes_and_a_hub_loses_nothing",
    ) {
        return;
    }
    let report = bench(&[
        "--boards",
        "4",
        "--seconds",
        "6",
        "--clients",
        "2",
        "--nodes",
        "2",
        "--publish-every-ms",
        "200",
    ]);
    check_common(&report, 4, 2, 2);
    assert_eq!(report["publish_every_ms"], 200, "{report}");
    assert!(number(&report, "stream_mib") > 0.0, "{report}");
    assert!(number(&report, "hub_cpu_percent") >= 0.0, "{report}");
    assert!(number(&report, "hub_rss_mib") > 0.0, "{report}");
}

/// A tiny day written as the daemon writes its journal (a segment per round, core and views
/// snapshots): a daemon restarted on it restores from both snapshots and shows every
/// board's game where it was (the bench fails otherwise), with and without snapshots.
#[test]
fn a_tiny_restart_history_restores_every_game_from_the_snapshots() {
    let report = bench(&[
        "--restart-history",
        "--boards",
        "3",
        "--hours",
        "0.2",
        "--round-every-s",
        "240",
        "--view-snapshot-s",
        "60",
        "--snapshot-every-s",
        "120",
    ]);
    assert_eq!(report["boards"], 3);
    assert_eq!(report["rounds"], 3, "{report}");
    assert_eq!(report["closed_segments"], 2, "{report}");
    assert_eq!(report["games_where_they_were"], 3, "{report}");
    assert!(number(&report, "views_snapshots") >= 10.0, "{report}");
    assert!(number(&report, "views_snapshot_kib") > 0.0, "{report}");
    // Restored from the snapshots: only what follows them is applied again.
    assert!(
        number(&report, "steps_after_snapshot") < number(&report, "steps") / 2.0,
        "{report}"
    );
    assert!(
        number(&report, "events_after_views_snapshot") < number(&report, "events") / 4.0,
        "{report}"
    );
    for key in [
        "journal_mib",
        "journal_mib_per_100_board_hours",
        "restart_to_health_ms",
        "restart_to_health_without_snapshot_ms",
        "full_replay_ms",
    ] {
        assert!(number(&report, key) > 0.0, "{key} in {report}");
    }
}
