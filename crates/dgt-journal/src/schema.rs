//! The journal's tables, and the schema version that guards them.
//!
//! `steps` is the replayable record (every call into the core, in order); `events` holds what
//! each step produced, numbered by `seq`. `alerts`, `acks` and `games` are indexes derived
//! from those two in the same transaction, so that the dashboard and `export` can query by
//! board, game or alert without replaying anything. Version 2 adds `blocks`: the older
//! steps and events, sealed (a version 1 journal is migrated by adding the table; its rows
//! are sealed as the journal grows, and read either way meanwhile). Version 3 adds
//! `snapshots`: the core's state after a step (`snapshots.rs`).

use rusqlite::{Connection, OptionalExtension};

/// The schema this program writes. Raise it with a new entry in [`MIGRATIONS`].
pub const SCHEMA_VERSION: i64 = 3;

/// `MIGRATIONS[k]` takes a journal from version k to k + 1.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE steps (
    id      INTEGER PRIMARY KEY,
    t_ms    INTEGER NOT NULL,
    board   TEXT,                   -- NULL for timer firings (all boards)
    kind    TEXT NOT NULL CHECK (kind IN ('rx', 'tx', 'link', 'op', 'timers')),
    bytes   BLOB,                   -- rx, tx
    json    TEXT                    -- link, op
) STRICT;
CREATE INDEX steps_by_board ON steps (board, t_ms);

CREATE TABLE events (
    seq     INTEGER PRIMARY KEY,
    step    INTEGER NOT NULL REFERENCES steps (id),
    t_ms    INTEGER NOT NULL,
    board   TEXT NOT NULL,
    type    TEXT NOT NULL,
    game    TEXT,
    json    TEXT NOT NULL
) STRICT;
CREATE INDEX events_by_game ON events (game, seq);
CREATE INDEX events_by_step ON events (step);

CREATE TABLE alerts (
    id       INTEGER PRIMARY KEY,   -- the seq of the alert event (dgt-core numbers them so)
    board    TEXT NOT NULL,
    t_ms     INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    severity TEXT NOT NULL,
    game     TEXT
) STRICT;

CREATE TABLE acks (
    step     INTEGER PRIMARY KEY REFERENCES steps (id),
    alert    INTEGER NOT NULL,
    board    TEXT NOT NULL,
    t_ms     INTEGER NOT NULL
) STRICT;
CREATE INDEX acks_by_alert ON acks (alert);

CREATE TABLE games (
    id         TEXT PRIMARY KEY,
    board      TEXT NOT NULL,
    start_seq  INTEGER NOT NULL,
    start_t_ms INTEGER NOT NULL,
    start_fen  TEXT NOT NULL,
    result     TEXT,
    reason     TEXT,
    end_seq    INTEGER
) STRICT;

-- Batches the writer had to drop (memory limit reached while the disk failed): replay
-- after such a gap cannot regenerate the same events, and recovery says so.
CREATE TABLE gaps (
    id              INTEGER PRIMARY KEY,
    after_step      INTEGER,
    dropped_batches INTEGER NOT NULL
) STRICT;
"#,
    r#"
-- Sealed blocks (see `sealed`): the older steps and their events, packed and deflated.
-- The small columns come first, so that finding a block never reads its blobs.
CREATE TABLE blocks (
    id          INTEGER PRIMARY KEY,
    first_step  INTEGER NOT NULL,
    last_step   INTEGER NOT NULL,
    first_seq   INTEGER,            -- NULL when its steps produced no event
    last_seq    INTEGER,
    first_t_ms  INTEGER NOT NULL,   -- the least and greatest step time
    last_t_ms   INTEGER NOT NULL,
    step_count  INTEGER NOT NULL,
    steps       BLOB NOT NULL,
    events      BLOB NOT NULL
) STRICT;
"#,
    r#"
-- Core snapshots (see `snapshots`): the core's state after step `after_step`, so that
-- recovery replays only the steps after the newest one.
CREATE TABLE snapshots (
    id          INTEGER PRIMARY KEY,
    after_step  INTEGER NOT NULL,
    next_seq    INTEGER NOT NULL,
    t_ms        INTEGER NOT NULL,
    format      TEXT NOT NULL,
    bytes       BLOB NOT NULL
) STRICT;
"#,
];

