//! Games leaving the venue: PGN tags from the settings, `export` out of the journal, and
//! the LiveChess-style broadcast folders kept live while the daemon runs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dgt_core::Event;
use dgt_journal::broadcast::{BroadcastFolder, BroadcastGame, DelayedBroadcast, TournamentInfo};
use dgt_journal::pgn::{GameBook, GameRecord, PgnHeader, write_pgn};
use dgt_journal::view_snapshots::{BROADCAST_VIEWS, ViewSnapshotStore};
use dgt_journal::{Journal, JournalError};
use dgt_pairings::{RoundBook, TableMap};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::settings::Settings;

/// The board number in a label: `"7"`, `"board-7"`, `"table-7"` give 7.
pub fn board_number(label: &str) -> Option<u32> {
    let digits: String = label
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

/// The PGN tags of a game, from the settings of its board and event.
pub fn pgn_header(settings: &Settings, game: &GameRecord) -> PgnHeader {
    let board = settings.core.for_board(&game.board);
    let known = |s: &str| (!s.is_empty() && s != "?").then(|| s.to_string());
    let table = settings.tables.iter().find(|t| t.label() == game.board);
    PgnHeader {
        event: known(&settings.event.name),
        site: known(&settings.event.site),
        date: settings.event.date.clone(),
        round: Some(settings.event.round),
        board_number: table.map(|t| t.board).or_else(|| board_number(&game.board)),
        white: table.and_then(|t| t.white.clone()),
        black: table.and_then(|t| t.black.clone()),
        white_fide_id: table.and_then(|t| t.white_fide_id),
        black_fide_id: table.and_then(|t| t.black_fide_id),
        white_elo: None,
        black_elo: None,
        time_control: board.time_control.map(|tc| tc.text),
    }
}

/// The table map of the settings: each `[[tables]]` entry's board number and label.
pub fn table_map(settings: &Settings) -> TableMap {
    TableMap::new(settings.tables.iter().map(|t| (t.board, t.label())))
}

/// The PGN tags of a game, with its pairing's when the pairings of its round place a player
/// at its table (round, table, names, FIDE ids, ratings, and the tournament's name and the
/// round's date when the settings do not give them). A game without a pairing gets exactly
/// [`pgn_header`].
pub fn pgn_header_paired(
    settings: &Settings,
    game: &GameRecord,
    book: &RoundBook,
    map: &TableMap,
) -> PgnHeader {
    let mut header = pgn_header(settings, game);
    let Some((round, p)) = book.pairing_of(&game.game, map) else {
        return header;
    };
    let info = book.round(round).map(|i| &i.pairings);
    header.round = Some(round);
    header.board_number = Some(p.table);
    header.white = Some(p.white.name.clone());
    header.black = Some(p.black.name.clone());
    header.white_fide_id = p.white.fide_id;
    header.black_fide_id = p.black.fide_id;
    header.white_elo = p.white.rating;
    header.black_elo = p.black.rating;
    // The pairing file's tournament name, else the settings': the rule of the round PGN
    // and the dashboard's game PGNs too.
    if let Some(event) = info.and_then(|i| i.event.clone()) {
        header.event = Some(event);
    }
    if header.date.is_none() {
        header.date = info.and_then(|i| i.date.clone());
    }
    header
}

/// What `export` can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportKind {
    /// The journaled inputs as a capture (contract §2): `replay` gives the live events.
    Capture,
    /// Every game (or one) as PGN with `[%clk]` after every move.
    Pgn,
    /// Every alert event as one JSON line (contract §3), with `"acknowledged"` added.
    Alerts,
    /// Every event as one JSON line, as the live feed sent them.
    Events,
}

