//! The two players, as a seeded model of hands and minds: from the script it plans every
//! physical change on the board surface and every clock press, with the ground truth.
//!
//! The plan is made once, ahead, from the human's own random stream, so nothing the host
//! does can change what the players do. The planner runs its own copy of the clock to know
//! the time left: thinking never runs a flag down unless the script says so.

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, File, Move, Piece, Position, Role, Square, attacks};

use crate::clock::{ClockSide, Dgt3000, FlagFall};
use crate::game_end;
use crate::game_script::{GameOutcome, ScriptError, fen_of, uci_of};
use crate::prng::Prng;
use crate::spec::{BoardSpec, HandlingRates, ResultGesture};
use crate::surface::{codes_by_square, physical_codes, piece_code};
use crate::time_control::{Category, TimeControl};
use crate::truth::{
    ClockStop, ClockStopReason, GameOverBy, GameResult, Handling, Irregularity, IrregularityKind,
    PerformedGesture, ResultReason, Truth, TruthMove,
};

/// A change on the surface: at `t_ms`, chess square `square` holds piece `code` (0 empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SurfaceChange {
    pub t_ms: u64,
    pub square: Square,
    pub code: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClockActKind {
    Start(ClockSide),
    Press(ClockSide),
    Pause,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClockAct {
    pub t_ms: u64,
    pub kind: ClockActKind,
}

/// Everything the players will do, and the truth about it.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Piece codes by chess square at power-up.
    pub initial: [u8; 64],
    pub changes: Vec<SurfaceChange>,
    pub clock_acts: Vec<ClockAct>,
    pub first_side: ClockSide,
    pub truth: Truth,
}

/// One move made by hand, in time relative to the first touch.
struct Hand<'r> {
    rng: &'r mut Prng,
    rates: &'r HandlingRates,
    /// Piece codes by chess square, kept in step with the changes.
    board: [u8; 64],
    t: u64,
    steps: Vec<(u64, Square, u8)>,
    slid_via: Vec<String>,
    /// Hand speed: 1.0 normally, below 1 in time trouble (players move much faster).
    tempo: f64,
}

impl<'r> Hand<'r> {
    fn new(rng: &'r mut Prng, rates: &'r HandlingRates, board: [u8; 64], tempo: f64) -> Self {
        Hand {
            rng,
            rates,
            board,
            t: 0,
            steps: Vec::new(),
            slid_via: Vec::new(),
            tempo,
        }
    }

    fn put(&mut self, sq: Square, code: u8) {
        self.board[sq as usize] = code;
        self.steps.push((self.t, sq, code));
    }

    fn wait(&mut self, lo: u64, hi: u64) {
        self.t += (self.rng.range(lo, hi) as f64 * self.tempo) as u64;
    }

    /// Lifts the piece on `from` and brings it over `to` without placing it. A sliding
    /// human keeps it on the board and touches every square on the way (protocol §4.1).
    fn travel(&mut self, from: Square, to: Square, can_slide: bool) -> u8 {
        let code = self.board[from as usize];
        let mut path: Vec<Square> = attacks::between(from, to).into_iter().collect();
        path.sort_by_key(|s| s.distance(from));
        let slide = can_slide
            && !path.is_empty()
            && path.iter().all(|s| self.board[*s as usize] == 0)
            && self.rng.chance(self.rates.slide);
        self.put(from, 0);
        if slide {
            for p in path {
                self.wait(15, 60);
                self.put(p, code);
                self.wait(40, 180);
                self.put(p, 0);
                self.slid_via.push(p.to_string());
            }
            self.wait(15, 60);
        } else {
            let d = from.distance(to) as u64;
            self.wait(120 + 25 * d, 300 + 45 * d);
        }
        code
    }

    fn move_piece(&mut self, from: Square, to: Square, can_slide: bool) {
        let code = self.travel(from, to, can_slide);
        self.put(to, code);
    }

