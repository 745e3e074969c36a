//! Typed verdicts: what the Laws prescribe for an offence (7.5.5, 2017 7.7 / 7.8, 2005 7.4b)
//! as data — the remedy, the time given to the opponent, the result decided, the article —
//! and the English text an alert's `prescription` carries, rendered here and only here; the
//! same for what a fallen flag decides (6.9, both flags, a period reached) and what the
//! clock checks prescribe (8.4, III.5, 6.10.2).

use shakmaty::Color;

pub use crate::article::Article;
pub use crate::outcome::GameResult;
pub use crate::remedy::{Remedy, Replacement};
pub use crate::verdict_bughouse_end::BughouseEndVerdict;
pub use crate::verdict_claim::{ClaimDecision, ClaimVerdict, OwnTimeCut, WrongClaimPenalty};
pub use crate::verdict_clock::{ClockSettingVerdict, ClockVerdict, SettingMismatch};
pub use crate::verdict_drop::DropVerdict;
pub use crate::verdict_equipment::EquipmentVerdict;
pub use crate::verdict_evidence::Evidence;
pub use crate::verdict_flag::{CalledBy, FlagCall, FlagDecision, FlagFall, FlagVerdict};
pub use crate::verdict_hands::HandsVerdict;
pub use crate::verdict_illegal_change::{IllegalChange, WhatChanged};
pub use crate::verdict_match::{MatchVerdict, Team};
pub use crate::verdict_position::{
    AdoptedIllegalMove, IllegalPlacement, LostBecause, LostTrack, SetupVerdict,
    StandingIllegalPosition,
};
pub use crate::verdict_record::{FlagNotCalled, RecordVerdict};
pub use crate::verdict_seat::SeatVerdict;
pub use crate::verdict_under_way::{ToMoveFrom, UnderWayVerdict};
pub use crate::words::{hmmss, mmss, seconds, side_name};

/// The verdict on an offence of `offender` (an illegal move, a press without a move, a move
/// made with two hands), before it is counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffenceVerdict {
    pub offender: Color,
    /// Which offence of the offender's this is (1 for the first).
    pub number: u32,
    /// The penalty article (7.5.5; 2017 7.5.3 / 7.7.1 / 7.8.1; 2005 7.4b).
    pub article: Article,
    /// What is done on the board first (the position restored, the move left standing).
    pub remedy: Remedy,
    pub decision: OffenceDecision,
}

/// What the offence decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffenceDecision {
    /// The game goes on: `add_ms` to the opponent's clock (0 where the category adds none);
    /// offence number `loses_at` loses.
    TimeToOpponent { add_ms: u64, loses_at: u32 },
    /// The offence loses the game for the offender.
    Loses,
    /// The offence would lose, but the opponent cannot checkmate by any series of legal
    /// moves: drawn.
    Drawn,
    /// The offender loses unless the opponent cannot checkmate, which could not be decided:
    /// the arbiter examines the position.
    LosesUnlessOpponentCannotMate,
}

impl OffenceVerdict {
    /// The opponent of the offender: who gets the time, or the game.
    pub fn opponent(&self) -> Color {
        !self.offender
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        let name = side_name(self.offender);
        let opp = side_name(self.opponent());
        let (n, article) = (self.number, self.article);
        let verdict = match self.decision {
            OffenceDecision::TimeToOpponent { add_ms, loses_at } => {
                let time = if add_ms == 0 {
                    "no time is added in this category".to_string()
                } else {
                    format!("add {} minute(s) to {opp}'s clock", add_ms / 60_000)
                };
                return format!(
                    "{}; {time} ({article}). This is {name}'s offence number {n}; number {loses_at} loses.",
                    self.remedy
                );
            }
            OffenceDecision::Loses => format!("{name} loses the game"),
            OffenceDecision::Drawn => {
                format!("the game is drawn: {opp} cannot checkmate by any series of legal moves")
            }
            OffenceDecision::LosesUnlessOpponentCannotMate => format!(
                "{name} loses, unless {opp} cannot checkmate by any series of legal moves (undetermined: examine the position)"
            ),
        };
        format!("{name}'s offence number {n}: {verdict} ({article}).")
    }
}

