//! Prints one corpus game next to what the core made of it: `cargo run --example inspect_game -- SEED`.

use dgt_core::{Core, CoreConfig, EventBody};
use dgt_emulator::{corpus_spec, generate_game};
use dgt_lab::verify::{events_of, inputs_of, moves_read};

/// `inspect_game -- scan FROM N`: every failing seed of a range with its first wrong ply.
fn scan(from: u64, n: u64) {
    let config = CoreConfig::default();
    let (mut failing, mut invented, mut missed) = (0, 0, 0);
    for seed in from..from + n {
        let c = dgt_lab::verify::check_game(seed, &config);
        if c.is_exact() {
            continue;
        }
        failing += 1;
        invented += c.invented;
        missed += c.missed;
        let game = generate_game(corpus_spec(seed));
        let rebuilt = moves_read(&events_of(&game, "b", &config));
        let first = game
            .truth
            .moves
            .iter()
            .enumerate()
            .find(|(i, m)| rebuilt.get(*i) != Some(&m.uci))
            .map(|(i, m)| {
                format!(
                    "ply {} {} {:?} slid {:?} got {:?}",
                    m.ply,
                    m.uci,
                    m.handling,
                    m.slid_via,
                    rebuilt.get(i)
                )
            });
        println!(
            "seed {seed} exact {}/{} invented {} missed {} first-bad {:?}",
            c.exact, c.played, c.invented, c.missed, first
        );
    }
    println!("failing {failing} invented {invented} missed {missed}");
}