    /// A badly centred piece toggling after it was placed: the number of toggles.
    fn flicker(&mut self, sq: Square) -> Option<u32> {
        if !self.rng.chance(self.rates.flicker) {
            return None;
        }
        let code = self.board[sq as usize];
        let n = self.rng.range(1, 4) as u32;
        for _ in 0..n {
            self.wait(15, 90);
            self.put(sq, 0);
            self.wait(15, 120);
            self.put(sq, code);
        }
        Some(n)
    }

    /// Before the move, maybe lifts an own piece the move does not use and puts it back on
    /// its square (an adjustment or a touch); returns its square and whether it was
    /// announced. Drawn only when the rate is set (the corpus's stream stays as it was).
    fn adjust(&mut self, pos: &Chess, m: Move) -> Option<(String, bool)> {
        if self.rates.adjust_piece <= 0.0 || !self.rng.chance(self.rates.adjust_piece) {
            return None;
        }
        let mut used = vec![m.to()];
        used.extend(m.from());
        if let Move::Castle { king, rook } = m {
            used.extend([king, rook]);
        }
        let own: Vec<Square> = pos
            .us()
            .into_iter()
            .filter(|sq| !used.contains(sq))
            .collect();
        if own.is_empty() {
            return None;
        }
        let sq = *self.rng.pick(&own);
        let announced = self.rng.chance(self.rates.adjust_announced);
        let code = self.board[sq as usize];
        self.put(sq, 0);
        self.wait(400, 1500);
        self.put(sq, code);
        self.wait(300, 1200);
        Some((sq.to_string(), announced))
    }

    /// Makes `m` on the surface. Returns how, an irregularity if any, and the square of the
    /// last piece placed.
    fn make_move(&mut self, pos: &Chess, m: Move) -> (Handling, Option<IrregularityKind>, Square) {
        let turn = pos.turn();
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                let slides = match role {
                    Role::Queen | Role::Rook | Role::Bishop => true,
                    Role::Pawn => from.distance(to) == 2,
                    Role::King | Role::Knight => false,
                };
                if let Some(promoted) = promotion {
                    let new_code = piece_code(Piece {
                        color: turn,
                        role: promoted,
                    });
                    let direct = self.rng.chance(self.rates.promotion_direct);
                    let remove_first =
                        capture.is_some() && self.rng.chance(self.rates.capture_remove_first);
                    if remove_first {
                        self.put(to, 0);
                        self.wait(250, 800);
                    }
                    let pawn = self.travel(from, to, false);
                    if capture.is_some() && !remove_first {
                        self.put(to, 0);
                        self.wait(30, 300);
                    }
                    if direct {
                        // The pawn goes to the side, the new piece comes from off the board.
                        self.wait(400, 1500);
                        self.put(to, new_code);
                        (Handling::PromotionDirect, None, to)
                    } else {
                        self.put(to, pawn);
                        self.wait(300, 1200);
                        self.put(to, 0);
                        self.wait(300, 1500);
                        self.put(to, new_code);
                        (Handling::PromotionViaPawn, None, to)
                    }
                } else if capture.is_some() {
                    // Drawn only when the rate is set: the corpus's random stream stays as it was.
                    let two_hands = self.rates.capture_two_handed > 0.0
                        && self.rng.chance(self.rates.capture_two_handed);
                    if two_hands {
                        // One hand takes the captured piece off while the other lifts the
                        // capturer, in either order, then the capturer lands.
                        let code = self.board[from as usize];
                        let (a, b) = if self.rng.chance(0.5) {
                            (from, to)
                        } else {
                            (to, from)
                        };
                        self.put(a, 0);
                        self.wait(0, 80);
                        self.put(b, 0);
                        self.wait(150, 400);
                        self.put(to, code);
                        (Handling::CaptureTwoHanded, None, to)
                    } else if self.rng.chance(self.rates.capture_remove_first) {
                        self.put(to, 0);
                        self.wait(350, 1100);
                        self.move_piece(from, to, slides);
                        (Handling::CaptureRemoveFirst, None, to)
                    } else {
                        // With the capturer in hand the captured piece comes off; when both
                        // happen within one scan the removal is never reported (§4.1).
                        let code = self.travel(from, to, slides);
                        self.put(to, 0);
                        self.wait(30, 350);
                        self.put(to, code);
                        (Handling::CaptureLiftFirst, None, to)
                    }
                } else {
                    self.move_piece(from, to, slides);
                    (Handling::Plain, None, to)
                }
            }
            Move::EnPassant { from, to } => {
                let captured = Square::from_coords(to.file(), from.rank());
                if self.rng.chance(self.rates.en_passant_remove_first) {
                    self.put(captured, 0);
                    self.wait(300, 900);
                    self.move_piece(from, to, false);
                    (Handling::EnPassantRemoveFirst, None, to)
                } else {
                    self.move_piece(from, to, false);
                    self.wait(200, 900);
                    self.put(captured, 0);
                    (Handling::EnPassantRemoveAfter, None, to)
                }
            }
            Move::Castle { king, rook } => {
                let king_side = rook.file() > king.file();
                let rank = king.rank();
                let king_to = Square::from_coords(if king_side { File::G } else { File::C }, rank);
                let rook_to = Square::from_coords(if king_side { File::F } else { File::D }, rank);
                let r = self.rng.unit();
                if r < self.rates.castle_two_handed {
                    let (kc, rc) = (self.board[king as usize], self.board[rook as usize]);
                    self.put(king, 0);
                    self.wait(0, 80);
                    self.put(rook, 0);
                    self.wait(250, 600);
                    self.put(king_to, kc);
                    self.wait(0, 150);
                    self.put(rook_to, rc);
                    (
                        Handling::CastleTwoHanded,
                        Some(IrregularityKind::CastleTwoHanded),
                        rook_to,
                    )
                } else if r < self.rates.castle_two_handed + self.rates.castle_rook_first {
                    self.move_piece(rook, rook_to, true);
                    self.wait(150, 500);
                    self.move_piece(king, king_to, true);
                    (
                        Handling::CastleRookFirst,
                        Some(IrregularityKind::CastleRookFirst),
                        king_to,
                    )
                } else {
                    self.move_piece(king, king_to, true);
                    self.wait(150, 500);
                    self.move_piece(rook, rook_to, true);
                    (Handling::CastleKingFirst, None, rook_to)
                }
            }
            Move::Put { .. } => unreachable!("standard chess has no drops"),
        }
    }
}

