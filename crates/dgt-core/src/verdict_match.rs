//! The bughouse match score as data (DJC / KNSB 5.1, 8.2; Flemish 5.d): both games ended and
//! the points each team scored, or a team that has won on one board, which under the Flemish
//! regulation wins the match whatever happens on the other. The English of the
//! `match_result` alert's message is rendered here.

use crate::article::Article;
use crate::bughouse;
use crate::outcome::GameResult;

/// A bughouse team: team A has White on the first board and Black on the second (1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Team {
    A,
    B,
}

impl Team {
    fn letter(self) -> char {
        match self {
            Team::A => 'A',
            Team::B => 'B',
        }
    }
}

/// What decides the match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchVerdict {
    /// Both games have ended: `results[i]` on `boards[i]` (`article`: 5.1, 8.2; Flemish 5.d).
    BothEnded {
        boards: [String; 2],
        results: [GameResult; 2],
        article: Article,
    },
    /// Flemish 5.d: `team` has won on board `board` and so wins the match.
    WonOnBoard { team: Team, board: String },
}

impl MatchVerdict {
    /// The points of team A and team B once both games have ended.
    pub fn score(&self) -> Option<(f32, f32)> {
        match self {
            MatchVerdict::BothEnded { results, .. } => {
                Some(bughouse::score(results[0], results[1]))
            }
            MatchVerdict::WonOnBoard { .. } => None,
        }
    }

    /// The regulation's article.
    pub fn article(&self) -> Article {
        match self {
            MatchVerdict::BothEnded { article, .. } => *article,
            MatchVerdict::WonOnBoard { .. } => Article::new("5.d"),
        }
    }

    /// The alert's message.
    pub fn message(&self) -> String {
        match self {
            MatchVerdict::BothEnded {
                boards, results, ..
            } => {
                let (a, b) = bughouse::score(results[0], results[1]);
                format!(
                    "Both games have ended (board {} {}, board {} {}): team A {} – team B {}.",
                    boards[0],
                    results[0],
                    boards[1],
                    results[1],
                    bughouse::points(a),
                    bughouse::points(b)
                )
            }
            MatchVerdict::WonOnBoard { team, board } => format!(
                "Team {} has won on board {board}: it wins the match, whatever happens on the other board (5.d).",
                team.letter()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the match verdict's English.
    #[test]
    fn the_match_score_renders_as_the_arbiter_writes_it() {
        let ended = MatchVerdict::BothEnded {
            boards: ["b1".into(), "b2".into()],
            results: [GameResult::Drawn, GameResult::WhiteWins],
            article: Article::new("5.1, 8.2"),
        };
        assert_eq!(ended.score(), Some((0.5, 1.5)));
        assert_eq!(ended.article(), "5.1, 8.2");
        assert_eq!(
            ended.message(),
            "Both games have ended (board b1 1/2-1/2, board b2 1-0): team A ½ – team B 1½."
        );
        let won = MatchVerdict::WonOnBoard {
            team: Team::B,
            board: "b2".into(),
        };
        assert_eq!((won.score(), won.article()), (None, Article::new("5.d")));
        assert_eq!(
            won.message(),
            "Team B has won on board b2: it wins the match, whatever happens on the other board (5.d)."
        );
    }
}
