//! Offences and their counting: illegal moves completed by a press (7.5; 2005 7.4), play
//! going on from a formally illegal position, the reduced-supervision windows (A.4.2 / B.4),
//! the penalties by edition and category, a wrong claim's penalty, and the arbiter's
//! confirmation of a two-handed move (7.5.4; 2017 7.7).

use super::*;
use crate::verdict::{
    AdoptedIllegalMove, Article, IllegalChange, IllegalMoveVerdict, IllegalPlacement, LostTrack,
    OffenceDecision, OffenceVerdict, Remedy, Replacement, StandingIllegalPosition, Verdict,
    WhatChanged,
};

pub(super) use crate::verdict::LostBecause;

/// An illegal move that stood and was answered (`adopt_illegal`): the move as one step,
/// the position it left, and the answer read from the board.
struct Stood {
    step: reconstruct::IllegalStep,
    after: Chess,
    /// The legal moves that answered it; `None` when the answer was itself illegal.
    path: Option<Vec<Move>>,
    answered_illegally: bool,
}

/// Whether `shown` can be one move of `mover` from `before`, legal or not: at most four
/// squares changed (castling moves two pieces, 3.8.2; en passant empties a third square),
/// and no piece of the opponent appears on a square it did not stand on — the opponent's
/// pieces can only be captured. Anything else is not a move the Laws could count as an
/// illegal one (7.5.1), and counting it would escalate a misread board into offences.
pub(super) fn could_be_one_move(
    before: &shakmaty::Board,
    shown: &shakmaty::Board,
    mover: Color,
) -> bool {
    let d = board::diff(before, shown);
    d.count() <= 4
        && d.into_iter()
            .all(|sq| shown.color_at(sq).is_none_or(|c| c == mover))
}

impl Session {
    pub(super) fn illegal_at_press(
        &mut self,
        t: u64,
        mover: Color,
        shown: &shakmaty::Board,
        out: &mut Emitted,
    ) {
        if self.promotion_forfeited(t, mover, shown, out) {
            return;
        }
        let Some(g) = &self.game else { return };
        let before = fen(g.current());
        let pos = g.current();
        let d = board::diff(pos.board(), shown);
        let ply = g.plies() as u32 + 1;
        let game_id = g.id.clone();
        let both_checks = both_kings_in_check(shown);
        let onto_piece = self.drop_onto_piece(mover, shown);
        let (kind, article, change) =
            self.illegal_change(pos, mover, shown, onto_piece, both_checks);
        // The piece the mover moved: the replacement move is made with it (4.3 / 4.5).
        let moved = (d & pos.board().by_color(mover))
            .into_iter()
            .find(|sq| shown.piece_at(*sq) != pos.board().piece_at(*sq));
        let remedy = self.illegal_remedy(kind, pos, moved);
        let logged = g.moves.last().map(|m| (m.white_ms, m.black_ms));
        self.watch.illegal_piece = moved.map(|sq| (g.plies(), sq));
        let arbiter_acts = kind == AlertKind::PromotionIncomplete || both_checks;
        let (severity, prescription, verdict) =
            self.illegal_prescription(mover, remedy, arbiter_acts);
        let change = IllegalChange {
            offender: mover,
            change,
            number: self.count_offence(mover, Offence::IllegalMove),
        };
        let mut a = self.alert(kind, severity, Some(mover), change.message());
        a.evidence = Some(Box::new(change.into()));
        a.article = Some(article.into());
        if let Some((_, _, reg)) = onto_piece {
            a.edition = reg.name().into();
        }
        a.ply = Some(ply);
        a.fen = Some(format!("{} (on the board)", shown));
        a.fen_before = Some(before);
        a.game = Some(game_id);
        a.squares = board::square_names(d);
        a.prescription = Some(prescription);
        a.verdict = Some(Box::new(verdict));
        if let Some((w, b)) = logged {
            (a.white_ms, a.black_ms) = (w, b);
        }
        self.watch.illegal_alerted = true;
        // Play may go on from it (reduced supervision, or nobody intervening).
        self.watch.stood = Some((shown.clone(), mover));
        out.push((t, EventBody::Alert(a)));
    }

