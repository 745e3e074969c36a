//! What a board is judged by: the edition of the Laws in force, the supervision and time
//! control, and the waiting periods the reading allows. Set from the configuration when the
//! session begins; an operator's set-up may change the edition, supervision or time control.

use crate::arbiter::{Laws, LawsAs};
use crate::config::{FivefoldReading, FlagCounts};
use crate::input::Supervision;
use crate::time_control::TimeControl;

#[serde_with::serde_as]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Rules {
    /// How long a placement must stand unchanged to be read (a scan is 200–250 ms).
    pub(super) settle_ms: u64,
    /// How long a move shown waits for its press before it stands as shown.
    pub(super) press_wait_ms: u64,
    /// How long an unexplained placement may persist before it is reported.
    pub(super) illegal_position_ms: u64,
    /// The edition in force, with the configured fivefold reading applied.
    #[serde_as(as = "LawsAs")]
    pub(super) edition: Laws,
    pub(super) fivefold: Option<FivefoldReading>,
    pub(super) supervision: Supervision,
    pub(super) time_control: Option<TimeControl>,
    /// Category boundaries in minutes when configured (else the edition's own; the 2017
    /// text contradicts itself).
    pub(super) blitz_max: Option<u64>,
    pub(super) rapid_max: Option<u64>,
    pub(super) flag_counts: FlagCounts,
    pub(super) guideline_iii: bool,
}
