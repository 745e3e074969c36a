//! The event through the faults a venue meets, with real `nats-server` processes on loopback:
//! a silent partition between the hub and the broker (a connection that stays open while
//! nothing crosses it — a hung switch, played by a proxy the test pauses), three brokers
//! with the stream's leader killed mid-event, a stream whose configuration an admin changes
//! mid-event, a broker replaced with its store lost while no hub runs, a hub started
//! before the broker's JetStream answers, and the backlog of an outage.

mod daemon_processes;
mod nats_broker;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use daemon_processes::*;
use nats_broker::{Broker, free_port};
use serde_json::Value;

const EVENT: &str = "faults-2026";

fn cluster_table(urls: &[String], node: Option<&str>, replicas: usize) -> String {
    let list: Vec<String> = urls.iter().map(|u| format!("{u:?}")).collect();
    let mut t = format!(
        "[cluster]\nnats = [{}]\nevent = \"{EVENT}\"\nheartbeat_ms = 300\noffline_after_ms = 1500\n",
        list.join(", ")
    );
    if replicas != 1 {
        t.push_str(&format!("replicas = {replicas}\n"));
    }
    if let Some(n) = node {
        t.push_str(&format!("node = \"{n}\"\n"));
    }
    t
}

fn start_node(
    dir: &Path,
    urls: &[String],
    name: &str,
    replicas: usize,
) -> (Proc, SocketAddr, PathBuf) {
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(&config, cluster_table(urls, Some(name), replicas)).unwrap();
    let journal = dir.join(format!("{name}.sqlite"));
    let (proc, addr) = start_demo(2, Some(17), &journal, Some(&config));
    (proc, addr, journal)
}

fn start_hub(dir: &Path, urls: &[String], name: &str, replicas: usize) -> (Proc, SocketAddr) {
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\n{}",
            cluster_table(urls, None, replicas)
        ),
    )
    .unwrap();
    start_hub_from(&config)
}

fn node_entry(hub: SocketAddr, node: &str) -> Option<Value> {
    let list = get_json(hub, "/api/nodes");
    list.as_array()?.iter().find(|n| n["node"] == node).cloned()
}

fn journal_seqs(path: &Path) -> Vec<u64> {
    let j = dgt_journal::Journal::open_read_only(path).unwrap();
    j.events_since(0)
        .unwrap()
        .iter()
        .map(|s| {
            serde_json::from_str::<Value>(s).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

/// Every event on the hub as (seq, node, node_seq), from its `/ws` resumed at 0.
fn hub_numbering(hub: SocketAddr) -> Vec<(u64, Value, Value)> {
    let url = format!("ws://{hub}/ws?since=0");
    dgt_testkit::ws::read_until_quiet(&url, Duration::from_millis(800), Duration::from_secs(60))
        .into_iter()
        .filter_map(|v| Some((v["seq"].as_u64()?, v["node"].clone(), v["node_seq"].clone())))
        .collect()
}

/// The node seqs of `node`'s events on the hub, from its `/ws` resumed at 0.
fn hub_node_seqs(hub: SocketAddr, node: &str) -> Vec<u64> {
    hub_numbering(hub)
        .into_iter()
        .filter(|(_, n, _)| *n == node)
        .filter_map(|(_, _, s)| s.as_u64())
        .collect()
}

/// The node stops; the hub ends with every event of its journal, once and in order.
fn hub_has_the_whole_journal(hub: SocketAddr, node: &str, journal: &Path) {
    let want = journal_seqs(journal);
    let last = *want.last().expect("the node journaled events");
    eventually(Duration::from_secs(60), "the hub caught up", || {
        (node_entry(hub, node)?["last_seq"].as_u64()? == last).then_some(())
    });
    assert_eq!(
        hub_node_seqs(hub, node),
        want,
        "{node}: the hub's events are not the journal's"
    );
    let n = node_entry(hub, node).unwrap();
    assert_eq!(n["gaps"], 0, "{n}");
}

/// A TCP proxy that can be paused: the connections stay open, nothing crosses them.
struct Proxy {
    port: u16,
    paused: Arc<AtomicBool>,
}

impl Proxy {
    fn start(to: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let paused = Arc::new(AtomicBool::new(false));
        let p = paused.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(("127.0.0.1", to)) else {
                    continue;
                };
                for (from, into) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    let p = p.clone();
                    std::thread::spawn(move || pump(from, into, &p));
                }
            }
        });
        Proxy { port, paused }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    fn pause(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
    }
}

