//! How much the deterministic core can take. Run: `cargo bench --bench core_load`.
//!
//! * board inputs per second per core through decoding, move reconstruction and the
//!   arbiter, on the emulated corpus (varied time controls and human handling), many boards
//!   interleaved in one core as in the daemon;
//! * the dead-position check (FIDE 5.2.2) the arbiter runs after every move, on the
//!   positions of the corpus games;
//! * a restarted daemon replaying a whole round from its journal: 200 boards × 5 hours of
//!   generated play.

use std::sync::OnceLock;

use dgt_core::{Core, CoreConfig, EventBody, Input};
use dgt_emulator::{corpus_spec, generate_game};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

fn main() {
    divan::main();
}

/// Corpus games played at once, one board each.
const CORPUS_BOARDS: usize = 40;

/// `cargo bench` passes `--bench`; `cargo test --all-targets` (CI) runs each benchmark once
/// as a test, on a small load so the test suite stays quick.
fn full_size() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// Each board's games back to back (a pause between two), until `end_ms` of play; the
/// inputs of all boards merged in time order.
fn play(boards: usize, first_seed: u64, end_ms: u64) -> Vec<Input> {
    let mut all = Vec::new();
    for b in 0..boards {
        let label = format!("board-{}", 10001 + b);
        let mut t0 = 0;
        let mut game = 0u64;
        while t0 < end_ms {
            let seed = first_seed + (b as u64) * 1000 + game;
            let generated = generate_game(corpus_spec(seed));
            let mut last = t0;
            for mut input in dgt_lab::verify::inputs_of(&generated, &label) {
                input.t_ms += t0;
                if input.t_ms >= end_ms {
                    break;
                }
                last = input.t_ms;
                all.push(input);
            }
            t0 = last + 60_000;
            game += 1;
        }
    }
    all.sort_by_key(|i| i.t_ms);
    all
}

/// One game per corpus board (hours = 0 still plays each board's first game to its end).
fn corpus() -> &'static [Input] {
    static INPUTS: OnceLock<Vec<Input>> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let mut all = Vec::new();
        let boards = if full_size() { CORPUS_BOARDS } else { 2 };
        for b in 0..boards {
            let label = format!("board-{}", 10001 + b);
            all.extend(dgt_lab::verify::inputs_of(
                &generate_game(corpus_spec(1 + b as u64)),
                &label,
            ));
        }
        all.sort_by_key(|i| i.t_ms);
        all
    })
}

/// Feeds `inputs` as the daemon does: timers fired when due, then the input.
fn run_core(inputs: &[Input]) -> usize {
    // Each run starts with nothing remembered from the last one (dead-position verdicts).
    dgt_core::dead::forget_remembered();
    let mut core = Core::new(CoreConfig::default());
    let mut events = 0;
    for input in inputs {
        while let Some(d) = core.next_deadline().filter(|&d| d <= input.t_ms) {
            events += core.advance(d).len();
        }
        events += core.handle(divan::black_box(input)).len();
    }
    events
}

/// Board inputs (each a chunk of bytes read from a port: field updates, clock frames,
/// replies) through the whole core. Items per second is board inputs per second per core.
#[divan::bench(sample_count = 10)]
fn board_inputs_through_the_core(bencher: divan::Bencher) {
    let inputs = corpus();
    bencher
        .counter(divan::counter::ItemsCount::new(inputs.len()))
        .bench(|| run_core(inputs));
}

/// Every position after a move of the corpus games.
fn positions() -> &'static [Chess] {
    static POSITIONS: OnceLock<Vec<Chess>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        let mut core = Core::new(CoreConfig::default());
        let mut out = Vec::new();
        let mut see = |events: Vec<dgt_core::Event>| {
            for e in events {
                if let EventBody::Move(m) = e.body
                    && let Ok(fen) = m.fen.parse::<Fen>()
                    && let Ok(pos) = fen.into_position(CastlingMode::Standard)
                {
                    out.push(pos);
                }
            }
        };
        for input in corpus() {
            while let Some(d) = core.next_deadline().filter(|&d| d <= input.t_ms) {
                see(core.advance(d));
            }
            see(core.handle(input));
        }
        assert!(!out.is_empty(), "the corpus has moves");
        out
    })
}

/// The dead-position check the arbiter makes after each move (fast check, then the full
/// search when one side is proved unable to mate), each position analysed anew (the verdicts
/// the core remembers are forgotten before each). Items: moves.
#[divan::bench(sample_count = 10)]
fn dead_position_check_per_move(bencher: divan::Bencher) {
    let positions = positions();
    bencher
        .counter(divan::counter::ItemsCount::new(positions.len()))
        .bench(|| {
            positions
                .iter()
                .filter(|p| {
                    dgt_core::dead::forget_remembered();
                    dgt_core::dead::is_dead(divan::black_box(p), CastlingMode::Standard)
                        == dgt_core::dead::MateAbility::CannotMate
                })
                .count()
        });
}

const ROUND_BOARDS: usize = 200;
const ROUND_HOURS: u64 = 5;

/// A journal of a whole round, written as the daemon writes it: each input with its events,
/// timers fired when due. Made in a temporary directory that the caller keeps (and removes).
fn round_journal() -> (tempfile::TempDir, std::path::PathBuf) {
    let started = std::time::Instant::now();
    let (boards, minutes) = if full_size() {
        (ROUND_BOARDS, ROUND_HOURS * 60)
    } else {
        // The test run (`cargo test --benches`) replays a short round: two boards, 20 minutes.
        (2, 20)
    };
    let inputs = play(boards, 100_000, minutes * 60_000);
    assert!(!inputs.is_empty(), "the round has board inputs");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("round.sqlite");
    let mut journal = dgt_journal::Journal::open(&path).expect("a new journal");
    let mut core = Core::new(CoreConfig::default());
    let mut batch = dgt_journal::Batch::new();
    for input in inputs.iter() {
        while let Some(d) = core.next_deadline().filter(|&d| d <= input.t_ms) {
            batch.record_timers(d, core.advance(d));
        }
        let events = core.handle(input);
        batch.record_input(input.clone(), events);
        if batch.steps().len() >= 20_000 {
            journal.append_all([&batch]).expect("journal written");
            batch = dgt_journal::Batch::new();
        }
    }
    journal.append_all([&batch]).expect("journal written");
    drop(journal);
    eprintln!(
        "round journal: {boards} boards x {minutes} min, {} inputs, {:.0} MiB, made in {:.0} s",
        inputs.len(),
        std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1048576.0,
        started.elapsed().as_secs_f64()
    );
    (dir, path)
}

/// A restarted daemon rebuilding its core from the journal of a 200-board, 5-hour round
/// (what `run` does at start-up). Items: journaled steps.
#[divan::bench(sample_count = 1, sample_size = 1)]
fn replay_a_round_from_its_journal(bencher: divan::Bencher) {
    // The directory (over a GiB for the whole round) is removed when the benchmark ends.
    let (_dir, path) = round_journal();
    let journal = dgt_journal::Journal::open_read_only(&path).expect("the round journal");
    let steps = journal.step_count().expect("steps");
    assert!(steps > 0, "the round journal has steps to replay");
    bencher
        .counter(divan::counter::ItemsCount::new(steps as usize))
        .bench_local(|| {
            dgt_core::dead::forget_remembered();
            let (_core, report) =
                dgt_journal::recover(&journal, CoreConfig::default()).expect("recovered");
            assert!(report.is_exact(), "the replay gives the journaled events");
            assert_eq!(report.steps, steps, "every journaled step replayed");
            report.steps
        });
}
