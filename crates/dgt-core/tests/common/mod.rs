//! Helpers shared by the scenario tests: what a DGT board with a clock sends, built square
//! by square, and readers for the events the core emits.
#![allow(dead_code)]

use dgt_core::capture::parse_capture;
use dgt_core::{AlertKind, Core, CoreConfig, Event, EventBody, Input, InputKind};
use dgt_protocol::EeEntry;
use dgt_protocol::eeprom::encode_ee_log;

/// Writes what a DGT board with a clock would send, square by square.
pub struct Board {
    pub inputs: Vec<Input>,
    pub t: u64,
    pub rotated: bool,
    /// (left s, right s, running display: Some(true) = right)
    pub clock: Option<(u64, u64, Option<bool>)>,
    /// Flag bits of the hours bytes (left, right): 0x10 final flag, 0x40 flag shown.
    pub flags: (u8, u8),
    /// The board's label in the inputs ("b" unless a test plays several boards).
    pub label: String,
}

pub const START: &str = "rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR";

pub fn code(c: char) -> u8 {
    match c {
        'P' => 1,
        'R' => 2,
        'N' => 3,
        'B' => 4,
        'K' => 5,
        'Q' => 6,
        'p' => 7,
        'r' => 8,
        'n' => 9,
        'b' => 10,
        'k' => 11,
        'q' => 12,
        '1' => 13,
        '2' => 14,
        '3' => 15,
        _ => 0,
    }
}

impl Board {
    pub fn new() -> Self {
        Board {
            inputs: Vec::new(),
            t: 0,
            rotated: false,
            clock: None,
            flags: (0, 0),
            label: "b".into(),
        }
    }
    pub fn rx(&mut self, bytes: Vec<u8>) {
        self.inputs.push(Input {
            t_ms: self.t,
            board: self.label.clone(),
            kind: InputKind::Rx(bytes),
        });
    }
    pub fn op(&mut self, json: &str) {
        let line = format!(
            r#"{{"t_ms": {}, "board": "{}", "op": {json}}}"#,
            self.t, self.label
        );
        self.inputs.extend(parse_capture(&line).unwrap());
    }
    /// A link input from the serial edge, as a capture writes it (`"link": {...}`).
    pub fn op_link(&mut self, json: &str) {
        let line = format!(
            r#"{{"t_ms": {}, "board": "{}", "link": {json}}}"#,
            self.t, self.label
        );
        self.inputs.extend(parse_capture(&line).unwrap());
    }
    pub fn phys(&self, sq: &str) -> u8 {
        let b = sq.as_bytes();
        let i = (7 - (b[1] - b'1')) * 8 + (b[0] - b'a');
        if self.rotated { 63 - i } else { i }
    }
    /// A dump of 64 characters, a8 first ('.' empty).
    pub fn dump(&mut self, squares: &str) {
        let mut codes: Vec<u8> = squares.chars().map(code).collect();
        if self.rotated {
            codes.reverse();
        }
        let mut m = vec![0x86, 0x00, 0x43];
        m.extend(codes);
        self.rx(m);
    }
    pub fn wait(&mut self, ms: u64) -> &mut Self {
        self.t += ms;
        self
    }
    pub fn lift(&mut self, sq: &str) -> &mut Self {
        let p = self.phys(sq);
        self.rx(vec![0x8E, 0, 5, p, 0]);
        self.t += 80;
        self
    }
    pub fn put(&mut self, sq: &str, piece: char) -> &mut Self {
        let p = self.phys(sq);
        self.rx(vec![0x8E, 0, 5, p, code(piece)]);
        self.t += 80;
        self
    }
    /// A dump of a FEN's placement field.
    pub fn dump_fen(&mut self, fen: &str) {
        let mut sq = String::new();
        for c in fen.split(' ').next().unwrap().chars() {
            match c {
                '/' => {}
                d if d.is_ascii_digit() => {
                    sq.push_str(&".".repeat(d.to_digit(10).unwrap() as usize))
                }
                p => sq.push(p),
            }
        }
        self.dump(&sq);
    }
    /// Lift `from`, place the same piece on `to`.
    pub fn mv(&mut self, from: &str, to: &str, piece: char) -> &mut Self {
        self.lift(from).put(to, piece)
    }
    pub fn reading(&mut self) {
        let Some((l, r, run)) = self.clock else {
            return;
        };
        let enc = |s: u64| {
            let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
            [
                h as u8,
                (((m / 10) << 4) | (m % 10)) as u8,
                (((sec / 10) << 4) | (sec % 10)) as u8,
            ]
        };
        let status = match run {
            None => 0x00,
            Some(false) => 0x09,
            Some(true) => 0x13,
        };
        let (mut right, mut left) = (enc(r), enc(l));
        right[0] |= self.flags.1;
        left[0] |= self.flags.0;
        let mut m = vec![0x8D, 0, 0x0A];
        m.extend(right);
        m.extend(left);
        m.push(status);
        self.rx(m);
    }
    pub fn start_clock(&mut self, secs: u64) -> &mut Self {
        self.clock = Some((secs, secs, Some(false)));
        self.reading();
        self
    }
    /// The running player presses: the other display runs.
    pub fn press(&mut self) -> &mut Self {
        if let Some((_, _, run)) = &mut self.clock {
            *run = run.map(|r| !r);
        }
        self.reading();
        self.t += 50;
        self
    }
    pub fn tick(&mut self) -> &mut Self {
        if let Some((l, r, run)) = &mut self.clock {
            match run {
                Some(false) => *l -= 1,
                Some(true) => *r -= 1,
                None => {}
            }
        }
        self.reading();
        self
    }
    pub fn run(&self) -> Vec<Event> {
        let mut core = Core::new(CoreConfig::default());
        let mut out = Vec::new();
        for i in &self.inputs {
            out.extend(core.handle(i));
        }
        while let Some(d) = core.next_deadline() {
            out.extend(core.advance(d));
        }
        out
    }
}

