//! The Laws of Chess as data per edition: which article applies, what it prescribes, and the
//! game ends that happen by rule at the move made (no press needed).

use serde::{Deserialize, Serialize};
use shakmaty::{CastlingMode, Chess, Position};

use crate::article::Article;
use crate::event::{AlertKind, EndReason, Severity};
use crate::outcome::GameResult;
use crate::reconstruct::Game;

/// The articles and penalties of one edition of the Laws. A new edition is a new table.
/// Values and their sources: docs/laws-by-edition.md and docs/decisions/edition-table.rs.txt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Laws {
    pub name: &'static str,
    pub checkmate: Article,
    pub stalemate: Article,
    pub dead_position: Article,
    /// Fivefold repetition and the 75-move rule; `None` where the edition has no such rule
    /// (2005: only a claim ends the game).
    pub fivefold: Option<Article>,
    /// 2017 9.6.1 as printed: five *consecutive* alternate repetitions; later: any five.
    pub fivefold_consecutive: bool,
    pub seventy_five: Option<Article>,
    /// Threefold claim on the position that has just appeared (2005 9.2b; 2017/2018
    /// 9.2.1.2; 2023 9.2.2), and with a move written down, not played (9.2a; 9.2.1.1; 9.2.1).
    pub threefold_claim: Article,
    pub threefold_claim_with_move: Article,
    /// Fifty-move claim now (2005 9.3b; 2017+ 9.3.2), and with a written move (9.3a; 9.3.1).
    pub fifty_claim: Article,
    pub fifty_claim_with_move: Article,
    /// 2017+ 9.4: a player who touches a piece (4.3) loses the right to claim on that move.
    /// 2005 9.4 loses it only by making a move: `None`.
    pub claim_lost_by_touch: Option<Article>,
    /// The penalty for an incorrect claim (2005 9.5b; 2017+ 9.5.3).
    pub wrong_claim_penalty: Article,
    /// 2005 9.5b: three minutes to the opponent and a cut in the claimant's own time,
    /// instead of the offence penalty by category (9.5.3).
    pub wrong_claim_cuts_own_time: bool,
    pub flag_fall: Article,
    /// When a flag counts as fallen: when the arbiter observes it or a player claims it
    /// validly (2017+ 6.8, 2005 6.9).
    pub flag_considered_fallen: Article,
    /// Reduced supervision: the flag claim — the player stops the clock and claims while his
    /// own flag is up (2005 B8, 2017 A4.3, 2018 A.4.3, 2023 A.5.3), and whether stopping the
    /// clock is required (2017 "must"; 2018+ "may").
    pub reduced_flag_claim: (Article, bool),
    /// A clock found set wrongly is corrected by the arbiter (2017+ 6.10.2; 2005 6.11).
    pub clock_setting: Article,
    /// A wrong initial position: the game is cancelled and a new one played (2017+ 7.2.1;
    /// 2005 7.1a).
    pub setup_invalid: Article,
    /// Below five minutes in a period without a 30 s increment a player need not record
    /// (2005 8.4a, 2017+ 8.4); when neither must, the arbiter should keep score (2005 8.5a,
    /// 2017+ 8.5.1).
    pub recording_exempt: (Article, Article),
    /// The draw claim of a player on move with less than two minutes in a quickplay finish
    /// without increment (2005 10.2, always; 2017+ III.5, only under an announced Guideline
    /// III), and whether it needs the announcement.
    pub quickplay_claim: (Article, bool),
    /// Rapid and blitz under reduced supervision: the wrong set-up may be claimed only until
    /// each player has made this many moves (2005 B4: 3; 2017 A4.1.2, 2018 A.4.1, 2023
    /// A.5.1.2: 10); after that the game goes on.
    pub setup_claim_window: (Article, u32),
    /// A draw may be agreed only once both players have made at least one move (2017+
    /// 5.2.3); 2005 5.2c has no such minimum.
    pub draw_agreement_after_moves: Option<Article>,
    /// The clock times after an irregularity: those logged at the reinstated position
    /// (2005 6.14; 2017+ 7.1).
    pub clocks_after_irregularity: Article,
    /// The time-control check at a period's flag (2005 6.3; 2017+ 6.4).
    pub time_control_check: Article,
    /// The severity of a flag under reduced supervision in rapid and blitz: 2005 `claim`
    /// (B7: a flag counts only when a player claims it; the arbiter must not signal it, and
    /// the game goes on until then); 2017 `review` (A4.5 "may": the arbiter may call it); 2018 / 2023
    /// `intervene` (A.4.5 / A.5.5 "shall").
    pub reduced_flag_severity: Severity,
    /// Both flags down under reduced supervision in rapid and blitz: drawn (2005 B9). Later
    /// editions have no such clause.
    pub reduced_both_flags_draw: Option<Article>,
    /// Both flags down in standard play with the order unknown: the game goes on if it is
    /// not the last period, drawn in the last period (2005 6.12a / 6.12b). 2017+: only in
    /// Guideline III (III.3.1), which the daemon does not model: `None`.
    pub both_flags_continue_draw: Option<(Article, Article)>,
    /// The same under Guideline III when the event announced it (2017+ III.3.1.1 /
    /// III.3.1.2); `None` in 2005, where 6.12 applies always.
    pub guideline_iii_both_flags: Option<(Article, Article)>,
    pub illegal_move: Article,
    /// Capturing the opponent's king is not allowed (2005 1.2; 2017+ 1.4.1): it is an illegal
    /// move (2017 fn 104), raised as one and named.
    pub king_capture: Article,
    pub illegal_move_penalty: Article,
    pub press_without_move: Article,
    /// The penalty article of a press without a move, where it is counted on its own (2017).
    pub press_without_move_penalty: Option<Article>,
    /// Whether a press without a move is an offence at all (not in 2005).
    pub press_without_move_is_offence: bool,
    pub promotion_incomplete: Article,
    /// 2017+: the pawn left on the last rank becomes a queen (7.5.2); 2005: restore (7.4a).
    pub promotion_queen_stays: bool,
    pub touch_move: Article,
    /// The category boundaries, strict, on base + 60 × increment in ms (§2 of
    /// docs/laws-by-edition.md): blitz below the first, rapid below the second.
    pub blitz_below_ms: u64,
    pub rapid_below_ms: u64,
    /// An opponent's piece touched (must be captured if it can be: 2017+ 4.3.2, 2005 4.3b),
    /// or a piece adjusted by the player not on move (4.2.1; 2005 4.2).
    pub touch_opponent_piece: Article,
    /// 2005 B5 (and C2 for blitz): in rapid and blitz the arbiter rules on Article 4 (touch
    /// move, castling, promotion choice, two hands) only when a player claims.
    pub art4_on_claim_in_rapid_blitz: bool,
    pub castling_rook_first: Article,
    /// The king touched (moved) for a castling that is illegal: another king move is due,
    /// castling on the other side included (2005 4.4c / 4.6b; 2017+ 4.4.3 / 4.7.2).
    pub castling_illegal: Article,
    /// The promotion piece is chosen once it has touched the square (2017+ 4.4.4; 2005 4.4d).
    pub promotion_choice: Article,
    pub two_hands: Article,
    /// Whether a confirmed two-handed move is penalised and counted (2017 7.7, 2018+ 7.5.4);
    /// 2005 4.1 sets no penalty.
    pub two_hands_counted: bool,
    /// Reduced supervision (2017 A4 / B4, 2018 A.4 / B.4, 2023 A.5 / B.3): the article of
    /// the window in which an illegal move is still corrected (until the opponent has made
    /// his next move); 2005: B6 (rapid), and C3 for blitz in `reduced_window_blitz`.
    pub reduced_window: Article,
    /// Reduced supervision: an illegal position (both kings in check, a pawn on its last
    /// rank) still on the board after the next completed move is drawn (2017 A4.4, 2018
    /// A.4.4, 2023 A.5.4). 2005 has no such clause (rapid B6: restore; blitz: claim only).
    pub illegal_position_draw: Option<Article>,
    pub reduced_window_blitz: Article,
    /// 2017 A4.2: an illegal move seen or claimed inside the window loses at once.
    pub reduced_first_illegal_loses: bool,
    /// 2005: rapid and blitz are always under the B / C rules (no full supervision), and
    /// the arbiter rules on an illegal move only on a claim.
    pub rapid_blitz_claim_only: bool,
    /// Offences counted per article (2017 as printed: 7.5 / 7.7 / 7.8 separately) rather than
    /// together (2018+: every offence under 7.5.1–7.5.4 adds up).
    pub separate_counters: bool,
    /// How many completed illegal moves lose the game (fide-2005: the third).
    pub illegal_moves_to_lose: u32,
    /// "However, the game is drawn if the opponent cannot checkmate" on the losing offence.
    pub illegal_loss_draw_if_no_mate: bool,
    /// Time added to the opponent for an offence (ms), by category and supervision.
    pub penalty_ms_standard: u64,
    pub penalty_ms_rapid: u64,
    pub penalty_ms_blitz_full: u64,
    pub penalty_ms_blitz_reduced: u64,
}

