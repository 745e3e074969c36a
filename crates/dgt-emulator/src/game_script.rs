//! The game the two humans play: a start position and moves in UCI, from a PGN, a list or a
//! seeded random game, plus scripted events (a flag fall) and the result if known.

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, Role};
use thiserror::Error;

use crate::prng::Prng;

/// Who won, as the players would report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameOutcome {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameOutcome {
    pub fn pgn(self) -> &'static str {
        match self {
            GameOutcome::WhiteWins => "1-0",
            GameOutcome::BlackWins => "0-1",
            GameOutcome::Draw => "1/2-1/2",
        }
    }
    pub fn from_pgn(token: &str) -> Option<Self> {
        match token {
            "1-0" => Some(GameOutcome::WhiteWins),
            "0-1" => Some(GameOutcome::BlackWins),
            "1/2-1/2" | "½-½" => Some(GameOutcome::Draw),
            _ => None,
        }
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ScriptError {
    #[error("bad start FEN {fen:?}: {reason}")]
    BadFen { fen: String, reason: String },
    #[error("ply {ply}: {mv:?} is not a legal move")]
    IllegalMove { ply: usize, mv: String },
    #[error("cannot read PGN token {0:?}")]
    BadToken(String),
}

/// What the humans will play.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GameScript {
    /// `None`: the standard start position.
    pub start_fen: Option<String>,
    /// Moves in UCI (`e2e4`, `e1g1`, `e7e8q`).
    pub moves: Vec<String>,
    /// The result the players agree on at the end, when the moves do not decide it.
    pub result: Option<GameOutcome>,
    /// The player to make ply `n` (0-based index into `moves`) never moves: their flag falls
    /// and the moves from `n` on are not played.
    pub flag_fall_at_ply: Option<usize>,
}

impl GameScript {
    pub fn from_uci<S: AsRef<str>>(moves: &[S]) -> Self {
        GameScript {
            moves: moves.iter().map(|m| m.as_ref().to_string()).collect(),
            ..Default::default()
        }
    }

    /// A random legal game (see [`random_game`]).
    pub fn random(seed: u64, max_plies: usize) -> Self {
        GameScript {
            moves: random_game(seed, max_plies),
            ..Default::default()
        }
    }

    /// A PGN game: its FEN tag (if any), movetext and result.
    pub fn from_pgn(pgn: &str) -> Result<Self, ScriptError> {
        let (start_fen, moves, result) = read_pgn(pgn)?;
        Ok(GameScript {
            start_fen,
            moves,
            result,
            flag_fall_at_ply: None,
        })
    }

    /// The start position.
    pub fn start_position(&self) -> Result<Chess, ScriptError> {
        match &self.start_fen {
            None => Ok(Chess::default()),
            Some(f) => position_from_fen(f),
        }
    }

    /// The start position and the moves, each checked for legality.
    pub fn validate(&self) -> Result<(Chess, Vec<Move>), ScriptError> {
        let start = self.start_position()?;
        let mut pos = start.clone();
        let mut out = Vec::with_capacity(self.moves.len());
        for (ply, text) in self.moves.iter().enumerate() {
            let illegal = || ScriptError::IllegalMove {
                ply,
                mv: text.clone(),
            };
            let uci: UciMove = text.parse().map_err(|_| illegal())?;
            let m = uci.to_move(&pos).map_err(|_| illegal())?;
            pos.play_unchecked(m);
            out.push(m);
        }
        Ok((start, out))
    }
}

pub(crate) fn position_from_fen(fen: &str) -> Result<Chess, ScriptError> {
    let bad = |reason: String| ScriptError::BadFen {
        fen: fen.to_string(),
        reason,
    };
    let parsed: Fen = fen.parse().map_err(|e| bad(format!("{e}")))?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| bad(format!("{e}")))
}

pub(crate) fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

