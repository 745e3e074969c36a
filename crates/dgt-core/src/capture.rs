//! Capture files (contract §2): JSON Lines of `{t_ms, board, rx|tx|op}`. The same format is
//! what `replay` reads and what the daemon and `export` write.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::input::{Input, InputKind, Link, Operation};

/// Why a capture line was refused, with its 1-based line number.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("line {line}: {reason}")]
pub struct CaptureError {
    pub line: usize,
    pub reason: String,
}

#[derive(Serialize, Deserialize)]
struct Line {
    t_ms: Value,
    #[serde(default)]
    board: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rx: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tx: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    op: Option<Value>,
    /// Our addition: the serial edge's view of the port (opened / lost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    link: Option<Value>,
}

/// Why an `rx` / `tx` payload is not a string of hex bytes; `key` names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum HexError {
    #[error("\"{key}\" must be a string of hex digits")]
    NotAString { key: &'static str },
    #[error("\"{key}\" has an odd number of hex digits")]
    OddLength { key: &'static str },
    /// `position`: the index of the first digit of the pair that is not hex.
    #[error("\"{key}\" holds a non-hex character near position {position}")]
    NotHex { key: &'static str, position: usize },
}

fn hex_bytes(v: &Value, key: &'static str) -> Result<Vec<u8>, HexError> {
    let s = v.as_str().ok_or(HexError::NotAString { key })?;
    if s.len() % 2 != 0 {
        return Err(HexError::OddLength { key });
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or(HexError::NotHex { key, position: i })
        })
        .collect()
}

pub fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Parses one capture line. `previous_t` enforces "never decreasing".
pub fn parse_line(text: &str, line: usize, previous_t: u64) -> Result<Input, CaptureError> {
    let err = |reason: String| CaptureError { line, reason };
    let raw: Line =
        serde_json::from_str(text).map_err(|e| err(format!("not a capture object: {e}")))?;
    let t_ms = raw
        .t_ms
        .as_u64()
        .ok_or_else(|| err("\"t_ms\" must be a non-negative integer".into()))?;
    if t_ms < previous_t {
        return Err(err(format!(
            "\"t_ms\" goes back in time ({t_ms} after {previous_t})"
        )));
    }
    let board = match raw.board {
        None => "board-1".to_string(),
        Some(Value::String(s)) if !s.is_empty() => s,
        Some(_) => return Err(err("\"board\" must be a non-empty string".into())),
    };
    let present = [&raw.rx, &raw.tx, &raw.op, &raw.link]
        .iter()
        .filter(|v| v.is_some())
        .count();
    if present != 1 {
        return Err(err(
            "a line needs exactly one of \"rx\", \"tx\", \"op\" (or \"link\")".into(),
        ));
    }
    let kind = if let Some(v) = raw.rx {
        InputKind::Rx(hex_bytes(&v, "rx").map_err(|e| err(e.to_string()))?)
    } else if let Some(v) = raw.tx {
        InputKind::Tx(hex_bytes(&v, "tx").map_err(|e| err(e.to_string()))?)
    } else if let Some(v) = raw.op {
        InputKind::Op(
            serde_json::from_value::<Operation>(v)
                .map_err(|e| err(format!("unknown or malformed \"op\": {e}")))?,
        )
    } else {
        let v = raw.link.unwrap_or(Value::Null);
        InputKind::Link(
            serde_json::from_value::<Link>(v)
                .map_err(|e| err(format!("malformed \"link\": {e}")))?,
        )
    };
    Ok(Input { t_ms, board, kind })
}

/// Writes one input as a capture line (no trailing newline).
pub fn write_line(input: &Input) -> String {
    let mut obj = serde_json::Map::new();
    obj.insert("t_ms".into(), input.t_ms.into());
    obj.insert("board".into(), input.board.clone().into());
    match &input.kind {
        InputKind::Rx(b) => obj.insert("rx".into(), to_hex(b).into()),
        InputKind::Tx(b) => obj.insert("tx".into(), to_hex(b).into()),
        InputKind::Op(op) => obj.insert("op".into(), serde_json::to_value(op).unwrap_or_default()),
        InputKind::Link(l) => {
            obj.insert("link".into(), serde_json::to_value(l).unwrap_or_default())
        }
    };
    Value::Object(obj).to_string()
}

/// Reads a whole capture; blank lines are skipped.
pub fn parse_capture(text: &str) -> Result<Vec<Input>, CaptureError> {
    let mut out = Vec::new();
    let mut last = 0;
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let input = parse_line(l, i + 1, last)?;
        last = input.t_ms;
        out.push(input);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::SetupOp;

    #[test]
    fn round_trips_every_kind() {
        let inputs = vec![
            Input {
                t_ms: 0,
                board: "b".into(),
                kind: InputKind::Link(Link::Connected {
                    port: Some("/dev/pts/3".into()),
                }),
            },
            Input {
                t_ms: 5,
                board: "b".into(),
                kind: InputKind::Tx(vec![0x4b, 0x42]),
            },
            Input {
                t_ms: 20,
                board: "b".into(),
                kind: InputKind::Rx(vec![0x8e, 0, 5, 0x34, 0]),
            },
            Input {
                t_ms: 30,
                board: "b".into(),
                kind: InputKind::Op(Operation::Setup(SetupOp {
                    time_control: Some(crate::time_control::TimeControl::parse("180+2").unwrap()),
                    ..Default::default()
                })),
            },
            Input {
                t_ms: 31,
                board: "b".into(),
                kind: InputKind::Op(Operation::Ack(7)),
            },
        ];
        let text: String = inputs.iter().map(|i| write_line(i) + "\n").collect();
        assert_eq!(parse_capture(&text).unwrap(), inputs);
    }

    #[test]
    fn board_defaults_and_contract_ops_parse() {
        let i = parse_line(
            r#"{"t_ms": 1, "op": {"setup": {"edition": "fide-2018", "supervision": "reduced"}}}"#,
            1,
            0,
        )
        .unwrap();
        assert_eq!(i.board, "board-1");
        let i = parse_line(r#"{"t_ms": 1, "op": {"result": "1-0"}}"#, 1, 0).unwrap();
        assert_eq!(
            i.kind,
            InputKind::Op(Operation::Result("1-0".parse().unwrap()))
        );
    }

    #[test]
    fn malformed_lines_name_the_line_and_the_fault() {
        let cases = [
            ("{", "not a capture object"),
            (r#"{"t_ms": -1, "rx": ""}"#, "non-negative"),
            (r#"{"t_ms": 1, "rx": "8e0"}"#, "odd number"),
            (r#"{"t_ms": 1, "rx": "zz"}"#, "non-hex"),
            (r#"{"t_ms": 1}"#, "exactly one"),
            (r#"{"t_ms": 1, "rx": "00", "tx": "00"}"#, "exactly one"),
            (r#"{"t_ms": 1, "op": {"dance": 1}}"#, "op"),
            (r#"{"t_ms": 1, "board": 3, "rx": "00"}"#, "board"),
        ];
        for (text, needle) in cases {
            let e = parse_line(text, 9, 0).unwrap_err();
            assert_eq!(e.line, 9);
            assert!(e.reason.contains(needle), "{text}: {}", e.reason);
        }
        let e = parse_capture("{\"t_ms\": 5, \"rx\": \"\"}\n{\"t_ms\": 4, \"rx\": \"\"}\n")
            .unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("line 2: "));
    }

    /// A bad hex payload is refused with the field, the fault and where it is.
    #[test]
    fn a_bad_hex_payload_names_the_field_and_the_fault() {
        assert_eq!(
            hex_bytes(&Value::from("8e0g"), "rx"),
            Err(HexError::NotHex {
                key: "rx",
                position: 2
            })
        );
        assert_eq!(
            hex_bytes(&Value::from(7), "tx"),
            Err(HexError::NotAString { key: "tx" })
        );
        assert_eq!(hex_bytes(&Value::from("8e01"), "rx"), Ok(vec![0x8e, 0x01]));
        for (text, message) in [
            (
                r#"{"t_ms": 1, "rx": "8e0g"}"#,
                r#"line 3: "rx" holds a non-hex character near position 2"#,
            ),
            (
                r#"{"t_ms": 1, "tx": "8e0"}"#,
                r#"line 3: "tx" has an odd number of hex digits"#,
            ),
            (
                r#"{"t_ms": 1, "rx": 142}"#,
                r#"line 3: "rx" must be a string of hex digits"#,
            ),
        ] {
            assert_eq!(parse_line(text, 3, 0).unwrap_err().to_string(), message);
        }
    }

    /// A set-up whose FEN or time control the core could not play is refused with the
    /// reason (it used to be dropped without a word).
    #[test]
    fn a_setup_with_a_bad_fen_or_time_control_is_refused() {
        for (op, reason) in [
            (
                r#"{"setup": {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"}}"#,
                "fen \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1\": not a FEN",
            ),
            (
                r#"{"setup": {"fen": "8/8/8/8/8/8/8/K7 w - - 0 1"}}"#,
                "not a legal position",
            ),
            (
                r#"{"setup": {"time_control": "0"}}"#,
                "time control \"0\": period 1 has no time",
            ),
            (
                r#"{"setup": {"time_control": "90min"}}"#,
                "\"90min\" is not a number of seconds",
            ),
        ] {
            let e = parse_line(&format!(r#"{{"t_ms": 1, "op": {op}}}"#), 3, 0).unwrap_err();
            assert_eq!(e.line, 3);
            assert!(e.reason.contains(reason), "{op}: {}", e.reason);
        }
        let i = parse_line(
            r#"{"t_ms": 1, "op": {"setup": {"fen": "8/8/8/8/8/8/8/K1k5 w - - 0 1", "time_control": "40/5400+30:1800+30"}}}"#,
            1,
            0,
        )
        .unwrap();
        let InputKind::Op(Operation::Setup(s)) = &i.kind else {
            panic!("not a setup: {i:?}")
        };
        assert_eq!(s.fen.as_deref(), Some("8/8/8/8/8/8/8/K1k5 w - - 0 1"));
        assert_eq!(s.time_control.as_ref().map(|t| t.periods.len()), Some(2));
        // Written back exactly as read.
        assert!(write_line(&i).contains(
            r#""setup":{"fen":"8/8/8/8/8/8/8/K1k5 w - - 0 1","time_control":"40/5400+30:1800+30"}"#
        ));
    }

    /// A result there is not — the arbiter's or a table's — is refused with the reason, not
    /// carried along as text.
    #[test]
    fn an_op_with_an_unknown_result_is_refused() {
        for (op, reason) in [
            (
                r#"{"result": "*"}"#,
                r#"unknown result "*": use one of 1-0, 0-1, 1/2-1/2"#,
            ),
            (
                r#"{"table_result": {"round": 1, "table": 2, "result": "1-1"}}"#,
                r#"unknown result "1-1": use one of 1-0, 0-1, 1/2-1/2, +-, -+, --, 1-0u"#,
            ),
        ] {
            let e = parse_line(&format!(r#"{{"t_ms": 1, "op": {op}}}"#), 3, 0).unwrap_err();
            assert_eq!(e.line, 3);
            assert!(e.reason.contains(reason), "{}", e.reason);
        }
        let i = parse_line(
            r#"{"t_ms": 1, "op": {"table_result": {"round": 1, "table": 2, "result": "-+"}}}"#,
            1,
            0,
        )
        .unwrap();
        let InputKind::Op(Operation::TableResult(r)) = i.kind else {
            panic!("not a table result: {i:?}")
        };
        assert_eq!(
            r.result,
            Some(crate::TableResult::Forfeit {
                winner: shakmaty::Color::Black
            })
        );
    }

    /// A set-up naming an edition there is not is refused with the reason, not played
    /// under fide-2023.
    #[test]
    fn a_setup_with_an_unknown_edition_is_refused() {
        let e = parse_line(
            r#"{"t_ms": 1, "op": {"setup": {"edition": "fide-2024"}}}"#,
            4,
            0,
        )
        .unwrap_err();
        assert_eq!(e.line, 4);
        assert!(
            e.reason.contains(
                "unknown edition of the Laws \"fide-2024\": use one of fide-2005, fide-2017, \
                 fide-2018, fide-2023"
            ),
            "{}",
            e.reason
        );
        let i = parse_line(
            r#"{"t_ms": 1, "op": {"setup": {"edition": "fide-2005"}}}"#,
            1,
            0,
        )
        .unwrap();
        let InputKind::Op(Operation::Setup(s)) = i.kind else {
            panic!("not a setup: {i:?}")
        };
        assert_eq!(s.edition, Some(crate::arbiter::Edition::Fide2005));
    }
}