/// Which part of the journal to export.
#[derive(Debug, Clone, Default)]
pub struct ExportFilter {
    pub board: Option<String>,
    pub game: Option<String>,
    pub from_ms: Option<u64>,
    pub to_ms: Option<u64>,
}

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(
        "no journal at {}; fix: give --journal PATH (or the configuration's journal.path)",
        .path.display()
    )]
    NoJournal { path: PathBuf },
    #[error("journal {}: {source}", .path.display())]
    Journal { path: PathBuf, source: JournalError },
    #[error("{0}")]
    Read(#[from] JournalError),
    #[error("cannot write the export: {0}")]
    Write(#[from] std::io::Error),
    #[error("no game {0:?} in the journal")]
    NoGame(String),
}

/// A broadcast folder of the settings that cannot be set up.
#[derive(Debug, thiserror::Error)]
#[error("{key} {}: {source}", .dir.display())]
pub struct BroadcastDirError {
    /// The setting that names the folder.
    pub key: &'static str,
    pub dir: PathBuf,
    pub source: std::io::Error,
}

/// Writes the export to `out`.
pub fn export(
    journal_path: &Path,
    settings: &Settings,
    kind: ExportKind,
    filter: &ExportFilter,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    if !journal_path.exists() {
        return Err(ExportError::NoJournal {
            path: journal_path.to_path_buf(),
        });
    }
    let journal = Journal::open_read_only(journal_path).map_err(|source| ExportError::Journal {
        path: journal_path.to_path_buf(),
        source,
    })?;
    // A closed segment moved to archive storage: the export holds what remains, and says so.
    for s in journal.closed_segments()? {
        if s.state == "missing" {
            eprintln!(
                "journal segment {} (steps {}–{}) is not at its place (archived?): this export \
                 leaves it out",
                s.path.display(),
                s.entry.first_step,
                s.entry.last_step
            );
        }
    }
    match kind {
        ExportKind::Capture => {
            let text =
                journal.export_capture(filter.board.as_deref(), filter.from_ms, filter.to_ms)?;
            out.write_all(text.as_bytes())?;
        }
        ExportKind::Pgn => {
            let mut book = GameBook::new();
            let mut rounds = RoundBook::with_map(table_map(settings));
            for json in journal.events_since(0)? {
                book.apply_json(&json);
                rounds.apply_json(&json);
            }
            let map = table_map(settings);
            let mut written = 0;
            for game in book.games() {
                if filter.board.as_ref().is_some_and(|b| *b != game.board)
                    || filter.game.as_ref().is_some_and(|g| *g != game.game)
                {
                    continue;
                }
                let pgn = write_pgn(game, &pgn_header_paired(settings, game, &rounds, &map));
                writeln!(out, "{pgn}")?;
                written += 1;
            }
            if written == 0 && filter.game.is_some() {
                return Err(ExportError::NoGame(filter.game.clone().unwrap_or_default()));
            }
        }
        ExportKind::Alerts | ExportKind::Events => {
            let acked: std::collections::BTreeSet<u64> = journal
                .inputs()?
                .into_iter()
                .filter_map(|i| match i.kind {
                    dgt_core::InputKind::Op(dgt_core::Operation::Ack(id)) => Some(id),
                    _ => None,
                })
                .collect();
            for json in journal.events_since(0)? {
                let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&json) else {
                    continue;
                };
                let board = v["board"].as_str().unwrap_or_default();
                let t = v["t_ms"].as_u64().unwrap_or(0);
                if filter.board.as_ref().is_some_and(|b| b != board)
                    || filter
                        .game
                        .as_ref()
                        .is_some_and(|g| v["game"].as_str() != Some(g))
                    || filter.from_ms.is_some_and(|f| t < f)
                    || filter.to_ms.is_some_and(|to| t > to)
                {
                    continue;
                }
                if kind == ExportKind::Alerts {
                    if v["type"] != "alert" {
                        continue;
                    }
                    let id = v["id"].as_u64().unwrap_or(0);
                    v["acknowledged"] = serde_json::Value::Bool(acked.contains(&id));
                    writeln!(out, "{v}")?;
                } else {
                    writeln!(out, "{json}")?;
                }
            }
        }
    }
    Ok(())
}

/// Keeps the broadcast folders (live, and the public one delayed) up to date from the
/// events: every game of the current round, one file per board, rewritten atomically.
pub struct BroadcastWriter {
    settings: Settings,
    live: Option<BroadcastFolder>,
    public: Option<DelayedBroadcast>,
    book: GameBook,
    rounds: RoundBook,
    last_t_ms: u64,
    /// The seq of the last event applied (what a snapshot of the books holds).
    last_seq: u64,
    /// Events arrived since the live folder was last written.
    changed: bool,
    /// Keeps snapshots of the books in the journal (a daemon; not a hub).
    keeper: Option<BooksKeeper>,
    /// Requests for a snapshot of the books from a [`BooksTap`] (the hub's checkpoint).
    asked: Option<mpsc::Receiver<BooksReply>>,
}

