//! The journal in segments: one file per round (or per day), so that the file the daemon
//! writes stays small and opening it checks only that file.
//!
//! `journal.path` always names the open segment. When a new round's pairings arrive (a
//! round number above the open segment's), or the first step of a new day (UTC) under
//! `journal.segment = "day"`, the writer closes the open segment before that step: its rows
//! are sealed, it is copied compactly (`VACUUM INTO`) to a sibling `<stem>.r3.sqlite` (or
//! `<stem>.2026-11-27.sqlite`), checked (`PRAGMA quick_check`), made mode 0444 and listed in
//! the manifest `<stem>.segments.json` with its step and seq ranges, size and modification
//! time; then the steps it holds are removed from the open segment. Step ids and event seqs
//! go on across segments (one numbering for the whole event). The indexes that are still
//! live move on with the open segment: games not finished and alerts not acknowledged.
//!
//! Every reader spans the segments through [`Journal::walk`] and the other public readers;
//! a closed segment is opened read-only and trusted as checked when it was closed, unless
//! its size or modification time changed (then it is checked again and the log says so). A
//! damaged closed segment is named by the readers that reach it; a missing one (moved to
//! archive storage) is skipped, named in the log and by [`Journal::closed_segments`].

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use dgt_core::event::EventBody;
use rusqlite::OpenFlags;

use crate::batch::Batch;
use crate::error::JournalError;
use crate::journal::{Closed, ClosedState, GameEntry, Journal, Segments};
use crate::manifest::{
    extension, io_error, mtime_ms, read_manifest, sibling, sync_dir, unix_s, write_manifest,
};
use crate::sealed::StoredStep;

pub use crate::manifest::{ClosedSegment, SegmentEntry, SegmentRule, day_label, manifest_path};

/// Empties a closing segment's copy of the core and views snapshots: a restart restores
/// from the open segment's newest ones only, so a closed segment's copies (megabytes at
/// 300 boards, in every round's file) would only weigh on the disk and the size cap.
fn drop_snapshots(c: &rusqlite::Connection) -> rusqlite::Result<()> {
    for table in ["snapshots", "view_snapshots"] {
        let exists: bool = c.query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |r| r.get(0),
        )?;
        if exists {
            c.execute(&format!("DELETE FROM {table}"), [])?;
        }
    }
    // Each step of the pragma frees one page (`auto_vacuum = INCREMENTAL` is copied).
    let mut stmt = c.prepare("PRAGMA incremental_vacuum")?;
    let mut rows = stmt.query([])?;
    while rows.next()?.is_some() {}
    Ok(())
}

/// Opens a closed segment read-only, checking it again only when it changed since it was
/// checked at closing.
fn open_closed(path: PathBuf, entry: SegmentEntry) -> Closed {
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(_) => {
            tracing::warn!(
                segment = %path.display(),
                first_step = entry.first_step,
                last_step = entry.last_step,
                "journal segment missing (moved to archive storage?): its steps are not read"
            );
            return Closed {
                path,
                entry,
                state: ClosedState::Missing,
            };
        }
    };
    let changed = meta.len() != entry.size_bytes || mtime_ms(&meta) != entry.mtime_ms;
    let state = match Journal::open_segment(&path, changed) {
        Ok(j) => {
            if changed {
                tracing::warn!(
                    segment = %path.display(),
                    "journal segment changed since it was closed (size or time): checked again, ok"
                );
            }
            ClosedState::Ready(Box::new(j))
        }
        Err(e) => {
            tracing::error!(segment = %path.display(), "journal segment unreadable: {e}");
            ClosedState::Damaged(e.to_string())
        }
    };
    Closed { path, entry, state }
}

