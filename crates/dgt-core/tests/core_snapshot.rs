//! A core saved to bytes and restored mid-input answers the rest of the input exactly as
//! the core that never stopped: the same events, byte for byte (JSON, seqs, alert ids). Cut
//! at every step of the real blitz capture and the bughouse match, after the timers have
//! been run to a point between two inputs, and at random points of random harsh play on
//! two boards (paired in bughouse or not).

mod common;

use common::*;
use dgt_core::arbitrary_play;
use dgt_core::bughouse::Regulation;
use dgt_core::capture::parse_capture;
use dgt_core::{Core, CoreConfig, Event, Input, SnapshotError};
use dgt_testkit::fixtures::{capture_text, real_game_capture};
use proptest::prelude::*;

fn json(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect()
}

/// How a run is cut: never, once before input `k` (the timers first run to halfway between
/// the input before and `k` when `halfway`), or before every input.
#[derive(Clone, Copy)]
enum Cut {
    Never,
    Before { k: usize, halfway: bool },
    Everywhere,
}

/// The core saved and restored; the restored core must save to the same bytes.
fn through_bytes(core: &Core, config: &CoreConfig) -> Core {
    let bytes = core.snapshot();
    let restored = Core::restore(config.clone(), &bytes).expect("the snapshot restores");
    assert_eq!(restored.next_seq(), core.next_seq());
    assert_eq!(restored.next_deadline(), core.next_deadline());
    assert!(
        restored.snapshot() == bytes,
        "a restored core saves to the bytes it was restored from"
    );
    assert!(
        core.image().to_bytes() == bytes,
        "the core's image saves to the core's own bytes"
    );
    restored
}

/// Feeds `inputs`, cut as `cut` says, then runs the timers out: the events as JSON, and how
/// many cuts had a timer pending.
fn run(config: &CoreConfig, inputs: &[Input], cut: Cut) -> (Vec<String>, usize) {
    let mut core = Core::new(config.clone());
    let mut out = Vec::new();
    let mut pending_at_cut = 0;
    for (k, input) in inputs.iter().enumerate() {
        let here = match cut {
            Cut::Never => false,
            Cut::Before { k: at, .. } => at == k,
            Cut::Everywhere => true,
        };
        if here {
            if let Cut::Before { halfway: true, .. } = cut
                && k > 0
            {
                let mid = (inputs[k - 1].t_ms + input.t_ms) / 2;
                out.extend(core.advance(mid));
            }
            pending_at_cut += usize::from(core.next_deadline().is_some());
            core = through_bytes(&core, config);
        }
        out.extend(core.handle(input));
    }
    let end = inputs.last().map_or(0, |i| i.t_ms) + 120_000;
    out.extend(core.advance(end));
    (json(&out), pending_at_cut)
}

/// Every cut point `ks` (and a restore before every input) gives the uncut run's events.
fn same_events_whatever_the_cut(config: &CoreConfig, inputs: &[Input], ks: &[usize]) -> usize {
    let (whole, _) = run(config, inputs, Cut::Never);
    assert!(!whole.is_empty());
    let (everywhere, pending) = run(config, inputs, Cut::Everywhere);
    assert_eq!(everywhere, whole, "restored before every input");
    for &k in ks {
        for halfway in [false, true] {
            let (cut, _) = run(config, inputs, Cut::Before { k, halfway });
            if cut != whole {
                let at = cut.iter().zip(&whole).position(|(a, b)| a != b);
                panic!(
                    "cut before input {k} (halfway {halfway}): first difference at event {at:?}:\n  cut:   {:?}\n  whole: {:?}",
                    at.and_then(|i| cut.get(i)),
                    at.and_then(|i| whole.get(i))
                );
            }
        }
    }
    pending
}

#[test]
fn the_real_blitz_game_cut_anywhere_gives_the_same_events() {
    let inputs = parse_capture(&real_game_capture()).unwrap();
    // Restored before every input in one run; cut once (each its own run) every 19 inputs.
    let ks: Vec<usize> = (0..inputs.len()).step_by(19).collect();
    let pending = same_events_whatever_the_cut(&CoreConfig::default(), &inputs, &ks);
    // Cuts fell while the settle, a press's verdict or a correction window was pending.
    assert!(
        pending > inputs.len() / 2,
        "{pending} cuts with a timer pending"
    );
}

#[test]
fn the_bughouse_match_cut_at_every_step_gives_the_same_events() {
    let inputs = parse_capture(&capture_text("bughouse-match.jsonl")).unwrap();
    let config = arbitrary_play::config(Some(Regulation::DjcStein));
    let ks: Vec<usize> = (0..inputs.len()).collect();
    same_events_whatever_the_cut(&config, &inputs, &ks);
}

