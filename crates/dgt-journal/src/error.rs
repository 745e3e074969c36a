//! What can go wrong with the journal file, each case saying which file and what to do.

use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error(
        "journal {path}: cannot open ({detail}); check that the directory exists and that the \
         daemon may write there (systemd: StateDirectory=)"
    )]
    CannotOpen { path: PathBuf, detail: String },

    #[error(
        "journal {path} is damaged ({detail}); it was left untouched: move it aside for \
         inspection and start with a new journal, or restore a backup"
    )]
    Corrupt { path: PathBuf, detail: String },

    #[error(
        "journal {path} is read-only ({detail}); nothing can be journaled: check the file's \
         permissions and whether its file system was remounted read-only"
    )]
    ReadOnly { path: PathBuf, detail: String },

    #[error(
        "journal {path}: the disk is full ({detail}); nothing was written past the last \
         complete batch: free space on that disk"
    )]
    DiskFull { path: PathBuf, detail: String },

    #[error(
        "journal {path} has schema version {found}, newer than this program's {supported}; \
         run the newer dgt-arbiter, or start with a new journal"
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error("journal {path}: a stored row cannot be read back ({detail})")]
    BadRow { path: PathBuf, detail: String },

    #[error("journal {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

impl JournalError {
    /// Sorts an SQLite error into the cases the daemon turns into distinct alerts.
    pub(crate) fn from_sqlite(path: &Path, e: rusqlite::Error) -> Self {
        let path = path.to_path_buf();
        let detail = e.to_string();
        match e.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => JournalError::DiskFull { path, detail },
            Some(ErrorCode::ReadOnly) => JournalError::ReadOnly { path, detail },
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
                JournalError::Corrupt { path, detail }
            }
            Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
                JournalError::CannotOpen { path, detail }
            }
            _ => JournalError::Sqlite { path, source: e },
        }
    }

    /// A short, stable name of the case, for logs, metrics and the daemon's alert.
    pub fn kind(&self) -> &'static str {
        match self {
            JournalError::CannotOpen { .. } => "cannot_open",
            JournalError::Corrupt { .. } => "corrupt",
            JournalError::ReadOnly { .. } => "read_only",
            JournalError::DiskFull { .. } => "disk_full",
            JournalError::NewerSchema { .. } => "newer_schema",
            JournalError::BadRow { .. } => "bad_row",
            JournalError::Sqlite { .. } => "sqlite",
        }
    }
}
