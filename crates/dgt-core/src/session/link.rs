//! Bytes and the link: frames decoded into board messages (protocol §3), bus replies, the
//! board's log after an outage (§3.6), and the link's state.

use super::*;
use crate::verdict::EquipmentVerdict;

/// What the link and the board say of themselves: the decoder of the line's bytes, the bus
/// side of a board on a bus line, the board's serial number and versions, the port and the
/// link's state, and the bytes and clock reports that were thrown away.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct LinkFacts {
    pub(super) decoder: Decoder,
    /// The bus side of a board on a bus line (`Link::BusConnected`), else `None`.
    pub(super) bus: Option<BusBoard>,
    pub(super) serial: Option<String>,
    pub(super) version: Option<String>,
    pub(super) clock_version: Option<String>,
    pub(super) port: Option<String>,
    pub(super) state: LinkState,
    /// The link went down since it was last up: the board's log is read when it is back.
    pub(super) was_disconnected: bool,
    /// Counters for the metrics.
    pub(super) garbage_bytes: u64,
    pub(super) clock_rejected: u64,
    /// Where the board's log (protocol §3.6) was last read; `None` until a board sends one.
    pub(super) ee_mark: Option<eeprom::Mark>,
}

impl Default for LinkFacts {
    fn default() -> Self {
        LinkFacts {
            decoder: Decoder::new(LineMode::Single),
            bus: None,
            serial: None,
            version: None,
            clock_version: None,
            port: None,
            state: LinkState::Connected,
            was_disconnected: false,
            garbage_bytes: 0,
            clock_rejected: 0,
            ee_mark: None,
        }
    }
}

impl LinkFacts {
    /// The link kept when the board is read afresh after a fault: the decoder, the bus side,
    /// what the board said of itself and the link's state; the outage and the counters start
    /// again.
    pub(super) fn after_fault(self) -> LinkFacts {
        LinkFacts {
            was_disconnected: false,
            garbage_bytes: 0,
            clock_rejected: 0,
            ee_mark: None,
            ..self
        }
    }

    /// The link is up on `port`, a bus line's when `bus` is given (its bytes are bus frames,
    /// protocol §3.7): whether it comes back from an outage.
    pub(super) fn connected(&mut self, port: Option<String>, bus: Option<BusBoard>) -> bool {
        self.port = port;
        self.state = LinkState::Connected;
        self.decoder = Decoder::new(if bus.is_some() {
            LineMode::Bus
        } else {
            LineMode::Single
        });
        self.bus = bus;
        std::mem::take(&mut self.was_disconnected)
    }

    /// The link is down: when it is up again, the board is read afresh.
    pub(super) fn disconnected(&mut self) {
        self.state = LinkState::Disconnected;
        self.was_disconnected = true;
    }

    /// The board as the status event reports it.
    pub(super) fn status(&self, orientation: Orientation) -> BoardStatus {
        BoardStatus {
            state: self.state,
            serial: self.serial.clone(),
            version: self.version.clone(),
            orientation,
            port: self.port.clone(),
            clock_version: self.clock_version.clone(),
        }
    }
}

impl Session {
    pub(super) fn on_decoded(&mut self, t: u64, d: Decoded, out: &mut Emitted) {
        match d {
            Decoded::Message(m) => self.on_message(t, m, out),
            Decoded::Garbage(g) => {
                self.link.garbage_bytes += g.len() as u64;
                // The decoder hands unframed bytes over in one piece once they reach its
                // bound (protocol crate, `GARBAGE_MAX`): the line is carrying noise, not a
                // byte or two lost in a resynchronisation. Told once per board, repeats
                // coalesced like any equipment alert.
                if g.len() >= dgt_protocol::frame::GARBAGE_MAX {
                    let verdict = EquipmentVerdict::LineNoise {
                        run_bytes: g.len() as u64,
                        total_bytes: self.link.garbage_bytes,
                    };
                    let a = self.link_alert(AlertKind::LineNoise, Severity::Review, verdict);
                    self.equipment_alert(t, a, out);
                }
            }
            Decoded::Bus(reply) => self.on_bus_reply(t, reply, out),
            // The edge asks the board again (REPEAT_CHANGES, protocol §2.4); the repeat
            // follows as a good frame.
            Decoded::BadChecksum { .. } => {}
        }
    }

