//! A game as PGN: the seven-tag roster (unknown values as `?`), `FEN`/`SetUp` when the game
//! did not start from the initial position, and `{[%clk h:mm:ss]}` after every move that has
//! the mover's clock reading.

use std::fmt::Write;

use dgt_core::Side;
use dgt_core::event::EndReason;

use dgt_core::pairing::Pairing;

use crate::feed::enum_name;
use crate::hall::{GameRecord, STANDARD_START};

/// The comment before the first move of a game found under way (issue 35): its record
/// begins where the daemon found it.
pub const FOUND_UNDER_WAY_COMMENT: &str =
    "{Game found under way: the moves before this position were not seen.}";

/// `h:mm:ss` of a clock reading; seconds are truncated, as a clock display shows them.
pub fn clk(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

/// One tag; its value escaped as the PGN standard says (8.1.1), so a name from a pairing
/// file never ends the tag or the line early.
fn tag(out: &mut String, name: &str, value: &str) {
    let escaped = dgt_core::text::pgn_tag_value(value);
    let _ = writeln!(out, "[{name} \"{escaped}\"]");
}

/// The round and table a game was played at, for its tags.
#[derive(Debug, Clone, Copy)]
pub struct Paired<'a> {
    pub round: u32,
    pub pairing: &'a Pairing,
    /// The tournament's name and the round's date, when the pairings give them.
    pub event: Option<&'a str>,
    pub date: Option<&'a str>,
    /// The PGN `TimeControl` ("5400+30"), when the settings give it.
    pub time_control: Option<&'a str>,
    /// The table's result when the record says more than the game did: the arbiter's
    /// entry or a forfeit, as a PGN result.
    pub result: Option<&'a str>,
}

/// The game as PGN text, `site` naming the venue.
pub fn game_pgn(game: &GameRecord, site: &str) -> String {
    game_pgn_paired(game, site, None)
}

/// The game as PGN text with its pairing's tags: `Round "r.t"`, the players' names, FIDE
/// ids, ratings and titles (tags of the PGN standard and of lichess broadcasts).
pub fn game_pgn_paired(game: &GameRecord, site: &str, paired: Option<Paired<'_>>) -> String {
    let mut out = String::new();
    let result = game.result.clone().unwrap_or_else(|| "*".to_string());
    let Some(p) = paired else {
        tag(&mut out, "Event", "?");
        tag(&mut out, "Site", site);
        tag(&mut out, "Date", "????.??.??");
        tag(&mut out, "Round", "?");
        tag(&mut out, "White", "?");
        tag(&mut out, "Black", "?");
        tag(&mut out, "Result", &result);
        tag(&mut out, "Board", &game.board);
        tag(&mut out, "GameId", &game.id);
        return finish(out, game, result);
    };
    let result = p.result.map_or(result, str::to_string);
    let (white, black) = (&p.pairing.white, &p.pairing.black);
    tag(&mut out, "Event", p.event.unwrap_or("?"));
    tag(&mut out, "Site", site);
    tag(&mut out, "Date", p.date.unwrap_or("????.??.??"));
    tag(
        &mut out,
        "Round",
        &format!("{}.{}", p.round, p.pairing.table),
    );
    tag(&mut out, "White", &white.name);
    tag(&mut out, "Black", &black.name);
    tag(&mut out, "Result", &result);
    tag(&mut out, "Board", &game.board);
    if !game.id.is_empty() {
        tag(&mut out, "GameId", &game.id);
    }
    for (side, player) in [("White", white), ("Black", black)] {
        if let Some(id) = player.fide_id {
            tag(&mut out, &format!("{side}FideId"), &id.to_string());
        }
        if let Some(elo) = player.rating {
            tag(&mut out, &format!("{side}Elo"), &elo.to_string());
        }
        if let Some(title) = &player.title {
            tag(&mut out, &format!("{side}Title"), title);
        }
    }
    tag(&mut out, "TimeControl", p.time_control.unwrap_or("?"));
    finish(out, game, result)
}

