//! The round's results for the pairing program: a CSV list, and the imported TRF with the
//! round's result codes filled in. Tables without a result are left blank in both and
//! listed by [`unfinished`], so the arbiter sees at once what is still missing.

use std::collections::BTreeMap;
use std::fmt::Write;

use dgt_core::pairing::{Player, RoundPairings};

use crate::book::{ResultSource, TableOutcome, TableState};
use crate::trf;

/// The tables whose result waits for the arbiter's confirmation (a result gesture).
pub fn unconfirmed(outcomes: &[TableOutcome<'_>]) -> Vec<u32> {
    outcomes
        .iter()
        .filter(|o| o.result.is_some() && !o.confirmed)
        .map(|o| o.pairing.table)
        .collect()
}

/// The tables of the round that have no result yet.
pub fn unfinished(outcomes: &[TableOutcome<'_>]) -> Vec<u32> {
    outcomes
        .iter()
        .filter(|o| o.result.is_none())
        .map(|o| o.pairing.table)
        .collect()
}

/// A text cell: read by a spreadsheet as text, never as a formula
/// ([`dgt_core::text::spreadsheet_text`]), quoted when it holds a delimiter or a quote.
fn csv_field(s: &str) -> String {
    let s = dgt_core::text::spreadsheet_text(s);
    if s.contains([',', '"', '\n', '\r', ';']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

fn id(p: &Player) -> String {
    p.fide_id.map(|i| i.to_string()).unwrap_or_default()
}

fn state_name(s: TableState) -> &'static str {
    match s {
        TableState::NotStarted => "not_started",
        TableState::Playing => "playing",
        TableState::ResultOwed => "result_owed",
        TableState::Finished => "finished",
        TableState::NoBoard => "no_board",
    }
}

/// One row per table (table order), then one per bye: `table,white,white_fide_id,black,
/// black_fide_id,result,source,state,confirmed,by`. `source` is `board` (the game's end by
/// rule), `gesture` (the players' result gesture) or `arbiter` (an entered result);
/// `confirmed` is `no` for a result the arbiter has not confirmed yet (a gesture), `by`
/// names who entered a result. The result is empty while the table has none.
pub fn csv(pairings: &RoundPairings, outcomes: &[TableOutcome<'_>]) -> String {
    let mut out = String::from(
        "table,white,white_fide_id,black,black_fide_id,result,source,state,confirmed,by\n",
    );
    for o in outcomes {
        let p = o.pairing;
        let source = match o.source {
            None => "",
            Some(ResultSource::Arbiter) => "arbiter",
            Some(ResultSource::Board) => "board",
            Some(ResultSource::Gesture) => "gesture",
        };
        let confirmed = match (&o.result, o.confirmed) {
            (None, _) => "",
            (Some(_), true) => "yes",
            (Some(_), false) => "no",
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            p.table,
            csv_field(&p.white.name),
            id(&p.white),
            csv_field(&p.black.name),
            id(&p.black),
            o.result.as_deref().unwrap_or_default(),
            source,
            state_name(o.state),
            confirmed,
            csv_field(o.by.as_deref().unwrap_or_default()),
        );
    }
    for b in &pairings.byes {
        let _ = writeln!(
            out,
            ",{},{},bye,,{},pairing,finished,yes,",
            csv_field(&b.player.name),
            id(&b.player),
            b.code
        );
    }
    out
}

/// The imported TRF with the round's result codes written in for every table with a
/// result (byes keep the code the pairing program wrote). `None` when the pairings did not
/// come from a TRF.
pub fn trf(pairings: &RoundPairings, outcomes: &[TableOutcome<'_>]) -> Option<String> {
    let text = pairings.trf.as_ref()?;
    let mut codes: BTreeMap<u32, char> = BTreeMap::new();
    for o in outcomes {
        let (Some(result), Some(w), Some(b)) = (
            o.result.as_deref(),
            o.pairing.white.start_number,
            o.pairing.black.start_number,
        ) else {
            continue;
        };
        if let Some((cw, cb)) = trf::codes(result) {
            codes.insert(w, cw);
            codes.insert(b, cb);
        }
    }
    Some(trf::with_results(text, pairings.round, &codes))
}

/// A table's result as a PGN `Result` tag: forfeits as the result they give (`+-` is
/// `1-0`), a double forfeit `0-0` (lichess broadcasts read it, lila #16081), a game not
/// rated as its played result.
pub fn pgn_result(result: &str) -> &str {
    match result {
        "+-" | "1-0u" => "1-0",
        "-+" | "0-1u" => "0-1",
        "1/2-1/2u" => "1/2-1/2",
        "--" => "0-0",
        other => other,
    }
}