/// Where the writer answers a [`BooksTap`]: (seq of the last event applied, the books).
type BooksReply = oneshot::Sender<(u64, Vec<u8>)>;

/// Asks a running broadcast writer for a snapshot of its books: the hub keeps them in its
/// checkpoint, as a daemon keeps them in its journal.
#[derive(Clone)]
pub struct BooksTap(mpsc::Sender<BooksReply>);

impl BooksTap {
    /// (the seq of the last event applied, [`BroadcastWriter::snapshot`]); `None` once the
    /// writer has stopped.
    pub async fn snapshot(&self) -> Option<(u64, Vec<u8>)> {
        let (reply, answer) = oneshot::channel();
        self.0.send(reply).await.ok()?;
        answer.await.ok()
    }
}

/// Where and how often the broadcast writer stores snapshots of its books, so that a
/// restarted daemon applies only the events after the newest one (the folders are written
/// from the books, so they come out as after re-applying every event).
pub struct BooksKeeper {
    pub writer: std::sync::Arc<dgt_journal::JournalWriter>,
    pub path: PathBuf,
    pub every: Duration,
}

/// The first bytes of a snapshot of the broadcast books, and their layout's version: a
/// change to the books' serialized types raises it (an older snapshot is then refused and
/// the history applied).
const BOOKS_MAGIC: &[u8; 4] = b"DGTB";
const BOOKS_FORMAT: u32 = 1;

/// The broadcast books in a snapshot.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredBooks {
    /// The `[[tables]]` setting the books were built with.
    tables: TableMap,
    book: GameBook,
    rounds: RoundBook,
    last_t_ms: u64,
    last_seq: u64,
}