fn pump(mut from: TcpStream, mut into: TcpStream, paused: &AtomicBool) {
    from.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let mut buf = [0u8; 16 * 1024];
    loop {
        if paused.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        match from.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if into.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return,
        }
    }
}

/// The hub's own alerts of `kind` on its `/health` (they take no seq).
fn local_alerts(health: &Value, kind: &str) -> Vec<Value> {
    health["daemon"]["hub"]["alerts"]
        .as_array()
        .map(|l| l.iter().filter(|a| a["kind"] == kind).cloned().collect())
        .unwrap_or_default()
}

fn node_offline_alerts(hub: SocketAddr) -> Vec<Value> {
    get_json(hub, "/api/alerts")
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "node_offline")
        .cloned()
        .collect()
}

/// A hub behind a hung switch says within seconds that its view stopped, judges no node
/// while cut off, and after the heal neither it nor a hub that never lost the broker tells
/// the arbiter a PC went offline.
#[test]
fn a_silent_partition_is_told_and_raises_no_false_node_offline() {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let proxy = Proxy::start(broker.port);
    let direct = vec![broker.url()];
    let (node, _, journal) = start_node(dir.path(), &direct, "hall-a", 1);
    let (cut, cut_addr) = start_hub(dir.path(), &[proxy.url()], "hub-cut", 1);
    let (steady, steady_addr) = start_hub(dir.path(), &direct, "hub-steady", 1);
    for hub in [cut_addr, steady_addr] {
        eventually(
            Duration::from_secs(60),
            "hall-a online on both hubs",
            || {
                let n = node_entry(hub, "hall-a")?;
                (n["state"] == "online" && n["last_seq"].as_u64()? > 5).then_some(())
            },
        );
    }
    proxy.pause(true);
    let health = eventually(Duration::from_secs(10), "the cut hub says so", || {
        let h = get_json(cut_addr, "/health");
        (h["status"] == "degraded" && h["daemon"]["notice"].is_string()).then_some(h)
    });
    let notice = health["daemon"]["notice"].as_str().unwrap();
    assert!(notice.contains("broker"), "{notice}");
    // The hub's own alert: raised once, with no seq (two hubs number the event alike).
    let stalled = eventually(Duration::from_secs(5), "hub_view_stalled raised", || {
        let h = get_json(cut_addr, "/health");
        local_alerts(&h, "hub_view_stalled")
            .into_iter()
            .find(|a| a["cleared_unix_ms"].is_null())
    });
    assert!(stalled.get("seq").is_none(), "{stalled}");
    assert!(
        stalled["message"].as_str().unwrap().contains("broker"),
        "{stalled}"
    );
    std::thread::sleep(Duration::from_secs(12));
    proxy.pause(false);
    let healed = eventually(Duration::from_secs(30), "the cut hub follows again", || {
        let h = get_json(cut_addr, "/health");
        (h["status"] == "ok").then_some(h)
    });
    let after = local_alerts(&healed, "hub_view_stalled");
    assert_eq!(after.len(), 1, "one stall, one alert: {after:?}");
    assert!(after[0]["cleared_unix_ms"].as_u64().is_some(), "{after:?}");
    assert!(
        local_alerts(&get_json(steady_addr, "/health"), "hub_view_stalled").is_empty(),
        "the hub that kept the broker raised its own stall"
    );
    std::thread::sleep(Duration::from_secs(3));
    for hub in [cut_addr, steady_addr] {
        assert_eq!(
            node_offline_alerts(hub),
            Vec::<Value>::new(),
            "a false node_offline"
        );
        assert_eq!(node_entry(hub, "hall-a").unwrap()["state"], "online");
    }
    node.terminate();
    hub_has_the_whole_journal(cut_addr, "hall-a", &journal);
    hub_has_the_whole_journal(steady_addr, "hall-a", &journal);
    for hub in [cut_addr, steady_addr] {
        eventually(Duration::from_secs(20), "hall-a offline on both", || {
            (node_entry(hub, "hall-a")?["state"] == "offline").then_some(())
        });
    }
    // The cut hub's own alert took no number: both hubs number every event alike.
    let numbering = hub_numbering(cut_addr);
    assert!(numbering.len() > 5);
    assert_eq!(numbering, hub_numbering(steady_addr));
    cut.terminate();
    steady.terminate();
}

