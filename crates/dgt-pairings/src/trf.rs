//! The FIDE Tournament Report File (TRF, the 2006/2016 layout every pairing program
//! exchanges): one round's pairings read from it, and the round's results written back.
//!
//! A player line starts with `001` and has fixed columns (1-based, inclusive):
//!
//! | columns | field |
//! |---|---|
//! | 5–8 | start number |
//! | 10 | sex (`m`/`w`) |
//! | 11–13 | title |
//! | 15–47 | name, "Lastname, Firstname" |
//! | 49–52 | FIDE rating |
//! | 54–56 | federation |
//! | 58–68 | FIDE id |
//! | 70–79 | birth date |
//! | 81–84 | points |
//! | 86–89 | rank |
//! | 92–101, 102–111, … | one 10-column block per round: opponent's start number (4 columns, `0000` for none), a space, colour (`w`, `b`, `-`), a space, result, two spaces |
//!
//! Result codes: `1` `0` `=` (win, loss, draw), `+` `-` (forfeit win, loss), `W` `D` `L`
//! (win, draw, loss not rated), `H` half-point bye, `F` full-point bye, `U` pairing-allocated
//! bye, `Z` zero-point bye; blank while the game is not played. Line `012` names the
//! tournament, line `132` gives each round's date (`YY/MM/DD`) in the same round columns.
//!
//! The TRF has no board numbers. Tables are numbered in the order the pairs appear in the
//! file, by the line of the White player ([`BoardOrder::WhiteLine`], the default) or by the
//! first line of either player ([`BoardOrder::FirstLine`], for files sorted by standings),
//! or as pairing programs number boards, by the points and ranks the file gives
//! ([`BoardOrder::Points`]). For exact board numbers import the pairing program's pairing
//! list (CSV) instead, which has a table column.
//!
//! A player line that ends before a round's block is a blank round (TRF-16): not paired.

use std::collections::BTreeMap;

use dgt_core::pairing::{Bye, Pairing, Player, RoundPairings};

use crate::problems::Problems;

/// How tables are numbered from a TRF (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BoardOrder {
    #[default]
    WhiteLine,
    FirstLine,
    /// As pairing programs number boards (FIDE C.04 Swiss): the pair with the higher score
    /// of its better-scored player first, then the higher sum of scores, then the better rank
    /// of its higher-ranked player — points and ranks as the file gives them (columns
    /// 81-84, 86-89; a blank rank is the start number).
    Points,
}

/// A board order that is neither `white-line` nor `first-line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownBoardOrder(pub String);

impl std::fmt::Display for UnknownBoardOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown board order {:?}; use \"white-line\", \"first-line\" or \"points\"",
            self.0
        )
    }
}

impl std::error::Error for UnknownBoardOrder {}

impl std::str::FromStr for BoardOrder {
    type Err = UnknownBoardOrder;
    fn from_str(s: &str) -> Result<Self, UnknownBoardOrder> {
        match s {
            "white-line" | "white_line" => Ok(BoardOrder::WhiteLine),
            "first-line" | "first_line" => Ok(BoardOrder::FirstLine),
            "points" | "pairing-program" | "pairing_program" => Ok(BoardOrder::Points),
            other => Err(UnknownBoardOrder(other.to_string())),
        }
    }
}

/// Whether the text looks like a TRF: a player line `001` (or the tournament line `012`).
pub fn looks_like_trf(text: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with("001 ") || l.starts_with("012 "))
}

/// One round's entry of a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundEntry {
    /// `None` for `0000` or blank.
    pub opponent: Option<u32>,
    pub colour: char,
    pub result: char,
}

/// A player line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrfPlayer {
    /// The line in the file (1 and up).
    pub line: usize,
    pub player: Player,
    pub start: u32,
    /// Points in tenths (columns 81-84: "1.5" is 15), when given.
    pub points_tenths: Option<u32>,
    /// Rank (columns 86-89), when given.
    pub rank: Option<u32>,
    /// The round entries present on the line, round 1 first.
    pub rounds: Vec<Option<RoundEntry>>,
}

/// The first column (0-based) of round `round`'s block.
fn block_start(round: u32) -> usize {
    91 + 10 * (round as usize - 1)
}

