//! Pairing files in, results out: TRF and CSV/TSV samples written for these tests.

use std::collections::BTreeMap;

use dgt_core::event::{EndReason, MoveEvent};
use dgt_core::pairing::{ROUND_BOARD, TableResultOp};
use dgt_core::{Event, EventBody, Side};
use dgt_pairings::{BoardOrder, RoundBook, TableMap, TableState, list, results, trf};

const TRF: &str = include_str!("samples/zomeropen-r3.trf");
const CSV: &str = include_str!("samples/zomeropen-r3.csv");
const DUTCH: &str = include_str!("samples/clubavond-r1.csv");
const TSV: &str = include_str!("samples/rapid-r2.tsv");

fn names(p: &dgt_core::pairing::RoundPairings) -> Vec<(u32, &str, &str)> {
    p.tables
        .iter()
        .map(|t| (t.table, t.white.name.as_str(), t.black.name.as_str()))
        .collect()
}

#[test]
fn a_trf_round_gives_its_pairs_in_the_white_players_line_order() {
    let p = trf::read(TRF, 3, BoardOrder::WhiteLine).unwrap();
    assert_eq!(
        names(&p),
        [
            (1, "Vermeer, Anna", "Jansen, Eva"),
            (2, "de Vries, Pieter", "Bakker, Jan"),
            (3, "Smit, Tom", "Bos, Ruud"),
            (4, "Dekker, Ilse", "Visser, Kees"),
        ]
    );
    let anna = &p.tables[0].white;
    assert_eq!(anna.fide_id, Some(1_000_001));
    assert_eq!(anna.rating, Some(2301));
    assert_eq!(anna.title.as_deref(), Some("WGM"));
    assert_eq!(anna.federation.as_deref(), Some("NED"));
    assert_eq!(anna.start_number, Some(1));
    // Unrated and without an id: nothing made up.
    assert_eq!(p.tables[2].black.rating, None);
    assert_eq!(p.tables[0].black.fide_id, Some(1_000_004));
    assert_eq!(p.byes.len(), 1);
    assert_eq!(p.byes[0].player.name, "Mulder, Lotte");
    assert_eq!(p.byes[0].code, 'U');
    assert_eq!(p.date.as_deref(), Some("2025.07.05"));
    assert_eq!(p.event.as_deref(), Some("Zomeropen Testdorp 2025"));
    assert_eq!(p.trf.as_deref(), Some(TRF));
}

#[test]
fn first_line_order_numbers_pairs_by_either_players_line() {
    // Round 1: 1-5, 6-2, 3-7, 8-4. By White's line: 1, 3, 6, 8; by the first line: 1 (1-5),
    // 2 (6-2), 3 (3-7), 4 (8-4).
    let white = trf::read(TRF, 1, BoardOrder::WhiteLine).unwrap();
    let first = trf::read(TRF, 1, BoardOrder::FirstLine).unwrap();
    assert_eq!(white.tables[1].white.name, "de Vries, Pieter");
    assert_eq!(first.tables[1].white.name, "Mulder, Lotte");
    assert_eq!(first.tables[3].white.name, "Bos, Ruud");
}

#[test]
fn a_trf_without_the_round_says_so() {
    let e = trf::read(TRF, 4, BoardOrder::WhiteLine).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    // The arbiter reads this to fix the file: the problem and the fix, whole.
    assert_eq!(
        e.to_string(),
        "no player has an entry for round 4; fix: pair round 4 in the pairing program, then export the TRF again\n"
    );
}

#[test]
fn every_problem_of_a_bad_trf_with_its_line() {
    let mut lines: Vec<String> = TRF.lines().map(str::to_string).collect();
    // Line 11 (player 2): rating "22x0"; line 13 (player 4) plays 9 instead of 1 in round 3;
    // line 14 (player 5): start number taken by player 4.
    lines[10].replace_range(48..52, "22x0");
    let r3 = 91 + 20;
    lines[12].replace_range(r3..r3 + 4, "   9");
    lines[13].replace_range(4..8, "   4");
    let text = lines.join("\n");
    let e = trf::read(&text, 3, BoardOrder::WhiteLine).unwrap_err();
    // The arbiter reads these to fix the file: each problem with its line and its fix.
    assert_eq!(
        e.to_string(),
        concat!(
            "line 10: round 3: player 1 plays 4, but player 4 (line 13) does not play 1; fix: make both players' round entries name each other\n",
            "line 11: the rating \"22x0\" (columns 49-52) is not a number; fix: write the rating as digits in columns 49-52, or leave them blank\n",
            "line 13: round 3: player 4 plays 9, but player 9 (line 18) does not play 4; fix: make both players' round entries name each other\n",
            "line 14: start number 4 is already used on line 13; fix: give every player line its own start number\n",
            "line 14: round 3: player 4 plays 8, but player 8 (line 17) does not play 4; fix: make both players' round entries name each other\n",
            "line 17: round 3: player 8 is paired with start number 5, which has no player line; fix: correct the opponent's start number, or add the opponent's 001 line\n",
        )
    );
    let lines_in_order: Vec<usize> = e.0.iter().filter_map(|p| p.line).collect();
    assert!(lines_in_order.is_sorted(), "{lines_in_order:?}");
}