/// What an illegal move (or an unfinished promotion) completed by a press prescribes where
/// more than the offence's own verdict applies: bughouse, reduced supervision (the window
/// rules of A.4.2 / B.4; 2017 A4.2; 2005 B6 / C3, only on a claim).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IllegalMoveVerdict {
    /// Bughouse (DJC 7.4-7.6, 10.1, 10.3): the remedy only if the opponent demands it; no
    /// time is added and no count loses by itself.
    BughouseOnDemand { offender: Color, remedy: Remedy },
    /// Reduced supervision, 2005 rapid: a case in which the arbiter intervenes without a
    /// claim (a pawn left on its last rank, both kings in check; B6).
    ArbiterIntervenes {
        window: Article,
        offence: OffenceVerdict,
    },
    /// Reduced supervision, 2005 rapid: the offence's verdict only on the opponent's claim
    /// before his own move (B6).
    OnClaim {
        window: Article,
        offence: OffenceVerdict,
    },
    /// Reduced supervision, 2005 blitz (C3): on the opponent's claim he wins, or the game is
    /// drawn — `drawn` where he is known not to be able to checkmate.
    OnClaimWinsOrDrawn {
        offender: Color,
        window: Article,
        drawn: bool,
    },
    /// Reduced supervision, 2017 (A4.2): seen or claimed in time, the offender loses, or the
    /// game is drawn if the opponent cannot checkmate (`None`: not known).
    SeenInTimeLoses {
        offender: Color,
        window: Article,
        opponent_can_mate: Option<bool>,
    },
    /// Reduced supervision, 2018+ (A.4.2 / A.5.2): the offence's verdict, while the window
    /// is open.
    WithinWindow {
        window: Article,
        offence: OffenceVerdict,
    },
}

impl IllegalMoveVerdict {
    /// Who made the illegal move.
    pub fn offender(&self) -> Color {
        match self {
            IllegalMoveVerdict::BughouseOnDemand { offender, .. }
            | IllegalMoveVerdict::OnClaimWinsOrDrawn { offender, .. }
            | IllegalMoveVerdict::SeenInTimeLoses { offender, .. } => *offender,
            IllegalMoveVerdict::ArbiterIntervenes { offence, .. }
            | IllegalMoveVerdict::OnClaim { offence, .. }
            | IllegalMoveVerdict::WithinWindow { offence, .. } => offence.offender,
        }
    }

    /// Whether only a player's claim (or demand) brings the arbiter in.
    pub fn on_claim(&self) -> bool {
        matches!(
            self,
            IllegalMoveVerdict::BughouseOnDemand { .. }
                | IllegalMoveVerdict::OnClaim { .. }
                | IllegalMoveVerdict::OnClaimWinsOrDrawn { .. }
        )
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        let name = side_name(self.offender());
        let opp = side_name(!self.offender());
        let until = |window: &Article| {
            format!("only until {opp} has made his next move; after it the move stands ({window})")
        };
        match self {
            IllegalMoveVerdict::BughouseOnDemand { remedy, .. } => format!(
                "{remedy} — only if {opp} demands it (7.4; a press back without a move is the demand, 7.6); moving on accepts it (7.5). No time is added; for repeated illegal moves the arbiter may add time or declare the game lost (10.3)."
            ),
            IllegalMoveVerdict::ArbiterIntervenes { window, offence } => format!(
                "The arbiter intervenes without a claim ({window}): {}",
                offence.render()
            ),
            IllegalMoveVerdict::OnClaim { window, offence } => format!(
                "Only if {opp} claims before making his own move ({window}): {} The arbiter does not act without a claim; {}.",
                offence.render(),
                until(window)
            ),
            IllegalMoveVerdict::OnClaimWinsOrDrawn { window, drawn, .. } => {
                let verdict = if *drawn {
                    format!("the game is drawn, as {opp} cannot checkmate")
                } else {
                    format!(
                        "{opp} wins, or the game is drawn if {opp} cannot checkmate by any series of legal moves"
                    )
                };
                format!(
                    "If {opp} claims before making his own move: {verdict} ({window}). The arbiter does not act without a claim; {}.",
                    until(window)
                )
            }
            IllegalMoveVerdict::SeenInTimeLoses {
                window,
                opponent_can_mate,
                ..
            } => {
                let verdict = match opponent_can_mate {
                    Some(false) => format!(
                        "the game is drawn: {opp} cannot checkmate by any series of legal moves"
                    ),
                    Some(true) => format!("{name} loses the game"),
                    None => format!(
                        "{name} loses, unless {opp} cannot checkmate by any series of legal moves (examine the position)"
                    ),
                };
                format!(
                    "Seen or claimed in time: {verdict} ({window}); {}.",
                    until(window)
                )
            }
            IllegalMoveVerdict::WithinWindow { window, offence } => {
                format!("{} The arbiter acts {}.", offence.render(), until(window))
            }
        }
    }
}