fn field(chars: &[char], from: usize, to: usize) -> String {
    chars
        .get(from..to.min(chars.len()))
        .unwrap_or(&[])
        .iter()
        .collect::<String>()
        .trim()
        .to_string()
}

fn optional_number<T: std::str::FromStr>(
    text: &str,
    line: usize,
    what: &str,
    columns: &str,
    problems: &mut Problems,
) -> Option<T> {
    if text.is_empty() {
        return None;
    }
    match text.parse() {
        Ok(n) => Some(n),
        Err(_) => {
            problems.at(
                line,
                format!("the {what} {text:?} (columns {columns}) is not a number"),
                format!("write the {what} as digits in columns {columns}, or leave them blank"),
            );
            None
        }
    }
}

const RESULT_CODES: &str = "10=+-WDLHFUZ ";

fn round_entry(
    chars: &[char],
    round: u32,
    line: usize,
    problems: &mut Problems,
) -> Option<RoundEntry> {
    let s = block_start(round);
    if chars.len() <= s {
        return None;
    }
    let opp = field(chars, s, s + 4);
    let colour = chars.get(s + 5).copied().unwrap_or(' ');
    let result = chars.get(s + 7).copied().unwrap_or(' ');
    let cols = format!("{}-{}", s + 1, s + 8);
    let opponent = match opp.as_str() {
        "" | "0000" | "0" => None,
        n => match n.parse::<u32>() {
            Ok(0) => None,
            Ok(n) => Some(n),
            Err(_) => {
                problems.at(
                    line,
                    format!("round {round}: the opponent {opp:?} (columns {cols}) is not a start number"),
                    "write the opponent's start number right-aligned in the block's first 4 columns (0000 for none)",
                );
                None
            }
        },
    };
    if !matches!(colour, 'w' | 'b' | '-' | ' ') {
        problems.at(
            line,
            format!(
                "round {round}: colour {colour:?} (column {}) is not w, b or -",
                s + 6
            ),
            "write w (White), b (Black) or - (no game)",
        );
    }
    if !RESULT_CODES.contains(result) {
        problems.at(
            line,
            format!(
                "round {round}: result code {result:?} (column {}) is not a TRF result",
                s + 8
            ),
            "use one of 1 0 = + - W D L H F U Z, or a blank before the game is played",
        );
    }
    Some(RoundEntry {
        opponent,
        colour,
        result,
    })
}

/// Reads every player line (`001`), with their problems.
pub fn players(text: &str, problems: &mut Problems) -> Vec<TrfPlayer> {
    let mut out: Vec<TrfPlayer> = Vec::new();
    let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if !raw.starts_with("001") {
            continue;
        }
        let chars: Vec<char> = raw.trim_end_matches('\r').chars().collect();
        let start_text = field(&chars, 4, 8);
        let Ok(start) = start_text.parse::<u32>() else {
            problems.at(
                line,
                format!("the start number {start_text:?} (columns 5-8) is not a number"),
                "write the player's start number right-aligned in columns 5-8",
            );
            continue;
        };
        if let Some(first) = seen.insert(start, line) {
            problems.at(
                line,
                format!("start number {start} is already used on line {first}"),
                "give every player line its own start number",
            );
        }
        let name = field(&chars, 14, 47);
        if name.is_empty() {
            problems.at(
                line,
                format!("player {start} has no name (columns 15-47)"),
                "write the name as \"Lastname, Firstname\" in columns 15-47",
            );
        }
        let rating: Option<u32> =
            optional_number(&field(&chars, 48, 52), line, "rating", "49-52", problems);
        let fide_id: Option<u64> =
            optional_number(&field(&chars, 57, 68), line, "FIDE id", "58-68", problems);
        let text_or_none = |s: String| (!s.is_empty()).then_some(s);
        let player = Player {
            name,
            start_number: Some(start),
            fide_id: fide_id.filter(|&id| id != 0),
            rating: rating.filter(|&r| r != 0),
            title: text_or_none(field(&chars, 10, 13)),
            federation: text_or_none(field(&chars, 53, 56)),
            sex: text_or_none(field(&chars, 9, 10)),
        };
        let points_tenths = points_tenths(&field(&chars, 80, 84), line, problems);
        let rank: Option<u32> =
            optional_number(&field(&chars, 85, 89), line, "rank", "86-89", problems);
        let mut rounds = Vec::new();
        let mut round = 1;
        while chars.len() > block_start(round) {
            rounds.push(round_entry(&chars, round, line, problems));
            round += 1;
        }
        out.push(TrfPlayer {
            line,
            player,
            start,
            points_tenths,
            rank,
            rounds,
        });
    }
    out
}