pub use crate::edition::{Edition, UnknownEdition};

impl Edition {
    /// The articles and penalties of this edition.
    pub fn laws(self) -> &'static Laws {
        match self {
            Edition::Fide2005 => &FIDE_2005,
            Edition::Fide2017 => &FIDE_2017,
            Edition::Fide2018 => &FIDE_2018,
            Edition::Fide2023 => &FIDE_2023,
        }
    }
}

pub const EDITIONS: &[Laws] = &[FIDE_2023, FIDE_2018, FIDE_2017, FIDE_2005];

const FIDE_2023: Laws = Laws {
    name: "fide-2023",
    checkmate: Article::new("5.1.1"),
    stalemate: Article::new("5.2.1"),
    dead_position: Article::new("5.2.2"),
    fivefold: Some(Article::new("9.6.1")),
    fivefold_consecutive: false,
    seventy_five: Some(Article::new("9.6.2")),
    threefold_claim: Article::new("9.2.2"),
    threefold_claim_with_move: Article::new("9.2.1"),
    fifty_claim: Article::new("9.3.2"),
    fifty_claim_with_move: Article::new("9.3.1"),
    claim_lost_by_touch: Some(Article::new("9.4")),
    wrong_claim_penalty: Article::new("9.5.3"),
    wrong_claim_cuts_own_time: false,
    flag_fall: Article::new("6.9"),
    flag_considered_fallen: Article::new("6.8"),
    reduced_flag_claim: (Article::new("A.5.3"), false),
    clock_setting: Article::new("6.10.2"),
    setup_invalid: Article::new("7.2.1"),
    recording_exempt: (Article::new("8.4"), Article::new("8.5.1")),
    quickplay_claim: (Article::new("III.5"), true),
    setup_claim_window: (Article::new("A.5.1.2"), 10),
    draw_agreement_after_moves: Some(Article::new("5.2.3")),
    clocks_after_irregularity: Article::new("7.1"),
    time_control_check: Article::new("6.4"),
    reduced_flag_severity: Severity::Intervene,
    reduced_both_flags_draw: None,
    both_flags_continue_draw: None,
    guideline_iii_both_flags: Some((Article::new("III.3.1.1"), Article::new("III.3.1.2"))),
    illegal_move: Article::new("7.5.1"),
    king_capture: Article::new("1.4.1"),
    illegal_move_penalty: Article::new("7.5.5"),
    press_without_move: Article::new("7.5.3"),
    press_without_move_penalty: None,
    press_without_move_is_offence: true,
    promotion_incomplete: Article::new("7.5.2"),
    promotion_queen_stays: true,
    // A.1 / B.1: blitz 10 minutes or less, rapid more than 10 and less than 60.
    blitz_below_ms: 600_001,
    rapid_below_ms: 3_600_000,
    touch_move: Article::new("4.3.1"),
    touch_opponent_piece: Article::new("4.3.2 / 4.2.1"),
    art4_on_claim_in_rapid_blitz: false,
    castling_rook_first: Article::new("4.4.2"),
    castling_illegal: Article::new("4.4.3 / 4.7.2"),
    promotion_choice: Article::new("4.4.4"),
    two_hands: Article::new("7.5.4"),
    two_hands_counted: true,
    reduced_window: Article::new("A.5.2"),
    illegal_position_draw: Some(Article::new("A.5.4")),
    reduced_window_blitz: Article::new("A.5.2"),
    reduced_first_illegal_loses: false,
    rapid_blitz_claim_only: false,
    separate_counters: false,
    illegal_moves_to_lose: 2,
    illegal_loss_draw_if_no_mate: true,
    penalty_ms_standard: 120_000,
    // A.3: one minute in rapid; B.2 (full blitz) brings in only the competition rules,
    // so literally two minutes there: the Laws as printed, not a guess at the intent
    // (docs/decisions/D6-blitz-penalty-full-supervision-2023.md).
    penalty_ms_rapid: 60_000,
    penalty_ms_blitz_full: 120_000,
    penalty_ms_blitz_reduced: 60_000,
};