/// `inspect_game -- sides FROM N`: games whose clock sides the core reads wrong at the end,
/// and the `clock_pressed_without_move` alerts of each game (the corpus makes no press
/// without a move: every one is false).
fn sides(from: u64, n: u64) {
    let config = CoreConfig::default();
    let (mut wrong, mut presses, mut games_with_press) = (0, 0, 0);
    for seed in from..from + n {
        let game = generate_game(corpus_spec(seed));
        if !game.truth.clock_present {
            continue;
        }
        let events = events_of(&game, "b", &config);
        let mut side = None;
        let mut without = 0;
        for e in &events {
            match &e.body {
                EventBody::Clock(c) if c.white_side.is_some() => side = c.white_side,
                EventBody::Alert(a) if a.kind == dgt_core::AlertKind::ClockPressedWithoutMove => {
                    without += 1
                }
                _ => {}
            }
        }
        let truth = format!("{:?}", game.truth.white_clock_side);
        let read = side.map(|s| format!("{s:?}"));
        if read.as_deref() != Some(truth.as_str()) || without > 0 {
            println!(
                "seed {seed} white truth {truth} read {read:?} presses-without-move {without}"
            );
        }
        wrong += usize::from(read.as_deref() != Some(truth.as_str()));
        presses += without;
        games_with_press += usize::from(without > 0);
    }
    println!(
        "wrong sides {wrong}; clock_pressed_without_move {presses} in {games_with_press} games"
    );
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("sides") {
        let arg = |i: usize| std::env::args().nth(i).and_then(|s| s.parse().ok());
        sides(arg(2).unwrap_or(1), arg(3).unwrap_or(1000));
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("scan") {
        let arg = |i: usize| std::env::args().nth(i).and_then(|s| s.parse().ok());
        scan(arg(2).unwrap_or(1), arg(3).unwrap_or(1000));
        return;
    }
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    // `PACE=scramble` (or careful, blitz): the alert-pace game of this seed instead.
    let spec = match std::env::var("PACE") {
        Ok(p) => {
            let (pace, control) =
                dgt_lab::verify_alerts::pace_named(&p).expect("PACE: careful, blitz or scramble");
            dgt_lab::verify_alerts::alert_spec(seed, pace, control)
        }
        Err(_) => corpus_spec(seed),
    };
    let game = generate_game(spec);
    let t = &game.truth;
    println!(
        "rotated {} clock {} white {:?} tc {:?}",
        t.rotated, t.clock_present, t.white_clock_side, t.time_control
    );
    for i in &t.irregularities {
        println!("irregularity {:?}", i);
    }
    let mut core = Core::new(CoreConfig::default());
    let mut rebuilt: Vec<(String, u64)> = Vec::new();
    let mut lines = Vec::new();
    let mut white_side_read = None;
    let window: Option<(u64, u64)> = std::env::args().nth(2).and_then(|a| {
        let (x, y) = a.split_once('-')?;
        Some((x.parse().ok()?, y.parse().ok()?))
    });
    for input in inputs_of(&game, "b") {
        if let (Some((a, b)), dgt_core::InputKind::Rx(bytes)) = (window, &input.kind)
            && input.t_ms >= a
            && input.t_ms <= b
        {
            let mut d = dgt_protocol::Decoder::default();
            for m in d.decode(bytes) {
                if let dgt_protocol::Decoded::Message(dgt_protocol::BoardMessage::FieldUpdate {
                    square,
                    piece,
                }) = m
                {
                    let sq = dgt_emulator::chess_square(square as usize, t.rotated);
                    lines.push(format!("{} fu {sq:?} {piece}", input.t_ms));
                } else if let dgt_protocol::Decoded::Message(dgt_protocol::BoardMessage::Clock(c)) =
                    m
                {
                    lines.push(format!("{} clock {:?}", input.t_ms, c));
                }
            }
        }
        let mut ev = core.handle(&input);
        while let Some(d) = core.next_deadline().filter(|d| *d < input.t_ms) {
            ev.extend(core.advance(d));
        }
        for e in ev {
            match &e.body {
                EventBody::Move(m) => {
                    rebuilt.truncate(m.ply as usize - 1);
                    rebuilt.push((m.uci.clone(), e.t_ms));
                    lines.push(format!("{} move {} {}", e.t_ms, m.ply, m.uci));
                }
                // The clock's sides as the core reads them, when they change.
                EventBody::Clock(c) => {
                    if c.white_side != white_side_read {
                        white_side_read = c.white_side;
                        lines.push(format!("{} white_side {:?}", e.t_ms, c.white_side));
                    }
                }
                other => lines.push(format!(
                    "{} {}",
                    e.t_ms,
                    serde_json::to_string(other).unwrap()
                )),
            }
        }
    }
    while let Some(d) = core.next_deadline() {
        core.advance(d);
    }
    let mut first_bad = None;
    for (i, m) in t.moves.iter().enumerate() {
        let got = rebuilt.get(i).map(|r| r.0.as_str()).unwrap_or("-");
        if got != m.uci && first_bad.is_none() {
            first_bad = Some(i);
        }
        if first_bad.is_some_and(|b| i < b + 3) || first_bad.is_none() && i + 1 == t.moves.len() {
            println!(
                "ply {} truth {} touch {} made {} pressed {:?} handling {:?} slid {:?} | got {}",
                m.ply,
                m.uci,
                m.t_touch_ms,
                m.t_made_ms,
                m.t_pressed_ms,
                m.handling,
                m.slid_via,
                got
            );
        }
    }
    let shown = window.or(first_bad.map(|b| {
        let from = t.moves[b.saturating_sub(1)].t_touch_ms;
        let to = t.moves.get(b + 2).map_or(u64::MAX, |m| m.t_made_ms + 3000);
        (from, to)
    }));
    if let Some((from, to)) = shown {
        for m in t
            .moves
            .iter()
            .filter(|m| m.t_touch_ms <= to && m.t_made_ms >= from)
        {
            println!(
                "  truth ply {} {} touch {} made {} pressed {:?} {:?}",
                m.ply, m.uci, m.t_touch_ms, m.t_made_ms, m.t_pressed_ms, m.handling
            );
        }
        for l in &lines {
            let ts: u64 = l.split(' ').next().unwrap().parse().unwrap();
            if ts >= from && ts <= to {
                println!("  {l}");
            }
        }
    }
    println!("truth {} rebuilt {}", t.moves.len(), rebuilt.len());
}
