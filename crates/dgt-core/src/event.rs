//! What the core emits (contract §3): the same JSON on the WebSocket feed and from `replay`.

use serde::{Deserialize, Serialize};

pub use crate::board::Orientation;
pub use crate::outcome::EndReason;
use crate::side::ClockSide;
pub use crate::side::Side;

/// Events a stage produced, before they are numbered: (t_ms, body).
pub type Emitted = Vec<(u64, EventBody)>;

/// One event. `seq` is strictly increasing within one journal; `t_ms` is the time of the
/// input (or of the timer) that caused it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub seq: u64,
    #[serde(flatten)]
    pub body: EventBody,
    pub board: String,
    pub t_ms: u64,
    /// On a hub (contract §5): the venue PC whose journal the event comes from. Never set
    /// by a daemon for its own events, so a daemon's JSON is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// On a hub: the event's `seq` in its node's journal (`seq` is then the hub's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_seq: Option<u64>,
}

impl Event {
    /// A daemon's own event (no `node`).
    pub fn new(seq: u64, board: impl Into<String>, t_ms: u64, body: EventBody) -> Self {
        Event {
            seq,
            body,
            board: board.into(),
            t_ms,
            node: None,
            node_seq: None,
        }
    }

    /// The event as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkState {
    Connected,
    Disconnected,
    Identified,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardStatus {
    pub state: LinkState,
    pub serial: Option<String>,
    pub version: Option<String>,
    pub orientation: Orientation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveEvent {
    pub game: String,
    pub ply: u32,
    pub side: Side,
    pub uci: String,
    pub san: String,
    pub fen: String,
    pub white_ms: Option<u64>,
    pub black_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockEvent {
    pub white_ms: Option<u64>,
    pub black_ms: Option<u64>,
    pub running: Option<Side>,
    pub left_ms: u64,
    pub right_ms: u64,
    /// Which display is White's, when known.
    pub white_side: Option<ClockSide>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The Laws make the arbiter act now.
    Intervene,
    /// Only a player's claim can make it count; never shown to players.
    Claim,
    /// The arbiter should look.
    Review,
    Info,
}

/// Alert kinds (contract §3; stable names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    IllegalMove,
    IllegalPosition,
    ClockPressedWithoutMove,
    PromotionIncomplete,
    TwoHandedMove,
    FlagFall,
    BothFlagsFallen,
    Checkmate,
    Stalemate,
    DeadPosition,
    FivefoldRepetition,
    SeventyFiveMoveRule,
    ThreefoldRepetitionAvailable,
    FiftyMoveRuleAvailable,
    TouchMove,
    CastlingRookFirst,
    PositionRestored,
    ClockAdjusted,
    ClockStopped,
    ClockDisconnected,
    BoardDisconnected,
    BoardReconnected,
    BatteryLow,
    ResultGesture,
    /// A result the arbiter entered that the Laws or the board contradict: a draw agreed
    /// before both players moved (5.2.3), or a result other than the game's end by rule.
    ResultConflict,
    /// The clock does not run the time control in force: other starting times, or no
    /// increment where one is due (6.10.2; 2005 6.11).
    ClockSettingMismatch,
    /// One promotion piece put on the square, then replaced by another (4.4.4; 2005 4.4d).
    PromotionChoiceChanged,
    /// The pieces were not in the initial position when the game began (7.2.1; 2005 7.1a;
    /// Chess960 II.2).
    SetupInvalid,
    /// The player on move has less than two minutes in a quickplay finish without
    /// increment: a draw claim is possible (2005 10.2; 2017+ III.5 when announced).
    QuickplayClaimPossible,
    /// The players made a move after the game had ended by rule (fivefold, 75 moves, dead
    /// position, stalemate): the result stands.
    MoveAfterGameEnd,
    /// A player in standard play has less than five minutes left in a period without an
    /// increment of 30 s or more: no longer obliged to record the moves (8.4).
    RecordingNotRequired,
    /// Bughouse: a drop the regulation forbids (a piece the player cannot hold, a forbidden
    /// rank, a check given, an occupied square), or the opponent's demand to take it back.
    IllegalDrop,
    /// Bughouse: a piece taken off this board for a promotion on the partner board (3.1).
    PieceTakenForPromotion,
    /// Bughouse: the match score once it is decided (8.2; Flemish 5.d).
    MatchResult,
    /// On a hub: a venue PC stopped sending heartbeats (contract §5).
    NodeOffline,
    /// On a hub: a venue PC is sending heartbeats again (contract §5).
    NodeOnline,
    /// The board's line carried so many bytes that are not the DGT protocol that the
    /// decoder's bound on unframed bytes was reached: another device on the
    /// port, a damaged cable, a wrong line speed. Moves may be missed while it lasts.
    LineNoise,
    /// Two ports report the same serial number (or the same table): one board is followed
    /// apart under its port's name.
    DuplicateBoard,
    /// A board showed, settled, a legal placement that is no start position while no game
    /// was followed on it (the daemon started after the round began, a board plugged in
    /// late, a spare board set up mid-game): the game is followed from where it stands, or
    /// rebuilt from the board's own log.
    GameFoundUnderWay,
    /// The reading of one board met a state it could not handle: that board's game record
    /// stops, the board is read afresh from what it shows next, and every other board and
    /// the journal go on (one board's fault never stops the others).
    TrackingFailed,
}

/// An alert for the arbiter, with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alert {
    pub id: u64,
    pub kind: AlertKind,
    pub severity: Severity,
    pub side: Option<Side>,
    pub article: Option<String>,
    pub edition: String,
    pub message: String,
    pub ply: Option<u32>,
    /// The position (or placement) the alert is about.
    pub fen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// The last legal position before the irregularity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fen_before: Option<String>,
    /// What the Laws prescribe.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prescription: Option<String>,
    /// The prescription as data where it is a verdict — an offence's, a fallen flag's, a
    /// clock check's (`prescription` is its text): for the core's own checks and views; not
    /// part of the event's JSON.
    #[serde(skip)]
    pub verdict: Option<Box<crate::verdict::Verdict>>,
    /// What happened, as data, where the verdict does not word it (the change a press
    /// showed, a wrong set-up): `message` is its text; not part of the event's JSON.
    #[serde(skip)]
    pub evidence: Option<Box<crate::verdict::Evidence>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub squares: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uci: Option<String>,
    /// Equipment alerts repeated on one board (battery indicator flicker, a clock flapping
    /// between connected and not) are one alert: each repeat is sent again as an `alert`
    /// event with the **same `id`**, `repeats` (how many times it has happened, 2 or more)
    /// and `last_t_ms` (the latest), instead of a new alert per transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_t_ms: Option<u64>,
    /// The heading to show when the kind alone would state the opposite of what happened:
    /// a claim checked and found incorrect is a `threefold_repetition_available` alert, a
    /// flag claim with no flag down a `flag_fall` one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Alert {
    /// The offence verdict it carries, if any.
    pub fn offence_verdict(&self) -> Option<&crate::verdict::OffenceVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::offence)
    }

    /// The illegal move's verdict it carries under bughouse or reduced supervision, if any.
    pub fn illegal_move_verdict(&self) -> Option<&crate::verdict::IllegalMoveVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::illegal_move)
    }

    /// The fallen flag's verdict it carries, if any.
    pub fn flag_verdict(&self) -> Option<&crate::verdict::FlagVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::flag)
    }

    /// The clock check's verdict it carries, if any.
    pub fn clock_verdict(&self) -> Option<&crate::verdict::ClockVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::clock)
    }

    /// The draw claim's verdict it carries, if any.
    pub fn claim_verdict(&self) -> Option<&crate::verdict::ClaimVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::claim)
    }

    /// What a `game_found_under_way` alert says, as data, if it is one.
    pub fn under_way_verdict(&self) -> Option<&crate::verdict::UnderWayVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::under_way)
    }

    /// The bughouse match's verdict it carries, if it is a `match_result` alert.
    pub fn match_verdict(&self) -> Option<&crate::verdict::MatchVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::bughouse_match)
    }

    /// The illegal move taken into the game as it stood, if the alert is about one.
    pub fn adopted_verdict(&self) -> Option<&crate::verdict::AdoptedIllegalMove> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::adopted)
    }

    /// The standing illegal position (reduced supervision), if the alert is about one.
    pub fn standing_illegal_position(&self) -> Option<&crate::verdict::StandingIllegalPosition> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::standing_illegal_position)
    }

    /// Why the board no longer follows the game, if the alert says so.
    pub fn lost_track(&self) -> Option<&crate::verdict::LostTrack> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::lost_track)
    }

    /// The bughouse drop's verdict it carries, if any.
    pub fn drop_verdict(&self) -> Option<&crate::verdict::DropVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::drop)
    }

    /// The wrong set-up's verdict it carries, if any.
    pub fn setup_verdict(&self) -> Option<&crate::verdict::SetupVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::setup)
    }

    /// The bughouse game's end it carries, if any.
    pub fn bughouse_end_verdict(&self) -> Option<&crate::verdict::BughouseEndVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::bughouse_end)
    }

    /// What a press showed that no legal move explains, if the alert is about one.
    pub fn illegal_change(&self) -> Option<&crate::verdict::IllegalChange> {
        self.evidence
            .as_deref()
            .and_then(crate::verdict::Evidence::illegal_change)
    }

    /// What is wrong with the set-up a game began from, if the alert is about one.
    pub fn wrong_setup(&self) -> Option<&crate::reconstruct::WrongSetup> {
        self.evidence
            .as_deref()
            .and_then(crate::verdict::Evidence::wrong_setup)
    }

    /// What the board's link says, if it is a link alert.
    pub fn equipment_verdict(&self) -> Option<&crate::verdict::EquipmentVerdict> {
        self.verdict
            .as_deref()
            .and_then(crate::verdict::Verdict::equipment)
    }

    /// An alert with the evidence fields empty; `id` is filled in when it is emitted.
    pub fn new(kind: AlertKind, severity: Severity, edition: &str, message: String) -> Self {
        Alert {
            id: 0,
            kind,
            severity,
            side: None,
            article: None,
            edition: edition.to_string(),
            message,
            ply: None,
            fen: None,
            game: None,
            fen_before: None,
            prescription: None,
            verdict: None,
            evidence: None,
            squares: Vec::new(),
            white_ms: None,
            black_ms: None,
            uci: None,
            repeats: None,
            last_t_ms: None,
            title: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    BoardStatus(BoardStatus),
    GameStart {
        game: String,
        start_fen: String,
        /// The game was found under way and is followed from `start_fen`: the moves before
        /// it were not seen. Written only when true, so every other `game_start`
        /// reads as before.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        found_under_way: bool,
    },
    Move(MoveEvent),
    Clock(ClockEvent),
    Alert(Alert),
    GameEnd {
        game: String,
        result: crate::outcome::GameResult,
        reason: EndReason,
    },
    /// A game started on this board was no game of its own: the arbiter moved another board's
    /// game here (`take_over`) while it was being followed — a spare board found
    /// under way once the position was set up on it. Views drop `game` and follow
    /// `replaced_by` on this board.
    GameReplaced {
        game: String,
        replaced_by: String,
    },
    /// Bughouse: what each player of the board may drop — an upper bound, since hand-overs
    /// cannot be seen (what left the partner board, less his drops). Pieces as FEN letters,
    /// White's in upper case ("NNP"), Black's in lower case; sent when it changes.
    Reserves {
        game: String,
        white: String,
        black: String,
    },
    /// A round's pairings as the arbiter imported them (board [`crate::pairing::ROUND_BOARD`]).
    Pairings(crate::pairing::RoundPairings),
    /// A result the arbiter entered for a table (board [`crate::pairing::ROUND_BOARD`]).
    TableResult(crate::pairing::TableResultOp),
    /// The arbiter named a table's game of a round (board [`crate::pairing::ROUND_BOARD`]).
    TableGame(crate::pairing::TableGameOp),
    /// Who took an arbiter action on this board (an [`crate::Operation::By`] passed back).
    ArbiterAction(crate::input::ActionBy),
}

impl EventBody {
    pub fn type_name(&self) -> &'static str {
        match self {
            EventBody::BoardStatus(_) => "board_status",
            EventBody::GameStart { .. } => "game_start",
            EventBody::Move(_) => "move",
            EventBody::Clock(_) => "clock",
            EventBody::Alert(_) => "alert",
            EventBody::GameEnd { .. } => "game_end",
            EventBody::GameReplaced { .. } => "game_replaced",
            EventBody::Reserves { .. } => "reserves",
            EventBody::Pairings(_) => "pairings",
            EventBody::TableResult(_) => "table_result",
            EventBody::TableGame(_) => "table_game",
            EventBody::ArbiterAction(_) => "arbiter_action",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_json_has_the_contract_fields() {
        let e = Event::new(
            3,
            "board-1",
            1340,
            EventBody::Move(MoveEvent {
                game: "board-1/1".into(),
                ply: 1,
                side: Side::White,
                uci: "e2e4".into(),
                san: "e4".into(),
                fen: "x".into(),
                white_ms: Some(181000),
                black_ms: None,
            }),
        );
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["type"], "move");
        assert!(
            v.get("node").is_none(),
            "a daemon's own event names no node"
        );
        assert_eq!(v["seq"], 3);
        assert_eq!(v["board"], "board-1");
        assert_eq!(v["side"], "white");
        assert_eq!(v["black_ms"], serde_json::Value::Null);
        assert_eq!(v["ply"], 1);
    }

    #[test]
    fn game_start_names_a_game_found_under_way_only_when_it_is_one() {
        let start = |found_under_way| {
            Event::new(
                1,
                "b",
                0,
                EventBody::GameStart {
                    game: "b/1".into(),
                    start_fen: "x".into(),
                    found_under_way,
                },
            )
            .to_json()
        };
        let ordinary: serde_json::Value = serde_json::from_str(&start(false)).unwrap();
        assert_eq!(
            ordinary.as_object().map(|o| o.len()),
            Some(6),
            "an ordinary game_start is unchanged: {ordinary}"
        );
        let found = start(true);
        let v: serde_json::Value = serde_json::from_str(&found).unwrap();
        assert_eq!(v["found_under_way"], true, "{found}");
        let read: Event = serde_json::from_str(&found).unwrap();
        assert!(matches!(
            read.body,
            EventBody::GameStart {
                found_under_way: true,
                ..
            }
        ));
    }

    #[test]
    fn alert_kinds_use_contract_names() {
        let a = Alert::new(
            AlertKind::SeventyFiveMoveRule,
            Severity::Intervene,
            "fide-2023",
            "m".into(),
        );
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["kind"], "seventy_five_move_rule");
        assert_eq!(v["severity"], "intervene");
        assert_eq!(v["side"], serde_json::Value::Null);
        let v = serde_json::to_value(AlertKind::ThreefoldRepetitionAvailable).unwrap();
        assert_eq!(v, "threefold_repetition_available");
    }

    #[test]
    fn events_read_back_as_written() {
        // A hub reads the events its nodes journaled: every type must round-trip.
        let mut alert = Alert::new(
            AlertKind::IllegalMove,
            Severity::Review,
            "fide-2023",
            "m".into(),
        );
        alert.id = 9;
        alert.squares = vec!["e4".into()];
        alert.game = Some("b/1".into());
        let mut events = vec![
            Event::new(9, "b", 10, EventBody::Alert(alert)),
            Event::new(
                10,
                "b",
                11,
                EventBody::GameEnd {
                    game: "b/1".into(),
                    result: crate::outcome::GameResult::WhiteWins,
                    reason: EndReason::Checkmate,
                },
            ),
            Event::new(
                11,
                "b",
                12,
                EventBody::Clock(ClockEvent {
                    white_ms: Some(1),
                    black_ms: None,
                    running: Some(Side::Black),
                    left_ms: 1,
                    right_ms: 2,
                    white_side: Some(ClockSide::Left),
                }),
            ),
        ];
        events[2].node = Some("hall-a".into());
        events[2].node_seq = Some(4);
        for e in events {
            let back: Event = serde_json::from_str(&e.to_json()).unwrap();
            assert_eq!(back, e);
        }
    }
}
