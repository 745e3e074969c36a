//! The dashboard server's configuration, taken from the daemon's settings: shared by the
//! daemon's services and the hub, so neither depends on the other for it.

use std::net::SocketAddr;

use dgt_server::ServerConfig;

use crate::settings::Settings;

/// A setting the server cannot use, with its fix.
#[derive(Debug, thiserror::Error)]
pub enum ServerConfigError {
    #[error("listen = {listen:?}: {source}; fix: host:port, e.g. 127.0.0.1:1983")]
    BadListen {
        listen: String,
        source: std::net::AddrParseError,
    },
    #[error("server.livechess_listen = {listen:?}: {source}; fix: host:port, e.g. 127.0.0.1:1982")]
    BadLivechessListen {
        listen: String,
        source: std::net::AddrParseError,
    },
    #[error("sections {name:?}: {detail}")]
    BadSection {
        name: String,
        detail: crate::settings::BadTableRange,
    },
}

/// The server's settings from the daemon's.
pub fn server_config(settings: &Settings) -> Result<ServerConfig, ServerConfigError> {
    let listen: SocketAddr =
        settings
            .listen
            .parse()
            .map_err(|source| ServerConfigError::BadListen {
                listen: settings.listen.clone(),
                source,
            })?;
    let livechess_listen = if settings.server.livechess {
        Some(
            settings
                .server
                .livechess_listen
                .parse::<SocketAddr>()
                .map_err(|source| ServerConfigError::BadLivechessListen {
                    listen: settings.server.livechess_listen.clone(),
                    source,
                })?,
        )
    } else {
        None
    };
    Ok(ServerConfig {
        listen,
        arbiter_token: settings.server.arbiter_token.clone(),
        viewer_token: settings.server.viewer_token.clone(),
        allowed_origins: settings.server.allowed_origins.clone(),
        public_delay_ms: settings.server.public_delay_s.saturating_mul(1000),
        livechess_listen,
        site: settings.event.site.clone(),
        event: settings.event.name.clone(),
        tables: crate::output::table_map(settings),
        time_control: settings.core.time_control.as_ref().map(|t| t.text.clone()),
        board_time_controls: settings
            .core
            .boards
            .iter()
            .filter_map(|(b, o)| Some((b.clone(), o.time_control.as_ref()?.text.clone())))
            .collect(),
        allowed_hosts: settings.server.allowed_hosts.clone(),
        livechess_origins: settings.server.livechess_origins.clone(),
        livechess_action_origins: settings.server.livechess_action_origins.clone(),
        livechess_lan: settings.server.livechess_lan,
        max_connections: settings.server.max_connections,
        livechess_max_connections: settings.server.livechess_max_connections,
        max_connections_per_address: settings.server.max_connections_per_address,
        livechess_max_connections_per_address: settings
            .server
            .livechess_max_connections_per_address,
        max_public_clients: settings.server.max_public_clients,

        sections: settings
            .sections
            .iter()
            .map(|s| {
                Ok(dgt_server::access::Section {
                    name: s.name.clone(),
                    tables: s
                        .table_numbers()
                        .map_err(|detail| ServerConfigError::BadSection {
                            name: s.name.clone(),
                            detail,
                        })?,
                })
            })
            .collect::<Result<_, ServerConfigError>>()?,
        arbiters: settings.server.arbiters.clone(),
        ..ServerConfig::default()
    })
}