impl BroadcastWriter {
    /// `None` when no folder is configured.
    pub fn new(settings: &Settings) -> Result<Option<Self>, BroadcastDirError> {
        let dir_error = |key: &'static str, dir: &Path| {
            let dir = dir.to_path_buf();
            move |source| BroadcastDirError { key, dir, source }
        };
        let live = match &settings.journal.broadcast_dir {
            Some(dir) => {
                Some(BroadcastFolder::new(dir).map_err(dir_error("journal.broadcast_dir", dir))?)
            }
            None => None,
        };
        let public = match &settings.journal.public_broadcast_dir {
            Some(dir) => Some(
                DelayedBroadcast::new(dir, settings.server.public_delay_s.saturating_mul(1000))
                    .map_err(dir_error("journal.public_broadcast_dir", dir))?,
            ),
            None => None,
        };
        if live.is_none() && public.is_none() {
            return Ok(None);
        }
        Ok(Some(BroadcastWriter {
            settings: settings.clone(),
            live,
            public,
            book: GameBook::new(),
            rounds: RoundBook::with_map(table_map(settings)),
            last_t_ms: 0,
            last_seq: 0,
            changed: true,
            keeper: None,
            asked: None,
        }))
    }

    /// Stores snapshots of the books as `keeper` says while running.
    pub fn with_keeper(mut self, keeper: BooksKeeper) -> Self {
        self.keeper = Some(keeper);
        self
    }

    /// A tap through which the running writer hands out snapshots of its books.
    pub fn books_tap(&mut self) -> BooksTap {
        let (tx, rx) = mpsc::channel(4);
        self.asked = Some(rx);
        BooksTap(tx)
    }

    /// The seq of the last event applied.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The books as bytes: a magic, the format, the books as deflated JSON.
    pub fn snapshot(&self) -> Vec<u8> {
        let stored = StoredBooks {
            tables: table_map(&self.settings),
            book: self.book.clone(),
            rounds: self.rounds.clone(),
            last_t_ms: self.last_t_ms,
            last_seq: self.last_seq,
        };
        dgt_server::views::pack(BOOKS_MAGIC, BOOKS_FORMAT, &stored)
    }

    /// Puts a snapshot's books in place of the current ones; its seq. Refused (and nothing
    /// changed) for bytes of another format, that do not decode, or built with other
    /// `[[tables]]` settings: the caller applies the whole history then.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<u64, dgt_server::ViewsError> {
        let stored: StoredBooks = dgt_server::views::unpack(BOOKS_MAGIC, BOOKS_FORMAT, bytes)?;
        if stored.tables != table_map(&self.settings) {
            return Err(dgt_server::ViewsError::TablesChanged);
        }
        self.book = stored.book;
        self.rounds = stored.rounds;
        self.last_t_ms = stored.last_t_ms;
        self.last_seq = stored.last_seq;
        self.changed = true;
        Ok(stored.last_seq)
    }

    /// Stores a snapshot of the books when they changed since the last one and the journal
    /// has committed their events.
    fn keep_books(&self, stored_seq: &mut u64, store: &mut Option<ViewSnapshotStore>) {
        let Some(keeper) = &self.keeper else {
            return;
        };
        if self.last_seq == *stored_seq || self.last_seq > keeper.writer.committed_seq() {
            return;
        }
        let bytes = self.snapshot();
        let result = match store {
            Some(s) => Ok(s),
            None => ViewSnapshotStore::open(&keeper.path).map(|s| store.insert(s)),
        }
        .and_then(|s| s.store(BROADCAST_VIEWS, self.last_seq, &bytes));
        match result {
            Ok(()) => *stored_seq = self.last_seq,
            Err(e) => tracing::warn!(
                "cannot store a snapshot of the broadcast books ({e}): a restart applies the \
                 events since the last one"
            ),
        }
    }

    pub fn apply(&mut self, event: &Event) {
        self.last_seq = self.last_seq.max(event.seq);
        self.last_t_ms = self.last_t_ms.max(event.t_ms);
        self.book.apply(event);
        self.rounds.apply(event);
        self.changed = true;
    }

    /// The round's games by table: with pairings, one per table of the current round — the
    /// table's round game (never a game played on its board after it), or the pairing alone
    /// before it starts — with the arbiter's result when one was entered (a forfeit is a
    /// game with no moves and its result); boards without a pairing are not in the round.
    /// Without pairings, the latest game of each board.
    fn games(&self) -> Vec<BroadcastGame> {
        if let Some(round) = self.rounds.current()
            && let Some(info) = self.rounds.round(round)
        {
            return info
                .pairings
                .tables
                .iter()
                .map(|p| {
                    // The book's map: it knows the node boards a hub has seen.
                    let label = self.rounds.map().label(p.table);
                    let mut record = self
                        .rounds
                        .table_game(round, p.table)
                        .and_then(|id| self.book.game(id))
                        .cloned();
                    if let Some(entry) = info.entered.get(&p.table) {
                        let r = record.get_or_insert_with(|| GameRecord {
                            game: String::new(),
                            board: label.clone(),
                            start_fen: String::new(),
                            // A forfeit reaches the public folder when its entry does.
                            start_t_ms: entry.t_ms,
                            moves: Vec::new(),
                            end: None,
                            found_under_way: false,
                        });
                        let result = dgt_pairings::results::pgn_result(&entry.result);
                        // A confirmation changes nothing the public saw; another result
                        // shows from its entry on.
                        if r.end.as_ref().is_none_or(|e| e.result != result) {
                            r.end = Some(dgt_journal::pgn::GameResult {
                                result: result.to_string(),
                                reason: "arbiter".into(),
                                t_ms: entry.t_ms,
                            });
                        }
                    }
                    let header = match &record {
                        Some(r) if !r.game.is_empty() => {
                            pgn_header_paired(&self.settings, r, &self.rounds, self.rounds.map())
                        }
                        _ => {
                            let empty = GameRecord {
                                game: String::new(),
                                board: label.clone(),
                                start_fen: String::new(),
                                start_t_ms: 0,
                                moves: Vec::new(),
                                end: None,
                                found_under_way: false,
                            };
                            let mut h = pgn_header(&self.settings, &empty);
                            if info.pairings.event.is_some() {
                                h.event.clone_from(&info.pairings.event);
                            }
                            if h.date.is_none() {
                                h.date.clone_from(&info.pairings.date);
                            }
                            h.round = Some(round);
                            h.board_number = Some(p.table);
                            h.white = Some(p.white.name.clone());
                            h.black = Some(p.black.name.clone());
                            h.white_fide_id = p.white.fide_id;
                            h.black_fide_id = p.black.fide_id;
                            h.white_elo = p.white.rating;
                            h.black_elo = p.black.rating;
                            h
                        }
                    };
                    BroadcastGame { header, record }
                })
                .collect();
        }
        let mut latest: std::collections::BTreeMap<String, &GameRecord> = Default::default();
        for g in self.book.games() {
            latest.insert(g.board.clone(), g);
        }
        let mut games: Vec<BroadcastGame> = latest
            .values()
            .map(|g| BroadcastGame {
                header: pgn_header(&self.settings, g),
                record: Some((*g).clone()),
            })
            .collect();
        games.sort_by_key(|g| g.header.board_number.unwrap_or(u32::MAX));
        games
    }

    /// Rewrites the folders. `now_ms` is the core's time (for the public delay). The live
    /// folder is written only when something changed; the public one also as its delayed
    /// view moves on.
    pub fn publish(&mut self, now_ms: u64, public_due: bool) -> std::io::Result<()> {
        if !self.changed && !public_due {
            return Ok(());
        }
        let games = self.games();
        let round = self.rounds.current().unwrap_or(self.settings.event.round);
        let from_pairings = self
            .rounds
            .round(round)
            .and_then(|i| i.pairings.event.clone());
        let tournament = TournamentInfo {
            name: from_pairings.unwrap_or_else(|| self.settings.event.name.clone()),
            location: Some(self.settings.event.site.clone()).filter(|s| s != "?"),
        };
        let date = self
            .rounds
            .round(round)
            .and_then(|i| i.pairings.date.clone());
        let date = date.as_deref();
        if let Some(live) = &mut self.live
            && self.changed
        {
            live.publish_round(&tournament, round, date, &games)?;
        }
        if let Some(public) = &mut self.public {
            public.publish_round(now_ms.max(self.last_t_ms), &tournament, round, date, &games)?;
        }
        self.changed = false;
        Ok(())
    }

    /// Runs until `stop`: applies events as they come and rewrites the folders at most every
    /// `every` (and once a second for the public delay to move on).
    pub async fn run(
        mut self,
        history: Vec<Event>,
        mut events: broadcast::Receiver<Event>,
        clock: crate::edge::daemon::DaemonClock,
        every: Duration,
        stop: CancellationToken,
    ) {
        for e in &history {
            if e.seq > self.last_seq {
                self.apply(e);
            }
        }
        let keep_every = self
            .keeper
            .as_ref()
            .map_or(Duration::from_secs(3600), |k| k.every);
        let mut keep_tick =
            tokio::time::interval_at(tokio::time::Instant::now() + keep_every, keep_every);
        let (mut stored_seq, mut store) = (0, None);
        let mut tick = tokio::time::interval(every);
        let mut ticks = 0u64;
        let mut failing = false;
        let mut asked = self.asked.take();
        loop {
            let ask = async {
                match asked.as_mut() {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = stop.cancelled() => break,
                e = events.recv() => match e {
                    Ok(e) => self.apply(&e),
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "broadcast folder writer fell behind");
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                Some(reply) = ask => {
                    let _ = reply.send((self.last_seq, self.snapshot()));
                }
                _ = keep_tick.tick() => self.keep_books(&mut stored_seq, &mut store),
                _ = tick.tick() => {
                    ticks += 1;
                    // The public copy moves on with time even without new events.
                    let public_due = ticks.is_multiple_of(PUBLIC_EVERY_TICKS);
                    match self.publish(clock.now_ms(), public_due) {
                        Ok(()) if failing => {
                            failing = false;
                            tracing::info!("broadcast folders written again");
                        }
                        Ok(()) => {}
                        Err(e) if !failing => {
                            failing = true;
                            tracing::error!("cannot write the broadcast folders: {e}");
                        }
                        Err(_) => {}
                    }
                }
            }
        }
        let _ = self.publish(clock.now_ms(), true);
        self.keep_books(&mut stored_seq, &mut store);
    }
}

