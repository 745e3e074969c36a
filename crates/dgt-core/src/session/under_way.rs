//! A game found under way: the board shows, settled, a legal placement that is no start
//! position while no game is followed — the daemon started (or lost its journal) after the
//! round began, the board was plugged in late, or a spare board was set up mid-game. The
//! arbiter is told at once (`game_found_under_way`, review) and the game is followed from
//! where it stands: with the side to move the running clock gives, the only side a legal
//! position allows, the mover of the first move made from it, or the arbiter's choice
//! (`under_way` op). The moves before are read from the board's own log where it has them
//! (`under_way_log.rs`).
//!
//! What the game cannot know about its past is assumed and said: castling is possible for a
//! king and rook on their home squares (a king or rook that moved and came back cannot be
//! seen), no en-passant capture is possible on the first move, and repetitions and the
//! 50/75-move counts begin at the found position.

use shakmaty::{Bitboard, Board, FromSetup, Setup, Square};

use super::*;
use crate::snapshot_as::*;
use crate::verdict::{ToMoveFrom, UnderWayVerdict};

/// How long a placement must stand still before it is taken for a game found under way:
/// longer than a move's handling (a piece held in the hand for a second or two leaves a
/// legal-looking placement on the board).
const FOUND_CALM_MS: u64 = 2000;

/// A placement found under way whose side to move is not known yet: followed from the first
/// move made from it (its mover was on move), or from the arbiter's choice.
#[serde_with::serde_as]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct FoundPlacement {
    #[serde_as(as = "BoardAs")]
    pub placement: Board,
    pub orientation: Orientation,
    pub seen_at: u64,
}

/// A placement that is a set-up in progress rather than a game: every pawn on its side's
/// second rank and every other piece on its side's first (the initial position or a Chess960
/// one with pieces still missing), either way round.
fn setting_up(placement: &Board) -> bool {
    use shakmaty::Rank;
    let arranged = |white_home: Rank, white_pawns: Rank, black_home: Rank, black_pawns: Rank| {
        let white_pieces = placement.white() & !placement.pawns();
        let black_pieces = placement.black() & !placement.pawns();
        white_pieces.is_subset(Bitboard::from_rank(white_home))
            && (placement.white() & placement.pawns()).is_subset(Bitboard::from_rank(white_pawns))
            && black_pieces.is_subset(Bitboard::from_rank(black_home))
            && (placement.black() & placement.pawns()).is_subset(Bitboard::from_rank(black_pawns))
    };
    arranged(Rank::First, Rank::Second, Rank::Eighth, Rank::Seventh)
        || arranged(Rank::Eighth, Rank::Seventh, Rank::First, Rank::Second)
}

/// The position of a placement found under way with `turn` to move, if it is legal: castling
/// allowed for a king and rook on their home squares, no en-passant square, the move counters
/// at their start (earlier moves were not seen).
pub(crate) fn position_under_way(placement: &Board, turn: Color) -> Option<Chess> {
    let mut castling = Bitboard::EMPTY;
    for (color, king, rooks) in [
        (Color::White, Square::E1, [Square::A1, Square::H1]),
        (Color::Black, Square::E8, [Square::A8, Square::H8]),
    ] {
        if placement.piece_at(king) == Some(color.king()) {
            for rook in rooks {
                if placement.piece_at(rook) == Some(color.rook()) {
                    castling |= rook;
                }
            }
        }
    }
    let mut setup = Setup::empty();
    setup.board = placement.clone();
    setup.turn = turn;
    setup.castling_rights = castling;
    Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .ok()
}

/// Marks the `game_start` among `emitted` as a game found under way: its record (PGN,
/// round, broadcast, the hub's) says the moves before its start were not seen.
fn mark_found_under_way(emitted: &mut [(u64, EventBody)]) {
    for (_, body) in emitted {
        if let EventBody::GameStart {
            found_under_way, ..
        } = body
        {
            *found_under_way = true;
        }
    }
}

