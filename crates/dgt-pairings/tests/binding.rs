//! Each table keeps its round game: games played on a board after it, result gestures,
//! clocks stopped with a result owed, late pairings, the arbiter naming a game — and the
//! same binding from the journal's JSON (a restart, the hub).

use dgt_core::event::EndReason;
use dgt_core::event_script::EventScript;
use dgt_core::input::ActionBy;
use dgt_core::pairing::{Pairing, Player, ROUND_BOARD, RoundPairings, TableGameOp, TableResultOp};
use dgt_core::{EventBody, Operation};
use dgt_pairings::{ResultSource, RoundBook, TableMap, TableState, results};

/// Builds a stream of events with increasing seqs, and a book fed with them.
struct Stream {
    script: EventScript,
    /// How many of the script's events the book has been fed.
    applied: usize,
    book: RoundBook,
}

fn player(name: &str) -> Player {
    Player {
        name: name.into(),
        ..Player::default()
    }
}

fn pairings(round: u32, tables: &[u32]) -> RoundPairings {
    RoundPairings {
        round,
        tables: tables
            .iter()
            .map(|&t| Pairing {
                table: t,
                white: player(&format!("White {round}.{t}")),
                black: player(&format!("Black {round}.{t}")),
            })
            .collect(),
        ..RoundPairings::default()
    }
}

impl Stream {
    fn new() -> Self {
        Stream {
            script: EventScript::new(1000),
            applied: 0,
            book: RoundBook::with_map(TableMap::new([(3, "b-3".to_string())])),
        }
    }

    /// Feeds the book the events written since it was last fed.
    fn feed(&mut self) {
        for e in &self.script.events[self.applied..] {
            self.book.apply(e);
        }
        self.applied = self.script.events.len();
    }

    fn push(&mut self, board: &str, body: EventBody) {
        self.script.push(board, body);
        self.feed();
    }

    fn pairings(&mut self, round: u32, tables: &[u32]) {
        self.push(ROUND_BOARD, EventBody::Pairings(pairings(round, tables)));
    }

    fn start(&mut self, board: &str, game: &str) {
        self.script.start(board, game, "");
        self.feed();
    }

    fn moves(&mut self, board: &str, game: &str, plies: u32) {
        self.moves_from(board, game, 1, plies);
    }

    /// Plies `first..=last` of a game.
    fn moves_from(&mut self, board: &str, game: &str, first: u32, last: u32) {
        for ply in first..=last {
            self.script
                .ply(board, game, ply, "", String::new(), (None, None));
        }
        self.feed();
    }

    fn end(&mut self, board: &str, game: &str, result: &str, reason: EndReason) {
        self.script.end(board, game, result, reason);
        self.feed();
    }

    fn clock_stopped(&mut self, board: &str, game: &str) {
        self.script.clock_stopped(board, game);
        self.feed();
    }

    /// An arbiter action as `forward_by` sends it: the action, then who took it.
    fn by(&mut self, arbiter: &str, op: Operation) {
        let body = match &op {
            Operation::TableResult(r) => EventBody::TableResult(r.clone()),
            Operation::TableGame(g) => EventBody::TableGame(g.clone()),
            _ => unreachable!(),
        };
        self.push(ROUND_BOARD, body);
        self.push(
            ROUND_BOARD,
            EventBody::ArbiterAction(ActionBy {
                arbiter: arbiter.into(),
                role: "chief".into(),
                action: Box::new(op),
            }),
        );
    }

    fn enter(&mut self, arbiter: &str, round: u32, table: u32, result: Option<&str>) {
        self.by(
            arbiter,
            Operation::TableResult(TableResultOp {
                round,
                table,
                result: result.map(|r| r.parse().unwrap()),
            }),
        );
    }

    /// (table, game, result, state) of every table of the round.
    fn round(&self, round: u32) -> Vec<(u32, Option<String>, Option<String>, TableState)> {
        outcomes(&self.book, round)
    }

    /// The same events through the journal's JSON, in a fresh book (a restart; the hub).
    fn replayed(&self) -> RoundBook {
        let mut book = RoundBook::with_map(TableMap::new([(3, "b-3".to_string())]));
        for e in &self.script.events {
            book.apply_json(&e.to_json());
        }
        book
    }
}

fn outcomes(
    book: &RoundBook,
    round: u32,
) -> Vec<(u32, Option<String>, Option<String>, TableState)> {
    let boards = ["1", "2", "b-3", "4"];
    book.outcomes(round, book.map(), &boards)
        .iter()
        .map(|o| (o.pairing.table, o.game.clone(), o.result.clone(), o.state))
        .collect()
}

fn row(
    table: u32,
    game: Option<&str>,
    result: Option<&str>,
    state: TableState,
) -> (u32, Option<String>, Option<String>, TableState) {
    (
        table,
        game.map(str::to_string),
        result.map(str::to_string),
        state,
    )
}

