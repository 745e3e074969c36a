//! Restart after a crash: the core is rebuilt from the journal and must produce exactly the
//! journaled events. The core is deterministic (its only clock is the `t_ms` it is given), so
//! the rebuilt core is in the very state the lost one was in, and numbers its next event
//! `last_seq + 1`: clients resuming by seq see no gap and no duplicate.
//!
//! The newest core snapshot that restores (`snapshots.rs`) is the starting point: only the
//! steps after it are replayed, and compared with the events journaled after it — a restart
//! costs the steps since the last snapshot, not the whole event. Without a usable snapshot
//! (none yet, another program version's, damaged), or when the steps after it do not replay
//! exactly, a fresh core is fed every step, as before.

use std::time::{Duration, Instant};

use dgt_core::{Core, CoreConfig};

use crate::batch::Cause;
use crate::error::JournalError;
use crate::journal::Journal;
use crate::snapshots::SnapshotEntry;

/// What recovery found. `mismatches == 0` and `seq_continues` is the normal case; anything
/// else (another program version, a gap) is for the arbiter's log and a review alert.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// The step after which the core was restored from a snapshot; `None` when every step
    /// was replayed through a fresh core.
    pub from_snapshot: Option<u64>,
    /// Why the newest snapshot was not used, when there is one and it was not.
    pub snapshot_refused: Option<String>,
    /// Steps replayed (inputs and timer firings): after the snapshot when there is one.
    pub steps: u64,
    /// Journaled and regenerated events compared (after the snapshot when there is one).
    pub journaled_events: u64,
    pub regenerated_events: u64,
    /// Positions where the regenerated event differs from the journaled one (or one side
    /// ran out).
    pub mismatches: u64,
    /// The journaled seq at the first mismatch.
    pub first_mismatch_seq: Option<u64>,
    /// The journal's last seq (0 when empty).
    pub last_seq: u64,
    /// The seq the returned core gives its next event.
    pub next_seq: u64,
    /// False if the core could not be made to continue at `last_seq + 1`.
    pub seq_continues: bool,
    /// Batches the writer dropped over the journal's life (replay past them cannot match).
    pub dropped_batches: u64,
    pub duration: Duration,
}

impl RecoveryReport {
    /// True when the journal was replayed to exactly the events it holds.
    pub fn is_exact(&self) -> bool {
        self.mismatches == 0 && self.seq_continues && self.dropped_batches == 0
    }
}

/// Rebuilds the core from the journal. The returned core continues with `last_seq + 1`.
pub fn recover(
    journal: &Journal,
    config: CoreConfig,
) -> Result<(Core, RecoveryReport), JournalError> {
    recover_with(journal, config, |_, _| {})
}

/// What a restarted daemon needs besides the core: the events to show its clients again and
/// the time the journal had reached.
#[derive(Debug, Default)]
pub struct Recovered {
    /// Every event the replay produced, in seq order (the journaled ones when it is exact);
    /// empty after a restore from a core snapshot (see `events_complete`).
    pub events: Vec<dgt_core::Event>,
    /// False when `events` lacks the events before the core snapshot restored: whoever needs
    /// the whole history reads it with [`journaled_events`].
    pub events_complete: bool,
    /// The latest core time in the journal (ms); a restarted daemon's clock continues from it.
    pub last_t_ms: u64,
    /// Alerts the arbiter acknowledged (`ack` operations), in order.
    pub acks: Vec<u64>,
}

