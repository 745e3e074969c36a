//! The files of a segmented journal: the rule that starts a new segment, the manifest
//! (`<stem>.segments.json`) listing the closed segments with their ranges, and the names and
//! dates they are filed under. What closes and reads segments is in [`crate::segments`].

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::error::JournalError;

/// When the journal starts a new segment (`journal.segment`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SegmentRule {
    /// A new segment when a new round's pairings are posted.
    #[default]
    Round,
    /// A new segment at the first step of each day (UTC).
    Day,
    /// One file for the whole event (as before segments).
    Off,
}

/// A closed segment as the manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentEntry {
    /// The file's name, in the open segment's directory.
    pub file: String,
    /// `r3` (a round) or `2026-11-27` (a day); `r0` before any pairings.
    pub label: String,
    pub first_step: u64,
    pub last_step: u64,
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    pub first_t_ms: u64,
    pub last_t_ms: u64,
    pub steps: u64,
    pub dropped_batches: u64,
    /// The file's size and modification time when it was closed and checked.
    pub size_bytes: u64,
    pub mtime_ms: u64,
    /// What the check at closing said (`quick_check: ok`) and when (Unix seconds).
    pub checked: String,
    pub checked_at_s: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Manifest {
    /// The open segment's label, once a round or day gave it one.
    pub(crate) open_label: Option<String>,
    pub(crate) closed: Vec<SegmentEntry>,
}

/// A closed segment as a reader finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedSegment {
    pub path: PathBuf,
    pub entry: SegmentEntry,
    /// `ready`, `missing` (not at its place: archived?) or `damaged: <detail>`.
    pub state: String,
}

/// The sibling of the open segment named `<stem><suffix>`.
pub(crate) fn sibling(open: &Path, suffix: &str) -> PathBuf {
    let stem = open
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "journal".into());
    open.with_file_name(format!("{stem}{suffix}"))
}

/// The manifest listing the closed segments of the journal whose open segment is `open`.
pub fn manifest_path(open: &Path) -> PathBuf {
    sibling(open, ".segments.json")
}

pub(crate) fn extension(open: &Path) -> String {
    open.extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default()
}

pub(crate) fn mtime_ms(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as u64)
}

pub(crate) fn unix_s() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The UTC date of a Unix time, `YYYY-MM-DD` (H. Hinnant's civil-from-days).
pub fn day_label(unix_s: u64) -> String {
    let z = (unix_s / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

pub(crate) fn io_error(path: &Path, e: std::io::Error) -> JournalError {
    JournalError::CannotOpen {
        path: path.to_path_buf(),
        detail: e.to_string(),
    }
}

/// Writes the manifest whole or not at all (a new file, synced, renamed over the old one).
pub(crate) fn write_manifest(path: &Path, manifest: &Manifest) -> Result<(), JournalError> {
    use std::io::Write;
    let tmp = sibling(path, ".tmp");
    let text = serde_json::to_vec_pretty(manifest).map_err(|e| JournalError::BadRow {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })?;
    let mut f = std::fs::File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
    f.write_all(&text).map_err(|e| io_error(&tmp, e))?;
    f.sync_all().map_err(|e| io_error(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, e))?;
    sync_dir(path);
    Ok(())
}

/// Makes a rename in `path`'s directory durable.
pub(crate) fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
}

pub(crate) fn read_manifest(path: &Path) -> Result<Manifest, JournalError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| JournalError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("the segment manifest cannot be read: {e}"),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Manifest::default()),
        Err(e) => Err(io_error(path, e)),
    }
}
