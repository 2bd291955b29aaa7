//! The same call to several servers, pure: the line that heads each server's block and the
//! comparison after the blocks (class, code, whether the model sees it, findings), one row each.

use crate::mcp::verdict::Class;
use crate::sanitize;

/// What the comparison says of one server's call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// `NAME VERSION` of the server, when it was reached.
    pub server: Option<String>,
    /// The call's class; none when it was not sent (a usage problem with that server).
    pub class: Option<Class>,
    /// The JSON-RPC error code, for protocol errors.
    pub code: Option<i64>,
    /// Whether the model sees the answer under the host; none when there was no answer.
    pub forwarded: Option<bool>,
    /// The ids of the call's findings, in order.
    pub findings: Vec<&'static str>,
    /// The exit code `call` would give for this server alone.
    pub exit: u8,
}

/// How one server is named: `NAME VERSION (SELECTION)` once reached (the selection left out
/// when the version says it already, as the demo's `0.1.0 (legacy style)` does), else the
/// selection and that it was not reached. `selection` is how the command line chose it
/// (`legacy style`, a config entry's name, a URL).
pub fn name(row: &Row, selection: &str) -> String {
    let selection = sanitize::text(selection);
    match &row.server {
        Some(server) if server.contains(&format!("({selection})")) => {
            sanitize::text(server).into_owned()
        }
        Some(server) => format!("{} ({selection})", sanitize::text(server)),
        None => format!("{selection}, not reached"),
    }
}

/// `── 1/2 · sightline-demo 0.1.0 (legacy style) ──`: the line before server `index` (from 0)
/// of `total`.
pub fn heading(index: usize, total: usize, name: &str) -> String {
    format!("── {}/{total} · {name} ──", index + 1)
}

/// The comparison: a title naming the tool, then one aligned row per server, named as
/// [`name`] names them.
pub fn comparison(tool: &str, rows: &[(String, &Row)]) -> Vec<String> {
    let total = rows.len();
    let cells: Vec<[String; 6]> = rows
        .iter()
        .enumerate()
        .map(|(index, (name, row))| {
            let class = row.class.map_or("not called", |class| class.label());
            let code = row.code.map(|code| code.to_string()).unwrap_or_default();
            let seen = match row.forwarded {
                Some(true) => "forwarded",
                Some(false) => "not forwarded",
                None => "",
            };
            let findings = if row.findings.is_empty() {
                "no findings".to_owned()
            } else {
                row.findings.join(", ")
            };
            [
                format!("{}/{total}", index + 1),
                name.clone(),
                class.to_owned(),
                code,
                seen.to_owned(),
                format!("exit {} · {findings}", row.exit),
            ]
        })
        .collect();
    let mut widths = [0; 6];
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut lines = vec![format!("── side by side: {} ──", sanitize::text(tool))];
    for row in cells {
        let padded: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| {
                let pad = width - cell.chars().count();
                format!("{cell}{}", " ".repeat(pad))
            })
            .filter(|cell| !cell.is_empty())
            .collect();
        lines.push(padded.join("  ").trim_end().to_owned());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(server: Option<&str>, class: Class, code: Option<i64>, forwarded: bool) -> Row {
        Row {
            server: server.map(str::to_owned),
            class: Some(class),
            code,
            forwarded: Some(forwarded),
            findings: Vec::new(),
            exit: 0,
        }
    }

    #[test]
    fn the_comparison_aligns_one_row_per_server() {
        let legacy = Row {
            findings: vec!["a-finding", "another"],
            exit: 3,
            ..row(Some("demo 1.0"), Class::ProtocolError, Some(-32602), false)
        };
        let sep1303 = Row {
            exit: 1,
            ..row(Some("demo 1.0"), Class::ToolError, None, true)
        };
        let rows = [
            (name(&legacy, "legacy style"), &legacy),
            (name(&sep1303, "sep1303 style"), &sep1303),
        ];
        let lines = comparison("book_flight", &rows);
        assert_eq!(
            lines,
            [
                "── side by side: book_flight ──",
                "1/2  demo 1.0 (legacy style)   protocol error  -32602  not forwarded  exit 3 · a-finding, another",
                "2/2  demo 1.0 (sep1303 style)  tool error              forwarded      exit 1 · no findings",
            ]
        );
        assert_eq!(
            heading(0, 2, &rows[0].0),
            "── 1/2 · demo 1.0 (legacy style) ──"
        );
    }

    #[test]
    fn a_server_not_reached_says_so() {
        let down = Row {
            server: None,
            forwarded: None,
            exit: 4,
            ..row(None, Class::TransportFailure, None, false)
        };
        assert_eq!(name(&down, "b"), "b, not reached");
        let demo = row(
            Some("demo 1.0 (legacy style)"),
            Class::ProtocolError,
            None,
            false,
        );
        assert_eq!(name(&demo, "legacy style"), "demo 1.0 (legacy style)");
        assert_eq!(name(&demo, "a"), "demo 1.0 (legacy style) (a)");
    }
}
