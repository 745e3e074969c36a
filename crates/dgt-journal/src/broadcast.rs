//! A LiveChess-style folder that relay tools (the lichess Broadcaster among them) read:
//!
//! ```text
//! tournament.json            name, location, and per round how many games / how many live
//! round-N/index.json         the round's date and pairings, with results
//! round-N/game-M.pgn         game M (the board number) of round N
//! round-N/games.pgn          all games of round N
//! ```
//!
//! Every file is replaced atomically (written beside, synced, renamed), so a reader never
//! sees half a file. [`DelayedBroadcast`] keeps a second, public folder that shows each game
//! as it stood `delay` ago (anti-cheating delay, typically 15 minutes); it is built from
//! [`GameRecord`]s, which carry moves, clocks and results only — never alerts.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::pgn::{GameRecord, PgnHeader, write_pgn};

/// The tournament, as the folder's `tournament.json` names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TournamentInfo {
    pub name: String,
    pub location: Option<String>,
}

/// One game of a round: its pairing (the PGN header) and what was played so far (`None`
/// before the game started).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastGame {
    pub header: PgnHeader,
    pub record: Option<GameRecord>,
}

impl BroadcastGame {
    fn result(&self) -> &str {
        self.record
            .as_ref()
            .and_then(|r| r.end.as_ref())
            .map(|e| e.result.as_str())
            .unwrap_or("*")
    }

    fn is_live(&self) -> bool {
        self.record.as_ref().is_some_and(|r| r.end.is_none())
    }

    fn pgn(&self) -> String {
        let empty = GameRecord {
            game: String::new(),
            board: String::new(),
            start_fen: String::new(),
            start_t_ms: 0,
            moves: Vec::new(),
            end: None,
            found_under_way: false,
        };
        write_pgn(self.record.as_ref().unwrap_or(&empty), &self.header)
    }
}

/// The folder, and what it has published of each round (for `tournament.json`).
#[derive(Debug)]
pub struct BroadcastFolder {
    root: PathBuf,
    rounds: BTreeMap<u32, (usize, usize)>,
}

impl BroadcastFolder {
    pub fn new(root: impl Into<PathBuf>) -> io::Result<Self> {
        let root = root.into();
        fs::create_dir_all(&root)?;
        Ok(BroadcastFolder {
            root,
            rounds: BTreeMap::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Rewrites round `round` (games numbered by their header's board number, else by their
    /// place in the list) and `tournament.json`.
    pub fn publish_round(
        &mut self,
        tournament: &TournamentInfo,
        round: u32,
        date: Option<&str>,
        games: &[BroadcastGame],
    ) -> io::Result<()> {
        let dir = self.root.join(format!("round-{round}"));
        fs::create_dir_all(&dir)?;
        let mut all = String::new();
        let mut pairings = Vec::new();
        for (i, g) in games.iter().enumerate() {
            let number = g.header.board_number.unwrap_or(i as u32 + 1);
            let pgn = g.pgn();
            write_atomically(&dir.join(format!("game-{number}.pgn")), pgn.as_bytes())?;
            all.push_str(&pgn);
            all.push('\n');
            pairings.push(json!({
                "game": number,
                "white": player(g.header.white.as_deref(), g.header.white_fide_id),
                "black": player(g.header.black.as_deref(), g.header.black_fide_id),
                "result": g.result(),
                "live": g.is_live(),
            }));
        }
        write_atomically(&dir.join("games.pgn"), all.as_bytes())?;
        let index = json!({ "round": round, "date": date, "pairings": pairings });
        write_atomically(&dir.join("index.json"), pretty(&index).as_bytes())?;

        let live = games.iter().filter(|g| g.is_live()).count();
        self.rounds.insert(round, (games.len(), live));
        let rounds: Vec<Value> = self
            .rounds
            .iter()
            .map(|(n, (count, live))| json!({ "round": n, "count": count, "live": live }))
            .collect();
        let t = json!({
            "name": tournament.name,
            "location": tournament.location,
            "rounds": rounds,
        });
        write_atomically(&self.root.join("tournament.json"), pretty(&t).as_bytes())
    }
}

/// The public copy: every game as it stood `delay_ms` before `now_ms`.
#[derive(Debug)]
pub struct DelayedBroadcast {
    folder: BroadcastFolder,
    delay_ms: u64,
}

impl DelayedBroadcast {
    pub fn new(root: impl Into<PathBuf>, delay_ms: u64) -> io::Result<Self> {
        Ok(DelayedBroadcast {
            folder: BroadcastFolder::new(root)?,
            delay_ms,
        })
    }

    pub fn delay_ms(&self) -> u64 {
        self.delay_ms
    }

    pub fn root(&self) -> &Path {
        self.folder.root()
    }

    /// Publishes the round as it stood at `now_ms − delay` (times on the core's clock, the
    /// events' `t_ms`). A game that had not started then is shown as a pairing only.
    pub fn publish_round(
        &mut self,
        now_ms: u64,
        tournament: &TournamentInfo,
        round: u32,
        date: Option<&str>,
        games: &[BroadcastGame],
    ) -> io::Result<()> {
        let cutoff = now_ms.saturating_sub(self.delay_ms);
        let delayed: Vec<BroadcastGame> = games
            .iter()
            .map(|g| BroadcastGame {
                header: g.header.clone(),
                record: g
                    .record
                    .as_ref()
                    .filter(|r| r.start_t_ms <= cutoff)
                    .map(|r| r.as_of(cutoff)),
            })
            .collect();
        self.folder.publish_round(tournament, round, date, &delayed)
    }
}

/// A player as LiveChess-style JSON: "Lastname, Firstname" split, FIDE id when known.
fn player(name: Option<&str>, fide_id: Option<u64>) -> Value {
    let name = name.unwrap_or("");
    let (lname, fname) = match name.split_once(',') {
        Some((l, f)) => (l.trim(), f.trim()),
        None => (name.trim(), ""),
    };
    json!({ "fname": fname, "lname": lname, "fideid": fide_id })
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// Replaces `path` with `bytes` so that readers see the old file or the new one, never a
/// mix: write a temporary file in the same directory, sync it, rename it over (rename is
/// atomic within one file system, POSIX `rename(2)`).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp"));
    {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)
}
