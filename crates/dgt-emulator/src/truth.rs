//! What really happened at the board: the ground truth the corpus is checked against.

use crate::clock::ClockSide;
use crate::game_script::GameOutcome;
use crate::spec::ResultGesture;

/// How a move was physically made (correct handling variations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handling {
    /// Lifted and placed.
    Plain,
    /// A capture; the captured piece was removed before the capturer was lifted.
    CaptureRemoveFirst,
    /// A capture; the capturer was lifted first and the captured piece removed with it in hand.
    CaptureLiftFirst,
    CastleKingFirst,
    /// Irregular: rook first (also listed in [`Truth::irregularities`]).
    CastleRookFirst,
    /// Irregular: king and rook together (also listed in [`Truth::irregularities`]).
    CastleTwoHanded,
    /// Irregular: a capture made with two hands, the two lifts 0–80 ms apart (Laws 4.1).
    CaptureTwoHanded,
    EnPassantRemoveFirst,
    EnPassantRemoveAfter,
    /// The pawn was placed on the last rank, then swapped for the new piece.
    PromotionViaPawn,
    /// The new piece went straight on; the pawn was never placed on the last rank.
    PromotionDirect,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruthMove {
    /// 1-based half-move number from the start position.
    pub ply: usize,
    pub white: bool,
    pub uci: String,
    pub san: String,
    /// First hand contact with a piece of the move.
    pub t_touch_ms: u64,
    /// The last placement of the move (before any flicker).
    pub t_made_ms: u64,
    /// The clock press that completed the move (`None`: not pressed, e.g. after mate).
    pub t_pressed_ms: Option<u64>,
    /// Exact clock times after the press (or when the move was made, if not pressed).
    pub white_ms: u64,
    pub black_ms: u64,
    pub handling: Handling,
    /// Squares the piece touched on the way when it was slid (protocol §4.1).
    pub slid_via: Vec<String>,
    /// The full FEN after the move.
    pub fen_after: String,
    /// Made with two hands (a capture or castling, Laws 4.1 / 7.5.4).
    pub two_handed: bool,
    /// An own piece lifted and put back on its square before the move (its square), and
    /// whether the adjustment was announced ("j'adoube", 4.2.1) — the board cannot hear it.
    pub adjusted: Option<(String, bool)>,
}

impl TruthMove {
    /// Castling begun with the rook (Laws 4.4.2).
    pub fn rook_first(&self) -> bool {
        self.handling == Handling::CastleRookFirst
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IrregularityKind {
    CastleRookFirst,
    CastleTwoHanded,
    /// A piece fell over and was put back on the same square.
    KnockedPiece {
        square: String,
        piece: char,
        down_ms: u64,
    },
    /// A badly centred piece toggled on/off after being placed (a board artefact).
    Flicker {
        square: String,
        toggles: u32,
    },
    /// The clock was pressed late (the player forgot, then remembered).
    LatePress {
        delay_ms: u64,
    },
    /// A flag fell. `final_flag`: the clock blocked at zero (0x10); otherwise a period's
    /// flag (0x40) and the next period started.
    FlagFall {
        white: bool,
        final_flag: bool,
        scripted: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Irregularity {
    pub t_ms: u64,
    /// The ply (1-based) it belongs to, when it belongs to one.
    pub ply: Option<usize>,
    pub kind: IrregularityKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultReason {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    /// Flag fall; a draw when the opponent cannot mate (Laws 6.9).
    FlagFall,
    /// From the script (e.g. the PGN's result): resignation or agreement.
    Scripted,
    /// Only the gesture says it (no result in the script): an agreed draw.
    Agreed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameResult {
    pub outcome: GameOutcome,
    pub reason: ResultReason,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerformedGesture {
    pub kind: ResultGesture,
    pub outcome: GameOutcome,
    /// When the first piece of the gesture was lifted.
    pub t_start_ms: u64,
    /// When the gesture was complete on the board.
    pub t_ms: u64,
}

/// Why the clock was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockStopReason {
    /// The players ended the game themselves — a resignation or an agreed draw (5.1.2,
    /// 5.2.3), spoken, which the board cannot hear — and stopped the clock. The game is not
    /// over on the board: the arbiter has a result to learn.
    PlayersEndedGame,
    /// The game was over already — on the board (checkmate, stalemate, a dead position:
    /// 5.1.1, 5.2.1, 5.2.2) or by a flag (6.9; a final flag's clock stands still already)
    /// — and the players stopped the clock afterwards.
    AfterGameOver,
    /// A period's flag fell and the clock ran on; the arbiter stopped it (6.8, 6.11.1).
    ArbiterAfterFlag,
}

/// How the game ended, by the Laws (not as the players saw it: they may play on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameOverBy {
    /// Over on the board after this ply: checkmate, stalemate, or a dead position (5.1.1,
    /// 5.2.1, 5.2.2), found a few plies deep — more than the players notice.
    OnBoard { after_ply: usize },
    /// A flag fell (6.9).
    Flag,
    /// The players ended it themselves (a resignation or an agreed draw the board cannot
    /// hear, 5.1.2, 5.2.3): when they stopped the clock.
    Players,
}

/// The clock stopped by a hand (Start/Stop), not by itself at a final flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockStop {
    pub t_ms: u64,
    pub reason: ClockStopReason,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truth {
    pub start_fen: String,
    pub serial: String,
    pub rotated: bool,
    pub white_clock_side: ClockSide,
    pub clock_present: bool,
    pub time_control: String,
    /// When the first mover's clock was started.
    pub clock_started_ms: u64,
    pub moves: Vec<TruthMove>,
    pub irregularities: Vec<Irregularity>,
    pub result: Option<GameResult>,
    pub gesture: Option<PerformedGesture>,
    /// When the clock was stopped at the end (Start/Stop), if it was.
    pub clock_paused_ms: Option<u64>,
    /// Every stop of the clock by a hand, with its reason, in time order.
    pub clock_stops: Vec<ClockStop>,
    /// When and how the game ended by the Laws: the move that ended it on the board made,
    /// the flag fallen, or the players' own end (the clock stopped, or the result gesture
    /// begun if they did not stop it). `None`: it never ended.
    pub game_over: Option<(u64, GameOverBy)>,
    pub battery_low: bool,
    /// The FEN after the last move.
    pub final_fen: String,
    /// Piece codes by physical square at the end, gestures included (what the board holds).
    pub final_board: [u8; 64],
    /// When nothing more happens at the board.
    pub end_ms: u64,
}

impl Truth {
    pub fn ucis(&self) -> Vec<String> {
        self.moves.iter().map(|m| m.uci.clone()).collect()
    }
}