/// What a fallen flag decides in bughouse (DJC / KNSB regulation 5.4, 5.6, 10.5): the
/// partner game's state and the flagged player's position decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BughouseFlagVerdict {
    /// The flagged player was checkmated on the board: the game is over (5.4).
    WhileMated { flagged: Color },
    /// The flagged player was stalemated: the regulation ends the game but gives no result;
    /// the arbiter decides (5.4, 10.5).
    WhileStalemated { flagged: Color },
    /// The other game is still running: the opponent wins, as he can still receive pieces
    /// (5.6).
    PartnerPlaying { flagged: Color },
    /// The other game has ended: the opponent wins if he can still win with `reserve` (his
    /// reserve, in words) or on the board, else drawn; passing pieces is for the arbiter
    /// (5.6, 10.5).
    AfterOtherGame {
        flagged: Color,
        can_win: bool,
        reserve: String,
    },
}

impl BughouseFlagVerdict {
    pub fn flagged(&self) -> Color {
        match self {
            BughouseFlagVerdict::WhileMated { flagged }
            | BughouseFlagVerdict::WhileStalemated { flagged }
            | BughouseFlagVerdict::PartnerPlaying { flagged }
            | BughouseFlagVerdict::AfterOtherGame { flagged, .. } => *flagged,
        }
    }

    /// The result it decides; `None` where the arbiter decides.
    pub fn result(&self) -> Option<GameResult> {
        let win = GameResult::win_for(!self.flagged());
        match self {
            BughouseFlagVerdict::WhileStalemated { .. } => None,
            BughouseFlagVerdict::AfterOtherGame { can_win: false, .. } => Some(GameResult::Drawn),
            _ => Some(win),
        }
    }

    /// The regulation's articles.
    pub fn article(&self) -> Article {
        Article::new(match self {
            BughouseFlagVerdict::WhileMated { .. } => "5.4",
            BughouseFlagVerdict::WhileStalemated { .. } => "5.4, 10.5",
            BughouseFlagVerdict::PartnerPlaying { .. } => "5.6",
            BughouseFlagVerdict::AfterOtherGame { .. } => "5.6, 10.5",
        })
    }

    /// What happened, for the alert's message.
    pub fn message(&self) -> String {
        let fname = side_name(self.flagged());
        let oname = side_name(!self.flagged());
        let win = GameResult::win_for(!self.flagged());
        match self {
            BughouseFlagVerdict::WhileMated { .. } => {
                format!("{fname}'s flag fell while checkmated: the game is over, {win}.")
            }
            BughouseFlagVerdict::WhileStalemated { .. } => format!(
                "{fname}'s flag fell while stalemated: the regulation ends the game (5.4) but gives no result; the arbiter decides (10.5)."
            ),
            BughouseFlagVerdict::PartnerPlaying { .. } => format!(
                "{fname}'s flag has fallen: {oname} wins, {win} — the other game is still running, so {oname} can still receive pieces to win with (5.6)."
            ),
            BughouseFlagVerdict::AfterOtherGame {
                can_win, reserve, ..
            } => {
                let verdict = if *can_win {
                    format!("{oname} wins, {win}")
                } else {
                    format!("a draw: {oname} cannot win by any series of legal moves")
                };
                format!(
                    "{fname}'s flag has fallen after the other game ended: {verdict} (5.6, with {oname}'s reserve: {reserve}); whether pieces may still be passed is for the arbiter (10.5)."
                )
            }
        }
    }

    /// The prescription's text, as the alert carries it.
    pub fn render(&self) -> String {
        match self.result() {
            Some(r) => format!("The result is {r}."),
            None => "Decide the result and enter it (10.5).".into(),
        }
    }
}