const FIDE_2018: Laws = Laws {
    name: "fide-2018",
    checkmate: Article::new("5.1.1"),
    stalemate: Article::new("5.2.1"),
    dead_position: Article::new("5.2.2"),
    fivefold: Some(Article::new("9.6.1")),
    fivefold_consecutive: false,
    seventy_five: Some(Article::new("9.6.2")),
    threefold_claim: Article::new("9.2.1.2"),
    threefold_claim_with_move: Article::new("9.2.1.1"),
    fifty_claim: Article::new("9.3.2"),
    fifty_claim_with_move: Article::new("9.3.1"),
    claim_lost_by_touch: Some(Article::new("9.4")),
    wrong_claim_penalty: Article::new("9.5.3"),
    wrong_claim_cuts_own_time: false,
    flag_fall: Article::new("6.9"),
    flag_considered_fallen: Article::new("6.8"),
    reduced_flag_claim: (Article::new("A.4.3"), false),
    clock_setting: Article::new("6.10.2"),
    setup_invalid: Article::new("7.2.1"),
    recording_exempt: (Article::new("8.4"), Article::new("8.5.1")),
    quickplay_claim: (Article::new("III.5"), true),
    setup_claim_window: (Article::new("A.4.1"), 10),
    draw_agreement_after_moves: Some(Article::new("5.2.3")),
    clocks_after_irregularity: Article::new("7.1"),
    time_control_check: Article::new("6.4"),
    reduced_flag_severity: Severity::Intervene,
    reduced_both_flags_draw: None,
    both_flags_continue_draw: None,
    guideline_iii_both_flags: Some((Article::new("III.3.1.1"), Article::new("III.3.1.2"))),
    illegal_move: Article::new("7.5.1"),
    king_capture: Article::new("1.4.1"),
    illegal_move_penalty: Article::new("7.5.5"),
    press_without_move: Article::new("7.5.3"),
    press_without_move_penalty: None,
    press_without_move_is_offence: true,
    promotion_incomplete: Article::new("7.5.2"),
    promotion_queen_stays: true,
    // A.1 / B.1, as 2023.
    blitz_below_ms: 600_001,
    rapid_below_ms: 3_600_000,
    touch_move: Article::new("4.3.1"),
    touch_opponent_piece: Article::new("4.3.2 / 4.2.1"),
    art4_on_claim_in_rapid_blitz: false,
    castling_rook_first: Article::new("4.4.2"),
    castling_illegal: Article::new("4.4.3 / 4.7.2"),
    promotion_choice: Article::new("4.4.4"),
    two_hands: Article::new("7.5.4"),
    two_hands_counted: true,
    reduced_window: Article::new("A.4.2"),
    illegal_position_draw: Some(Article::new("A.4.4")),
    reduced_window_blitz: Article::new("A.4.2"),
    reduced_first_illegal_loses: false,
    rapid_blitz_claim_only: false,
    separate_counters: false,
    illegal_moves_to_lose: 2,
    illegal_loss_draw_if_no_mate: true,
    penalty_ms_standard: 120_000,
    penalty_ms_rapid: 120_000,
    penalty_ms_blitz_full: 60_000,
    penalty_ms_blitz_reduced: 60_000,
};

