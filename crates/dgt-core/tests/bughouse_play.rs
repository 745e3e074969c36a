//! Random bughouse matches under the DJC rules: two boards from the start, plain moves on
//! either board in turn, captured pieces dropped by the partner whenever the regulation allows
//! it, promotions taking their piece from the other board; captures with either piece lifted
//! first, each move completed by its press. The core must follow both boards exactly (every
//! move and drop, in order), raise no illegal-drop, illegal-move, illegal-position or
//! touch-move alert, and number its events in order.

mod common;

use common::*;
use dgt_core::bughouse::{BughouseMatch, Pieces, RankReading, Regulation, judge_drop};
use dgt_core::{AlertKind, Core, CoreConfig, Event, EventBody, Input};
use proptest::prelude::*;
use shakmaty::{Chess, FromSetup, Move, Position, Role, Square};

/// One board of the match as the generator plays it.
struct Side {
    board: Board,
    pos: Chess,
    /// What each colour on this board may drop.
    reserve: Pieces,
    played: Vec<String>,
}

/// Plays `m` on the builder the way a player's hand does it: a capture with the captured
/// piece lifted first, or the capturer first (`capturer_first`); a promotion's new piece put
/// after `take` (the piece taken from the other board) has been lifted there.
fn perform(b: &mut Board, pos: &Chess, m: &Move, capturer_first: bool, mut take: impl FnMut(u64)) {
    let me = pos.turn();
    match *m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let piece = promotion.unwrap_or(role).of(me).char();
            if capture.is_some() && !capturer_first {
                b.lift(&to.to_string()).wait(1000);
            }
            b.lift(&from.to_string()).wait(150);
            if capture.is_some() && capturer_first {
                b.lift(&to.to_string()).wait(150);
            }
            if promotion.is_some() {
                take(b.t);
                b.wait(300);
            }
            b.put(&to.to_string(), piece);
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            b.lift(&taken.to_string()).wait(1000);
            b.lift(&from.to_string())
                .wait(150)
                .put(&to.to_string(), Role::Pawn.of(me).char());
        }
        Move::Castle { king, rook } => {
            let side = m.castling_side().expect("castling");
            b.lift(&king.to_string())
                .wait(150)
                .put(&side.king_to(me).to_string(), Role::King.of(me).char())
                .wait(150);
            b.lift(&rook.to_string())
                .wait(150)
                .put(&side.rook_to(me).to_string(), Role::Rook.of(me).char());
        }
        Move::Put { role, to } => {
            b.put(&to.to_string(), role.of(me).char());
        }
    }
    b.wait(300).press().wait(700);
}

/// The position with the piece on `sq` taken off (for a promotion on the other board).
fn without(pos: &Chess, sq: Square) -> Result<Chess, String> {
    let mut setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
    setup.board.discard_piece_at(sq);
    setup.castling_rights.discard(sq);
    Chess::from_setup(setup, shakmaty::CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_too_much_material)
        .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .map_err(|e| format!("{e}"))
}

fn moves_on(ev: &[Event], board: &str) -> Vec<String> {
    moves(
        &ev.iter()
            .filter(|e| e.board == board)
            .cloned()
            .collect::<Vec<_>>(),
    )
}

