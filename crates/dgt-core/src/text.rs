//! Text from outside (pairing files, settings, board names) written into formats that have
//! structure of their own, as data and never as structure: a PGN tag value, a spreadsheet
//! cell. Also which characters such text may not hold at all.
//!
//! A line break inside a player's name would end its PGN tag and start a forged one
//! (`Result "1-0"`, a move for another table); a name starting with `=` is a formula to a
//! spreadsheet opening `results.csv`. Pairing files are checked at import
//! (`dgt_pairings::text`), and every writer escapes again, so text that reached the
//! journal before the check still comes out as data.

/// The character that stands in for one a format cannot hold, visibly (U+FFFD).
pub const REPLACEMENT: char = '\u{FFFD}';

/// Whether `c` is not text: a control character (C0, DEL, C1 — the C1 range is what
/// Windows-1252 text read as Latin-1 turns into), a line or paragraph separator, or a
/// bidirectional override that makes a name display as something else.
pub fn is_unwanted(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// The first unwanted character of `s` (see [`is_unwanted`]) and its character position
/// (0-based).
pub fn first_unwanted(s: &str) -> Option<(usize, char)> {
    s.chars().enumerate().find(|(_, c)| is_unwanted(*c))
}

/// A character named for a message: `U+000D (carriage return)`.
pub fn describe(c: char) -> String {
    let name = match c {
        '\r' => " (carriage return)",
        '\n' => " (line feed)",
        '\t' => " (tab)",
        '\0' => " (NUL)",
        '\u{80}'..='\u{9F}' => " (a C1 control character: Windows-1252 text read as Latin-1?)",
        '\u{2028}' | '\u{2029}' => " (a line separator)",
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => " (a bidirectional override)",
        _ if c.is_control() => " (a control character)",
        _ => "",
    };
    format!("U+{:04X}{name}", c as u32)
}

/// `s` with every unwanted character replaced by [`REPLACEMENT`].
pub fn visible(s: &str) -> String {
    s.chars()
        .map(|c| if is_unwanted(c) { REPLACEMENT } else { c })
        .collect()
}

/// A PGN tag value as the standard has it (8.1.1: a string token holds printing characters
/// only; `\` and `"` inside it are escaped with a backslash): unwanted characters (line
/// breaks among them) replaced visibly, then escaped. Without the quotes around it.
pub fn pgn_tag_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if is_unwanted(c) => out.push(REPLACEMENT),
            c => out.push(c),
        }
    }
    out
}

/// A cell a spreadsheet reads as text, never as a formula: one that starts with `=`, `+`,
/// `-`, `@`, a tab or a carriage return gets a `'` in front (what spreadsheets themselves
/// write to mean "text"); unwanted characters are replaced visibly. Quoting for CSV is the
/// writer's.
pub fn spreadsheet_text(s: &str) -> String {
    let starts_formula = s
        .chars()
        .next()
        .is_some_and(|c| matches!(c, '=' | '+' | '-' | '@' | '\t' | '\r'));
    let shown = visible(s);
    if starts_formula {
        format!("'{shown}")
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_value_holds_no_line_break_and_escapes_quotes_and_backslashes() {
        assert_eq!(
            pgn_tag_value("Evil\"]\r[Result \"1-0"),
            "Evil\\\"]\u{FFFD}[Result \\\"1-0"
        );
        assert_eq!(pgn_tag_value("a\\b\nc\u{85}d"), "a\\\\b\u{FFFD}c\u{FFFD}d");
        assert_eq!(pgn_tag_value("Müller, Jörg"), "Müller, Jörg");
    }

    #[test]
    fn formulas_become_text() {
        assert_eq!(spreadsheet_text("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        for s in ["+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert!(spreadsheet_text(s).starts_with('\''), "{s:?}");
        }
        assert_eq!(spreadsheet_text("Carlsen, Magnus"), "Carlsen, Magnus");
        assert_eq!(spreadsheet_text("a\rb"), "a\u{FFFD}b");
    }

    #[test]
    fn unwanted_characters_are_named() {
        assert_eq!(first_unwanted("ab\rc"), Some((2, '\r')));
        assert_eq!(first_unwanted("Ana Łukasz"), None);
        assert!(describe('\u{96}').contains("Windows-1252"));
        assert!(is_unwanted('\u{202E}') && is_unwanted('\u{2028}') && is_unwanted('\u{7F}'));
    }
}
