//! The journal file: SQLite in WAL mode with `synchronous=FULL`, so that a committed batch
//! survives a power cut and an interrupted one leaves no trace (SQLite commits a WAL
//! transaction with its commit frame; frames after the last commit are ignored on recovery).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use dgt_core::event::EventBody;
use dgt_core::{Input, InputKind, Link, Operation};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::batch::{Batch, Cause};
use crate::error::JournalError;
use crate::manifest::{SegmentEntry, SegmentRule};
use crate::schema;

/// The share of the size cap from which the writer warns (percent).
pub const CAP_WARN_PERCENT: u64 = 80;
/// How far the journal may grow past its cap, so that the round in play is journaled to its
/// end (percent of the cap); a new round should not be started once the cap is reached.
pub const CAP_RESERVE_PERCENT: u64 = 25;

/// How long a statement waits for another connection's lock (a reader, `export`).
const BUSY_TIMEOUT_MS: u64 = 5_000;

/// A game as the `games` index records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameEntry {
    pub id: String,
    pub board: String,
    pub start_seq: u64,
    pub start_t_ms: u64,
    pub start_fen: String,
    pub result: Option<String>,
    pub reason: Option<String>,
}

/// Why a stored step cannot be read back (reported as [`JournalError::BadRow`]).
#[derive(Debug, thiserror::Error)]
pub(crate) enum StepError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("an input without a board")]
    NoBoard,
    #[error("a {0} step without json")]
    NoJson(String),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("unknown step kind {0:?}")]
    UnknownKind(String),
}

pub struct Journal {
    pub(crate) conn: Connection,
    path: PathBuf,
    /// The size cap set with [`Journal::set_max_size`], in bytes.
    max_size: Option<u64>,
    /// Whether the file has the `blocks` table (schema 2; a version 1 file read-only has not).
    pub(crate) has_blocks: bool,
    /// The id the next appended step gets: ids go on across sealing (the rows may be empty).
    next_step: u64,
    /// How many steps are still rows (not sealed).
    pub(crate) row_steps: u64,
    /// The closed segments (see [`crate::segments`]).
    pub(crate) segments: RefCell<Segments>,
    /// When a new segment starts.
    pub(crate) rule: SegmentRule,
    /// The UTC time (s) that dates a step under [`SegmentRule::Day`].
    pub(crate) wall_clock: fn() -> u64,
}

/// A closed segment as the journal holds it (see [`crate::segments`]): itself a journal,
/// opened read-only.
pub(crate) enum ClosedState {
    Ready(Box<Journal>),
    Missing,
    Damaged(String),
}

pub(crate) struct Closed {
    pub(crate) path: PathBuf,
    pub(crate) entry: SegmentEntry,
    pub(crate) state: ClosedState,
}

/// The closed segments a journal knows, read from its manifest (and re-read when the
/// manifest changes: a reader with a long-lived connection sees a segment closed meanwhile).
#[derive(Default)]
pub(crate) struct Segments {
    /// `None` for a journal that has no segments of its own (a closed segment, the sealer).
    pub(crate) manifest: Option<PathBuf>,
    pub(crate) stamp: Option<(u64, Option<SystemTime>)>,
    pub(crate) open_label: Option<String>,
    pub(crate) closed: Vec<Closed>,
}

impl Segments {
    pub(crate) fn none() -> RefCell<Segments> {
        RefCell::new(Segments::default())
    }

    pub(crate) fn last_step(&self) -> u64 {
        self.closed
            .iter()
            .map(|c| c.entry.last_step)
            .max()
            .unwrap_or(0)
    }

    pub(crate) fn last_seq(&self) -> u64 {
        self.closed
            .iter()
            .filter_map(|c| c.entry.last_seq)
            .max()
            .unwrap_or(0)
    }
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal").field("path", &self.path).finish()
    }
}

/// Creates the journal file mode 0600 when it does not exist, and makes an existing one 0600.
/// A file that cannot be opened for writing is left to [`Journal::open`] to report.
fn private_file(path: &Path) -> Result<(), JournalError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    Journal::check_dir(path)?;
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path);
    if created.is_ok()
        && let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
    {
        tracing::warn!(path = %path.display(), error = %e, "cannot make the journal mode 0600");
    }
    Ok(())
}

