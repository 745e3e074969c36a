//! The files in `systemd/`: the service unit (checked by `systemd-analyze verify` and
//! `systemd-analyze security --offline` where systemd is installed, and by what it must
//! contain everywhere), the sysusers file (`systemd-sysusers --root`), and the udev rule
//! (its lines, the DGT USB ids of `discovery.rs`, ModemManager kept away).

use std::path::{Path, PathBuf};
use std::process::Command;

use dgt_arbiter::edge::serial::discovery::DGT_USB_IDS;

fn repo_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(repo_file(name)).unwrap()
}

fn has_tool(name: &str) -> bool {
    Command::new(name).arg("--version").output().is_ok()
}

/// The active (uncommented) `Key=value` lines of a unit, with their section.
fn directives(unit: &str) -> Vec<(String, String, String)> {
    let mut section = String::new();
    let mut out = Vec::new();
    for line in unit.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s.to_string();
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("not a Key=value line: {line}"));
        out.push((section.clone(), k.trim().to_string(), v.trim().to_string()));
    }
    out
}

fn value<'a>(d: &'a [(String, String, String)], section: &str, key: &str) -> Vec<&'a str> {
    d.iter()
        .filter(|(s, k, _)| s == section && k == key)
        .map(|(_, _, v)| v.as_str())
        .collect()
}

#[test]
fn the_unit_is_a_hardened_notify_service_that_can_reach_the_boards() {
    let unit = read("systemd/dgt-arbiter.service");
    let d = directives(&unit);
    let one = |key: &str| -> String {
        let v = value(&d, "Service", key);
        assert_eq!(v.len(), 1, "[Service] {key}= should be set once: {v:?}");
        v[0].to_string()
    };
    assert_eq!(one("Type"), "notify");
    assert_eq!(one("NotifyAccess"), "main");
    assert_eq!(one("WatchdogSec"), "30s");
    assert_eq!(one("ExecStart"), "/usr/bin/dgt-arbiter run");
    assert!(["always", "on-failure"].contains(&one("Restart").as_str()));
    assert!(!one("RestartSec").is_empty());
    assert_eq!(one("RestartPreventExitStatus"), "78");
    assert_eq!(one("User"), "dgt-arbiter");
    assert_eq!(one("SupplementaryGroups"), "dialout");
    assert_eq!(one("StateDirectory"), "dgt-arbiter");
    assert_eq!(one("NoNewPrivileges"), "yes");
    assert_eq!(one("ProtectSystem"), "strict");
    assert_eq!(one("ProtectHome"), "yes");
    assert_eq!(one("PrivateTmp"), "yes");
    assert_eq!(one("CapabilityBoundingSet"), "");
    // Serial devices must stay reachable: no private /dev, no closed device policy.
    assert!(
        value(&d, "Service", "PrivateDevices")
            .iter()
            .all(|v| *v == "no")
    );
    assert!(value(&d, "Service", "DevicePolicy").is_empty());
    // A daemon on a venue PC is exposed to foreign devices and a hostile LAN: devices,
    // memory, sockets and addresses are confined; tokens come as
    // credentials, never in Environment= (which `systemctl show` prints).
    let devices = value(&d, "Service", "DeviceAllow");
    for group in ["char-ttyACM rw", "char-ttyUSB rw"] {
        assert!(devices.contains(&group), "DeviceAllow: {devices:?}");
    }
    assert!(!one("MemoryMax").is_empty());
    assert_eq!(value(&d, "Service", "SocketBindDeny"), vec!["any"]);
    let binds = value(&d, "Service", "SocketBindAllow");
    assert!(
        binds.contains(&"tcp:1983") && binds.contains(&"tcp:1982"),
        "{binds:?}"
    );
    assert_eq!(value(&d, "Service", "IPAddressDeny"), vec!["any"]);
    assert!(one("IPAddressAllow").contains("localhost"));
    let credentials = value(&d, "Service", "LoadCredential");
    for name in ["arbiter_token", "viewer_token"] {
        assert!(
            credentials
                .iter()
                .any(|c| c.starts_with(&format!("{name}:"))),
            "LoadCredential: {credentials:?}"
        );
    }
    assert!(
        value(&d, "Service", "Environment")
            .iter()
            .all(|e| !e.contains("TOKEN")),
        "no token in Environment="
    );
    let modules = read("systemd/dgt-arbiter.modules-load");
    assert!(modules.lines().any(|l| l.trim() == "cdc_acm"));
    assert_eq!(value(&d, "Install", "WantedBy"), vec!["multi-user.target"]);
    // The address families the daemon needs: journald/notify, and the dashboard.
    let families = one("RestrictAddressFamilies");
    for f in ["AF_UNIX", "AF_INET", "AF_INET6"] {
        assert!(families.split_whitespace().any(|x| x == f), "{families}");
    }
}