    /// A bus reply is read as what a single board would have sent ([`crate::bus`]).
    pub(super) fn on_bus_reply(
        &mut self,
        t: u64,
        reply: dgt_protocol::BusReply,
        out: &mut Emitted,
    ) {
        let Some(bus) = self.link.bus.as_mut() else {
            return;
        };
        let current = self
            .board
            .physical
            .is_known()
            .then(|| *self.board.physical.codes());
        for fact in bus.interpret(reply, current.as_ref()) {
            match fact {
                BusFact::Message(m) => self.on_message(t, m, out),
                // A field update from the board's log. Its handling is not recorded: the
                // whole batch has the poll's time, which says nothing about the hands.
                BusFact::LoggedField { square, piece } => {
                    let sq = board::to_square(square as usize, self.board.orientation);
                    self.bus_log.square_named(t, sq);
                    if self.board.physical.is_known()
                        && self.board.physical.apply_update(square, piece) == Some(true)
                    {
                        self.square_changed(t, square as usize);
                        self.on_change(t, out);
                    }
                }
                BusFact::Pressed { first_left, count } => {
                    self.clock.presses_logged(count);
                    self.bus_log.presses_named(t, count);
                    self.on_logged_press(first_left)
                }
            }
        }
    }

    /// The presses a bus board logged tell whose display is White's at the start of a game,
    /// where the readings, taken once a poll, may first show the clock after White's press
    /// ([`crate::bus`]). With White's move on the board (or under way) when the packet is
    /// in, the packet's first press completed it; with the start position still there, it
    /// started the opponent's clock (the usual start by Black). Misread only when Black
    /// starts the clock and White moves within one poll.
    pub(super) fn on_logged_press(&mut self, first_left: bool) {
        let Some(g) = self.playing() else { return };
        if g.plies() > 0 {
            return;
        }
        let to_move = g.current().turn();
        let moved =
            self.board.physical.placement(self.board.orientation).board != *g.current().board();
        let presser = if moved { to_move } else { !to_move };
        let display = if first_left {
            ClockSide::Left
        } else {
            ClockSide::Right
        };
        self.infer_from_press(display, presser);
    }

    pub(super) fn on_message(&mut self, t: u64, m: BoardMessage, out: &mut Emitted) {
        match m {
            BoardMessage::BoardDump(codes) => {
                let before = *self.board.physical.codes();
                let was_known = self.board.physical.is_known();
                if self.board.physical.apply_dump(&codes) {
                    // A dump that changes the board means changes were missed.
                    self.reader.after_gap = was_known;
                    if was_known {
                        for (i, code) in before.iter().enumerate() {
                            self.record_handling(t, i, *code);
                            if *code != codes[i] {
                                self.square_changed(t, i);
                            }
                        }
                    }
                    self.on_change(t, out);
                }
            }
            // Updates before the first dump cannot be placed on a known board.
            BoardMessage::FieldUpdate { square, piece }
                if self.board.physical.is_known() && (square as usize) < 64 =>
            {
                let before = self.board.physical.code(square as usize);
                if self.board.physical.apply_update(square, piece) == Some(true) {
                    self.record_handling(t, square as usize, before);
                    self.square_changed(t, square as usize);
                    self.on_change(t, out);
                }
            }
            BoardMessage::Clock(ClockMessage::Times(times)) => self.on_clock(t, times, out),
            BoardMessage::Clock(ClockMessage::Ack(ack)) => {
                if let Some((main, sub)) = ack.version() {
                    let name = if main == 2 { "DGT 3000" } else { "DGT XL" };
                    self.link.clock_version = Some(format!("{name} {main}.{sub}"));
                }
            }
            BoardMessage::Clock(ClockMessage::Implausible(_)) => self.link.clock_rejected += 1,
            BoardMessage::Clock(ClockMessage::Blank) => {}
            BoardMessage::SerialNumber(s) | BoardMessage::LongSerialNumber(s)
                if self.link.serial.is_none() =>
            {
                self.link.serial = Some(s);
                self.link.state = LinkState::Identified;
                self.emit_status(t, out);
            }
            BoardMessage::Version { major, minor } => {
                let v = format!("{major}.{minor}");
                if self.link.version.as_deref() != Some(&v) {
                    self.link.version = Some(v);
                    if self.link.serial.is_some() {
                        self.emit_status(t, out);
                    }
                }
            }
            BoardMessage::EeMoves(data) => self.on_ee_log(t, &data, out),
            _ => {}
        }
    }