const FIDE_2017: Laws = Laws {
    name: "fide-2017",
    checkmate: Article::new("5.1.1"),
    stalemate: Article::new("5.2.1"),
    dead_position: Article::new("5.2.2"),
    fivefold: Some(Article::new("9.6.1")),
    fivefold_consecutive: true,
    seventy_five: Some(Article::new("9.6.2")),
    threefold_claim: Article::new("9.2.1.2"),
    threefold_claim_with_move: Article::new("9.2.1.1"),
    fifty_claim: Article::new("9.3.2"),
    fifty_claim_with_move: Article::new("9.3.1"),
    claim_lost_by_touch: Some(Article::new("9.4")),
    wrong_claim_penalty: Article::new("9.5.3"),
    wrong_claim_cuts_own_time: false,
    flag_fall: Article::new("6.9"),
    flag_considered_fallen: Article::new("6.8"),
    reduced_flag_claim: (Article::new("A4.3"), true),
    clock_setting: Article::new("6.10.2"),
    setup_invalid: Article::new("7.2.1"),
    recording_exempt: (Article::new("8.4"), Article::new("8.5.1")),
    quickplay_claim: (Article::new("III.5"), true),
    setup_claim_window: (Article::new("A4.1.2"), 10),
    draw_agreement_after_moves: Some(Article::new("5.2.3")),
    clocks_after_irregularity: Article::new("7.1"),
    time_control_check: Article::new("6.4"),
    reduced_flag_severity: Severity::Review,
    reduced_both_flags_draw: None,
    both_flags_continue_draw: None,
    guideline_iii_both_flags: Some((Article::new("III.3.1.1"), Article::new("III.3.1.2"))),
    illegal_move: Article::new("7.5.1"),
    king_capture: Article::new("1.4.1"),
    illegal_move_penalty: Article::new("7.5.3"),
    press_without_move: Article::new("7.8.1"),
    press_without_move_penalty: Some(Article::new("7.8.2")),
    press_without_move_is_offence: true,
    promotion_incomplete: Article::new("7.5.2"),
    promotion_queen_stays: true,
    // A1 / B1 as printed in 2017: blitz less than 10 minutes, rapid 10 to 60 inclusive (the
    // English reading is a setting, `blitz_max_minutes`).
    blitz_below_ms: 600_000,
    rapid_below_ms: 3_600_001,
    touch_move: Article::new("4.3.1"),
    touch_opponent_piece: Article::new("4.3.2 / 4.2.1"),
    art4_on_claim_in_rapid_blitz: false,
    castling_rook_first: Article::new("4.4.2"),
    castling_illegal: Article::new("4.4.3 / 4.7.2"),
    promotion_choice: Article::new("4.4.4"),
    two_hands: Article::new("7.7.1"),
    two_hands_counted: true,
    reduced_window: Article::new("A4.2"),
    illegal_position_draw: Some(Article::new("A4.4")),
    reduced_window_blitz: Article::new("A4.2"),
    reduced_first_illegal_loses: true,
    rapid_blitz_claim_only: false,
    separate_counters: true,
    illegal_moves_to_lose: 2,
    illegal_loss_draw_if_no_mate: true,
    penalty_ms_standard: 120_000,
    penalty_ms_rapid: 120_000,
    penalty_ms_blitz_full: 60_000,
    penalty_ms_blitz_reduced: 60_000,
};

