//! End-to-end checks of the emulated board: what it sends decodes cleanly, tells the truth,
//! and is reproducible.

use dgt_emulator::{
    BoardSpec, ClockSide, Dir, EmulatedBoard, GameOutcome, GameScript, GeneratedGame,
    HandlingRates, Mode, ResultGesture, STARTUP_SEQUENCE, TimeControl, chess_square, corpus_spec,
    generate_game,
};
use dgt_protocol::bus::BusCommand;
use dgt_protocol::{
    BoardMessage, BusCommandKind, BusReplyKind, ClockMessage, ClockTimes, Decoded, Decoder,
    EeEntry, LineMode, parse_ee_log,
};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

fn decode(game: &GeneratedGame) -> Vec<(u64, Decoded)> {
    let mut d = Decoder::new(LineMode::Single);
    let mut out = Vec::new();
    for t in game.traffic.iter().filter(|t| t.dir == Dir::Rx) {
        for item in d.decode(&t.bytes) {
            out.push((t.t_ms, item));
        }
    }
    assert_eq!(d.pending(), 0, "a message was left half-sent");
    out
}

fn messages(game: &GeneratedGame) -> Vec<(u64, BoardMessage)> {
    decode(game)
        .into_iter()
        .map(|(t, d)| match d {
            Decoded::Message(m) => (t, m),
            other => panic!("seed {}: not a message: {other:?}", game.spec_seed),
        })
        .collect()
}

fn variety() -> Vec<BoardSpec> {
    let mut specs = Vec::new();
    for seed in 1..=4 {
        specs.push(BoardSpec::random(seed, 90));
    }
    let mut rotated = BoardSpec::random(11, 80);
    rotated.rotated = true;
    rotated.white_clock_side = ClockSide::Right;
    rotated.result_gesture = ResultGesture::CentreKings;
    specs.push(rotated);
    let mut no_clock = BoardSpec::random(12, 40);
    no_clock.clock_present = false;
    no_clock.result_gesture = ResultGesture::MagicPiece;
    specs.push(no_clock);
    specs.push(
        BoardSpec::random(13, 100).with_time_control(TimeControl::parse("20/300+2:60+2").unwrap()),
    );
    let mut flagged = BoardSpec::random(14, 60).with_time_control(TimeControl::sudden_death(60));
    flagged.script.flag_fall_at_ply = Some(21);
    specs.push(flagged);
    specs.push(BoardSpec::random(15, 70).with_rates(HandlingRates::clean()));
    specs
}

fn to_board(fen: &str) -> [u8; 64] {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let mut out = [0u8; 64];
    for (sq, p) in pos.board().iter() {
        out[sq as usize] = dgt_protocol::DgtPiece::from_fen_char(p.char())
            .unwrap()
            .code();
    }
    out
}

#[test]
fn everything_sent_decodes_without_garbage_and_replays_to_the_truth() {
    for spec in variety() {
        let seed = spec.seed;
        let rotated = spec.rotated;
        let gesture = spec.result_gesture;
        let game = generate_game(spec);
        let msgs = messages(&game);
        assert!(!game.truth.moves.is_empty(), "seed {seed}");
        // The start-up answers, in order: serial, version, dump.
        assert!(matches!(msgs[0].1, BoardMessage::SerialNumber(ref s) if *s == game.truth.serial));
        assert!(matches!(
            msgs[1].1,
            BoardMessage::Version { major: 1, minor: 8 }
        ));
        let BoardMessage::BoardDump(dump) = &msgs[2].1 else {
            panic!("seed {seed}: {:?}", msgs[2])
        };
        let mut board = **dump;
        let start = to_board(&game.truth.start_fen);
        for (i, &code) in board.iter().enumerate() {
            assert_eq!(code, start[chess_square(i, rotated) as usize]);
        }
        for (t, m) in &msgs[3..] {
            match m {
                BoardMessage::FieldUpdate { square, piece } => {
                    assert_ne!(
                        board[*square as usize], *piece,
                        "seed {seed} t {t}: a scan reported an unchanged square"
                    );
                    board[*square as usize] = *piece;
                }
                BoardMessage::Clock(c) => {
                    assert!(
                        !matches!(c, ClockMessage::Implausible(_)),
                        "seed {seed}: {c:?}"
                    );
                }
                other => panic!("seed {seed}: unexpected {other:?}"),
            }
        }
        assert_eq!(board, game.truth.final_board, "seed {seed}");
        if gesture == ResultGesture::None {
            let fin = to_board(&game.truth.final_fen);
            for (i, &code) in board.iter().enumerate() {
                assert_eq!(code, fin[chess_square(i, rotated) as usize], "seed {seed}");
            }
        }
    }
}

