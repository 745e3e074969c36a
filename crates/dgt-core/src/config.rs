//! The settings the core decides with. Loaded by the daemon's configuration layer (the
//! `[core]` table), or built in code by tests; every field has a default.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::arbiter::FivefoldReading;
use crate::arbiter::{Edition, Laws};
use crate::bughouse::BughouseMatch;
use crate::input::{ClockSide, Supervision};
use crate::time_control::{Category, TimeControl};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoreConfig {
    /// How long the board must stay unchanged before a placement counts as settled (ms).
    /// A DGT board scans all 64 squares in 200–250 ms, so an intermediate square of a slide
    /// lasts about one scan; 250 ms waits for the slide to finish.
    pub settle_ms: u64,
    /// With the mover's clock running, a move is completed by the press (6.2.1); if no press
    /// is seen this long after the board settled, the move is emitted anyway (ms).
    pub press_wait_ms: u64,
    /// How long an unexplained placement must persist before `illegal_position` (ms).
    pub illegal_position_ms: u64,
    /// Rule edition for new games: fide-2005, fide-2017, fide-2018, fide-2023.
    pub edition: Edition,
    /// Supervision for rapid and blitz games.
    pub supervision: Supervision,
    /// Default time control (PGN TimeControl syntax), when a board has none of its own.
    pub time_control: Option<TimeControl>,
    /// Which clock display is White's, when it should not be inferred.
    pub white_clock_side: Option<ClockSide>,
    /// Blitz up to this many minutes (base + 60 × increment, inclusive), for every edition.
    /// Unset: each edition's own definition (2005: under 15; 2017 article text: under 10;
    /// 2018 / 2023: 10 or less; docs/laws-by-edition.md §2).
    pub blitz_max_minutes: Option<u64>,
    /// Rapid below this many minutes, for every edition. Unset: the edition's (2017: 60
    /// inclusive; the others: under 60).
    pub rapid_max_minutes: Option<u64>,
    /// How 9.6.1's fivefold repetition is read, in the editions that have it. Unset: the
    /// edition's own wording — 2017 "five consecutive alternate moves by each player"
    /// (`consecutive`), 2018 / 2023 "at least five times" (`any_five`); a setting, so an
    /// event can read either edition the other way (docs/decisions/D2-fivefold-wording-2017.md).
    pub fivefold: Option<FivefoldReading>,
    /// When a fallen flag ends the game where the arbiter must call it (standard play,
    /// full supervision). `at_fall`: at the physical flag, the daemon's alert standing for the
    /// arbiter's observation. `when_called`: as 6.8 (2005 6.9) words it — the flag counts
    /// when the arbiter observes it (acknowledges the alert) or a player claims it; a mate
    /// made before that stands (L17 T18).
    pub flag_counts: FlagCounts,
    /// Whether the event announced Guideline III (2017+: quickplay finish without
    /// increment, III.2.1). Then both flags down with the order unknown continue the game
    /// before the last period (III.3.1.1) and draw it in the last (III.3.1.2).
    pub guideline_iii: bool,
    /// Per-board overrides by board label.
    pub boards: BTreeMap<String, BoardSettings>,
    /// Bughouse matches: pairs of boards played under a bughouse regulation.
    pub bughouse: Vec<BughouseMatch>,
}

/// A setting whose value is one of a few names. The names are serde's (what the parser
/// accepts); error messages and the documentation check list them from here, so the three
/// cannot disagree.
pub trait SettingChoices: Copy + Serialize + 'static {
    /// Every value, in the order the names are listed.
    const ALL: &'static [Self];

    /// The name the settings use for this value.
    fn setting_name(self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(name)) => name,
            other => format!("{other:?}"),
        }
    }

    /// Every accepted name, in [`SettingChoices::ALL`]'s order.
    fn setting_names() -> Vec<String> {
        Self::ALL.iter().map(|v| v.setting_name()).collect()
    }
}

impl SettingChoices for Edition {
    const ALL: &'static [Self] = &Edition::ALL;
    fn setting_name(self) -> String {
        self.name().to_string()
    }
}

impl SettingChoices for FlagCounts {
    const ALL: &'static [Self] = &[FlagCounts::AtFall, FlagCounts::WhenCalled];
}

impl SettingChoices for FivefoldReading {
    const ALL: &'static [Self] = &[FivefoldReading::Consecutive, FivefoldReading::AnyFive];
}

impl SettingChoices for ClockSide {
    const ALL: &'static [Self] = &[ClockSide::Left, ClockSide::Right];
}

impl SettingChoices for Supervision {
    const ALL: &'static [Self] = &[Supervision::Full, Supervision::Reduced];
}

impl SettingChoices for crate::bughouse::Regulation {
    const ALL: &'static [Self] = &[
        crate::bughouse::Regulation::DjcStein,
        crate::bughouse::Regulation::Knsb2000,
        crate::bughouse::Regulation::Flemish,
    ];
}

impl SettingChoices for crate::bughouse::RankReading {
    const ALL: &'static [Self] = &[
        crate::bughouse::RankReading::Relative,
        crate::bughouse::RankReading::Absolute,
    ];
}

/// The moment a fallen flag counts (6.8; 2005 6.9).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlagCounts {
    /// When the display shows it.
    #[default]
    AtFall,
    /// When the arbiter acknowledges the flag alert or a player's claim is recorded.
    WhenCalled,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoardSettings {
    pub time_control: Option<TimeControl>,
    pub white_clock_side: Option<ClockSide>,
    pub edition: Option<Edition>,
    pub supervision: Option<Supervision>,
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            settle_ms: 250,
            press_wait_ms: 5000,
            illegal_position_ms: 3000,
            edition: Edition::Fide2023,
            supervision: Supervision::Full,
            time_control: None,
            white_clock_side: None,
            blitz_max_minutes: None,
            rapid_max_minutes: None,
            fivefold: None,
            flag_counts: FlagCounts::AtFall,
            guideline_iii: false,
            boards: BTreeMap::new(),
            bughouse: Vec::new(),
        }
    }
}

impl CoreConfig {
    /// The category of a time control under an edition: the configured boundaries where
    /// set, else the edition's own.
    pub fn category(&self, tc: &TimeControl, edition: &Laws) -> Category {
        category(tc, edition, self.blitz_max_minutes, self.rapid_max_minutes)
    }

    /// The settings in force for one board: its overrides over the defaults.
    pub fn for_board(&self, board: &str) -> BoardSettings {
        let o = self.boards.get(board).cloned().unwrap_or_default();
        BoardSettings {
            time_control: o.time_control.or_else(|| self.time_control.clone()),
            white_clock_side: o.white_clock_side.or(self.white_clock_side),
            edition: o.edition.or(Some(self.edition)),
            supervision: o.supervision.or(Some(self.supervision)),
        }
    }
}

/// The category of a time control: blitz up to `blitz_max` minutes and rapid below
/// `rapid_max` where configured, else by the edition's own boundaries.
pub fn category(
    tc: &TimeControl,
    edition: &Laws,
    blitz_max: Option<u64>,
    rapid_max: Option<u64>,
) -> Category {
    let blitz = blitz_max.map_or(edition.blitz_below_ms, |m| m * 60_000 + 1);
    let rapid = rapid_max.map_or(edition.rapid_below_ms, |m| m * 60_000);
    tc.category(blitz, rapid)
}