/// Points as written in columns 81-84 ("1.5", "2", "1,5"), in tenths.
fn points_tenths(text: &str, line: usize, problems: &mut Problems) -> Option<u32> {
    if text.is_empty() {
        return None;
    }
    let (whole, tenth) = match text.split_once(['.', ',']) {
        Some((w, t)) => (w, t),
        None => (text, "0"),
    };
    match (
        whole.parse::<u32>(),
        tenth.get(..1).unwrap_or("0").parse::<u32>(),
    ) {
        (Ok(w), Ok(t)) if tenth.bytes().all(|b| b.is_ascii_digit()) => Some(w * 10 + t),
        _ => {
            problems.at(
                line,
                format!("the points {text:?} (columns 81-84) are not a number"),
                "write the points as in 1.5 in columns 81-84, or leave them blank",
            );
            None
        }
    }
}

/// The date of `round` from line `132` ("YY/MM/DD" → "20YY.MM.DD"), and the tournament's
/// name from line `012`.
fn round_date_and_event(text: &str, round: u32) -> (Option<String>, Option<String>) {
    let mut date = None;
    let mut event = None;
    for raw in text.lines() {
        let chars: Vec<char> = raw.trim_end_matches('\r').chars().collect();
        if raw.starts_with("132") {
            let s = block_start(round);
            let d = field(&chars, s, s + 8);
            let parts: Vec<&str> = d.split(['/', '.', '-']).collect();
            if let [y, m, dd] = parts.as_slice()
                && [y, m, dd]
                    .iter()
                    .all(|p| p.bytes().all(|b| b.is_ascii_digit()))
            {
                let year = if y.len() == 2 {
                    format!("20{y}")
                } else {
                    y.to_string()
                };
                date = Some(format!("{year}.{m:0>2}.{dd:0>2}"));
            }
        } else if raw.starts_with("012") {
            let name = field(&chars, 4, chars.len());
            if !name.is_empty() {
                event = Some(name);
            }
        }
    }
    (date, event)
}

