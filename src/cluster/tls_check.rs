//! Why a `tls://` broker was not accepted, found by a handshake of our own.
//!
//! The NATS client reports a failed TLS handshake as a bare "IO error"; a technician needs to
//! know whether the CA is wrong, the broker's certificate expired, or it names another host.
//! So, when connecting fails on a `tls://` URL, the node or hub tries one handshake itself
//! with the same trust (`tls_ca`) and names what rustls says.

use std::io::{BufRead, BufReader};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use async_nats::rustls::pki_types::pem::PemObject;
use async_nats::rustls::pki_types::{CertificateDer, ServerName};
use async_nats::rustls::{self, CertificateError, ClientConfig, RootCertStore};

use super::link_problem::LinkProblem;
use crate::settings::ClusterSettings;

const TIMEOUT: Duration = Duration::from_secs(3);

/// The certificate problem of the first `tls://` broker, if one is found.
pub async fn diagnose(settings: &ClusterSettings) -> Option<LinkProblem> {
    let url = settings
        .nats
        .iter()
        .find(|u| u.starts_with("tls://"))?
        .clone();
    let ca = settings.tls_ca.clone();
    tokio::task::spawn_blocking(move || handshake(&url, ca.as_deref()))
        .await
        .ok()
        .flatten()
}

fn handshake(url: &str, ca: Option<&std::path::Path>) -> Option<LinkProblem> {
    let hostport = url.strip_prefix("tls://")?;
    let host = hostport.rsplit_once(':').map_or(hostport, |(h, _)| h);
    let addr = hostport.to_socket_addrs().ok()?.next()?;
    let mut roots = RootCertStore::empty();
    if let Some(ca) = ca {
        for cert in CertificateDer::pem_file_iter(ca).ok()? {
            roots.add(cert.ok()?).ok()?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_string()).ok()?;
    let mut conn = rustls::ClientConnection::new(Arc::new(config), name).ok()?;
    let mut sock = TcpStream::connect_timeout(&addr, TIMEOUT).ok()?;
    sock.set_read_timeout(Some(TIMEOUT)).ok()?;
    sock.set_write_timeout(Some(TIMEOUT)).ok()?;
    // The broker sends its INFO line in clear before the client upgrades to TLS.
    let mut info = String::new();
    BufReader::new(&mut sock).read_line(&mut info).ok()?;
    while conn.is_handshaking() {
        if let Err(e) = conn.complete_io(&mut sock) {
            let inner = e.get_ref()?.downcast_ref::<rustls::Error>()?.clone();
            return Some(name_error(url, ca, inner));
        }
    }
    None
}

fn name_error(url: &str, ca: Option<&std::path::Path>, e: rustls::Error) -> LinkProblem {
    let ca = ca.map_or("none set".to_string(), |p| p.display().to_string());
    let (kind, what, fix) = match &e {
        rustls::Error::InvalidCertificate(
            CertificateError::UnknownIssuer | CertificateError::BadSignature,
        ) => (
            "tls_untrusted",
            "is not signed by the CA this PC trusts",
            "set [cluster] tls_ca to the venue CA that signed the broker's certificate",
        ),
        rustls::Error::InvalidCertificate(
            CertificateError::Expired | CertificateError::ExpiredContext { .. },
        ) => (
            "tls_expired",
            "has expired",
            "renew the broker's certificate (or check this PC's date and time)",
        ),
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. },
        ) => (
            "tls_expired",
            "is not valid yet",
            "check this PC's date and time, or the certificate's start date",
        ),
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => (
            "tls_wrong_name",
            "names another host",
            "use the host name or address the certificate names in [cluster] nats, or reissue it",
        ),
        _ => (
            "tls",
            "was refused",
            "check the broker's certificate and [cluster] tls_ca",
        ),
    };
    LinkProblem {
        kind,
        message: format!(
            "the broker's certificate at {url} {what} ({e}; tls_ca: {ca}). Fix: {fix}"
        ),
    }
}