const FIDE_2005: Laws = Laws {
    name: "fide-2005",
    checkmate: Article::new("5.1a"),
    stalemate: Article::new("5.2a"),
    dead_position: Article::new("5.2b"),
    fivefold: None,
    fivefold_consecutive: false,
    seventy_five: None,
    threefold_claim: Article::new("9.2b"),
    threefold_claim_with_move: Article::new("9.2a"),
    fifty_claim: Article::new("9.3b"),
    fifty_claim_with_move: Article::new("9.3a"),
    claim_lost_by_touch: None,
    wrong_claim_penalty: Article::new("9.5b"),
    wrong_claim_cuts_own_time: true,
    flag_fall: Article::new("6.10"),
    flag_considered_fallen: Article::new("6.9"),
    reduced_flag_claim: (Article::new("B8"), false),
    clock_setting: Article::new("6.11"),
    setup_invalid: Article::new("7.1a"),
    recording_exempt: (Article::new("8.4a"), Article::new("8.5a")),
    quickplay_claim: (Article::new("10.2"), false),
    setup_claim_window: (Article::new("B4"), 3),
    draw_agreement_after_moves: None,
    clocks_after_irregularity: Article::new("6.14"),
    time_control_check: Article::new("6.3"),
    reduced_flag_severity: Severity::Claim,
    reduced_both_flags_draw: Some(Article::new("B9")),
    both_flags_continue_draw: Some((Article::new("6.12a"), Article::new("6.12b"))),
    guideline_iii_both_flags: None,
    illegal_move: Article::new("7.4a"),
    king_capture: Article::new("1.2"),
    illegal_move_penalty: Article::new("7.4b"),
    // No such offence in 2005: the completion rule is cited, the arbiter decides (13.4).
    press_without_move: Article::new("6.8a"),
    press_without_move_penalty: None,
    press_without_move_is_offence: false,
    promotion_incomplete: Article::new("7.4a"),
    promotion_queen_stays: false,
    // B1 / C1: blitz under 15 minutes, rapid 15 to under 60.
    blitz_below_ms: 900_000,
    rapid_below_ms: 3_600_000,
    touch_move: Article::new("4.3a"),
    touch_opponent_piece: Article::new("4.3b / 4.2"),
    art4_on_claim_in_rapid_blitz: true,
    castling_rook_first: Article::new("4.4b"),
    castling_illegal: Article::new("4.4c / 4.6b"),
    promotion_choice: Article::new("4.4d"),
    two_hands: Article::new("4.1"),
    two_hands_counted: false,
    reduced_window: Article::new("B6"),
    illegal_position_draw: None,
    reduced_window_blitz: Article::new("C3"),
    reduced_first_illegal_loses: false,
    rapid_blitz_claim_only: true,
    separate_counters: false,
    illegal_moves_to_lose: 3,
    illegal_loss_draw_if_no_mate: false,
    penalty_ms_standard: 120_000,
    penalty_ms_rapid: 120_000,
    // Blitz (C3): a claimed illegal move wins, no time is added.
    penalty_ms_blitz_full: 0,
    penalty_ms_blitz_reduced: 0,
};

/// The two readings of the fivefold rule (9.6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FivefoldReading {
    /// The position stood five times in a row, every second move by each player.
    Consecutive,
    /// The position stood five times at any moments of the game.
    AnyFive,
}

/// The edition's Laws with the fivefold reading configured (9.6.1, worded differently by
/// edition; docs/decisions/D2-fivefold-wording-2017.md): the choice matters only in the
/// editions that have the rule.
pub fn edition_with(edition: Edition, fivefold: Option<FivefoldReading>) -> Laws {
    let mut ed = edition.laws().clone();
    if let Some(reading) = fivefold {
        ed.fivefold_consecutive = reading == FivefoldReading::Consecutive;
    }
    ed
}

/// A game end that happened by rule with the move just made.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEnd {
    pub kind: AlertKind,
    pub reason: EndReason,
    pub result: GameResult,
    pub article: Article,
    pub message: String,
}

pub use crate::reconstruct::repetition_key;

/// How often the current position has stood on the board in this game (including now).
pub fn occurrences(game: &Game) -> usize {
    let (current, earlier) = split_current(game);
    occurrences_in(earlier, current)
}

/// The repetition keys of the game's current position and of the positions before it.
fn split_current(game: &Game) -> (u64, &[u64]) {
    let (current, earlier) = game
        .repetition_keys()
        .split_last()
        .expect("a game always has its start position");
    (*current, earlier)
}

/// [`occurrences`] of the position keyed `current` after the positions keyed `earlier` (a
/// game's history).
fn occurrences_in(earlier: &[u64], current: u64) -> usize {
    1 + earlier.iter().filter(|&&k| k == current).count()
}

/// Fivefold repetition (9.6.1): any five occurrences, or — 2017 as printed — the same
/// position after five consecutive alternate moves by each player (plies p, p−4, … p−16).
pub fn fivefold(game: &Game, consecutive: bool) -> bool {
    let (current, earlier) = split_current(game);
    fivefold_in(earlier, current, consecutive)
}

