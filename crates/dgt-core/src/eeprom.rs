//! Moves made while a board was disconnected, read back from the board's own memory.
//!
//! A DGT board logs every field change and, at each lever press, the time of the clock that
//! stopped, in a cyclic EEPROM buffer kept "during all power-up time" (protocol §3.6). If the
//! board kept power during the outage, replaying those field changes onto the placement it
//! had when the link was lost gives the placements it went through; the same reconstruction
//! the core uses (legal moves whose result shows the placement, [`crate::reconstruct`])
//! turns them into moves. What it cannot explain is described for a review alert — it never
//! invents a move.

use dgt_protocol::EeEntry;
use shakmaty::{CastlingMode, Chess, Position};

use crate::board::PhysicalBoard;
use crate::event::{Orientation, Side};
use crate::input::ClockSide;
pub use crate::log_gap::LogGap;
use crate::reconstruct::{self, Game, Interpretation};

/// What the daemon knew when the link was lost.
#[derive(Debug, Clone)]
pub struct LastKnown {
    /// The game's current legal position.
    pub position: Chess,
    pub castling_mode: CastlingMode,
    /// The squares as the board last reported them, in its own numbering (protocol §3.2).
    pub squares: [u8; 64],
    pub orientation: Orientation,
    /// Which clock display is White's; lever-press times are logged per display, never
    /// swapped when the board is turned (protocol §3.6).
    pub white_clock_side: Option<ClockSide>,
}

/// A move recovered from the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveredMove {
    pub uci: String,
    pub san: String,
    pub side: Side,
    /// The mover's clock when the lever was pressed after the move, if the board logged it.
    pub clock_ms: Option<u64>,
}

/// The result of reading the log: the moves, and what could not be explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EepromRecovery {
    pub moves: Vec<RecoveredMove>,
    /// The position after the recovered moves.
    pub fen: String,
    /// Why the recovery is incomplete, in one sentence for a review alert; `None` when the
    /// log explains everything up to the board's present placement.
    pub gap: Option<LogGap>,
}

/// How many plies one settled placement may be ahead of the last (a move and a reply made
/// before the lever press).
const MAX_PLIES_PER_PLACEMENT: usize = 2;

/// The entries written after the board's last dump (`EE_DOWNLOADED` marks where a dump was
/// taken, protocol §3.6): when the daemon dumps the log at every connection, these are the
/// entries since the link was last up.
pub fn since_last_download(entries: &[EeEntry]) -> &[EeEntry] {
    match entries.iter().rposition(|e| *e == EeEntry::Downloaded) {
        Some(i) => &entries[i + 1..],
        None => entries,
    }
}

/// Replays `log` (oldest first) from `last` and returns the moves it shows.
pub fn recover_moves(last: &LastKnown, log: &[EeEntry]) -> EepromRecovery {
    let (game, clocks, gap) = replay(last, log, false);
    let moves = game
        .moves
        .iter()
        .enumerate()
        .map(|(k, m)| RecoveredMove {
            uci: m.uci.clone(),
            san: m.san.clone(),
            side: game.positions[k].turn().into(),
            clock_ms: clocks.get(k).copied().flatten(),
        })
        .collect();
    EepromRecovery {
        moves,
        fen: reconstruct::fen(game.current()),
        gap,
    }
}