/// Round `round`'s pairings from a TRF, every problem at once.
pub fn read(text: &str, round: u32, order: BoardOrder) -> Result<RoundPairings, Problems> {
    let mut problems = Problems::default();
    if round == 0 {
        problems.whole(
            "round 0 does not exist",
            "rounds are numbered from 1: give --round 1 or later",
        );
        return Err(problems);
    }
    let players = players(text, &mut problems);
    if players.is_empty() {
        problems.whole(
            "the file has no player lines (lines starting with 001)",
            "export the tournament from the pairing program as a FIDE TRF file",
        );
        return problems.or(RoundPairings::default());
    }
    let r = round as usize - 1;
    if players
        .iter()
        .all(|p| p.rounds.get(r).copied().flatten().is_none())
    {
        problems.whole(
            format!("no player has an entry for round {round}"),
            format!("pair round {round} in the pairing program, then export the TRF again"),
        );
        return problems.or(RoundPairings::default());
    }
    // A start number used twice is reported above; the first line keeps it.
    let mut by_start: BTreeMap<u32, &TrfPlayer> = BTreeMap::new();
    for p in &players {
        by_start.entry(p.start).or_insert(p);
    }
    // (order key, table pairing)
    let mut pairs: Vec<((u32, u32, u32, usize), Pairing)> = Vec::new();
    let mut byes = Vec::new();
    for p in &players {
        // A line that ends before the round's block is a blank round (TRF-16: `0000`, no
        // colour, no result): the player is not paired — neither a problem nor a bye.
        let Some(entry) = p.rounds.get(r).copied().flatten() else {
            continue;
        };
        let Some(opp) = entry.opponent else {
            // No opponent: a bye (its code), or not paired at all (blank result).
            if entry.result != ' ' {
                byes.push(Bye {
                    player: p.player.clone(),
                    code: entry.result,
                });
            }
            continue;
        };
        let Some(other) = by_start.get(&opp) else {
            problems.at(
                p.line,
                format!(
                    "round {round}: player {} is paired with start number {opp}, which has no player line",
                    p.start
                ),
                "correct the opponent's start number, or add the opponent's 001 line",
            );
            continue;
        };
        let back = other.rounds.get(r).copied().flatten();
        if back.and_then(|b| b.opponent) != Some(p.start) {
            problems.at(
                p.line,
                format!(
                    "round {round}: player {} plays {opp}, but player {opp} (line {}) does not play {}",
                    p.start, other.line, p.start
                ),
                "make both players' round entries name each other",
            );
            continue;
        }
        let their_colour = back.map_or(' ', |b| b.colour);
        match (entry.colour, their_colour) {
            ('w', 'b') => {
                let key = match order {
                    BoardOrder::WhiteLine => (0, 0, 0, p.line),
                    BoardOrder::FirstLine => (0, 0, 0, p.line.min(other.line)),
                    BoardOrder::Points => {
                        let pts = |x: &TrfPlayer| x.points_tenths.unwrap_or(0);
                        let rank = |x: &TrfPlayer| x.rank.unwrap_or(x.start);
                        (
                            u32::MAX - pts(p).max(pts(other)),
                            u32::MAX - (pts(p) + pts(other)),
                            rank(p).min(rank(other)),
                            p.line,
                        )
                    }
                };
                pairs.push((
                    key,
                    Pairing {
                        table: 0,
                        white: p.player.clone(),
                        black: other.player.clone(),
                    },
                ));
            }
            ('b', 'w') => {}
            (mine, theirs) => {
                // Reported once, from the lower start number.
                if p.start < opp {
                    problems.at(
                        p.line,
                        format!(
                            "round {round}: players {} and {opp} have colours {mine:?} and {theirs:?}",
                            p.start
                        ),
                        "give one player w and the other b",
                    );
                }
            }
        }
    }
    pairs.sort_by_key(|(key, _)| *key);
    let tables = pairs
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut p))| {
            p.table = i as u32 + 1;
            p
        })
        .collect();
    let (date, event) = round_date_and_event(text, round);
    problems.or(RoundPairings {
        round,
        date,
        event,
        tables,
        byes,
        format: Some("trf".into()),
        trf: Some(text.to_string()),
        encoding: None,
    })
}

/// The TRF codes of a table result for White and Black: `1-0` → (`1`, `0`), forfeits `+-`,
/// games not rated `1-0u` → (`W`, `L`). `None` for anything else.
pub fn codes(result: &str) -> Option<(char, char)> {
    Some(match result {
        "1-0" => ('1', '0'),
        "0-1" => ('0', '1'),
        "1/2-1/2" => ('=', '='),
        "+-" => ('+', '-'),
        "-+" => ('-', '+'),
        "--" => ('-', '-'),
        "1-0u" => ('W', 'L'),
        "0-1u" => ('L', 'W'),
        "1/2-1/2u" => ('D', 'D'),
        _ => return None,
    })
}

/// The TRF with round `round`'s result codes written in for the given start numbers; every
/// other character (names, points, ranks, other rounds, line ends) as it was. The points and
/// ranks are left to the pairing program, which recomputes them when it reads the file.
pub fn with_results(text: &str, round: u32, codes: &BTreeMap<u32, char>) -> String {
    let pos = block_start(round) + 7;
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive('\n') {
        let (body, ending) = match piece.strip_suffix("\r\n") {
            Some(b) => (b, "\r\n"),
            None => match piece.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (piece, ""),
            },
        };
        let start = body
            .starts_with("001")
            .then(|| {
                let chars: Vec<char> = body.chars().collect();
                field(&chars, 4, 8).parse::<u32>().ok()
            })
            .flatten();
        match start.and_then(|s| codes.get(&s)) {
            Some(&code) => {
                let mut chars: Vec<char> = body.chars().collect();
                if chars.len() <= pos {
                    chars.resize(pos + 1, ' ');
                }
                chars[pos] = code;
                out.extend(chars);
            }
            None => out.push_str(body),
        }
        out.push_str(ending);
    }
    out
}