/// [`fivefold`] of the position keyed `current` after the positions keyed `earlier`.
fn fivefold_in(earlier: &[u64], current: u64, consecutive: bool) -> bool {
    if !consecutive {
        return occurrences_in(earlier, current) >= 5;
    }
    // Plies p−4, p−8, p−12, p−16 of the game whose ply p is `current`.
    let n = earlier.len() + 1;
    if n < 17 {
        return false;
    }
    (1..5).all(|k| earlier[n - 1 - 4 * k] == current)
}

/// Checks the game ends the Laws apply at the move made: checkmate, stalemate, dead position
/// (insufficient material — the full dead-position analysis is separate), fivefold
/// repetition and the 75-move rule.
pub fn end_by_rule(game: &Game, ed: &Laws) -> Option<RuleEnd> {
    let (_, earlier) = split_current(game);
    end_by_rule_on(earlier, game.current(), game.castling_mode, ed)
}

/// [`end_by_rule`] as if `next` (the position after a legal move) were pushed onto `game`:
/// whether a move would end the game, asked without copying the game.
pub fn end_by_rule_after(game: &Game, next: &Chess, ed: &Laws) -> Option<RuleEnd> {
    end_by_rule_on(game.repetition_keys(), next, game.castling_mode, ed)
}

/// The ends of [`end_by_rule`] at `pos`, reached after the positions whose repetition keys
/// are `earlier`.
fn end_by_rule_on(
    earlier: &[u64],
    pos: &Chess,
    castling_mode: CastlingMode,
    ed: &Laws,
) -> Option<RuleEnd> {
    let mover = !pos.turn();
    // Judged on the legal moves without king captures (a position after an illegal move that
    // stood may leave the side not to move in check; 1.4.1).
    let no_move = crate::reconstruct::legal_moves(pos).is_empty();
    if no_move && pos.is_check() {
        return Some(RuleEnd {
            kind: AlertKind::Checkmate,
            reason: EndReason::Checkmate,
            result: GameResult::win_for(mover),
            article: ed.checkmate,
            message: format!("{} is checkmated: the game is over.", side_name(pos.turn())),
        });
    }
    if no_move && !pos.is_check() {
        return Some(RuleEnd {
            kind: AlertKind::Stalemate,
            reason: EndReason::Stalemate,
            result: GameResult::Drawn,
            article: ed.stalemate,
            message: format!(
                "{} is stalemated: the game is drawn.",
                side_name(pos.turn())
            ),
        });
    }
    if crate::dead::is_dead(pos, castling_mode) == crate::dead::MateAbility::CannotMate {
        return Some(RuleEnd {
            kind: AlertKind::DeadPosition,
            reason: EndReason::DeadPosition,
            result: GameResult::Drawn,
            article: ed.dead_position,
            message: "Neither player can checkmate by any series of legal moves: the game is drawn (dead position).".into(),
        });
    }
    if let Some(article) = ed.fivefold
        && fivefold_in(earlier, repetition_key(pos), ed.fivefold_consecutive)
    {
        return Some(RuleEnd {
            kind: AlertKind::FivefoldRepetition,
            reason: EndReason::FivefoldRepetition,
            result: GameResult::Drawn,
            article,
            message: "The same position has appeared for the fifth time: the game is drawn.".into(),
        });
    }
    if let Some(article) = ed.seventy_five
        && pos.halfmoves() >= 150
    {
        return Some(RuleEnd {
            kind: AlertKind::SeventyFiveMoveRule,
            reason: EndReason::SeventyFiveMoveRule,
            result: GameResult::Drawn,
            article,
            message: "75 moves by each player without a pawn move or capture: the game is drawn."
                .into(),
        });
    }
    None
}

/// The severity an end by rule has: `info`, with the result. The game is over at the move
/// (6.2.1.1; 5.1.1, 5.2.1, 5.2.2, 9.6): nothing needs the arbiter unless play goes on, which
/// is `move_after_game_end` at `intervene`.
pub fn end_severity() -> Severity {
    Severity::Info
}

pub use crate::verdict::side_name;

/// The edition's Laws as the edition's name and the fivefold reading applied to it
/// (`arbiter::edition_with`): the tables themselves are the program's.
pub(crate) struct LawsAs;

impl serde_with::SerializeAs<Laws> for LawsAs {
    fn serialize_as<S: serde::Serializer>(l: &Laws, s: S) -> Result<S::Ok, S::Error> {
        (l.name, l.fivefold_consecutive).serialize(s)
    }
}

impl<'de> serde_with::DeserializeAs<'de, Laws> for LawsAs {
    fn deserialize_as<D: serde::Deserializer<'de>>(d: D) -> Result<Laws, D::Error> {
        let (name, consecutive) = <(String, bool)>::deserialize(d)?;
        let edition: crate::edition::Edition = name
            .parse()
            .map_err(<D::Error as serde::de::Error>::custom)?;
        let mut laws = edition.laws().clone();
        laws.fivefold_consecutive = consecutive;
        Ok(laws)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::uci::UciMove;

