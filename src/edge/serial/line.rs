//! Opening a port the way every DGT implementation does: 9600 baud, 8 data bits, no parity,
//! 1 stop bit, no flow control (protocol §1.1); DTR and RTS asserted (dgtnix and LiveChess
//! do; harmless, §1.1). Exclusive, so a stray terminal program cannot steal the board.
//! Then the byte moving both drivers (a single board's port, a bus line) share: a write
//! that must finish in time, a read that tells the end of the line, and the wait for the
//! sans-IO machine's next time-out.

use std::io;
use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
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

/// Why an open line stopped moving bytes.
#[derive(Debug, thiserror::Error)]
pub enum LineIoError {
    /// Dropping a pty master, or a USB unplug, reads as end of file (rust-dependencies §1);
    /// retrying would spin.
    #[error("end of file")]
    EndOfFile,
    #[error("read error: {0}")]
    Read(io::Error),
    #[error("write error: {0}")]
    Write(io::Error),
    #[error("write stalled")]
    WriteStalled,
}

/// Writes and flushes `bytes` within `timeout`: an adapter that stops taking bytes ends the
/// line instead of holding its driver for ever.
pub async fn write_within(
    stream: &mut SerialStream,
    bytes: &[u8],
    timeout: Duration,
) -> Result<(), LineIoError> {
    let written = tokio::time::timeout(timeout, async {
        stream.write_all(bytes).await?;
        stream.flush().await
    })
    .await;
    match written {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(LineIoError::Write(e)),
        Err(_) => Err(LineIoError::WriteStalled),
    }
}

/// Reads what the line has into `buf`: `Ok(None)` when a signal interrupted the read (read
/// again), an error at the end of the line.
pub async fn read_some(
    stream: &mut SerialStream,
    buf: &mut [u8],
) -> Result<Option<usize>, LineIoError> {
    match stream.read(buf).await {
        Ok(0) => Err(LineIoError::EndOfFile),
        Ok(n) => Ok(Some(n)),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(None),
        Err(e) => Err(LineIoError::Read(e)),
    }
}

/// Sleeps until `wake`, or for ever without one: the drivers wait for their sans-IO
/// machine's next time-out this way.
pub async fn sleep_until(wake: Option<tokio::time::Instant>) {
    match wake {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
