//! PGN and broadcast output of the real game, read back by a third-party parser
//! (`pgn-reader`, the parser behind lichess's PGN import tooling).

mod common;

use std::ops::ControlFlow;

use dgt_core::{Core, CoreConfig};
use dgt_journal::broadcast::{BroadcastFolder, BroadcastGame, DelayedBroadcast, TournamentInfo};
use dgt_journal::pgn::{GameBook, GameRecord, PgnHeader, write_pgn};
use dgt_journal::{Batch, Journal};
use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::{Chess, Position};

use common::*;

/// What the third-party parser saw: tags, moves played on a board, and the comment after
/// each move.
#[derive(Debug, Default)]
struct Parsed {
    tags: Vec<(String, String)>,
    ucis: Vec<String>,
    clocks: Vec<Option<String>>,
    error: Option<String>,
}

struct Collect;

impl Visitor for Collect {
    type Tags = Vec<(String, String)>;
    type Movetext = (Parsed, Chess);
    type Output = Parsed;

    fn begin_tags(&mut self) -> ControlFlow<Parsed, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Parsed> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Parsed, Self::Movetext> {
        ControlFlow::Continue((
            Parsed {
                tags,
                ..Default::default()
            },
            Chess::default(),
        ))
    }

    fn san(&mut self, (p, pos): &mut Self::Movetext, san: SanPlus) -> ControlFlow<Parsed> {
        match san.san.to_move(pos) {
            Ok(m) => {
                p.ucis
                    .push(m.to_uci(shakmaty::CastlingMode::Standard).to_string());
                pos.play_unchecked(m);
                p.clocks.push(None);
            }
            Err(e) => p.error = Some(format!("{san}: {e}")),
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, (p, _): &mut Self::Movetext, c: RawComment<'_>) -> ControlFlow<Parsed> {
        let text = String::from_utf8_lossy(c.as_bytes()).into_owned();
        if let Some(slot) = p.clocks.last_mut()
            && let Some(start) = text.find("[%clk ")
        {
            let rest = &text[start + 6..];
            *slot = rest.split(']').next().map(|s| s.trim().to_string());
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, (p, _): Self::Movetext) -> Parsed {
        p
    }
}

fn parse_all(pgn: &str) -> Vec<Parsed> {
    let mut reader = Reader::new(std::io::Cursor::new(pgn.as_bytes()));
    let mut out = Vec::new();
    while let Some(p) = reader.read_game(&mut Collect).unwrap() {
        out.push(p);
    }
    out
}

fn real_game_record() -> GameRecord {
    let mut book = GameBook::new();
    for e in uninterrupted(&real_capture()) {
        book.apply(&e);
    }
    assert_eq!(book.games().len(), 1);
    book.games()[0].clone()
}

fn header() -> PgnHeader {
    PgnHeader {
        event: Some("Club \"Blitz\" Night".into()),
        site: Some("Utrecht NED".into()),
        date: Some("2025.03.14".into()),
        round: Some(3),
        board_number: Some(5),
        white: Some("Carlsen, Magnus".into()),
        black: Some("Nepomniachtchi, Ian".into()),
        white_fide_id: Some(1503014),
        black_fide_id: Some(4168119),
        time_control: Some("180+2".into()),
        ..PgnHeader::default()
    }
}

#[test]
fn pgn_of_the_real_game_reads_back_with_a_clock_on_every_move() {
    let pgn = write_pgn(&real_game_record(), &header());
    let games = parse_all(&pgn);
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g.error, None, "{pgn}");
    assert_eq!(g.ucis, expected_moves(), "{pgn}");
    assert_eq!(g.ucis.len(), 57);
    assert_eq!(g.clocks.len(), 57);
    for (k, c) in g.clocks.iter().enumerate() {
        let c = c
            .as_deref()
            .unwrap_or_else(|| panic!("ply {} has no %clk\n{pgn}", k + 1));
        let parts: Vec<&str> = c.split(':').collect();
        assert_eq!(parts.len(), 3, "{c}");
        assert!(parts[1].len() == 2 && parts[2].len() == 2, "{c}");
    }
    let tag = |n: &str| {
        g.tags
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {n} tag\n{pgn}"))
    };
    assert_eq!(tag("Event"), "Club \"Blitz\" Night");
    assert_eq!(tag("Round"), "3.5");
    assert_eq!(tag("Board"), "5");
    assert_eq!(tag("White"), "Carlsen, Magnus");
    assert_eq!(tag("WhiteFideId"), "1503014");
    assert_eq!(tag("BlackFideId"), "4168119");
    assert_eq!(tag("TimeControl"), "180+2");
    assert_eq!(tag("Date"), "2025.03.14");
    assert!(["*", "1-0", "0-1", "1/2-1/2"].contains(&tag("Result")));
    assert!(pgn.lines().all(|l| l.len() < 80), "{pgn}");
}

#[test]
fn pgn_from_the_journal_equals_pgn_from_live_events() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = Journal::open(&dir.path().join("j.sqlite")).unwrap();
    let mut core = Core::new(CoreConfig::default());
    let mut batch = Batch::new();
    run_live(&mut core, &real_capture(), |c, e| match c {
        dgt_journal::Cause::Input(i) => batch.record_input(i, e),
        dgt_journal::Cause::Timers { until_ms } => batch.record_timers(until_ms, e),
    });
    drain(&mut core, |_, e| batch.record_timers(u64::MAX >> 1, e));
    j.append(&batch).unwrap();
    let game = j.games().unwrap().remove(0);
    let mut book = GameBook::new();
    for e in j.events_of_game(&game.id).unwrap() {
        book.apply_json(&e);
    }
    assert_eq!(
        write_pgn(book.game(&game.id).unwrap(), &header()),
        write_pgn(&real_game_record(), &header())
    );
}

