//! `[[sections]]` and `[[server.arbiters]]`: the parts of the hall and the named arbiter
//! accounts (see `docs/cockpit.md`), checked like every other setting: each problem with its
//! key, value and fix.

use std::collections::{BTreeMap, BTreeSet};

use super::Settings;
use super::problem::Problem;

/// As short as a token may be (the same rule as `server.arbiter_token`).
const MIN_TOKEN_CHARS: usize = 16;

struct Found(Vec<Problem>);

impl Found {
    fn add(
        &mut self,
        key: impl Into<String>,
        value: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.0.push(Problem::new(key, value, problem, fix));
    }
}

fn quoted(text: &str) -> String {
    format!("{text:?}")
}

fn hidden(secret: &str) -> String {
    format!("(hidden, {} characters)", secret.chars().count())
}

/// `[[sections]]` and `[[server.arbiters]]`: names unique, ranges readable, a floor
/// arbiter's sections defined, every token long and unlike any other.
pub fn check(s: &Settings) -> Vec<Problem> {
    let mut c = Found(Vec::new());
    let mut section_names = BTreeSet::new();
    let mut seen_tables: BTreeMap<u32, &str> = BTreeMap::new();
    for (i, section) in s.sections.iter().enumerate() {
        if section.name.trim().is_empty() || !section_names.insert(section.name.as_str()) {
            c.add(
                format!("sections[{i}].name"),
                quoted(&section.name),
                "empty, or the name of another section",
                "give every section its own name, e.g. \"Open A\"",
            );
        }
        match section.table_numbers() {
            Err(e) => c.add(
                format!("sections[{i}].tables"),
                format!("{:?}", section.tables),
                e.to_string(),
                "list table numbers (1 and up) or ranges such as \"41-80\"",
            ),
            Ok(tables) => {
                for t in tables {
                    if let Some(other) = seen_tables.insert(t, &section.name) {
                        c.add(
                            format!("sections[{i}].tables"),
                            t.to_string(),
                            format!("table {t} is also in section {other:?}"),
                            "put every table in one section only",
                        );
                    }
                }
            }
        }
    }
    let mut tokens: Vec<(String, &str)> = Vec::new();
    if let Some(t) = &s.server.arbiter_token {
        tokens.push(("server.arbiter_token".into(), t));
    }
    if let Some(t) = &s.server.viewer_token {
        tokens.push(("server.viewer_token".into(), t));
    }
    let mut names = BTreeSet::new();
    for (i, a) in s.server.arbiters.iter().enumerate() {
        let key = format!("server.arbiters[{i}]");
        if a.name.trim().is_empty() || !names.insert(a.name.as_str()) {
            c.add(
                format!("{key}.name"),
                quoted(&a.name),
                "empty, or the name of another account",
                "give every arbiter their own name (it is shown beside their actions)",
            );
        }
        if a.token.chars().count() < MIN_TOKEN_CHARS {
            c.add(
                format!("{key}.token"),
                hidden(&a.token),
                format!("shorter than {MIN_TOKEN_CHARS} characters: it could be guessed"),
                "use 16 or more random characters, e.g. the output of `openssl rand -hex 16`",
            );
        }
        if let Some((other, _)) = tokens.iter().find(|(_, t)| *t == a.token) {
            c.add(
                format!("{key}.token"),
                hidden(&a.token),
                format!("the same as {other}: the two could not be told apart"),
                "give every account a token of its own",
            );
        }
        tokens.push((format!("{key}.token"), &a.token));
        if a.role == dgt_server::access::Role::Floor && a.sections.is_empty() {
            c.add(
                format!("{key}.sections"),
                "[]",
                "a floor arbiter without sections covers no board",
                "list the sections they walk, e.g. sections = [\"Open A\"]",
            );
        }
        for (k, name) in a.sections.iter().enumerate() {
            if !section_names.contains(name.as_str()) {
                c.add(
                    format!("{key}.sections[{k}]"),
                    quoted(name),
                    "no [[sections]] entry has this name",
                    "add the section, or correct the name",
                );
            }
        }
    }
    c.0
}
