//! How long a restarted server takes to have its views back: re-applying a long day's
//! events against restoring a views snapshot of them. The day is synthetic and streamed
//! (never held in memory): every board sends a clock reading a second, a move every 30 s,
//! a game of 80 plies then the next, an alert now and then.
//!
//! Run: `cargo bench -p dgt-server --bench views_restore` (300 boards × 8 h); smaller with
//! `VIEWS_BOARDS=40 VIEWS_HOURS=1`.

use std::time::Instant;

use dgt_core::event::{ClockEvent, EndReason, MoveEvent};
use dgt_core::{Alert, AlertKind, Event, EventBody, Severity, Side};
use dgt_server::{ServerConfig, ViewsSnapshot, ViewsTap};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The day's events, in order, to `f`; how many.
fn day(boards: u64, hours: u64, mut f: impl FnMut(&Event)) -> u64 {
    let mut seq = 0;
    let mut plies = vec![0u32; boards as usize];
    let mut games = vec![0u32; boards as usize];
    let mut emit = |board: u64, t_ms: u64, body: EventBody, f: &mut dyn FnMut(&Event)| {
        seq += 1;
        f(&Event::new(seq, format!("board-{board}"), t_ms, body));
    };
    for second in 0..hours * 3600 {
        let t_ms = second * 1000;
        for b in 0..boards {
            let i = b as usize;
            let game = format!("board-{b}/{}", games[i]);
            if second % 30 == b % 30 {
                if plies[i] == 0 {
                    emit(
                        b,
                        t_ms,
                        EventBody::GameStart {
                            game: game.clone(),
                            start_fen: dgt_server::hall::STANDARD_START.into(),
                            found_under_way: false,
                        },
                        &mut f,
                    );
                }
                plies[i] += 1;
                let ply = plies[i];
                emit(
                    b,
                    t_ms,
                    EventBody::Move(MoveEvent {
                        game: game.clone(),
                        ply,
                        side: if ply % 2 == 1 {
                            Side::White
                        } else {
                            Side::Black
                        },
                        uci: "e2e4".into(),
                        san: "e4".into(),
                        fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
                        white_ms: Some(5_400_000 - t_ms / 2),
                        black_ms: Some(5_400_000 - t_ms / 2),
                    }),
                    &mut f,
                );
                if ply == 80 {
                    emit(
                        b,
                        t_ms,
                        EventBody::GameEnd {
                            game,
                            result: "1/2-1/2".parse().unwrap(),
                            reason: EndReason::Arbiter,
                        },
                        &mut f,
                    );
                    plies[i] = 0;
                    games[i] += 1;
                }
            }
            if second % 1000 == b % 1000 {
                let mut a = Alert::new(
                    AlertKind::ClockStopped,
                    Severity::Review,
                    "6.11",
                    "The clock was stopped.".into(),
                );
                a.id = second * boards + b + 1;
                emit(b, t_ms, EventBody::Alert(a), &mut f);
            }
            // A 90-minute game's clocks, run down over the day (none below zero).
            let left = 5_400_000u64.saturating_sub(t_ms / 2);
            emit(
                b,
                t_ms,
                EventBody::Clock(ClockEvent {
                    white_ms: Some(left),
                    black_ms: Some(left),
                    running: Some(Side::White),
                    left_ms: left,
                    right_ms: left,
                    white_side: None,
                }),
                &mut f,
            );
        }
    }
    seq
}

fn main() {
    // `cargo test --all-targets` runs this once without `--bench`: a small day, as a check
    // that it runs; `cargo bench` measures the whole one.
    let measuring = std::env::args().any(|a| a == "--bench");
    let boards = env("VIEWS_BOARDS", if measuring { 300 } else { 3 });
    let hours = env("VIEWS_HOURS", if measuring { 8 } else { 1 });
    let config = ServerConfig::default();

    let started = Instant::now();
    let generated = day(boards, hours, |e| {
        std::hint::black_box(e);
    });
    let generating = started.elapsed();

    let views = ViewsTap::standalone(&config);
    let started = Instant::now();
    let events = day(boards, hours, |e| views.apply(e));
    let reapplying = started.elapsed().saturating_sub(generating);
    assert_eq!(events, generated);

    let started = Instant::now();
    let snapshot = views.snapshot();
    let taking = started.elapsed();
    let bytes = snapshot.bytes.len();

    let restored = ViewsTap::standalone(&config);
    let started = Instant::now();
    restored
        .restore(ViewsSnapshot {
            seq: snapshot.seq,
            bytes: snapshot.bytes.clone(),
        })
        .expect("the snapshot restores");
    let restoring = started.elapsed();
    assert_eq!(restored.snapshot().seq, snapshot.seq);

    println!(
        "views_restore boards={boards} hours={hours} events={events} \
         reapply_s={:.2} snapshot_take_s={:.2} snapshot_mib={:.1} restore_s={:.2}",
        reapplying.as_secs_f64(),
        taking.as_secs_f64(),
        bytes as f64 / (1024.0 * 1024.0),
        restoring.as_secs_f64(),
    );
}
