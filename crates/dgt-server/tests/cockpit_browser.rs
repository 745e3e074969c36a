//! The arbiters' cockpit in a real browser (headless Chromium over the DevTools protocol),
//! on a hall of 300 boards: the overview fits one 1920×1080 screen without scrolling, a
//! floor arbiter signed in with their token sees only their sections' boards and alerts and
//! cannot act on others, a replay steps through an alert's events in order, and the
//! incident report prints. Screenshots of every view go to `target/ci-artifacts/`.
//!
//! Skipped, with a notice, only when no Chromium is installed and `CI` is unset.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::*;
use dgt_core::event::{BoardStatus, ClockEvent, LinkState, MoveEvent, Orientation};
use dgt_core::pairing::{Pairing, Player, ROUND_BOARD, RoundPairings};
use dgt_core::{Alert, AlertKind, Event, EventBody, InputKind, Operation, Severity, Side};
use dgt_pairings::TableMap;
use dgt_server::ServerConfig;
use dgt_server::access::{Account, Role, Section};
use dgt_testkit::cdp::{Cdp, base64_decode, chromium_or_skip, launch};
use serde_json::json;

const BOARDS: u32 = 300;
const FLOOR_TOKEN: &str = "ana-floor-secret-00002";
const CHIEF_TOKEN: &str = "carl-chief-secret-0001";

/// Where the screenshots go: `target/ci-artifacts/` of the workspace (not committed).
fn artifacts() -> PathBuf {
    let dir = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(t) => PathBuf::from(t),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"),
    }
    .join("ci-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(boards: u32) -> ServerConfig {
    ServerConfig {
        tables: TableMap::new((1..=boards).map(|t| (t, format!("board-{t}")))),
        sections: vec![
            Section {
                name: "Open A".into(),
                tables: (1..=150).collect(),
            },
            Section {
                name: "Open B".into(),
                tables: (151..=boards).collect(),
            },
        ],
        arbiters: vec![
            Account {
                name: "Carl Chief".into(),
                role: Role::Chief,
                token: CHIEF_TOKEN.into(),
                sections: vec![],
            },
            Account {
                name: "Ana Floor".into(),
                role: Role::Floor,
                token: FLOOR_TOKEN.into(),
                sections: vec!["Open B".into()],
            },
        ],
        ..test_config()
    }
}

struct Numbered(Vec<Event>);

impl Numbered {
    fn push(&mut self, board: &str, t_ms: u64, body: EventBody) -> u64 {
        let seq = self.0.len() as u64 + 1;
        self.0.push(Event::new(seq, board, t_ms, body));
        seq
    }

    fn alert(&mut self, board: &str, t_ms: u64, mut a: Alert, game: &str) -> u64 {
        let seq = self.0.len() as u64 + 1;
        a.id = seq;
        a.game = Some(game.into());
        self.push(board, t_ms, EventBody::Alert(a))
    }
}