/// Plays the steps (which board, which move, drop or plain move) and checks the core's
/// events; the error says what differs.
fn check(steps: &[(bool, usize, u8)]) -> Result<(), String> {
    let mut sides: Vec<Side> = ["1", "2"]
        .iter()
        .map(|label| {
            let mut b = Board::new();
            b.label = label.to_string();
            b.dump(START);
            b.wait(500);
            b.start_clock(420).wait(300);
            Side {
                board: b,
                pos: Chess::default(),
                reserve: Pieces::default(),
                played: Vec::new(),
            }
        })
        .collect();
    let mut t = 1000;
    for &(second, pick, how) in steps {
        let i = usize::from(second);
        let s = &mut sides[i];
        let me = s.pos.turn();
        // Drops the regulation allows from what this player may hold.
        let reserve = s.reserve[me];
        let mut drops = Vec::new();
        for role in [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ] {
            for to in !s.pos.board().occupied() {
                if judge_drop(
                    &s.pos,
                    role,
                    to,
                    Regulation::DjcStein,
                    RankReading::Relative,
                    &reserve,
                )
                .is_empty()
                {
                    drops.push(Move::Put { role, to });
                }
            }
        }
        let plain: Vec<Move> = s
            .pos
            .legal_moves()
            .into_iter()
            .filter(|m| m.promotion().is_none())
            .collect();
        // Promotions to a piece the other board has (3.1: it is taken from there).
        let other = sides[1 - i].pos.board().clone();
        let other_pos = sides[1 - i].pos.clone();
        let s = &mut sides[i];
        let promotions: Vec<Move> = s
            .pos
            .legal_moves()
            .into_iter()
            .filter(|m| {
                m.promotion().is_some_and(|r| {
                    other
                        .by_piece(r.of(me))
                        .into_iter()
                        .next()
                        .is_some_and(|sq| without(&other_pos, sq).is_ok())
                })
            })
            .collect();
        let m = if how == 0 && !drops.is_empty() {
            drops[pick % drops.len()]
        } else if how == 1 && !promotions.is_empty() {
            promotions[pick % promotions.len()]
        } else if !plain.is_empty() {
            plain[pick % plain.len()]
        } else if !drops.is_empty() {
            drops[pick % drops.len()]
        } else {
            continue;
        };
        // The square the promotion piece is taken from on the other board.
        let taken_from = m
            .promotion()
            .and_then(|r| other.by_piece(r.of(me)).into_iter().next());
        let mut lifted_at = None;
        s.board.t = t;
        perform(&mut s.board, &s.pos, &m, how % 2 == 1, |at| {
            lifted_at = Some(at)
        });
        t = s.board.t;
        s.played
            .push(m.to_uci(shakmaty::CastlingMode::Standard).to_string());
        if let Move::Put { role, .. } = m {
            *s.reserve[me].get_mut(role) -= 1;
        }
        let captured = m.capture();
        s.pos.play_unchecked(m);
        // The captured piece, of the opponent's colour, goes to the partner board's
        // player of that colour (partners play opposite colours); a promoted pawn goes to
        // the opponent, who may pass it on (3.2).
        if let Some(role) = captured {
            *sides[1 - i].reserve[!me].get_mut(role) += 1;
        }
        if let (Some(sq), Some(at)) = (taken_from, lifted_at) {
            let o = &mut sides[1 - i];
            o.reserve[me].pawn += 1;
            o.board.t = at;
            o.board.lift(&sq.to_string());
            o.pos = without(&o.pos, sq)?;
        }
    }
    let mut inputs: Vec<Input> = sides.iter().flat_map(|s| s.board.inputs.clone()).collect();
    inputs.sort_by_key(|i| i.t_ms);
    let config = CoreConfig {
        bughouse: vec![BughouseMatch {
            boards: ["1".into(), "2".into()],
            ..Default::default()
        }],
        ..CoreConfig::default()
    };
    let mut core = Core::new(config);
    let mut ev = Vec::new();
    for input in &inputs {
        ev.extend(core.handle(input));
    }
    while let Some(d) = core.next_deadline() {
        ev.extend(core.advance(d));
    }
    if let Ok(board) = std::env::var("BUGHOUSE_DEBUG") {
        for e in ev
            .iter()
            .filter(|e| e.board == board && !matches!(e.body, EventBody::Clock(_)))
        {
            eprintln!("EV {}", e.to_json());
        }
    }
    if !ev.windows(2).all(|w| w[0].seq < w[1].seq) {
        return Err("events out of order".into());
    }
    for (k, label) in ["1", "2"].iter().enumerate() {
        let seen = moves_on(&ev, label);
        if seen != sides[k].played {
            return Err(format!(
                "board {label}: read {seen:?}\nplayed {:?}",
                sides[k].played
            ));
        }
    }
    let wrong: Vec<String> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Alert(a)
                if matches!(
                    a.kind,
                    AlertKind::IllegalDrop
                        | AlertKind::IllegalMove
                        | AlertKind::IllegalPosition
                        | AlertKind::TouchMove
                ) =>
            {
                Some(format!("{} {:?} {}", e.board, a.kind, a.message))
            }
            _ => None,
        })
        .collect();
    if !wrong.is_empty() {
        return Err(format!("{wrong:?}"));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn random_bughouse_matches_are_followed_move_by_move(
        steps in prop::collection::vec((any::<bool>(), 0usize..10_000, 0u8..6), 1..70),
    ) {
        if let Err(e) = check(&steps) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// Found by the property test: a knight dropped a knight's move away from another knight,
/// which the opponent then lifted to capture — read as that knight moving to the drop's
/// square (a take-back and replacement) until only a press-back counted as a take-back.
#[test]
fn found_1_a_knight_dropped_a_knight_move_away_from_one_of_its_kind() {
    let steps = [
        (true, 5687, 0),
        (false, 5247, 0),
        (false, 7555, 0),
        (false, 475, 0),
        (true, 2417, 0),
        (true, 396, 0),
        (false, 1154, 0),
        (true, 2555, 0),
        (true, 7318, 0),
        (false, 5444, 0),
        (true, 4277, 0),
        (true, 5157, 0),
        (true, 6639, 0),
        (false, 2624, 0),
        (true, 9215, 0),
        (true, 5500, 0),
        (false, 4016, 0),
        (false, 2661, 0),
        (true, 2804, 0),
        (true, 6377, 0),
        (true, 6465, 0),
        (true, 3781, 0),
        (false, 2270, 0),
        (true, 9026, 0),
        (false, 261, 0),
        (false, 9419, 0),
        (true, 1718, 0),
        (true, 6809, 0),
        (true, 7398, 0),
        (true, 506, 0),
        (true, 1682, 0),
        (true, 8188, 0),
        (false, 1487, 0),
        (true, 269, 0),
        (false, 7243, 0),
        (false, 129, 0),
        (false, 0, 0),
        (true, 2432, 0),
        (false, 101, 0),
        (false, 0, 0),
        (true, 9769, 1),
        (true, 5051, 0),
        (true, 4173, 1),
        (true, 6292, 0),
        (true, 7320, 0),
        (true, 1003, 0),
    ];
    check(&steps).unwrap();
}

/// Found by the property test: a queen dropped, moved on and captured. With the queen lifted
/// the board showed a position of four plies before — material grows in bughouse — and was
/// read as a take-back; a lifted piece of the last mover now waits as a capture in progress.
#[test]
fn found_2_a_captured_drop_leaves_an_earlier_position() {
    let steps = [
        (true, 4768, 0),
        (true, 1884, 0),
        (true, 88, 0),
        (false, 8891, 0),
        (true, 1340, 0),
        (false, 50, 0),
        (true, 9359, 0),
        (true, 5617, 0),
        (true, 2692, 0),
        (true, 403, 0),
        (false, 3512, 0),
        (false, 7440, 0),
        (false, 7531, 0),
        (true, 6353, 0),
        (true, 6379, 0),
        (true, 2333, 0),
        (true, 3429, 0),
        (true, 8607, 0),
        (false, 3788, 0),
        (false, 7758, 0),
        (false, 868, 0),
        (true, 9282, 0),
        (false, 11, 0),
        (true, 5928, 0),
        (true, 7860, 0),
        (true, 82, 0),
        (true, 3837, 0),
        (true, 195, 0),
        (true, 7486, 0),
        (true, 342, 0),
        (false, 8527, 1),
        (true, 1072, 0),
        (false, 2832, 0),
        (true, 3024, 0),
        (false, 9044, 0),
        (false, 4859, 0),
        (true, 416, 0),
        (true, 497, 0),
        (true, 5109, 0),
        (true, 578, 0),
        (true, 3636, 0),
        (false, 1305, 0),
        (true, 6521, 0),
        (true, 8414, 0),
        (false, 2324, 0),
        (false, 4129, 1),
        (false, 5399, 0),
        (false, 8981, 1),
        (false, 9960, 0),
        (true, 6692, 1),
        (false, 4914, 1),
        (true, 6479, 1),
        (false, 1885, 0),
        (false, 151, 1),
        (true, 8683, 1),
        (true, 2316, 1),
        (false, 5940, 0),
        (false, 5274, 1),
        (true, 452, 0),
        (false, 2892, 0),
        (true, 7536, 1),
        (true, 7694, 0),
        (true, 8334, 1),
        (false, 407, 0),
        (true, 1789, 0),
        (false, 5872, 1),
        (true, 9511, 1),
        (false, 6224, 1),
        (true, 3645, 0),
        (false, 2878, 0),
        (true, 2826, 0),
        (false, 6745, 1),
        (true, 2690, 0),
        (false, 4948, 1),
        (false, 9704, 0),
        (false, 3205, 1),
        (false, 744, 1),
        (false, 0, 0),
    ];
    check(&steps).unwrap();
}

/// Found by the property test: the wait for a lifted piece was timed from an earlier lift,
/// so a later capture's lift restored the position at once. It is timed from the placement.
#[test]
fn found_3_the_wait_for_a_lifted_piece_starts_with_its_placement() {
    let steps = [
        (true, 5751, 0),
        (true, 1643, 0),
        (true, 4751, 0),
        (false, 6355, 0),
        (false, 3458, 0),
        (false, 8007, 0),
        (false, 2090, 0),
        (true, 2586, 0),
        (false, 7633, 0),
        (false, 988, 0),
        (true, 3076, 0),
        (false, 3350, 0),
        (true, 1414, 0),
        (false, 9875, 0),
        (true, 8031, 0),
        (true, 8275, 0),
        (false, 8206, 0),
        (false, 9753, 0),
        (true, 59, 0),
        (true, 8824, 0),
        (false, 3076, 0),
        (true, 169, 0),
        (false, 4685, 1),
        (false, 216, 0),
        (true, 3152, 1),
        (true, 4352, 0),
        (true, 9830, 1),
        (true, 5286, 0),
        (true, 1971, 1),
        (false, 6034, 0),
        (true, 8682, 0),
        (false, 2713, 0),
        (true, 2005, 1),
        (true, 6838, 0),
        (false, 4068, 0),
        (true, 2257, 1),
        (false, 8269, 0),
        (true, 9402, 0),
        (true, 7709, 1),
        (true, 1988, 0),
        (true, 4595, 1),
        (true, 699, 0),
        (false, 2471, 0),
        (false, 4496, 0),
        (true, 6000, 1),
        (false, 3410, 0),
        (true, 2457, 0),
        (true, 7263, 1),
        (false, 4604, 0),
        (true, 6814, 0),
        (false, 5924, 1),
        (false, 935, 0),
        (false, 1938, 1),
        (false, 1843, 0),
        (false, 8088, 1),
        (true, 5484, 1),
        (true, 1237, 0),
        (true, 9340, 1),
        (false, 6923, 0),
        (false, 478, 1),
        (false, 657, 0),
        (false, 9968, 1),
        (false, 22, 0),
        (true, 3824, 0),
        (false, 4165, 0),
        (true, 417, 0),
        (false, 3300, 0),
        (false, 9733, 0),
        (true, 0, 0),
        (false, 2057, 2),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
        (false, 0, 0),
    ];
    check(&steps).unwrap();
}
