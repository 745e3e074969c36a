//! Offences counted in one game, per player and counter (7.5.5: the second offence loses;
//! 2017 as printed counts 7.5 and 7.8 apart), and the two-handed moves the arbiter may still
//! confirm (4.1, 7.5.4). Reset with the game's watch when a game begins.

use shakmaty::{ByColor, Color};

use super::Offence;
use crate::snapshot_as::*;

/// How many two-handed-move alerts are kept for the arbiter to confirm: the oldest goes.
const SUSPICIONS_KEPT: usize = 32;

#[serde_with::serde_as]
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Offences {
    /// Offences per counter and player; see [`Offences::class`].
    #[serde_as(as = "[ByColorAs<_>; 3]")]
    counts: [ByColor<u32>; 3],
    /// Recent two-handed-move alerts the arbiter may confirm: (alert id, mover, ply).
    #[serde_as(as = "Vec<(_, ColorAs, _)>")]
    suspicions: Vec<(u64, Color, u32)>,
}

impl Offences {
    /// The counter an offence adds to: one for everything (2018+: 7.5.5), or per article
    /// when the edition counts them apart (2017 as printed: 7.5 and 7.8 separately).
    pub(super) fn class(offence: Offence, separate_counters: bool) -> usize {
        match offence {
            Offence::PressWithoutMove if separate_counters => 1,
            Offence::TwoHands if separate_counters => 2,
            _ => 0,
        }
    }

    /// Counts one more offence of `side` on counter `class`: the offence's number.
    pub(super) fn count(&mut self, class: usize, side: Color) -> u32 {
        self.counts[class][side] += 1;
        self.counts[class][side]
    }

    /// The offences of `side` counted so far on counter `class`.
    pub(super) fn so_far(&self, class: usize, side: Color) -> u32 {
        self.counts[class][side]
    }

    /// A two-handed move was alerted as `id`: the arbiter may confirm it.
    pub(super) fn suspect(&mut self, id: u64, mover: Color, ply: u32) {
        self.suspicions.push((id, mover, ply));
        if self.suspicions.len() > SUSPICIONS_KEPT {
            self.suspicions.remove(0);
        }
    }

    /// The arbiter confirmed alert `id`: its mover and ply, once; `None` for an alert that is
    /// no suspicion kept.
    pub(super) fn confirmed(&mut self, id: u64) -> Option<(Color, u32)> {
        let &(_, mover, ply) = self.suspicions.iter().find(|s| s.0 == id)?;
        self.suspicions.retain(|s| s.0 != id);
        Some((mover, ply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_counter_for_every_offence_unless_the_edition_counts_them_apart() {
        for offence in [
            Offence::IllegalMove,
            Offence::PressWithoutMove,
            Offence::TwoHands,
        ] {
            assert_eq!(Offences::class(offence, false), 0);
        }
        assert_eq!(Offences::class(Offence::IllegalMove, true), 0);
        assert_eq!(Offences::class(Offence::PressWithoutMove, true), 1);
        assert_eq!(Offences::class(Offence::TwoHands, true), 2);
    }

    #[test]
    fn offences_are_numbered_per_player_and_counter() {
        let mut offences = Offences::default();
        assert_eq!(offences.count(0, Color::White), 1);
        assert_eq!(offences.count(0, Color::White), 2);
        assert_eq!(offences.count(0, Color::Black), 1);
        assert_eq!(offences.count(1, Color::White), 1);
        assert_eq!(offences.so_far(0, Color::White), 2);
        assert_eq!(offences.so_far(2, Color::Black), 0);
    }

    #[test]
    fn a_suspicion_is_confirmed_once() {
        let mut offences = Offences::default();
        offences.suspect(7, Color::Black, 12);
        assert_eq!(offences.confirmed(8), None);
        assert_eq!(offences.confirmed(7), Some((Color::Black, 12)));
        assert_eq!(offences.confirmed(7), None);
    }

    #[test]
    fn only_the_latest_suspicions_are_kept() {
        let mut offences = Offences::default();
        for id in 0..=SUSPICIONS_KEPT as u64 {
            offences.suspect(id, Color::White, id as u32);
        }
        assert_eq!(offences.confirmed(0), None);
        assert_eq!(offences.confirmed(1), Some((Color::White, 1)));
        assert_eq!(
            offences.confirmed(SUSPICIONS_KEPT as u64),
            Some((Color::White, SUSPICIONS_KEPT as u32))
        );
    }
}