/// Three brokers, the stream on all three (`replicas = 3`): the broker leading the stream is
/// killed mid-event, and the hub still ends with every event of the node, none skipped.
#[test]
fn three_brokers_lose_their_leader_and_the_hub_skips_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let routes: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let mut brokers: Vec<Broker> = (0..3)
        .map(|i| {
            let sub = dir.path().join(format!("b{i}"));
            std::fs::create_dir_all(&sub).unwrap();
            let others: Vec<String> = (0..3)
                .filter(|j| *j != i)
                .map(|j| format!("nats-route://127.0.0.1:{}", routes[j]))
                .collect();
            let text = format!(
                "listen: 127.0.0.1:4222\nserver_name: b{i}\njetstream {{\n  store_dir: /x\n}}\n\
                 cluster {{\n  name: faults\n  listen = 127.0.0.1:{}\n  routes: [{}]\n}}\n",
                routes[i],
                others.join(", ")
            );
            Broker::start_with_config(&sub, &text)
        })
        .collect();
    let urls: Vec<String> = brokers.iter().map(Broker::url).collect();
    // The cluster elects its JetStream leader first.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = async_nats::connect(urls[0].as_str()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        for _ in 0..120 {
            let ready = async_nats::jetstream::stream::Config {
                name: "READY".into(),
                num_replicas: 3,
                ..Default::default()
            };
            if js.create_stream(ready).await.is_ok() {
                js.delete_stream("READY").await.unwrap();
                return;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        let log =
            std::fs::read_to_string(dir.path().join("b0/nats-server.log")).unwrap_or_default();
        panic!("the three brokers did not form a JetStream cluster:\n{log}");
    });
    let (hub, hub_addr) = start_hub(dir.path(), &urls, "hub", 3);
    let (node, _, journal) = start_node(dir.path(), &urls, "hall-a", 3);
    eventually(Duration::from_secs(60), "hall-a on the hub", || {
        (node_entry(hub_addr, "hall-a")?["last_seq"].as_u64()? > 20).then_some(())
    });
    let leader = rt.block_on(async {
        let client = async_nats::connect(urls[0].as_str()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        let mut s = js.get_stream(format!("DGT_{EVENT}")).await.unwrap();
        let info = s.info().await.unwrap();
        assert_eq!(info.config.num_replicas, 3);
        info.cluster
            .as_ref()
            .and_then(|c| c.leader.clone())
            .unwrap()
    });
    let i: usize = leader.trim_start_matches('b').parse().unwrap();
    brokers[i].kill();
    let before = node_entry(hub_addr, "hall-a").unwrap()["last_seq"]
        .as_u64()
        .unwrap();
    eventually(Duration::from_secs(60), "the event goes on", || {
        (node_entry(hub_addr, "hall-a")?["last_seq"].as_u64()? > before + 20).then_some(())
    });
    node.terminate();
    hub_has_the_whole_journal(hub_addr, "hall-a", &journal);
    let health = get_json(hub_addr, "/health");
    assert_eq!(health["daemon"]["hub"]["reader_missing"], 0, "{health}");
    hub.terminate();
}

/// Sets an age limit on the event's stream (or takes it off) as the broker's admin would,
/// mid-event. (Rollups cannot be turned on while purges are denied, and a stream's denial of
/// deletes and purges cannot be lifted: the limits are what an admin can still change.)
fn limit_age(url: &str, limit: Duration) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = async_nats::connect(url).await.unwrap();
        let js = async_nats::jetstream::new(client);
        let mut s = js.get_stream(format!("DGT_{EVENT}")).await.unwrap();
        let mut config = s.info().await.unwrap().config.clone();
        config.max_age = limit;
        js.update_stream(&config).await.unwrap();
    });
}

