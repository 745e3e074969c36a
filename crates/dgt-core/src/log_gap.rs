//! What a board's log (its EEPROM, protocol §3.6) does not explain, as data: the board lost
//! power, a placement or presses no legal move explains, the log no longer reaching back or
//! disagreeing with the moves seen live. The English a review alert carries is rendered
//! here.

use std::fmt;

/// What the log does not explain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogGap {
    /// The board lost power after `recovered` moves: moves made while it was off were never
    /// logged.
    PowerLost { recovered: usize },
    /// After `recovered` moves the board shows `placement`, which no legal continuation
    /// explains.
    Unexplained {
        recovered: usize,
        placement: shakmaty::Board,
    },
    /// `presses` clock presses in the log came with a placement no legal move explains.
    UnexplainedPresses { presses: usize },
    /// The log no longer reaches back to the last time it was read.
    BeyondLastRead,
    /// The log shows `logged` moves since it was last read where `seen` were seen while the
    /// board was connected, and they differ.
    Disagrees { logged: usize, seen: usize },
}

impl fmt::Display for LogGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogGap::PowerLost { recovered } => write!(
                f,
                "the board lost power after {recovered} recovered move(s); moves made while it was off are not in its memory"
            ),
            LogGap::Unexplained {
                recovered,
                placement,
            } => write!(
                f,
                "after {recovered} recovered move(s) the board shows a placement ({placement}) that no legal continuation explains"
            ),
            LogGap::UnexplainedPresses { presses } => write!(
                f,
                "{presses} clock press(es) in the board's memory came with a placement no legal move explains"
            ),
            LogGap::BeyondLastRead => f.write_str(
                "the board's memory no longer reaches back to the last time it was read",
            ),
            LogGap::Disagrees { logged, seen } => write!(
                f,
                "the board's memory shows {logged} move(s) since it was last read where {seen} were seen while it was connected, and they differ"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one golden test of the gaps' English.
    #[test]
    fn each_gap_words_what_the_log_does_not_explain() {
        let cases = [
            (
                LogGap::PowerLost { recovered: 3 },
                "the board lost power after 3 recovered move(s); moves made while it was off are not in its memory",
            ),
            (
                LogGap::Unexplained {
                    recovered: 2,
                    placement: shakmaty::Board::default(),
                },
                "after 2 recovered move(s) the board shows a placement (rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR) that no legal continuation explains",
            ),
            (
                LogGap::UnexplainedPresses { presses: 1 },
                "1 clock press(es) in the board's memory came with a placement no legal move explains",
            ),
            (
                LogGap::BeyondLastRead,
                "the board's memory no longer reaches back to the last time it was read",
            ),
            (
                LogGap::Disagrees { logged: 4, seen: 5 },
                "the board's memory shows 4 move(s) since it was last read where 5 were seen while it was connected, and they differ",
            ),
        ];
        for (gap, text) in cases {
            assert_eq!(gap.to_string(), text, "{gap:?}");
        }
    }
}
