//! What a port is to the serial edge: a candidate found or configured, its USB ids, and
//! the DGT ids among them. A leaf: discovery lists these, and the port and bus-line tasks
//! run them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The USB ids of DGT boards documented in public sources (protocol §1.2): Microchip's
/// CDC-ACM id on USB e-boards, Renesas RL78 on the Smart Board.
pub const DGT_USB_IDS: [(u16, u16); 2] = [(0x04d8, 0x000a), (0x045b, 0x8111)];

pub fn is_dgt_usb_id(vid: u16, pid: u16) -> bool {
    DGT_USB_IDS.contains(&(vid, pid))
}

/// Which ports the scan offers, besides the configured ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanMode {
    /// Every USB CDC-ACM port (`/dev/ttyACM*`) and USB-serial adapter (`/dev/ttyUSB*`; old
    /// RS-232 boards sit behind those), known DGT ids first.
    #[default]
    Usb,
    /// Only ports with a known DGT VID:PID.
    Dgt,
    /// Only the configured ports.
    Off,
}

impl dgt_core::config::SettingChoices for ScanMode {
    const ALL: &'static [Self] = &[ScanMode::Usb, ScanMode::Dgt, ScanMode::Off];
}

/// A port named in the settings, opened whenever it exists:
/// `[serial] ports = [{ path = "/dev/ttyUSB0" }, { path = "/dev/ttyUSB1", bus = true }]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitPort {
    /// A device path; `/dev/serial/by-path/…` ties one USB socket to one table.
    pub path: PathBuf,
    /// The label for whatever board is plugged in here, unless its serial number is mapped.
    /// Not used on a bus line, where every board is named by its address.
    #[serde(default)]
    pub label: Option<String>,
    /// A DGT bus line: several serial boards on one RS-232 line, polled by address
    /// (protocol §2.4), instead of one board in single-board mode.
    #[serde(default)]
    pub bus: bool,
}

impl ExplicitPort {
    /// A single-board port at `path`, labelled by the board's serial number.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        ExplicitPort {
            path: path.into(),
            ..Default::default()
        }
    }
}

/// The USB facts sysfs gives about a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsbIds {
    pub vid: u16,
    pub pid: u16,
    pub serial_number: Option<String>,
    pub manufacturer: Option<String>,
    pub product: Option<String>,
}

impl UsbIds {
    pub fn is_dgt(&self) -> bool {
        is_dgt_usb_id(self.vid, self.pid)
    }
}

/// A port worth opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortCandidate {
    pub path: PathBuf,
    /// A configured label for the board on this port (see [`ExplicitPort::label`]).
    pub label: Option<String>,
    pub usb: Option<UsbIds>,
    /// A bus line (see [`ExplicitPort::bus`]): run by [`super::bus_line`], not [`super::port_task`].
    pub bus: bool,
}

impl PortCandidate {
    pub fn at(path: impl Into<PathBuf>) -> Self {
        PortCandidate {
            path: path.into(),
            label: None,
            usb: None,
            bus: false,
        }
    }

    /// A bus line of several boards at `path`.
    pub fn bus_line(path: impl Into<PathBuf>) -> Self {
        PortCandidate {
            bus: true,
            ..Self::at(path)
        }
    }
}