fn readings(game: &GeneratedGame) -> Vec<(u64, ClockTimes)> {
    messages(game)
        .into_iter()
        .filter_map(|(t, m)| match m {
            BoardMessage::Clock(ClockMessage::Times(c)) => Some((t, c)),
            _ => None,
        })
        .collect()
}

#[test]
fn clock_counts_down_for_the_running_side_and_adds_the_increment_at_presses() {
    let mut spec = BoardSpec::random(21, 60)
        .with_time_control(TimeControl::fischer(120, 5))
        .with_rates(HandlingRates::clean());
    spec.white_clock_side = ClockSide::Right;
    let game = generate_game(spec);
    let rs = readings(&game);
    assert!(rs.len() > 30);
    let mut presses = 0;
    let mut increments = 0;
    for w in rs.windows(2) {
        let ((_, a), (tb, b)) = (w[0], w[1]);
        assert!(a.left.increment_shown && a.right.increment_shown);
        let side = |c: &ClockTimes, right: bool| if right { c.right.ms } else { c.left.ms };
        if a.status.running
            && b.status.running
            && a.status.right_lever_high == b.status.right_lever_high
        {
            let r = a.status.right_lever_high;
            assert!(
                side(&b, r) <= side(&a, r),
                "t {tb}: the running side went up"
            );
            assert_eq!(side(&b, !r), side(&a, !r), "t {tb}: the stopped side moved");
        } else if a.status.running && b.status.running {
            presses += 1;
            let presser = a.status.right_lever_high;
            if side(&b, presser) > side(&a, presser) {
                increments += 1;
            }
            // D3 with the left side running, D4 with the right (protocol §3.4).
            let bits = b.status.to_byte() & 0x18;
            assert_eq!(
                bits,
                if b.status.right_lever_high {
                    0x10
                } else {
                    0x08
                }
            );
        }
    }
    assert!(presses >= 20, "{presses}");
    assert_eq!(increments, presses);
    // White is on the right: the truth's White times show in bytes 3–5.
    let first = &game.truth.moves[0];
    let after = rs
        .iter()
        .find(|(t, _)| *t > first.t_pressed_ms.unwrap())
        .unwrap()
        .1;
    assert_eq!(after.right.ms, first.white_ms.div_ceil(1000) * 1000);
    // UPDATE_NICE: about one message per second while running.
    let running: Vec<u64> = rs
        .iter()
        .filter(|(_, c)| c.status.running)
        .map(|(t, _)| *t)
        .collect();
    for w in running.windows(2) {
        assert!(w[1] - w[0] <= 1500, "gap {} at {}", w[1] - w[0], w[0]);
    }
}

