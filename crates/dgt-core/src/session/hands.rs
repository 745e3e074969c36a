//! How the pieces of a move were handled, as alerts (4.3, 4.4.2, 4.1 / 7.5.4): the
//! handling log's signals (`crate::handling`) read against the game and the edition.

use super::*;
use crate::verdict::HandsVerdict;

impl Session {
    /// Alerts for how the pieces of a move were handled (4.3, 4.4.2, 4.1/7.5.4).
    pub(super) fn handling_signals(
        &mut self,
        t: u64,
        mover: Color,
        m: &Move,
        shown_at: u64,
        out: &mut Emitted,
    ) {
        let since = self.handling_since(mover, m);
        let signals = self.board.handling.signals(
            mover,
            m,
            since,
            shown_at,
            HandlingThresholds {
                two_hands_window_ms: 2 * self.board.handling.scan_period_ms(),
                ..HandlingThresholds::default()
            },
        );
        let plies = self.game.as_ref().map_or(0, |g| g.plies());
        for s in signals {
            if let Signal::OpponentPieceHandled {
                square,
                lifted_at,
                off_ms,
            } = s
            {
                self.opponent_piece_handled(t, mover, square, lifted_at, off_ms, out);
                continue;
            }
            let Some((kind, article, verdict, unexcused)) = self.describe_signal(s, mover, plies)
            else {
                continue;
            };
            let severity = self.handling_severity(kind, unexcused);
            let message = verdict.message().unwrap_or_default();
            let mut a = self.alert(kind, severity, Some(mover), message);
            a.article = Some(article.into());
            // The alert is about the move being played now (the position is the one before).
            a.ply = a.ply.map(|p| p + 1);
            a.verdict = Some(Box::new(verdict.into()));
            out.push((t, EventBody::Alert(a)));
        }
        self.capture_hands_signal(t, mover, m, since, shown_at, out);
    }