    fn game(ucis: &[&str]) -> Game {
        let mut g = Game::new("g".into(), Chess::default(), CastlingMode::Standard);
        for u in ucis {
            let m = u.parse::<UciMove>().unwrap().to_move(g.current()).unwrap();
            g.push(m, 0, (None, None));
        }
        g
    }

    #[test]
    fn fools_mate_is_checkmate() {
        let g = game(&["f2f3", "e7e5", "g2g4", "d8h4"]);
        let end = end_by_rule(&g, Edition::Fide2023.laws()).unwrap();
        assert_eq!(end.kind, AlertKind::Checkmate);
        assert_eq!(end.result, GameResult::BlackWins);
    }

    #[test]
    fn fivefold_only_where_the_edition_has_it() {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut moves = Vec::new();
        for _ in 0..4 {
            moves.extend(shuffle);
        }
        let g = game(&moves);
        assert_eq!(occurrences(&g), 5);
        assert_eq!(
            end_by_rule(&g, Edition::Fide2018.laws()).unwrap().kind,
            AlertKind::FivefoldRepetition
        );
        assert!(end_by_rule(&g, Edition::Fide2005.laws()).is_none());
    }

    /// Asking whether a move would end the game, without pushing it, gives the same end as
    /// pushing it: checkmate (Fool's mate) and both fivefold rules (9.6.1) at the last move.
    #[test]
    fn the_end_a_move_would_bring_is_the_end_it_brings() {
        let mut shuffle = Vec::new();
        for _ in 0..4 {
            shuffle.extend(["g1f3", "g8f6", "f3g1", "f6g8"]);
        }
        for ucis in [&["f2f3", "e7e5", "g2g4", "d8h4"][..], &shuffle[..]] {
            let (last, before) = ucis.split_last().unwrap();
            let g = game(before);
            let m = last
                .parse::<UciMove>()
                .unwrap()
                .to_move(g.current())
                .unwrap();
            let whole = game(ucis);
            for ed in [
                Edition::Fide2023,
                Edition::Fide2018,
                Edition::Fide2017,
                Edition::Fide2005,
            ] {
                let asked = end_by_rule_after(&g, &g.position_after(m), ed.laws());
                let pushed = end_by_rule(&whole, ed.laws());
                assert!(pushed.is_some() || ed == Edition::Fide2005);
                assert_eq!(asked.map(|e| e.kind), pushed.map(|e| e.kind));
            }
            assert!(end_by_rule(&g, Edition::Fide2023.laws()).is_none());
        }
    }

    #[test]
    fn threefold_claims_now_and_with_a_written_move() {
        // Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1: Black may claim by writing Ng8 (third occurrence).
        let g = game(&["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]);
        let ed = Edition::Fide2023.laws();
        let c = claims_available(&g, ed);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].with_move.as_deref(), Some("Ng8"));
        assert_eq!(c[0].earlier_plies, vec![0, 4]);
        assert!(check_claim(&g, ed, Some("f6g8")).0);
        assert!(check_claim(&g, ed, Some("Ng8")).0);
        assert!(!check_claim(&g, ed, Some("e7e5")).0);
        assert!(!check_claim(&g, ed, None).0);
        let g = game(&[
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
        ]);
        assert!(check_claim(&g, ed, None).0);
        assert_eq!(claims_available(&g, ed)[0].with_move, None);
    }

    #[test]
    fn editions_parse_by_name_and_refuse_unknown_names() {
        for e in Edition::ALL {
            assert_eq!(e.name().parse::<Edition>(), Ok(e));
            assert_eq!(
                serde_json::to_string(&e).unwrap(),
                format!("\"{}\"", e.name())
            );
        }
        assert_eq!(Edition::default().name(), "fide-2023");
        let err = "fide-2024".parse::<Edition>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown edition of the Laws \"fide-2024\": use one of fide-2005, fide-2017, \
             fide-2018, fide-2023"
        );
        let refused = serde_json::from_str::<Edition>("\"2018\"").unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("unknown edition of the Laws \"2018\""),
            "{refused}"
        );
    }
}

/// A draw claim the player to move could make correctly (9.2, 9.3).
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimAvailable {
    pub kind: AlertKind,
    pub article: Article,
    /// The move the claimant must write down (not play), when the claim needs one.
    pub with_move: Option<String>,
    /// For a repetition: the plies at which the position stood before (1-based, 0 = start).
    pub earlier_plies: Vec<usize>,
    pub message: String,
}

/// Plies (0 = start) at which `pos` stood in the game before ply `before`, by 9.2 identity.
fn earlier_occurrences(game: &Game, pos: &Chess, before: usize) -> Vec<usize> {
    earlier_in(game.repetition_keys(), pos, before)
}

fn earlier_in(keys: &[u64], pos: &Chess, before: usize) -> Vec<usize> {
    let key = repetition_key(pos);
    (0..before.min(keys.len()))
        .filter(|&i| keys[i] == key)
        .collect()
}

