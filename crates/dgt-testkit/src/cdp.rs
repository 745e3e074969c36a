//! A small driver for headless Chromium over the DevTools protocol, for the browser tests of
//! the server (`crates/dgt-server/tests/browser.rs`, `cockpit_browser.rs`) and of the daemon
//! (`tests/dashboard_daemon.rs`): launch, open a page, evaluate, wait, screenshot.

use crate::skip_note;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

pub type CdpWs =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The Chromium to drive: `$CHROMIUM`, else Debian's or another usual path.
pub fn chromium() -> Option<PathBuf> {
    let candidates = [
        std::env::var("CHROMIUM").unwrap_or_default(),
        "/usr/bin/chromium".into(),
        "/usr/bin/chromium-browser".into(),
        "/usr/bin/google-chrome".into(),
    ];
    candidates
        .into_iter()
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// The Chromium to drive, or `None` (with a notice) when there is none and `CI` is unset.
/// With `CI` set a missing Chromium fails the test: CI must run it.
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(binary) = chromium() {
        return Some(binary);
    }
    skip_note::skipped(
        test,
        "chromium (or $CHROMIUM)",
        "sudo apt-get install chromium",
    );
    None
}

/// A running headless Chromium; killed, and its profile removed, when dropped.
pub struct Chromium {
    child: Child,
    profile: PathBuf,
}

impl Chromium {
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Starts headless Chromium with its own profile directory; returns it and the DevTools
/// WebSocket address it prints.
pub async fn launch(binary: &Path, profile: &Path) -> (Chromium, String) {
    let mut child = Command::new(binary)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--remote-debugging-port=0",
            "--remote-allow-origins=*",
            "--window-size=1440,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let stderr = child.stderr.take().unwrap();
    let chromium = Chromium {
        child,
        profile: profile.to_path_buf(),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    // Reads the DevTools line, then keeps draining stderr so chromium never blocks on it.
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(url) = line.strip_prefix("DevTools listening on ")
                && let Some(tx) = tx.take()
            {
                let _ = tx.send(url.trim().to_string());
            }
        }
    });
    let endpoint = tokio::time::timeout(Duration::from_secs(8), rx)
        .await
        .expect("chromium opens DevTools in time")
        .expect("chromium exited before opening DevTools");
    (chromium, endpoint)
}

/// One DevTools connection, attached to one page.
pub struct Cdp {
    pub ws: CdpWs,
    pub next_id: u64,
    pub session: Option<String>,
}

impl Cdp {
    /// Connects to the browser's DevTools endpoint, opens a blank page and attaches to it.
    pub async fn new_page(endpoint: &str) -> Cdp {
        let (ws, _) = tokio_tungstenite::connect_async(endpoint).await.unwrap();
        let mut cdp = Cdp {
            ws,
            next_id: 0,
            session: None,
        };
        let target = cdp
            .call("Target.createTarget", json!({ "url": "about:blank" }))
            .await;
        let attached = cdp
            .call(
                "Target.attachToTarget",
                json!({ "targetId": target["targetId"], "flatten": true }),
            )
            .await;
        cdp.session = Some(attached["sessionId"].as_str().unwrap().to_string());
        cdp.call("Page.enable", json!({})).await;
        cdp
    }

    /// Shows `url` in a 1440×900 desktop window.
    pub async fn open_desktop(&mut self, url: &str) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": 1440, "height": 900, "deviceScaleFactor": 1, "mobile": false }),
        )
        .await;
        self.call("Page.navigate", json!({ "url": url })).await;
    }

    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let v = self.call_raw(method, params).await;
        assert!(v.get("error").is_none(), "{method}: {v}");
        v["result"].clone()
    }

    /// A call's whole answer, errors included (a page navigating away answers with one).
    pub async fn call_raw(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        self.ws
            .send(Message::Text(msg.to_string().into()))
            .await
            .unwrap();
        loop {
            let m = tokio::time::timeout(Duration::from_secs(8), self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("no answer to {method}"))
                .unwrap()
                .unwrap();
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    /// Evaluates an expression in the page and returns its value.
    pub async fn eval(&mut self, expression: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true }),
            )
            .await;
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    /// Evaluates an expression that gives a promise (a `fetch`), and its settled value.
    pub async fn eval_await(&mut self, expression: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
            )
            .await;
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    /// Polls an expression until it is true (fails after 5 s).
    pub async fn wait_for(&mut self, expression: &str) {
        self.wait_for_within(expression, Duration::from_secs(5))
            .await;
    }

    /// Polls an expression until it is true (fails after `within`).
    pub async fn wait_for_within(&mut self, expression: &str, within: Duration) {
        let end = tokio::time::Instant::now() + within;
        loop {
            // While the page navigates an evaluation fails: that is "not yet".
            let v = self
                .call_raw(
                    "Runtime.evaluate",
                    json!({ "expression": expression, "returnByValue": true }),
                )
                .await;
            if v["result"]["result"]["value"] == json!(true) {
                return;
            }
            if tokio::time::Instant::now() >= end {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let body = self.eval("document.body.innerText.slice(0, 2000)").await;
        panic!("page never satisfied {expression} within {within:?}; page text:\n{body}");
    }

    pub async fn screenshot(&mut self, path: &str) {
        let shot = self
            .call("Page.captureScreenshot", json!({ "format": "png" }))
            .await;
        std::fs::write(path, base64_decode(shot["data"].as_str().unwrap())).unwrap();
    }
}

/// The bytes of a DevTools answer's base64 `data` (a screenshot, a PDF).
pub fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("DevTools sends standard base64")
}
