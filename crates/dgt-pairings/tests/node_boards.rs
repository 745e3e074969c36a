//! On a hub, boards are `<node>/<board>`: a node board labelled with a number stands at that
//! table by itself, unless another node has a board with the same number (the table is
//! contested: neither stands there) or the hub's map names the board for the table.

use dgt_core::event::MoveEvent;
use dgt_core::pairing::{Pairing, Player, ROUND_BOARD, RoundPairings};
use dgt_core::{Event, EventBody, Side};
use dgt_pairings::{Contest, RoundBook, TableMap};

fn pairings(round: u32, tables: &[u32]) -> RoundPairings {
    let player = |name: String| Player {
        name,
        ..Player::default()
    };
    RoundPairings {
        round,
        tables: tables
            .iter()
            .map(|&t| Pairing {
                table: t,
                white: player(format!("White {t}")),
                black: player(format!("Black {t}")),
            })
            .collect(),
        ..RoundPairings::default()
    }
}

fn start(seq: u64, board: &str, game: &str) -> Event {
    Event::new(
        seq,
        board,
        seq * 10,
        EventBody::GameStart {
            game: game.into(),
            start_fen: String::new(),
            found_under_way: false,
        },
    )
}

fn first_move(seq: u64, board: &str, game: &str) -> Event {
    Event::new(
        seq,
        board,
        seq * 10,
        EventBody::Move(MoveEvent {
            game: game.into(),
            ply: 1,
            side: Side::White,
            uci: "e2e4".into(),
            san: "e4".into(),
            fen: "f".into(),
            white_ms: None,
            black_ms: None,
        }),
    )
}

#[test]
fn a_node_board_stands_at_the_table_of_its_number() {
    let mut book = RoundBook::new();
    book.apply(&Event::new(
        1,
        ROUND_BOARD,
        0,
        EventBody::Pairings(pairings(1, &[7, 107])),
    ));
    book.apply(&start(2, "hall-a/7", "hall-a/7/1"));
    book.apply(&start(3, "hall-b/107", "hall-b/107/1"));
    assert_eq!(book.table_game(1, 7), Some("hall-a/7/1"));
    assert_eq!(book.table_game(1, 107), Some("hall-b/107/1"));
    assert_eq!(book.map().label(7), "hall-a/7");
    assert_eq!(book.map().table("hall-b/107"), Some(107));
    // Only `<node>/<digits>` carries a number.
    assert_eq!(book.map().table("hall-a/b-7"), None);
    assert_eq!(book.map().table("hall-a/7/1"), None);
}

#[test]
fn a_game_under_way_when_the_pairings_come_binds_on_a_node_board() {
    let mut book = RoundBook::new();
    book.apply(&start(1, "hall-a/7", "hall-a/7/1"));
    book.apply(&first_move(2, "hall-a/7", "hall-a/7/1"));
    book.apply(&Event::new(
        3,
        ROUND_BOARD,
        0,
        EventBody::Pairings(pairings(1, &[7])),
    ));
    assert_eq!(book.table_game(1, 7), Some("hall-a/7/1"));
}

#[test]
fn two_nodes_with_one_table_number_contest_it_and_neither_binds() {
    let mut book = RoundBook::new();
    book.apply(&Event::new(
        1,
        ROUND_BOARD,
        0,
        EventBody::Pairings(pairings(1, &[7])),
    ));
    book.apply(&start(2, "hall-a/7", "hall-a/7/1"));
    book.apply(&start(3, "hall-b/7", "hall-b/7/1"));
    // hall-a/7 was alone when its game began: the table keeps it; hall-b's does not bind.
    assert_eq!(book.table_game(1, 7), Some("hall-a/7/1"));
    assert_eq!(book.map().table("hall-a/7"), None);
    assert_eq!(book.map().table("hall-b/7"), None);
    assert_eq!(
        book.map().contested(),
        [Contest {
            table: 7,
            boards: vec!["hall-a/7".into(), "hall-b/7".into()],
        }]
    );
    // Their next games bind nowhere.
    book.apply(&Event::new(
        4,
        ROUND_BOARD,
        0,
        EventBody::Pairings(pairings(2, &[7])),
    ));
    book.apply(&start(5, "hall-a/7", "hall-a/7/2"));
    book.apply(&start(6, "hall-b/7", "hall-b/7/2"));
    assert_eq!(book.table_game(2, 7), None);
}

#[test]
fn the_contest_is_told_once_for_each_new_board() {
    let mut map = TableMap::default();
    assert_eq!(map.observe("hall-a/7"), None);
    assert_eq!(map.observe("hall-a/7"), None);
    assert_eq!(
        map.observe("hall-b/7"),
        Some(Contest {
            table: 7,
            boards: vec!["hall-a/7".into(), "hall-b/7".into()],
        })
    );
    assert_eq!(map.observe("hall-b/7"), None);
    // Plain labels (a node's own boards) claim nothing.
    assert_eq!(map.observe("7"), None);
}

#[test]
fn the_hubs_map_decides_a_contested_table() {
    let mut map = TableMap::new([(7, "hall-a/7".to_string())]);
    assert_eq!(map.observe("hall-a/7"), None);
    assert_eq!(map.observe("hall-b/7"), None);
    assert_eq!(map.table("hall-a/7"), Some(7));
    assert_eq!(map.table("hall-b/7"), None);
    assert!(map.contested().is_empty());
    // A node board mapped to another table leaves its number to the other node.
    let mut map = TableMap::new([(107, "hall-b/7".to_string())]);
    map.observe("hall-a/7");
    map.observe("hall-b/7");
    assert_eq!(map.table("hall-a/7"), Some(7));
    assert_eq!(map.table("hall-b/7"), Some(107));
    assert_eq!(map.label(7), "hall-a/7");
    assert!(map.contested().is_empty());
}