#[test]
fn the_results_trf_fills_in_the_round_and_keeps_everything_else() {
    let p = trf::read(TRF, 3, BoardOrder::WhiteLine).unwrap();
    let codes = BTreeMap::from([(1, '1'), (4, '0'), (3, '+'), (2, '-')]);
    let out = trf::with_results(TRF, 3, &codes);
    assert_eq!(out.lines().count(), TRF.lines().count());
    assert!(out.ends_with("\r\n"));
    let changed: Vec<(&str, &str)> = TRF
        .lines()
        .zip(out.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 4);
    // Read back: the round's pairs are the same, the codes are where the format puts them.
    let again = trf::read(&out, 3, BoardOrder::WhiteLine).unwrap();
    assert_eq!(names(&again), names(&p));
    let mut problems = dgt_pairings::Problems::default();
    let players = trf::players(&out, &mut problems);
    assert!(problems.is_empty());
    let code = |start: u32| {
        players.iter().find(|x| x.start == start).unwrap().rounds[2]
            .unwrap()
            .result
    };
    assert_eq!(
        [code(1), code(4), code(3), code(2), code(5)],
        ['1', '0', '+', '-', ' ']
    );
}

#[test]
fn a_csv_list_with_quoted_names_ids_ratings_and_a_bye() {
    let p = list::read(CSV, 3).unwrap();
    let t = trf::read(TRF, 3, BoardOrder::WhiteLine).unwrap();
    assert_eq!(names(&p), names(&t));
    assert_eq!(p.tables[3].black.fide_id, Some(1_000_007));
    assert_eq!(p.tables[3].black.rating, Some(1902));
    assert_eq!(p.tables[2].black.rating, None);
    assert_eq!(p.byes.len(), 1);
    assert_eq!(p.byes[0].player.name, "Mulder, Lotte");
    assert_eq!(p.format.as_deref(), Some("csv"));
}

#[test]
fn dutch_headers_with_semicolons_and_a_tsv() {
    let p = dgt_pairings::read(DUTCH, 1, BoardOrder::default()).unwrap();
    assert_eq!(names(&p)[1], (2, "de Vries, Pieter", "Bakker, Jan"));
    assert_eq!(p.tables[0].white.rating, Some(2301));
    assert_eq!(p.tables[0].black.fide_id, Some(1_000_004));
    let p = dgt_pairings::read(TSV, 2, BoardOrder::default()).unwrap();
    assert_eq!(names(&p)[0], (1, "Vermeer, Anna", "Jansen, Eva"));
    assert_eq!(p.round, 2);
}

#[test]
fn every_problem_of_a_bad_list_with_its_line() {
    let bad = "Table,White,Black,White Elo\n\
               1,\"Vermeer, Anna\",\"Jansen, Eva\",23o1\n\
               x,A,B,\n\
               1,C,D,\n\
               3,,E,\n\
               4,\"Jansen, Eva\",F,\n";
    let e = list::read(bad, 1).unwrap_err();
    assert_eq!(e.0.len(), 5, "{e}");
    // The arbiter reads these to fix the file: each problem with its line and its fix.
    assert_eq!(
        e.to_string(),
        concat!(
            "line 2: White's rating \"23o1\" is not a number; fix: write the rating as digits, or leave it empty\n",
            "line 3: table \"x\" is not a table number; fix: write the table (board) number, 1 and up\n",
            "line 4: table 1 is already paired on line 2; fix: give every row its own table number\n",
            "line 5: the row has no White player; fix: write the White player's name\n",
            "line 6: Jansen, Eva (Jansen, Eva) is already paired on line 2; fix: pair every player once\n",
        )
    );
    let e = list::read("Nr,Naam,Club\n1,A,B\n", 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        concat!(
            "line 1: the header has no table (or board, bord, tafel) column (found: Nr, Naam, Club); fix: name a column table (or board, bord, tafel) in the first row\n",
            "line 1: the header has no white (or wit) column (found: Nr, Naam, Club); fix: name a column white (or wit) in the first row\n",
            "line 1: the header has no black (or zwart) column (found: Nr, Naam, Club); fix: name a column black (or zwart) in the first row\n",
        )
    );
}