/// The game the log shows from `last`, the mover's logged clock per ply, and the gap.
/// `live_follows`: the board is connected again and its live reports take over where the
/// log ends (a reconnection), so a move under way at the end is no gap.
fn replay(
    last: &LastKnown,
    log: &[EeEntry],
    live_follows: bool,
) -> (Game, Vec<Option<u64>>, Option<LogGap>) {
    let mut squares = PhysicalBoard::default();
    squares.apply_dump(&last.squares);
    let mut game = Game::new("eeprom".into(), last.position.clone(), last.castling_mode);
    let mut clocks: Vec<Option<u64>> = Vec::new();
    let mut gap: Option<LogGap> = None;
    let mut unexplained_at_press = 0usize;
    // A press logged before the scan caught up with the move's last square (the board
    // reports a square up to one scan late, protocol §4.1): judged at the next placement.
    let mut pending: Option<(bool, u32)> = None;
    let white_display_left = last.white_clock_side.unwrap_or(ClockSide::Left) == ClockSide::Left;

    let mut i = 0;
    while i < log.len() {
        match log[i] {
            EeEntry::Field { square, piece, .. } => {
                squares.apply_update(square.index(), piece.code());
                // A placement is looked at once the changes around it are over: the next
                // entry is not a field change flagged "fast" (< 250 ms later, the r bit).
                let settled = !matches!(log.get(i + 1), Some(EeEntry::Field { fast: true, .. }));
                if settled {
                    let at_press = pending.is_some();
                    let explained =
                        follow(&mut game, &mut clocks, &squares, last.orientation, at_press);
                    if explained && let Some((by_white, seconds)) = pending.take() {
                        stamp(&mut game, &mut clocks, by_white, seconds);
                    }
                }
            }
            EeEntry::LeverPress { left, seconds } => {
                // The press completes the move on the board (6.2.1): whatever it shows now
                // (or once the scan has caught up) must be explained, and is final.
                if pending.take().is_some() {
                    unexplained_at_press += 1;
                }
                let by_white = left == white_display_left;
                if follow(&mut game, &mut clocks, &squares, last.orientation, true) {
                    stamp(&mut game, &mut clocks, by_white, seconds);
                } else {
                    pending = Some((by_white, seconds));
                }
            }
            EeEntry::PowerUp => {
                // The board lost power: moves made meanwhile were never logged. The field
                // tags that follow describe the whole board again.
                gap.get_or_insert(LogGap::PowerLost {
                    recovered: game.plies(),
                });
                squares.apply_dump(&[0; 64]);
            }
            _ => {}
        }
        i += 1;
    }
    // Whatever the board shows at the end (the last move may wait for its press).
    let explained = follow(&mut game, &mut clocks, &squares, last.orientation, true);
    // The log read at a reconnection ends at that moment, perhaps with a player's hand on
    // a piece or a press logged before the scan caught the move's last square (§4.1): the
    // live reports that follow complete that move (or say what is wrong).
    let under_way = live_follows
        && !explained
        && move_under_way(game.current(), &squares.placement(last.orientation).board);
    if let Some((by_white, seconds)) = pending {
        if explained {
            stamp(&mut game, &mut clocks, by_white, seconds);
        } else if !under_way {
            unexplained_at_press += 1;
        }
    }
    if gap.is_none() && !explained && !under_way {
        gap = Some(LogGap::Unexplained {
            recovered: game.plies(),
            placement: squares.placement(last.orientation).board,
        });
    } else if gap.is_none() && unexplained_at_press > 0 {
        gap = Some(LogGap::UnexplainedPresses {
            presses: unexplained_at_press,
        });
    }
    (game, clocks, gap)
}

/// A move begun and not finished: the board shows `position` with one or two pieces lifted
/// (the mover's piece, a captured piece lifted first, or both; king and rook of a castling)
/// and nothing put anywhere else.
fn move_under_way(position: &Chess, shown: &shakmaty::Board) -> bool {
    let board = position.board();
    if !shown.occupied().is_subset(board.occupied())
        || shown
            .occupied()
            .into_iter()
            .any(|sq| shown.piece_at(sq) != board.piece_at(sq))
    {
        return false;
    }
    let lifted = board.occupied() ^ shown.occupied();
    let the_movers = (lifted & board.by_color(position.turn())).count();
    match lifted.count() {
        1 => true,
        2 => the_movers >= 1,
        _ => false,
    }
}

/// A press: the stopped clock is the mover's, so its time belongs to the last move if that
/// move was the presser's; the moves before it are final.
fn stamp(game: &mut Game, clocks: &mut [Option<u64>], pressed_by_white: bool, seconds: u32) {
    if let Some(slot) = clocks.last_mut() {
        let mover_white = game.positions[game.plies() - 1].turn().is_white();
        if mover_white == pressed_by_white {
            *slot = Some(seconds as u64 * 1000);
        }
    }
    game.confirm_all();
}

/// Relates the board's placement to the game and plays what it shows. Returns false when
/// nothing legal explains it. `clocks` runs beside the game's moves, one slot per ply.
fn follow(
    game: &mut Game,
    clocks: &mut Vec<Option<u64>>,
    squares: &PhysicalBoard,
    orientation: Orientation,
    at_press: bool,
) -> bool {
    let placement = squares.placement(orientation);
    let max = if at_press { MAX_PLIES_PER_PLACEMENT } else { 1 };
    match reconstruct::interpret(game, &placement.board, max) {
        Interpretation::Same => true,
        Interpretation::Ahead(path) => {
            for m in path {
                game.push(m, 0, (None, None));
                clocks.push(None);
            }
            true
        }
        Interpretation::Sibling(m) => {
            // The intermediate square of a slide looked settled: the move ends further on.
            let keep = game.plies() - 1;
            game.truncate(keep);
            clocks.truncate(keep);
            game.push(m, 0, (None, None));
            clocks.push(None);
            true
        }
        Interpretation::Earlier(k) if k >= game.confirmed => {
            // A move not yet completed by a press was taken back.
            game.truncate(k);
            clocks.truncate(k);
            true
        }
        Interpretation::Earlier(_) | Interpretation::Unexplained => false,
    }
}

// ---- a game found under way ----------------------------------------------------------

/// A game the log shows from the last time the board stood in the start position.
#[derive(Debug, Clone)]
pub struct SinceBeginPosition {
    /// The game from the initial position, the moves the log shows.
    pub game: Game,
    /// The mover's logged clock per ply.
    pub clocks: Vec<Option<u64>>,
    /// The board's orientation, as its begin-position tag gives it (protocol §3.6).
    pub orientation: Orientation,
    /// What the log does not explain, for the alert.
    pub gap: Option<LogGap>,
}