#[test]
fn a_finished_game_stays_the_tables_game_whatever_is_played_after_it() {
    let mut s = Stream::new();
    s.pairings(1, &[1, 2, 3]);
    s.start("1", "1/1");
    s.moves("1", "1/1", 7);
    s.end("1", "1/1", "1-0", EndReason::Checkmate);
    // Pieces set up again and played on: skittles, analysis.
    s.start("1", "1/2");
    s.moves("1", "1/2", 20);
    s.end("1", "1/2", "0-1", EndReason::Checkmate);
    s.start("1", "1/3");
    // Table 2: a 75-move draw, then the pieces set up again.
    s.start("2", "2/1");
    s.moves("2", "2/1", 150);
    s.end("2", "2/1", "1/2-1/2", EndReason::SeventyFiveMoveRule);
    s.start("2", "2/2");
    s.moves("2", "2/2", 3);
    // Table 3 stands at board "b-3" and plays on.
    s.start("b-3", "b-3/1");
    s.moves("b-3", "b-3/1", 12);
    let expected = vec![
        row(1, Some("1/1"), Some("1-0"), TableState::Finished),
        row(2, Some("2/1"), Some("1/2-1/2"), TableState::Finished),
        row(3, Some("b-3/1"), None, TableState::Playing),
    ];
    assert_eq!(s.round(1), expected);
    assert_eq!(s.book.round_of("1/2"), None, "played after the game");
    assert!(s.book.game("1/2").unwrap().after);
    assert_eq!(s.book.table_of("2/1"), Some((1, 2)));
    assert_eq!(outcomes(&s.replayed(), 1), expected, "after a restart");

    // Round 2: a game after round 1's still going at the import binds provisionally; the
    // next game started on the board (set up for round 2) takes its place.
    s.pairings(2, &[1, 2, 3]);
    assert_eq!(
        s.book.game_of(2, "2"),
        Some("2/2"),
        "skittles still going at the import"
    );
    assert!(s.book.game("2/2").unwrap().provisional);
    assert_eq!(
        s.book.game_of(2, "1"),
        Some("1/3"),
        "a game with nothing played yet (pieces set up for round 2)"
    );
    s.start("2", "2/3");
    s.moves("2", "2/3", 2);
    s.end("b-3", "b-3/1", "0-1", EndReason::FlagFall);
    s.start("b-3", "b-3/2");
    let expected2 = vec![
        row(1, Some("1/3"), None, TableState::Playing),
        row(2, Some("2/3"), None, TableState::Playing),
        row(3, Some("b-3/2"), None, TableState::Playing),
    ];
    assert_eq!(s.round(2), expected2);
    // Round 1's table 3 keeps its game, ended after round 2's pairings came.
    assert_eq!(
        s.round(1)[2],
        row(3, Some("b-3/1"), Some("0-1"), TableState::Finished)
    );
    assert_eq!(outcomes(&s.replayed(), 2), expected2);
}

#[test]
fn a_stopped_clock_or_a_later_game_leaves_a_result_owed_until_the_arbiter_enters_it() {
    let mut s = Stream::new();
    s.pairings(1, &[1, 2]);
    s.start("1", "1/1");
    s.moves("1", "1/1", 30);
    // A resignation: the clock stopped, the pieces set up again.
    s.clock_stopped("1", "1/1");
    assert_eq!(s.round(1)[0].3, TableState::ResultOwed);
    s.start("1", "1/2");
    s.moves("1", "1/2", 4);
    assert_eq!(
        s.round(1)[0],
        row(1, Some("1/1"), None, TableState::ResultOwed)
    );
    // A claim: the clock stopped, then play goes on — nothing is owed.
    s.start("2", "2/1");
    s.moves("2", "2/1", 10);
    s.clock_stopped("2", "2/1");
    s.moves_from("2", "2/1", 11, 11);
    assert_eq!(s.round(1)[1].3, TableState::Playing);
    assert_eq!(
        outcomes(&s.replayed(), 1)[0].3,
        TableState::ResultOwed,
        "the stopped clock is in the journal too"
    );

    s.enter("Ana", 1, 1, Some("0-1"));
    let o = s.book.outcomes(1, s.book.map(), &["1", "2"]);
    assert_eq!(o[0].result.as_deref(), Some("0-1"));
    assert_eq!(o[0].source, Some(ResultSource::Arbiter));
    assert_eq!(o[0].by.as_deref(), Some("Ana"));
    assert!(o[0].confirmed);
    assert_eq!(results::unfinished(&o), [2]);
}

#[test]
fn a_result_gesture_waits_for_the_arbiters_confirmation() {
    let mut s = Stream::new();
    s.pairings(1, &[1]);
    s.start("1", "1/1");
    s.moves("1", "1/1", 41);
    s.end("1", "1/1", "1/2-1/2", EndReason::ResultGesture);
    let o = s.book.outcomes(1, s.book.map(), &["1"]);
    assert_eq!(o[0].source, Some(ResultSource::Gesture));
    assert!(!o[0].confirmed);
    assert_eq!(results::unconfirmed(&o), [1]);
    let p = pairings(1, &[1]);
    let csv = results::csv(&p, &o);
    assert!(
        csv.contains("1,White 1.1,,Black 1.1,,1/2-1/2,gesture,finished,no,"),
        "{csv}"
    );
    // One click: the same result entered.
    s.enter("Bram", 1, 1, Some("1/2-1/2"));
    let o = s.book.outcomes(1, s.book.map(), &["1"]);
    assert!(o[0].confirmed);
    assert_eq!(results::unconfirmed(&o), Vec::<u32>::new());
    let csv = results::csv(&p, &o);
    assert!(
        csv.contains("1,White 1.1,,Black 1.1,,1/2-1/2,arbiter,finished,yes,Bram"),
        "{csv}"
    );
    // Withdrawn: the gesture waits again.
    s.enter("Bram", 1, 1, None);
    let o = s.book.outcomes(1, s.book.map(), &["1"]);
    assert!(!o[0].confirmed);
}

