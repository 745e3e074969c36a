//! Games already under way when the daemon first sees the board, on
//! pseudo-terminals: emulated boards play before the daemon starts (the venue PC booted late,
//! a daemon restarted on a lost journal), or a board is replaced mid-game by a spare. The
//! daemon's games are compared with what the emulated players played.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{clean_series, made_by, start_collecting};
use dgt_arbiter::edge::serial::PortCandidate;
use dgt_arbiter::test_support::moves::game_moves;
use dgt_core::input::TakeOverOp;
use dgt_core::{AlertKind, Event, EventBody, Input, InputKind, Operation};
use dgt_lab::simulated::emulated::SeriesBoard;
use dgt_lab::simulated::pty_board::{self, BoardClock, BoardModel, PtyBoard, SharedBoard};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Position};

/// A board that does not answer the log request (0x49): its memory cannot help, as on a
/// spare board that did not play the game.
struct WithoutLog(SharedBoard<SeriesBoard>);

impl BoardModel for WithoutLog {
    fn on_host_bytes(&mut self, t_ms: u64, bytes: &[u8]) {
        if bytes != [0x49] {
            self.0.lock().unwrap().on_host_bytes(t_ms, bytes);
        }
    }
    fn poll_output(&mut self, t_ms: u64) -> Vec<u8> {
        self.0.lock().unwrap().poll_output(t_ms)
    }
    fn next_deadline(&self) -> Option<u64> {
        self.0.lock().unwrap().next_deadline()
    }
    fn finished(&self) -> bool {
        self.0.lock().unwrap().finished()
    }
}

fn truth(board: &SharedBoard<SeriesBoard>) -> Vec<String> {
    board.lock().unwrap().current().1.truth().ucis()
}

/// The board plays on, unplugged, until its players have completed `plies` moves.
async fn play_unplugged(board: &SharedBoard<SeriesBoard>, clock: BoardClock, plies: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while made_by(board, clock.now_ms()).len() < plies {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the board is too slow"
        );
        let _ = board.lock().unwrap().poll_output(clock.now_ms());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn game_starts(events: &[Event], board: &str) -> Vec<(String, String)> {
    events
        .iter()
        .filter(|e| e.board == board)
        .filter_map(|e| match &e.body {
            EventBody::GameStart {
                game, start_fen, ..
            } => Some((game.clone(), start_fen.clone())),
            _ => None,
        })
        .collect()
}

fn found_alerts(events: &[Event], board: &str) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.board == board)
        .filter_map(|e| match &e.body {
            EventBody::Alert(a) if a.kind == AlertKind::GameFoundUnderWay => {
                Some(a.message.clone())
            }
            _ => None,
        })
        .collect()
}