/// Think time before a move, in ms: scaled by the time control, fast in the opening,
/// skewed (a few long thinks), and never more than a sustainable share of the time left:
/// the per-move share of the remaining time (a little more early on), minus what this
/// move's hands and press cost, plus most of the increment.
fn think_ms(
    rng: &mut Prng,
    tc: &TimeControl,
    fullmove: u32,
    remaining_ms: u64,
    moves_left_in_period: Option<u32>,
    increment_ms: u64,
    hand_cost_ms: u64,
) -> u64 {
    let mean = tc.estimated_share_ms() as f64 / 45.0;
    let phase = match fullmove {
        0..=6 => 0.15,
        7..=12 => 0.5,
        _ => 1.0,
    };
    let think = mean * phase * rng.skewed_factor() + 150.0;
    let moves_left = match moves_left_in_period {
        Some(n) => n.max(1) as f64 + 1.0,
        None => (60.0 - fullmove as f64).max(25.0),
    };
    let allowed =
        remaining_ms as f64 / moves_left * 1.5 - hand_cost_ms as f64 + increment_ms as f64 * 0.8;
    think.min(allowed).max(0.0) as u64
}

fn press_delay_ms(rng: &mut Prng, category: Category) -> u64 {
    match category {
        Category::Blitz => rng.range(150, 500),
        Category::Rapid => rng.range(200, 700),
        Category::Standard => rng.range(300, 900),
    }
}

struct Planner<'a> {
    spec: &'a BoardSpec,
    rng: Prng,
    surface: [u8; 64],
    changes: Vec<SurfaceChange>,
    clock: Dgt3000,
    acts: Vec<ClockAct>,
    irregularities: Vec<Irregularity>,
    /// Truth only: every stop of the clock by a hand and why.
    clock_stops: Vec<ClockStop>,
    last_t: u64,
}