/// Runs `systemd-analyze verify` on a copy of the unit whose ExecStart names `exec`;
/// returns what it said about the unit (empty when clean).
fn verify(unit_text: &str, exec: &Path) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let unit = dir.path().join("dgt-arbiter.service");
    let text = unit_text.replace("/usr/bin/dgt-arbiter", &exec.display().to_string());
    std::fs::write(&unit, text).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&unit)
        .env("SYSTEMD_LOG_COLOR", "0")
        .output()
        .expect("systemd-analyze runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut said: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains("dgt-arbiter.service"))
        .map(String::from)
        .collect();
    if !out.status.success() && said.is_empty() {
        said.push(format!("exit status {}: {stderr}", out.status));
    }
    said
}

#[test]
fn systemd_analyze_verify_accepts_the_unit() {
    if !has_tool("systemd-analyze") {
        eprintln!("note: systemd-analyze is not installed; the unit was not verified");
        return;
    }
    let unit = read("systemd/dgt-arbiter.service");
    // ExecStart must name an executable: use the binary this build made.
    let exe = Path::new(env!("CARGO_BIN_EXE_dgt-arbiter"));
    let said = verify(&unit, exe);
    assert!(
        said.is_empty(),
        "systemd-analyze verify:\n{}",
        said.join("\n")
    );

    // The check is meaningful: a misspelt key and a missing binary are reported.
    let broken = unit.replace("ProtectHome=yes", "ProtectHome=yes\nProtectHomes=yes");
    assert!(
        !verify(&broken, exe).is_empty(),
        "a misspelt key must be reported"
    );
    assert!(
        !verify(&unit, Path::new("/nonexistent/dgt-arbiter")).is_empty(),
        "a missing binary must be reported"
    );
}