/// [`recover`], also collecting what [`Recovered`] holds.
pub fn recover_collecting(
    journal: &Journal,
    config: CoreConfig,
) -> Result<(Core, RecoveryReport, Recovered), JournalError> {
    let mut recovered = Recovered::default();
    let (core, report) = recover_with(journal, config, |cause, events| {
        recovered.last_t_ms = recovered.last_t_ms.max(cause.t_ms());
        if let Cause::Input(dgt_core::Input {
            kind: dgt_core::InputKind::Op(dgt_core::Operation::Ack(id)),
            ..
        }) = cause
        {
            recovered.acks.push(*id);
        }
        recovered.events.extend(events.iter().cloned());
    })?;
    if report.from_snapshot.is_some() {
        // The steps before the snapshot were not replayed: their acks are read as journaled,
        // and the events are left to the caller, who mostly needs only those after its views
        // snapshot ([`journaled_events`] reads them all when it has none).
        recovered.events.clear();
        recovered.acks = journal.acked_alerts()?;
        recovered.last_t_ms = recovered.last_t_ms.max(journal.time_span()?.1);
        return Ok((core, report, recovered));
    }
    // A second pass (seq shifted) regenerates the events again: keep the last pass only
    // (acknowledging twice is harmless).
    let n = report.regenerated_events as usize;
    if recovered.events.len() > n {
        let excess = recovered.events.len() - n;
        recovered.events.drain(..excess);
    }
    recovered.events_complete = true;
    Ok((core, report, recovered))
}

/// Every journaled event, in seq order.
pub fn journaled_events(journal: &Journal) -> Result<Vec<dgt_core::Event>, JournalError> {
    let mut events = Vec::new();
    let mut bad = None;
    journal.for_each_event(|seq, json| match serde_json::from_str(&json) {
        Ok(e) => {
            events.push(e);
            true
        }
        Err(e) => {
            bad = Some(format!("event {seq}: {e}"));
            false
        }
    })?;
    match bad {
        Some(detail) => Err(JournalError::BadRow {
            path: journal.path().to_path_buf(),
            detail,
        }),
        None => Ok(events),
    }
}

/// A core restored from a snapshot, and the snapshot.
type Restored = (Core, SnapshotEntry);

/// The newest snapshot that restores under `config`, with the reason the newest one did not
/// when an older one (or none) is used.
fn newest_usable(
    journal: &Journal,
    config: &CoreConfig,
) -> Result<(Option<Restored>, Option<String>), JournalError> {
    let mut refused = None;
    for entry in journal.snapshots()? {
        let Some(bytes) = journal.snapshot_bytes(entry.id)? else {
            continue;
        };
        let why = match Core::restore(config.clone(), &bytes) {
            Ok(core) if core.next_seq() == entry.next_seq => {
                return Ok((Some((core, entry)), refused));
            }
            Ok(core) => format!(
                "it continues at seq {}, the journal says {}",
                core.next_seq(),
                entry.next_seq
            ),
            Err(e) => e.to_string(),
        };
        tracing::warn!(
            path = %journal.path().display(),
            after_step = entry.after_step,
            reason = %why,
            "a core snapshot in the journal is not used"
        );
        refused.get_or_insert(format!("snapshot after step {}: {why}", entry.after_step));
    }
    Ok((None, refused))
}

