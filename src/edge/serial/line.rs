//! Opening a port the way every DGT implementation does: 9600 baud, 8 data bits, no parity,
//! 1 stop bit, no flow control (protocol §1.1); DTR and RTS asserted (dgtnix and LiveChess
//! do; harmless, §1.1). Exclusive, so a stray terminal program cannot steal the board.

use std::io;
use std::path::Path;
use std::time::Duration;

use tokio_serial::{DataBits, FlowControl, Parity, SerialPort, SerialStream, StopBits};

/// The DGT line speed (protocol §1.1).
pub const BAUD_RATE: u32 = 9600;

/// Opens `path` for a board. Must be called inside a tokio runtime.
pub fn open_port(path: &Path) -> io::Result<SerialStream> {
    let name = path.to_string_lossy();
    let builder = tokio_serial::new(name, BAUD_RATE)
        .data_bits(DataBits::Eight)
        .parity(Parity::None)
        .stop_bits(StopBits::One)
        .flow_control(FlowControl::None)
        .dtr_on_open(true)
        .timeout(Duration::from_millis(100));
    let mut stream = SerialStream::open(&builder).map_err(io::Error::from)?;
    // Pseudo-terminals have no modem lines; a failure here is not a failure to open.
    let _ = stream.write_request_to_send(true);
    // Bytes that waited in the kernel from before this open belong to no session.
    let _ = stream.clear(tokio_serial::ClearBuffer::Input);
    Ok(stream)
}

/// True when an open error means the device is not there for us: unplugged, pty closed, or
/// held exclusively by another program (serialport reports EBUSY as "no device"). The port
/// task then ends and discovery tries again on its next scan.
pub fn is_gone(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::NotFound
}