    /// The board's log, asked for at every connection (protocol §3.6). After an outage it
    /// gives the moves made meanwhile, with the logged clock times ([`eeprom::outage_moves`]);
    /// what it cannot explain is raised for review. Every reading marks where the next
    /// one starts.
    pub(super) fn on_ee_log(&mut self, t: u64, data: &[u8], out: &mut Emitted) {
        let entries = dgt_protocol::parse_ee_log(data);
        if self.game.is_none() {
            self.log_without_game(t, &entries, out);
        } else if self.watch.found_under_way && self.playing().is_some_and(|g| g.plies() == 0) {
            self.late_log(t, &entries, out);
        }
        if self.timers.take(Timer::LogWait).is_some()
            && let (Some(mark), Some(g)) = (&self.link.ee_mark, &self.game)
        {
            let white_side = self.clock.white_side();
            let outage =
                eeprom::outage_moves(mark, g, self.board.orientation, white_side, &entries);
            let clocks = g
                .moves
                .last()
                .map_or(self.clock.white_black_ms(), |m| (m.white_ms, m.black_ms));
            self.push_logged_moves(t, &outage.moves, clocks, out);
            if let Some(gap) = outage.gap {
                let verdict = EquipmentVerdict::OutageNotExplained {
                    gap,
                    recovered: outage.moves.len(),
                };
                let mut a = self.link_alert(AlertKind::BoardReconnected, Severity::Review, verdict);
                a.fen = Some(outage.fen);
                out.push((t, EventBody::Alert(a)));
            }
            if self.timers.is_set(Timer::Settle) {
                self.timers.set(
                    Timer::Settle,
                    t.max(self.board.last_change + self.rules.settle_ms),
                );
            }
        }
        // The board went on while the log was sent (~8 s at 9600 baud): what it reports next
        // may hold several moves, as after any gap.
        if self.phase().is_playing() {
            self.reader.after_gap = true;
        }
        self.link.ee_mark = Some(eeprom::Mark {
            squares: *self.board.physical.codes(),
            game: self.game.as_ref().map(|g| g.id.clone()),
            plies: self.game.as_ref().map_or(0, |g| g.plies()),
        });
    }

    pub(super) fn emit_status(&self, t: u64, out: &mut Emitted) {
        out.push((
            t,
            EventBody::BoardStatus(self.link.status(self.board.orientation)),
        ));
    }