impl Planner<'_> {
    fn side_of(&self, c: Color) -> ClockSide {
        if c.is_white() {
            self.spec.white_clock_side
        } else {
            self.spec.white_clock_side.other()
        }
    }

    fn put(&mut self, t: u64, sq: Square, code: u8) {
        self.surface[sq as usize] = code;
        self.changes.push(SurfaceChange {
            t_ms: t,
            square: sq,
            code,
        });
        self.last_t = self.last_t.max(t);
    }

    fn act(&mut self, t: u64, kind: ClockActKind) {
        match kind {
            ClockActKind::Start(s) => self.clock.start(t, s),
            ClockActKind::Press(s) => {
                let switched = self.clock.press(t, s);
                debug_assert!(switched, "a planned press must switch the clock");
            }
            ClockActKind::Pause => self.clock.pause(t),
        }
        self.acts.push(ClockAct { t_ms: t, kind });
        self.last_t = self.last_t.max(t);
    }

    fn times(&mut self, t: u64) -> (u64, u64) {
        let w = self.side_of(Color::White);
        (
            self.clock.remaining_ms(w, t),
            self.clock.remaining_ms(w.other(), t),
        )
    }

    /// The mover never moves: their flag falls. Returns the result.
    fn flag_fall(&mut self, pos: &Chess, ply: usize, scripted: bool) -> GameResult {
        let mover = pos.turn();
        let flag_t = self.clock.flag_time().unwrap_or(self.last_t);
        self.clock.advance(flag_t);
        let final_flag = self
            .clock
            .flag_falls()
            .last()
            .is_none_or(|&(_, _, kind)| kind == FlagFall::Final);
        self.irregularities.push(Irregularity {
            t_ms: flag_t,
            ply: Some(ply),
            kind: IrregularityKind::FlagFall {
                white: mover.is_white(),
                final_flag,
                scripted,
            },
        });
        self.last_t = self.last_t.max(flag_t);
        if !final_flag {
            // A period's flag (0x40): the clock runs on until the arbiter stops it.
            let t = flag_t + self.rng.range(2000, 5000);
            self.act(t, ClockActKind::Pause);
            self.clock_stops.push(ClockStop {
                t_ms: t,
                reason: ClockStopReason::ArbiterAfterFlag,
            });
        }
        let winner = !mover;
        // Laws 6.9: a draw if the opponent cannot checkmate by any series of legal moves
        // (approximated by shakmaty's insufficient-material test).
        let outcome = if pos.has_insufficient_material(winner) {
            GameOutcome::Draw
        } else if winner.is_white() {
            GameOutcome::WhiteWins
        } else {
            GameOutcome::BlackWins
        };
        GameResult {
            outcome,
            reason: ResultReason::FlagFall,
        }
    }

    fn gesture(&mut self, t0: u64, kind: ResultGesture, outcome: GameOutcome) -> u64 {
        let mut t = t0;
        match kind {
            ResultGesture::None => {}
            ResultGesture::CentreKings => {
                // e4/d5 light = 1-0, d4/e5 dark = 0-1, one of each = draw (§4.5).
                let (mut wt, mut bt) = match outcome {
                    GameOutcome::WhiteWins => (Square::E4, Square::D5),
                    GameOutcome::BlackWins => (Square::D4, Square::E5),
                    GameOutcome::Draw => (Square::E4, Square::E5),
                };
                let find = |code: u8, s: &[u8; 64]| {
                    s.iter()
                        .position(|&c| c == code)
                        .map(|i| Square::new(i as u32))
                };
                let (Some(wk), Some(bk)) = (find(5, &self.surface), find(11, &self.surface)) else {
                    return t;
                };
                if bk == wt || wk == bt {
                    std::mem::swap(&mut wt, &mut bt);
                }
                for (from, to, code) in [(wk, wt, 5u8), (bk, bt, 11u8)] {
                    if from == to {
                        continue;
                    }
                    self.put(t, from, 0);
                    t += self.rng.range(300, 800);
                    if self.surface[to as usize] != 0 {
                        // Whatever stands there is pushed off the board.
                        self.put(t, to, 0);
                        t += self.rng.range(150, 400);
                    }
                    self.put(t, to, code);
                    t += self.rng.range(300, 900);
                }
            }
            ResultGesture::MagicPiece => {
                let code = match outcome {
                    GameOutcome::Draw => 13,
                    GameOutcome::WhiteWins => 14,
                    GameOutcome::BlackWins => 15,
                };
                let empty: Vec<usize> = (0..64).filter(|&i| self.surface[i] == 0).collect();
                if !empty.is_empty() {
                    let sq = Square::new(*self.rng.pick(&empty) as u32);
                    self.put(t, sq, code);
                }
            }
        }
        t
    }
}

