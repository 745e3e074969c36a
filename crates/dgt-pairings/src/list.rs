//! A plain pairing list, CSV or TSV, as pairing programs and spreadsheets write it: a header
//! row, then one row per table. The delimiter is read from the header (tab, `;` as Dutch
//! spreadsheets write it, else `,`). Header names are matched without regard to case,
//! spaces or punctuation, in English and Dutch:
//!
//! | column | headers |
//! |---|---|
//! | table (required) | table, board, bord, tafel, brd, bd |
//! | White (required) | white, wit, white player, speler wit |
//! | Black (required) | black, zwart, black player, speler zwart |
//! | FIDE ids | white fide id, fide id white, wit fide id, … (also "id") |
//! | ratings | white rating, white elo, rating wit, elo wit, … |
//! | titles, federations | white title, titel wit, white fed, federatie wit, … |
//!
//! Other columns (results, points, clubs) are ignored. A row whose Black is empty, `bye`,
//! `vrij` or `-` is a bye of the White player (TRF code `U`).

use std::collections::BTreeMap;

use dgt_core::pairing::{Bye, Pairing, Player, RoundPairings};

use crate::problems::Problems;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Column {
    Table,
    Name(bool),
    FideId(bool),
    Rating(bool),
    Title(bool),
    Federation(bool),
}