pub fn started() -> Board {
    let mut b = Board::new();
    b.dump(START);
    b.wait(500);
    b
}

pub fn moves(ev: &[Event]) -> Vec<String> {
    let mut list: Vec<String> = Vec::new();
    for e in ev {
        if let EventBody::Move(m) = &e.body {
            list.truncate(m.ply as usize - 1);
            list.push(m.uci.clone());
        }
    }
    list
}

pub fn move_events(ev: &[Event]) -> usize {
    ev.iter()
        .filter(|e| matches!(e.body, EventBody::Move(_)))
        .count()
}

pub fn alerts(ev: &[Event]) -> Vec<AlertKind> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::Alert(a) => Some(a.kind),
            _ => None,
        })
        .collect()
}

pub fn alert_of(ev: &[Event], kind: AlertKind) -> Vec<dgt_core::Alert> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::Alert(a) if a.kind == kind => Some(a.clone()),
            _ => None,
        })
        .collect()
}

impl Board {
    /// A board set up from a FEN (the `setup` op with any extra fields, then the dump).
    pub fn from_fen(fen: &str, extra: &str) -> Board {
        let mut b = Board::new();
        let sep = if extra.is_empty() { "" } else { ", " };
        b.op(&format!(r#"{{"setup": {{"fen": "{fen}"{sep}{extra}}}}}"#));
        b.dump_fen(fen);
        b.wait(400);
        b
    }
    /// The arbiter (or a player) sets the clock: which display runs (`None` = stopped).
    pub fn set_running(&mut self, run: Option<bool>) -> &mut Self {
        if let Some(c) = &mut self.clock {
            c.2 = run;
        }
        self.reading();
        self.t += 50;
        self
    }
    /// A display shows its flag: `left` or right, final (clock blocked at zero) or shown
    /// while the clock runs on (0x40, a period reached).
    pub fn flag(&mut self, left: bool, final_flag: bool) -> &mut Self {
        let bit = if final_flag { 0x10 } else { 0x40 };
        if let Some(c) = &mut self.clock {
            if left {
                c.0 = 0;
                self.flags.0 = bit;
            } else {
                c.1 = 0;
                self.flags.1 = bit;
            }
            if final_flag {
                c.2 = None;
            }
        }
        self.reading();
        self.t += 50;
        self
    }
    /// Plays legal moves, each completed by a press when a clock is running.
    pub fn play(&mut self, script: &[(&str, &str, char)]) -> &mut Self {
        for (f, t, p) in script {
            self.mv(f, t, *p).wait(250);
            if self.clock.is_some() {
                self.press();
            }
            self.wait(300);
        }
        self
    }
    /// Runs the core with a configuration of one's own.
    pub fn run_with(&self, config: CoreConfig) -> Vec<Event> {
        let mut core = Core::new(config);
        let mut out = Vec::new();
        for i in &self.inputs {
            out.extend(core.handle(i));
        }
        while let Some(d) = core.next_deadline() {
            out.extend(core.advance(d));
        }
        out
    }
}

/// The `game_end` events: (result, reason as its JSON name).
pub fn ends(ev: &[Event]) -> Vec<(String, String)> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::GameEnd { result, reason, .. } => Some((
                result.to_string(),
                serde_json::to_value(reason)
                    .ok()?
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )),
            _ => None,
        })
        .collect()
}

