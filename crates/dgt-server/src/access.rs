//! Who is at the dashboard: named arbiter accounts with a role (`chief`, `floor` for some
//! sections of the hall, `viewer`), the sections of the hall, sign-in sessions, and the
//! constant-time comparison of secrets. Sign-in sessions are in [`crate::sessions`].
//!
//! A floor arbiter sees and acts on the boards of their sections only; the chief sees and
//! acts on every board; a viewer reads (all boards, or their sections) and never acts. The
//! single `arbiter_token` / `viewer_token` of older settings are the accounts "arbiter"
//! (chief) and "viewer".
//!
//! A browser signs in by posting a token to `/api/session` and gets an `HttpOnly`,
//! `SameSite=Strict` cookie naming a random session: the token never sits in a URL, a link
//! or the page's storage. Scripts send `Authorization: Bearer TOKEN`.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

pub use crate::sessions::{
    MAX_SESSIONS_PER_ACCOUNT, NoRandomness, SESSION_COOKIE, SESSION_IDLE, Sessions, session_cookie,
};

/// What an account may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Every board, every action, the round's pairings.
    Chief,
    /// The boards of their sections: reads them and acts on them.
    Floor,
    /// Reads only.
    Viewer,
}

/// A part of the hall (`[[sections]]`): its name and the tables (board numbers) in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    pub name: String,
    pub tables: Vec<u32>,
}

/// A named account (`[[server.arbiters]]`) with its own token.
#[derive(Clone, PartialEq, Eq, Deserialize)]
pub struct Account {
    pub name: String,
    pub role: Role,
    pub token: String,
    /// For `floor` (and optionally `viewer`): the sections this account covers.
    #[serde(default)]
    pub sections: Vec<String>,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("name", &self.name)
            .field("role", &self.role)
            .field("token", &"<hidden>")
            .field("sections", &self.sections)
            .finish()
    }
}

/// Who a request comes from, once its token or session was accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Principal {
    pub name: String,
    pub role: Role,
    /// The sections this principal covers (empty: the whole hall).
    pub sections: Vec<String>,
    /// The tables of those sections; `None` for the whole hall.
    #[serde(skip)]
    pub tables: Option<BTreeSet<u32>>,
}

impl Principal {
    /// The whole hall, every action: the chief arbiter (and anyone when no token is set).
    pub fn chief(name: &str) -> Self {
        Principal {
            name: name.to_string(),
            role: Role::Chief,
            sections: Vec::new(),
            tables: None,
        }
    }

    /// Whether this principal may act at all (viewers never do).
    pub fn may_act(&self) -> bool {
        self.role != Role::Viewer
    }

    /// Whether a table is in this principal's part of the hall.
    pub fn covers_table(&self, table: Option<u32>) -> bool {
        match &self.tables {
            None => true,
            Some(set) => table.is_some_and(|t| set.contains(&t)),
        }
    }

    /// Whether a board (by its table in the table map) is in this principal's part of the
    /// hall.
    pub fn covers_board(&self, tables: &dgt_pairings::TableMap, board: &str) -> bool {
        self.tables.is_none() || self.covers_table(tables.table(board))
    }

    /// Whether this principal sees the whole hall.
    pub fn whole_hall(&self) -> bool {
        self.tables.is_none()
    }
}

/// The principal of an account: its sections resolved to tables.
pub fn principal_of(account: &Account, sections: &[Section]) -> Principal {
    let tables = match account.role {
        Role::Chief => None,
        Role::Floor => Some(tables_of(&account.sections, sections)),
        Role::Viewer if account.sections.is_empty() => None,
        Role::Viewer => Some(tables_of(&account.sections, sections)),
    };
    Principal {
        name: account.name.clone(),
        role: account.role,
        sections: if tables.is_some() {
            account.sections.clone()
        } else {
            Vec::new()
        },
        tables,
    }
}

fn tables_of(names: &[String], sections: &[Section]) -> BTreeSet<u32> {
    sections
        .iter()
        .filter(|s| names.contains(&s.name))
        .flat_map(|s| s.tables.iter().copied())
        .collect()
}

/// The section a table belongs to (the first that lists it).
pub fn section_of(sections: &[Section], table: Option<u32>) -> Option<&str> {
    let table = table?;
    sections
        .iter()
        .find(|s| s.tables.contains(&table))
        .map(|s| s.name.as_str())
}

/// Compares a presented secret with a configured one in time that depends on neither their
/// contents nor their lengths: both are hashed to 32 bytes first, and the digests compared
/// with `subtle`'s constant-time equality.
pub fn same_secret(presented: &str, configured: &str) -> bool {
    let a = Sha256::digest(presented.as_bytes());
    let b = Sha256::digest(configured.as_bytes());
    a.as_slice().ct_eq(b.as_slice()).into()
}

/// Every account the configuration defines, the single tokens of older settings included
/// ("arbiter": chief, "viewer": viewer).
pub fn accounts(config: &crate::ServerConfig) -> Vec<Account> {
    let mut all = config.arbiters.clone();
    if let Some(t) = &config.arbiter_token {
        all.push(Account {
            name: "arbiter".into(),
            role: Role::Chief,
            token: t.clone(),
            sections: Vec::new(),
        });
    }
    if let Some(t) = &config.viewer_token {
        all.push(Account {
            name: "viewer".into(),
            role: Role::Viewer,
            token: t.clone(),
            sections: Vec::new(),
        });
    }
    all
}

/// The account a token belongs to. Every account is compared (no early exit), so the time
/// taken does not tell which one matched.
pub fn account_for_token<'a>(accounts: &'a [Account], token: &str) -> Option<&'a Account> {
    let mut found = None;
    for a in accounts {
        if same_secret(token, &a.token) && found.is_none() {
            found = Some(a);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_of_any_length_compare_by_digest() {
        assert!(same_secret("a-long-secret", "a-long-secret"));
        assert!(!same_secret("a-long-secre", "a-long-secret"));
        assert!(!same_secret("", "a-long-secret"));
        assert!(!same_secret("a-long-secret-and-more", "a-long-secret"));
    }

    fn hall_sections() -> Vec<Section> {
        vec![
            Section {
                name: "top".into(),
                tables: (1..=40).collect(),
            },
            Section {
                name: "open".into(),
                tables: (41..=80).collect(),
            },
        ]
    }

    #[test]
    fn a_floor_arbiter_covers_the_tables_of_their_sections_only() {
        let floor = principal_of(
            &Account {
                name: "Ana".into(),
                role: Role::Floor,
                token: "t".into(),
                sections: vec!["open".into()],
            },
            &hall_sections(),
        );
        assert!(floor.covers_table(Some(41)) && floor.covers_table(Some(80)));
        assert!(!floor.covers_table(Some(40)) && !floor.covers_table(None));
        let tables = dgt_pairings::TableMap::default();
        assert!(floor.covers_board(&tables, "57"));
        assert!(!floor.covers_board(&tables, "7"));
        assert!(!floor.covers_board(&tables, "board-1"));
        assert!(floor.may_act());
        let chief = principal_of(
            &Account {
                name: "Carl".into(),
                role: Role::Chief,
                token: "t".into(),
                sections: vec!["open".into()],
            },
            &hall_sections(),
        );
        assert!(chief.covers_board(&tables, "board-1") && chief.whole_hall());
        assert_eq!(section_of(&hall_sections(), Some(41)), Some("open"));
        assert_eq!(section_of(&hall_sections(), Some(99)), None);
    }
}
