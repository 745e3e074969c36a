//! The editions of the Laws by name: a leaf, so that the inputs naming an edition need not
//! import the Laws' tables (`arbiter`), which import the alert kinds.

/// An edition of the FIDE Laws of Chess the daemon knows, named as in settings, set-ups and
/// alerts (`"fide-2023"`). Parsed once where a name comes in: an unknown name is an error
/// ([`UnknownEdition`]), never a fall-back to another edition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Edition {
    Fide2005,
    Fide2017,
    Fide2018,
    #[default]
    Fide2023,
}

/// An edition name that is none of [`Edition::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown edition of the Laws {name:?}: use one of {}", Edition::names().join(", "))]
pub struct UnknownEdition {
    pub name: String,
}

impl Edition {
    pub const ALL: [Edition; 4] = [
        Edition::Fide2005,
        Edition::Fide2017,
        Edition::Fide2018,
        Edition::Fide2023,
    ];

    /// The name in settings, set-ups and alerts.
    pub fn name(self) -> &'static str {
        match self {
            Edition::Fide2005 => "fide-2005",
            Edition::Fide2017 => "fide-2017",
            Edition::Fide2018 => "fide-2018",
            Edition::Fide2023 => "fide-2023",
        }
    }

    /// Every name, oldest edition first.
    pub fn names() -> Vec<&'static str> {
        Edition::ALL.iter().map(|e| e.name()).collect()
    }
}

impl std::str::FromStr for Edition {
    type Err = UnknownEdition;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Edition::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| UnknownEdition {
                name: name.to_string(),
            })
    }
}

impl std::fmt::Display for Edition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Edition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Edition {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
