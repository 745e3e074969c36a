//! A venue PC the broker refuses to sign in (a wrong password) never reaches the event: the
//! hub hears of it from the broker's own reports, through the shipped configuration's
//! `hub-events` user, and names it on `/api/nodes` and in its log until it signs in.

mod daemon_processes;
mod nats_broker;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use daemon_processes::*;
use nats_broker::Broker;
use serde_json::Value;

/// The event id of the shipped broker configuration.
const EVENT: &str = "open-2026";

fn write(dir: &Path, name: &str, text: String) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn node_config(dir: &Path, broker: &Broker, password: &str) -> PathBuf {
    write(
        dir,
        &format!("hall-a-{password}.toml"),
        format!(
            "[cluster]\nnats = \"{}\"\nnode = \"hall-a\"\nevent = \"{EVENT}\"\n\
             heartbeat_ms = 300\noffline_after_ms = 1500\n\
             user = \"hall-a\"\npassword = \"{password}\"\n",
            broker.url()
        ),
    )
}

/// The hub as user `hub`; `listener`: with the shipped `hub-events` user too.
fn start_hub(dir: &Path, broker: &Broker, listener: bool) -> (Proc, SocketAddr) {
    let mut table = format!(
        "listen = \"127.0.0.1:0\"\n[cluster]\nnats = \"{}\"\nevent = \"{EVENT}\"\n\
         heartbeat_ms = 300\noffline_after_ms = 1500\n\
         user = \"hub\"\npassword = \"test-pw-hub\"\n",
        broker.url()
    );
    if listener {
        table.push_str(
            "broker_events_user = \"hub-events\"\nbroker_events_password = \"test-pw-hub-events\"\n",
        );
    }
    let config = write(dir, "hub.toml", table);
    start_hub_from(&config)
}

fn hall_a(hub: SocketAddr) -> Option<Value> {
    let list = get_json(hub, "/api/nodes");
    list.as_array()?
        .iter()
        .find(|n| n["node"] == "hall-a")
        .cloned()
}

#[test]
fn a_node_with_a_wrong_password_is_named_on_the_hub_until_it_signs_in() {
    if !nats_broker::nats_server_or_skip(
        "cluster_sign_in::a_node_with_a_wrong_password_is_named_on_the_hub_until_it_signs_in",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start_shipped(dir.path());
    let (mut hub, hub_addr) = start_hub(dir.path(), &broker, true);

    let wrong = node_config(dir.path(), &broker, "not-the-password");
    let journal = dir.path().join("hall-a.sqlite");
    let (node, _) = start_demo(2, Some(5), &journal, Some(&wrong));
    let entry = eventually(Duration::from_secs(20), "hall-a refused on the hub", || {
        hall_a(hub_addr).filter(|e| e["problem_kind"] == "wrong_credentials")
    });
    assert_eq!(entry["state"], "offline", "{entry}");
    assert_eq!(entry["healthy"], false, "{entry}");
    assert_eq!(entry["sign_in_refused"]["from"], "127.0.0.1", "{entry}");
    let why = entry["problem"].as_str().unwrap();
    assert!(why.contains("hall-a") && why.contains("Fix"), "{why}");
    let health = get_json(hub_addr, "/health");
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["daemon"]["hub"]["nodes_refused"], 1, "{health}");
    assert_eq!(health["daemon"]["ok"], false, "{health}");
    assert_eq!(
        health["daemon"]["hub"]["broker_events"]["listening"], true,
        "{health}"
    );
    let warning = hub.stderr_line("refused to sign hall-a in", Duration::from_secs(5));
    assert!(warning.contains("WARN"), "{warning}");
    node.terminate();

    // The right password: the node signs in, and the hub forgets the refusal.
    let right = node_config(dir.path(), &broker, "test-pw-hall-a");
    let (node, _) = start_demo(2, Some(5), &journal, Some(&right));
    let entry = eventually(Duration::from_secs(20), "hall-a online", || {
        hall_a(hub_addr).filter(|e| e["state"] == "online" && e["problem_kind"].is_null())
    });
    assert!(entry.get("sign_in_refused").is_none(), "{entry}");
    node.terminate();
    hub.terminate();
}

