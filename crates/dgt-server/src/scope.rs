//! What a principal of some sections (a floor arbiter, a section's viewer) sees of views
//! that cover the whole hall (a round, a hub's nodes): only her tables and boards. The pairings themselves are
//! public (the round's PGN carries them), the tables' boards, games, states and results
//! of other sections are not hers.

use serde_json::Value;

use crate::access::Principal;

/// Keeps in a round's view (`GET /api/rounds/{n}`) only the tables, boards and table
/// numbers `who` covers.
pub(crate) fn round_view(who: &Principal, tables: &dgt_pairings::TableMap, view: &mut Value) {
    if who.whole_hall() {
        return;
    }
    let covers_table = |v: &Value| who.covers_table(v.as_u64().map(|t| t as u32));
    if let Some(list) = view.get_mut("tables").and_then(Value::as_array_mut) {
        list.retain(|t| covers_table(&t["table"]));
    }
    for key in ["tables_without_board", "unfinished"] {
        if let Some(list) = view.get_mut(key).and_then(Value::as_array_mut) {
            list.retain(covers_table);
        }
    }
    if let Some(list) = view
        .get_mut("contested_tables")
        .and_then(Value::as_array_mut)
    {
        list.retain(|c| covers_table(&c["table"]));
    }
    if let Some(list) = view
        .get_mut("boards_without_pairing")
        .and_then(Value::as_array_mut)
    {
        list.retain(|b| b.as_str().is_some_and(|b| who.covers_board(tables, b)));
    }
}

/// Keeps in a hub's node list (`GET /api/nodes`) only the boards `who` covers: each node's
/// `board_labels` and its `boards` count.
pub(crate) fn node_list(who: &Principal, tables: &dgt_pairings::TableMap, nodes: &mut Value) {
    if who.whole_hall() {
        return;
    }
    for node in nodes.as_array_mut().into_iter().flatten() {
        if let Some(labels) = node.get_mut("board_labels").and_then(Value::as_array_mut) {
            labels.retain(|b| b.as_str().is_some_and(|b| who.covers_board(tables, b)));
            let n = labels.len();
            node["boards"] = Value::from(n);
        }
    }
}