impl Journal {
    /// Creates or opens the journal for writing. A damaged file is refused and left
    /// untouched (`PRAGMA quick_check` runs before anything is written); so is a file the
    /// process may not write.
    ///
    /// The file is made mode 0600 whatever the umask (it holds every game and alert; SQLite
    /// gives its WAL and shared-memory files the database file's mode).
    pub fn open(path: &Path) -> Result<Journal, JournalError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        private_file(path)?;
        let mut journal = Self::connect(path, flags)?;
        let err = |e| JournalError::from_sqlite(path, e);
        // SQLite silently falls back to read-only when the file is not writable.
        if journal.conn.is_readonly(rusqlite::MAIN_DB).map_err(err)? {
            return Err(JournalError::ReadOnly {
                path: path.to_path_buf(),
                detail: "the file cannot be opened for writing".into(),
            });
        }
        journal.check_integrity()?;
        // A new file gives the pages sealing frees back to the disk when the journal is
        // closed (`auto_vacuum` can only be chosen before the first table).
        if schema::version(&journal.conn).map_err(err)?.is_none() {
            journal
                .conn
                .pragma_update(None, "auto_vacuum", "INCREMENTAL")
                .map_err(err)?;
        }
        let mode: String = journal
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!(path = %path.display(), mode, "journal is not in WAL mode");
        }
        // FULL: the WAL is synced at every commit, so a commit survives power loss (SQLite
        // docs, "PRAGMA synchronous"); NORMAL could lose the last commits.
        journal
            .conn
            .pragma_update(None, "synchronous", "FULL")
            .map_err(err)?;
        match schema::migrate(&mut journal.conn).map_err(err)? {
            Ok(()) => {
                journal.has_blocks = true;
                journal.load_segments()?;
                journal.count_steps()?;
                journal.drop_closed_steps()?;
                schema::drop_hot_row_indexes(
                    &journal.conn,
                    journal.row_steps,
                    schema::UNINDEXED_ROWS_MAX,
                )
                .map_err(err)?;
                Ok(journal)
            }
            Err(found) => Err(JournalError::NewerSchema {
                path: path.to_path_buf(),
                found,
                supported: schema::SCHEMA_VERSION,
            }),
        }
    }

    /// A second connection to a journal [`Journal::open`] opened, for the thread that seals
    /// it (see [`crate::writer`]): no integrity check again, no migration; `None` for a file
    /// without blocks.
    pub(crate) fn open_sealer(path: &Path) -> Result<Option<Journal>, JournalError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut journal = Self::connect(path, flags)?;
        let err = |e| JournalError::from_sqlite(path, e);
        journal
            .conn
            .pragma_update(None, "synchronous", "FULL")
            .map_err(err)?;
        if schema::version(&journal.conn).map_err(err)? != Some(schema::SCHEMA_VERSION) {
            return Ok(None);
        }
        journal.has_blocks = true;
        journal.count_steps()?;
        Ok(Some(journal))
    }

    /// Learns the next step id and how many steps are rows.
    pub(crate) fn count_steps(&mut self) -> Result<(), JournalError> {
        let (rows, last_row): (i64, i64) = self
            .conn
            .query_row(
                "SELECT count(*), coalesce(max(id), 0) FROM steps",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.err(e))?;
        let last_sealed = self
            .block_range("first_step", "last_step")?
            .map_or(0, |r| r.1);
        self.row_steps = rows as u64;
        let (closed_step, _) = self.closed_last();
        self.next_step = (last_row.max(last_sealed) as u64).max(closed_step) + 1;
        Ok(())
    }

    /// The id the next appended step gets.
    pub(crate) fn next_step(&self) -> u64 {
        self.next_step
    }

    /// Opens an existing journal for reading only (`export`, the dashboard's history). The
    /// writer may keep appending meanwhile: WAL readers see the last committed batch.
    pub fn open_read_only(path: &Path) -> Result<Journal, JournalError> {
        Self::read_only(path, true)
    }

    /// A read-only connection to this journal for another thread, without checking the file
    /// again: it was checked when this one was opened.
    pub fn reader(&self) -> Result<Journal, JournalError> {
        Self::read_only(&self.path, false)
    }

    fn read_only(path: &Path, check: bool) -> Result<Journal, JournalError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut journal = Self::connect(path, flags)?;
        if check {
            journal.check_integrity()?;
        }
        let found = schema::version(&journal.conn)
            .map_err(|e| JournalError::from_sqlite(path, e))?
            .unwrap_or(0);
        if found > schema::SCHEMA_VERSION {
            return Err(JournalError::NewerSchema {
                path: path.to_path_buf(),
                found,
                supported: schema::SCHEMA_VERSION,
            });
        }
        // Version 1 (before sealed blocks) is read as it is: all its steps are rows.
        if found < 1 {
            return Err(JournalError::CannotOpen {
                path: path.to_path_buf(),
                detail: format!("not a dgt-arbiter journal (schema version {found})"),
            });
        }
        journal.has_blocks = found >= 2;
        journal.load_segments()?;
        journal.count_steps()?;
        Ok(journal)
    }

    pub(crate) fn connect(path: &Path, flags: OpenFlags) -> Result<Journal, JournalError> {
        Self::check_dir(path)?;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| JournalError::from_sqlite(path, e))?;
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))
            .map_err(|e| JournalError::from_sqlite(path, e))?;
        Ok(Journal {
            conn,
            path: path.to_path_buf(),
            max_size: None,
            has_blocks: false,
            next_step: 1,
            row_steps: 0,
            segments: Segments::none(),
            rule: SegmentRule::default(),
            wall_clock: crate::manifest::unix_s,
        })
    }

    fn check_dir(path: &Path) -> Result<(), JournalError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            return Err(JournalError::CannotOpen {
                path: path.to_path_buf(),
                detail: format!("directory {} does not exist", dir.display()),
            });
        }
        Ok(())
    }

    pub(crate) fn check_integrity(&self) -> Result<(), JournalError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA quick_check")
            .map_err(|e| self.err(e))?;
        let rows: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))?;
        if rows.len() == 1 && rows[0] == "ok" {
            return Ok(());
        }
        Err(JournalError::Corrupt {
            path: self.path.clone(),
            detail: rows.join("; "),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The size cap, when one was set.
    pub fn max_size(&self) -> Option<u64> {
        self.max_size
    }

    pub(crate) fn err(&self, e: rusqlite::Error) -> JournalError {
        JournalError::from_sqlite(&self.path, e)
    }

    /// Caps the journal at about `bytes`. The cap never cuts the round in play: the writer
    /// warns from [`CAP_WARN_PERCENT`] of it and reports it reached, while the file may grow
    /// [`CAP_RESERVE_PERCENT`] past it (SQLite `max_page_count`); only past that reserve does
    /// an append fail as "disk full" instead of filling the disk the rest of the system
    /// needs.
    pub fn set_max_size(&mut self, bytes: u64) -> Result<(), JournalError> {
        self.max_size = Some(bytes);
        let page: i64 = self
            .conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        // The closed segments count against the cap; the open one keeps at least the
        // reserve, so that the round in play ends journaled.
        let reserve = bytes / 100 * CAP_RESERVE_PERCENT;
        let hard = bytes
            .saturating_add(reserve)
            .saturating_sub(self.closed_bytes())
            .max(reserve);
        let pages = (hard / page.max(1) as u64).max(1) as i64;
        self.conn
            .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
            .map_err(|e| self.err(e))
    }

    /// The bytes the open segment's pages hold (its free pages not counted).
    pub(crate) fn size_bytes_here(&self) -> Result<u64, JournalError> {
        // Asked every second while the writer commits: a cached statement (preparing it at
        // every commit cost a ten-node bench's daemon about a twentieth of its CPU).
        self.conn
            .prepare_cached(
                "SELECT (SELECT page_count FROM pragma_page_count()) \
                 - (SELECT freelist_count FROM pragma_freelist_count()), \
                 (SELECT page_size FROM pragma_page_size())",
            )
            .and_then(|mut stmt| {
                stmt.query_row([], |r| {
                    Ok((r.get::<_, i64>(0)?.max(0) as u64) * r.get::<_, i64>(1)? as u64)
                })
            })
            .map_err(|e| self.err(e))
    }

    /// Seals every row step and returns the freed pages to the file system: what a clean
    /// stop leaves is blocks only (a file created before version 2 keeps its free pages for
    /// reuse).
    pub fn tidy(&mut self) -> Result<(), JournalError> {
        self.seal_all()?;
        self.give_back_pages()
    }

    /// Returns the file's free pages to the file system (`auto_vacuum = INCREMENTAL`).
    pub(crate) fn give_back_pages(&self) -> Result<(), JournalError> {
        // Each step of the pragma frees one page: it runs to its end.
        let mut stmt = self
            .conn
            .prepare("PRAGMA incremental_vacuum")
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while rows.next().map_err(|e| self.err(e))?.is_some() {}
        Ok(())
    }

    /// Appends one batch in one transaction: all of it is journaled, or none.
    pub fn append(&mut self, batch: &Batch) -> Result<(), JournalError> {
        self.append_all(std::iter::once(batch))
    }

    /// Appends batches to the open segment in one transaction.
    pub(crate) fn append_here<'a>(
        &mut self,
        batches: impl IntoIterator<Item = &'a Batch>,
    ) -> Result<(), JournalError> {
        let path = self.path.clone();
        let err = |e| JournalError::from_sqlite(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        let mut next = self.next_step;
        for batch in batches {
            let first = next;
            for step in batch.steps() {
                insert_step(&tx, next as i64, &step.cause).map_err(err)?;
                for event in &step.events {
                    insert_event(&tx, next as i64, event).map_err(err)?;
                }
                next += 1;
            }
            if let Some((n, snapshot)) = batch.snapshot() {
                let after_step = (first + n as u64).saturating_sub(1);
                crate::core_snapshot::insert(&tx, after_step, snapshot).map_err(err)?;
            }
        }
        tx.commit().map_err(err)?;
        self.row_steps += next - self.next_step;
        self.next_step = next;
        Ok(())
    }

    /// Notes that the writer dropped batches here (the journal is no longer a complete
    /// record from this point on).
    pub fn record_gap(&mut self, dropped_batches: u64) -> Result<(), JournalError> {
        self.conn
            .execute(
                "INSERT INTO gaps (after_step, dropped_batches) VALUES (?1, ?2)",
                [self.next_step as i64 - 1, dropped_batches as i64],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// How many batches the open segment notes as dropped.
    pub(crate) fn dropped_batches_here(&self) -> Result<u64, JournalError> {
        self.conn
            .query_row(
                "SELECT coalesce(sum(dropped_batches), 0) FROM gaps",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }

    /// Every step in journal order, streamed to `f` (recovery of a long day does not hold
    /// the whole journal in memory). `f` returning `false` stops the walk.
    pub fn for_each_step(&self, mut f: impl FnMut(u64, Cause) -> bool) -> Result<(), JournalError> {
        self.walk(0, |s| f(s.id, s.cause))
    }

    pub(crate) fn read_step(&self, row: &rusqlite::Row<'_>) -> Result<Cause, StepError> {
        let t_ms: i64 = row.get(1)?;
        let t_ms = t_ms as u64;
        let board: Option<String> = row.get(2)?;
        // The kind read in place (no copy per step); what is not text fails as before.
        let kind_text: String;
        let kind = match row.get_ref(3)?.as_str() {
            Ok(k) => k,
            Err(_) => {
                kind_text = row.get(3)?;
                &kind_text
            }
        };
        let bytes: Option<Vec<u8>> = row.get(4)?;
        let json: Option<String> = row.get(5)?;
        if kind == "timers" {
            return Ok(Cause::Timers { until_ms: t_ms });
        }
        let board = board.ok_or(StepError::NoBoard)?;
        let json_text = || {
            json.clone()
                .ok_or_else(|| StepError::NoJson(kind.to_string()))
        };
        let kind = match kind {
            "rx" => InputKind::Rx(bytes.unwrap_or_default()),
            "tx" => InputKind::Tx(bytes.unwrap_or_default()),
            "link" => InputKind::Link(serde_json::from_str::<Link>(&json_text()?)?),
            "op" => InputKind::Op(serde_json::from_str::<Operation>(&json_text()?)?),
            other => return Err(StepError::UnknownKind(other.to_string())),
        };
        Ok(Cause::Input(Input { t_ms, board, kind }))
    }

    /// One board's inputs in this file with `from_ms <= t_ms <= to_ms`, in journal order
    /// (the sealed blocks by their time range, then the newest steps, which are few: see
    /// `schema::drop_hot_row_indexes`).
    pub(crate) fn board_inputs_here(
        &self,
        board: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<Input>, JournalError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, t_ms, board, kind, bytes, json FROM steps \
                 WHERE board = ?1 AND t_ms BETWEEN ?2 AND ?3 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(params![board, from_ms as i64, to_ms as i64])
            .map_err(|e| self.err(e))?;
        let mut out = self.sealed_board_inputs(board, from_ms, to_ms)?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let id: i64 = row.get(0).map_err(|e| self.err(e))?;
            match self.read_step(row).map_err(|detail| JournalError::BadRow {
                path: self.path.clone(),
                detail: format!("step {id}: {detail}"),
            })? {
                Cause::Input(i) => out.push(i),
                Cause::Timers { .. } => {}
            }
        }
        Ok(out)
    }

    /// Every step in order (inputs and timer firings): what recovery replays.
    pub fn steps(&self) -> Result<Vec<Cause>, JournalError> {
        let mut out = Vec::new();
        self.for_each_step(|_, c| {
            out.push(c);
            true
        })?;
        Ok(out)
    }

    /// Every input in order, without the timer firings.
    pub fn inputs(&self) -> Result<Vec<Input>, JournalError> {
        let mut out = Vec::new();
        self.for_each_step(|_, c| {
            if let Cause::Input(i) = c {
                out.push(i);
            }
            true
        })?;
        Ok(out)
    }

    /// The last event's seq in this file, 0 for none.
    pub(crate) fn last_seq_here(&self) -> Result<u64, JournalError> {
        let rows = self
            .conn
            .query_row("SELECT coalesce(max(seq), 0) FROM events", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_err(|e| self.err(e))?;
        let sealed = self
            .block_range("first_seq", "last_seq")?
            .map_or(0, |r| r.1);
        Ok(rows.max(sealed) as u64)
    }

    /// The first event's seq in this file, if any.
    pub(crate) fn first_seq_here(&self) -> Result<Option<u64>, JournalError> {
        if let Some((first, _)) = self.block_range("first_seq", "last_seq")? {
            return Ok(Some(first as u64));
        }
        self.conn
            .query_row("SELECT min(seq) FROM events", [], |r| {
                r.get::<_, Option<i64>>(0)
            })
            .map(|s| s.map(|s| s as u64))
            .map_err(|e| self.err(e))
    }

    /// The events of this file after `seq`, as contract JSON, oldest first.
    pub(crate) fn events_since_here(&self, seq: u64) -> Result<Vec<String>, JournalError> {
        let _snapshot = self.snapshot()?;
        let mut out = self.sealed_events_after(seq)?;
        out.extend(self.strings(
            "SELECT json FROM events WHERE seq > ?1 ORDER BY seq",
            params![seq as i64],
        )?);
        Ok(out)
    }

    /// Every event of one game in this file after `after_seq`, oldest first.
    pub(crate) fn events_of_game_here(
        &self,
        game: &str,
        after_seq: u64,
    ) -> Result<Vec<String>, JournalError> {
        let _snapshot = self.snapshot()?;
        // The game's seq range (the `games` index) bounds the blocks to decode.
        let range: Option<(Option<i64>, Option<i64>)> = self
            .conn
            .query_row(
                "SELECT start_seq, end_seq FROM games WHERE id = ?1",
                params![game],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let (from, to) = match range {
            Some((start, end)) => (
                (start.unwrap_or(0) as u64).max(after_seq + 1),
                end.map_or(u64::MAX, |e| e as u64),
            ),
            None => (after_seq + 1, u64::MAX),
        };
        let mut out: Vec<String> = self
            .sealed_events_between(from, to, |e| e.game.as_deref() == Some(game))?
            .into_iter()
            .map(|e| e.json)
            .collect();
        out.extend(self.strings(
            "SELECT json FROM events WHERE game = ?1 AND seq > ?2 ORDER BY seq",
            params![game, after_seq as i64],
        )?);
        Ok(out)
    }

    /// The seqs of the alerts this file's index holds without an acknowledgement.
    pub(crate) fn open_alert_ids_here(&self) -> Result<Vec<u64>, JournalError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT a.id FROM alerts a \
                 WHERE NOT EXISTS (SELECT 1 FROM acks k WHERE k.alert = a.id) ORDER BY a.id",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([], |r| r.get::<_, i64>(0).map(|s| s as u64))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))
    }

    /// The events of this file with the seqs `seqs` (sorted; `wanted` holds the same), by
    /// seq.
    pub(crate) fn events_with_seqs_here(
        &self,
        seqs: &[u64],
        wanted: &std::collections::HashSet<u64>,
    ) -> Result<std::collections::BTreeMap<u64, String>, JournalError> {
        let (Some(first), Some(last)) = (seqs.first(), seqs.last()) else {
            return Ok(std::collections::BTreeMap::new());
        };
        let mut found: std::collections::BTreeMap<u64, String> = self
            .sealed_events_between(*first, *last, |e| wanted.contains(&e.seq))?
            .into_iter()
            .map(|e| (e.seq, e.json))
            .collect();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT json FROM events WHERE seq = ?1")
            .map_err(|e| self.err(e))?;
        for seq in seqs {
            if found.contains_key(seq) {
                continue;
            }
            if let Some(json) = stmt
                .query_row([*seq as i64], |r| r.get::<_, String>(0))
                .optional()
                .map_err(|e| self.err(e))?
            {
                found.insert(*seq, json);
            }
        }
        Ok(found)
    }

    /// Operator and arbiter actions as capture lines (contract §2), oldest first.
    pub fn operations(&self) -> Result<Vec<String>, JournalError> {
        let mut out = Vec::new();
        self.for_each_step(|_, c| {
            if let Cause::Input(
                i @ Input {
                    kind: InputKind::Op(_),
                    ..
                },
            ) = &c
            {
                out.push(dgt_core::capture::write_line(i));
            }
            true
        })?;
        Ok(out)
    }

    /// The games this file's index knows, in the order they started.
    pub(crate) fn games_here(&self) -> Result<Vec<GameEntry>, JournalError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, board, start_seq, start_t_ms, start_fen, result, reason \
                 FROM games ORDER BY start_seq",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([], |r| {
            Ok(GameEntry {
                id: r.get(0)?,
                board: r.get(1)?,
                start_seq: r.get::<_, i64>(2)? as u64,
                start_t_ms: r.get::<_, i64>(3)? as u64,
                start_fen: r.get(4)?,
                result: r.get(5)?,
                reason: r.get(6)?,
            })
        })
        .and_then(|rows| rows.collect())
        .map_err(|e| self.err(e))
    }

    /// A capture (contract §2, JSON Lines) of the journaled inputs, optionally of one board
    /// and a time range (inclusive). The whole journal exported replays to the events the
    /// live session produced; a slice starts from whatever state the board was in.
    pub fn export_capture(
        &self,
        board: Option<&str>,
        from_ms: Option<u64>,
        to_ms: Option<u64>,
    ) -> Result<String, JournalError> {
        let mut out = String::new();
        self.for_each_step(|_, c| {
            if let Cause::Input(i) = &c
                && board.is_none_or(|b| b == i.board)
                && from_ms.is_none_or(|f| i.t_ms >= f)
                && to_ms.is_none_or(|t| i.t_ms <= t)
            {
                out.push_str(&dgt_core::capture::write_line(i));
                out.push('\n');
            }
            true
        })?;
        Ok(out)
    }

    fn strings(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<String>, JournalError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        stmt.query_map(params, |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))
    }

    /// The journaled events as contract JSON, in seq order, streamed to `f` (`false` stops).
    pub fn for_each_event(
        &self,
        mut f: impl FnMut(u64, String) -> bool,
    ) -> Result<(), JournalError> {
        self.walk(0, |s| s.events.into_iter().all(|e| f(e.seq, e.json)))
    }

    /// Walks the steps in order, giving each to `feed` (which runs it through a core and
    /// returns the events it produced), and pairs every produced event with the journaled
    /// event at the same position for `compare`. Journaled events left over at the end are
    /// paired with `None`. The journal is streamed, so a long day fits in little memory.
    pub(crate) fn replay(
        &self,
        feed: impl FnMut(Cause) -> Vec<dgt_core::Event>,
        compare: impl FnMut(Option<(u64, &str)>, Option<&dgt_core::Event>),
    ) -> Result<(), JournalError> {
        self.replay_after(0, feed, compare)
    }

    /// [`Journal::replay`] of the steps after step `after_step` only, paired with their
    /// journaled events (a core restored from a snapshot taken after that step).
    pub(crate) fn replay_after(
        &self,
        after_step: u64,
        mut feed: impl FnMut(Cause) -> Vec<dgt_core::Event>,
        mut compare: impl FnMut(Option<(u64, &str)>, Option<&dgt_core::Event>),
    ) -> Result<(), JournalError> {
        let mut journaled: std::collections::VecDeque<crate::sealed::StoredEvent> =
            std::collections::VecDeque::new();
        self.walk(after_step, |step| {
            journaled.extend(step.events);
            for produced in feed(step.cause) {
                match journaled.pop_front() {
                    Some(e) => compare(Some((e.seq, &e.json)), Some(&produced)),
                    None => compare(None, Some(&produced)),
                }
            }
            true
        })?;
        for e in journaled {
            compare(Some((e.seq, &e.json)), None);
        }
        Ok(())
    }

    /// How many steps this file holds.
    pub(crate) fn step_count_here(&self) -> Result<u64, JournalError> {
        let sealed: i64 = if self.has_blocks {
            self.conn
                .query_row("SELECT coalesce(sum(step_count), 0) FROM blocks", [], |r| {
                    r.get(0)
                })
                .map_err(|e| self.err(e))?
        } else {
            0
        };
        let rows: i64 = self
            .conn
            .query_row("SELECT count(*) FROM steps", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok((sealed + rows) as u64)
    }

    /// The core times of this file's first and last steps (ms), `(0, 0)` for none.
    pub(crate) fn time_span_here(&self) -> Result<(u64, u64), JournalError> {
        let rows: (Option<i64>, Option<i64>) = self
            .conn
            .query_row("SELECT min(t_ms), max(t_ms) FROM steps", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(|e| self.err(e))?;
        let sealed = self.block_range("first_t_ms", "last_t_ms")?;
        let first = [rows.0, sealed.map(|s| s.0)].into_iter().flatten().min();
        let last = [rows.1, sealed.map(|s| s.1)].into_iter().flatten().max();
        Ok((first.unwrap_or(0) as u64, last.unwrap_or(0) as u64))
    }

    /// The seq of the last event of a step of this file, if it produced any.
    pub(crate) fn last_seq_of_step_here(&self, step: u64) -> Result<Option<u64>, JournalError> {
        let spans = self.block_spans("first_step <= ?1 AND last_step >= ?1", step as i64)?;
        if let Some(span) = spans.first() {
            return Ok(self
                .block(span.id)?
                .into_iter()
                .find(|s| s.id == step)
                .and_then(|s| s.events.last().map(|e| e.seq)));
        }
        self.conn
            .query_row(
                "SELECT max(seq) FROM events WHERE step = ?1",
                [step as i64],
                |r| r.get::<_, Option<i64>>(0),
            )
            .optional()
            .map(|s| s.flatten().map(|s| s as u64))
            .map_err(|e| self.err(e))
    }
}

fn insert_step(tx: &rusqlite::Transaction<'_>, id: i64, cause: &Cause) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO steps (id, t_ms, board, kind, bytes, json) VALUES (?6, ?1, ?2, ?3, ?4, ?5)",
    )?;
    let t = cause.t_ms() as i64;
    match cause {
        Cause::Timers { .. } => stmt.execute(params![
            t,
            None::<String>,
            "timers",
            None::<Vec<u8>>,
            None::<String>,
            id
        ])?,
        Cause::Input(i) => {
            let (kind, bytes, json): (&str, Option<&[u8]>, Option<String>) = match &i.kind {
                InputKind::Rx(b) => ("rx", Some(b), None),
                InputKind::Tx(b) => ("tx", Some(b), None),
                InputKind::Link(l) => ("link", None, serde_json::to_string(l).ok()),
                InputKind::Op(o) => ("op", None, serde_json::to_string(o).ok()),
            };
            stmt.execute(params![t, i.board, kind, bytes, json, id])?
        }
    };
    if let Cause::Input(Input {
        kind: InputKind::Op(Operation::Ack(alert)),
        board,
        t_ms,
    }) = cause
    {
        tx.prepare_cached("INSERT INTO acks (step, alert, board, t_ms) VALUES (?1, ?2, ?3, ?4)")?
            .execute(params![id, *alert as i64, board, *t_ms as i64])?;
    }
    Ok(())
}

fn insert_event(
    tx: &rusqlite::Transaction<'_>,
    step: i64,
    event: &dgt_core::Event,
) -> rusqlite::Result<()> {
    let seq = event.seq as i64;
    let t = event.t_ms as i64;
    let game = match &event.body {
        EventBody::Move(m) => Some(m.game.as_str()),
        EventBody::GameStart { game, .. }
        | EventBody::GameEnd { game, .. }
        | EventBody::GameReplaced { game, .. }
        | EventBody::Reserves { game, .. } => Some(game.as_str()),
        EventBody::Alert(a) => a.game.as_deref(),
        EventBody::BoardStatus(_)
        | EventBody::Clock(_)
        | EventBody::Pairings(_)
        | EventBody::TableResult(_)
        | EventBody::ArbiterAction(_) => None,
        EventBody::TableGame(g) => g.game.as_deref(),
    };
    tx.prepare_cached(
        "INSERT INTO events (seq, step, t_ms, board, type, game, json) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        seq,
        step,
        t,
        event.board,
        event.body.type_name(),
        game,
        event.to_json()
    ])?;
    match &event.body {
        EventBody::Alert(a) => {
            let name = |v: serde_json::Result<serde_json::Value>| {
                v.ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            };
            tx.prepare_cached(
                "INSERT OR IGNORE INTO alerts (id, board, t_ms, kind, severity, game) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                a.id as i64,
                event.board,
                t,
                name(serde_json::to_value(a.kind)),
                name(serde_json::to_value(a.severity)),
                a.game
            ])?;
        }
        EventBody::GameStart {
            game, start_fen, ..
        } => {
            tx.prepare_cached(
                "INSERT OR IGNORE INTO games (id, board, start_seq, start_t_ms, start_fen) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![game, event.board, seq, t, start_fen])?;
        }
        EventBody::GameEnd {
            game,
            result,
            reason,
        } => {
            let reason = serde_json::to_value(reason)
                .ok()
                .and_then(|v| v.as_str().map(String::from));
            tx.prepare_cached(
                "UPDATE games SET result = ?2, reason = ?3, end_seq = ?4 WHERE id = ?1",
            )?
            .execute(params![game, result.as_str(), reason, seq])?;
        }
        _ => {}
    }
    Ok(())
}
