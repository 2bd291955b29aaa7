//! The unknown-tool case per spec version, pure: a protocol error in every version, whose code
//! (-32602) only the example gives up to 2025-11-25 and the schema names from 2026-07-28, and
//! the open proposal (SEP-2145) that would make it a tool execution error instead.

use super::quote::SpecQuote;

/// 2025-06-18 (its text for unknown tools is 2025-11-25's too).
const LEGACY: SpecQuote = SpecQuote {
    version: "2025-06-18",
    source: "server/tools.mdx, Error Handling",
    text: "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools … Example protocol error: \"code\": -32602, \"message\": \"Unknown tool: invalid_tool_name\"",
};
const SEP_1303: SpecQuote = SpecQuote {
    version: "2025-11-25",
    source: "server/tools.mdx, Error Handling",
    text: "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools … Example protocol error: \"code\": -32602, \"message\": \"Unknown tool: invalid_tool_name\"",
};
const NAMED: SpecQuote = SpecQuote {
    version: "2026-07-28",
    source: "schema.ts, InvalidParamsError (-32602)",
    text: "In MCP, this error is returned in various contexts when request parameters fail validation: - **Tools**: Unknown tool name or invalid tool arguments",
};

/// The first version whose schema names the code for an unknown tool.
const CODE_NAMED: &str = "2026-07-28";

/// The code the spec gives an unknown tool.
pub const CODE: i64 = -32602;

/// The rule an unknown tool is judged by under `version`.
pub fn rule(version: &str) -> SpecQuote {
    if version >= CODE_NAMED {
        NAMED
    } else if version >= SEP_1303.version {
        SEP_1303
    } else {
        LEGACY
    }
}

/// Why a protocol error with `code` is the wrong one for an unknown tool under `version`, when
/// it is: only from 2026-07-28, whose schema names -32602; before, only the example had it.
pub fn wrong_code(version: &str, code: Option<i64>) -> Option<String> {
    let code = code.filter(|code| *code != CODE)?;
    (version >= CODE_NAMED).then(|| {
        format!(
            "{code} for an unknown tool: {version}'s schema names -32602 (invalid params) for \
             an \"Unknown tool name\" (InvalidParamsError)"
        )
    })
}

/// The proposal that would change the rule, in its words (modelcontextprotocol pull request
/// #2145, open; not in the spec repository's `seps/` nor in the draft specification).
const SEP_2145: &str = "SEP-2145 (modelcontextprotocol/modelcontextprotocol pull request #2145, \
     open; not in the draft specification) would make an unknown tool a tool execution error: \
     \"**Unknown tool**: When the model calls a tool name that does not exist (e.g., stale tool \
     list, wrong name, tool name produced by another tool), returning a tool execution error \
     allows the model to select an alternative tool or re-list tools.\"";

/// The case's note under `version` for an answer with `code` (a protocol error's): what the
/// version says of the code, and the draft proposal that would change the channel.
pub fn note(version: &str, code: Option<i64>) -> String {
    let said = if version >= CODE_NAMED {
        "the schema names -32602 (InvalidParamsError: \"Unknown tool name\")".to_owned()
    } else {
        match code {
            Some(code) if code != CODE => format!(
                "{version} names no code for an unknown tool; its example uses -32602 (this \
                 server: {code})"
            ),
            _ => format!("{version} names no code for an unknown tool; its example uses -32602"),
        }
    };
    format!("{said}. {SEP_2145}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_and_the_code_follow_the_version() {
        assert_eq!(rule("2025-06-18").version, "2025-06-18");
        assert_eq!(rule("2025-11-25").version, "2025-11-25");
        assert_eq!(rule("2026-07-28").version, "2026-07-28");
        assert!(
            rule("draft").text.contains("Unknown tool name"),
            "draft sorts after 2026"
        );
        // Only a version whose schema names the code holds another code against the server.
        assert_eq!(wrong_code("2025-11-25", Some(-32601)), None);
        assert_eq!(wrong_code("2026-07-28", Some(-32602)), None);
        let wrong = wrong_code("2026-07-28", Some(-32601)).unwrap();
        assert!(wrong.starts_with("-32601 for an unknown tool"), "{wrong}");
    }

    #[test]
    fn the_note_says_what_the_version_says_and_names_the_proposal() {
        let old = note("2025-11-25", Some(-32601));
        assert!(old.contains("names no code") && old.contains("(this server: -32601)"));
        assert!(old.contains("SEP-2145") && old.contains("select an alternative tool"));
        assert!(!note("2025-11-25", Some(-32602)).contains("this server"));
        assert!(note("2026-07-28", None).starts_with("the schema names -32602"));
    }
}
