//! PGN as a broadcast tool reads it: pgn-reader's parser, each SAN played on a shakmaty
//! position (an illegal one is noted), for the tests of the PGN the server writes.

use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{Chess, Position};

/// Tags and moves of each game, as pgn-reader reads them (an illegal SAN is noted).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Game {
    pub tags: Vec<(String, String)>,
    pub sans: Vec<String>,
    pub illegal: bool,
    pub outcome: Option<String>,
}

pub struct Collect;

impl Visitor for Collect {
    type Tags = Vec<(String, String)>;
    type Movetext = (Game, Chess);
    type Output = Game;

    fn begin_tags(&mut self) -> ControlFlow<Game, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Game> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Game, Self::Movetext> {
        ControlFlow::Continue((
            Game {
                tags,
                ..Game::default()
            },
            Chess::default(),
        ))
    }

    fn san(&mut self, (g, pos): &mut Self::Movetext, san: SanPlus) -> ControlFlow<Game> {
        match san.san.to_move(pos) {
            Ok(m) => {
                g.sans.push(san.to_string());
                pos.play_unchecked(m);
            }
            Err(_) => g.illegal = true,
        }
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        (g, _): &mut Self::Movetext,
        outcome: shakmaty::Outcome,
    ) -> ControlFlow<Game> {
        g.outcome = Some(outcome.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, (g, _): Self::Movetext) -> Game {
        g
    }
}

pub fn parse(pgn: &str) -> Vec<Game> {
    let mut reader = Reader::new(std::io::Cursor::new(pgn.as_bytes()));
    let mut out = Vec::new();
    while let Some(g) = reader.read_game(&mut Collect).unwrap() {
        out.push(g);
    }
    out
}

pub fn tag<'a>(g: &'a Game, name: &str) -> Option<&'a str> {
    g.tags
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}