/// `boards` boards playing the real game's opening to different depths: some finished, some
/// short of time, some offline, alerts on a few; a round's pairings naming every player.
/// Returns the events and (board, alert id) of a two-handed-move alert in section B.
fn hall_of(boards: u32) -> (Vec<Event>, String, u64) {
    let moves: Vec<MoveEvent> = capture_events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::Move(m) => Some(m),
            _ => None,
        })
        .collect();
    let mut ev = Numbered(Vec::new());
    let tables = (1..=boards)
        .map(|t| Pairing {
            table: t,
            white: Player {
                name: format!("Whitfield{t}, Anna"),
                rating: Some(2400 - t),
                ..Player::default()
            },
            black: Player {
                name: format!("Blackwood{t}, Bram"),
                rating: Some(2390 - t),
                ..Player::default()
            },
        })
        .collect();
    ev.push(
        ROUND_BOARD,
        1_000,
        EventBody::Pairings(RoundPairings {
            round: 4,
            tables,
            format: Some("csv".into()),
            ..RoundPairings::default()
        }),
    );
    let base = 1_000_000;
    let mut suspicion = (String::new(), 0);
    for t in 1..=boards {
        let board = format!("board-{t}");
        let game = format!("{board}/1");
        let offline = t.is_multiple_of(61);
        ev.push(
            &board,
            base,
            EventBody::BoardStatus(BoardStatus {
                state: if offline {
                    LinkState::Disconnected
                } else {
                    LinkState::Identified
                },
                serial: Some(format!("{:05}", 10000 + t)),
                version: Some("1.7".into()),
                orientation: Orientation::Normal,
                port: None,
                clock_version: None,
            }),
        );
        ev.push(
            &board,
            base + 10,
            EventBody::GameStart {
                game: game.clone(),
                start_fen: moves[0].fen.clone(),
                found_under_way: false,
            },
        );
        let plies = 6 + (t as usize * 7) % 50;
        let mut t_ms = base + 100;
        for m in moves.iter().take(plies.min(moves.len())) {
            t_ms += 1_000 + (t as u64 % 5) * 300;
            let mut m = m.clone();
            m.game = game.clone();
            ev.push(&board, t_ms, EventBody::Move(m));
        }
        let low = t.is_multiple_of(23);
        let running = if plies.is_multiple_of(2) {
            Side::White
        } else {
            Side::Black
        };
        let (w, b) = if low {
            (45_000, 612_000)
        } else {
            (
                900_000 - (t % 300) as u64 * 1_000,
                880_000 - (t % 300) as u64 * 900,
            )
        };
        ev.push(
            &board,
            t_ms + 400,
            EventBody::Clock(ClockEvent {
                white_ms: Some(w),
                black_ms: Some(b),
                running: Some(running),
                left_ms: w,
                right_ms: b,
                white_side: None,
            }),
        );
        if t.is_multiple_of(9) {
            ev.push(
                &board,
                t_ms + 500,
                EventBody::GameEnd {
                    game: game.clone(),
                    result: ["1-0", "0-1", "1/2-1/2"][t as usize % 3].parse().unwrap(),
                    reason: dgt_core::event::EndReason::ResultGesture,
                },
            );
        }
        if t == 12 || t == 201 {
            let mut a = Alert::new(
                AlertKind::IllegalMove,
                Severity::Intervene,
                "fide-2023",
                "Black completed an illegal move: the king stands in check.".into(),
            );
            a.article = Some("7.5.1".into());
            a.side = Some(Side::Black);
            ev.alert(&board, t_ms + 600, a, &game);
        }
        if t == 7 || t == 188 {
            for k in 0..3 {
                let mut a = Alert::new(
                    AlertKind::TwoHandedMove,
                    Severity::Review,
                    "fide-2023",
                    format!(
                        "The pieces on e1 and h1 left the board 4{k} ms apart: possibly a move made with two hands."
                    ),
                );
                a.side = Some(Side::White);
                let id = ev.alert(&board, t_ms - 3_000 + k * 1_000, a, &game);
                if t == 188 && k == 1 {
                    suspicion = (board.clone(), id);
                }
            }
        }
        if t % 50 == 3 {
            let a = Alert::new(
                AlertKind::BatteryLow,
                Severity::Info,
                "fide-2023",
                "The board's battery is low.".into(),
            );
            ev.alert(&board, t_ms + 700, a, &game);
        }
    }
    (ev.0, suspicion.0, suspicion.1)
}

/// Polls until the expression is true; generous, for a loaded CI machine drawing 300 boards.
async fn wait(cdp: &mut Cdp, expression: &str) {
    cdp.wait_for_within(expression, Duration::from_secs(60))
        .await;
}

/// The journal's field updates for the suspicion's board, as a daemon reads them back: for
/// each move, the piece lifted from its square and put on the target square.
struct FakeBoardLog {
    board: String,
    updates: Vec<dgt_server::FieldUpdate>,
}