/// The verdict an alert carries: one of its kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Offence(OffenceVerdict),
    /// An illegal move's verdict under bughouse or reduced-supervision rules.
    IllegalMove(IllegalMoveVerdict),
    /// A fallen flag's verdict under a bughouse regulation.
    BughouseFlag(BughouseFlagVerdict),
    Flag(FlagVerdict),
    Clock(ClockVerdict),
    /// A draw claim's verdict (9.2 / 9.3).
    Claim(ClaimVerdict),
    /// What a `game_found_under_way` alert says.
    UnderWay(UnderWayVerdict),
    /// What decides a bughouse match.
    Match(MatchVerdict),
    /// An illegal move taken into the game as it stood.
    Adopted(AdoptedIllegalMove),
    /// An illegal position standing under reduced supervision.
    StandingIllegalPosition(StandingIllegalPosition),
    /// The board no longer follows the game.
    LostTrack(LostTrack),
    /// A bughouse drop: illegal, passed early, demanded back, or touched; or a promotion
    /// forfeited for want of a piece to take.
    Drop(DropVerdict),
    /// A game begun from a wrong set-up.
    Setup(SetupVerdict),
    /// A bughouse game's end on its board.
    BughouseEnd(BughouseEndVerdict),
    /// What the board's link or clock says (no prescription).
    Equipment(EquipmentVerdict),
    /// A game record alert's: an end by rule, a result against it, a place restored.
    Record(RecordVerdict),
    /// How the pieces were handled (two hands, touched pieces).
    Hands(HandsVerdict),
    /// A bughouse seat's checks against its partner board.
    Seat(SeatVerdict),
    /// A clock set against the time control: what it showed, and the clock check's verdict.
    ClockSetting(ClockSettingVerdict),
}

impl Verdict {
    pub fn offence(&self) -> Option<&OffenceVerdict> {
        match self {
            Verdict::Offence(v) => Some(v),
            _ => None,
        }
    }

    pub fn illegal_move(&self) -> Option<&IllegalMoveVerdict> {
        match self {
            Verdict::IllegalMove(v) => Some(v),
            _ => None,
        }
    }

    pub fn bughouse_flag(&self) -> Option<&BughouseFlagVerdict> {
        match self {
            Verdict::BughouseFlag(v) => Some(v),
            _ => None,
        }
    }

    pub fn flag(&self) -> Option<&FlagVerdict> {
        match self {
            Verdict::Flag(v) => Some(v),
            _ => None,
        }
    }

    /// A clock check's verdict, the clock-setting alert's prescription included.
    pub fn clock(&self) -> Option<&ClockVerdict> {
        match self {
            Verdict::Clock(v) => Some(v),
            Verdict::ClockSetting(v) => Some(&v.prescription),
            _ => None,
        }
    }

    /// What a clock set against the time control showed.
    pub fn setting_mismatch(&self) -> Option<&SettingMismatch> {
        match self {
            Verdict::ClockSetting(v) => Some(&v.mismatch),
            _ => None,
        }
    }

    pub fn claim(&self) -> Option<&ClaimVerdict> {
        match self {
            Verdict::Claim(v) => Some(v),
            _ => None,
        }
    }

    pub fn under_way(&self) -> Option<&UnderWayVerdict> {
        match self {
            Verdict::UnderWay(v) => Some(v),
            _ => None,
        }
    }

    pub fn bughouse_match(&self) -> Option<&MatchVerdict> {
        match self {
            Verdict::Match(v) => Some(v),
            _ => None,
        }
    }

    pub fn adopted(&self) -> Option<&AdoptedIllegalMove> {
        match self {
            Verdict::Adopted(v) => Some(v),
            _ => None,
        }
    }

    pub fn standing_illegal_position(&self) -> Option<&StandingIllegalPosition> {
        match self {
            Verdict::StandingIllegalPosition(v) => Some(v),
            _ => None,
        }
    }

    pub fn lost_track(&self) -> Option<&LostTrack> {
        match self {
            Verdict::LostTrack(v) => Some(v),
            _ => None,
        }
    }

    pub fn drop(&self) -> Option<&DropVerdict> {
        match self {
            Verdict::Drop(v) => Some(v),
            _ => None,
        }
    }

