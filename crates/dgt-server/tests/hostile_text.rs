//! Names that carry code: a pairing file whose names hold line breaks (a lone `\r` among
//! them) or control characters is refused at import with the line and a fix; names that
//! reached the journal some other way still come out of the round's PGN as tag values
//! (pgn-reader finds as many games as tables, no forged tag) and out of `results.csv` as
//! text, never as a spreadsheet formula.

mod common;

use common::*;
use dgt_core::Event;
use dgt_core::EventBody;
use dgt_core::pairing::{Pairing, Player, ROUND_BOARD, RoundPairings};
use dgt_server::ServerConfig;
use pgn_reader::{RawTag, Reader, Visitor};
use serde_json::Value;
use std::ops::ControlFlow;

const TOKEN: &str = "chief-secret-0123456789";

fn config() -> ServerConfig {
    ServerConfig {
        arbiter_token: Some(TOKEN.into()),
        ..test_config()
    }
}

fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

#[tokio::test]
async fn a_name_with_a_line_break_or_a_control_character_is_refused_at_import() {
    let mut server = start(config()).await;
    let forged = "table,white,black\r\n\
                  1,\"Evil\r[Result \"\"1-0\"\"]\",Other\r\n\
                  2,Ann\u{0096}Smith,Bob\r\n\
                  3,Carla,Dora\r\n";
    let auth = bearer();
    let (status, body) = http(
        server.addr,
        "POST",
        "/api/rounds/1/pairings",
        &[("Authorization", &auth), ("Content-Type", "text/csv")],
        forged,
    )
    .await;
    assert_eq!(status, 422, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    // The arbiter reads these problems to fix the file: each names the line, the
    // character and the fix.
    assert_eq!(
        v["problems"],
        serde_json::json!([
            {
                "line": 2,
                "message": "column 8: U+000D (carriage return) is not text (names are data, never structure)",
                "fix": "a line break inside a line (a lone carriage return): join the line, or save the file with ordinary line ends (LF or CR LF)"
            },
            {
                "line": 3,
                "message": "column 6: U+0096 (a C1 control character: Windows-1252 text read as Latin-1?) is not text (names are data, never structure)",
                "fix": "remove the character; if names show odd characters, save the file as UTF-8 from the pairing program"
            }
        ]),
        "{v}"
    );
    assert!(server.ops.try_recv().is_err(), "nothing was imported");
}

fn player(name: &str) -> Player {
    Player {
        name: name.into(),
        ..Player::default()
    }
}

/// Round 1 with four tables whose names try every trick: a forged tag and move after a
/// lone `\r` or a `\n`, a quote and a backslash, spreadsheet formulas.
fn hostile_round() -> RoundPairings {
    let names = [
        (
            "Evil\r[Result \"1-0\"]\r[White \"Forged",
            "=HYPERLINK(\"http://x\")",
        ),
        ("Line\n\n[Event \"x\"]\n\n1. e4 e5 1-0\n", "+1+2"),
        ("Quote \" and \\ backslash\\", "-3"),
        ("@SUM(A1:A9)", "\tTab"),
    ];
    RoundPairings {
        round: 1,
        tables: names
            .iter()
            .enumerate()
            .map(|(i, (w, b))| Pairing {
                table: i as u32 + 1,
                white: player(w),
                black: player(b),
            })
            .collect(),
        format: Some("csv".into()),
        ..RoundPairings::default()
    }
}

struct Tags;

impl Visitor for Tags {
    type Tags = Vec<(String, String)>;
    type Movetext = Vec<(String, String)>;
    type Output = Vec<(String, String)>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(tags)
    }

    fn end_game(&mut self, tags: Self::Movetext) -> Self::Output {
        tags
    }
}

#[tokio::test]
async fn names_that_reached_the_journal_come_out_as_data_in_the_pgn_and_the_csv() {
    let server = start(config()).await;
    let pairings = Event::new(1, ROUND_BOARD, 1000, EventBody::Pairings(hostile_round()));
    server.send(&[pairings]);
    server.wait_seq(1).await;

    let (status, pgn) = http(server.addr, "GET", "/public/round/1.pgn", &[], "").await;
    assert_eq!(status, 200, "{pgn}");
    let mut reader = Reader::new(std::io::Cursor::new(pgn.as_bytes()));
    let mut games = Vec::new();
    while let Some(tags) = reader.read_game(&mut Tags).unwrap() {
        games.push(tags);
    }
    assert_eq!(games.len(), 4, "one game per table: {pgn}");
    for (i, tags) in games.iter().enumerate() {
        let get = |name: &str| -> Vec<&str> {
            tags.iter()
                .filter(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
                .collect()
        };
        assert_eq!(get("Result"), ["*"], "table {}: {tags:?}", i + 1);
        assert_eq!(get("White").len(), 1, "{tags:?}");
        assert_eq!(get("Event").len(), 1, "{tags:?}");
    }
    let white: Vec<&str> = games
        .iter()
        .map(|t| t.iter().find(|(n, _)| n == "White").unwrap().1.as_str())
        .collect();
    assert!(
        white[0].starts_with("Evil\u{FFFD}[Result \"1-0\"]"),
        "{white:?}"
    );
    assert_eq!(white[2], "Quote \" and \\ backslash\\");
    assert!(
        pgn.lines()
            .all(|l| l.is_empty() || !l.starts_with('[') || l.ends_with("\"]")),
        "a tag line broken: {pgn}"
    );

    let auth = bearer();
    let (status, csv) = http(
        server.addr,
        "GET",
        "/api/rounds/1/results.csv",
        &[("Authorization", &auth)],
        "",
    )
    .await;
    assert_eq!(status, 200, "{csv}");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 5, "a header and one row per table: {csv}");
    for cell in [
        "\"'=HYPERLINK(\"\"http://x\"\")\"",
        "'+1+2",
        "'-3",
        "'@SUM(A1:A9)",
        "'\u{FFFD}Tab",
    ] {
        assert!(csv.contains(cell), "{cell} not in {csv}");
    }
}