/// The only alert of a kind; fails the test when there is none or several.
pub fn one(ev: &[Event], kind: AlertKind) -> dgt_core::Alert {
    let all = alert_of(ev, kind);
    assert_eq!(all.len(), 1, "one {kind:?} expected: {:?}", alerts(ev));
    all[0].clone()
}

/// Every edition the daemon supports.
pub const EDITIONS: [&str; 4] = ["fide-2005", "fide-2017", "fide-2018", "fide-2023"];

/// A started game with an edition and a time control, the clock running for White.
pub fn game(edition: &str, time_control: &str, secs: u64) -> Board {
    let mut b = started();
    b.op(&format!(
        r#"{{"setup": {{"edition": "{edition}", "time_control": "{time_control}"}}}}"#
    ));
    b.start_clock(secs).wait(300);
    b
}

/// A game from a FEN (White to move) with an edition, a time control and a supervision,
/// the clock running for White.
pub fn game_from(fen: &str, edition: &str, tc: &str, supervision: &str, secs: u64) -> Board {
    let mut b = Board::from_fen(
        fen,
        &format!(
            r#""edition": "{edition}", "time_control": "{tc}", "supervision": "{supervision}""#
        ),
    );
    b.start_clock(secs).wait(300);
    b
}

/// The arbiter puts a completed illegal move back and restarts the offender's clock
/// (7.5.1, 7.1).
pub fn take_back(b: &mut Board, from: &str, to: &str, piece: char) {
    b.mv(to, from, piece).wait(600);
    let run = b.clock.and_then(|c| c.2).map(|r| !r);
    b.set_running(run).wait(300);
}

/// An illegal move completed by a press, then put back by the arbiter.
pub fn illegal_and_back(b: &mut Board, from: &str, to: &str, piece: char) {
    b.mv(from, to, piece).wait(250).press().wait(900);
    take_back(b, from, to, piece);
}

/// An alert's prescription ("" when it has none).
pub fn prescription(a: &dgt_core::Alert) -> String {
    a.prescription.clone().unwrap_or_default()
}

