//! Finding ports: a scan every ~2 s (the sysfs port list plus configured paths) and one port
//! task per new port. Polling beats udev here: no libudev, no udevd, testable with fake
//! lists (rust-dependencies §1, "Hot-plug on Linux"). An unplug is noticed at once by the
//! port task itself (EOF/EIO); the scan only has to notice the re-plug.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::{SerialContext, bus_line, port_task};

pub use super::ports::{DGT_USB_IDS, ExplicitPort, PortCandidate, ScanMode, UsbIds, is_dgt_usb_id};

/// A source of candidate ports. Called from a blocking thread (the sysfs scan reads files).
pub trait PortScan: Send + 'static {
    fn scan(&mut self) -> Vec<PortCandidate>;
}

/// The real machine: configured ports that exist, then the sysfs scan.
#[derive(Debug, Clone)]
pub struct SystemPorts {
    pub mode: ScanMode,
    pub explicit: Vec<ExplicitPort>,
}

impl SystemPorts {
    pub fn new(mode: ScanMode, explicit: Vec<ExplicitPort>) -> Self {
        SystemPorts { mode, explicit }
    }
}

/// Every serial port the OS lists, with USB facts where it has them. Never panics: the
/// sysfs enumeration `expect`s `/sys/class/tty` to exist (rust-dependencies §1).
pub fn list_system_ports() -> Vec<PortCandidate> {
    let ports = std::panic::catch_unwind(tokio_serial::available_ports)
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    ports
        .into_iter()
        .map(|p| PortCandidate {
            path: PathBuf::from(p.port_name),
            label: None,
            usb: match p.port_type {
                tokio_serial::SerialPortType::UsbPort(u) => Some(UsbIds {
                    vid: u.vid,
                    pid: u.pid,
                    serial_number: u.serial_number,
                    manufacturer: u.manufacturer,
                    product: u.product,
                }),
                _ => None,
            },
            bus: false,
        })
        .collect()
}

/// `/dev/ttyACM*` (CDC-ACM, how USB e-boards appear) or `/dev/ttyUSB*` (USB-serial
/// adapters, how RS-232 boards appear), protocol §1.2.
fn is_usb_serial_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("ttyACM") || n.starts_with("ttyUSB"))
}

impl PortScan for SystemPorts {
    fn scan(&mut self) -> Vec<PortCandidate> {
        let mut found: Vec<PortCandidate> = self
            .explicit
            .iter()
            .filter(|p| p.path.exists())
            .map(|p| PortCandidate {
                path: p.path.clone(),
                label: p.label.clone(),
                usb: None,
                bus: p.bus,
            })
            .collect();
        if self.mode != ScanMode::Off {
            let mut scanned: Vec<PortCandidate> = list_system_ports()
                .into_iter()
                .filter(|p| match (&p.usb, self.mode) {
                    (Some(u), ScanMode::Dgt) => u.is_dgt(),
                    (Some(u), _) => u.is_dgt() || is_usb_serial_name(&p.path),
                    (None, _) => false,
                })
                .collect();
            // Known DGT ids first: they are opened (and identified) first.
            scanned.sort_by_key(|p| (!p.usb.as_ref().is_some_and(UsbIds::is_dgt), p.path.clone()));
            found.extend(scanned);
        }
        found
    }
}

/// A port list that code changes at will: the pseudo-terminals of `demo` and the tests
/// (a re-plugged board appears on a new pty). Clones share the list.
#[derive(Debug, Clone, Default)]
pub struct PortList(Arc<Mutex<Vec<PortCandidate>>>);

impl PortList {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&self, port: PortCandidate) {
        let mut ports = self.0.lock().unwrap_or_else(|e| e.into_inner());
        ports.retain(|p| p.path != port.path);
        ports.push(port);
    }

    pub fn remove(&self, path: &Path) {
        let mut ports = self.0.lock().unwrap_or_else(|e| e.into_inner());
        ports.retain(|p| p.path != path);
    }
}

impl PortScan for PortList {
    fn scan(&mut self) -> Vec<PortCandidate> {
        let ports = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        ports.into_iter().filter(|p| p.path.exists()).collect()
    }
}

/// The discovery loop: scans, starts a port task for every port without one, and on
/// cancellation waits for all port tasks to finish.
pub async fn supervise(
    mut scan: Box<dyn PortScan>,
    context: SerialContext,
    cancel: CancellationToken,
) {
    // One task per device, keyed by the canonical path, so a by-path link and the
    // `/dev/ttyACM0` it points to are one port.
    let mut tasks: HashMap<PathBuf, JoinHandle<()>> = HashMap::new();
    let mut tick = tokio::time::interval(context.timing.scan_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = cancel.cancelled() => break,
            _ = tick.tick() => {}
        }
        tasks.retain(|_, task| !task.is_finished());
        let scanned = tokio::task::spawn_blocking(move || {
            let found: Vec<(PathBuf, PortCandidate)> = scan
                .scan()
                .into_iter()
                .map(|c| (std::fs::canonicalize(&c.path).unwrap_or(c.path.clone()), c))
                .collect();
            (scan, found)
        })
        .await;
        let found = match scanned {
            Ok((returned, found)) => {
                scan = returned;
                found
            }
            Err(e) => {
                tracing::error!("port scan failed: {e}; serial discovery stops");
                break;
            }
        };
        let mut seen = HashSet::new();
        for (key, candidate) in found {
            if !seen.insert(key.clone()) || tasks.contains_key(&key) {
                continue;
            }
            tracing::info!(port = %candidate.path.display(), bus = candidate.bus, "new serial port");
            let task = if candidate.bus {
                tokio::spawn(bus_line::run(
                    candidate,
                    context.clone(),
                    cancel.child_token(),
                ))
            } else {
                tokio::spawn(port_task::run(
                    candidate,
                    context.clone(),
                    cancel.child_token(),
                ))
            };
            tasks.insert(key, task);
        }
    }
    for (_, task) in tasks {
        let _ = task.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usb_serial_names() {
        assert!(is_usb_serial_name(Path::new("/dev/ttyACM0")));
        assert!(is_usb_serial_name(Path::new("/dev/ttyUSB3")));
        assert!(!is_usb_serial_name(Path::new("/dev/ttyS0")));
        assert!(is_dgt_usb_id(0x045b, 0x8111));
        assert!(!is_dgt_usb_id(0x0403, 0x6001));
    }

    #[test]
    fn explicit_ports_appear_only_while_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let there = dir.path().join("there");
        std::fs::write(&there, b"").unwrap();
        let mut scan = SystemPorts::new(
            ScanMode::Off,
            vec![
                ExplicitPort {
                    path: there.clone(),
                    label: Some("table-1".into()),
                    ..Default::default()
                },
                ExplicitPort {
                    path: dir.path().join("missing"),
                    ..Default::default()
                },
            ],
        );
        let found = scan.scan();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, there);
        assert_eq!(found[0].label.as_deref(), Some("table-1"));
        assert!(!found[0].bus);
    }

    #[test]
    fn a_port_is_declared_a_bus_line() {
        let dir = tempfile::tempdir().unwrap();
        let line = dir.path().join("line");
        std::fs::write(&line, b"").unwrap();
        let port: ExplicitPort = serde_json::from_value(serde_json::json!({
            "path": line,
            "bus": true,
        }))
        .unwrap();
        assert!(port.bus);
        let single: ExplicitPort =
            serde_json::from_value(serde_json::json!({"path": line})).unwrap();
        assert!(!single.bus);
        let found = SystemPorts::new(ScanMode::Off, vec![port]).scan();
        assert!(found[0].bus);
    }
}