/// Without `broker_events_user` the hub does not hear the broker's reports (the setting is
/// what makes the difference above).
#[test]
fn without_the_broker_events_user_the_hub_cannot_hear_a_refused_node() {
    if !nats_broker::nats_server_or_skip(
        "cluster_sign_in::without_the_broker_events_user_the_hub_cannot_hear_a_refused_node",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start_shipped(dir.path());
    let (hub, hub_addr) = start_hub(dir.path(), &broker, false);
    let wrong = node_config(dir.path(), &broker, "not-the-password");
    let (mut node, addr) = start_demo(2, Some(5), &dir.path().join("a.sqlite"), Some(&wrong));
    node.stderr_line("authorization violation", Duration::from_secs(20));
    let own = get_json(addr, "/health");
    assert_eq!(
        own["daemon"]["cluster"]["problem_kind"], "wrong_credentials",
        "{own}"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(hall_a(hub_addr), None);
    let health = get_json(hub_addr, "/health");
    assert!(
        health["daemon"]["hub"]["broker_events"].is_null(),
        "{health}"
    );
    node.terminate();
    hub.terminate();
}

/// The shipped `hub-events` user reads the two advisories and nothing else: it may not
/// publish (no `$SYS.REQ.…` question to the broker) nor read other system or event subjects.
#[test]
fn the_hub_events_user_may_only_listen_to_sign_ins() {
    if !nats_broker::nats_server_or_skip(
        "cluster_sign_in::the_hub_events_user_may_only_listen_to_sign_ins",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start_shipped(dir.path());
    let answer = |commands: &str| -> String {
        let mut s = TcpStream::connect(("127.0.0.1", broker.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        write!(
            s,
            "CONNECT {{\"verbose\":false,\"user\":\"hub-events\",\"pass\":\"test-pw-hub-events\",\"protocol\":1}}\r\n{commands}PING\r\n"
        )
        .unwrap();
        let mut out = String::new();
        let mut buf = [0u8; 4096];
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end && !out.ends_with("PONG\r\n") {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => out.push_str(&String::from_utf8_lossy(&buf[..n])),
                Err(_) => {}
            }
        }
        out
    };
    let allowed = answer(&format!(
        "SUB {} 1\r\nSUB {} 2\r\n",
        "$SYS.SERVER.*.CLIENT.AUTH.ERR", "$SYS.ACCOUNT.*.CONNECT"
    ));
    assert!(
        allowed.contains("PONG") && !allowed.contains("-ERR"),
        "{allowed}"
    );
    for command in [
        "SUB $SYS.> 1\r\n",
        "SUB dgt.> 1\r\n",
        "SUB $SYS.ACCOUNT.*.DISCONNECT 1\r\n",
        "PUB $SYS.REQ.SERVER.PING 0\r\n\r\n",
        "PUB dgt.open-2026.hall-a.events 2\r\nhi\r\n",
    ] {
        let refused = answer(command);
        assert!(
            refused.contains("Permissions Violation"),
            "{command}: {refused}"
        );
    }
}

/// `check-config` takes the hub's listener settings, and refuses the shipped placeholder.
#[test]
fn check_config_takes_the_broker_events_settings() {
    let dir = tempfile::tempdir().unwrap();
    let table = |password: &str| {
        format!(
            "[cluster]\nnats = \"nats://127.0.0.1:4222\"\nnode = \"hall-a\"\nevent = \"{EVENT}\"\n\
             broker_events_user = \"hub-events\"\nbroker_events_password = \"{password}\"\n"
        )
    };
    let shipped = write(dir.path(), "shipped.toml", table("CHANGE-ME-hub-events"));
    let (ok, _, err) = run_to_end(&["check-config", path_str(&shipped)]);
    assert!(
        !ok && err.contains("cluster.broker_events_password"),
        "{err}"
    );
    let set = write(dir.path(), "set.toml", table("a-long-real-secret"));
    let (ok, _, err) = run_to_end(&["check-config", path_str(&set)]);
    assert!(ok, "{err}");
}
