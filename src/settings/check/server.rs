//! The `[server]` table: tokens (length, characters, placeholders left from an example),
//! origins, host names, the public delay, the LiveChess port and the connection caps; and
//! the runtime's threads that serve them.

use std::net::SocketAddr;

use super::{Checker, MIN_TOKEN_CHARS, hidden, is_origin, quoted};
use crate::settings::{DAEMON_WORKERS, MAX_WORKERS, Settings};

/// Words that mark a token copied from an example and never replaced.
const PLACEHOLDER_MARKS: &[&str] = &[
    "replace",
    "change",
    "placeholder",
    "example",
    "your",
    "todo",
    "xxxx",
    "…",
    "...",
];

/// Whether a token is an example's placeholder ("example-arbiter-token-REPLACE-ME",
/// "changeme…") or has too little variety to be random ("aaaaaaaaaaaaaaaa").
pub(super) fn is_placeholder(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    let distinct: std::collections::BTreeSet<char> = lower.chars().collect();
    PLACEHOLDER_MARKS.iter().any(|m| lower.contains(m)) || distinct.len() < 5
}

impl Checker {
    /// `runtime_workers`: a thread per board or per client is not how the daemon works.
    pub(super) fn runtime(&mut self, s: &Settings) {
        if let Some(n) = s.runtime_workers.filter(|n| *n > MAX_WORKERS) {
            self.add(
                "runtime_workers",
                n.to_string(),
                format!("more than {MAX_WORKERS} threads only cost memory and wake-ups"),
                format!(
                    "leave it unset ({DAEMON_WORKERS} for run, one per core for hub), or 0 for one \
                     per core"
                ),
            );
        }
    }

    pub(super) fn server(&mut self, s: &Settings) {
        let v = &s.server;
        for (key, token) in [
            ("server.arbiter_token", &v.arbiter_token),
            ("server.viewer_token", &v.viewer_token),
        ] {
            let Some(t) = token else { continue };
            if t.chars().count() < MIN_TOKEN_CHARS {
                self.add(
                    key,
                    hidden(t),
                    format!("shorter than {MIN_TOKEN_CHARS} characters: it could be guessed"),
                    "use 16 or more random characters, e.g. the output of `openssl rand -hex 16`",
                );
            } else if !t
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
            {
                self.add(
                    key,
                    hidden(t),
                    "has characters that a URL (?token=…) would have to escape",
                    "use letters, digits, '-', '_', '.' and '~' only",
                );
            }
        }
        if let (Some(a), Some(b)) = (&v.arbiter_token, &v.viewer_token)
            && a == b
        {
            self.add(
                "server.viewer_token",
                hidden(b),
                "the same as server.arbiter_token: every viewer could act as the arbiter",
                "give the viewers a token of their own",
            );
        }
        for (i, origin) in v.allowed_origins.iter().enumerate() {
            if !is_origin(origin) {
                self.add(
                    format!("server.allowed_origins[{i}]"),
                    quoted(origin),
                    "not an origin (scheme://host[:port], without a path)",
                    "write e.g. \"https://results.example.org\" or \"http://192.168.1.20:8080\", \
                     without a trailing slash",
                );
            }
        }
        self.hardening(s);
        if v.public_delay_s > 24 * 3600 {
            self.add(
                "server.public_delay_s",
                v.public_delay_s.to_string(),
                "more than a day: the public would see nothing of the round",
                "it is in seconds: 900 holds moves back 15 minutes",
            );
        }
        match v.livechess_listen.parse::<SocketAddr>() {
            Err(e) => self.add(
                "server.livechess_listen",
                quoted(&v.livechess_listen),
                format!("not an IP address and port ({e})"),
                "write e.g. \"127.0.0.1:1982\"",
            ),
            Ok(addr) => {
                if !addr.ip().is_loopback() && !v.livechess_lan {
                    self.add(
                        "server.livechess_listen",
                        quoted(&v.livechess_listen),
                        "the LiveChess-compatible API has no tokens, so it only listens on this PC",
                        "use \"127.0.0.1:1982\", or set livechess_lan = true for a read-only API \
                         on the venue network",
                    );
                }
                if v.livechess_lan && !v.livechess_action_origins.is_empty() {
                    self.add(
                        "server.livechess_action_origins",
                        format!("{:?}", v.livechess_action_origins),
                        "with livechess_lan the API is read-only: any program on the network can \
                         send any Origin, so none may set up or flip a board through it",
                        "set livechess_action_origins = [] (set-ups through the dashboard)",
                    );
                }
                if v.livechess
                    && s.listen
                        .parse::<SocketAddr>()
                        .is_ok_and(|l| l.port() == addr.port())
                {
                    self.add(
                        "server.livechess_listen",
                        quoted(&v.livechess_listen),
                        format!("the same port as listen ({})", s.listen),
                        "use another port, e.g. \"127.0.0.1:1982\"",
                    );
                }
            }
        }
    }

