//! The hub's `[[tables]]` name a venue PC's board (`label = "hall-a/7"`, docs/cluster.md);
//! a daemon's do not, and each refusal says where such a label belongs.

use dgt_arbiter::settings::{Problem, check, check_hub, load_sources};

fn with_checker(
    toml: &str,
    checker: fn(&dgt_arbiter::settings::Settings) -> Vec<Problem>,
) -> Vec<Problem> {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.toml");
    std::fs::write(
        &base,
        format!(
            "[journal]\npath = \"{}\"\n",
            dir.path().join("j.sqlite").display()
        ),
    )
    .unwrap();
    let file = dir.path().join("venue.toml");
    std::fs::write(&file, toml).unwrap();
    let loaded = load_sources(Some(&base), Some(&file), Vec::new()).expect("loads");
    checker(&loaded.settings)
}

fn label_problem(problems: &[Problem]) -> Option<&Problem> {
    problems.iter().find(|p| p.key == "tables[0].label")
}

const NODE_BOARD: &str = "[[tables]]\nboard = 7\nlabel = \"hall-a/7\"\n";

#[test]
fn the_hubs_tables_take_a_node_board() {
    let problems = with_checker(NODE_BOARD, check_hub);
    assert_eq!(label_problem(&problems), None, "{problems:?}");
}

#[test]
fn a_daemons_tables_refuse_a_node_board_and_say_where_it_belongs() {
    let problems = with_checker(NODE_BOARD, check);
    let p = label_problem(&problems).expect("refused");
    assert!(p.problem.contains("only the hub's [[tables]]"), "{p}");
    assert!(p.fix.contains("hub's [[tables]]"), "{p}");
}

#[test]
fn the_hub_refuses_a_label_that_names_no_node_board() {
    let problems = with_checker("[[tables]]\nboard = 7\nlabel = \"hall a/7\"\n", check_hub);
    let p = label_problem(&problems).expect("refused");
    assert!(p.fix.contains("label = \"hall-a/7\""), "{p}");
}