/// The set-up and termination tags, then the movetext.
fn finish(mut out: String, game: &GameRecord, result: String) -> String {
    let start = game.start_fen.as_deref().unwrap_or(STANDARD_START);
    if start != STANDARD_START {
        tag(&mut out, "SetUp", "1");
        tag(&mut out, "FEN", start);
    }
    if let Some(reason) = game.reason {
        tag(&mut out, "Termination", termination(reason));
        tag(&mut out, "TerminationDetail", &enum_name(&reason));
    }
    out.push('\n');

    // Move numbers continue from the start position's full-move number and side to move.
    let fields: Vec<&str> = start.split_whitespace().collect();
    let black_first = fields.get(1) == Some(&"b");
    let first_number: u32 = fields.get(5).and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut movetext: Vec<String> = Vec::new();
    if game.found_under_way {
        movetext.push(FOUND_UNDER_WAY_COMMENT.to_string());
    }
    for (i, m) in game.moves.iter().enumerate() {
        let half = i as u32 + u32::from(black_first);
        let number = first_number + half / 2;
        let mut token = String::new();
        match m.side {
            Side::White => {
                let _ = write!(token, "{number}. ");
            }
            Side::Black if i == 0 => {
                let _ = write!(token, "{number}... ");
            }
            Side::Black => {}
        }
        token.push_str(&m.san);
        let reading = match m.side {
            Side::White => m.white_ms,
            Side::Black => m.black_ms,
        };
        if let Some(ms) = reading {
            let _ = write!(token, " {{[%clk {}]}}", clk(ms));
        }
        movetext.push(token);
    }
    movetext.push(result);
    out.push_str(&wrap(&movetext, 79));
    out.push('\n');
    out
}

/// The PGN `Termination` tag value for a reason.
fn termination(reason: EndReason) -> &'static str {
    match reason {
        EndReason::FlagFall | EndReason::BothFlagsFallen => "time forfeit",
        EndReason::Arbiter | EndReason::IllegalMove => "adjudication",
        _ => "normal",
    }
}

/// Joins tokens into lines of at most `width` characters (a token is never split).
fn wrap(tokens: &[String], width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for t in tokens {
        if line > 0 && line + 1 + t.len() > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(t);
        line += t.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_readings_as_h_mm_ss() {
        assert_eq!(clk(180_000), "0:03:00");
        assert_eq!(clk(5_400_999), "1:30:00");
        assert_eq!(clk(59_999), "0:00:59");
    }

    /// A game from `start` whose first move is Black's Kd8.
    fn king_to_d8(start: &str, black_ms: Option<u64>) -> GameRecord {
        let mut game = GameRecord::new("b/1", "b", Some(start.to_string()), 0);
        game.moves.push(crate::hall::MoveRecord {
            ply: 1,
            side: Side::Black,
            uci: "e8d8".into(),
            san: "Kd8".into(),
            fen: String::new(),
            white_ms: None,
            black_ms,
            t_ms: 0,
            seq: 1,
        });
        game
    }

    #[test]
    fn numbering_follows_the_start_position() {
        let game = king_to_d8("4k3/8/8/8/8/8/8/4K2R b K - 3 40", Some(61_000));
        let pgn = game_pgn(&game, "Hall");
        assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
        assert!(pgn.contains("\n40... Kd8 {[%clk 0:01:01]} *"), "{pgn}");
    }

    #[test]
    fn a_game_found_under_way_says_the_moves_before_were_not_seen() {
        let mut game = king_to_d8("4k3/8/8/8/8/8/8/4K2R b K - 0 1", None);
        game.found_under_way = true;
        let pgn = game_pgn(&game, "Hall");
        assert!(
            pgn.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 0 1\"]"),
            "{pgn}"
        );
        assert!(
            pgn.contains(&format!("\n\n{FOUND_UNDER_WAY_COMMENT} 1... Kd8\n*")),
            "{pgn}"
        );
    }
}