/// The claims the player to move could make now or with a stated move: threefold
/// repetition (9.2) and fifty moves (9.3), counted as moves by both players.
pub fn claims_available(game: &Game, ed: &Laws) -> Vec<ClaimAvailable> {
    let pos = game.current();
    let n = game.plies();
    let who = side_name(pos.turn());
    let mut out = Vec::new();
    let keys = game.repetition_keys();
    let now = earlier_in(keys, pos, n);
    if now.len() >= 2 {
        out.push(ClaimAvailable {
            kind: AlertKind::ThreefoldRepetitionAvailable,
            article: ed.threefold_claim,
            with_move: None,
            earlier_plies: now.clone(),
            message: format!(
                "{who} may claim a draw: this position stands for the third time (earlier at plies {}).",
                join(&now)
            ),
        });
    } else {
        // A move makes a position stand for the third time only if it stood twice already:
        // the moves are tried only when some position did (most moves of most games, none).
        let mut sorted = keys.to_vec();
        sorted.sort_unstable();
        let twice: Vec<u64> = sorted
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        let moves = if twice.is_empty() {
            shakmaty::MoveList::new()
        } else {
            crate::reconstruct::legal_moves(pos)
        };
        for m in moves {
            let mut next = pos.clone();
            next.play_unchecked(m);
            if twice.binary_search(&repetition_key(&next)).is_err() {
                continue;
            }
            let before = earlier_in(keys, &next, n + 1);
            if before.len() >= 2 {
                let san = shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string();
                out.push(ClaimAvailable {
                    kind: AlertKind::ThreefoldRepetitionAvailable,
                    article: ed.threefold_claim_with_move,
                    with_move: Some(san.clone()),
                    earlier_plies: before.clone(),
                    message: format!(
                        "{who} may claim a draw by writing {san} (not playing it): the position would stand for the third time (earlier at plies {}).",
                        join(&before)
                    ),
                });
                break;
            }
        }
    }
    let halfmoves = pos.halfmoves();
    // A game set up from a FEN may carry a count that began before its first ply.
    let since = n.saturating_sub(halfmoves as usize);
    if halfmoves >= 100 {
        out.push(ClaimAvailable {
            kind: AlertKind::FiftyMoveRuleAvailable,
            article: ed.fifty_claim,
            with_move: None,
            earlier_plies: vec![since],
            message: format!(
                "{who} may claim a draw: the last 50 moves by each player had no pawn move and no capture (since ply {since})."
            ),
        });
    } else if halfmoves == 99
        && let Some(m) = crate::reconstruct::legal_moves(pos)
            .into_iter()
            .find(|m| !m.is_zeroing())
    {
        let san = shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string();
        out.push(ClaimAvailable {
            kind: AlertKind::FiftyMoveRuleAvailable,
            article: ed.fifty_claim_with_move,
            with_move: Some(san.clone()),
            earlier_plies: vec![since],
            message: format!(
                "{who} may claim a draw by writing a move without a capture or pawn move (e.g. {san}): it completes 50 moves by each player."
            ),
        });
    }
    out
}

fn join(plies: &[usize]) -> String {
    plies
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The arbiter's claim checker: is a draw claim correct in this game, now or with the
/// intended move (UCI or SAN)? Returns the verdict and the evidence.
pub fn check_claim(game: &Game, ed: &Laws, intended: Option<&str>) -> (bool, String) {
    let pos = game.current();
    let mut target = pos.clone();
    let mut after_ply = game.plies();
    if let Some(text) = intended {
        let parsed = text
            .parse::<shakmaty::uci::UciMove>()
            .ok()
            .and_then(|u| u.to_move(pos).ok())
            .or_else(|| {
                text.parse::<shakmaty::san::San>()
                    .ok()
                    .and_then(|s| s.to_move(pos).ok())
            });
        let Some(m) = parsed else {
            return (false, format!("{text} is not a legal move here."));
        };
        target.play_unchecked(m);
        after_ply += 1;
    }
    // Plies 0..=n for a stated move (the current position included), 0..n otherwise.
    let earlier = earlier_occurrences(game, &target, after_ply.min(game.plies() + 1));
    let earlier: Vec<usize> = earlier.into_iter().filter(|&p| p != after_ply).collect();
    if earlier.len() >= 2 {
        return (
            true,
            format!(
                "Correct ({}): the position stands for the third time; earlier at plies {}.",
                if intended.is_some() {
                    ed.threefold_claim_with_move
                } else {
                    ed.threefold_claim
                },
                join(&earlier)
            ),
        );
    }
    if target.halfmoves() >= 100 {
        return (
            true,
            format!(
                "Correct ({}): 50 moves by each player without a pawn move or capture, since ply {}.",
                if intended.is_some() {
                    ed.fifty_claim_with_move
                } else {
                    ed.fifty_claim
                },
                after_ply.saturating_sub(target.halfmoves() as usize)
            ),
        );
    }
    (
        false,
        format!(
            "Incorrect: the position stood {} time(s) before; {} moves by each player since the last pawn move or capture.",
            earlier.len(),
            target.halfmoves() / 2
        ),
    )
}