#[test]
fn the_dgt_3000_answers_the_version_request_once() {
    let game = generate_game(BoardSpec::random(3, 10));
    let acks: Vec<_> = messages(&game)
        .into_iter()
        .filter_map(|(_, m)| match m {
            BoardMessage::Clock(ClockMessage::Ack(a)) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(acks.len(), 1);
    assert_eq!(acks[0].version(), Some((2, 0)));
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let a = generate_game(BoardSpec::random(77, 50));
    let b = generate_game(BoardSpec::random(77, 50));
    let c = generate_game(BoardSpec::random(78, 50));
    assert_eq!(a, b);
    assert_ne!(a.traffic, c.traffic);
    // Same moves, other seed for the hands: other timing, same game.
    let mut d_spec = BoardSpec::new(79, GameScript::random(77, 50));
    d_spec.serial = BoardSpec::random(77, 50).serial;
    let d = generate_game(d_spec);
    assert_eq!(d.truth.ucis(), a.truth.ucis());
    assert_ne!(d.traffic, a.traffic);
}

/// Runs a board to `until`, collecting its output.
fn run(board: &mut EmulatedBoard, until: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(t) = board.next_deadline() {
        if t > until {
            break;
        }
        out.extend(board.poll_output(t));
    }
    out.extend(board.poll_output(until));
    out
}

#[test]
fn boot_loader_byte_is_ignored() {
    let spec = BoardSpec::random(5, 30);
    let mut plain = EmulatedBoard::new(spec.clone());
    let mut poked = EmulatedBoard::new(spec);
    plain.on_host_bytes(0, &STARTUP_SEQUENCE);
    poked.on_host_bytes(0, &STARTUP_SEQUENCE);
    let mut a = run(&mut plain, 8000);
    let mut b = run(&mut poked, 8000);
    poked.on_host_bytes(8000, &[0x4E]);
    a.extend(run(&mut plain, 40_000));
    b.extend(run(&mut poked, 40_000));
    assert_eq!(a, b);
    assert_eq!(poked.mode(), Mode::UpdateNice);
}

fn bus(kind: BusCommandKind, address: u16) -> Vec<u8> {
    BusCommand { kind, address }.encode().to_vec()
}

fn bus_replies(bytes: &[u8]) -> Vec<dgt_protocol::BusReply> {
    Decoder::new(LineMode::Bus)
        .decode(bytes)
        .into_iter()
        .map(|d| match d {
            Decoded::Bus(r) => r,
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn bus_mode_ping_changes_repeat_and_from_start() {
    let spec = BoardSpec::random(8, 40).with_rates(HandlingRates::clean());
    let mut board = EmulatedBoard::new(spec);
    let addr = board.bus_address();
    assert_eq!(board.mode(), Mode::Bus, "bus mode is the power-up default");

    board.on_host_bytes(10, &bus(BusCommandKind::Ping, addr));
    board.on_host_bytes(20, &bus(BusCommandKind::Ping, addr + 1));
    let r = bus_replies(&run(&mut board, 100));
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].address, addr);
    assert_eq!(r[0].kind, BusReplyKind::Ping);

    board.on_host_bytes(200, &bus(BusCommandKind::Ping, 0));
    let out = run(&mut board, 1300);
    assert_eq!(
        bus_replies(&out).len(),
        1,
        "a broadcast ping is answered within 1100 ms"
    );

    board.on_host_bytes(1400, &bus(BusCommandKind::SetStartGame, addr));
    let r = bus_replies(&run(&mut board, 1500));
    assert_eq!(r[0].kind, BusReplyKind::StartGameWritten);
    board.on_host_bytes(1600, &bus(BusCommandKind::SendChanges, addr));
    run(&mut board, 1700);

    let t = board.truth().moves[3].t_pressed_ms.unwrap() + 1000;
    run(&mut board, t);
    board.on_host_bytes(t, &bus(BusCommandKind::SendChanges, addr));
    board.on_host_bytes(t + 50, &bus(BusCommandKind::RepeatChanges, addr));
    board.on_host_bytes(t + 100, &bus(BusCommandKind::SendChanges, addr));
    let r = bus_replies(&run(&mut board, t + 200));
    assert_eq!(r.len(), 3);
    let (BusReplyKind::Update(first), BusReplyKind::Update(again), BusReplyKind::Update(next)) =
        (&r[0].kind, &r[1].kind, &r[2].kind)
    else {
        panic!("{r:?}")
    };
    assert_eq!(first, again, "REPEAT_CHANGES repeats the packet");
    assert!(next.is_empty(), "nothing changed since: {next:?}");
    let log = parse_ee_log(first);
    let fields = log
        .iter()
        .filter(|e| matches!(e, EeEntry::Field { .. }))
        .count();
    let presses = log
        .iter()
        .filter(|e| matches!(e, EeEntry::LeverPress { .. }))
        .count();
    assert!(fields >= 8, "{log:?}");
    assert_eq!(presses, 4);

    board.on_host_bytes(t + 300, &bus(BusCommandKind::SendFromStart, addr));
    board.on_host_bytes(t + 350, &bus(BusCommandKind::SendBoard, addr));
    let r = bus_replies(&run(&mut board, t + 500));
    let BusReplyKind::FromStart(from_start) = &r[0].kind else {
        panic!("{r:?}")
    };
    assert_eq!(parse_ee_log(from_start)[0], EeEntry::StartTag);
    assert_eq!(
        r[1].kind,
        BusReplyKind::BoardDump(Box::new(board.scanned_board()))
    );

    // A single-board command leaves bus mode and is executed; the bus command that goes
    // back is not.
    board.on_host_bytes(t + 600, &[0x45]);
    let out = run(&mut board, t + 700);
    assert!(matches!(
        Decoder::new(LineMode::Single).decode(&out)[..],
        [Decoded::Message(BoardMessage::SerialNumber(_))]
    ));
    assert_eq!(board.mode(), Mode::Idle);
    board.on_host_bytes(t + 800, &bus(BusCommandKind::Ping, addr));
    assert!(run(&mut board, t + 900).is_empty());
    assert_eq!(board.mode(), Mode::Bus);
    board.on_host_bytes(t + 1000, &bus(BusCommandKind::Ping, addr));
    assert_eq!(bus_replies(&run(&mut board, t + 1100)).len(), 1);
}

#[test]
fn ee_moves_dump_is_full_size_and_delays_later_output() {
    let spec = BoardSpec::random(9, 40);
    let mut board = EmulatedBoard::new(spec);
    board.on_host_bytes(0, &[0x44, 0x49]);
    let t_move = board.truth().moves[0].t_made_ms;
    // The dump takes 7939 × 1.0417 ms ≈ 8.27 s.
    let out = run(&mut board, 8000);
    assert!(out.len() < 7939);
    let out = [out, run(&mut board, t_move + 9000)].concat();
    let decoded = Decoder::new(LineMode::Single).decode(&out);
    let BoardMessage::EeMoves(data) = (match &decoded[0] {
        Decoded::Message(m) => m.clone(),
        other => panic!("{other:?}"),
    }) else {
        panic!()
    };
    assert_eq!(data.len(), 0x1F00);
    let log = parse_ee_log(&data);
    assert!(log.contains(&EeEntry::PowerUp));
    assert!(log.contains(&EeEntry::BeginPos));
    assert_eq!(log.last(), Some(&EeEntry::Eof));
    assert!(
        decoded[1..]
            .iter()
            .all(|d| matches!(d, Decoded::Message(BoardMessage::FieldUpdate { .. })))
    );
}

#[test]
fn update_mode_sends_the_clock_at_least_every_second_and_no_acks_when_idle() {
    let spec = BoardSpec::random(10, 16);
    // IDLE: the clock command runs but is not acked (§2.2); only the serial comes back.
    let mut idle = EmulatedBoard::new(spec.clone());
    idle.on_host_bytes(0, &[0x45, 0x2B, 0x03, 0x03, 0x09, 0x00]);
    let out = run(&mut idle, 3000);
    assert!(matches!(
        Decoder::new(LineMode::Single).decode(&out)[..],
        [Decoded::Message(BoardMessage::SerialNumber(_))]
    ));

    let mut board = EmulatedBoard::new(spec);
    let end = board.truth().end_ms;
    board.on_host_bytes(0, &[0x43]);
    let mut dec = Decoder::new(LineMode::Single);
    let mut times = Vec::new();
    while let Some(t) = board.next_deadline() {
        if t > end + 5000 {
            break;
        }
        for item in dec.decode(&board.poll_output(t)) {
            if let Decoded::Message(BoardMessage::Clock(ClockMessage::Times(_))) = item {
                times.push(t);
            }
        }
    }
    assert!(times[0] < 1000);
    for w in times.windows(2) {
        assert!(w[1] - w[0] <= 1000, "{w:?}");
    }
    assert!(
        *times.last().unwrap() > end + 3000,
        "also while the clock is stopped"
    );
}

#[test]
fn corpus_mix_generates_clean_truthful_games() {
    for seed in 0..12 {
        let spec = corpus_spec(seed);
        assert_eq!(spec, corpus_spec(seed));
        let game = generate_game(spec);
        let msgs = messages(&game);
        let mut board = [0u8; 64];
        for (_, m) in msgs {
            match m {
                BoardMessage::BoardDump(b) => board = *b,
                BoardMessage::FieldUpdate { square, piece } => board[square as usize] = piece,
                _ => {}
            }
        }
        assert_eq!(board, game.truth.final_board, "seed {seed}");
        assert!(
            !game.truth.irregularities.iter().any(|i| matches!(
                i.kind,
                dgt_emulator::IrregularityKind::FlagFall {
                    scripted: false,
                    ..
                }
            )),
            "seed {seed}"
        );
    }
}

#[test]
fn a_pgn_game_with_castling_promotion_and_en_passant() {
    let pgn = "1. e4 d5 2. e5 f5 3. exf6 e6 4. fxg7 Ke7 5. gxh8=Q Nf6 6. Nf3 Kf7 7. Bc4 Bd7 \
               8. O-O Nc6 9. Qxf8+ Kxf8 1-0";
    let mut spec = BoardSpec::new(4, GameScript::from_pgn(pgn).unwrap());
    spec.result_gesture = ResultGesture::CentreKings;
    let game = generate_game(spec);
    let t = &game.truth;
    assert_eq!(t.moves.len(), 18);
    assert_eq!(t.moves[4].san, "exf6");
    assert_eq!(t.moves[8].uci, "g7h8q");
    assert_eq!(t.moves[14].uci, "e1g1");
    assert_eq!(t.result.unwrap().outcome, GameOutcome::WhiteWins);
    assert_eq!(t.gesture.as_ref().unwrap().outcome, GameOutcome::WhiteWins);
    // The kings stand on e4 and d5 (light squares) at the end.
    let kings: Vec<_> = (0..64)
        .filter(|&i| matches!(t.final_board[i], 5 | 11))
        .map(|i| chess_square(i, false).to_string())
        .collect();
    assert_eq!(kings, ["d5", "e4"]);
    messages(&game);
}

#[test]
fn noisy_games_show_the_quirks_of_real_boards() {
    let mut silent_captures = 0;
    let mut slid = 0;
    let mut irregular = 0;
    for seed in 30..36 {
        let game = generate_game(BoardSpec::random(seed, 100));
        irregular += game.truth.irregularities.len();
        slid += game
            .truth
            .moves
            .iter()
            .filter(|m| !m.slid_via.is_empty())
            .count();
        let msgs = messages(&game);
        let BoardMessage::BoardDump(d) = &msgs[2].1 else {
            panic!()
        };
        let mut board = **d;
        for (_, m) in &msgs[3..] {
            if let BoardMessage::FieldUpdate { square, piece } = m {
                let old = board[*square as usize];
                // A piece of one colour replaced by one of the other in one report: the
                // removal of the captured piece was never seen.
                if old != 0 && *piece != 0 && (old <= 6) != (*piece <= 6) {
                    silent_captures += 1;
                }
                board[*square as usize] = *piece;
            }
        }
    }
    assert!(silent_captures > 5, "{silent_captures}");
    assert!(slid > 10, "{slid}");
    assert!(irregular > 5, "{irregular}");
}

#[test]
fn flag_fall_is_reported_by_the_clock() {
    let mut spec = BoardSpec::random(14, 60).with_time_control(TimeControl::sudden_death(60));
    spec.script.flag_fall_at_ply = Some(21);
    let game = generate_game(spec);
    let r = game.truth.result.unwrap();
    assert_eq!(game.truth.moves.len(), 21);
    let last = readings(&game).last().unwrap().1;
    // Ply 22 is Black's: Black (right) flagged, blocked at zero, clock stopped.
    assert!(last.right.final_flag && last.right.ms == 0 && !last.status.running);
    assert_ne!(r.outcome, GameOutcome::BlackWins);
}