impl FakeBoardLog {
    fn of(events: &[Event], board: &str) -> Self {
        let index = |sq: &str| {
            let b = sq.as_bytes();
            (8 - (b[1] - b'0')) * 8 + (b[0] - b'a')
        };
        let mut updates = Vec::new();
        for e in events.iter().filter(|e| e.board == board) {
            if let EventBody::Move(m) = &e.body {
                let (from, to) = (&m.uci[0..2], &m.uci[2..4]);
                let piece = if m.side == Side::White { 'P' } else { 'p' };
                updates.push(dgt_server::FieldUpdate {
                    t_ms: e.t_ms - 300,
                    index: index(from),
                    piece: None,
                });
                updates.push(dgt_server::FieldUpdate {
                    t_ms: e.t_ms,
                    index: index(to),
                    piece: Some(piece),
                });
            }
        }
        FakeBoardLog {
            board: board.to_string(),
            updates,
        }
    }
}

impl dgt_server::BoardLog for FakeBoardLog {
    fn field_updates(
        &self,
        board: &str,
        from_ms: u64,
        to_ms: u64,
    ) -> Result<Vec<dgt_server::FieldUpdate>, dgt_server::SourceError> {
        Ok(self
            .updates
            .iter()
            .filter(|f| board == self.board && f.t_ms >= from_ms && f.t_ms <= to_ms)
            .cloned()
            .collect())
    }
}