    /// A capture whose two lifts came in one board report: what two hands show (4.1), an
    /// `info`; the player's pattern in this game a `review` (`capture_hands.rs`).
    fn capture_hands_signal(
        &mut self,
        t: u64,
        mover: Color,
        m: &Move,
        since: u64,
        until: u64,
        out: &mut Emitted,
    ) {
        use crate::capture_hands::{self as ch, Finding};
        let Some((at, gap_ms)) = ch::signature_of(&self.board.handling, mover, m, since, until)
        else {
            return;
        };
        let standard = self
            .rules
            .time_control
            .as_ref()
            .map(|_| !self.rapid_or_blitz());
        let left_ms = *self.clock.ms_by_color().get(mover);
        let s = ch::CaptureSignature {
            ply: self.game.as_ref().map_or(0, |g| g.plies() as u32 + 1),
            t_ms: at,
            gap_ms,
            from: m.from().unwrap_or(m.to()),
            to: m.to(),
            left_ms,
            pace: ch::HandPace::of(left_ms, standard),
        };
        let (severity, squares, verdict) = match self.watch.capture_hands.record(mover, s) {
            Finding::Single(s) => (
                Severity::Info,
                vec![s.from.to_string(), s.to.to_string()],
                HandsVerdict::CaptureSeen {
                    player: mover,
                    signature: s,
                    count: self.watch.capture_hands.count(mover),
                },
            ),
            // Art. 4 on a player's claim only (2005 rapid/blitz, B5): the arbiter is asked then.
            Finding::Pattern(seen) => (
                if self.rules.edition.art4_on_claim_in_rapid_blitz && self.rapid_or_blitz() {
                    Severity::Claim
                } else {
                    Severity::Review
                },
                seen.iter().map(|s| s.to.to_string()).collect(),
                HandsVerdict::CapturePattern {
                    player: mover,
                    seen,
                    offence: self.rules.edition.two_hands,
                },
            ),
        };
        let message = verdict.message().unwrap_or_default();
        let mut a = self.alert(AlertKind::TwoHandedMove, severity, Some(mover), message);
        a.article = Some("4.1".into());
        a.ply = a.ply.map(|p| p + 1);
        a.squares = squares;
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// Since when the handling counts for `mover`'s move `m`: since the board first showed
    /// the position, or for a castling from the last change on the squares of the
    /// opponent's move.
    fn handling_since(&self, mover: Color, m: &Move) -> u64 {
        // Castling begun with the rook while the board still reported the opponent's move
        // (in a time scramble the rook's squares come in the same scan as the opponent's
        // last square, protocol §4.1, so the board never showed that position alone and the
        // window would open after the rook moved): the castling's handling is read from the
        // last change on the squares of the opponent's move (its piece landing, or the
        // piece it took removed after).
        match (m, self.game.as_ref().and_then(|g| g.moves.last())) {
            (Move::Castle { .. }, Some(prev)) => self
                .board
                .handling
                .last_change_on(&move_squares(&prev.mv, !mover))
                .map_or(self.board.same_since, |at| at.min(self.board.same_since)),
            _ => self.board.same_since,
        }
    }

    /// The alert's kind, article and verdict for a signal of `mover`'s handling, and whether
    /// no announced adjustment excuses it; `None` for a signal alerted on its own.
    fn describe_signal(
        &self,
        s: Signal,
        mover: Color,
        plies: usize,
    ) -> Option<(AlertKind, crate::article::Article, HandsVerdict, bool)> {
        let edition = &self.rules.edition;
        let described = match s {
            // A touch no announced adjustment excuses: the piece had made an illegal move
            // from this position, taken back (7.5.1 → 4.3: the replacement move is made with
            // it).
            Signal::TouchMove { square, .. }
                if self.watch.illegal_piece == Some((plies, square)) =>
            {
                (
                    AlertKind::TouchMove,
                    edition.touch_move,
                    HandsVerdict::IllegalMovePieceNotReplaced { mover, square },
                    true,
                )
            }
            Signal::TouchMove { square, off_ms } => (
                AlertKind::TouchMove,
                edition.touch_move,
                HandsVerdict::PieceTouchedAnotherMoved {
                    mover,
                    square,
                    off_ms,
                },
                false,
            ),
            Signal::OpponentPieceHandled { .. } => return None,
            Signal::CastlingRookFirst { rook } => (
                AlertKind::CastlingRookFirst,
                edition.castling_rook_first,
                HandsVerdict::CastlingRookFirst { mover, rook },
                false,
            ),
            Signal::PromotionChanged {
                square,
                first,
                last,
            } => (
                AlertKind::PromotionChoiceChanged,
                edition.promotion_choice,
                HandsVerdict::PromotionChoiceChanged {
                    mover,
                    square,
                    first,
                    last,
                },
                false,
            ),
            Signal::TwoHands {
                first,
                second,
                gap_ms,
            } => (
                AlertKind::TwoHandedMove,
                edition.two_hands,
                HandsVerdict::TwoPiecesOffTogether {
                    first,
                    second,
                    gap_ms,
                },
                false,
            ),
        };
        Some(described)
    }

    /// How much a handling alert asks of the arbiter: on a claim only where the edition
    /// leaves Article 4 to a claim in rapid and blitz, a touch put back for information.
    fn handling_severity(&self, kind: AlertKind, unexcused: bool) -> Severity {
        if self.rules.edition.art4_on_claim_in_rapid_blitz && self.rapid_or_blitz() {
            Severity::Claim
        } else if kind == AlertKind::TouchMove && !unexcused {
            // A piece put back on its square: the Laws excuse it if "j'adoube" was said
            // first (4.2.1; 2005 4.2), and the board cannot hear it.
            Severity::Info
        } else {
            Severity::Review
        }
    }

    /// An opponent's piece lifted and put back while `mover` was on move: a hint, as the
    /// board cannot tell whose hand it was (4.3.2 / 4.2.1).
    fn opponent_piece_handled(
        &self,
        t: u64,
        mover: Color,
        square: shakmaty::Square,
        lifted_at: u64,
        off_ms: u64,
        out: &mut Emitted,
    ) {
        // Lifted before the mover's turn began (the opponent's press): it was the
        // opponent's own piece on his own time (knocked over, KNSB §4.1 #7).
        let turn_began = self
            .game
            .as_ref()
            .and_then(|g| g.moves.last())
            .map_or(0, |m| m.t_ms);
        if lifted_at < turn_began {
            return;
        }
        let verdict = HandsVerdict::OpponentPieceLifted {
            mover,
            role: self
                .game
                .as_ref()
                .and_then(|g| g.current().board().role_at(square)),
            square,
            off_ms,
        };
        let message = verdict.message().unwrap_or_default();
        let mut a = self.alert(AlertKind::TouchMove, Severity::Info, Some(mover), message);
        a.article = Some(self.rules.edition.touch_opponent_piece.into());
        a.squares = vec![square.to_string()];
        a.ply = a.ply.map(|p| p + 1);
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }
}

/// The squares a move changes: from and to, the pawn taken en passant, the four of a castling.
fn move_squares(m: &Move, mover: Color) -> Vec<shakmaty::Square> {
    match *m {
        Move::EnPassant { from, to } => {
            vec![
                from,
                to,
                shakmaty::Square::from_coords(to.file(), from.rank()),
            ]
        }
        Move::Castle { king, rook } => {
            let mut v = vec![king, rook];
            if let Some(side) = m.castling_side() {
                v.push(side.king_to(mover));
                v.push(side.rook_to(mover));
            }
            v
        }
        _ => m.from().into_iter().chain([m.to()]).collect(),
    }
}