/// Someone with the admin user gives the stream an age limit mid-event (it would drop the
/// event's oldest records): within seconds every node stops publishing and says why on its `/health`,
/// the hub alarms with the reason; once it is put back, both go on and nothing is lost.
#[test]
fn a_stream_changed_mid_event_is_refused_by_nodes_and_alarmed_by_the_hub() {
    if !nats_broker::nats_server_or_skip("a_stream_changed_mid_event") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start(dir.path());
    let urls = vec![broker.url()];
    let (hub, hub_addr) = start_hub(dir.path(), &urls, "hub", 1);
    let (node, node_addr, journal) = start_node(dir.path(), &urls, "hall-a", 1);
    eventually(Duration::from_secs(60), "hall-a on the hub", || {
        (node_entry(hub_addr, "hall-a")?["last_seq"].as_u64()? > 5).then_some(())
    });
    limit_age(&broker.url(), Duration::from_secs(86_400));
    let node_health = eventually(Duration::from_secs(15), "the node refuses", || {
        let h = get_json(node_addr, "/health");
        (h["daemon"]["cluster"]["problem_kind"] == "refused").then_some(h)
    });
    let why = node_health["daemon"]["cluster"]["problem"]
        .as_str()
        .unwrap();
    assert!(why.contains("older than 86400 s"), "{why}");
    // The node still heartbeats: the hub's /api/nodes names its problem too.
    let entry = eventually(Duration::from_secs(10), "the problem on /api/nodes", || {
        let n = node_entry(hub_addr, "hall-a")?;
        (n["problem_kind"] == "refused").then_some(n)
    });
    assert_eq!(entry["healthy"], false, "{entry}");
    assert!(
        entry["problem"]
            .as_str()
            .unwrap()
            .contains("older than 86400 s"),
        "{entry}"
    );
    let hub_health = eventually(Duration::from_secs(10), "the hub alarms", || {
        let h = get_json(hub_addr, "/health");
        (h["daemon"]["hub"]["problem_kind"] == "refused").then_some(h)
    });
    assert_eq!(hub_health["status"], "degraded", "{hub_health}");
    let alert = &local_alerts(&hub_health, "stream_config_changed")[0];
    assert!(alert["cleared_unix_ms"].is_null(), "{alert}");
    assert!(
        alert["message"]
            .as_str()
            .unwrap()
            .contains("older than 86400 s"),
        "{alert}"
    );
    let notice = hub_health["daemon"]["notice"].as_str().unwrap();
    assert!(notice.contains("nats stream edit"), "{notice}");
    // Refused: nothing more of the node's is stored while it lasts.
    let held = node_health["daemon"]["cluster"]["published_step"].clone();
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        get_json(node_addr, "/health")["daemon"]["cluster"]["published_step"],
        held
    );
    limit_age(&broker.url(), Duration::ZERO);
    eventually(Duration::from_secs(15), "both go on", || {
        let n = get_json(node_addr, "/health");
        let h = get_json(hub_addr, "/health");
        (n["daemon"]["cluster"]["problem"].is_null()
            && local_alerts(&h, "stream_config_changed")[0]["cleared_unix_ms"].is_u64())
        .then_some(())
    });
    node.terminate();
    hub_has_the_whole_journal(hub_addr, "hall-a", &journal);
    hub.terminate();
}