async fn sign_in(cdp: &mut Cdp, addr: std::net::SocketAddr, token: &str) {
    cdp.call(
        "Page.navigate",
        json!({ "url": format!("http://{addr}/signin") }),
    )
    .await;
    wait(cdp, "document.getElementById('signin-token') !== null").await;
    cdp.eval(&format!(
        "document.getElementById('signin-token').value = {}; setTimeout(() => document.getElementById('signin-form').requestSubmit(), 0); true",
        json!(token)
    ))
    .await;
    wait(cdp, "location.pathname === '/' && document.getElementById('whoami') !== null && document.getElementById('whoami').textContent.length > 0")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cockpit_serves_a_hall_of_300_boards_and_each_arbiter_in_it() {
    let Some(binary) = chromium_or_skip("cockpit browser test") else {
        return;
    };
    let (events, suspect_board, suspect_alert) = hall_of(BOARDS);
    let log = FakeBoardLog::of(&events, &suspect_board);
    let mut server = start_bound(
        dgt_server::Server::bind(config(BOARDS))
            .await
            .unwrap()
            .with_board_log(std::sync::Arc::new(log)),
        Some(CHIEF_TOKEN.to_string()),
    );
    server.send(&events);
    server.wait_seq(events.last().unwrap().seq).await;
    let addr = server.addr;
    let out = artifacts();

    let profile = std::env::temp_dir().join(format!("dgt-cockpit-{}", std::process::id()));
    let (chrome, endpoint) = launch(&binary, &profile).await;
    let mut cdp = Cdp::new_page(&endpoint).await;
    cdp.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": false }),
    )
    .await;

    // Nobody signed in: the dashboard sends the browser to the sign-in page.
    cdp.call("Page.navigate", json!({ "url": format!("http://{addr}/") }))
        .await;
    wait(&mut cdp, "location.pathname === '/signin'").await;
    cdp.screenshot(out.join("cockpit-signin.png").to_str().unwrap())
        .await;

    // The chief: all 300 tiles on one 1920x1080 screen, no scrolling.
    sign_in(&mut cdp, addr, CHIEF_TOKEN).await;
    wait(
        &mut cdp,
        &format!("document.querySelectorAll('#hall .tile').length === {BOARDS}"),
    )
    .await;
    wait(
        &mut cdp,
        "document.querySelector('#conn').textContent === 'live'",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    cdp.screenshot(out.join("cockpit-hall-300-chief.png").to_str().unwrap())
        .await;
    let fits = cdp
        .eval(
            "(() => { const w = document.getElementById('work'); const s = document.scrollingElement; \
             const last = [...document.querySelectorAll('#hall .tile')].pop().getBoundingClientRect(); \
             return { work: w.scrollHeight <= w.clientHeight + 1, page: s.scrollHeight <= window.innerHeight + 1, \
                      lastBottom: last.bottom, height: window.innerHeight, hscroll: s.scrollWidth <= window.innerWidth + 1 }; })()",
        )
        .await;
    assert_eq!(fits["work"], true, "the hall scrolls: {fits}");
    assert_eq!(fits["page"], true, "the page scrolls: {fits}");
    assert_eq!(fits["hscroll"], true, "the page scrolls sideways: {fits}");
    assert!(
        fits["lastBottom"].as_f64().unwrap() <= 1080.0,
        "the last tile is below the screen: {fits}"
    );
    // How long one full redraw of the 300 tiles and the queue takes here (printed only).
    let ms = cdp
        .eval("(() => { const t0 = performance.now(); for (let i = 0; i < 10; i++) renderAll(); return (performance.now() - t0) / 10; })()")
        .await;
    println!("one redraw of {BOARDS} tiles and the queue: {ms} ms (mean of 10)");
    // Tiles in table order, with players, both clocks and status colours.
    assert_eq!(
        cdp.eval("[...document.querySelectorAll('#hall .tile .t-no')].slice(0, 3).map(e => e.textContent).join(',')")
            .await,
        json!("1,2,3")
    );
    assert_eq!(
        cdp.eval("document.querySelector('#hall .tile[data-tile=\"board-5\"]').textContent.includes('Whitfield5')")
            .await,
        json!(true)
    );
    assert_eq!(
        cdp.eval("document.querySelector('#hall .tile[data-tile=\"board-12\"]').classList.contains('sev-intervene')")
            .await,
        json!(true),
        "an open alert highlights its tile"
    );
    assert_eq!(
        cdp.eval("document.querySelector('#hall .tile[data-tile=\"board-9\"]').classList.contains('st-finished')")
            .await,
        json!(true)
    );
    assert_eq!(
        cdp.eval("document.querySelector('#hall .tile[data-tile=\"board-61\"]').classList.contains('st-offline')")
            .await,
        json!(true)
    );
    assert_eq!(
        cdp.eval("document.querySelector('#hall .tile[data-tile=\"board-23\"]').classList.contains('st-low')")
            .await,
        json!(true)
    );
    // Triage: intervene first; the three two-handed signals of one game are one card;
    // info alerts are in the event log, not the queue.
    assert_eq!(
        cdp.eval("document.querySelector('#alerts .alert').classList.contains('sev-intervene')")
            .await,
        json!(true)
    );
    assert_eq!(
        cdp.eval("document.querySelectorAll('#alerts .alert.group').length")
            .await,
        json!(2)
    );
    assert_eq!(
        cdp.eval("document.querySelector('#alerts .alert.group .times').textContent")
            .await,
        json!("×3")
    );
    assert_eq!(
        cdp.eval("document.querySelector('#eventlog-count').textContent")
            .await,
        json!("6")
    );
    assert_eq!(
        cdp.eval("[...document.querySelectorAll('#alerts .alert')].some(a => a.classList.contains('sev-info'))")
            .await,
        json!(false)
    );
    // Filters and search.
    cdp.eval("document.querySelector('[data-filter=\"attention\"]').click(), true")
        .await;
    wait(
        &mut cdp,
        "document.querySelectorAll('#hall .tile').length < 20",
    )
    .await;
    assert_eq!(
        cdp.eval("[...document.querySelectorAll('#hall .tile')].map(t => t.dataset.tile).includes('board-12')")
            .await,
        json!(true)
    );
    cdp.eval("document.querySelector('[data-filter=\"finished\"]').click(), true")
        .await;
    wait(
        &mut cdp,
        &format!(
            "document.querySelectorAll('#hall .tile').length === {}",
            BOARDS / 9
        ),
    )
    .await;
    cdp.eval("document.querySelector('[data-filter=\"all\"]').click(), true")
        .await;
    cdp.eval("(() => { const s = document.getElementById('search'); s.value = 'Blackwood257'; s.dispatchEvent(new Event('input')); return true; })()")
        .await;
    wait(&mut cdp, "document.querySelectorAll('#hall .tile').length === 1 && document.querySelector('#hall .tile').dataset.tile === 'board-257'")
        .await;
    cdp.eval("(() => { const s = document.getElementById('search'); s.value = '42'; s.dispatchEvent(new Event('input')); return true; })()")
        .await;
    wait(&mut cdp, "document.querySelectorAll('#hall .tile').length === 1 && document.querySelector('#hall .tile').dataset.tile === 'board-42'")
        .await;
    // A tile opens the board page.
    cdp.eval("document.querySelector('#hall .tile').click(), true")
        .await;
    wait(
        &mut cdp,
        "location.hash === '#/board/board-42' && !document.getElementById('board-page').hidden",
    )
    .await;
    cdp.eval("(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); location.hash = '#/cards'; return true; })()")
        .await;
    wait(
        &mut cdp,
        &format!("document.querySelectorAll('#hall .card').length === {BOARDS}"),
    )
    .await;
    cdp.screenshot(out.join("cockpit-cards.png").to_str().unwrap())
        .await;
    cdp.eval("location.hash = '#/round', true").await;
    wait(
        &mut cdp,
        "document.querySelectorAll('#round-page .round-overview tbody tr').length === 300",
    )
    .await;
    assert_eq!(
        cdp.eval(
            "document.querySelector('#round-page h3').textContent.includes('33 of 300 finished')"
        )
        .await,
        json!(true)
    );
    cdp.screenshot(out.join("cockpit-round.png").to_str().unwrap())
        .await;
    // Any round can be picked, and a result gesture is confirmed in one click.
    wait(
        &mut cdp,
        "document.getElementById('round-choice') !== null && document.querySelector('#round-page [data-enter]') !== null",
    )
    .await;
    cdp.eval("document.querySelector('#round-page [data-enter]').click(), true")
        .await;
    let op = server.next_action().await;
    let InputKind::Op(Operation::TableResult(r)) = op.kind else {
        panic!("not a table result: {op:?}")
    };
    assert_eq!(
        (
            r.round,
            r.table,
            r.result.map(dgt_core::TableResult::as_str)
        ),
        (4, 9, Some("1-0"))
    );
    let by = server.ops.recv().await.unwrap();
    let InputKind::Op(Operation::By(by)) = by.kind else {
        panic!("who confirmed it is missing: {by:?}")
    };
    assert_eq!(by.arbiter, "Carl Chief");

    // Sign out; the floor arbiter of "Open B" signs in.
    cdp.eval("location.hash = '#/', setTimeout(() => document.getElementById('signout-btn').click(), 0), true")
        .await;
    wait(&mut cdp, "location.pathname === '/signin'").await;
    assert_eq!(
        cdp.eval_await("fetch('/api/boards').then(r => r.status)")
            .await,
        json!(401),
        "signed out on the server"
    );
    sign_in(&mut cdp, addr, FLOOR_TOKEN).await;
    wait(
        &mut cdp,
        "document.querySelectorAll('#hall .tile').length === 150",
    )
    .await;
    assert_eq!(
        cdp.eval("[...document.querySelectorAll('#hall .tile')].every(t => Number(t.dataset.tile.split('-')[1]) > 150)")
            .await,
        json!(true),
        "only section B's boards"
    );
    assert_eq!(
        cdp.eval("[...document.querySelectorAll('#alerts .alert')].map(a => a.querySelector('.alert-board').textContent).every(b => /board-(1[5-9][0-9]|2[0-9][0-9]|300)/.test(b))")
            .await,
        json!(true),
        "only section B's alerts"
    );
    assert_eq!(
        cdp.eval("document.querySelectorAll('#alerts .alert').length")
            .await,
        json!(2)
    );
    assert_eq!(
        cdp.eval("document.getElementById('whoami').textContent")
            .await,
        json!("Ana Floor · floor · Open B")
    );
    // Acting on another section's board from this page: refused by the server.
    assert_eq!(
        cdp.eval_await("fetch('/api/boards/board-12/result', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ result: '1-0' }) }).then(r => r.status)")
            .await,
        json!(403)
    );
    assert_eq!(
        cdp.eval_await(
            "fetch('/api/alerts?board=board-12').then(r => r.json()).then(l => l.length)"
        )
        .await,
        json!(0)
    );
    cdp.screenshot(out.join("cockpit-hall-floor.png").to_str().unwrap())
        .await;

    // She acknowledges the grouped suspicions: every ack reaches the core with her name,
    // which the core passes back as `arbiter_action` events (played here by the test).
    cdp.eval("document.querySelector('#alerts [data-ack-group]').click(), true")
        .await;
    let mut next_seq = events.last().unwrap().seq;
    let mut signed = 0;
    while signed < 3 {
        let op = tokio::time::timeout(Duration::from_secs(30), server.ops.recv())
            .await
            .expect("the acks reach the core")
            .unwrap();
        if let InputKind::Op(Operation::By(by)) = op.kind {
            assert_eq!(by.arbiter, "Ana Floor");
            assert_eq!(op.board, suspect_board);
            next_seq += 1;
            server.send(&[Event::new(
                next_seq,
                &op.board,
                2_000_000,
                EventBody::ArbiterAction(by),
            )]);
            signed += 1;
        }
    }
    wait(
        &mut cdp,
        "document.querySelectorAll('#alerts .alert').length === 1",
    )
    .await;

    // Instant replay from the suspicion alert: 20 s before to 10 s after, stepped.
    cdp.eval(&format!(
        "location.hash = '#/replay/{suspect_board}/{suspect_alert}', true"
    ))
    .await;
    wait(
        &mut cdp,
        "document.querySelectorAll('#rp-steps li').length > 5",
    )
    .await;
    let steps = cdp
        .eval("document.querySelectorAll('#rp-steps li').length")
        .await
        .as_u64()
        .unwrap();
    let mut seen = Vec::new();
    for i in 0..steps {
        let note = cdp
            .eval("document.getElementById('rp-note').textContent")
            .await;
        let at = cdp
            .eval("Number(document.getElementById('replay-page').dataset.step)")
            .await;
        assert_eq!(at, json!(i), "stepped to step {i}");
        seen.push(note.as_str().unwrap().to_string());
        cdp.eval("document.getElementById('rp-next').click(), true")
            .await;
    }
    // In time order (the offset before each note never goes back), and the alert is a step.
    let offsets: Vec<f64> = seen
        .iter()
        .map(|n| n.split(" s").next().unwrap().trim().parse::<f64>().unwrap())
        .collect();
    assert!(
        offsets.windows(2).all(|w| w[0] <= w[1]),
        "replay out of order: {seen:?}"
    );
    assert!(
        seen.iter()
            .any(|n| n.starts_with("+0.0 s") && n.contains("Two handed move")),
        "{seen:?}"
    );
    assert!(seen.iter().any(|n| n.contains("clock")), "{seen:?}");
    // Field update by field update: 11. Nxe7+ is the knight lifted from d5, put on e7,
    // then the move the core saw in them.
    let step = |text: &str| {
        seen.iter()
            .position(|n| n.contains(text))
            .unwrap_or_else(|| panic!("no step {text:?} in {seen:?}"))
    };
    let (lift, capture) = (step("d5 emptied"), step("11. Nxe7+"));
    assert!(seen[capture - 1].contains("put on e7"), "{seen:?}");
    assert!(lift < capture - 1, "{seen:?}");
    assert!(
        seen.iter().filter(|n| n.contains(" put on ")).count() >= 5,
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .filter(|n| n.contains(". ") || n.contains("… "))
            .count()
            >= 2,
        "moves replayed: {seen:?}"
    );
    cdp.eval("document.getElementById('rp-first').click(), true")
        .await;
    cdp.screenshot(out.join("cockpit-replay.png").to_str().unwrap())
        .await;

    // The incident report, on screen and printed.
    cdp.eval(&format!("location.hash = '#/report/{suspect_alert}', true"))
        .await;
    wait(
        &mut cdp,
        "document.querySelector('#report-page .report-moves') !== null",
    )
    .await;
    assert_eq!(
        cdp.eval(
            "document.querySelector('#report-page h2').textContent.includes('Two handed move')"
        )
        .await,
        json!(true)
    );
    assert_eq!(
        cdp.eval("document.querySelectorAll('#report-page .report-positions figure svg').length")
            .await,
        json!(2),
        "the positions before and after"
    );
    cdp.screenshot(out.join("cockpit-report.png").to_str().unwrap())
        .await;
    cdp.call("Emulation.setEmulatedMedia", json!({ "media": "print" }))
        .await;
    let printed = cdp
        .eval(
            "({ topbar: getComputedStyle(document.querySelector('.topbar')).display, \
                queue: getComputedStyle(document.querySelector('.queue')).display, \
                report: getComputedStyle(document.querySelector('.report')).display, \
                bg: getComputedStyle(document.body).backgroundColor })",
        )
        .await;
    assert_eq!(printed["topbar"], "none", "{printed}");
    assert_eq!(printed["queue"], "none", "{printed}");
    assert_eq!(printed["report"], "block", "{printed}");
    assert_eq!(printed["bg"], "rgb(255, 255, 255)", "{printed}");
    cdp.screenshot(out.join("cockpit-report-print.png").to_str().unwrap())
        .await;
    let pdf = cdp
        .call("Page.printToPDF", json!({ "printBackground": true }))
        .await;
    let bytes = base64_decode(pdf["data"].as_str().unwrap());
    assert!(bytes.starts_with(b"%PDF"));
    std::fs::write(out.join("cockpit-report.pdf"), bytes).unwrap();
    cdp.call("Emulation.setEmulatedMedia", json!({ "media": "" }))
        .await;

    // A 10" tablet held landscape: tiles still readable, the queue beside them.
    cdp.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": true }),
    )
    .await;
    cdp.eval("location.hash = '#/', true").await;
    wait(
        &mut cdp,
        "document.querySelectorAll('#hall .tile').length === 150",
    )
    .await;
    cdp.screenshot(out.join("cockpit-tablet.png").to_str().unwrap())
        .await;
    println!("cockpit screenshots in {}", out.display());
    drop(chrome);
}