impl Journal {
    /// Opens a closed segment (read-only, no segments of its own).
    fn open_segment(path: &Path, check: bool) -> Result<Journal, JournalError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut j = Journal::connect(path, flags)?;
        if check {
            j.check_integrity()?;
        }
        j.has_blocks = true;
        Ok(j)
    }

    /// Starts reading the manifest of `journal.path`'s segments (open and open_read_only).
    pub(crate) fn load_segments(&mut self) -> Result<(), JournalError> {
        self.segments.get_mut().manifest = Some(manifest_path(self.path()));
        self.refresh_segments()
    }

    /// Re-reads the manifest when it changed since it was read.
    pub(crate) fn refresh_segments(&self) -> Result<(), JournalError> {
        match self.segments.try_borrow_mut() {
            Ok(mut segs) => self.reload_segments(&mut segs, false),
            // A reader inside another's walk: the outer one has just refreshed.
            Err(_) => Ok(()),
        }
    }

    /// Reads the manifest again (`force`: even if it looks unchanged).
    fn reload_segments(&self, segs: &mut Segments, force: bool) -> Result<(), JournalError> {
        let Some(manifest_path) = segs.manifest.clone() else {
            return Ok(());
        };
        let stamp = std::fs::metadata(&manifest_path)
            .ok()
            .map(|m| (m.len(), m.modified().ok()));
        if stamp == segs.stamp && !force {
            return Ok(());
        }
        let manifest = read_manifest(&manifest_path)?;
        let mut old: Vec<Closed> = std::mem::take(&mut segs.closed);
        for entry in manifest.closed {
            let path = self.path().with_file_name(&entry.file);
            let kept = old
                .iter()
                .position(|c| c.entry == entry && matches!(c.state, ClosedState::Ready(_)));
            segs.closed.push(match kept {
                Some(i) => old.swap_remove(i),
                None => open_closed(path, entry),
            });
        }
        segs.open_label = manifest.open_label;
        segs.stamp = stamp;
        Ok(())
    }

    /// The closed segments, oldest first.
    pub fn closed_segments(&self) -> Result<Vec<ClosedSegment>, JournalError> {
        self.refresh_segments()?;
        Ok(self
            .segments
            .borrow()
            .closed
            .iter()
            .map(|c| ClosedSegment {
                path: c.path.clone(),
                entry: c.entry.clone(),
                state: match &c.state {
                    ClosedState::Ready(_) => "ready".into(),
                    ClosedState::Missing => "missing".into(),
                    ClosedState::Damaged(d) => format!("damaged: {d}"),
                },
            })
            .collect())
    }

    /// The last step id and seq held by closed segments (0 without any).
    pub(crate) fn closed_last(&self) -> (u64, u64) {
        let segs = self.segments.borrow();
        (segs.last_step(), segs.last_seq())
    }

    /// The bytes the closed segments still at their place take on disk.
    pub(crate) fn closed_bytes(&self) -> u64 {
        self.segments
            .borrow()
            .closed
            .iter()
            .filter(|c| !matches!(c.state, ClosedState::Missing))
            .map(|c| c.entry.size_bytes)
            .sum()
    }

    /// Runs `f` on each closed segment `wanted` chooses (by its manifest entry), oldest
    /// first: a damaged one is an error naming its file, a missing one is skipped. `f`
    /// returning `false` stops.
    fn each_closed(
        &self,
        wanted: impl Fn(&SegmentEntry) -> bool,
        mut f: impl FnMut(&Journal, &SegmentEntry) -> Result<bool, JournalError>,
    ) -> Result<bool, JournalError> {
        self.refresh_segments()?;
        let segs = self.segments.borrow();
        for c in segs.closed.iter().filter(|c| wanted(&c.entry)) {
            match &c.state {
                ClosedState::Ready(j) => {
                    if !f(j, &c.entry)? {
                        return Ok(false);
                    }
                }
                ClosedState::Missing => {}
                ClosedState::Damaged(detail) => {
                    return Err(JournalError::Corrupt {
                        path: c.path.clone(),
                        detail: detail.clone(),
                    });
                }
            }
        }
        Ok(true)
    }

    /// Every step after `after_step` in journal order, each with its events, streamed to `f`
    /// (`false` stops): the closed segments' first, then the open one's (its sealed blocks,
    /// then its rows).
    pub fn walk(
        &self,
        after_step: u64,
        mut f: impl FnMut(StoredStep) -> bool,
    ) -> Result<(), JournalError> {
        // The open segment's snapshot first: a segment closed after it still has its steps
        // here, one closed before it is in the manifest read next.
        let _snapshot = self.snapshot()?;
        let mut go = true;
        let more = self.each_closed(
            |e| e.last_step > after_step,
            |j, _| {
                j.walk_here(after_step, |s| {
                    go = f(s);
                    go
                })?;
                Ok(go)
            },
        )?;
        if !more {
            return Ok(());
        }
        let (last_step, _) = self.closed_last();
        self.walk_here(after_step.max(last_step), f)
    }

    /// The events after `seq`, as contract JSON, oldest first: what a client resuming from
    /// `seq` missed.
    pub fn events_since(&self, seq: u64) -> Result<Vec<String>, JournalError> {
        let _snapshot = self.snapshot()?;
        let mut out = Vec::new();
        self.each_closed(
            |e| e.last_seq.is_some_and(|l| l > seq),
            |j, _| {
                out.extend(j.events_since_here(seq)?);
                Ok(true)
            },
        )?;
        let (_, last_seq) = self.closed_last();
        out.extend(self.events_since_here(seq.max(last_seq))?);
        Ok(out)
    }

    /// Every event of one game (its moves, alerts and end), oldest first, whichever
    /// segments it spans.
    pub fn events_of_game(&self, game: &str) -> Result<Vec<String>, JournalError> {
        let _snapshot = self.snapshot()?;
        let mut out = Vec::new();
        self.each_closed(
            |_| true,
            |j, _| {
                out.extend(j.events_of_game_here(game, 0)?);
                Ok(true)
            },
        )?;
        let (_, last_seq) = self.closed_last();
        out.extend(self.events_of_game_here(game, last_seq)?);
        Ok(out)
    }

    /// Alerts nobody has acknowledged yet, as contract JSON, oldest first (the open
    /// segment's index holds them all: closing a segment keeps them there).
    pub fn open_alerts(&self) -> Result<Vec<String>, JournalError> {
        let _snapshot = self.snapshot()?;
        let open = self.open_alert_ids_here()?;
        let mut found: BTreeMap<u64, String> = BTreeMap::new();
        let wanted: HashSet<u64> = open.iter().copied().collect();
        let (_, last_seq) = self.closed_last();
        if open.first().is_some_and(|f| *f <= last_seq) {
            let (first, last) = (open[0], open[open.len() - 1]);
            let overlaps = |e: &SegmentEntry| {
                e.first_seq.is_some_and(|f| f <= last) && e.last_seq.is_some_and(|l| l >= first)
            };
            self.each_closed(overlaps, |j, _| {
                found.extend(j.events_with_seqs_here(&open, &wanted)?);
                Ok(true)
            })?;
        }
        found.extend(self.events_with_seqs_here(&open, &wanted)?);
        Ok(found.into_values().collect())
    }

    /// The games the journal knows, in the order they started (a game spanning segments
    /// once, as its newest segment knows it).
    pub fn games(&self) -> Result<Vec<GameEntry>, JournalError> {
        let mut by_id: BTreeMap<String, GameEntry> = BTreeMap::new();
        self.each_closed(
            |_| true,
            |j, _| {
                by_id.extend(j.games_here()?.into_iter().map(|g| (g.id.clone(), g)));
                Ok(true)
            },
        )?;
        by_id.extend(self.games_here()?.into_iter().map(|g| (g.id.clone(), g)));
        let mut games: Vec<GameEntry> = by_id.into_values().collect();
        games.sort_by_key(|g| g.start_seq);
        Ok(games)
    }

    /// One board's inputs with `from_ms <= t_ms <= to_ms`, in journal order (a closed
    /// segment is opened only when its time span meets the window).
    pub fn board_inputs(
        &self,
        board: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<dgt_core::Input>, JournalError> {
        let mut out = Vec::new();
        self.each_closed(
            |e| e.last_t_ms >= from_ms && e.first_t_ms <= to_ms,
            |j, _| {
                out.extend(j.board_inputs_here(board, from_ms, to_ms)?);
                Ok(true)
            },
        )?;
        out.extend(self.board_inputs_here(board, from_ms, to_ms)?);
        Ok(out)
    }

    /// The seq of the last event of a step, if it produced any (used by tests and tools).
    pub fn last_seq_of_step(&self, step: u64) -> Result<Option<u64>, JournalError> {
        let mut found = None;
        let mut in_closed = false;
        self.each_closed(
            |e| e.first_step <= step && step <= e.last_step,
            |j, _| {
                in_closed = true;
                found = j.last_seq_of_step_here(step)?;
                Ok(false)
            },
        )?;
        if in_closed {
            return Ok(found);
        }
        self.last_seq_of_step_here(step)
    }

    /// The last event's seq, 0 for an empty journal.
    pub fn last_seq(&self) -> Result<u64, JournalError> {
        self.refresh_segments()?;
        Ok(self.last_seq_here()?.max(self.closed_last().1))
    }

    /// The first event's seq, if any (a journal started by a core numbering from elsewhere).
    pub fn first_seq(&self) -> Result<Option<u64>, JournalError> {
        self.refresh_segments()?;
        let closed = self
            .segments
            .borrow()
            .closed
            .iter()
            .find_map(|c| c.entry.first_seq);
        match closed {
            Some(s) => Ok(Some(s)),
            None => self.first_seq_here(),
        }
    }

    /// A count over the closed segments, as their manifest entries say.
    fn closed_sum(&self, count: impl Fn(&SegmentEntry) -> u64) -> Result<u64, JournalError> {
        self.refresh_segments()?;
        Ok(self
            .segments
            .borrow()
            .closed
            .iter()
            .map(|c| count(&c.entry))
            .sum())
    }

    /// The newest step's id, 0 for an empty journal.
    pub fn last_step(&self) -> Result<u64, JournalError> {
        self.refresh_segments()?;
        Ok(self.last_step_here()?.max(self.closed_last().0))
    }

    /// How many steps the journal holds (the closed segments' as their manifest says).
    pub fn step_count(&self) -> Result<u64, JournalError> {
        Ok(self.closed_sum(|e| e.steps)? + self.step_count_here()?)
    }

    /// The core times of the first and last steps (ms), `(0, 0)` for an empty journal.
    pub fn time_span(&self) -> Result<(u64, u64), JournalError> {
        self.refresh_segments()?;
        let (first, last) = self.time_span_here()?;
        let segs = self.segments.borrow();
        let Some(oldest) = segs.closed.first() else {
            return Ok((first, last));
        };
        let own_empty = self.step_count_here()? == 0;
        let closed_last = segs.closed.iter().map(|c| c.entry.last_t_ms).max();
        Ok((
            oldest.entry.first_t_ms,
            if own_empty {
                closed_last.unwrap_or(0)
            } else {
                last.max(closed_last.unwrap_or(0))
            },
        ))
    }

    /// How many batches were dropped over the journal's life.
    pub fn dropped_batches(&self) -> Result<u64, JournalError> {
        Ok(self.closed_sum(|e| e.dropped_batches)? + self.dropped_batches_here()?)
    }

    /// The bytes the journal takes: the open segment's pages (its free pages not counted)
    /// and the closed segments still at their place. The size cap counts them all.
    pub fn size_bytes(&self) -> Result<u64, JournalError> {
        Ok(self.size_bytes_here()? + self.closed_bytes())
    }

    /// Chooses when a new segment starts (`journal.segment`).
    pub fn set_segment_rule(&mut self, rule: SegmentRule) {
        self.rule = rule;
    }

    /// The clock that dates steps under [`SegmentRule::Day`] (UTC seconds); the system's
    /// by default. A replay of a recorded day, or a test, gives its own.
    pub fn set_wall_clock(&mut self, clock: fn() -> u64) {
        self.wall_clock = clock;
    }

    /// Appends several batches in one transaction (the writer groups whatever is queued);
    /// the step that starts a new round (or the first of a new day) first closes the open
    /// segment, so that it and what follows go to a new one.
    pub fn append_all<'a>(
        &mut self,
        batches: impl IntoIterator<Item = &'a Batch>,
    ) -> Result<(), JournalError> {
        if self.rule == SegmentRule::Off || self.segments.get_mut().manifest.is_none() {
            return self.append_here(batches);
        }
        let mut pending: Vec<Cow<'a, Batch>> = Vec::new();
        for batch in batches {
            let mut rest = Cow::Borrowed(batch);
            while let Some((at, label)) = self.next_segment_in(&rest)? {
                let (before, after) = rest.split_at(at);
                pending.push(Cow::Owned(before));
                self.append_here(pending.iter().map(|b| b.as_ref()))?;
                pending.clear();
                // The round in play is never stopped by a failed rotation: the journal
                // goes on in the same segment, under the new label.
                if let Err(e) = self.close_segment(&label) {
                    tracing::error!(
                        kind = e.kind(),
                        "journal segment not closed, the journal goes on in it: {e}"
                    );
                }
                // Either way the open segment is the new round's now: the same step never
                // asks for a new segment twice.
                self.segments.get_mut().open_label = Some(label);
                rest = Cow::Owned(after);
            }
            pending.push(rest);
        }
        self.append_here(pending.iter().map(|b| b.as_ref()))
    }

    /// The first step of `batch` that starts a new segment, with the segment's label. A
    /// label for an open segment without one is taken on the way (the steps before the
    /// first pairings belong to round 1).
    fn next_segment_in(&mut self, batch: &Batch) -> Result<Option<(usize, String)>, JournalError> {
        let day = (self.rule == SegmentRule::Day && !batch.is_empty())
            .then(|| day_label((self.wall_clock)()));
        for (i, step) in batch.steps().iter().enumerate() {
            let label = match self.rule {
                SegmentRule::Round => step.events.iter().find_map(|e| match &e.body {
                    EventBody::Pairings(p) => Some(format!("r{}", p.round)),
                    _ => None,
                }),
                SegmentRule::Day if i == 0 => day.clone(),
                _ => None,
            };
            let Some(label) = label else { continue };
            let open = self.segments.get_mut().open_label.clone();
            let newer = match (&open, self.rule) {
                (None, _) => false,
                (Some(open), SegmentRule::Round) => {
                    let n = |l: &str| l.strip_prefix('r').and_then(|n| n.parse::<u32>().ok());
                    matches!((n(open), n(&label)), (Some(a), Some(b)) if b > a)
                }
                (Some(open), _) => *open != label,
            };
            let own = self.own_steps() + i as u64;
            if newer && own > 0 {
                return Ok(Some((i, label)));
            }
            if open.is_none() || newer {
                self.set_open_label(&label)?;
            }
        }
        Ok(None)
    }

    fn own_steps(&mut self) -> u64 {
        let (last_step, _) = self.closed_last();
        self.next_step().saturating_sub(last_step + 1)
    }

    fn set_open_label(&mut self, label: &str) -> Result<(), JournalError> {
        let Some(path) = self.segments.get_mut().manifest.clone() else {
            return Ok(());
        };
        let mut manifest = read_manifest(&path)?;
        manifest.open_label = Some(label.to_string());
        write_manifest(&path, &manifest)?;
        self.segments.get_mut().open_label = Some(label.to_string());
        Ok(())
    }

    /// Closes the open segment: sealed, copied compactly to its sibling, checked, made
    /// read-only and listed; then its steps leave the open segment. `next` labels the new
    /// open segment.
    fn close_segment(&mut self, next: &str) -> Result<(), JournalError> {
        let started = std::time::Instant::now();
        let manifest_path = manifest_path(self.path());
        self.seal_all()?;
        let (closed_step, _) = self.closed_last();
        let label = self
            .segments
            .get_mut()
            .open_label
            .clone()
            .unwrap_or_else(|| "r0".into());
        let err = |p: &Path, e| JournalError::from_sqlite(p, e);
        let range: (i64, i64, Option<i64>, Option<i64>, i64, i64, i64) = self
            .conn
            .query_row(
                "SELECT min(first_step), max(last_step), min(first_seq), max(last_seq), \
                 min(first_t_ms), max(last_t_ms), coalesce(sum(step_count), 0) \
                 FROM blocks WHERE last_step > ?1",
                [closed_step as i64],
                |r| {
                    Ok((
                        r.get::<_, Option<i64>>(0)?.unwrap_or(0),
                        r.get::<_, Option<i64>>(1)?.unwrap_or(0),
                        r.get(2)?,
                        r.get(3)?,
                        r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                        r.get::<_, Option<i64>>(5)?.unwrap_or(0),
                        r.get(6)?,
                    ))
                },
            )
            .map_err(|e| self.err(e))?;
        let dropped = self.dropped_batches_here()?;
        let ext = extension(self.path());
        let mut target = sibling(self.path(), &format!(".{label}{ext}"));
        let mut n = 2;
        while target.exists() {
            target = sibling(self.path(), &format!(".{label}-{n}{ext}"));
            n += 1;
        }
        let tmp = sibling(self.path(), &format!(".{label}{ext}.closing"));
        let _ = std::fs::remove_file(&tmp);
        self.conn
            .execute("VACUUM INTO ?1", [tmp.to_string_lossy()])
            .map_err(|e| self.err(e))?;
        let checked = (|| {
            let c = rusqlite::Connection::open(&tmp).map_err(|e| err(&tmp, e))?;
            // A closed segment is opened read-only: no WAL, whose side files a read-only
            // reader could not create.
            c.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))
                .map_err(|e| err(&tmp, e))?;
            drop_snapshots(&c).map_err(|e| err(&tmp, e))?;
            let rows: Vec<String> = c
                .prepare("PRAGMA quick_check")
                .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
                .map_err(|e| err(&tmp, e))?;
            if rows != ["ok"] {
                return Err(JournalError::Corrupt {
                    path: tmp.clone(),
                    detail: rows.join("; "),
                });
            }
            Ok(())
        })();
        if let Err(e) = checked {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        {
            use std::os::unix::fs::PermissionsExt;
            let f = std::fs::File::open(&tmp).map_err(|e| io_error(&tmp, e))?;
            f.sync_all().map_err(|e| io_error(&tmp, e))?;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o444))
                .map_err(|e| io_error(&tmp, e))?;
        }
        std::fs::rename(&tmp, &target).map_err(|e| io_error(&target, e))?;
        sync_dir(&target);
        let meta = std::fs::metadata(&target).map_err(|e| io_error(&target, e))?;
        let entry = SegmentEntry {
            file: target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            label,
            first_step: range.0 as u64,
            last_step: range.1 as u64,
            first_seq: range.2.map(|s| s as u64),
            last_seq: range.3.map(|s| s as u64),
            first_t_ms: range.4 as u64,
            last_t_ms: range.5 as u64,
            steps: range.6 as u64,
            dropped_batches: dropped,
            size_bytes: meta.len(),
            mtime_ms: mtime_ms(&meta),
            checked: "quick_check: ok".into(),
            checked_at_s: unix_s(),
        };
        let mut manifest = read_manifest(&manifest_path)?;
        manifest.closed.push(entry.clone());
        manifest.open_label = Some(next.to_string());
        write_manifest(&manifest_path, &manifest)?;
        {
            let mut segs = std::mem::take(self.segments.get_mut());
            let reloaded = self.reload_segments(&mut segs, true);
            *self.segments.get_mut() = segs;
            reloaded?;
        }
        if self.closed_last().0 != entry.last_step {
            return Err(JournalError::BadRow {
                path: manifest_path,
                detail: "the segment just closed is not in the manifest read back".into(),
            });
        }
        self.drop_closed_steps()?;
        if let Some(cap) = self.max_size() {
            self.set_max_size(cap)?;
        }
        tracing::info!(
            segment = %target.display(),
            steps = entry.steps,
            size_bytes = entry.size_bytes,
            ms = started.elapsed().as_millis() as u64,
            "journal segment closed (checked, read-only)"
        );
        Ok(())
    }

    /// Removes from the open segment what closed segments hold (at closing, and at open
    /// after a crash between the manifest's write and this), keeping the games not finished
    /// and the alerts not acknowledged; gives the freed pages back.
    pub(crate) fn drop_closed_steps(&mut self) -> Result<(), JournalError> {
        let (step, seq) = self.closed_last();
        if step == 0 {
            return Ok(());
        }
        let path = self.path().to_path_buf();
        let err = |e| JournalError::from_sqlite(&path, e);
        let (step, seq) = (step as i64, seq as i64);
        let tx = self.conn.transaction().map_err(err)?;
        tx.execute("DELETE FROM blocks WHERE last_step <= ?1", [step])
            .map_err(err)?;
        tx.execute("DELETE FROM events WHERE step <= ?1", [step])
            .map_err(err)?;
        let removed_steps = tx
            .execute("DELETE FROM steps WHERE id <= ?1", [step])
            .map_err(err)?;
        tx.execute(
            "DELETE FROM games WHERE end_seq IS NOT NULL AND end_seq <= ?1",
            [seq],
        )
        .map_err(err)?;
        tx.execute(
            "DELETE FROM alerts WHERE id <= ?1 \
             AND EXISTS (SELECT 1 FROM acks k WHERE k.alert = alerts.id)",
            [seq],
        )
        .map_err(err)?;
        tx.execute(
            "DELETE FROM acks WHERE step <= ?1 AND alert NOT IN (SELECT id FROM alerts)",
            [step],
        )
        .map_err(err)?;
        tx.execute("DELETE FROM gaps WHERE after_step <= ?1", [step])
            .map_err(err)?;
        tx.commit().map_err(err)?;
        self.row_steps = self.row_steps.saturating_sub(removed_steps as u64);
        self.give_back_pages()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_labels_are_utc_dates() {
        assert_eq!(day_label(0), "1970-01-01");
        assert_eq!(day_label(1_795_737_600), "2026-11-27");
        assert_eq!(day_label(951_782_400), "2000-02-29");
    }

    #[test]
    fn segment_names_follow_the_open_file() {
        let open = Path::new("/var/lib/dgt/journal.sqlite");
        assert_eq!(
            sibling(open, ".r3.sqlite"),
            Path::new("/var/lib/dgt/journal.r3.sqlite")
        );
        assert_eq!(
            manifest_path(open),
            Path::new("/var/lib/dgt/journal.segments.json")
        );
    }
}