/// An offence alert's verdict as data; its `prescription` is the verdict's text.
#[track_caller]
pub fn offence_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::OffenceVerdict {
    let v = a
        .offence_verdict()
        .unwrap_or_else(|| panic!("no verdict on {a:?}"));
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// A draw claim's verdict as data; its `prescription` is the verdict's text and its
/// `title` the verdict's heading.
#[track_caller]
pub fn claim_verdict(a: &dgt_core::Alert) -> dgt_core::verdict::ClaimVerdict {
    let v = *a
        .claim_verdict()
        .unwrap_or_else(|| panic!("no claim verdict on {a:?}"));
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    assert_eq!(a.title.as_deref(), Some(v.title().as_str()));
    v
}

/// What a `game_found_under_way` alert says, as data; its `message` and `prescription`
/// are the verdict's text.
#[track_caller]
pub fn under_way_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::UnderWayVerdict {
    let v = a
        .under_way_verdict()
        .unwrap_or_else(|| panic!("no under-way verdict on {a:?}"));
    assert_eq!(a.message, v.message());
    assert_eq!(a.prescription, v.render());
    v
}

/// A bughouse match's verdict, as data; the `match_result` alert's `message` and `article`
/// are the verdict's.
#[track_caller]
pub fn match_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::MatchVerdict {
    let v = a
        .match_verdict()
        .unwrap_or_else(|| panic!("no match verdict on {a:?}"));
    assert_eq!(a.message, v.message());
    assert_eq!(a.article.as_deref(), Some(v.article().as_str()));
    v
}

/// An illegal move taken into the game as it stood, as data; the alert's `message` and
/// `prescription` are the verdict's text.
#[track_caller]
pub fn adopted(a: &dgt_core::Alert) -> &dgt_core::verdict::AdoptedIllegalMove {
    let v = a
        .adopted_verdict()
        .unwrap_or_else(|| panic!("no adopted illegal move on {a:?}"));
    assert_eq!(a.message, v.message());
    assert_eq!(a.prescription, v.render());
    v
}

/// A standing illegal position under reduced supervision, as data; the alert's `message`
/// and `prescription` are the verdict's text.
#[track_caller]
pub fn standing(a: &dgt_core::Alert) -> dgt_core::verdict::StandingIllegalPosition {
    let v = *a
        .standing_illegal_position()
        .unwrap_or_else(|| panic!("no standing illegal position on {a:?}"));
    assert_eq!(a.message, v.message());
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// Whether the alert says an illegal move stands (the opponent moved on without a claim).
pub fn stands(a: &dgt_core::Alert) -> bool {
    matches!(
        a.adopted_verdict(),
        Some(dgt_core::verdict::AdoptedIllegalMove::Stands { .. })
    )
}

/// A bughouse drop's verdict, as data; the alert's `message` and `prescription` are the
/// verdict's text.
#[track_caller]
pub fn drop_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::DropVerdict {
    let v = a
        .drop_verdict()
        .unwrap_or_else(|| panic!("no drop verdict on {a:?}"));
    assert_eq!(a.message, v.message());
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// A wrong set-up's verdict, as data; the alert's `prescription` is its text.
#[track_caller]
pub fn setup_verdict(a: &dgt_core::Alert) -> dgt_core::verdict::SetupVerdict {
    let v = *a
        .setup_verdict()
        .unwrap_or_else(|| panic!("no set-up verdict on {a:?}"));
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// A bughouse game's end, as data; the alert's `message`, `article` and `prescription` are
/// the verdict's.
#[track_caller]
pub fn bughouse_end(a: &dgt_core::Alert) -> dgt_core::verdict::BughouseEndVerdict {
    let v = *a
        .bughouse_end_verdict()
        .unwrap_or_else(|| panic!("no bughouse end on {a:?}"));
    assert_eq!(a.message, v.message());
    assert_eq!(a.article.as_deref(), Some(v.article()));
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// An illegal move's verdict under bughouse or reduced supervision, as data; its
/// `prescription` is the verdict's text.
#[track_caller]
pub fn illegal_move_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::IllegalMoveVerdict {
    let v = a
        .illegal_move_verdict()
        .unwrap_or_else(|| panic!("no illegal move verdict on {a:?}"));
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// A bughouse flag's verdict, as data; its `prescription` is the verdict's text.
#[track_caller]
pub fn bughouse_flag_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::BughouseFlagVerdict {
    let v = a
        .verdict
        .as_deref()
        .and_then(dgt_core::verdict::Verdict::bughouse_flag)
        .unwrap_or_else(|| panic!("no bughouse flag verdict on {a:?}"));
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// What the board showed at a press no legal move explains, as data; the alert's `message`
/// is its text.
#[track_caller]
pub fn illegal_change(a: &dgt_core::Alert) -> &dgt_core::verdict::IllegalChange {
    let v = a
        .illegal_change()
        .unwrap_or_else(|| panic!("no illegal change on {a:?}"));
    assert_eq!(a.message, v.message());
    v
}

/// What is wrong with the set-up a game began from, as data; the alert's `message` is its
/// text.
#[track_caller]
pub fn wrong_setup(a: &dgt_core::Alert) -> &dgt_core::reconstruct::WrongSetup {
    let v = a
        .wrong_setup()
        .unwrap_or_else(|| panic!("no wrong set-up on {a:?}"));
    assert_eq!(
        a.message,
        format!("The game began from a wrong set-up: {v}.")
    );
    v
}

/// The time an offence verdict adds to the opponent (ms), `None` when it decides the game.
pub fn time_to_opponent(v: &dgt_core::verdict::OffenceVerdict) -> Option<u64> {
    match v.decision {
        dgt_core::verdict::OffenceDecision::TimeToOpponent { add_ms, .. } => Some(add_ms),
        _ => None,
    }
}

/// An alert's article ("" when it has none).
pub fn article(a: &dgt_core::Alert) -> &str {
    a.article.as_deref().unwrap_or("")
}

/// The value for fide-2005, for fide-2017, or for the later editions.
pub fn by_edition<T>(edition: &str, e2005: T, e2017: T, later: T) -> T {
    match edition {
        "fide-2005" => e2005,
        "fide-2017" => e2017,
        _ => later,
    }
}

/// Claim alerts for the player on move, as (ply, side, written move).
pub fn claims(ev: &[Event], kind: AlertKind) -> Vec<(u32, dgt_core::Side, Option<String>)> {
    alert_of(ev, kind)
        .into_iter()
        .filter(|a| a.severity == dgt_core::Severity::Claim)
        .map(|a| (a.ply.unwrap(), a.side.unwrap(), a.uci))
        .collect()
}

/// The answer to the last claim op: the checker's alert.
pub fn verdict(ev: &[Event]) -> dgt_core::Alert {
    ev.iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Alert(a) if a.claim_verdict().is_some() => Some(a.clone()),
            _ => None,
        })
        .expect("a claim verdict")
}

/// Moves written `e2e4P` (from, to, piece), made on a board without a clock.
pub fn make(b: &mut Board, script: &[&str]) {
    for m in script {
        let piece = m.chars().nth(4).unwrap();
        b.mv(&m[..2], &m[2..4], piece).wait(400);
    }
}

/// `plies` quiet moves from `fen`: no capture, no pawn move, no castling, no check, and no
/// position twice, so neither a repetition nor a game end interferes; the half-move count
/// grows by one a ply. Deterministic. As (from, to, piece).
pub fn quiet_walk(fen: &str, plies: usize) -> Vec<(String, String, char)> {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
    let mut pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let key = |p: &Chess| {
        Fen::from_position(p, EnPassantMode::Legal)
            .to_string()
            .split(' ')
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let quiet = |p: &Chess| -> Vec<shakmaty::Move> {
        let mut v: Vec<_> = p
            .legal_moves()
            .into_iter()
            .filter(|m| {
                !m.is_capture() && m.role() != shakmaty::Role::Pawn && !m.is_castle() && {
                    let mut q = p.clone();
                    q.play_unchecked(*m);
                    !q.is_check()
                }
            })
            .collect();
        v.sort_by_key(|m| m.to_string());
        v
    };
    let mut seen = std::collections::HashSet::from([key(&pos)]);
    let mut out = Vec::new();
    let mut seed: u64 = 12345;
    for _ in 0..plies {
        let cands = quiet(&pos);
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let start = (seed >> 33) as usize % cands.len().max(1);
        let pick = (0..cands.len())
            .map(|i| cands[(start + i) % cands.len()])
            .find(|m| {
                let mut q = pos.clone();
                q.play_unchecked(*m);
                !seen.contains(&key(&q)) && !quiet(&q).is_empty()
            })
            .expect("a quiet move to a new position");
        let piece = pick.role().char();
        let piece = if pos.turn().is_white() {
            piece.to_ascii_uppercase()
        } else {
            piece
        };
        out.push((
            pick.from().unwrap().to_string(),
            pick.to().to_string(),
            piece,
        ));
        pos.play_unchecked(pick);
        seen.insert(key(&pos));
    }
    out
}

impl Board {
    /// Plays a walk from [`quiet_walk`], each move completed by a press when a clock runs.
    pub fn play_walk(&mut self, walk: &[(String, String, char)]) -> &mut Self {
        for (f, t, p) in walk {
            self.mv(f, t, *p).wait(250);
            if self.clock.is_some() {
                self.press();
            }
            self.wait(300);
        }
        self
    }
}

/// A flag alert's verdict as data; its `prescription` is the verdict's text (none where play
/// simply goes on).
#[track_caller]
pub fn flag_verdict(a: &dgt_core::Alert) -> dgt_core::verdict::FlagVerdict {
    let v = *a
        .flag_verdict()
        .unwrap_or_else(|| panic!("no flag verdict on {a:?}"));
    assert_eq!(a.prescription, v.render());
    if let Some(message) = v.message() {
        assert_eq!(a.message, message);
    }
    v
}

/// A clock check's verdict as data; its `prescription` is the verdict's text.
#[track_caller]
pub fn clock_verdict(a: &dgt_core::Alert) -> dgt_core::verdict::ClockVerdict {
    let v = *a
        .clock_verdict()
        .unwrap_or_else(|| panic!("no clock verdict on {a:?}"));
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// A core configuration pairing boards "1" and "2" as a bughouse match under `rules`.
pub fn bughouse_config(rules: dgt_core::bughouse::Regulation) -> CoreConfig {
    CoreConfig {
        bughouse: vec![dgt_core::bughouse::BughouseMatch {
            boards: ["1".into(), "2".into()],
            rules,
            ..Default::default()
        }],
        ..CoreConfig::default()
    }
}

/// A board of a bughouse match set up from a FEN with the clock at `secs` a side, its clock
/// started for the side to move at `t`.
pub fn bughouse_seat(label: &str, fen: &str, t: u64, secs: u64) -> Board {
    let mut b = Board::new();
    b.label = label.into();
    b.t = t;
    b.op(&format!(
        r#"{{"setup": {{"fen": "{fen}", "time_control": "{secs}"}}}}"#
    ));
    b.dump_fen(fen);
    b.wait(400);
    b.start_clock(secs).wait(300);
    b
}

/// Both boards' inputs of a bughouse match in time order, through one core.
pub fn run_match(boards: &[&Board], rules: dgt_core::bughouse::Regulation) -> Vec<Event> {
    let mut inputs: Vec<Input> = boards.iter().flat_map(|b| b.inputs.clone()).collect();
    inputs.sort_by_key(|i| i.t_ms);
    let mut core = Core::new(bughouse_config(rules));
    let mut out = Vec::new();
    for i in &inputs {
        out.extend(core.handle(i));
    }
    while let Some(d) = core.next_deadline() {
        out.extend(core.advance(d));
    }
    out
}

/// The events of one board.
pub fn on(ev: &[Event], board: &str) -> Vec<Event> {
    ev.iter().filter(|e| e.board == board).cloned().collect()
}

/// The `EE_MOVES` message for a log (0x1F00 bytes, NOP padding in front, `EE_EOF` last):
/// what a board sends when asked for its log (protocol §3.6).
pub fn ee_message(entries: &[EeEntry]) -> Vec<u8> {
    let mut all = entries.to_vec();
    all.push(EeEntry::Eof);
    let body = encode_ee_log(&all);
    let mut data = vec![0x7F; 0x1F00 - body.len()];
    data.extend(body);
    let len = data.len() + 3;
    let mut m = vec![0x8F, (len >> 7) as u8, (len & 0x7F) as u8];
    m.extend(data);
    m
}

/// A record alert's verdict as data (an end by rule, a result against it, a place
/// restored, missing pieces); its `prescription` is the verdict's text.
#[track_caller]
pub fn record_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::RecordVerdict {
    let v = a
        .verdict
        .as_deref()
        .and_then(dgt_core::verdict::Verdict::record)
        .unwrap_or_else(|| panic!("no record verdict on {a:?}"));
    assert_eq!(a.prescription.as_deref(), Some(v.render().as_str()));
    v
}

/// A handling alert's verdict as data; its `prescription` (and the evidence's `message`)
/// is the verdict's text.
#[track_caller]
pub fn hands_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::HandsVerdict {
    let v = a
        .verdict
        .as_deref()
        .and_then(dgt_core::verdict::Verdict::hands)
        .unwrap_or_else(|| panic!("no handling verdict on {a:?}"));
    assert_eq!(a.prescription, v.render());
    if let Some(message) = v.message() {
        assert_eq!(a.message, message);
    }
    v
}

/// A bughouse seat check's verdict as data; its `message` and `prescription` are the
/// verdict's text.
#[track_caller]
pub fn seat_verdict(a: &dgt_core::Alert) -> &dgt_core::verdict::SeatVerdict {
    let v = a
        .verdict
        .as_deref()
        .and_then(dgt_core::verdict::Verdict::seat)
        .unwrap_or_else(|| panic!("no seat verdict on {a:?}"));
    assert_eq!((&a.message, &a.prescription), (&v.message(), &v.render()));
    v
}

/// What a clock set against the time control showed, as data; its `message` is the
/// mismatch's text (the prescription is read with `clock_verdict`).
#[track_caller]
pub fn setting_mismatch(a: &dgt_core::Alert) -> &dgt_core::verdict::SettingMismatch {
    let v = a
        .verdict
        .as_deref()
        .and_then(dgt_core::verdict::Verdict::setting_mismatch)
        .unwrap_or_else(|| panic!("no clock-setting verdict on {a:?}"));
    assert_eq!(a.message, v.message());
    v
}
