//! A server restored from a views snapshot of history H1, then given the events H2 after
//! it, answers every client exactly as a server that re-applied H1+H2: boards, games and
//! their PGN, alerts and acknowledgements, rounds and their results, the public views and
//! the `/ws` resume. The hall plays the real game on two boards, a round with pairings, a
//! game found under way, a spare board taking over a table, a clock-stopped alert and a
//! result the arbiter entered.

mod common;

use common::*;
use dgt_core::event::{ClockEvent, EndReason};
use dgt_core::event_script::EventScript;
use dgt_core::input::{ActionBy, TakeOverOp};
use dgt_core::pairing::{ROUND_BOARD, RoundPairings, TableResultOp};
use dgt_core::{Event, EventBody, Operation, Side};
use dgt_pairings::TableMap;
use dgt_server::{Server, ServerConfig, ViewsError, ViewsSnapshot};
use serde_json::Value;

/// A small resume ring, so that some resumes are answered from it and older ones with a
/// snapshot.
const RING: usize = 60;

fn config() -> ServerConfig {
    ServerConfig {
        tables: TableMap::new([(2, "b-2".to_string()), (3, "b-3".to_string())]),
        ring_capacity: RING,
        event: "Views Open".into(),
        ..test_config()
    }
}

fn round3() -> RoundPairings {
    common::pairings(
        3,
        &[
            ("Jansen, Eva", "Dekker, Ilse"),
            ("Vermeer, Anna", "Visser, Kees"),
            ("Bakker, Jan", "Smit, Piet"),
        ],
    )
}

fn clock(s: &mut EventScript, board: &str, white_ms: u64, black_ms: u64) {
    s.push(
        board,
        EventBody::Clock(ClockEvent {
            white_ms: Some(white_ms),
            black_ms: Some(black_ms),
            running: Some(Side::White),
            left_ms: white_ms,
            right_ms: black_ms,
            white_side: None,
        }),
    );
}

fn play(s: &mut EventScript, board: &str, game: &str, from: u32, sans: &[&str]) {
    for (i, san) in sans.iter().enumerate() {
        let ply = from + i as u32;
        let left = 5_400_000 - u64::from(ply) * 1000;
        let fen = format!("fen-{}", s.seq() + 1);
        s.ply(board, game, ply, san, fen, (Some(left), Some(left)));
        clock(s, board, left - 500, left);
    }
}

fn by(s: &mut EventScript, board: &str, op: Operation) {
    s.push(
        board,
        EventBody::ArbiterAction(ActionBy {
            arbiter: "Carl".into(),
            role: "chief".into(),
            action: Box::new(op),
        }),
    );
}

/// The hall's history and where it is cut: the real game on two boards, then a round
/// played by script. Returns (events, the seq H1 ends at, alerts acknowledged in H1 and in
/// H2 by the arbiter's acks the journal keeps).
fn history() -> (Vec<Event>, u64, Vec<u64>, Vec<u64>) {
    let real = hall_events(2);
    let alerts: Vec<u64> = real
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Alert(a) => Some(a.id),
            _ => None,
        })
        .collect();
    assert!(alerts.len() >= 2, "the real game raises alerts");
    let mut s = EventScript::new(1000);
    s.events = real;
    s.push(ROUND_BOARD, EventBody::Pairings(round3()));
    for b in ["1", "b-2", "b-3", "spare"] {
        s.push(b, identified_status(b));
    }
    s.start("1", "1/1", dgt_server::hall::STANDARD_START);
    play(&mut s, "1", "1/1", 1, &["e4", "e5", "Nf3"]);
    // Found under way: followed from the position the board showed.
    s.push(
        "b-2",
        EventBody::GameStart {
            game: "b-2/1".into(),
            start_fen: "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3".into(),
            found_under_way: true,
        },
    );
    play(&mut s, "b-2", "b-2/1", 5, &["Bb5", "a6"]);
    s.start("b-3", "b-3/1", dgt_server::hall::STANDARD_START);
    play(&mut s, "b-3", "b-3/1", 1, &["d4", "d5"]);
    // The spare takes over table 3.
    by(
        &mut s,
        "spare",
        Operation::TakeOver(TakeOverOp { from: "b-3".into() }),
    );
    s.start("spare", "spare/1", dgt_server::hall::STANDARD_START);
    s.push(
        "b-3",
        EventBody::GameReplaced {
            game: "b-3/1".into(),
            replaced_by: "spare/1".into(),
        },
    );
    play(&mut s, "spare", "spare/1", 1, &["d4", "d5", "c4"]);
    s.clock_stopped("1", "1/1");
    let stopped = s.seq();
    by(&mut s, "1", Operation::Ack(stopped));
    let cut = s.seq();
    // H2: play goes on, a game ends, the arbiter enters a result, another alert.
    play(&mut s, "1", "1/1", 4, &["Nc6", "Bc4", "Bc5"]);
    play(&mut s, "b-2", "b-2/1", 7, &["Ba4", "Nf6"]);
    s.end("b-2", "b-2/1", "1/2-1/2", EndReason::Arbiter);
    s.push(
        ROUND_BOARD,
        EventBody::TableResult(TableResultOp {
            round: 3,
            table: 2,
            result: Some("1/2-1/2".parse().unwrap()),
        }),
    );
    play(&mut s, "spare", "spare/1", 4, &["e6", "Nc3"]);
    s.clock_stopped("spare", "spare/1");
    let late_alert = s.seq();
    play(&mut s, "1", "1/1", 7, &["Qh5", "Nf6", "Qxf7#"]);
    s.end("1", "1/1", "1-0", EndReason::Checkmate);
    clock(&mut s, "1", 100_000, 90_000);
    (s.events, cut, vec![alerts[0]], vec![alerts[1], late_alert])
}