pub(crate) fn uci_of(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// A random legal game in UCI from the standard start position, at most `max_plies` long
/// (shorter when it ends in mate, stalemate or insufficient material). Moves are weighted so
/// that what challenges move reconstruction occurs often: captures, checks, castling,
/// promotions (under-promotions too) and en passant.
pub fn random_game(seed: u64, max_plies: usize) -> Vec<String> {
    let mut rng = Prng::stream(seed, 0x6A4E);
    let mut pos = Chess::default();
    let mut out = Vec::new();
    while out.len() < max_plies && !pos.is_game_over() {
        let moves = pos.legal_moves();
        let weights: Vec<u64> = moves.iter().map(|m| move_weight(&pos, *m)).collect();
        let total: u64 = weights.iter().sum();
        let mut pick = rng.below(total);
        let mut chosen = moves[0];
        for (m, w) in moves.iter().zip(&weights) {
            if pick < *w {
                chosen = *m;
                break;
            }
            pick -= w;
        }
        out.push(uci_of(chosen));
        pos.play_unchecked(chosen);
    }
    out
}

fn move_weight(pos: &Chess, m: Move) -> u64 {
    let mut w = 4;
    if m.is_en_passant() {
        w *= 40;
    } else if m.is_capture() {
        w *= 4;
    }
    if m.is_castle() {
        w *= 25;
    }
    match m.promotion() {
        Some(Role::Queen) => w *= 40,
        Some(_) => w *= 4,
        None => {}
    }
    if m.role() == Role::Pawn {
        let rank = m.to().rank();
        let relative = if pos.turn().is_white() {
            rank as u32
        } else {
            7 - rank as u32
        };
        // Pushing pawns far brings promotions; double steps bring en passant chances.
        w += relative as u64 * 2;
        if m.from().is_some_and(|f| f.distance(m.to()) == 2) {
            w *= 2;
        }
    }
    if m.role() == Role::King && !m.is_castle() && pos.fullmoves().get() < 30 {
        w = w.div_ceil(3);
    }
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.is_check() {
        w *= 3;
    }
    w
}

/// SAN movetext to UCI via shakmaty. Move numbers, comments (`{…}`, `;…`), variations
/// (`(…)`), NAGs (`$1`), annotation glyphs (`!?`), tag pairs and results are ignored; a
/// `[FEN "…"]` tag sets the start position.
pub fn parse_pgn_moves(pgn: &str) -> Result<Vec<String>, ScriptError> {
    read_pgn(pgn).map(|(_, moves, _)| moves)
}

type PgnParts = (Option<String>, Vec<String>, Option<GameOutcome>);

fn read_pgn(pgn: &str) -> Result<PgnParts, ScriptError> {
    let mut fen = None;
    let mut text = String::new();
    // Tag pairs and comments first.
    let mut chars = pgn.chars().peekable();
    let mut depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
                text.push(' ');
            }
            ';' => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                text.push(' ');
            }
            '[' if depth == 0 => {
                let mut tag = String::new();
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    tag.push(d);
                }
                let tag = tag.trim();
                if let Some(rest) = tag.strip_prefix("FEN") {
                    fen = Some(rest.trim().trim_matches('"').to_string());
                }
                text.push(' ');
            }
            '(' => {
                depth += 1;
                text.push(' ');
            }
            ')' => {
                depth = depth.saturating_sub(1);
                text.push(' ');
            }
            _ if depth > 0 => {}
            _ => text.push(c),
        }
    }
    let mut pos = match &fen {
        Some(f) => position_from_fen(f)?,
        None => Chess::default(),
    };
    let mut moves = Vec::new();
    let mut result = None;
    for raw in text.split_whitespace() {
        if let Some(r) = GameOutcome::from_pgn(raw) {
            result = Some(r);
            continue;
        }
        if raw == "*" || raw.starts_with('$') {
            continue;
        }
        // Strip a move number ("12." / "12..." possibly glued to the move).
        let token = raw.trim_start_matches(|c: char| c.is_ascii_digit());
        let token = if token.len() < raw.len() || raw.starts_with('.') {
            token.trim_start_matches('.')
        } else {
            raw
        };
        let token = token.trim_end_matches(['!', '?']);
        if token.is_empty() {
            continue;
        }
        let san: SanPlus = token
            .parse()
            .map_err(|_| ScriptError::BadToken(raw.to_string()))?;
        let m = san
            .san
            .to_move(&pos)
            .map_err(|_| ScriptError::IllegalMove {
                ply: moves.len(),
                mv: raw.to_string(),
            })?;
        moves.push(uci_of(m));
        pos.play_unchecked(m);
    }
    Ok((fen, moves, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_games_are_legal_varied_and_reproducible() {
        let mut captures = 0;
        let mut castles = 0;
        let mut promotions = 0;
        let mut en_passant = 0;
        for seed in 0..40 {
            let g = random_game(seed, 160);
            assert_eq!(g, random_game(seed, 160));
            let (_, moves) = GameScript::from_uci(&g).validate().unwrap();
            captures += moves.iter().filter(|m| m.is_capture()).count();
            castles += moves.iter().filter(|m| m.is_castle()).count();
            promotions += moves.iter().filter(|m| m.is_promotion()).count();
            en_passant += moves.iter().filter(|m| m.is_en_passant()).count();
        }
        assert!(captures > 200, "{captures}");
        assert!(castles > 20, "{castles}");
        assert!(promotions > 10, "{promotions}");
        assert!(en_passant > 3, "{en_passant}");
        assert_ne!(random_game(1, 40), random_game(2, 40));
    }

    #[test]
    fn pgn_movetext_to_uci() {
        let pgn = r#"[Event "Test"]
[White "A"]

1. e4 e5 2. Nf3 {a comment (with parens)} Nc6 $1 3. Bb5 a6 (3... Nf6 4. O-O) 4. Ba4!? Nf6
5. O-O Be7 ; rest of line
6.Re1 b5 7. Bb3 d6 8. c3 O-O 1-0"#;
        let script = GameScript::from_pgn(pgn).unwrap();
        assert_eq!(
            &script.moves[..4],
            &["e2e4", "e7e5", "g1f3", "b8c6"].map(String::from)
        );
        assert_eq!(script.moves[8], "e1g1");
        assert_eq!(script.moves.len(), 16);
        assert_eq!(script.moves[15], "e8g8");
        assert_eq!(script.result, Some(GameOutcome::WhiteWins));
        assert!(matches!(
            parse_pgn_moves("1. e4 e4"),
            Err(ScriptError::IllegalMove { ply: 1, .. })
        ));
    }

    #[test]
    fn pgn_with_fen_and_promotion() {
        let pgn = "[FEN \"8/P6k/8/8/8/8/8/K7 w - - 0 1\"]\n1. a8=N *";
        let script = GameScript::from_pgn(pgn).unwrap();
        assert_eq!(script.moves, vec!["a7a8n".to_string()]);
        assert!(script.validate().is_ok());
    }
}