/// The lookup indexes of the row tables that every commit pays for at a random place: a
/// commit's steps come from many boards and its events from many games, so each commit
/// dirtied a leaf page per board and per game, written to the WAL and synced (seven of the
/// twelve MiB a 1,000-board daemon wrote a second, and about a tenth of its CPU). Since
/// version 2 the rows are only the newest steps (the sealer keeps them near
/// [`crate::sealed::SEAL_AT`]), so a lookup by board or game reads them whole at no real
/// cost; `events_by_step` stays (it grows at its end, and sealing deletes by it).
const HOT_ROW_INDEXES: [&str; 2] = ["steps_by_board", "events_by_game"];

/// Up to how many row steps [`drop_hot_row_indexes`] drops the indexes: a version 1 journal
/// migrated in place holds its whole history as rows until it is sealed, and keeps its
/// indexes until a later open finds its rows few.
pub const UNINDEXED_ROWS_MAX: u64 = 50_000;

/// Drops [`HOT_ROW_INDEXES`] when the journal holds at most `max_rows` steps as rows.
/// Readers do not depend on them (older programs read the file the same way, only by a
/// scan of the rows), so the schema version stays. Returns whether they are gone.
pub fn drop_hot_row_indexes(conn: &Connection, rows: u64, max_rows: u64) -> rusqlite::Result<bool> {
    if rows > max_rows {
        return Ok(false);
    }
    for index in HOT_ROW_INDEXES {
        conn.execute_batch(&format!("DROP INDEX IF EXISTS {index}"))?;
    }
    Ok(true)
}

/// The version a journal claims, or `None` for a file with no journal in it yet.
pub fn version(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    let has_table: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'",
        [],
        |r| r.get(0),
    )?;
    if !has_table {
        return Ok(None);
    }
    conn.query_row("SELECT version FROM schema_version", [], |r| r.get(0))
        .optional()
}

/// Brings the journal to [`SCHEMA_VERSION`] in one transaction. Returns the version found
/// when it is newer than this program's (the caller refuses such a file).
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<Result<(), i64>> {
    let tx = conn.transaction()?;
    let found = version(&tx)?;
    let from = found.unwrap_or(0);
    if from > SCHEMA_VERSION {
        return Ok(Err(from));
    }
    if found.is_none() {
        tx.execute_batch("CREATE TABLE schema_version (version INTEGER NOT NULL) STRICT;")?;
        tx.execute("INSERT INTO schema_version (version) VALUES (0)", [])?;
    }
    for (k, sql) in MIGRATIONS.iter().enumerate().skip(from as usize) {
        tx.execute_batch(sql)?;
        tx.execute("UPDATE schema_version SET version = ?1", [k as i64 + 1])?;
    }
    tx.commit()?;
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexes(conn: &Connection) -> Vec<String> {
        conn.prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
    }

    #[test]
    fn a_journal_with_few_rows_drops_the_indexes_every_commit_would_scatter() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap().unwrap();
        assert!(indexes(&conn).contains(&"steps_by_board".to_string()));
        assert!(drop_hot_row_indexes(&conn, 3_000, UNINDEXED_ROWS_MAX).unwrap());
        let left = indexes(&conn);
        for gone in HOT_ROW_INDEXES {
            assert!(!left.contains(&gone.to_string()), "{left:?}");
        }
        assert!(left.contains(&"events_by_step".to_string()), "{left:?}");
        // Idempotent: a second open finds nothing to drop.
        assert!(drop_hot_row_indexes(&conn, 3_000, UNINDEXED_ROWS_MAX).unwrap());
    }

    #[test]
    fn a_journal_still_holding_its_history_as_rows_keeps_them() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap().unwrap();
        assert!(!drop_hot_row_indexes(&conn, UNINDEXED_ROWS_MAX + 1, UNINDEXED_ROWS_MAX).unwrap());
        let left = indexes(&conn);
        for kept in HOT_ROW_INDEXES {
            assert!(left.contains(&kept.to_string()), "{left:?}");
        }
    }
}