    /// What a press completed that no legal move explains, in the order the Laws single it
    /// out: a bughouse drop onto a piece (2.3; Flemish 5.c), a pawn left on the last rank
    /// (promotion not completed), or an illegal move — with its alert kind and article.
    fn illegal_change(
        &self,
        pos: &Chess,
        mover: Color,
        shown: &shakmaty::Board,
        onto_piece: Option<(
            shakmaty::Square,
            shakmaty::Role,
            crate::bughouse::Regulation,
        )>,
        both_kings_in_check: bool,
    ) -> (AlertKind, Article, WhatChanged) {
        if let Some((square, dropped, reg)) = onto_piece {
            return (
                AlertKind::IllegalDrop,
                reg.article(crate::bughouse::DropFault::Occupied),
                WhatChanged::DropOntoPiece {
                    dropped,
                    square,
                    there: pos.board().role_at(square),
                },
            );
        }
        if let Some(square) = reconstruct::unpromoted_pawn_since(pos.board(), shown) {
            return (
                AlertKind::PromotionIncomplete,
                self.rules.edition.promotion_incomplete,
                WhatChanged::PromotionIncomplete { square },
            );
        }
        let king_captured =
            captures_king(pos.board(), shown, mover).then_some(self.rules.edition.king_capture);
        (
            AlertKind::IllegalMove,
            self.rules.edition.illegal_move,
            WhatChanged::Move {
                squares: board::diff(pos.board(), shown).into_iter().collect(),
                both_kings_in_check,
                king_captured,
            },
        )
    }

    /// The remedy for an illegal change: a pawn left unpromoted becomes a queen where the
    /// edition says so; otherwise the position before it is restored and a replacement move
    /// made — with the piece moved if it can move (4.3 / 4.5), else with any piece.
    fn illegal_remedy(
        &self,
        kind: AlertKind,
        pos: &Chess,
        moved: Option<shakmaty::Square>,
    ) -> Remedy {
        let edition = &self.rules.edition;
        if kind == AlertKind::PromotionIncomplete && edition.promotion_queen_stays {
            return Remedy::QueenForPawn {
                article: edition.promotion_incomplete,
            };
        }
        let replacement = match moved {
            Some(square)
                if reconstruct::legal_moves(pos)
                    .iter()
                    .any(|m| m.from() == Some(square)) =>
            {
                Replacement::WithPiece {
                    square,
                    article: edition.touch_move,
                }
            }
            Some(square) => Replacement::AnyLegalMove { square },
            None => Replacement::PieceTouched {
                article: edition.touch_move,
            },
        };
        Remedy::Restore {
            article: edition.illegal_move,
            replacement,
        }
    }

    /// The opponent moved from the position an illegal move left: the illegal move is taken
    /// into the game as it stood (tracking goes on from a formally illegal position), then
    /// the reply. Under full supervision the arbiter must still reinstate the position
    /// (7.5.1); under reduced supervision the illegal move now stands (A.4.2 / B.4).
    pub(super) fn adopt_illegal(&mut self, t: u64, out: &mut Emitted) -> bool {
        let Some((shown, mover)) = self.watch.stood.clone() else {
            return false;
        };
        let Some(g) = &self.game else { return false };
        let before_plies = g.plies();
        let Some(stood) = self.illegal_to_adopt(g, &shown, mover) else {
            return false;
        };
        if self.watch.adopted_at == Some(before_plies) {
            // A second illegal move to take as it stood, with no legal move since the first:
            // the board is no longer following the game. Stop reading moves from it.
            self.lose_track(t, out, LostBecause::SecondIllegalStood);
            return false;
        }
        let Stood {
            step,
            after,
            path,
            answered_illegally,
        } = stood;
        let clocks = self.clock.white_black_ms();
        let Some(g) = &mut self.game else {
            return false;
        };
        let san = step.san.clone();
        let ply = g.push_illegal(step.clone(), after, t, clocks);
        self.watch.adopted_at = Some(ply as usize);
        out.push((
            t,
            EventBody::Move(MoveEvent {
                game: g.id.clone(),
                ply,
                side: mover.into(),
                uci: step.uci,
                san: san.clone(),
                fen: fen(g.current()),
                white_ms: clocks.0,
                black_ms: clocks.1,
            }),
        ));
        let mut a = self.adopted_alert(mover, &shown, &san, answered_illegally);
        a.ply = Some(ply);
        out.push((t, EventBody::Alert(a)));
        self.watch.stood = None;
        self.watch.illegal_alerted = false;
        match path {
            Some(path) => {
                self.commit(t, &path, false, out);
                true
            }
            None => false,
        }
    }