/// Waits until the delayed public view has released the public events up to `seq`.
async fn wait_public(server: &TestServer, seq: u64) {
    let url = format!("ws://{}/ws/public", server.addr);
    for _ in 0..500 {
        let mut ws = ws_connect(&url).await;
        let v = next_json(&mut ws).await;
        if v["seq"].as_u64().unwrap_or(0) >= seq {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("the public view never reached seq {seq}");
}

/// The last seq among public events up to `upto` (what the delayed hall ends at).
fn last_public(events: &[Event], upto: u64) -> u64 {
    events
        .iter()
        .filter(|e| e.seq <= upto && dgt_server::feed::to_public_view(&e.body))
        .map(|e| e.seq)
        .max()
        .unwrap_or(0)
}

async fn get(server: &TestServer, path: &str) -> String {
    let (code, _, body) = request(server.addr, "GET", path, &[], "").await;
    format!("{code} {body}")
}

/// `/ws?since=SEQ`: the events resumed (or the snapshot, without its wall-clock estimate),
/// and the acknowledgements' alert ids in the order sent.
async fn resume(server: &TestServer, since: u64, last: u64) -> (Vec<Value>, Vec<u64>) {
    let mut ws = ws_connect(&format!("ws://{}/ws?since={since}", server.addr)).await;
    let mut events = Vec::new();
    let mut acks = Vec::new();
    loop {
        let mut v = next_json(&mut ws).await;
        match v["type"].as_str() {
            Some("snapshot") => {
                v.as_object_mut().unwrap().remove("now_t_ms");
                events.push(v);
                return (events, acks);
            }
            Some("alert_ack") => acks.push(v["id"].as_u64().unwrap()),
            _ => {
                let seq = v["seq"].as_u64().unwrap();
                events.push(v);
                if seq == last {
                    // Acks made after the last event follow it.
                    while let Ok(Some(Ok(m))) = tokio::time::timeout(
                        std::time::Duration::from_millis(200),
                        futures_util::StreamExt::next(&mut ws),
                    )
                    .await
                    {
                        if let Ok(t) = m.to_text() {
                            let a: Value = serde_json::from_str(t).unwrap();
                            acks.push(a["id"].as_u64().unwrap());
                        }
                    }
                    acks.sort_unstable();
                    return (events, acks);
                }
            }
        }
    }
}

/// Everything a client reads from the server, path by path.
async fn answers(server: &TestServer, events: &[Event], cut: u64) -> Vec<(String, String)> {
    let last = events.last().unwrap().seq;
    let mut paths: Vec<String> = [
        "/api/boards",
        "/api/boards/1",
        "/api/boards/spare",
        "/api/games",
        "/api/alerts",
        "/api/alerts?open=true",
        "/api/rounds",
        "/api/rounds/3",
        "/api/rounds/3/results.csv",
        "/api/rounds/3/results.trf",
        "/api/public/games",
        "/public/round/3.pgn",
    ]
    .map(String::from)
    .to_vec();
    let games: Vec<Value> =
        serde_json::from_str(get(server, "/api/games").await.split_once(' ').unwrap().1).unwrap();
    for g in &games {
        let id = g["id"].as_str().unwrap();
        paths.push(format!("/api/games/{id}"));
        paths.push(format!("/api/games/{id}/pgn"));
    }
    let mut out = Vec::new();
    for p in paths {
        out.push((p.clone(), get(server, &p).await));
    }
    let (_, _, metrics) = request(server.addr, "GET", "/metrics", &[], "").await;
    let counts: Vec<&str> = metrics
        .lines()
        .filter(|l| {
            l.starts_with("dgt_events_total")
                || l.starts_with("dgt_alerts_")
                || l.starts_with("dgt_alert_acks_total")
                || l.starts_with("dgt_last_seq")
                || l.starts_with("dgt_boards_")
        })
        .collect();
    out.push(("/metrics".into(), counts.join("\n")));
    let public = format!("ws://{}/ws/public", server.addr);
    let snapshot = next_json(&mut ws_connect(&public).await).await;
    out.push(("/ws/public".into(), snapshot.to_string()));
    // Resumes from before the ring (a snapshot) and from inside it. An acknowledgement's
    // message keeps its place after a restore (after the events before it) where re-applying
    // puts every one after the last event: resumes from up to the cut get them all either
    // way, and compare as sets.
    for since in [0, last - RING as u64 - 5, last - 50, cut] {
        let (events, acks) = resume(server, since, last).await;
        out.push((
            format!("/ws?since={since}"),
            format!("{events:?} acks {acks:?}"),
        ));
    }
    out
}

/// A server that re-applied the whole history, with the journal's acks.
async fn from_history(events: &[Event], acks: &[u64]) -> TestServer {
    let server = Server::bind(config())
        .await
        .unwrap()
        .with_history(events.to_vec())
        .with_acks(acks.to_vec());
    let s = start_bound(server, None);
    s.wait_seq(events.last().unwrap().seq).await;
    wait_public(&s, last_public(events, u64::MAX)).await;
    s
}

/// H1 sent live to a serving server, its arbiter acks recorded, its views snapshot taken
/// while it serves.
async fn snapshot_of(h1: &[Event], acks: &[u64]) -> ViewsSnapshot {
    let server = Server::bind(config()).await.unwrap();
    let tap = server.views_tap();
    let book = server.alert_book();
    let live = start_bound(server, None);
    live.send(h1);
    let cut = h1.last().unwrap().seq;
    live.wait_seq(cut).await;
    for &id in acks {
        assert!(book.record_ack(id).is_some());
    }
    wait_public(&live, last_public(h1, cut)).await;
    let snapshot = tap.snapshot();
    assert_eq!(snapshot.seq, cut);
    snapshot
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_restored_from_a_snapshot_answer_as_the_whole_history_does() {
    let (events, cut, acks1, acks2) = history();
    let all_acks: Vec<u64> = acks1.iter().chain(&acks2).copied().collect();
    let (h1, h2) = events.split_at(cut as usize);
    assert_eq!(h2[0].seq, cut + 1);

    let whole = from_history(&events, &all_acks).await;
    let expected = answers(&whole, &events, cut).await;

    let snapshot = snapshot_of(h1, &acks1).await;
    let restored = Server::bind(config())
        .await
        .unwrap()
        .with_views(snapshot)
        .expect("the snapshot restores")
        .with_history(h2.to_vec())
        .with_acks(all_acks.clone());
    let restored = start_bound(restored, None);
    restored.wait_seq(events.last().unwrap().seq).await;
    wait_public(&restored, last_public(&events, u64::MAX)).await;
    let got = answers(&restored, &events, cut).await;

    for ((path, want), (_, have)) in expected.iter().zip(&got) {
        assert_eq!(have, want, "{path} differs after the restore");
    }
    assert_eq!(got.len(), expected.len());

    // Without the snapshot, H2 alone does not make those views: the proof compares
    // something.
    let partial = from_history(h2, &all_acks).await;
    let without = answers(&partial, &events, cut).await;
    let differing = expected
        .iter()
        .zip(&without)
        .filter(|(a, b)| a.1 != b.1)
        .count();
    assert!(differing > expected.len() / 2, "{differing} answers differ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_that_does_not_fit_is_refused_and_changes_nothing() {
    let (events, cut, acks1, _) = history();
    let snapshot = snapshot_of(&events[..cut as usize], &acks1).await;

    let mut damaged = snapshot.clone();
    let n = damaged.bytes.len();
    damaged.bytes.truncate(n / 2);
    let err = Server::bind(config())
        .await
        .unwrap()
        .with_views(damaged)
        .err()
        .expect("a damaged snapshot is refused");
    assert!(matches!(err, ViewsError::Decode(_)), "{err}");

    let mut future = snapshot.clone();
    future.bytes[4] = 0xEE;
    let err = Server::bind(config())
        .await
        .unwrap()
        .with_views(future)
        .err()
        .expect("another format is refused");
    assert!(matches!(err, ViewsError::Version { .. }), "{err}");
    // The operator reads why the saved views are not used.
    assert_eq!(
        err.to_string(),
        "views snapshot format 238, this build reads format 2"
    );

    let other_tables = ServerConfig {
        tables: TableMap::new([(2, "b-9".to_string())]),
        ..config()
    };
    let err = Server::bind(other_tables)
        .await
        .unwrap()
        .with_views(snapshot.clone())
        .err()
        .expect("a snapshot of other [[tables]] is refused");
    assert!(matches!(err, ViewsError::TablesChanged), "{err}");

    let mut wrong_seq = snapshot;
    wrong_seq.seq += 1;
    let err = Server::bind(config())
        .await
        .unwrap()
        .with_views(wrong_seq)
        .err()
        .expect("a snapshot whose seq disagrees is refused");
    assert!(matches!(err, ViewsError::SeqMismatch { .. }), "{err}");
}
