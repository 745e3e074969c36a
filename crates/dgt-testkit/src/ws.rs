//! The WebSocket client of the tests (tokio-tungstenite): connect, read JSON messages, send.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

pub type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

pub async fn ws_connect(url: &str) -> Ws {
    tokio_tungstenite::connect_async(url)
        .await
        .expect("ws connect")
        .0
}

/// The next text message as JSON (fails after 5 s).
pub async fn next_json(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("a message in time")
            .expect("open")
            .expect("ok");
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// Reads until a message satisfies `pred`, returning everything read (fails after 5 s).
pub async fn read_until(ws: &mut Ws, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let v = next_json(ws).await;
        let done = pred(&v);
        seen.push(v);
        if done {
            return seen;
        }
    }
}

pub async fn ws_send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// Every JSON text message until none comes for `quiet`: a resumed feed's backlog, read to
/// its end (live events may follow it), for at most `at_most`.
pub async fn read_ws_until_quiet(ws: &mut Ws, quiet: Duration, at_most: Duration) -> Vec<Value> {
    let end = tokio::time::Instant::now() + at_most;
    let mut seen = Vec::new();
    while let Ok(Some(Ok(m))) =
        tokio::time::timeout_at(end.min(tokio::time::Instant::now() + quiet), ws.next()).await
    {
        if let Message::Text(t) = m
            && let Ok(v) = serde_json::from_str(&t)
        {
            seen.push(v);
        }
    }
    seen
}

/// [`read_ws_until_quiet`] on a new connection to `url`. Blocking, for tests that are not
/// tokio tests.
pub fn read_until_quiet(url: &str, quiet: Duration, at_most: Duration) -> Vec<Value> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(async {
        let mut ws = ws_connect(url).await;
        read_ws_until_quiet(&mut ws, quiet, at_most).await
    })
}