/// A hub's whole event: 1,000 boards still fit one 1920x1080 screen (each tile keeps its
/// table, its status colour and the clock of the side to move).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hall_of_1000_boards_fits_one_screen() {
    let Some(binary) = chromium_or_skip("cockpit browser test") else {
        return;
    };
    let (events, _, _) = hall_of(1000);
    let server = start(config(1000)).await;
    server.send(&events);
    server.wait_seq(events.last().unwrap().seq).await;
    let profile = std::env::temp_dir().join(format!("dgt-cockpit-1000-{}", std::process::id()));
    let (chrome, endpoint) = launch(&binary, &profile).await;
    let mut cdp = Cdp::new_page(&endpoint).await;
    cdp.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": false }),
    )
    .await;
    sign_in(&mut cdp, server.addr, CHIEF_TOKEN).await;
    wait(
        &mut cdp,
        "document.querySelectorAll('#hall .tile').length === 1000",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let out = artifacts();
    cdp.screenshot(out.join("cockpit-hall-1000.png").to_str().unwrap())
        .await;
    let fits = cdp
        .eval(
            "(() => { const w = document.getElementById('work'); const s = document.scrollingElement; \
             return { work: w.scrollHeight <= w.clientHeight + 1, page: s.scrollHeight <= window.innerHeight + 1 }; })()",
        )
        .await;
    assert_eq!(fits, json!({ "work": true, "page": true }));
    assert_eq!(
        cdp.eval("document.querySelector('#hall .tile[data-tile=\"board-201\"]').classList.contains('sev-intervene')")
            .await,
        json!(true)
    );
    drop(chrome);
}