#[test]
fn broadcast_folder_and_its_delayed_public_copy() {
    let dir = tempfile::tempdir().unwrap();
    let record = real_game_record();
    let last_t = record.moves.last().unwrap().t_ms;
    let games = vec![
        BroadcastGame {
            header: header(),
            record: Some(record.clone()),
        },
        BroadcastGame {
            header: PgnHeader {
                board_number: Some(6),
                round: Some(3),
                white: Some("Doe, Jane".into()),
                black: Some("Roe, Richard".into()),
                ..Default::default()
            },
            record: None,
        },
    ];
    let tournament = TournamentInfo {
        name: "Club Blitz Night".into(),
        location: Some("Utrecht".into()),
    };
    let mut live = BroadcastFolder::new(dir.path().join("live")).unwrap();
    live.publish_round(&tournament, 3, Some("2025-03-14"), &games)
        .unwrap();
    let round = dir.path().join("live/round-3");
    let full = std::fs::read_to_string(round.join("game-5.pgn")).unwrap();
    assert_eq!(parse_all(&full)[0].ucis.len(), 57);
    let all = std::fs::read_to_string(round.join("games.pgn")).unwrap();
    assert_eq!(parse_all(&all).len(), 2);
    assert!(round.join("game-6.pgn").exists());
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(round.join("index.json")).unwrap()).unwrap();
    assert_eq!(index["pairings"][0]["white"]["lname"], "Carlsen");
    assert_eq!(index["pairings"][0]["white"]["fideid"], 1503014);
    assert_eq!(index["pairings"][1]["result"], "*");
    let t: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("live/tournament.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(t["rounds"][0]["count"], 2);
    let leftovers: Vec<_> = std::fs::read_dir(&round)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());

    // The public copy, 15 minutes behind: 15 minutes after move 30 it shows 30 moves;
    // 15 minutes after the last move, all of them.
    let delay = 15 * 60 * 1000;
    let mut public = DelayedBroadcast::new(dir.path().join("public"), delay).unwrap();
    let halfway = record.moves[29].t_ms;
    public
        .publish_round(halfway + delay, &tournament, 3, None, &games)
        .unwrap();
    let delayed = std::fs::read_to_string(dir.path().join("public/round-3/game-5.pgn")).unwrap();
    let parsed = parse_all(&delayed);
    assert_eq!(parsed[0].ucis.len(), 30);
    assert_eq!(parsed[0].ucis[..], expected_moves()[..30]);
    assert!(parsed[0].clocks.iter().all(Option::is_some));
    public
        .publish_round(last_t + delay, &tournament, 3, None, &games)
        .unwrap();
    let delayed = std::fs::read_to_string(dir.path().join("public/round-3/game-5.pgn")).unwrap();
    assert_eq!(parse_all(&delayed)[0].ucis.len(), 57);
    for entry in std::fs::read_dir(dir.path().join("public/round-3")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains("alert") && !text.contains("severity"));
    }
}

#[test]
#[ignore = "prints the PGN of the real game"]
fn print_real_game_pgn() {
    println!("{}", write_pgn(&real_game_record(), &header()));
}
