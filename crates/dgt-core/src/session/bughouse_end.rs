//! A bughouse game's end as the regulation reads it: a mate or stalemate that waits for the
//! other game (DJC 5.4 / 5.5; Flemish 5.d / 6.f), the end it becomes, and the regulation's
//! flags (5.6, 5.8, 10.2).

use super::seat::Seat;
use super::*;
use crate::bughouse::{self, Regulation, Standing};
use crate::verdict::{BughouseEndVerdict, BughouseFlagVerdict};

impl Session {
    /// Mate and stalemate for the player on move. `fresh`: judged right after a move (a
    /// pending verdict is otherwise only re-checked, silently).
    pub(super) fn judge_standing(&mut self, t: u64, fresh: bool, out: &mut Emitted) {
        let (Some(seat), Some(g)) = (&mut self.bughouse, &self.game) else {
            return;
        };
        let pos = g.current();
        let on_move = pos.turn();
        let available = bughouse::reserve(&seat.partner, g, g.plies(), on_move, true);
        let standing = bughouse::standing(pos, seat.regulation, seat.reading, &available);
        let ply = g.plies();
        if standing == Standing::Play {
            seat.pending = None;
            return;
        }
        if !fresh {
            // Re-checked on a partner board's change: a mate lifted by a piece shown there
            // (a capture not yet pressed) stands again if that capture was taken back.
            if seat.regulation != Regulation::Flemish && seat.pending.is_none() {
                seat.pending = Some((ply, standing));
            }
            return;
        }
        let reg = seat.regulation;
        let partner_playing = seat.partner.ended.is_none();
        if reg == Regulation::Flemish {
            let a = self.flemish_standing(on_move, standing);
            out.push((t, EventBody::Alert(a)));
            return;
        }
        if !partner_playing {
            self.end_standing(t, standing, out);
            return;
        }
        if let Some(seat) = &mut self.bughouse {
            seat.pending = Some((ply, standing));
        }
        let kind = if standing == Standing::Mated {
            AlertKind::Checkmate
        } else {
            AlertKind::Stalemate
        };
        let verdict = BughouseEndVerdict::Provisional {
            side: on_move,
            standing,
        };
        let a = self.bughouse_end_alert(kind, Severity::Info, Some(on_move), reg, verdict);
        out.push((t, EventBody::Alert(a)));
    }

    /// A mate or stalemate under the Flemish regulation: the game ends only on the direct
    /// opponent's claim (6.f), and a stalemate draws only when both players of a team are
    /// stalemated without reserve pieces (5.d).
    fn flemish_standing(&self, on_move: Color, standing: Standing) -> Alert {
        let (kind, severity, verdict) = if standing == Standing::Mated {
            (
                AlertKind::Checkmate,
                Severity::Claim,
                BughouseEndVerdict::FlemishMate { side: on_move },
            )
        } else {
            (
                AlertKind::Stalemate,
                Severity::Info,
                BughouseEndVerdict::FlemishStalemate { side: on_move },
            )
        };
        self.bughouse_end_alert(kind, severity, Some(on_move), Regulation::Flemish, verdict)
    }

    /// An alert of a bughouse game's end: its message, article and prescription are the
    /// verdict's.
    fn bughouse_end_alert(
        &self,
        kind: AlertKind,
        severity: Severity,
        side: Option<Color>,
        reg: Regulation,
        verdict: BughouseEndVerdict,
    ) -> Alert {
        let mut a = self.alert(kind, severity, side, verdict.message());
        a.edition = reg.name().into();
        a.article = Some(verdict.article().into());
        a.prescription = Some(verdict.render());
        a.verdict = Some(Box::new(verdict.into()));
        a
    }

    /// A mate or stalemate becomes the result.
    pub(super) fn end_standing(&mut self, t: u64, standing: Standing, out: &mut Emitted) {
        let Some(seat) = &self.bughouse else { return };
        let reg = seat.regulation;
        let Some(g) = &self.game else { return };
        let on_move = g.current().turn();
        let (kind, reason) = if standing == Standing::Mated {
            (AlertKind::Checkmate, EndReason::Checkmate)
        } else {
            (AlertKind::Stalemate, EndReason::Stalemate)
        };
        let verdict = BughouseEndVerdict::Ended {
            side: on_move,
            standing,
        };
        let result = verdict.result().unwrap_or(GameResult::Drawn);
        let a = self.bughouse_end_alert(kind, Severity::Info, Some(on_move), reg, verdict);
        self.finish(t, a, result, reason, out);
    }

    /// Ends the game with `result`, after its alert.
    pub(super) fn finish(
        &mut self,
        t: u64,
        a: Alert,
        result: GameResult,
        reason: EndReason,
        out: &mut Emitted,
    ) {
        let Some(g) = &mut self.game else { return };
        if g.is_over() {
            return;
        }
        g.result = Some((result, reason));
        let id = g.id.clone();
        if let Some(seat) = &mut self.bughouse {
            seat.pending = None;
        }
        out.push((t, EventBody::Alert(a)));
        out.push((
            t,
            EventBody::GameEnd {
                game: id,
                result,
                reason,
            },
        ));
    }