fn ev(seq: u64, board: &str, body: EventBody) -> Event {
    Event::new(seq, board, seq * 100, body)
}

fn start(seq: u64, board: &str, game: &str) -> Event {
    ev(
        seq,
        board,
        EventBody::GameStart {
            game: game.into(),
            start_fen: String::new(),
            found_under_way: false,
        },
    )
}

fn mv(seq: u64, board: &str, game: &str) -> Event {
    ev(
        seq,
        board,
        EventBody::Move(MoveEvent {
            game: game.into(),
            ply: 1,
            side: Side::White,
            uci: "e2e4".into(),
            san: "e4".into(),
            fen: String::new(),
            white_ms: None,
            black_ms: None,
        }),
    )
}

fn end(seq: u64, board: &str, game: &str, result: &str) -> Event {
    ev(
        seq,
        board,
        EventBody::GameEnd {
            game: game.into(),
            result: result.parse().unwrap(),
            reason: EndReason::Arbiter,
        },
    )
}

#[test]
fn games_belong_to_the_round_they_start_in_and_results_come_out() {
    let r3 = trf::read(TRF, 3, BoardOrder::WhiteLine).unwrap();
    let mut r4 = r3.clone();
    r4.round = 4;
    // Table 2's board is "b-2"; table 4 has no board.
    let map = TableMap::new([(2, "b-2".to_string())]);
    let mut book = RoundBook::with_map(map.clone());
    for e in [
        // Round 2 leftovers: board 1 finished, board 3 set up with no move.
        start(1, "1", "1/1"),
        mv(2, "1", "1/1"),
        end(3, "1", "1/1", "0-1"),
        start(4, "3", "3/1"),
        ev(5, ROUND_BOARD, EventBody::Pairings(r3.clone())),
        start(6, "1", "1/2"),
        mv(7, "1", "1/2"),
        end(8, "1", "1/2", "1-0"),
        start(9, "b-2", "b-2/1"),
        mv(10, "b-2", "b-2/1"),
        mv(11, "3", "3/1"),
        ev(
            12,
            ROUND_BOARD,
            EventBody::TableResult(TableResultOp {
                round: 3,
                table: 4,
                result: Some("-+".parse().unwrap()),
            }),
        ),
    ] {
        book.apply(&e);
    }
    assert_eq!(book.current(), Some(3));
    assert_eq!(book.round_of("1/1"), None);
    assert_eq!(book.round_of("1/2"), Some(3));
    assert_eq!(book.round_of("3/1"), Some(3), "set up before the import");
    assert_eq!(book.pairing_of("b-2/1", &map).unwrap().1.table, 2);
    let boards = ["1", "b-2", "3"];
    let outcomes = book.outcomes(3, &map, &boards);
    let states: Vec<TableState> = outcomes.iter().map(|o| o.state).collect();
    assert_eq!(
        states,
        [
            TableState::Finished,
            TableState::Playing,
            TableState::Playing,
            TableState::Finished
        ]
    );
    assert_eq!(outcomes[3].board, None, "table 4 has no board");
    assert!(outcomes[3].entered);
    assert_eq!(results::unfinished(&outcomes), [2, 3]);
    let csv = results::csv(&r3, &outcomes);
    assert!(
        csv.contains("1,\"Vermeer, Anna\",1000001,\"Jansen, Eva\",1000004,1-0,board,finished,yes,"),
        "{csv}"
    );
    assert!(
        csv.contains(
            "4,\"Dekker, Ilse\",1000009,\"Visser, Kees\",1000007,-+,arbiter,finished,yes,"
        ),
        "{csv}"
    );
    assert!(
        csv.contains("2,\"de Vries, Pieter\",1000003,\"Bakker, Jan\",1000002,,,playing,,"),
        "{csv}"
    );
    assert!(
        csv.contains(",\"Mulder, Lotte\",,bye,,U,pairing,finished,yes,"),
        "{csv}"
    );
    let out = results::trf(&r3, &outcomes).unwrap();
    let mut problems = dgt_pairings::Problems::default();
    let players = trf::players(&out, &mut problems);
    let code = |s: u32| {
        players.iter().find(|p| p.start == s).unwrap().rounds[2]
            .unwrap()
            .result
    };
    assert_eq!(
        [code(1), code(4), code(9), code(7), code(3)],
        ['1', '0', '-', '+', ' ']
    );

    // Round 4 arrives: finished and started games stay in round 3.
    book.apply(&ev(13, ROUND_BOARD, EventBody::Pairings(r4)));
    assert_eq!(book.round_of("b-2/1"), Some(3));
    book.apply(&start(14, "1", "1/3"));
    assert_eq!(book.round_of("1/3"), Some(4));
    assert_eq!(book.game_of(3, "1"), Some("1/2"));
    // A corrected round 3 changes no game's round.
    book.apply(&ev(15, ROUND_BOARD, EventBody::Pairings(r3)));
    assert_eq!(book.current(), Some(4));
    assert_eq!(book.round_of("1/3"), Some(4));
}

