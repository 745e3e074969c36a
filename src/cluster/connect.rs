//! Reaching the event's broker with the configured credentials.

use std::time::Duration;

use async_nats::{Client, ConnectOptions, ServerAddr};

use crate::settings::ClusterSettings;

/// Why the broker could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cluster.nats: {url:?} is not a NATS URL: {why}")]
    Url { url: String, why: String },
    #[error("cluster credentials: {0}")]
    Credentials(String),
    #[error("cannot reach the broker at {urls}: {why}")]
    Connect { urls: String, why: String },
}

/// Connects as `name` (the node, or `hub`), retrying in the background when the broker is
/// not up yet, so that boards are watched whatever the broker does. Inbox replies go under
/// `_INBOX_<name>.`, which a venue's broker configuration can grant to this user alone.
pub async fn connect(settings: &ClusterSettings, name: &str) -> Result<Client, ConnectError> {
    let addrs = settings
        .nats
        .iter()
        .map(|u| {
            u.parse::<ServerAddr>().map_err(|e| ConnectError::Url {
                url: u.clone(),
                why: e.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut options = if let Some(creds) = &settings.creds {
        ConnectOptions::with_credentials_file(creds)
            .await
            .map_err(|e| ConnectError::Credentials(format!("{}: {e}", creds.display())))?
    } else if let Some(seed_file) = &settings.nkey_seed_file {
        let seed = std::fs::read_to_string(seed_file)
            .map_err(|e| ConnectError::Credentials(format!("{}: {e}", seed_file.display())))?;
        ConnectOptions::with_nkey(seed.trim().to_string())
    } else if let (Some(user), Some(password)) = (&settings.user, &settings.password) {
        ConnectOptions::with_user_and_password(user.clone(), password.clone())
    } else {
        ConnectOptions::new()
    };
    if let Some(ca) = &settings.tls_ca {
        options = options.add_root_certificates(ca.clone());
    }
    if settings.nats.iter().any(|u| u.starts_with("tls://")) {
        options = options.require_tls(true);
    }
    options
        .name(format!("dgt-arbiter {name}"))
        .custom_inbox_prefix(format!("_INBOX_{name}"))
        .retry_on_initial_connect()
        .connection_timeout(Duration::from_secs(5))
        .max_reconnects(None)
        .reconnect_delay_callback(|attempts| {
            // Quick at first (a broker restarted), then every 2 s at most.
            Duration::from_millis((100 * attempts as u64).min(2_000))
        })
        .connect(addrs)
        .await
        .map_err(|e| ConnectError::Connect {
            urls: settings.nats.join(", "),
            why: e.to_string(),
        })
}