    /// Whether the board now shows the opponent's answer to the illegal move `shown` of
    /// `mover`: the illegal move read as one step, the position after it, and the answer —
    /// legal moves from there, or an illegal answer of its own.
    fn illegal_to_adopt(&self, g: &Game, shown: &shakmaty::Board, mover: Color) -> Option<Stood> {
        let mut placement = self.board.physical.placement(self.board.orientation);
        placement.board = self.seen_board();
        if placement.board == *shown {
            return None;
        }
        let before = g.current();
        let after = reconstruct::position_after_illegal(before, shown, g.castling_mode)?;
        let mut budget = 50_000;
        let path = reconstruct::find_path(&after, &placement.board, 2, &mut budget);
        // The opponent answered with an illegal move of his own (e.g. taking the king left in
        // check, 1.4.1): both are reported; the first is taken into the game as made.
        let answered_illegally = path.is_none()
            && reconstruct::illegal_step(after.board(), &placement.board, !mover)
                .is_some_and(|s| reconstruct::step_explains(after.board(), &s, &placement.board));
        if path.is_none() && !answered_illegally {
            return None;
        }
        let step = reconstruct::illegal_step(before.board(), shown, mover)?;
        // Only a move is taken into the game: one piece of the mover from one square to
        // another (a pawn may change into another piece, 3.7.5). Pieces gone or changed
        // elsewhere are a displacement (7.1), and reading them as a move would invent one.
        let one_piece = reconstruct::step_explains(before.board(), &step, shown)
            && (step.mv.promotion().is_none() || step.mv.role() == shakmaty::Role::Pawn);
        one_piece.then_some(Stood {
            step,
            after,
            path,
            answered_illegally,
        })
    }

    /// The alert for an illegal move taken into the game as it stood: reinstated under full
    /// supervision (7.5.1), standing under reduced supervision (A.4.2 / B.4), and for the
    /// arbiter to decide when the answer was itself illegal.
    fn adopted_alert(
        &self,
        mover: Color,
        shown: &shakmaty::Board,
        san: &str,
        answered_illegally: bool,
    ) -> Alert {
        let reduced = self.reduced();
        let article = if reduced {
            self.window_article()
        } else {
            self.rules.edition.illegal_move
        };
        let (offender, notation) = (mover, san.to_string());
        let (severity, verdict) = if answered_illegally {
            (
                Severity::Intervene,
                AdoptedIllegalMove::AnsweredIllegally {
                    offender,
                    notation,
                    window: article,
                    reinstate: self.rules.edition.illegal_move,
                },
            )
        } else if reduced {
            (
                Severity::Info,
                AdoptedIllegalMove::Stands { offender, notation },
            )
        } else {
            (
                Severity::Intervene,
                match reconstruct::unpromoted_pawn(shown) {
                    Some(square) if self.rules.edition.promotion_queen_stays => {
                        AdoptedIllegalMove::PawnToQueen {
                            offender,
                            square,
                            article: self.rules.edition.promotion_incomplete,
                        }
                    }
                    _ => AdoptedIllegalMove::Reinstate { offender, notation },
                },
            )
        };
        let mut a = self.alert(
            AlertKind::IllegalMove,
            severity,
            Some(mover),
            verdict.message(),
        );
        a.prescription = verdict.render();
        a.verdict = Some(Box::new(verdict.into()));
        a.article = Some(article.into());
        a
    }

