//! A pairing file's text is data, never structure: before it is read, every line is checked
//! for characters that are not text (control characters, a carriage return inside a line,
//! line separators, bidirectional overrides: [`dgt_core::text::is_unwanted`]) and for its
//! size; after, the names' lengths and the number of tables. A file with any problem is
//! refused whole, each problem with its line and a fix.
//!
//! A lone carriage return matters most: the file's readers split lines at `\n`, so it stays
//! inside a name, and a name holding a line break would end a PGN tag early and forge
//! another (`Result "1-0"`, a move for another table) in the round's public PGN.

use dgt_core::pairing::RoundPairings;
use dgt_core::text::{describe, is_unwanted};

use crate::problems::Problems;

/// The largest pairing file read (a 2,000-table TRF with 20 rounds has about 1.2 MB; the
/// server refuses uploads beyond its own `max_upload_bytes` before reading them).
pub const MAX_FILE_BYTES: usize = 2 * 1024 * 1024;
/// Lines a pairing file may have (a TRF: one per player, and a few more).
pub const MAX_LINES: usize = 10_000;
/// Characters one line may have (a TRF line with 40 rounds has 491).
pub const MAX_LINE_CHARS: usize = 2_000;
/// Tables one round may have (the largest opens have a few hundred).
pub const MAX_TABLES: usize = 2_000;
/// Characters of a player's name, and of an event's name.
pub const MAX_NAME_CHARS: usize = 100;
/// Characters of a title or a federation (FIDE writes 1–3).
pub const MAX_CODE_CHARS: usize = 8;
/// Problems of one kind reported before the rest are counted together.
const REPORTED: usize = 20;

/// The problems of a file's text as a whole and line by line (size, line count, line
/// length, characters that are not text); nothing when it may be read.
pub fn check_file(text: &str) -> Problems {
    let mut problems = Problems::default();
    if text.len() > MAX_FILE_BYTES {
        problems.whole(
            format!(
                "the file has {} bytes, more than the {MAX_FILE_BYTES} a pairing file may have",
                text.len()
            ),
            "import one round's pairings (or the tournament's TRF), not another file",
        );
        return problems;
    }
    let lines = text.split('\n').count();
    if lines > MAX_LINES {
        problems.whole(
            format!(
                "the file has {lines} lines, more than the {MAX_LINES} a pairing file may have"
            ),
            "import one round's pairings (or the tournament's TRF), not another file",
        );
        return problems;
    }
    let (mut long, mut unwanted) = (0, 0);
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let body = raw.strip_suffix('\r').unwrap_or(raw);
        let chars = body.chars().count();
        if chars > MAX_LINE_CHARS {
            long += 1;
            if long <= REPORTED {
                problems.at(
                    line,
                    format!("the line has {chars} characters, more than {MAX_LINE_CHARS}"),
                    "one table (or one TRF player) per line; check that the file is a pairing file",
                );
            }
            continue;
        }
        // A tab separates the columns of a TSV list; it never reaches a field.
        if let Some((column, c)) = body
            .chars()
            .enumerate()
            .find(|&(_, c)| c != '\t' && is_unwanted(c))
        {
            unwanted += 1;
            if unwanted <= REPORTED {
                let fix = if c == '\r' {
                    "a line break inside a line (a lone carriage return): join the line, or \
                     save the file with ordinary line ends (LF or CR LF)"
                } else {
                    "remove the character; if names show odd characters, save the file as \
                     UTF-8 from the pairing program"
                };
                problems.at(
                    line,
                    format!(
                        "column {}: {} is not text (names are data, never structure)",
                        column + 1,
                        describe(c)
                    ),
                    fix,
                );
            }
        }
    }
    for (n, what) in [
        (long, "too long"),
        (unwanted, "with characters that are not text"),
    ] {
        if n > REPORTED {
            problems.whole(
                format!("{} more lines {what}", n - REPORTED),
                "the file may not be a pairing file: check it",
            );
        }
    }
    problems
}

/// The problems of pairings read from a file: too many tables, names and codes too long
/// (in a TRF the columns bound them; a list's cells do not).
pub fn check_pairings(pairings: &RoundPairings) -> Problems {
    let mut problems = Problems::default();
    if pairings.tables.len() > MAX_TABLES {
        problems.whole(
            format!(
                "the round has {} tables, more than the {MAX_TABLES} one round may have",
                pairings.tables.len()
            ),
            "import one round's pairings",
        );
        return problems;
    }
    if let Some(event) = &pairings.event
        && event.chars().count() > MAX_NAME_CHARS
    {
        problems.whole(
            format!("the tournament's name has more than {MAX_NAME_CHARS} characters"),
            "shorten the tournament's name (TRF line 012)",
        );
    }
    let players = pairings
        .tables
        .iter()
        .flat_map(|p| [(p.table, &p.white), (p.table, &p.black)])
        .chain(pairings.byes.iter().map(|b| (0, &b.player)));
    let mut reported = 0;
    for (table, player) in players {
        let at = if table == 0 {
            format!("bye of {:.40}", player.name)
        } else {
            format!("table {table}")
        };
        for (what, value, max) in [
            ("name", Some(&player.name), MAX_NAME_CHARS),
            ("title", player.title.as_ref(), MAX_CODE_CHARS),
            ("federation", player.federation.as_ref(), MAX_CODE_CHARS),
        ] {
            let Some(value) = value else { continue };
            let n = value.chars().count();
            if n > max && reported < REPORTED {
                reported += 1;
                problems.whole(
                    format!(
                        "{at}: the {what} {:.40}… has {n} characters, more than {max}",
                        value
                    ),
                    format!("shorten the {what} to {max} characters"),
                );
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_carriage_return_and_control_characters_are_refused_with_their_line() {
        let text = "table,white,black\r\n1,Evil\r[Result \"1-0\"],B\r\n2,C\u{85}D,E\n3,F\tG,H\n";
        let problems = check_file(text).0;
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].line, Some(2));
        assert_eq!(
            problems[0].message,
            "column 7: U+000D (carriage return) is not text (names are data, never structure)"
        );
        assert_eq!(
            problems[0].fix,
            "a line break inside a line (a lone carriage return): join the line, or save the file with ordinary line ends (LF or CR LF)"
        );
        assert_eq!(problems[1].line, Some(3));
        assert_eq!(
            problems[1].message,
            "column 4: U+0085 (a C1 control character: Windows-1252 text read as Latin-1?) is not text (names are data, never structure)"
        );
    }

    #[test]
    fn sizes_are_bounded() {
        assert!(!check_file(&"x".repeat(MAX_LINE_CHARS + 1)).is_empty());
        assert!(!check_file(&"1\n".repeat(MAX_LINES + 1)).is_empty());
        let many = "x\n".repeat(MAX_LINES - 1);
        assert!(check_file(&many).is_empty());
        let tables = (1..=MAX_TABLES + 1)
            .map(|t| format!("{t},W{t},B{t}\n"))
            .collect::<String>();
        let read = crate::read(
            &format!("table,white,black\n{tables}"),
            1,
            crate::BoardOrder::default(),
        );
        assert!(read.unwrap_err().to_string().contains("2001 tables"));
        let long = format!(
            "table,white,black\n1,{},B\n",
            "x".repeat(MAX_NAME_CHARS + 1)
        );
        let read = crate::read(&long, 1, crate::BoardOrder::default());
        assert!(read.unwrap_err().to_string().contains("more than 100"));
        let flood = format!("{}\n", "\u{1}".repeat(3)).repeat(100);
        let problems = check_file(&flood).0;
        assert_eq!(problems.len(), REPORTED + 1, "{problems:?}");
    }
}