#[test]
fn systemd_analyze_security_rates_the_unit_well_hardened() {
    if !has_tool("systemd-analyze") {
        eprintln!("note: systemd-analyze is not installed; the hardening was not rated");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let unit = dir.path().join("dgt-arbiter.service");
    std::fs::write(&unit, read("systemd/dgt-arbiter.service")).unwrap();
    let out = Command::new("systemd-analyze")
        .args(["security", "--offline=true", "--threshold=25", "--no-pager"])
        .arg(&unit)
        .env("SYSTEMD_LOG_COLOR", "0")
        .output()
        .expect("systemd-analyze runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("Unknown option") || stderr.contains("unrecognized option") {
        eprintln!("note: this systemd-analyze has no offline security rating: {stderr}");
        return;
    }
    // Exposure is rated 0–10 (0.1 steps); the threshold is in tenths: at most 2.5.
    assert!(
        out.status.success(),
        "exposure above 2.5:\n{}\n{stderr}",
        text.lines().rev().take(3).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn sysusers_creates_the_user_in_dialout() {
    let text = read("systemd/dgt-arbiter.sysusers");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    assert!(lines.iter().any(|l| l.starts_with("u dgt-arbiter ")));
    assert!(lines.contains(&"m dgt-arbiter dialout"));
    if !has_tool("systemd-sysusers") {
        eprintln!("note: systemd-sysusers is not installed; the file was not applied");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("etc")).unwrap();
    let out = Command::new("systemd-sysusers")
        .arg(format!("--root={}", root.path().display()))
        .arg(repo_file("systemd/dgt-arbiter.sysusers"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && (stderr.contains("ermission") || stderr.contains("not permitted")) {
        eprintln!("note: systemd-sysusers needs privileges here: {stderr}");
        return;
    }
    assert!(out.status.success(), "systemd-sysusers: {stderr}");
    let passwd = std::fs::read_to_string(root.path().join("etc/passwd")).unwrap();
    let group = std::fs::read_to_string(root.path().join("etc/group")).unwrap();
    assert!(
        passwd.lines().any(|l| l.starts_with("dgt-arbiter:")),
        "{passwd}"
    );
    let dialout = group
        .lines()
        .find(|l| l.starts_with("dialout:"))
        .unwrap_or_else(|| panic!("{group}"));
    assert!(dialout.ends_with(":dgt-arbiter"), "{dialout}");
}

/// One udev rule line as (key, operator, value) triples.
fn udev_tokens(line: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let op_at = rest
            .find(['=', '!', '+', ':'])
            .unwrap_or_else(|| panic!("no operator in {rest:?} of {line}"));
        let key = rest[..op_at].trim().to_string();
        let after = &rest[op_at..];
        let op = ["==", "!=", "+=", "-=", ":=", "="]
            .into_iter()
            .find(|o| after.starts_with(o))
            .unwrap_or_else(|| panic!("bad operator in {after:?} of {line}"));
        let after = after[op.len()..]
            .strip_prefix('"')
            .unwrap_or_else(|| panic!("value not quoted in {line}"));
        let end = after
            .find('"')
            .unwrap_or_else(|| panic!("unterminated value in {line}"));
        out.push((key, op.to_string(), after[..end].to_string()));
        rest = after[end + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    out
}

#[test]
fn the_udev_rule_covers_every_dgt_id_and_keeps_modemmanager_away() {
    let text = read("systemd/70-dgt-arbiter.rules");
    let known_keys = [
        "ACTION",
        "SUBSYSTEM",
        "KERNEL",
        "GOTO",
        "LABEL",
        "GROUP",
        "MODE",
        "SYMLINK",
    ];
    let mut covered = Vec::new();
    let mut gotos = Vec::new();
    let mut labels = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        assert!(!line.ends_with('\\'), "one rule per line: {line}");
        let tokens = udev_tokens(line);
        for (k, _, v) in &tokens {
            let base = k.split('{').next().unwrap();
            assert!(
                known_keys.contains(&base) || ["ATTRS", "ENV"].contains(&base),
                "unexpected key {k} in {line}"
            );
            match base {
                "GOTO" => gotos.push(v.clone()),
                "LABEL" => labels.push(v.clone()),
                _ => {}
            }
        }
        let get = |key: &str| {
            tokens
                .iter()
                .find(|(k, op, _)| k == key && op == "==")
                .map(|(_, _, v)| v.clone())
        };
        if let Some(vendor) = get("ATTRS{idVendor}") {
            let product = get("ATTRS{idProduct}").expect("idProduct with idVendor");
            let id = (
                u16::from_str_radix(&vendor, 16).unwrap(),
                u16::from_str_radix(&product, 16).unwrap(),
            );
            assert!(
                DGT_USB_IDS.contains(&id),
                "{vendor}:{product} is not a DGT id"
            );
            assert_eq!(get("SUBSYSTEM").as_deref(), Some("tty"), "{line}");
            let sets = |key: &str, want: &str| {
                tokens
                    .iter()
                    .any(|(k, op, v)| k == key && op == "=" && v == want)
            };
            assert!(
                sets("ENV{ID_MM_DEVICE_IGNORE}", "1"),
                "ModemManager: {line}"
            );
            assert!(sets("GROUP", "dialout"), "group: {line}");
            assert!(sets("MODE", "0660"), "mode: {line}");
            assert!(
                tokens
                    .iter()
                    .any(|(k, op, v)| k == "SYMLINK" && op == "+=" && v.starts_with("dgt/")),
                "stable name: {line}"
            );
            covered.push(id);
        }
    }
    for id in DGT_USB_IDS {
        assert!(
            covered.contains(&id),
            "no rule for {:04x}:{:04x}",
            id.0,
            id.1
        );
    }
    for g in &gotos {
        assert!(labels.contains(g), "GOTO {g} without its LABEL");
    }
    // udevadm verify (systemd 254 and later) checks the syntax too, where it exists.
    match Command::new("udevadm")
        .arg("verify")
        .arg(repo_file("systemd/70-dgt-arbiter.rules"))
        .output()
    {
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            if stderr.to_lowercase().contains("unknown command") {
                eprintln!("note: this udevadm has no `verify` (systemd < 254): {stderr}");
            } else {
                assert!(out.status.success(), "udevadm verify: {stderr}");
            }
        }
        Err(_) => {
            eprintln!("note: udevadm is not installed; the rule was checked by this test only")
        }
    }
}
