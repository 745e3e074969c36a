//! The tests' HTTP client: ureq (docs/decisions/http-client.md), set up for a server on
//! loopback — no proxy, no redirect followed (a test sees the 303 itself), a 4xx or 5xx is
//! an answer, not an error, and a body of any size is read whole.
//!
//! A test that must send what no client sends (a forged `Host`, a request cut short, a
//! header too long) writes its bytes to a socket itself; everything else comes here.

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use ureq::Agent;

/// One answer: the status, the header lines as received, the body as text.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// A header's value (the first, by case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The head as text, `name: value` a line after the status line.
    pub fn head(&self) -> String {
        let mut head = format!("HTTP/1.1 {}", self.status);
        for (n, v) in &self.headers {
            head.push_str(&format!("\r\n{n}: {v}"));
        }
        head
    }
}

fn agent() -> &'static Agent {
    static AGENT: OnceLock<Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            // A fresh connection a request, as a browser at the venue would open them.
            .max_idle_connections(0)
            // Long enough for a loaded debug build answering a 1,000-board hall.
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into()
    })
}

/// Sends one request to `addr` with these extra headers and body (no Content-Type added);
/// panics if no answer comes.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Response {
    try_request(addr, method, path, headers, body)
        .unwrap_or_else(|e| panic!("{method} {path} to {addr}: {e}"))
}

/// [`request`], the failure to get an answer returned (a server shedding load closes
/// connections at once).
pub fn try_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<Response, ureq::Error> {
    let mut builder = ureq::http::Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"));
    for (k, v) in headers {
        builder = builder.header(*k, *v);
    }
    let mut answer = match method {
        "GET" | "HEAD" if body.is_empty() => agent().run(builder.body(())?)?,
        _ => agent().run(builder.body(body)?)?,
    };
    let headers = answer
        .headers()
        .iter()
        .map(|(n, v)| {
            let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
            (n.as_str().to_string(), v)
        })
        .collect();
    let body = answer
        .body_mut()
        .with_config()
        .limit(u64::MAX)
        .read_to_vec()?;
    Ok(Response {
        status: answer.status().as_u16(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// [`request`] from a tokio test: run on the blocking pool so the server on the same
/// runtime goes on answering.
pub async fn request_async(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Response {
    let (method, path, body) = (method.to_string(), path.to_string(), body.to_string());
    let headers: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    tokio::task::spawn_blocking(move || {
        let headers: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        request(addr, &method, &path, &headers, &body)
    })
    .await
    .expect("the request's task")
}

/// A GET: (status, body).
pub fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let r = request(addr, "GET", path, &[], "");
    (r.status, r.body)
}

/// A POST of a JSON body: (status, body).
pub fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
    let r = request(
        addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        body,
    );
    (r.status, r.body)
}

/// A GET that must answer 200 with JSON.
pub fn get_json(addr: SocketAddr, path: &str) -> Value {
    let (status, body) = get(addr, path);
    assert_eq!(status, 200, "GET {path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
}