/// Lower case, letters and digits only: "White FIDE-ID" → "whitefideid".
fn normalise(header: &str) -> String {
    header
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn column(header: &str) -> Option<Column> {
    let h = normalise(header);
    if [
        "table", "board", "bord", "tafel", "brd", "bd", "tableno", "boardno", "bordnr", "tafelnr",
    ]
    .contains(&h.as_str())
    {
        return Some(Column::Table);
    }
    // The colour word, before or after the field name.
    for (white, colour) in [
        (true, "white"),
        (true, "wit"),
        (false, "black"),
        (false, "zwart"),
    ] {
        let rest = if let Some(r) = h.strip_prefix(colour) {
            r.to_string()
        } else if let Some(r) = h.strip_suffix(colour) {
            r.to_string()
        } else {
            continue;
        };
        let rest = rest
            .trim_start_matches("speler")
            .trim_end_matches("speler")
            .to_string();
        return match rest.as_str() {
            "" | "player" | "name" | "naam" => Some(Column::Name(white)),
            "fideid" | "id" | "fide" | "fidenr" | "fidenummer" => Some(Column::FideId(white)),
            "rating" | "elo" | "rtg" | "fiderating" => Some(Column::Rating(white)),
            "title" | "titel" => Some(Column::Title(white)),
            "fed" | "federation" | "federatie" | "land" | "country" => {
                Some(Column::Federation(white))
            }
            _ => None,
        };
    }
    None
}

fn delimiter(header_line: &str) -> u8 {
    if header_line.contains('\t') {
        b'\t'
    } else if header_line.matches(';').count() > header_line.matches(',').count() {
        b';'
    } else {
        b','
    }
}

const NO_OPPONENT: &[&str] = &["", "bye", "vrij", "-", "oneven"];

/// Round `round`'s pairings from a pairing list, every problem at once.
pub fn read(text: &str, round: u32) -> Result<RoundPairings, Problems> {
    let mut problems = Problems::default();
    if round == 0 {
        problems.whole(
            "round 0 does not exist",
            "rounds are numbered from 1: give --round 1 or later",
        );
        return Err(problems);
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(header_line) = text.lines().find(|l| !l.trim().is_empty()) else {
        problems.whole(
            "the file is empty",
            "give a pairing list with a header row (table, white, black) and one row per table",
        );
        return Err(problems);
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter(header_line))
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut columns: BTreeMap<Column, usize> = BTreeMap::new();
    let mut header_seen = false;
    let mut tables: Vec<(usize, Pairing)> = Vec::new();
    let mut byes = Vec::new();
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                problems.at(
                    line,
                    format!("unreadable row: {e}"),
                    "close every quoted field with a quote and save the file as UTF-8",
                );
                continue;
            }
        };
        let line = record.position().map_or(0, |p| p.line() as usize);
        if record.iter().all(str::is_empty) {
            continue;
        }
        if !header_seen {
            header_seen = true;
            for (i, h) in record.iter().enumerate() {
                if let Some(c) = column(h) {
                    columns.entry(c).or_insert(i);
                }
            }
            for (c, what) in [
                (Column::Table, "table (or board, bord, tafel)"),
                (Column::Name(true), "white (or wit)"),
                (Column::Name(false), "black (or zwart)"),
            ] {
                if !columns.contains_key(&c) {
                    problems.at(
                        line,
                        format!(
                            "the header has no {what} column (found: {})",
                            record.iter().collect::<Vec<_>>().join(", ")
                        ),
                        format!("name a column {what} in the first row"),
                    );
                }
            }
            if !problems.is_empty() {
                return Err(problems);
            }
            continue;
        }
        let get = |c: Column| {
            columns
                .get(&c)
                .and_then(|&i| record.get(i))
                .unwrap_or_default()
        };
        let table_text = get(Column::Table);
        let table = match table_text.parse::<u32>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                problems.at(
                    line,
                    format!("table {table_text:?} is not a table number"),
                    "write the table (board) number, 1 and up",
                );
                None
            }
        };
        let mut player = |white: bool| -> Option<Player> {
            let name = get(Column::Name(white)).to_string();
            if name.is_empty() || (!white && NO_OPPONENT.contains(&name.to_lowercase().as_str())) {
                return None;
            }
            let side = if white { "White" } else { "Black" };
            let mut number = |c: Column, what: &str| -> Option<u64> {
                let v = get(c);
                if v.is_empty() {
                    return None;
                }
                match v.parse::<u64>() {
                    Ok(n) => Some(n).filter(|&n| n != 0),
                    Err(_) => {
                        problems.at(
                            line,
                            format!("{side}'s {what} {v:?} is not a number"),
                            format!("write the {what} as digits, or leave it empty"),
                        );
                        None
                    }
                }
            };
            let fide_id = number(Column::FideId(white), "FIDE id");
            let rating = number(Column::Rating(white), "rating").map(|r| r as u32);
            let text = |c: Column| Some(get(c).to_string()).filter(|s| !s.is_empty());
            Some(Player {
                name,
                start_number: None,
                fide_id,
                rating,
                title: text(Column::Title(white)),
                federation: text(Column::Federation(white)),
                sex: None,
            })
        };
        let white = player(true);
        let black = player(false);
        let (Some(table), Some(white)) = (table, white) else {
            if table.is_some() {
                problems.at(
                    line,
                    "the row has no White player",
                    "write the White player's name",
                );
            }
            continue;
        };
        match black {
            Some(black) => tables.push((
                line,
                Pairing {
                    table,
                    white,
                    black,
                },
            )),
            None => byes.push(Bye {
                player: white,
                code: 'U',
            }),
        }
    }
    if !header_seen {
        problems.whole(
            "the file is empty",
            "give a pairing list with a header row (table, white, black) and one row per table",
        );
    }
    // A table twice, or a player on two tables.
    let mut by_table: BTreeMap<u32, usize> = BTreeMap::new();
    let mut by_player: BTreeMap<String, usize> = BTreeMap::new();
    for (line, p) in &tables {
        if let Some(first) = by_table.insert(p.table, *line) {
            problems.at(
                *line,
                format!("table {} is already paired on line {first}", p.table),
                "give every row its own table number",
            );
        }
        for who in [&p.white, &p.black] {
            let key = match who.fide_id {
                Some(id) => format!("id {id}"),
                None => who.name.clone(),
            };
            if let Some(first) = by_player.insert(key.clone(), *line) {
                problems.at(
                    *line,
                    format!("{} ({key}) is already paired on line {first}", who.name),
                    "pair every player once",
                );
            }
        }
    }
    if header_seen && tables.is_empty() && problems.is_empty() {
        problems.whole(
            "the list pairs no table",
            "give one row per table under the header",
        );
    }
    let mut tables: Vec<Pairing> = tables.into_iter().map(|(_, p)| p).collect();
    tables.sort_by_key(|p| p.table);
    problems.or(RoundPairings {
        round,
        date: None,
        event: None,
        tables,
        byes,
        format: Some("csv".into()),
        trf: None,
        encoding: None,
    })
}