/// A game under way when the board is first heard from, a press made without a move and
/// judged later, a flag falling: cut at every step.
#[test]
fn a_harsh_game_cut_at_every_step_gives_the_same_events() {
    let mut b = Board::new();
    // The board is first heard from in the middle of a game (no start position).
    b.dump_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    b.wait(600);
    b.start_clock(300).wait(800);
    b.mv("f1", "c4", 'B').wait(300).press().wait(700);
    // A press without a move (7.5.3 offence), then a real move; a piece knocked off and
    // put back.
    b.press().wait(2000);
    b.lift("a2").wait(4000).put("a2", 'P').wait(1500);
    b.mv("g8", "f6", 'n').wait(300).press().wait(900);
    b.mv("d2", "d3", 'P').wait(300).press().wait(40_000);
    let inputs = b.inputs.clone();
    let ks: Vec<usize> = (0..inputs.len()).collect();
    same_events_whatever_the_cut(&CoreConfig::default(), &inputs, &ks);
}

/// The image is saved after the core has moved on (on another thread, in the daemon): it
/// holds the state of the step it was taken at, whatever the core did since.
#[test]
fn an_image_saves_the_state_it_was_taken_at_after_the_core_moved_on() {
    let inputs = parse_capture(&real_game_capture()).unwrap();
    let config = CoreConfig::default();
    let mut core = Core::new(config.clone());
    let half = inputs.len() / 2;
    for input in &inputs[..half] {
        core.handle(input);
    }
    let at_half = core.snapshot();
    let image = core.image();
    let mut after = Vec::new();
    for input in &inputs[half..] {
        after.extend(core.handle(input));
    }
    assert!(
        !after.is_empty(),
        "the core produced events after the image"
    );
    assert_ne!(core.snapshot(), at_half, "the core's state moved on");
    assert_eq!(image.next_seq(), after[0].seq);
    let bytes = image.to_bytes();
    assert!(
        bytes == at_half,
        "the image saves the state at the step it was taken"
    );
    let mut restored = Core::restore(config, &bytes).unwrap();
    let mut again = Vec::new();
    for input in &inputs[half..] {
        again.extend(restored.handle(input));
    }
    assert_eq!(json(&again), json(&after));
}

#[test]
fn a_snapshot_of_another_program_version_or_damaged_is_refused() {
    let inputs = parse_capture(&real_game_capture()).unwrap();
    let mut core = Core::new(CoreConfig::default());
    for i in &inputs[..100] {
        core.handle(i);
    }
    let bytes = core.snapshot();
    let header_end = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(2)
        .unwrap()
        .0;
    let mut older = format!(
        "dgt-core-snapshot\n{}\n0.0.1/state-0\n",
        dgt_core::SNAPSHOT_FORMAT
    )
    .into_bytes();
    older.extend_from_slice(&bytes[header_end + 1..]);
    assert!(matches!(
        Core::restore(CoreConfig::default(), &older),
        Err(SnapshotError::OtherVersion { found }) if found == "0.0.1/state-0"
    ));
    let mut damaged = bytes.clone();
    let n = damaged.len();
    damaged.truncate(n - n / 3);
    assert!(matches!(
        Core::restore(CoreConfig::default(), &damaged),
        Err(SnapshotError::Decode(_))
    ));
    assert_eq!(
        Core::restore(CoreConfig::default(), b"{\"not\": \"a snapshot\"}").err(),
        Some(SnapshotError::NotASnapshot)
    );
    // The undamaged bytes restore.
    assert!(Core::restore(CoreConfig::default(), &bytes).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]
    /// Random play on two boards (pieces moved legally and not, drops, presses, dumps,
    /// set-ups, raw bytes), paired in bughouse or not: cut at a random point, it gives the
    /// uncut run's events (the harsh core is slow in a debug build: a few cases per run).
    #[test]
    fn random_harsh_play_cut_anywhere_gives_the_same_events(
        data in prop::collection::vec(any::<u8>(), 0..800),
        rules in prop::sample::select(vec![None, Some(Regulation::DjcStein), Some(Regulation::Knsb2000), Some(Regulation::Flemish)]),
        at in any::<prop::sample::Index>(),
        halfway in any::<bool>(),
    ) {
        let config = arbitrary_play::config(rules);
        let inputs = arbitrary_play::inputs(&data);
        prop_assume!(!inputs.is_empty());
        let (whole, _) = run(&config, &inputs, Cut::Never);
        let k = at.index(inputs.len());
        let (cut, _) = run(&config, &inputs, Cut::Before { k, halfway });
        prop_assert_eq!(&cut, &whole);
    }
}