/// Ticks between rewrites of the public folder when nothing new happened.
const PUBLIC_EVERY_TICKS: u64 = 10;

/// The journal path in force: `--journal`, else the settings'.
pub fn journal_path(explicit: Option<PathBuf>, settings: &Settings) -> PathBuf {
    explicit.unwrap_or_else(|| settings.journal.resolved_path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_numbers_come_from_the_label() {
        assert_eq!(board_number("7"), Some(7));
        assert_eq!(board_number("board-12"), Some(12));
        assert_eq!(board_number("table-3"), Some(3));
        assert_eq!(board_number("board-a"), None);
    }

    fn player(name: &str) -> dgt_core::pairing::Player {
        dgt_core::pairing::Player {
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_broadcast_folder_holds_each_tables_round_game_and_its_record_result() {
        use dgt_core::EventBody;
        use dgt_core::event::EndReason;
        use dgt_core::event_script::EventScript;
        use dgt_core::pairing::{Pairing, ROUND_BOARD, RoundPairings, TableResultOp};
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::default();
        settings.journal.broadcast_dir = Some(dir.path().to_path_buf());
        let mut writer = BroadcastWriter::new(&settings).unwrap().unwrap();
        let mut s = EventScript::new(1000);
        let no_clocks = (None, None);
        let pairings = RoundPairings {
            round: 2,
            event: Some("Clubkampioenschap".into()),
            tables: (1..=2)
                .map(|t| Pairing {
                    table: t,
                    white: player(&format!("White {t}")),
                    black: player(&format!("Black {t}")),
                })
                .collect(),
            ..RoundPairings::default()
        };
        s.push(ROUND_BOARD, EventBody::Pairings(pairings));
        // Table 1: a game, drawn on the board, then skittles on the same board.
        s.start("1", "1/1", "");
        s.ply("1", "1/1", 1, "e4", String::new(), no_clocks);
        s.ply("1", "1/1", 2, "e5", String::new(), no_clocks);
        s.end("1", "1/1", "1/2-1/2", EndReason::ResultGesture);
        s.start("1", "1/2", "");
        s.ply("1", "1/2", 1, "f3", String::new(), no_clocks);
        // Table 2: a forfeit, and skittles on its board. Board 9: not paired.
        s.push(
            ROUND_BOARD,
            EventBody::TableResult(TableResultOp {
                round: 2,
                table: 2,
                result: Some("-+".parse().unwrap()),
            }),
        );
        s.start("2", "2/1", "");
        s.ply("2", "2/1", 1, "a4", String::new(), no_clocks);
        s.start("9", "9/1", "");
        s.ply("9", "9/1", 1, "h4", String::new(), no_clocks);
        for e in &s.events {
            writer.apply(e);
        }
        writer.publish(100_000, false).unwrap();
        let all = std::fs::read_to_string(dir.path().join("round-2/games.pgn")).unwrap();
        let games: Vec<&str> = all.split("\n\n[Event ").collect();
        assert_eq!(games.len(), 2, "the tables only, no unpaired board:\n{all}");
        assert!(games[0].contains("1. e4 e5 1/2-1/2"), "{all}");
        assert!(
            !all.contains("f3") && !all.contains("a4") && !all.contains("h4"),
            "{all}"
        );
        assert!(games[1].contains("[Result \"0-1\"]"), "the forfeit:\n{all}");
        assert!(games[1].contains("[White \"White 2\"]"), "{all}");
        assert_eq!(
            all.matches("[Event \"Clubkampioenschap\"]\n").count(),
            2,
            "one Event for every table:\n{all}"
        );
        let index = std::fs::read_to_string(dir.path().join("round-2/index.json")).unwrap();
        let index: serde_json::Value = serde_json::from_str(&index).unwrap();
        assert_eq!(index["pairings"].as_array().unwrap().len(), 2);
        assert_eq!(index["pairings"][1]["result"], "0-1");
        let t = std::fs::read_to_string(dir.path().join("tournament.json")).unwrap();
        assert!(t.contains("Clubkampioenschap"), "{t}");
    }
}