    /// Flags under the DJC / KNSB regulation: both down is a draw the arbiter must declare
    /// at once (5.8, 10.2); one flag loses unless the opponent cannot win even with pieces
    /// he holds or may still receive (5.6) — while the other game runs he always may.
    /// Returns false where the FIDE rules decide (the Flemish regulation).
    pub(super) fn bughouse_flags(
        &mut self,
        t: u64,
        displays: &[ClockSide],
        out: &mut Emitted,
    ) -> bool {
        let Some(seat) = &self.bughouse else {
            return false;
        };
        if seat.regulation.fide_underneath() {
            return false;
        }
        let reg = seat.regulation;
        let (Some(white), Some(g)) = (self.clock.white_side(), &self.game) else {
            return true;
        };
        let last = self.clock.last().copied();
        let both = last.is_some_and(|l| l.left.flagged() && l.right.flagged());
        if both {
            self.both_flags_down(t, reg, out);
            return true;
        }
        let Some(&d) = displays.first() else {
            return true;
        };
        let flagged = if d == white {
            Color::White
        } else {
            Color::Black
        };
        let (severity, verdict) = flag_verdict(seat, g, flagged);
        let article = verdict.article();
        let mut a = self.alert(
            AlertKind::FlagFall,
            severity,
            Some(flagged),
            verdict.message(),
        );
        a.edition = reg.name().into();
        a.article = Some(article.into());
        a.prescription = Some(verdict.render());
        let result = verdict.result();
        a.verdict = Some(Box::new(verdict.into()));
        match result {
            Some(r) => {
                let reason = if article == "5.4" {
                    EndReason::Checkmate
                } else {
                    EndReason::FlagFall
                };
                self.finish(t, a, r, reason, out);
            }
            None => out.push((t, EventBody::Alert(a))),
        }
        true
    }

    /// Both flags down under the DJC / KNSB regulation: a draw the arbiter declares at once,
    /// the one case he acts without a request (5.8, 10.2).
    fn both_flags_down(&mut self, t: u64, reg: Regulation, out: &mut Emitted) {
        let a = self.bughouse_end_alert(
            AlertKind::BothFlagsFallen,
            Severity::Intervene,
            None,
            reg,
            BughouseEndVerdict::BothFlagsDown,
        );
        self.finish(t, a, GameResult::Drawn, EndReason::BothFlagsFallen, out);
    }
}

/// The verdict on `flagged`'s fallen flag (5.6): a player already mated or stalemated
/// is judged by that; while the other game runs the opponent may still receive pieces;
/// after it ended he wins if he can mate with what is on the board or in reserve.
fn flag_verdict(seat: &Seat, g: &Game, flagged: Color) -> (Severity, BughouseFlagVerdict) {
    let opp = !flagged;
    let on_move = g.current().turn();
    match seat.pending {
        Some((_, Standing::Mated)) if on_move == flagged => {
            (Severity::Info, BughouseFlagVerdict::WhileMated { flagged })
        }
        Some((_, Standing::Stalemated)) if on_move == flagged => (
            Severity::Review,
            BughouseFlagVerdict::WhileStalemated { flagged },
        ),
        _ if seat.partner.ended.is_none() => (
            Severity::Info,
            BughouseFlagVerdict::PartnerPlaying { flagged },
        ),
        _ => {
            let available = bughouse::reserve(&seat.partner, g, g.plies(), opp, true);
            let ability = crate::dead::full(g.current(), g.castling_mode, opp);
            let can =
                available.iter().any(|n| *n > 0) || ability != crate::dead::MateAbility::CannotMate;
            (
                Severity::Review,
                BughouseFlagVerdict::AfterOtherGame {
                    flagged,
                    can_win: can,
                    reserve: bughouse::reserve_words(&available),
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn seat() -> Seat {
        let m = bughouse::BughouseMatch {
            boards: ["a".into(), "b".into()],
            ..Default::default()
        };
        Seat::new(&m, "a")
    }

    fn game(fen: &str) -> Game {
        let pos: Chess = fen
            .parse::<Fen>()
            .expect("a FEN")
            .into_position(CastlingMode::Standard)
            .expect("a legal position");
        Game::new("a/1".into(), pos, CastlingMode::Standard)
    }

    const KINGS_ONLY: &str = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";

    #[test]
    fn a_flag_while_the_other_game_runs_waits_for_it() {
        let (severity, verdict) = flag_verdict(&seat(), &game(KINGS_ONLY), Color::White);
        assert_eq!(severity, Severity::Info);
        assert_eq!(
            verdict,
            BughouseFlagVerdict::PartnerPlaying {
                flagged: Color::White
            }
        );
    }

    #[test]
    fn a_flag_of_a_player_already_mated_is_judged_by_the_mate() {
        let mut s = seat();
        s.pending = Some((0, Standing::Mated));
        let (_, verdict) = flag_verdict(&s, &game(KINGS_ONLY), Color::White);
        assert_eq!(
            verdict,
            BughouseFlagVerdict::WhileMated {
                flagged: Color::White
            }
        );
        // The mate is the player on move's: the opponent's flag is judged as a flag.
        let (_, verdict) = flag_verdict(&s, &game(KINGS_ONLY), Color::Black);
        assert!(matches!(
            verdict,
            BughouseFlagVerdict::PartnerPlaying { .. }
        ));
    }

    #[test]
    fn a_flag_after_the_other_game_loses_only_if_the_opponent_can_win() {
        let mut s = seat();
        s.partner.ended = Some(GameResult::Drawn);
        let can_win = |fen| match flag_verdict(&s, &game(fen), Color::White) {
            (Severity::Review, BughouseFlagVerdict::AfterOtherGame { can_win, .. }) => can_win,
            other => panic!("not judged after the other game: {other:?}"),
        };
        assert!(!can_win(KINGS_ONLY));
        assert!(can_win(
            "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1".replace('Q', "q").as_str()
        ));
    }
}
