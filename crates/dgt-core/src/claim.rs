//! What a player claims, as data: the kind of a `{"claim": …}` op (a draw by repetition, 9.2;
//! by the fifty-move rule, 9.3; the opponent's flag, 6.8). Read once where the op comes in —
//! a REST body, a capture or journal op — so an unknown kind is refused with the reason on
//! every path instead of being read as a repetition claim: an arbiter's mistyped claim must
//! not record a claim he did not make.
//!
//! The op keeps the name it was written with (a canonical name or an accepted alias), so a
//! claim is journaled and passed back in its `arbiter_action` event exactly as it was sent.

use serde::{Deserialize, Serialize};

/// The kind of claim a player makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClaimKind {
    /// A draw by threefold repetition (9.2; 2005 9.2). The kind of a claim that names none.
    ThreefoldRepetition,
    /// A draw by the fifty-move rule (9.3; 2005 9.3).
    FiftyMoveRule,
    /// The opponent's flag has fallen (6.8; 2005 6.9, B7).
    Flag,
}

/// Every name a claim's kind may be written with, canonical names first, then the aliases
/// older captures, tests and scripts use.
const NAMES: [(&str, ClaimKind); 8] = [
    ("threefold_repetition", ClaimKind::ThreefoldRepetition),
    ("fifty_move_rule", ClaimKind::FiftyMoveRule),
    ("flag", ClaimKind::Flag),
    ("threefold", ClaimKind::ThreefoldRepetition),
    ("repetition", ClaimKind::ThreefoldRepetition),
    ("fifty", ClaimKind::FiftyMoveRule),
    ("fifty_moves", ClaimKind::FiftyMoveRule),
    ("flag_fall", ClaimKind::Flag),
];

/// How many of [`NAMES`] are the canonical ones.
const CANONICAL: usize = 3;

impl ClaimKind {
    /// The canonical name (README's REST table, the dashboard's claim form).
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimKind::ThreefoldRepetition => "threefold_repetition",
            ClaimKind::FiftyMoveRule => "fifty_move_rule",
            ClaimKind::Flag => "flag",
        }
    }
}

impl std::fmt::Display for ClaimKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A claim kind that is none of the accepted names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown claim kind {text:?}: use one of {} (or the aliases {})",
    canonical_names().join(", "),
    alias_names().join(", ")
)]
pub struct UnknownClaimKind {
    pub text: String,
}

fn canonical_names() -> Vec<&'static str> {
    NAMES[..CANONICAL].iter().map(|(n, _)| *n).collect()
}

fn alias_names() -> Vec<&'static str> {
    NAMES[CANONICAL..].iter().map(|(n, _)| *n).collect()
}

/// A claim's kind as the op wrote it: the kind, and the accepted name it was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimKindName {
    kind: ClaimKind,
    name: &'static str,
}

impl ClaimKindName {
    pub fn kind(self) -> ClaimKind {
        self.kind
    }

    /// The name as written (canonical or alias).
    pub fn as_str(self) -> &'static str {
        self.name
    }
}

impl From<ClaimKind> for ClaimKindName {
    fn from(kind: ClaimKind) -> Self {
        ClaimKindName {
            kind,
            name: kind.as_str(),
        }
    }
}

impl std::str::FromStr for ClaimKindName {
    type Err = UnknownClaimKind;

    fn from_str(text: &str) -> Result<Self, UnknownClaimKind> {
        NAMES
            .iter()
            .find(|(name, _)| *name == text)
            .map(|&(name, kind)| ClaimKindName { kind, name })
            .ok_or_else(|| UnknownClaimKind {
                text: text.to_string(),
            })
    }
}

impl Serialize for ClaimKindName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}

impl<'de> Deserialize<'de> for ClaimKindName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Reads a claimant (`"white"` / `"black"`), refusing any other with the reason.
pub(crate) fn claimant<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<crate::side::Side>, D::Error> {
    let Some(text) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    match text.as_str() {
        "white" => Ok(Some(crate::side::Side::White)),
        "black" => Ok(Some(crate::side::Side::Black)),
        _ => Err(serde::de::Error::custom(format!(
            "unknown claimant {text:?}: use white or black, or leave it out for the player on move"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::ClaimOp;

    #[test]
    fn every_accepted_name_reads_and_is_written_back_as_sent() {
        for (name, kind) in NAMES {
            let k: ClaimKindName = name.parse().unwrap();
            assert_eq!((k.kind(), k.as_str()), (kind, name));
            let json = format!("\"{name}\"");
            assert_eq!(serde_json::to_string(&k).unwrap(), json);
            assert_eq!(serde_json::from_str::<ClaimKindName>(&json).unwrap(), k);
        }
        assert_eq!(
            ClaimKindName::from(ClaimKind::FiftyMoveRule).as_str(),
            "fifty_move_rule"
        );
    }

    #[test]
    fn an_unknown_kind_is_refused_naming_the_accepted_ones() {
        for text in ["other", "Flag", "threefold_repetition_claim", ""] {
            let e = text.parse::<ClaimKindName>().unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "unknown claim kind {text:?}: use one of threefold_repetition, fifty_move_rule, flag (or the aliases threefold, repetition, fifty, fifty_moves, flag_fall)"
                )
            );
        }
    }

    #[test]
    fn a_claim_op_reads_its_kind_and_claimant_or_refuses_them() {
        let c: ClaimOp =
            serde_json::from_str(r#"{"kind":"fifty","side":"black","move":"e7e5"}"#).unwrap();
        assert_eq!(
            c.kind.map(ClaimKindName::kind),
            Some(ClaimKind::FiftyMoveRule)
        );
        assert_eq!(c.side, Some(crate::side::Side::Black));
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"kind":"fifty","side":"black","move":"e7e5"}"#
        );
        // Nothing named: the claim is a repetition claim by the player on move.
        let c: ClaimOp = serde_json::from_str("{}").unwrap();
        assert_eq!((c.kind, c.side), (None, None));
        assert_eq!(c.claim_kind(), ClaimKind::ThreefoldRepetition);
        assert_eq!(serde_json::to_string(&c).unwrap(), "{}");

        let e = serde_json::from_str::<ClaimOp>(r#"{"kind":"other"}"#).unwrap_err();
        assert!(
            e.to_string().contains("unknown claim kind \"other\""),
            "{e}"
        );
        let e = serde_json::from_str::<ClaimOp>(r#"{"side":"green"}"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown claimant \"green\": use white or black"),
            "{e}"
        );
    }
}