/// The broker PC and the hub on it are replaced together (the store lost, no hub running
/// through it): a hub started after that cannot number events as the lost one did, and says
/// so — the node tells it that it had published into an earlier stream of the event.
#[test]
fn a_hub_after_a_store_loss_no_hub_ran_through_says_its_numbering_differs() {
    let dir = tempfile::tempdir().unwrap();
    let mut broker = Broker::start(dir.path());
    let urls = vec![broker.url()];
    let (hub, hub_addr) = start_hub(dir.path(), &urls, "hub", 1);
    let (node, _, journal) = start_node(dir.path(), &urls, "hall-a", 1);
    eventually(Duration::from_secs(60), "hall-a on the hub", || {
        (node_entry(hub_addr, "hall-a")?["last_seq"].as_u64()? > 5).then_some(())
    });
    let mut seen = journal.clone().into_os_string();
    seen.push(".stream");
    eventually(
        Duration::from_secs(20),
        "the node's record of its stream",
        || PathBuf::from(&seen).is_file().then_some(()),
    );
    let h = get_json(hub_addr, "/health");
    assert_eq!(h["daemon"]["hub"]["numbering_differs"], false, "{h}");
    hub.terminate();
    broker.kill();
    std::fs::remove_dir_all(broker.store()).unwrap();
    broker.restart();
    let (second, second_addr) = start_hub(dir.path(), &urls, "hub-2", 1);
    let health = eventually(Duration::from_secs(60), "the numbering told", || {
        let h = get_json(second_addr, "/health");
        (h["daemon"]["hub"]["numbering_differs"] == true).then_some(h)
    });
    let notice = health["daemon"]["notice"].as_str().unwrap();
    assert!(
        notice.contains("hall-a had published into an earlier"),
        "{notice}"
    );
    node.terminate();
    hub_has_the_whole_journal(second_addr, "hall-a", &journal);
    second.terminate();
}

/// Expectation: the venue PC boots the broker and the hub together; a hub that connects
/// before the broker's JetStream answers asks again about the event's stream instead of
/// exiting, and serves once the broker does.
#[test]
fn a_hub_started_before_the_brokers_jetstream_answers_waits_for_it() {
    if !nats_broker::nats_server_or_skip(
        "a_hub_started_before_the_brokers_jetstream_answers_waits_for_it",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut broker = Broker::start_without_jetstream(dir.path());
    let urls = vec![broker.url()];
    let late = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(4));
        broker.kill();
        broker.restart();
        broker
    });
    let (hub, addr) = start_hub(dir.path(), &urls, "hub", 1);
    let _broker = late.join().unwrap();
    eventually(Duration::from_secs(15), "the hub serves, healthy", || {
        (get_json(addr, "/health")["status"] == "ok").then_some(())
    });
    let log = hub.terminate_for_stderr();
    assert!(
        log.iter().any(|l| l.contains("asking again")),
        "the hub said it waited for the broker: {log:?}"
    );
}

/// A node that gathers ten seconds per message still sends a backlog at once: after an
/// outage its journal goes out in full messages one after the other, not one per window
/// (a store lost with a day's journal to publish again would otherwise take hours).
#[test]
fn a_backlog_after_an_outage_is_sent_without_waiting_out_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let mut broker = Broker::start(dir.path());
    let urls = vec![broker.url()];
    let config = dir.path().join("hall-a.toml");
    let table = cluster_table(&urls, Some("hall-a"), 1);
    std::fs::write(
        &config,
        format!("{table}publish_every_ms = 10000\nbatch_events = 4\n"),
    )
    .unwrap();
    let journal = dir.path().join("hall-a.sqlite");
    let (node, _) = start_demo(2, Some(17), &journal, Some(&config));
    let (hub, hub_addr) = start_hub(dir.path(), &urls, "hub", 1);
    eventually(Duration::from_secs(30), "hall-a on the hub", || {
        node_entry(hub_addr, "hall-a")?["last_seq"].as_u64()
    });
    broker.kill();
    std::thread::sleep(Duration::from_secs(8));
    let journaled = *journal_seqs(&journal).last().unwrap();
    broker.restart();
    let back = Instant::now();
    eventually(
        Duration::from_secs(90),
        "the outage's backlog on the hub",
        || {
            let seq = node_entry(hub_addr, "hall-a")?["last_seq"].as_u64()?;
            (seq >= journaled).then_some(())
        },
    );
    // The backlog is several full messages of 4 events: a window each would take a minute.
    let took = back.elapsed();
    assert!(took < Duration::from_secs(30), "the backlog took {took:?}");
    node.terminate();
    hub_has_the_whole_journal(hub_addr, "hall-a", &journal);
    hub.terminate();
}