    pub(super) fn on_link(&mut self, t: u64, link: &Link, out: &mut Emitted) {
        match link {
            Link::Connected { port } | Link::BusConnected { port, .. } => {
                let bus = match link {
                    Link::BusConnected { address, .. } => Some(BusBoard::new(*address)),
                    _ => None,
                };
                let after_outage = self.link.connected(port.clone(), bus);
                self.reader.after_gap = true;
                self.emit_status(t, out);
                if after_outage {
                    // A board that sent its log before will send it again: the moves of the
                    // outage are read from it, not guessed from the dump ([`Self::on_ee_log`]).
                    if self.link.bus.is_none()
                        && self.link.ee_mark.is_some()
                        && self.phase().is_playing()
                    {
                        self.timers.set(Timer::LogWait, t + eeprom::LOG_WAIT_MS);
                    }
                    let a = self.link_alert(
                        AlertKind::BoardReconnected,
                        Severity::Info,
                        EquipmentVerdict::Reconnected,
                    );
                    out.push((t, EventBody::Alert(a)));
                }
            }
            Link::Duplicate {
                serial,
                claimed,
                other_port,
            } => {
                let verdict = EquipmentVerdict::Duplicate {
                    serial: serial.clone(),
                    claimed: claimed.clone(),
                    other_port: other_port.clone(),
                };
                let a = self.link_alert(AlertKind::DuplicateBoard, Severity::Review, verdict);
                self.equipment_alert(t, a, out);
            }
            Link::Disconnected { reason, stopping } => {
                self.link.disconnected();
                self.emit_status(t, out);
                let in_game = self.phase().is_playing();
                // A planned stop of the daemon is no trouble with the board: info only.
                let severity = if in_game && !stopping {
                    Severity::Review
                } else {
                    Severity::Info
                };
                let verdict = EquipmentVerdict::Disconnected {
                    reason: reason.clone(),
                    stopping: *stopping,
                };
                let mut a = self.link_alert(AlertKind::BoardDisconnected, severity, verdict);
                a.fen = self.game.as_ref().map(|g| fen(g.current()));
                out.push((t, EventBody::Alert(a)));
            }
        }
    }
}

impl Session {
    /// A link alert: its message is the verdict's.
    pub(super) fn link_alert(
        &self,
        kind: AlertKind,
        severity: Severity,
        verdict: EquipmentVerdict,
    ) -> Alert {
        let mut a = self.alert(kind, severity, None, verdict.message());
        a.verdict = Some(Box::new(verdict.into()));
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_keeps_what_the_board_said_and_forgets_the_outage_and_the_counts() {
        let mut link = LinkFacts {
            serial: Some("12345".into()),
            version: Some("1.7".into()),
            port: Some("/dev/ttyUSB0".into()),
            state: LinkState::Identified,
            was_disconnected: true,
            garbage_bytes: 9,
            clock_rejected: 2,
            ..LinkFacts::default()
        };
        link.clock_version = Some("DGT3000 1.2".into());
        let kept = link.after_fault();
        let status = kept.status(Orientation::Rotated);
        assert_eq!(status.serial.as_deref(), Some("12345"));
        assert_eq!(status.version.as_deref(), Some("1.7"));
        assert_eq!(status.clock_version.as_deref(), Some("DGT3000 1.2"));
        assert_eq!(status.port.as_deref(), Some("/dev/ttyUSB0"));
        assert_eq!(status.state, LinkState::Identified);
        assert_eq!(status.orientation, Orientation::Rotated);
        assert!(!kept.was_disconnected);
        assert_eq!((kept.garbage_bytes, kept.clock_rejected), (0, 0));
    }

    #[test]
    fn a_link_up_again_says_it_comes_back_from_an_outage_once() {
        let mut link = LinkFacts::default();
        assert!(!link.connected(Some("/dev/ttyUSB0".into()), None));
        link.disconnected();
        assert_eq!(
            link.status(Orientation::Normal).state,
            LinkState::Disconnected
        );
        assert!(link.connected(None, Some(BusBoard::new(Some(7)))));
        assert_eq!(link.status(Orientation::Normal).state, LinkState::Connected);
        assert!(link.bus.is_some());
        assert_eq!(link.port, None);
        assert!(!link.connected(None, None), "told once");
        assert!(link.bus.is_none());
    }

    #[test]
    fn a_new_link_is_connected_and_says_nothing_of_the_board() {
        let status = LinkFacts::default().status(Orientation::Normal);
        assert_eq!(status.state, LinkState::Connected);
        assert_eq!(
            (status.serial, status.version, status.port),
            (None, None, None)
        );
    }
}