fn recover_with(
    journal: &Journal,
    config: CoreConfig,
    mut on_step: impl FnMut(&Cause, &[dgt_core::Event]),
) -> Result<(Core, RecoveryReport), JournalError> {
    let started = Instant::now();
    let last_seq = journal.last_seq()?;
    let first_seq = journal.first_seq()?.unwrap_or(last_seq + 1);
    let dropped_batches = journal.dropped_batches()?;
    let (usable, snapshot_refused) = newest_usable(journal, &config)?;
    if let Some((mut core, entry)) = usable {
        let mut report = RecoveryReport {
            from_snapshot: Some(entry.after_step),
            snapshot_refused: snapshot_refused.clone(),
            last_seq,
            dropped_batches,
            ..Default::default()
        };
        replay_compared(
            journal,
            &mut core,
            entry.after_step,
            &mut report,
            &mut on_step,
        )?;
        report.next_seq = core.next_seq();
        report.seq_continues = report.next_seq == last_seq + 1;
        // A gap before the snapshot does not matter: the snapshot is the live core's state.
        report.dropped_batches = journal.dropped_batches_after(entry.after_step)?;
        if report.is_exact() {
            report.duration = started.elapsed();
            tracing::info!(
                path = %journal.path().display(),
                after_step = entry.after_step,
                steps = report.steps,
                events = report.journaled_events,
                next_seq = report.next_seq,
                ms = report.duration.as_millis() as u64,
                "core restored from its snapshot; the steps after it replayed exactly"
            );
            return Ok((core, report));
        }
        tracing::warn!(
            path = %journal.path().display(),
            after_step = entry.after_step,
            mismatches = report.mismatches,
            "the steps after the core snapshot do not replay to the journaled events; replaying the whole journal"
        );
    }
    let mut report = RecoveryReport {
        snapshot_refused,
        last_seq,
        dropped_batches,
        ..Default::default()
    };

    let mut core = Core::with_first_seq(config.clone(), first_seq);
    replay_compared(journal, &mut core, 0, &mut report, &mut on_step)?;

    // The replay differed in length (another program version, or a gap): number the next
    // event after the journal's last one anyway, by replaying again from a shifted start.
    if core.next_seq() != last_seq + 1 {
        let regenerated = report.regenerated_events;
        if regenerated <= last_seq {
            core = Core::with_first_seq(config, last_seq + 1 - regenerated);
            journal.replay(
                |cause| {
                    let events = run_step(&mut core, &cause);
                    on_step(&cause, &events);
                    events
                },
                |_, _| {},
            )?;
        }
    }
    report.next_seq = core.next_seq();
    report.seq_continues = report.next_seq == last_seq + 1;
    report.duration = started.elapsed();

    if report.is_exact() {
        tracing::info!(
            path = %journal.path().display(),
            steps = report.steps,
            events = report.journaled_events,
            next_seq = report.next_seq,
            ms = report.duration.as_millis() as u64,
            "journal replayed exactly"
        );
    } else {
        tracing::error!(
            path = %journal.path().display(),
            mismatches = report.mismatches,
            first_mismatch_seq = report.first_mismatch_seq,
            dropped_batches = report.dropped_batches,
            seq_continues = report.seq_continues,
            "journal replay differs from the journaled events; the arbiter should review"
        );
    }
    Ok((core, report))
}

/// Feeds `core` the steps after `after_step`, comparing what it produces with the journaled
/// events of those steps into `report`.
fn replay_compared(
    journal: &Journal,
    core: &mut Core,
    after_step: u64,
    report: &mut RecoveryReport,
    on_step: &mut impl FnMut(&Cause, &[dgt_core::Event]),
) -> Result<(), JournalError> {
    let mut steps = 0u64;
    let mut written = Vec::new();
    journal.replay_after(
        after_step,
        |cause| {
            steps += 1;
            let events = run_step(core, &cause);
            on_step(&cause, &events);
            events
        },
        |journaled, produced| {
            if let Some((seq, _)) = &journaled {
                report.journaled_events += 1;
                report.last_seq = report.last_seq.max(*seq);
            }
            if produced.is_some() {
                report.regenerated_events += 1;
            }
            let same = match (&journaled, produced) {
                // `Event::to_json`'s text, written into one buffer kept for the replay.
                (Some((_, json)), Some(p)) => {
                    written.clear();
                    match serde_json::to_writer(&mut written, p) {
                        Ok(()) => json.as_bytes() == written.as_slice(),
                        Err(_) => json.is_empty(),
                    }
                }
                _ => false,
            };
            if !same {
                report.mismatches += 1;
                if report.first_mismatch_seq.is_none() {
                    report.first_mismatch_seq = journaled
                        .as_ref()
                        .map(|(s, _)| *s)
                        .or(produced.map(|p| p.seq));
                }
            }
        },
    )?;
    report.steps = steps;
    Ok(())
}

/// The core replayed from the journal's first step through step `last`: the state a
/// snapshot naming that step must hold (a test or a post-mortem checks one against it).
pub fn core_after_step(
    journal: &Journal,
    config: CoreConfig,
    last: u64,
) -> Result<Core, JournalError> {
    let first_seq = journal.first_seq()?.unwrap_or(journal.last_seq()? + 1);
    let mut core = Core::with_first_seq(config, first_seq);
    journal.for_each_step(|id, cause| {
        if id > last {
            return false;
        }
        run_step(&mut core, &cause);
        true
    })?;
    Ok(core)
}

/// One step through the core, exactly as the daemon made it.
pub fn run_step(core: &mut Core, cause: &Cause) -> Vec<dgt_core::Event> {
    match cause {
        Cause::Input(input) => core.handle(input),
        Cause::Timers { until_ms } => core.advance(*until_ms),
    }
}