    /// Placeholders, the explicit choice of no public delay, host names, the LiveChess
    /// origins and the caps.
    fn hardening(&mut self, s: &Settings) {
        let v = &s.server;
        for (key, token) in [
            ("server.arbiter_token", &v.arbiter_token),
            ("server.viewer_token", &v.viewer_token),
        ] {
            if let Some(t) = token
                && is_placeholder(t)
            {
                self.add(
                    key,
                    hidden(t),
                    "a placeholder left from an example, not a secret: anyone who read the \
                     example could act as the arbiter",
                    "generate one with `openssl rand -hex 16` (or give it as a systemd \
                     credential, docs/install.md)",
                );
            }
        }
        if v.public_delay_s == 0 && !v.allow_no_public_delay {
            self.add(
                "server.public_delay_s",
                "0",
                "the public feed would show every move as it is made (no anti-cheating delay)",
                "set a delay (900 = 15 minutes), or allow_no_public_delay = true if none is meant",
            );
        }
        for (i, host) in v.allowed_hosts.iter().enumerate() {
            let ok = !host.is_empty()
                && host.len() <= 253
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'));
            if !ok {
                self.add(
                    format!("server.allowed_hosts[{i}]"),
                    quoted(host),
                    "not a host name (letters, digits, '-' and '.', no port or scheme)",
                    "write e.g. \"arbiter.local\"",
                );
            }
        }
        for (list, key) in [
            (&v.livechess_origins, "server.livechess_origins"),
            (
                &v.livechess_action_origins,
                "server.livechess_action_origins",
            ),
        ] {
            for (i, origin) in list.iter().enumerate() {
                let none_ok = key == "server.livechess_action_origins"
                    && origin == dgt_server::origin::NO_ORIGIN;
                if !none_ok && !is_origin(origin) {
                    self.add(
                        format!("{key}[{i}]"),
                        quoted(origin),
                        "not an origin (scheme://host[:port], without a path)",
                        "write e.g. \"https://lichess.org\"",
                    );
                }
            }
        }
        for (key, n, max) in [
            ("server.max_connections", v.max_connections, 100_000),
            (
                "server.max_connections_per_address",
                v.max_connections_per_address,
                100_000,
            ),
            ("server.max_public_clients", v.max_public_clients, 100_000),
            (
                "server.livechess_max_connections_per_address",
                v.livechess_max_connections_per_address,
                10_000,
            ),
            (
                "server.livechess_max_connections",
                v.livechess_max_connections,
                10_000,
            ),
        ] {
            if !(1..=max).contains(&n) {
                self.add(
                    key,
                    n.to_string(),
                    format!("outside 1–{max}"),
                    "a few hundred suffices; the open-files limit (LimitNOFILE) bounds it anyway",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_told_from_random_tokens() {
        for p in [
            "example-arbiter-token-REPLACE-ME",
            "changeme-changeme-1",
            "your-token-here-please",
            "aaaaaaaaaaaaaaaaaaaa",
            "abababababababababab",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        for t in [
            "3f9c1e0b7a5d42e8b6c0d1f2a3b4c5d6",
            "a-long-arbiter-secret-1",
        ] {
            assert!(!is_placeholder(t), "{t}");
        }
    }
}
