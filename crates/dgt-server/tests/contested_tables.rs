//! On a hub, two venue PCs with a board of one number (`hall-a/7`, `hall-b/7`) contest table
//! 7: the round page names both boards and neither stands at the table.

use dgt_core::pairing::{Pairing, Player, ROUND_BOARD, RoundPairings};
use dgt_core::{Event, EventBody};
use dgt_pairings::TableMap;
use dgt_server::Hall;
use serde_json::json;

fn pairings() -> RoundPairings {
    let player = |name: &str| Player {
        name: name.into(),
        ..Player::default()
    };
    RoundPairings {
        round: 1,
        tables: vec![Pairing {
            table: 7,
            white: player("White"),
            black: player("Black"),
        }],
        ..RoundPairings::default()
    }
}

fn start(seq: u64, board: &str) -> Event {
    Event::new(
        seq,
        board,
        seq,
        EventBody::GameStart {
            game: format!("{board}/1"),
            start_fen: String::new(),
            found_under_way: false,
        },
    )
}

#[test]
fn the_round_page_names_the_boards_that_contest_a_table() {
    let mut hall = Hall::with_tables(TableMap::default());
    hall.apply(&Event::new(
        1,
        ROUND_BOARD,
        1,
        EventBody::Pairings(pairings()),
    ));
    hall.apply(&start(2, "hall-a/7"));
    let round = hall.round_json(1).unwrap();
    assert_eq!(round["contested_tables"], json!([]));
    assert_eq!(round["tables"][0]["label"], "hall-a/7");
    hall.apply(&start(3, "hall-b/7"));
    let round = hall.round_json(1).unwrap();
    assert_eq!(
        round["contested_tables"],
        json!([{"table": 7, "boards": ["hall-a/7", "hall-b/7"]}])
    );
    assert_eq!(hall.tables().table("hall-b/7"), None);
}

#[test]
fn the_hubs_map_settles_the_contest() {
    let mut hall = Hall::with_tables(TableMap::new([(7, "hall-b/7".to_string())]));
    hall.apply(&Event::new(
        1,
        ROUND_BOARD,
        1,
        EventBody::Pairings(pairings()),
    ));
    hall.apply(&start(2, "hall-a/7"));
    hall.apply(&start(3, "hall-b/7"));
    let round = hall.round_json(1).unwrap();
    assert_eq!(round["contested_tables"], json!([]));
    assert_eq!(round["tables"][0]["game"], "hall-b/7/1");
}