    pub fn setup(&self) -> Option<&SetupVerdict> {
        match self {
            Verdict::Setup(v) => Some(v),
            _ => None,
        }
    }

    pub fn bughouse_end(&self) -> Option<&BughouseEndVerdict> {
        match self {
            Verdict::BughouseEnd(v) => Some(v),
            _ => None,
        }
    }

    pub fn equipment(&self) -> Option<&EquipmentVerdict> {
        match self {
            Verdict::Equipment(v) => Some(v),
            _ => None,
        }
    }

    pub fn record(&self) -> Option<&RecordVerdict> {
        match self {
            Verdict::Record(v) => Some(v),
            _ => None,
        }
    }

    pub fn hands(&self) -> Option<&HandsVerdict> {
        match self {
            Verdict::Hands(v) => Some(v),
            _ => None,
        }
    }

    pub fn seat(&self) -> Option<&SeatVerdict> {
        match self {
            Verdict::Seat(v) => Some(v),
            _ => None,
        }
    }

    /// The prescription's text, as the alert carries it (none where a flag's play goes on).
    pub fn render(&self) -> Option<String> {
        match self {
            Verdict::Offence(v) => Some(v.render()),
            Verdict::IllegalMove(v) => Some(v.render()),
            Verdict::BughouseFlag(v) => Some(v.render()),
            Verdict::Flag(v) => v.render(),
            Verdict::Clock(v) => Some(v.render()),
            Verdict::Claim(v) => Some(v.render()),
            Verdict::UnderWay(v) => v.render(),
            Verdict::Match(_) => None,
            Verdict::Adopted(v) => v.render(),
            Verdict::StandingIllegalPosition(v) => Some(v.render()),
            Verdict::LostTrack(v) => Some(v.render()),
            Verdict::Drop(v) => Some(v.render()),
            Verdict::Setup(v) => Some(v.render()),
            Verdict::BughouseEnd(v) => Some(v.render()),
            Verdict::Equipment(_) => None,
            Verdict::Record(v) => Some(v.render()),
            Verdict::Hands(v) => v.render(),
            Verdict::Seat(v) => v.render(),
            Verdict::ClockSetting(v) => Some(v.prescription.render()),
        }
    }
}

/// `From` each kind's verdict into the `Verdict` that carries it.
macro_rules! verdict_from {
    ($($kind:ty => $variant:ident),* $(,)?) => {
        $(impl From<$kind> for Verdict {
            fn from(v: $kind) -> Self {
                Verdict::$variant(v)
            }
        })*
    };
}