#[test]
fn a_csv_import_has_no_trf_to_fill_in() {
    let p = list::read(CSV, 3).unwrap();
    assert_eq!(results::trf(&p, &[]), None);
}

#[test]
fn points_order_numbers_boards_as_the_pairing_program_does() {
    // Round 3 with the file's points: Vermeer 1.5 - Jansen 2.0 and Dekker 2.0 - Visser 1.5
    // (both 2.0 / 3.5; Vermeer ranks 1st, Visser 7th), de Vries 0.5 - Bakker 1.5, Smit 0.0 -
    // Bos 0.5.
    let p = trf::read(TRF, 3, BoardOrder::Points).unwrap();
    assert_eq!(
        names(&p),
        [
            (1, "Vermeer, Anna", "Jansen, Eva"),
            (2, "Dekker, Ilse", "Visser, Kees"),
            (3, "de Vries, Pieter", "Bakker, Jan"),
            (4, "Smit, Tom", "Bos, Ruud"),
        ]
    );
    assert_eq!("points".parse::<BoardOrder>(), Ok(BoardOrder::Points));
    assert!(
        "standings"
            .parse::<BoardOrder>()
            .unwrap_err()
            .to_string()
            .contains("\"points\"")
    );
}

#[test]
fn a_line_ending_before_the_round_is_a_player_not_paired_not_a_problem_nor_a_bye() {
    // Bos (start 8, line 17) withdrew: his line ends after round 1; Smit has no opponent
    // in round 3 then, and is written as not paired (blank).
    let mut lines: Vec<String> = TRF.lines().map(str::to_string).collect();
    let r2 = 91 + 10;
    lines[16].truncate(r2);
    let r3 = 91 + 20;
    lines[13].truncate(r3);
    lines[13].push_str("0000");
    let text = lines.join("\r\n") + "\r\n";
    let p = trf::read(&text, 3, BoardOrder::WhiteLine).unwrap();
    assert_eq!(p.tables.len(), 3);
    assert!(
        p.byes
            .iter()
            .all(|b| b.player.name != "Smit, Tom" && b.player.name != "Bos, Ruud"),
        "{:?}",
        p.byes
    );
    // A player line that ends early in a round others are paired in is no problem either.
    let mut problems = dgt_pairings::Problems::default();
    let players = trf::players(&text, &mut problems);
    assert!(problems.is_empty(), "{problems}");
    assert_eq!(
        players.iter().find(|x| x.start == 8).unwrap().rounds.len(),
        1
    );
}

#[test]
fn a_windows_1252_file_is_read_as_such_and_results_go_back_in_it() {
    // "Šulc, Žofie" has the same width as "Smit, Tom " in the fixed columns.
    let utf8 = TRF.replace("Smit, Tom ", "Šulc, Žofi");
    let bytes = dgt_pairings::encode(&utf8, Some(dgt_pairings::WINDOWS_1252));
    assert!(
        bytes.contains(&0x8a) && bytes.contains(&0x8e),
        "Š and Ž in 1252"
    );
    assert!(std::str::from_utf8(&bytes).is_err());
    let p = dgt_pairings::read_bytes(&bytes, 3, BoardOrder::WhiteLine).unwrap();
    assert_eq!(p.encoding.as_deref(), Some("windows-1252"));
    assert_eq!(p.tables[2].white.name, "Šulc, Žofi");
    // The results, back in the file's encoding.
    let codes = BTreeMap::from([(5, '1'), (8, '0')]);
    let out = dgt_pairings::encode(
        &trf::with_results(p.trf.as_deref().unwrap(), 3, &codes),
        p.encoding.as_deref(),
    );
    assert!(out.contains(&0x8a) && std::str::from_utf8(&out).is_err());
    assert_eq!(
        dgt_pairings::decode(&out),
        (
            trf::with_results(&utf8, 3, &codes),
            Some(dgt_pairings::WINDOWS_1252)
        )
    );
    // A UTF-8 file stays UTF-8 (a byte-order mark dropped).
    let mut bom = vec![0xef, 0xbb, 0xbf];
    bom.extend_from_slice(utf8.as_bytes());
    let p = dgt_pairings::read_bytes(&bom, 3, BoardOrder::WhiteLine).unwrap();
    assert_eq!(p.encoding, None);
    assert_eq!(p.tables[2].white.name, "Šulc, Žofi");
}