/// Waits until `f` holds on the events, at most `within`.
async fn wait_for(events: &Arc<Mutex<Vec<Event>>>, within: Duration, f: impl Fn(&[Event]) -> bool) {
    let deadline = tokio::time::Instant::now() + within;
    while !f(&events.lock().unwrap()) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Placement and side to move of the position after `ucis` (the FEN's first two fields).
fn placement_after(ucis: &[String]) -> String {
    let mut pos = Chess::default();
    for u in ucis {
        let m = UciMove::from_ascii(u.as_bytes())
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos.play_unchecked(m);
    }
    let fen = shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal).to_string();
    fen.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_playing_before_the_daemon_starts_is_rebuilt_from_its_log() {
    const SERIAL: u32 = 24680;
    let label = format!("board-{SERIAL:05}");
    let board = pty_board::share(SeriesBoard::new(clean_series(SERIAL, 31, 120, 500)));
    let clock = BoardClock::start();
    play_unplugged(&board, clock, 6).await;
    let at_start = made_by(&board, clock.now_ms()).len();

    let run = start_collecting(false);
    let pty = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    run.ports.add(PortCandidate::at(pty.path()));
    let game = format!("{label}/1");
    wait_for(&run.events, Duration::from_secs(40), |ev| {
        game_moves(ev, &game).len() >= at_start + 3
    })
    .await;
    pty.unplug().await;
    run.daemon.shutdown().await;

    let events = run.events.lock().unwrap();
    let told = found_alerts(&events, &label);
    assert!(!told.is_empty(), "the arbiter is told");
    assert_eq!(
        game_starts(&events, &label),
        [(
            game.clone(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string()
        )],
        "one game, from the start position: {told:?}"
    );
    let got = game_moves(&events, &game);
    let truth = truth(&board);
    assert!(
        got.len() >= at_start + 3 && truth.starts_with(&got),
        "daemon {got:?}\ntruth {truth:?}\n({at_start} made before the daemon started; {told:?})"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_usable_log_the_game_is_followed_from_where_it_stands() {
    const SERIAL: u32 = 24681;
    let label = format!("board-{SERIAL:05}");
    let board = pty_board::share(SeriesBoard::new(clean_series(SERIAL, 32, 120, 500)));
    let clock = BoardClock::start();
    play_unplugged(&board, clock, 6).await;
    let at_start = made_by(&board, clock.now_ms()).len();

    let run = start_collecting(false);
    let pty = PtyBoard::plug_in(pty_board::share(WithoutLog(board.clone())), clock, None).unwrap();
    run.ports.add(PortCandidate::at(pty.path()));
    let game = format!("{label}/1");
    // The log is awaited 12 s (`eeprom::LOG_WAIT_MS`), then the game followed.
    wait_for(&run.events, Duration::from_secs(50), |ev| {
        game_moves(ev, &game).len() >= 3
    })
    .await;
    pty.unplug().await;
    run.daemon.shutdown().await;

    let events = run.events.lock().unwrap();
    let told = found_alerts(&events, &label);
    assert!(!told.is_empty(), "the arbiter is told");
    let starts = game_starts(&events, &label);
    assert_eq!(starts.len(), 1, "{starts:?} {told:?}");
    assert!(
        events.iter().any(|e| matches!(
            &e.body,
            EventBody::GameStart {
                found_under_way: true,
                ..
            }
        )),
        "its record says the moves before were not seen"
    );
    let truth = truth(&board);
    // The game starts where the players stood when the daemon began following it; its
    // moves are the players' from there.
    let got = game_moves(&events, &game);
    let from = (at_start..truth.len())
        .find(|&k| {
            placement_after(&truth[..k])
                == starts[0].1.split(' ').take(2).collect::<Vec<_>>().join(" ")
        })
        .unwrap_or_else(|| panic!("start {starts:?} is no position of {truth:?}"));
    assert!(
        got.len() >= 3 && truth[from..].starts_with(&got),
        "daemon {got:?} from ply {from}\ntruth {truth:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_replaced_mid_game_continues_its_game_on_the_spare() {
    const SERIAL: u32 = 24682;
    let label = format!("board-{SERIAL:05}");
    let board = pty_board::share(SeriesBoard::new(clean_series(SERIAL, 33, 120, 500)));
    let clock = BoardClock::start();
    let run = start_collecting(false);
    let first = PtyBoard::plug_in(board.clone(), clock, None).unwrap();
    let first_path = first.path().to_path_buf();
    run.ports.add(PortCandidate::at(&first_path));
    let game = format!("{label}/1");
    wait_for(&run.events, Duration::from_secs(30), |ev| {
        game_moves(ev, &game).len() >= 4
    })
    .await;
    // The spare's line exists before the board fails: a pseudo-terminal freed by the unplug
    // would be handed to the next one opened, and the failed board's port, still retrying its
    // path, would take the spare (of the same serial here) for the failed board come back.
    let spare =
        PtyBoard::plug_in(pty_board::share(WithoutLog(board.clone())), clock, None).unwrap();
    // The board fails; the arbiter sets the position up on a spare (the game goes on; the
    // spare's own memory knows nothing of it) and moves the game to it.
    first.unplug().await;
    run.ports.remove(&first_path);
    // Everything the failed board sent is in once its link is reported down.
    wait_for(&run.events, Duration::from_secs(10), |ev| {
        ev.iter().any(|e| {
            e.board == label
                && matches!(&e.body, EventBody::Alert(a) if a.kind == AlertKind::BoardDisconnected)
        })
    })
    .await;
    let before = game_moves(&run.events.lock().unwrap(), &game).len();
    run.ports.add(PortCandidate {
        label: Some("spare".into()),
        ..PortCandidate::at(spare.path())
    });
    wait_for(&run.events, Duration::from_secs(10), |ev| {
        ev.iter().any(|e| e.board == "spare")
    })
    .await;
    run.daemon
        .handle()
        .inputs()
        .send(Input {
            t_ms: run.clock.now_ms(),
            board: "spare".into(),
            kind: InputKind::Op(Operation::TakeOver(TakeOverOp {
                from: label.clone(),
            })),
        })
        .await
        .unwrap();
    wait_for(&run.events, Duration::from_secs(30), |ev| {
        game_moves(ev, &game).len() >= before + 4
    })
    .await;
    spare.unplug().await;
    run.daemon.shutdown().await;

    let events = run.events.lock().unwrap();
    let got = game_moves(&events, &game);
    let truth = truth(&board);
    assert!(
        got.len() >= before + 4 && truth.starts_with(&got),
        "daemon {got:?}\ntruth {truth:?} ({before} before the replacement)"
    );
    let on_spare = events
        .iter()
        .filter(|e| e.board == "spare" && matches!(&e.body, EventBody::Move(m) if m.game == game))
        .count();
    if std::env::var_os("UNDER_WAY_DEBUG").is_some() {
        for e in events.iter() {
            eprintln!("{} {} {:?}", e.t_ms, e.board, e.body);
        }
    }
    assert!(
        on_spare >= 4,
        "the game's later moves come from the spare: {on_spare}"
    );
    assert!(
        found_alerts(&events, "spare")
            .iter()
            .any(|m| m.contains("continues on this board")),
        "{:?}",
        found_alerts(&events, "spare")
    );
}