    /// Tracking is lost: the board shows changes that no legal move explains, twice in a
    /// row — reading on would invent moves nobody made, and each could count as an offence.
    /// The arbiter is told once (`illegal_position`, review); no move is read and no offence
    /// counted until the board shows a position the game explains — a legal continuation,
    /// the last legal position or an earlier one (7.1), or a set-up for a new game.
    pub(super) fn lose_track(&mut self, t: u64, out: &mut Emitted, because: LostBecause) {
        self.watch.stood = None;
        self.watch.lost_track = true;
        self.watch.illegal_alerted = true;
        self.timers.clear(Timer::IllegalPosition);
        let Some(g) = &self.game else { return };
        let placement = self.board.physical.placement(self.board.orientation).board;
        let d = board::diff(g.current().board(), &placement);
        let verdict = LostTrack {
            because,
            squares: board::square_names(d),
            ply: g.plies(),
        };
        let mut a = self.alert(
            AlertKind::IllegalPosition,
            Severity::Review,
            None,
            verdict.message(),
        );
        a.fen = Some(format!("{placement} (on the board)"));
        a.fen_before = Some(fen(g.current()));
        a.squares = verdict.squares.clone();
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// A.4.4 / A.5.4 (2017 A4.4): under reduced supervision an illegal position — both kings
    /// in check, or a pawn on its last rank — that stood is watched: if it is still on the
    /// board after the next completed move, the arbiter declares the game drawn.
    pub(super) fn track_illegal_position(&mut self, t: u64, out: &mut Emitted) {
        let Some(article) = self
            .rules
            .edition
            .illegal_position_draw
            .filter(|_| self.reduced())
        else {
            return;
        };
        let Some(g) = &self.game else { return };
        let ply = g.plies() as u32;
        let board = g.current().board();
        let what = if both_kings_in_check(board) {
            IllegalPlacement::BothKingsInCheck
        } else if let Some(sq) = reconstruct::unpromoted_pawn(board) {
            IllegalPlacement::PawnOnLastRank(sq)
        } else {
            self.watch.illegal_standing = None;
            return;
        };
        let (severity, verdict) = match self.watch.illegal_standing {
            None => {
                self.watch.illegal_standing = Some((ply, false));
                (
                    Severity::Review,
                    StandingIllegalPosition::Seen { ply, what, article },
                )
            }
            Some((seen, false)) if ply > seen => {
                self.watch.illegal_standing = Some((seen, true));
                (
                    Severity::Intervene,
                    StandingIllegalPosition::StillThere {
                        seen,
                        what,
                        article,
                    },
                )
            }
            _ => return,
        };
        let mut a = self.alert(
            AlertKind::IllegalPosition,
            severity,
            None,
            verdict.message(),
        );
        a.article = Some(article.into());
        a.ply = Some(ply);
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        out.push((t, EventBody::Alert(a)));
    }

    /// Whether the rapid / blitz rules with reduced supervision apply (2005: always in rapid
    /// and blitz; 2017+: when the event says so).
    pub(super) fn reduced(&self) -> bool {
        self.rapid_or_blitz()
            && (self.rules.supervision == Supervision::Reduced
                || self.rules.edition.rapid_blitz_claim_only)
    }

    /// The article of the reduced-supervision window for the game's category.
    pub(super) fn window_article(&self) -> Article {
        use crate::time_control::Category;
        let blitz = self
            .rules
            .time_control
            .as_ref()
            .is_some_and(|tc| self.category_of(tc) == Category::Blitz);
        if blitz {
            self.rules.edition.reduced_window_blitz
        } else {
            self.rules.edition.reduced_window
        }
    }

    /// The severity and prescription of an illegal move (or unfinished promotion) completed
    /// by `mover`: full supervision 7.5 (2005 7.4); reduced supervision the window rules
    /// (2017 A4.2 loss; 2018 A.4.2 / 2023 A.5.2 as 7.5.5; 2005 only on a claim, B6 / C3).
    ///
    /// `arbiter_acts`: a pawn left on its last rank, or both kings in check — the cases in
    /// which the 2005 rapid arbiter intervenes without a claim (B6; not in blitz, C2).
    pub(super) fn illegal_prescription(
        &self,
        mover: Color,
        remedy: Remedy,
        arbiter_acts: bool,
    ) -> (Severity, String, Verdict) {
        let verdict: Verdict = if let Some(seat) = &self.bughouse
            && !seat.regulation.fide_underneath()
        {
            IllegalMoveVerdict::BughouseOnDemand {
                offender: mover,
                remedy,
            }
            .into()
        } else {
            let offence = self.offence_verdict(mover, Offence::IllegalMove, remedy);
            if self.reduced() {
                self.reduced_illegal_verdict(offence, arbiter_acts).into()
            } else {
                offence.into()
            }
        };
        let severity = match verdict.illegal_move() {
            Some(v) if v.on_claim() => Severity::Claim,
            _ => Severity::Intervene,
        };
        let text = verdict.render().unwrap_or_default();
        (severity, text, verdict)
    }

    /// The window rules of reduced supervision around the offence's verdict.
    fn reduced_illegal_verdict(
        &self,
        offence: OffenceVerdict,
        arbiter_acts: bool,
    ) -> IllegalMoveVerdict {
        let offender = offence.offender;
        let window = self.window_article();
        let blitz_2005 = window == self.rules.edition.reduced_window_blitz
            && window != self.rules.edition.reduced_window;
        let ability = || {
            self.game
                .as_ref()
                .map(|g| crate::dead::full(g.current(), g.castling_mode, !offender))
        };
        if self.rules.edition.rapid_blitz_claim_only && arbiter_acts && !blitz_2005 {
            IllegalMoveVerdict::ArbiterIntervenes { window, offence }
        } else if self.rules.edition.rapid_blitz_claim_only && blitz_2005 {
            IllegalMoveVerdict::OnClaimWinsOrDrawn {
                offender,
                window,
                drawn: ability() == Some(MateAbility::CannotMate),
            }
        } else if self.rules.edition.rapid_blitz_claim_only {
            IllegalMoveVerdict::OnClaim { window, offence }
        } else if self.rules.edition.reduced_first_illegal_loses {
            IllegalMoveVerdict::SeenInTimeLoses {
                offender,
                window,
                opponent_can_mate: match ability() {
                    Some(MateAbility::CannotMate) => Some(false),
                    Some(MateAbility::CanMate) => Some(true),
                    _ => None,
                },
            }
        } else {
            IllegalMoveVerdict::WithinWindow { window, offence }
        }
    }

    /// The counter an offence adds to: one for everything (2018+: 7.5.5), or per article
    /// (2017 as printed: 7.5 and 7.8 separately).
    pub(super) fn offence_class(&self, offence: Offence) -> usize {
        Offences::class(offence, self.rules.edition.separate_counters)
    }

    pub(super) fn count_offence(&mut self, side: Color, offence: Offence) -> u32 {
        let class = self.offence_class(offence);
        self.watch.offences.count(class, side)
    }

    /// Whether the game is rapid or blitz (its time control, within the configured bounds).
    /// The category of a time control under the edition in force (or the configured
    /// boundaries).
    pub(super) fn category_of(&self, tc: &TimeControl) -> crate::time_control::Category {
        crate::config::category(
            tc,
            &self.rules.edition,
            self.rules.blitz_max,
            self.rules.rapid_max,
        )
    }

    pub(super) fn rapid_or_blitz(&self) -> bool {
        use crate::time_control::Category;
        self.rules
            .time_control
            .as_ref()
            .is_some_and(|tc| self.category_of(tc) != Category::Standard)
    }

    /// Time added to the opponent for an offence, by category and supervision.
    pub(super) fn penalty_ms(&self) -> u64 {
        use crate::time_control::Category;
        let category = self
            .rules
            .time_control
            .as_ref()
            .map(|tc| self.category_of(tc));
        match (category, self.rules.supervision) {
            (Some(Category::Rapid), _) => self.rules.edition.penalty_ms_rapid,
            (Some(Category::Blitz), Supervision::Full) => self.rules.edition.penalty_ms_blitz_full,
            (Some(Category::Blitz), Supervision::Reduced) => {
                self.rules.edition.penalty_ms_blitz_reduced
            }
            _ => self.rules.edition.penalty_ms_standard,
        }
    }

    /// The penalty for an incorrect draw claim by `claimant` (9.5.3: time to the opponent,
    /// by category as for an offence; 2005 9.5b: three minutes to the opponent and a cut in
    /// the claimant's own time).
    pub(super) fn wrong_claim_penalty(
        &self,
        claimant: Color,
    ) -> crate::verdict_claim::WrongClaimPenalty {
        use crate::verdict_claim::{OwnTimeCut, WrongClaimPenalty};
        let article = self.rules.edition.wrong_claim_penalty;
        if self.rules.edition.wrong_claim_cuts_own_time {
            return WrongClaimPenalty {
                add_ms: 180_000,
                article,
                own_time: Some(OwnTimeCut::of(self.clock.ms_by_color()[claimant])),
            };
        }
        WrongClaimPenalty {
            add_ms: self.penalty_ms(),
            article,
            own_time: None,
        }
    }

    /// The verdict on the next offence of `side`, as data: the remedy and the time penalty,
    /// or the loss (or draw) at the offence that decides the game.
    pub(super) fn offence_verdict(
        &self,
        side: Color,
        offence: Offence,
        remedy: Remedy,
    ) -> OffenceVerdict {
        let class = self.offence_class(offence);
        let n = self.watch.offences.so_far(class, side) + 1;
        let penalty_article = match offence {
            Offence::PressWithoutMove => self
                .rules
                .edition
                .press_without_move_penalty
                .unwrap_or(self.rules.edition.illegal_move_penalty),
            Offence::IllegalMove => self.rules.edition.illegal_move_penalty,
            // 2017 7.7 carries its own penalty; later editions penalise it as an illegal
            // move (7.5.4 → 7.5.5).
            Offence::TwoHands if self.rules.edition.separate_counters => {
                self.rules.edition.two_hands
            }
            Offence::TwoHands => self.rules.edition.illegal_move_penalty,
        };
        let decision = if n >= self.rules.edition.illegal_moves_to_lose {
            let ability = self
                .game
                .as_ref()
                .map(|g| crate::dead::full(g.current(), g.castling_mode, !side));
            match (self.rules.edition.illegal_loss_draw_if_no_mate, ability) {
                (false, _) | (true, Some(MateAbility::CanMate)) => OffenceDecision::Loses,
                (true, Some(MateAbility::CannotMate)) => OffenceDecision::Drawn,
                _ => OffenceDecision::LosesUnlessOpponentCannotMate,
            }
        } else {
            OffenceDecision::TimeToOpponent {
                add_ms: self.penalty_ms(),
                loses_at: self.rules.edition.illegal_moves_to_lose,
            }
        };
        OffenceVerdict {
            offender: side,
            number: n,
            article: penalty_article,
            remedy,
            decision,
        }
    }

    /// The arbiter confirmed a two-handed-move alert (4.1): 2018+ it is penalised as an
    /// illegal move (7.5.4, counting towards 7.5.5); 2017 it has its own count (7.7.1 /
    /// 7.7.2); 2005 sets no penalty (4.1; 13.4 at the arbiter's discretion). The move stands.
    pub(super) fn confirm(&mut self, t: u64, id: u64, out: &mut Emitted) {
        let Some((mover, ply)) = self.watch.offences.confirmed(id) else {
            return;
        };
        if self.game.as_ref().is_none_or(|g| g.is_over()) {
            return;
        }
        let name = arbiter::side_name(mover);
        let counted = self.rules.edition.two_hands_counted;
        let verdict =
            counted.then(|| self.offence_verdict(mover, Offence::TwoHands, Remedy::MoveStands));
        let prescription = if let Some(v) = &verdict {
            self.count_offence(mover, Offence::TwoHands);
            v.render()
        } else {
            "The move stands. This edition sets no penalty for it (4.1); the arbiter may penalise under 13.4.".to_string()
        };
        let message = if counted {
            let class = self.offence_class(Offence::TwoHands);
            let n = self.watch.offences.so_far(class, mover);
            format!(
                "The arbiter confirmed that {name} made the move at ply {ply} with two hands; offence number {n} for {name}."
            )
        } else {
            format!("The arbiter confirmed that {name} made the move at ply {ply} with two hands.")
        };
        let mut a = self.alert(
            AlertKind::TwoHandedMove,
            Severity::Intervene,
            Some(mover),
            message,
        );
        a.article = Some(self.rules.edition.two_hands.into());
        a.ply = Some(ply);
        a.prescription = Some(prescription);
        a.verdict = verdict.map(|v| Box::new(v.into()));
        out.push((t, EventBody::Alert(a)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edition::Edition;
    use shakmaty::Square;

    fn session(edition: Edition) -> Session {
        let mut s = Session::new("b", &CoreConfig::default());
        s.rules.edition = arbiter::edition_with(edition, None);
        s
    }

    #[test]
    fn the_replacement_move_is_made_with_the_piece_moved_if_it_can_move() {
        let s = session(Edition::Fide2023);
        let start = Chess::default();
        let touch_move = s.rules.edition.touch_move;
        let restore = |replacement| Remedy::Restore {
            article: s.rules.edition.illegal_move,
            replacement,
        };
        assert_eq!(
            s.illegal_remedy(AlertKind::IllegalMove, &start, Some(Square::E2)),
            restore(Replacement::WithPiece {
                square: Square::E2,
                article: touch_move
            })
        );
        // The rook on a1 has no legal move: any legal move replaces the illegal one.
        assert_eq!(
            s.illegal_remedy(AlertKind::IllegalMove, &start, Some(Square::A1)),
            restore(Replacement::AnyLegalMove { square: Square::A1 })
        );
        assert_eq!(
            s.illegal_remedy(AlertKind::IllegalMove, &start, None),
            restore(Replacement::PieceTouched {
                article: touch_move
            })
        );
    }

    #[test]
    fn a_pawn_left_unpromoted_becomes_a_queen_only_where_the_edition_says_so() {
        let start = Chess::default();
        let s = session(Edition::Fide2023);
        assert_eq!(
            s.illegal_remedy(AlertKind::PromotionIncomplete, &start, None),
            Remedy::QueenForPawn {
                article: s.rules.edition.promotion_incomplete
            }
        );
        let s = session(Edition::Fide2005);
        assert!(matches!(
            s.illegal_remedy(AlertKind::PromotionIncomplete, &start, None),
            Remedy::Restore { .. }
        ));
    }

    #[test]
    fn a_change_of_more_than_one_move_is_no_illegal_move() {
        let before = Chess::default().board().clone();
        let mut shown = before.clone();
        shown.discard_piece_at(Square::E2);
        shown.set_piece_at(Square::E5, shakmaty::Piece::from_char('P').unwrap());
        assert!(could_be_one_move(&before, &shown, Color::White));
        // A black piece appearing where it did not stand: no move of White puts it there.
        shown.set_piece_at(Square::D4, shakmaty::Piece::from_char('n').unwrap());
        assert!(!could_be_one_move(&before, &shown, Color::White));
    }
}
