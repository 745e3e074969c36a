//! Moves made while a board was disconnected, read back from the board's own memory.
//!
//! A DGT board logs every field change and, at each lever press, the time of the clock that
//! stopped, in a cyclic EEPROM buffer kept "during all power-up time" (protocol §3.6). If the
//! board kept power during the outage, replaying those field changes onto the placement it
//! had when the link was lost gives the placements it went through; the same reconstruction
//! the core uses (legal moves whose result shows the placement, `dgt_core::reconstruct`)
//! turns them into moves. What it cannot explain is described for a review alert — it never
//! invents a move.

use dgt_core::board::PhysicalBoard;
use dgt_core::event::{Orientation, Side};
use dgt_core::input::ClockSide;
use dgt_core::reconstruct::{self, Game, Interpretation};
use dgt_protocol::EeEntry;
use shakmaty::{CastlingMode, Chess, Position};

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
    pub gap: Option<String>,
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
    let mut squares = PhysicalBoard::default();
    squares.apply_dump(&last.squares);
    let mut game = Game::new("eeprom".into(), last.position.clone(), last.castling_mode);
    let mut clocks: Vec<Option<u64>> = Vec::new();
    let mut gap: Option<String> = None;
    let mut unexplained_at_press = 0usize;

    let mut i = 0;
    while i < log.len() {
        match log[i] {
            EeEntry::Field { square, piece, .. } => {
                squares.apply_update(square.index(), piece.code());
                // A placement is looked at once the changes around it are over: the next
                // entry is not a field change flagged "fast" (< 250 ms later, the r bit).
                let settled = !matches!(log.get(i + 1), Some(EeEntry::Field { fast: true, .. }));
                if settled {
                    follow(&mut game, &mut clocks, &squares, last.orientation, false);
                }
            }
            EeEntry::LeverPress { left, seconds } => {
                // The press completes the move on the board (6.2.1): whatever it shows now
                // must be explained, and is final.
                if !follow(&mut game, &mut clocks, &squares, last.orientation, true) {
                    unexplained_at_press += 1;
                }
                let white_display_left =
                    last.white_clock_side.unwrap_or(ClockSide::Left) == ClockSide::Left;
                let pressed_by_white = left == white_display_left;
                // The stopped clock is the mover's: its time belongs to the last move if
                // that move was the presser's.
                if let Some(slot) = clocks.last_mut() {
                    let mover_white = game.positions[game.plies() - 1].turn().is_white();
                    if mover_white == pressed_by_white {
                        *slot = Some(seconds as u64 * 1000);
                    }
                }
                game.confirm_all();
            }
            EeEntry::PowerUp => {
                // The board lost power: moves made meanwhile were never logged. The field
                // tags that follow describe the whole board again.
                gap.get_or_insert_with(|| {
                    format!(
                        "the board lost power after {} recovered move(s); moves made while it \
                         was off are not in its memory",
                        game.plies()
                    )
                });
                squares.apply_dump(&[0; 64]);
            }
            _ => {}
        }
        i += 1;
    }
    // Whatever the board shows at the end (the last move may wait for its press).
    let explained = follow(&mut game, &mut clocks, &squares, last.orientation, true);
    if gap.is_none() && !explained {
        gap = Some(format!(
            "after {} recovered move(s) the board shows a placement ({}) that no legal \
             continuation explains",
            game.plies(),
            squares.placement(last.orientation).board
        ));
    } else if gap.is_none() && unexplained_at_press > 0 {
        gap = Some(format!(
            "{unexplained_at_press} clock press(es) in the board's memory came with a \
             placement no legal move explains"
        ));
    }

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