/// Whether a placement may be a game under way: both kings, legal with one side or the other
/// to move, not a start position, a wrong set-up nor a set-up in progress.
fn may_be_under_way(placement: &Board) -> bool {
    placement.king_of(Color::White).is_some()
        && placement.king_of(Color::Black).is_some()
        && !setting_up(placement)
        && reconstruct::start_position(placement).is_none()
        && reconstruct::wrong_setup(placement).is_none()
        && Color::ALL
            .into_iter()
            .any(|c| position_under_way(placement, c).is_some())
}

impl Session {
    /// The placement settled while no game is followed: a game under way is looked for.
    /// Returns whether the game now followed should read this placement as its first move
    /// (it began from the placement found before, one move earlier).
    pub(super) fn settled_without_game(&mut self, t: u64, out: &mut Emitted) -> bool {
        if self.before.next_start.is_some() || self.before.replaced {
            // The arbiter announced a set-up (the game starts when the board shows it), or
            // moved this board's game to a replacement board.
            return false;
        }
        let placement = self.board.physical.placement(self.board.orientation).board;
        if let Some(found) = self.before.found.clone()
            && found.placement != placement
        {
            for turn in Color::ALL {
                if let Some(pos) = position_under_way(&found.placement, turn)
                    && reconstruct::one_move_to(&pos, &placement).is_some()
                {
                    self.begin_under_way(t, pos, found.orientation, ToMoveFrom::FirstMove, out);
                    self.after_early_press(found.seen_at);
                    return true;
                }
            }
        }
        if !may_be_under_way(&placement) {
            return false;
        }
        let calm_at = self.board.last_change + FOUND_CALM_MS;
        if t < calm_at {
            // A player may hold a piece during a move: the placement must stand still longer
            // than a settle before it is taken for the position of a game.
            self.timers.set(Timer::Settle, calm_at);
            return false;
        }
        if self
            .before
            .found
            .as_ref()
            .is_none_or(|f| f.placement != placement)
        {
            self.before.found = Some(FoundPlacement {
                placement,
                orientation: self.board.orientation,
                seen_at: t,
            });
        }
        if self.board_log_may_tell(t, out) {
            return false;
        }
        self.follow_found(t, out);
        false
    }

    /// The placement found is followed if its side to move is known (the clock, the
    /// position); otherwise the arbiter is told once that it waits for a move or a choice.
    pub(super) fn follow_found(&mut self, t: u64, out: &mut Emitted) {
        let Some(found) = self.before.found.clone() else {
            return;
        };
        let legal: Vec<(Color, Chess)> = Color::ALL
            .into_iter()
            .filter_map(|c| position_under_way(&found.placement, c).map(|p| (c, p)))
            .collect();
        let by_clock = self.clock_to_move();
        let chosen = match (by_clock, legal.as_slice()) {
            (Some(c), _) if legal.iter().any(|(l, _)| *l == c) => legal
                .into_iter()
                .find(|(l, _)| *l == c)
                .map(|(_, p)| (p, ToMoveFrom::Clock)),
            (None, [(_, p)]) => Some((p.clone(), ToMoveFrom::Position)),
            _ => None,
        };
        match chosen {
            Some((pos, how)) => self.begin_under_way(t, pos, found.orientation, how, out),
            None if !self.before.found_told => {
                self.before.found_told = true;
                let fen = found.placement.to_string();
                let verdict = UnderWayVerdict::ToMoveUnknown {
                    placement: found.placement,
                    clock_runs: self.clock.running().is_some(),
                };
                let mut a = self.under_way_alert(Severity::Review, None, verdict);
                a.fen = Some(fen);
                out.push((t, EventBody::Alert(a)));
            }
            None => {}
        }
    }

    /// White or Black on move by the running clock, when White's display is known.
    fn clock_to_move(&self) -> Option<Color> {
        let running = self.clock.running()?;
        let white = self.clock.white_side()?;
        Some(if running == white {
            Color::White
        } else {
            Color::Black
        })
    }

    /// A clock reading came while a placement found waits for its side to move.
    pub(super) fn clock_tells_found(&mut self, t: u64, out: &mut Emitted) {
        let standing = self.before.found.as_ref().is_some_and(|f| {
            f.placement == self.board.physical.placement(self.board.orientation).board
        });
        if standing
            && !self.phase().is_playing()
            && !self.timers.is_set(Timer::LogWait)
            && self.clock_to_move().is_some()
        {
            self.follow_found(t, out);
        }
    }

