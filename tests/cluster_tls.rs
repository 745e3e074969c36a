//! The cluster over TLS (`tls://` URLs and `tls_ca`, docs/cluster.md): a real `nats-server`
//! with a certificate signed by a venue CA made here, a node and a hub that trust that CA, and
//! a node that does not: it must not publish to a broker it cannot verify.

mod daemon_processes;
mod nats_broker;

use std::path::Path;
use std::time::Duration;

use daemon_processes::*;
use nats_broker::Broker;
use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair, SanType};

const EVENT: &str = "tls-2026";

/// A venue CA and a broker certificate for 127.0.0.1 signed by it, written under `dir`:
/// returns the CA's PEM path.
fn venue_certificates(dir: &Path) -> std::path::PathBuf {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "Venue test CA");
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let broker_key = KeyPair::generate().unwrap();
    let mut broker = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    broker
        .subject_alt_names
        .push(SanType::IpAddress("127.0.0.1".parse().unwrap()));
    let broker_cert = broker.signed_by(&broker_key, &ca_cert, &ca_key).unwrap();
    std::fs::write(dir.join("broker.pem"), broker_cert.pem()).unwrap();
    std::fs::write(dir.join("broker-key.pem"), broker_key.serialize_pem()).unwrap();
    let ca_path = dir.join("venue-ca.pem");
    std::fs::write(&ca_path, ca_cert.pem()).unwrap();
    ca_path
}

fn tls_broker(dir: &Path) -> Broker {
    let text = format!(
        "listen: 127.0.0.1:4222\njetstream {{\n  store_dir: /x\n}}\ntls {{\n  cert_file: {:?}\n  key_file: {:?}\n  timeout: 5\n}}\n",
        dir.join("broker.pem").display().to_string(),
        dir.join("broker-key.pem").display().to_string(),
    );
    Broker::start_with_config(dir, &text)
}

fn cluster_table(broker: &Broker, node: Option<&str>, ca: Option<&Path>) -> String {
    let url = broker.url().replace("nats://", "tls://");
    let mut t = format!(
        "[cluster]\nnats = \"{url}\"\nevent = \"{EVENT}\"\nheartbeat_ms = 300\noffline_after_ms = 1500\n"
    );
    if let Some(n) = node {
        t.push_str(&format!("node = \"{n}\"\n"));
    }
    if let Some(ca) = ca {
        t.push_str(&format!("tls_ca = {:?}\n", ca.display().to_string()));
    }
    t
}

fn start_node(dir: &Path, name: &str, table: String) -> (Proc, std::net::SocketAddr) {
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(&config, table).unwrap();
    let journal = dir.join(format!("{name}.sqlite"));
    start_demo(2, Some(5), &journal, Some(&config))
}

#[test]
fn nodes_and_hub_speak_tls_to_the_broker_and_an_untrusted_broker_gets_nothing() {
    if !nats_broker::nats_server_or_skip(
        "cluster_tls::nodes_and_hub_speak_tls_to_the_broker_and_an_untrusted_broker_gets_nothing",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ca = venue_certificates(dir.path());
    let broker = tls_broker(dir.path());

    let (trusting, _) = start_node(
        dir.path(),
        "hall-a",
        cluster_table(&broker, Some("hall-a"), Some(&ca)),
    );
    // Without the venue CA the broker's certificate is not trusted: the node plays on its own
    // (its journal and dashboard do not need the broker) but publishes nothing.
    let (distrusting, distrusting_addr) = start_node(
        dir.path(),
        "hall-b",
        cluster_table(&broker, Some("hall-b"), None),
    );

    let hub_config = dir.path().join("hub.toml");
    std::fs::write(
        &hub_config,
        format!(
            "listen = \"127.0.0.1:0\"\n{}",
            cluster_table(&broker, None, Some(&ca))
        ),
    )
    .unwrap();
    let mut hub = Proc::spawn(&["hub", "--config", path_str(&hub_config)]);
    let hub_addr = dashboard_addr(&hub.stderr_line("dashboard at", Duration::from_secs(30)));

    // The trusting node's events cross TLS both ways: published by the node, read by the hub.
    let seen = eventually(
        Duration::from_secs(60),
        "hall-a's moves on the hub over TLS",
        || {
            let nodes = get_json(hub_addr, "/api/nodes");
            let a = nodes
                .as_array()?
                .iter()
                .find(|n| n["node"] == "hall-a")?
                .clone();
            (a["state"] == "online" && a["last_seq"].as_u64()? > 5).then_some(a)
        },
    );
    assert_eq!(seen["gaps"], 0, "{seen}");
    let health = get_json(hub_addr, "/health");
    assert_eq!(
        health["daemon"]["hub"]["broker_connected"], true,
        "{health}"
    );

    // By then the distrusting node has tried for as long: the hub has never heard of it.
    let nodes = get_json(hub_addr, "/api/nodes");
    assert!(
        nodes
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["node"] != "hall-b"),
        "a node that cannot verify the broker reached the event: {nodes}"
    );
    // It says why on its /health, in words a technician can act on.
    let health = eventually(Duration::from_secs(20), "the TLS problem named", || {
        let h = get_json(distrusting_addr, "/health");
        (h["daemon"]["cluster"]["problem_kind"] == "tls_untrusted").then_some(h)
    });
    assert_eq!(health["status"], "degraded", "{health}");
    let why = health["daemon"]["cluster"]["problem"].as_str().unwrap();
    assert!(why.contains("tls_ca"), "{why}");
    distrusting.terminate();
    trusting.terminate();
    hub.terminate();
}