verdict_from! {
    OffenceVerdict => Offence,
    IllegalMoveVerdict => IllegalMove,
    BughouseFlagVerdict => BughouseFlag,
    FlagVerdict => Flag,
    ClaimVerdict => Claim,
    UnderWayVerdict => UnderWay,
    MatchVerdict => Match,
    AdoptedIllegalMove => Adopted,
    StandingIllegalPosition => StandingIllegalPosition,
    LostTrack => LostTrack,
    DropVerdict => Drop,
    SetupVerdict => Setup,
    BughouseEndVerdict => BughouseEnd,
    EquipmentVerdict => Equipment,
    ClockVerdict => Clock,
    RecordVerdict => Record,
    HandsVerdict => Hands,
    SeatVerdict => Seat,
    ClockSettingVerdict => ClockSetting,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(decision: OffenceDecision) -> OffenceVerdict {
        OffenceVerdict {
            offender: Color::Black,
            number: 2,
            article: Article::new("7.5.5"),
            remedy: Remedy::MoveStands,
            decision,
        }
    }

    #[test]
    fn renders_the_prescription_texts() {
        let time = verdict(OffenceDecision::TimeToOpponent {
            add_ms: 120_000,
            loses_at: 3,
        });
        assert_eq!(time.opponent(), Color::White);
        assert_eq!(
            time.render(),
            "The move stands; add 2 minute(s) to White's clock (7.5.5). This is Black's offence number 2; number 3 loses."
        );
        let none = verdict(OffenceDecision::TimeToOpponent {
            add_ms: 0,
            loses_at: 2,
        });
        assert_eq!(
            none.render(),
            "The move stands; no time is added in this category (7.5.5). This is Black's offence number 2; number 2 loses."
        );
        assert_eq!(
            verdict(OffenceDecision::Loses).render(),
            "Black's offence number 2: Black loses the game (7.5.5)."
        );
        assert_eq!(
            verdict(OffenceDecision::Drawn).render(),
            "Black's offence number 2: the game is drawn: White cannot checkmate by any series of legal moves (7.5.5)."
        );
        assert_eq!(
            verdict(OffenceDecision::LosesUnlessOpponentCannotMate).render(),
            "Black's offence number 2: Black loses, unless White cannot checkmate by any series of legal moves (undetermined: examine the position) (7.5.5)."
        );
    }

    #[test]
    fn illegal_move_window_rules_render_around_the_offence() {
        let offence = verdict(OffenceDecision::TimeToOpponent {
            add_ms: 60_000,
            loses_at: 2,
        });
        let full = offence.render();
        let bughouse = IllegalMoveVerdict::BughouseOnDemand {
            offender: Color::Black,
            remedy: Remedy::MoveStands,
        };
        assert!(bughouse.on_claim());
        assert_eq!(
            bughouse.render(),
            "The move stands — only if White demands it (7.4; a press back without a move is the demand, 7.6); moving on accepts it (7.5). No time is added; for repeated illegal moves the arbiter may add time or declare the game lost (10.3)."
        );
        let on_claim = IllegalMoveVerdict::OnClaim {
            window: Article::new("B6"),
            offence: offence.clone(),
        };
        assert_eq!(
            on_claim.render(),
            format!(
                "Only if White claims before making his own move (B6): {full} The arbiter does not act without a claim; only until White has made his next move; after it the move stands (B6)."
            )
        );
        let within = IllegalMoveVerdict::WithinWindow {
            window: Article::new("A.5.2"),
            offence: offence.clone(),
        };
        assert!(!within.on_claim());
        assert_eq!(
            within.render(),
            format!(
                "{full} The arbiter acts only until White has made his next move; after it the move stands (A.5.2)."
            )
        );
        assert_eq!(
            IllegalMoveVerdict::ArbiterIntervenes {
                window: Article::new("B6"),
                offence
            }
            .render(),
            format!("The arbiter intervenes without a claim (B6): {full}")
        );
        assert_eq!(
            IllegalMoveVerdict::OnClaimWinsOrDrawn {
                offender: Color::Black,
                window: Article::new("C3"),
                drawn: true
            }
            .render(),
            "If White claims before making his own move: the game is drawn, as White cannot checkmate (C3). The arbiter does not act without a claim; only until White has made his next move; after it the move stands (C3)."
        );
        assert_eq!(
            IllegalMoveVerdict::SeenInTimeLoses {
                offender: Color::Black,
                window: Article::new("A4.2"),
                opponent_can_mate: None
            }
            .render(),
            "Seen or claimed in time: Black loses, unless White cannot checkmate by any series of legal moves (examine the position) (A4.2); only until White has made his next move; after it the move stands (A4.2)."
        );
    }

    #[test]
    fn a_bughouse_flag_renders_its_message_and_result() {
        let black = Color::Black;
        let mated = BughouseFlagVerdict::WhileMated { flagged: black };
        assert_eq!(
            (mated.result(), mated.article()),
            (Some(GameResult::WhiteWins), Article::new("5.4"))
        );
        assert_eq!(
            mated.message(),
            "Black's flag fell while checkmated: the game is over, 1-0."
        );
        assert_eq!(mated.render(), "The result is 1-0.");
        let stalemated = BughouseFlagVerdict::WhileStalemated { flagged: black };
        assert_eq!(stalemated.result(), None);
        assert_eq!(
            stalemated.render(),
            "Decide the result and enter it (10.5)."
        );
        let after = BughouseFlagVerdict::AfterOtherGame {
            flagged: black,
            can_win: false,
            reserve: "nothing".into(),
        };
        assert_eq!(after.result(), Some(GameResult::Drawn));
        assert_eq!(
            after.message(),
            "Black's flag has fallen after the other game ended: a draw: White cannot win by any series of legal moves (5.6, with White's reserve: nothing); whether pieces may still be passed is for the arbiter (10.5)."
        );
        assert_eq!(after.render(), "The result is 1/2-1/2.");
    }
}