    /// The arbiter says who is on move (`under_way` op): the placement the board shows is
    /// followed as a game under way, with `turn` to move. Also corrects the side to move of a
    /// game found under way before its first move.
    pub(super) fn arbiter_sets_to_move(&mut self, t: u64, turn: Color, out: &mut Emitted) {
        let fresh = self
            .playing()
            .is_some_and(|g| self.watch.found_under_way && g.plies() == 0);
        if self.phase().is_playing() && !fresh {
            let mut a =
                self.under_way_alert(Severity::Info, None, UnderWayVerdict::ToMoveNotChanged);
            a.side = Some(turn.into());
            out.push((t, EventBody::Alert(a)));
            return;
        }
        let placement = self.board.physical.placement(self.board.orientation).board;
        match position_under_way(&placement, turn) {
            Some(pos) => {
                self.begin_under_way(t, pos, self.board.orientation, ToMoveFrom::Arbiter, out);
            }
            None => {
                let fen = placement.to_string();
                let verdict = UnderWayVerdict::NoLegalPosition {
                    placement,
                    to_move: turn,
                };
                let mut a = self.under_way_alert(Severity::Review, Some(turn), verdict);
                a.fen = Some(fen);
                out.push((t, EventBody::Alert(a)));
            }
        }
    }

    /// A `game_found_under_way` alert: its message and prescription are the verdict's.
    pub(super) fn under_way_alert(
        &self,
        severity: Severity,
        side: Option<Color>,
        verdict: UnderWayVerdict,
    ) -> Alert {
        let mut a = self.alert(
            AlertKind::GameFoundUnderWay,
            severity,
            side,
            verdict.message(),
        );
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        a
    }

    /// Begins the game found under way from `pos` and tells the arbiter.
    fn begin_under_way(
        &mut self,
        t: u64,
        pos: Chess,
        orientation: Orientation,
        how: ToMoveFrom,
        out: &mut Emitted,
    ) {
        let turn = pos.turn();
        let from = out.len();
        self.begin_game(t, pos, CastlingMode::Standard, orientation, out);
        self.watch.found_under_way = true;
        mark_found_under_way(&mut out[from..]);
        let verdict = UnderWayVerdict::Followed { to_move: turn, how };
        let a = self.under_way_alert(Severity::Review, Some(turn), verdict);
        out.push((t, EventBody::Alert(a)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> Board {
        fen.parse().expect("a placement")
    }

    #[test]
    fn a_set_up_in_progress_is_no_game() {
        assert!(setting_up(&board("4k3/pppppppp/8/8/8/8/PPPP4/RNBQK3")));
        assert!(!may_be_under_way(&board(
            "4k3/pppppppp/8/8/8/8/PPPP4/RNBQK3"
        )));
        assert!(!setting_up(&board(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
        )));
    }

    #[test]
    fn a_middlegame_is_under_way_with_castling_where_king_and_rook_stand_home() {
        let b = board("r3k2r/ppp2ppp/2n5/3qp3/8/2N5/PPP2PPP/R2QK1R1");
        assert!(may_be_under_way(&b));
        let pos = position_under_way(&b, Color::White).expect("legal");
        assert_eq!(
            reconstruct::fen(&pos),
            "r3k2r/ppp2ppp/2n5/3qp3/8/2N5/PPP2PPP/R2QK1R1 w Qkq - 0 1"
        );
    }

    #[test]
    fn the_side_not_to_move_cannot_stand_in_check() {
        // The black king is in check from the rook: only Black can be on move.
        let b = board("4k3/8/8/8/8/8/8/4RK2");
        assert!(position_under_way(&b, Color::White).is_none());
        assert!(position_under_way(&b, Color::Black).is_some());
    }

    #[test]
    fn a_start_position_or_a_lone_king_is_not_a_game_under_way() {
        assert!(!may_be_under_way(&Board::default()));
        assert!(!may_be_under_way(&board("4k3/8/8/8/8/8/8/8")));
    }
}