/// Plans the whole game of `spec`.
pub(crate) fn plan_game(spec: &BoardSpec) -> Result<Plan, ScriptError> {
    let (start, moves) = spec.script.validate()?;
    let initial = codes_by_square(start.board());
    let first_side = if start.turn().is_white() {
        spec.white_clock_side
    } else {
        spec.white_clock_side.other()
    };
    let mut p = Planner {
        spec,
        rng: Prng::stream(spec.seed, 0x4855_4D41),
        surface: initial,
        changes: Vec::new(),
        clock: Dgt3000::new(spec.time_control.clone(), first_side),
        acts: Vec::new(),
        irregularities: Vec::new(),
        clock_stops: Vec::new(),
        last_t: 0,
    };
    let rates = spec.rates.clone();
    let category = spec.time_control.category();
    let battery_low = spec.clock_present && p.rng.chance(rates.battery_low);

    let start_t = spec.start_delay_ms + p.rng.range(0, 2000);
    p.act(start_t, ClockActKind::Start(first_side));
    // When the mover's clock started, and when the board is quiet again.
    let mut clock_started = start_t;
    let mut hands_free = start_t;
    let mut pos = start.clone();
    let mut result = None;
    let mut truth_moves = Vec::new();
    let mut ended_by_flag = false;

    for (idx, &m) in moves.iter().enumerate() {
        let ply = idx + 1;
        let mover = pos.turn();
        let mside = p.side_of(mover);
        if spec.script.flag_fall_at_ply == Some(idx) {
            result = Some(p.flag_fall(&pos, ply, true));
            ended_by_flag = true;
            break;
        }
        let flag_t = p.clock.flag_time().unwrap_or(u64::MAX);
        let mut after = pos.clone();
        after.play_unchecked(m);
        let game_over = after.is_game_over();

        // Time trouble: with little time per remaining move, hands move two to three times
        // faster (and the think below shrinks with the time left).
        let remaining = p.clock.remaining_ms(mside, clock_started);
        let per_move = remaining / p.clock.moves_left_in_period(mside).unwrap_or(30).max(1) as u64
            + p.clock.increment_ms(mside);
        let tempo = if per_move < 800 {
            0.25
        } else if per_move < 1500 {
            0.35
        } else if per_move < 4000 {
            0.6
        } else {
            1.0
        };
        let tempo = spec.pace.tempo().unwrap_or(tempo);
        let mut hand = Hand::new(&mut p.rng, &rates, p.surface, tempo);
        let adjusted = hand.adjust(&pos, m);
        let (handling, irregular, last_square) = hand.make_move(&pos, m);
        let made_off = hand.t;
        let flicker = hand.flicker(last_square);
        let settle_off = hand.t;
        let (steps, slid_via, board_after) = (hand.steps, hand.slid_via, hand.board);
        debug_assert_eq!(board_after, codes_by_square(after.board()), "ply {ply}");

        // Game-ending moves end the game without a press; many players press anyway.
        let press = !game_over || p.rng.chance(0.5);
        let mut late = press && !game_over && p.rng.chance(rates.late_press);
        let mut press_delay = if late {
            p.rng.range(3000, 20_000)
        } else {
            (press_delay_ms(&mut p.rng, category) as f64 * tempo) as u64
        };
        let think = think_ms(
            &mut p.rng,
            &spec.time_control,
            pos.fullmoves().get(),
            remaining,
            p.clock.moves_left_in_period(mside),
            p.clock.increment_ms(mside),
            settle_off.max(made_off + if press { press_delay } else { 0 }),
        );
        let reach = (p.rng.range(100, 300) as f64 * tempo) as u64;
        let margin = 300 + p.rng.range(0, 400);
        let mut first = (clock_started + think + reach)
            .max(hands_free + (p.rng.range(50, 250) as f64 * tempo) as u64);
        let need = |pd: u64| made_off + if press { pd } else { 0 };
        if first + need(press_delay) + margin > flag_t {
            if late {
                late = false;
                press_delay = (press_delay_ms(&mut p.rng, category) as f64 * tempo) as u64;
            }
            let latest = flag_t.saturating_sub(margin + need(press_delay));
            first = latest.max(hands_free + 50).max(clock_started);
            if first + need(press_delay) >= flag_t {
                // No time left even to move: the flag falls for real.
                result = Some(p.flag_fall(&pos, ply, false));
                ended_by_flag = true;
                break;
            }
        }

        for (off, sq, code) in steps {
            p.put(first + off, sq, code);
        }
        let made_t = first + made_off;
        let press_t = press.then_some(made_t + press_delay);
        if let Some(t) = press_t {
            p.act(t, ClockActKind::Press(mside));
        }
        let (white_ms, black_ms) = p.times(press_t.unwrap_or(made_t));
        if let Some(kind) = irregular {
            p.irregularities.push(Irregularity {
                t_ms: first,
                ply: Some(ply),
                kind,
            });
        }
        if let Some(toggles) = flicker {
            p.irregularities.push(Irregularity {
                t_ms: made_t,
                ply: Some(ply),
                kind: IrregularityKind::Flicker {
                    square: last_square.to_string(),
                    toggles,
                },
            });
        }
        if late {
            p.irregularities.push(Irregularity {
                t_ms: made_t + press_delay,
                ply: Some(ply),
                kind: IrregularityKind::LatePress {
                    delay_ms: press_delay,
                },
            });
        }
        truth_moves.push(TruthMove {
            ply,
            white: mover.is_white(),
            uci: uci_of(m),
            san: SanPlus::from_move(pos.clone(), m).to_string(),
            t_touch_ms: first,
            t_made_ms: made_t,
            t_pressed_ms: press_t,
            white_ms,
            black_ms,
            slid_via,
            fen_after: fen_of(&after),
            two_handed: matches!(
                handling,
                Handling::CaptureTwoHanded | Handling::CastleTwoHanded
            ),
            adjusted,
            handling,
        });
        hands_free = first + settle_off;
        clock_started = press_t.unwrap_or(made_t);

        if !game_over && p.rng.chance(rates.knocked_piece) {
            let occupied: Vec<Square> = after.board().occupied().into_iter().collect();
            let sq = *p.rng.pick(&occupied);
            let code = p.surface[sq as usize];
            let down = hands_free.max(clock_started) + p.rng.range(100, 600);
            let down_ms = p.rng.range(500, 3000);
            p.put(down, sq, 0);
            p.put(down + down_ms, sq, code);
            p.irregularities.push(Irregularity {
                t_ms: down,
                ply: Some(ply),
                kind: IrregularityKind::KnockedPiece {
                    square: sq.to_string(),
                    piece: after.board().piece_at(sq).map_or('?', |pc| pc.char()),
                    down_ms,
                },
            });
            hands_free = down + down_ms;
        }
        pos = after;
        if game_over {
            let outcome = match pos.outcome() {
                shakmaty::Outcome::Known(shakmaty::KnownOutcome::Decisive { winner }) => {
                    if winner.is_white() {
                        GameOutcome::WhiteWins
                    } else {
                        GameOutcome::BlackWins
                    }
                }
                _ => GameOutcome::Draw,
            };
            let reason = if pos.is_checkmate() {
                ResultReason::Checkmate
            } else if pos.is_stalemate() {
                ResultReason::Stalemate
            } else {
                ResultReason::InsufficientMaterial
            };
            result = Some(GameResult { outcome, reason });
            break;
        }
    }

    // Truth only (nothing drawn from the stream): when the game ended by the Laws — on the
    // board (maybe before the players stopped playing), or by the flag.
    let mut game_over = match game_end::first_end_on_board(&start, &moves[..truth_moves.len()]) {
        Some(after_ply) => Some((
            truth_moves[after_ply - 1].t_made_ms,
            GameOverBy::OnBoard { after_ply },
        )),
        None if ended_by_flag => p
            .irregularities
            .iter()
            .rev()
            .find(|i| matches!(i.kind, IrregularityKind::FlagFall { .. }))
            .map(|i| (i.t_ms, GameOverBy::Flag)),
        None => None,
    };
    let mut clock_paused_ms = None;
    if !ended_by_flag {
        // The players stop the clock when the game is over.
        let t = p.last_t.max(hands_free) + p.rng.range(1500, 4000);
        let flags_before = p.clock.flag_falls().len();
        p.act(t, ClockActKind::Pause);
        clock_paused_ms = Some(t);
        // A flag that fell while the players were done moving, before they stopped the
        // clock: it really fell (and ended the game, unless it was over already).
        let white_side = spec.white_clock_side;
        let fallen: Vec<(u64, ClockSide, FlagFall)> = p.clock.flag_falls()[flags_before..].to_vec();
        for (flag_t, side, kind) in fallen {
            p.irregularities.push(Irregularity {
                t_ms: flag_t,
                ply: Some(truth_moves.len() + 1),
                kind: IrregularityKind::FlagFall {
                    white: side == white_side,
                    final_flag: kind == FlagFall::Final,
                    scripted: false,
                },
            });
            game_over.get_or_insert((flag_t, GameOverBy::Flag));
        }
        // Not over by then: they ended it themselves (a resignation or an agreement the
        // board cannot hear), and the clock stops then.
        let reason = if game_over.is_some() {
            ClockStopReason::AfterGameOver
        } else {
            ClockStopReason::PlayersEndedGame
        };
        game_over.get_or_insert((t, GameOverBy::Players));
        p.clock_stops.push(ClockStop { t_ms: t, reason });
    } else if let Some(a) = p.acts.iter().rev().find(|a| a.kind == ClockActKind::Pause) {
        clock_paused_ms = Some(a.t_ms);
    }
    if result.is_none() {
        result = spec.script.result.map(|outcome| GameResult {
            outcome,
            reason: ResultReason::Scripted,
        });
    }
    let mut gesture = None;
    if spec.result_gesture != ResultGesture::None {
        let r = *result.get_or_insert(GameResult {
            outcome: GameOutcome::Draw,
            reason: ResultReason::Agreed,
        });
        let t0 = p.last_t.max(hands_free) + p.rng.range(1000, 3000);
        let done = p.gesture(t0, spec.result_gesture, r.outcome);
        game_over.get_or_insert((t0, GameOverBy::Players));
        gesture = Some(PerformedGesture {
            kind: spec.result_gesture,
            outcome: r.outcome,
            t_start_ms: t0,
            t_ms: done,
        });
    }

    let end_ms = p.last_t.max(hands_free) + 1500;
    let truth = Truth {
        start_fen: fen_of(&start),
        serial: spec.serial_text(),
        rotated: spec.rotated,
        white_clock_side: spec.white_clock_side,
        clock_present: spec.clock_present,
        time_control: spec.time_control.to_string(),
        clock_started_ms: start_t,
        moves: truth_moves,
        irregularities: p.irregularities,
        result,
        gesture,
        clock_paused_ms,
        // Without a clock there is nothing to stop.
        clock_stops: if spec.clock_present {
            p.clock_stops
        } else {
            Vec::new()
        },
        game_over,
        battery_low,
        final_fen: fen_of(&pos),
        final_board: physical_codes(&p.surface, spec.rotated),
        end_ms,
    };
    Ok(Plan {
        initial,
        changes: p.changes,
        clock_acts: p.acts,
        first_side,
        truth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_script::GameScript;

    /// Replays the planned surface changes and checks the board matches the truth.
    fn replay(plan: &Plan) -> [u8; 64] {
        let mut changes = plan.changes.clone();
        changes.sort_by_key(|c| c.t_ms);
        let mut b = plan.initial;
        for c in changes {
            b[c.square as usize] = c.code;
        }
        b
    }

    /// The square codes of the position the plan's truth ends in.
    fn final_codes(plan: &Plan) -> [u8; 64] {
        let final_pos: Chess = plan
            .truth
            .final_fen
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        codes_by_square(final_pos.board())
    }

    #[test]
    fn plans_end_in_the_true_position_for_many_seeds() {
        for seed in 0..150 {
            let mut spec = BoardSpec::random(seed, 120);
            spec.rates.slide = 0.6;
            spec.rates.flicker = 0.3;
            spec.rates.knocked_piece = 0.1;
            spec.rates.castle_rook_first = 0.3;
            spec.rates.castle_two_handed = 0.3;
            let plan = plan_game(&spec).unwrap();
            assert_eq!(replay(&plan), final_codes(&plan), "seed {seed}");
            // Every move is pressed before its flag, times decrease sensibly.
            for w in plan.truth.moves.windows(2) {
                assert!(w[0].t_made_ms < w[1].t_touch_ms, "seed {seed}");
            }
        }
    }

    #[test]
    fn two_handed_captures_and_adjustments_are_in_the_truth_at_every_pace() {
        use crate::spec::Pace;
        for pace in [Pace::Careful, Pace::Blitz, Pace::Scramble] {
            for seed in 0..30 {
                let mut spec = BoardSpec::random(seed, 80);
                spec.pace = pace;
                spec.rates.capture_two_handed = 1.0;
                spec.rates.adjust_piece = 1.0;
                spec.rates.adjust_announced = 0.5;
                let plan = plan_game(&spec).unwrap();
                assert_eq!(replay(&plan), final_codes(&plan));
                for m in &plan.truth.moves {
                    if m.san.contains('x') && !m.uci.ends_with(['q', 'r', 'b', 'n']) {
                        let ep = m.handling == Handling::EnPassantRemoveFirst
                            || m.handling == Handling::EnPassantRemoveAfter;
                        assert!(m.two_handed || ep, "seed {seed} {pace:?} {m:?}");
                    }
                }
                // Every move, unless the mover has no other piece than the one he moves.
                let adjusted = plan.truth.moves.iter().filter(|m| m.adjusted.is_some());
                assert!(
                    adjusted.count() * 10 >= plan.truth.moves.len() * 9,
                    "seed {seed}"
                );
            }
        }
        // Without the rates, nothing of it.
        let plan = plan_game(&BoardSpec::random(3, 80)).unwrap();
        assert!(
            plan.truth
                .moves
                .iter()
                .all(|m| m.adjusted.is_none() && m.handling != Handling::CaptureTwoHanded)
        );
    }

    #[test]
    fn scripted_flag_fall_ends_the_game() {
        let mut script = GameScript::from_uci(&["e2e4", "e7e5", "g1f3", "b8c6"]);
        script.flag_fall_at_ply = Some(3);
        let spec = BoardSpec::new(5, script)
            .with_time_control(TimeControl::sudden_death(60))
            .with_rates(HandlingRates::clean());
        let plan = plan_game(&spec).unwrap();
        assert_eq!(plan.truth.moves.len(), 3);
        let r = plan.truth.result.unwrap();
        assert_eq!(r.reason, ResultReason::FlagFall);
        assert_eq!(r.outcome, GameOutcome::WhiteWins);
        assert!(plan.truth.irregularities.iter().any(|i| matches!(
            i.kind,
            IrregularityKind::FlagFall {
                white: false,
                final_flag: true,
                scripted: true
            }
        )));
    }

    #[test]
    fn centre_kings_gesture_lands_on_the_right_squares() {
        let mut script = GameScript::from_uci(&["e2e4", "e7e5"]);
        script.result = Some(GameOutcome::BlackWins);
        let mut spec = BoardSpec::new(9, script).with_rates(HandlingRates::clean());
        spec.result_gesture = ResultGesture::CentreKings;
        let plan = plan_game(&spec).unwrap();
        let b = replay(&plan);
        // d4 and e5 are dark: 0-1. e5 held a black pawn, pushed off the board.
        assert_eq!(b[Square::D4 as usize] + b[Square::E5 as usize], 5 + 11);
        assert_eq!(
            plan.truth.gesture.as_ref().unwrap().outcome,
            GameOutcome::BlackWins
        );
    }
}
