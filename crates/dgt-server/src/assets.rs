//! The dashboard: plain HTML, CSS and JavaScript under `assets/`, compiled into the binary so
//! the daemon needs no files and no build step beside it.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// (name, content type, content) of every file under `/assets/`.
const FILES: &[(&str, &str, &str)] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../assets/style.css"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/board.js"),
    ),
    (
        "views.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/views.js"),
    ),
    (
        "signin.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/signin.js"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
];

const INDEX: &str = include_str!("../assets/index.html");
const SIGNIN: &str = include_str!("../assets/signin.html");

fn page(content_type: &'static str, body: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    r
}

/// `GET /`
pub(crate) async fn index() -> Response {
    page("text/html; charset=utf-8", INDEX)
}

/// `GET /signin`: the sign-in page (a token typed into a form, exchanged for a cookie).
pub(crate) async fn signin() -> Response {
    page("text/html; charset=utf-8", SIGNIN)
}

/// `GET /assets/{file}`
pub(crate) async fn file(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, content_type, body)) => page(content_type, body),
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}