#[test]
fn pairings_imported_while_boards_play_take_the_games_in_progress() {
    let mut s = Stream::new();
    // Boards started before round 1's pairings came.
    s.start("1", "1/1");
    s.moves("1", "1/1", 6);
    s.start("2", "2/1");
    s.moves("2", "2/1", 3);
    s.end("2", "2/1", "1-0", EndReason::Checkmate);
    s.start("2", "2/2");
    s.pairings(1, &[1, 2]);
    assert_eq!(
        s.book.game_of(1, "1"),
        Some("1/1"),
        "in progress: the round's"
    );
    assert_eq!(
        s.book.game_of(1, "2"),
        Some("2/2"),
        "nothing played yet: set up for the round"
    );
    // A blank game gives way to the next one started on its board.
    s.start("2", "2/3");
    s.moves("2", "2/3", 2);
    assert_eq!(s.book.game_of(1, "2"), Some("2/3"));
    assert_eq!(s.book.round_of("2/2"), None);
    assert_eq!(outcomes(&s.replayed(), 1), s.round(1));
}

#[test]
fn the_arbiter_names_a_tables_game_and_games_bind_by_id_across_boards() {
    let mut s = Stream::new();
    s.pairings(4, &[1, 2, 4]);
    s.start("1", "1/1");
    s.moves("1", "1/1", 3);
    // Restarted by the arbiter's decision (wrong colours): the new game is after the
    // first until the arbiter names it.
    s.start("1", "1/2");
    s.moves("1", "1/2", 5);
    assert_eq!(s.book.game_of(4, "1"), Some("1/1"));
    s.by(
        "Ana",
        Operation::TableGame(TableGameOp {
            round: 4,
            table: 1,
            game: Some("1/2".into()),
        }),
    );
    assert_eq!(s.book.game_of(4, "1"), Some("1/2"));
    assert_eq!(s.book.round_of("1/1"), None);
    let info = s.book.round(4).unwrap().clone();
    assert_eq!(info.bound_by.get(&1), Some(&Some("Ana".to_string())));
    // Table 4's game goes on at board 2 (its board broke): bound by id, it stays table
    // 4's game and is not table 2's.
    s.start("4", "4/1");
    s.moves("4", "4/1", 10);
    s.moves_from("2", "4/1", 11, 11);
    assert_eq!(s.book.table_of("4/1"), Some((4, 4)));
    assert_eq!(s.book.game_of(4, "2"), None);
    assert_eq!(outcomes(&s.replayed(), 4), s.round(4));
    assert_eq!(
        s.replayed().round(4).unwrap().bound_by,
        info.bound_by,
        "who named it, after a restart"
    );
}

#[test]
fn a_game_under_way_when_the_next_rounds_pairings_arrive_binds_if_played_on() {
    let mut s = Stream::new();
    s.pairings(1, &[1, 2]);
    for board in ["1", "2"] {
        s.start(board, &format!("{board}/1"));
        s.moves(board, &format!("{board}/1"), 9);
        s.end(board, &format!("{board}/1"), "1-0", EndReason::Checkmate);
        // Played on the board after round 1's game: round 2 begun before its pairings were
        // imported (board 1), or analysis (board 2).
        s.start(board, &format!("{board}/2"));
        s.moves(board, &format!("{board}/2"), 6);
    }
    s.pairings(2, &[1, 2]);
    // Board 1 plays on under the pairings: its game is round 2's.
    s.moves_from("1", "1/2", 7, 7);
    s.start("1", "1/3");
    // Board 2 is set up for the round: the analysis gives way to the new game.
    s.start("2", "2/3");
    s.moves("2", "2/3", 2);
    let expected = vec![
        row(1, Some("1/2"), None, TableState::ResultOwed),
        row(2, Some("2/3"), None, TableState::Playing),
    ];
    assert_eq!(s.round(2), expected);
    assert!(
        s.book.game("1/3").unwrap().after,
        "played after round 2's game"
    );
    assert!(
        s.book.game("2/2").unwrap().after,
        "the analysis is after round 1's game"
    );
    assert_eq!(s.book.round_of("2/2"), None);
    assert_eq!(
        s.round(1),
        vec![
            row(1, Some("1/1"), Some("1-0"), TableState::Finished),
            row(2, Some("2/1"), Some("1-0"), TableState::Finished),
        ],
        "round 1 stays"
    );
    assert_eq!(outcomes(&s.replayed(), 2), expected, "after a restart");
}