/// The squares of the initial position in the board's own numbering (protocol §3.2).
fn start_squares(orientation: Orientation) -> [u8; 64] {
    let start = shakmaty::Board::default();
    std::array::from_fn(|i| {
        let piece = start.piece_at(crate::board::to_square(i, orientation));
        (1..=12u8)
            .find(|&code| {
                piece.is_some()
                    && crate::board::chess_piece(dgt_protocol::DgtPiece::from_code(code)) == piece
            })
            .unwrap_or(0)
    })
}

/// Replays `entries` (a whole log, oldest first) from the last begin-position tag: the
/// board writes `EE_BEGINPOS` (or `EE_BEGINPOS_ROT`) when the pieces stand in the start
/// position (protocol §3.6), so what follows is the game played since. `None` when the log
/// holds no such tag (the buffer wrapped, the game was set up from a position).
pub fn since_begin_position(
    entries: &[EeEntry],
    white_clock_side: Option<ClockSide>,
) -> Option<SinceBeginPosition> {
    let i = entries
        .iter()
        .rposition(|e| matches!(e, EeEntry::BeginPos | EeEntry::BeginPosRotated))?;
    let orientation = if entries[i] == EeEntry::BeginPosRotated {
        Orientation::Rotated
    } else {
        Orientation::Normal
    };
    let last = LastKnown {
        position: Chess::default(),
        castling_mode: CastlingMode::Standard,
        squares: start_squares(orientation),
        orientation,
        white_clock_side,
    };
    let (game, clocks, gap) = replay(&last, &entries[i + 1..], true);
    Some(SinceBeginPosition {
        game,
        clocks,
        orientation,
        gap,
    })
}

// ---- an outage, as the session sees it -------------------------------------------------

/// How long the session holds its decisions after a reconnection, waiting for the log the
/// edge asked for (a full log is 7.9 kB, ~8 s at 9600 baud; protocol §4.4).
pub const LOG_WAIT_MS: u64 = 12_000;

/// Where the board's log was last read (the board then wrote `EE_DOWNLOADED`): the squares
/// it showed, and the game and its length at that moment.
#[serde_with::serde_as]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Mark {
    #[serde_as(as = "[_; 64]")]
    pub squares: [u8; 64],
    pub game: Option<String>,
    pub plies: usize,
}

/// What the log read at a reconnection adds to the game.
#[derive(Debug, Clone)]
pub struct Outage {
    /// Moves not yet in the game, in order, each with the mover's logged clock.
    pub moves: Vec<(shakmaty::Move, Option<u64>)>,
    /// The position after them: the one the board should show.
    pub fen: String,
    /// What the log does not explain, for a review alert.
    pub gap: Option<LogGap>,
}

/// Replays the entries written since `mark` (the last time the log was read) from the
/// game's position at that time. The log holds the whole time since then — the moves seen
/// while the link was up, then the outage — so the recovered moves must begin with the
/// moves the game already has; the rest are the outage's. Nothing is offered when the log
/// disagrees with the game or no longer reaches back to the mark.
pub fn outage_moves(
    mark: &Mark,
    game: &Game,
    orientation: Orientation,
    white_clock_side: Option<ClockSide>,
    entries: &[EeEntry],
) -> Outage {
    let unchanged = |gap: LogGap| Outage {
        moves: Vec::new(),
        fen: reconstruct::fen(game.current()),
        gap: Some(gap),
    };
    if !entries.contains(&EeEntry::Downloaded) {
        return unchanged(LogGap::BeyondLastRead);
    }
    let mut squares = PhysicalBoard::default();
    squares.apply_dump(&mark.squares);
    let shown = squares.placement(orientation).board;
    let from = if mark.game.as_deref() == Some(&game.id) {
        mark.plies.min(game.plies())
    } else {
        0
    };
    let start = (from..=game.plies())
        .find(|&p| game.positions[p].board() == &shown)
        .unwrap_or(from);
    let last = LastKnown {
        position: game.positions[start].clone(),
        castling_mode: game.castling_mode,
        squares: mark.squares,
        orientation,
        white_clock_side,
    };
    let (replayed, clocks, gap) = replay(&last, since_last_download(entries), true);
    let known = &game.moves[start..];
    let agrees = replayed.moves.len() >= known.len()
        && replayed.moves.iter().zip(known).all(|(a, b)| a.mv == b.mv);
    if !agrees {
        return unchanged(LogGap::Disagrees {
            logged: replayed.moves.len(),
            seen: known.len(),
        });
    }
    Outage {
        moves: replayed.moves[known.len()..]
            .iter()
            .zip(&clocks[known.len()..])
            .map(|(m, c)| (m.mv, *c))
            .collect(),
        fen: reconstruct::fen(replayed.current()),
        gap,
    }
}
