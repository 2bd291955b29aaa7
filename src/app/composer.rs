//! The free-form request composer (`:`): the first line is the method, the rest its params as
//! JSON, sent exactly as typed on Ctrl-S (a deliberately wrong shape too; JSON that does not
//! parse is said before anything is sent). A `tools/call` of the shape `{name, arguments}` goes
//! out as a call, judged like any (also for a tool the server did not list). Also `ping` (`p`)
//! and `logging/setLevel` (`l`), refused where 2026-07-28 removed them.

use serde_json::Value;
use tui_textarea::CursorMove;

use super::action::{Command, Edit, Effect, SessionCommand, ToServer, any_group};
use super::modals::Panes;
pub use super::panels::Composer;
use super::requests::{self, Asker};
use super::state::{AppState, Link};
use super::status::{complain, inform};
use crate::mcp::era::{Era, PING_REMOVED, SET_LEVEL_REMOVED};
use crate::mcp::session::Exchange;
use crate::sanitize;

/// The levels `l` steps through, least severe first (RFC 5424, as `logging.mdx` lists them).
pub const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// What the composer's text asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Composed {
    Request {
        method: String,
        params: Option<Value>,
    },
    Call {
        tool: String,
        arguments: Value,
    },
}

/// The method (first line) and params (the rest, any JSON value; nothing for none).
pub fn parse(text: &str) -> Result<Composed, String> {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let method = first.trim();
    if method.is_empty() {
        return Err("the first line is the method: nothing there".into());
    }
    let params = if rest.trim().is_empty() {
        None
    } else {
        let value: Value = serde_json::from_str(rest).map_err(|error| {
            // Lines counted from the composer's first, where the method is.
            format!(
                "the params are not JSON: {} at line {}, column {}",
                error
                    .to_string()
                    .split(" at line")
                    .next()
                    .unwrap_or_default(),
                error.line() + 1,
                error.column()
            )
        })?;
        Some(value)
    };
    if method == "tools/call"
        && let Some(Value::Object(fields)) = &params
        && fields.len() == 2
        && let (Some(Value::String(tool)), Some(arguments)) =
            (fields.get("name"), fields.get("arguments"))
    {
        return Ok(Composed::Call {
            tool: tool.clone(),
            arguments: arguments.clone(),
        });
    }
    Ok(Composed::Request {
        method: method.to_owned(),
        params,
    })
}

/// `:` opens the composer: empty after a send, else with what was typed last time (to fix).
pub fn open(state: &mut AppState) {
    let composer = &mut state.composer;
    composer.open = true;
    // Typing goes on where the text ends.
    composer.textarea.move_cursor(CursorMove::Bottom);
    composer.textarea.move_cursor(CursorMove::End);
    composer.problem = None;
}

/// While the composer is open: Ctrl-S sends, Esc closes (the text is kept), quit and help get
/// through; every other key is text.
// Every command is decided here, by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub fn command(state: &mut AppState, command: Command, to_panes: Panes) -> Vec<Effect> {
    match command {
        Command::ToServer(ToServer::Request) => return send(state),
        Command::Back | Command::Edit(Edit::OpenComposer) => {
            state.composer.problem = None;
            state.composer.open = false;
        }
        Command::Quit | Command::Help | Command::ToServer(ToServer::Cancel) => {
            return to_panes(state, command);
        }
        any_group!() => {}
    }
    Vec::new()
}

/// Ctrl-S in the composer: what was typed, sent; or why not, with the composer left open.
fn send(state: &mut AppState) -> Vec<Effect> {
    let composer = &mut state.composer;
    let text = composer.textarea.lines().join("\n");
    let typed = match parse(&text) {
        Ok(typed) => typed,
        Err(problem) => {
            let problem = sanitize::text(&problem).into_owned();
            composer.problem = Some(problem.clone());
            complain(state, format!("not sent: {problem}"));
            return Vec::new();
        }
    };
    composer.problem = None;
    match typed {
        Composed::Call { tool, arguments } => {
            if state.pending_calls > 0 {
                complain(
                    state,
                    "a call is still pending: wait for it, or x cancels it".into(),
                );
                return Vec::new();
            }
            if !state.link_is_up() {
                complain(state, "not sent: the server is not connected".into());
                return Vec::new();
            }
            state.composer = Composer::default();
            state.pending_calls += 1;
            inform(
                state,
                format!("sent tools/call '{}' (composed)", sanitize::text(&tool)),
            );
            vec![Effect::Session(SessionCommand::Call { tool, arguments })]
        }
        Composed::Request { method, params } => {
            let effects = requests::send(state, &method, params, Asker::Composer);
            if !effects.is_empty() {
                // Sent: the log has it (`y` copies it), and the next composition starts empty.
                state.composer = Composer::default();
                inform(state, format!("sent {}", sanitize::text(&method)));
            }
            effects
        }
    }
}

fn modern(state: &AppState) -> bool {
    matches!(&state.link, Link::Connected(connection) if connection.era == Era::Modern)
}

/// `p`: ping, timed by its exchange; 2026-07-28 removed it, so it is not sent there.
pub fn ping(state: &mut AppState) -> Vec<Effect> {
    if modern(state) {
        complain(state, format!("{PING_REMOVED}; ':' sends it anyway"));
        return Vec::new();
    }
    requests::send(state, "ping", None, Asker::Ping)
}

/// `l`: `logging/setLevel` with the next level (debug first, then each more severe one);
/// 2026-07-28 removed it, so it is not sent there.
pub fn set_level(state: &mut AppState) -> Vec<Effect> {
    if modern(state) {
        complain(state, format!("{SET_LEVEL_REMOVED}; ':' sends it anyway"));
        return Vec::new();
    }
    let level = LEVELS[state.next_log_level % LEVELS.len()];
    let params = serde_json::json!({"level": level});
    let effects = requests::send(state, "logging/setLevel", Some(params), Asker::SetLevel);
    if !effects.is_empty() {
        state.next_log_level = (state.next_log_level + 1) % LEVELS.len();
        let next = LEVELS[state.next_log_level];
        inform(
            state,
            format!("sent logging/setLevel {level} (l again: {next})"),
        );
    }
    effects
}

/// What the status line says when a request of the composer, `p` or `l` ends.
pub fn finished(state: &mut AppState, asker: &Asker, exchange: &Exchange) {
    let outcome = crate::classify::classify(exchange);
    let took = exchange.ended_at.since(exchange.sent_at);
    let class = outcome.class.label();
    let success = outcome.class == crate::classify::Class::Success;
    let said = match asker {
        Asker::Ping if success => format!("ping answered: round trip {took} ms"),
        Asker::SetLevel if success => {
            "logging/setLevel: success; the server's log messages show in the console (`)".into()
        }
        _ if success => format!("{}: success after {took} ms", exchange.method),
        Asker::Ping | Asker::SetLevel | Asker::Composer => {
            format!("{}: {class}: {}", exchange.method, outcome.detail)
        }
        // Answered elsewhere (see `answers::finished`).
        Asker::Log
        | Asker::Listing { .. }
        | Asker::Read { .. }
        | Asker::Prompt { .. }
        | Asker::Subscription { .. }
        | Asker::Completion
        | Asker::SkillFile { .. }
        | Asker::SkillDirectory { .. } => return,
    };
    let said = sanitize::text(&said).into_owned();
    if success {
        inform(state, said);
    } else {
        complain(state, said);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_line_is_the_method_and_the_rest_any_json() {
        assert_eq!(
            parse("tools/list").unwrap(),
            Composed::Request {
                method: "tools/list".into(),
                params: None
            }
        );
        assert_eq!(
            parse("resources/read\n[1,\n 2]").unwrap(),
            Composed::Request {
                method: "resources/read".into(),
                params: Some(json!([1, 2]))
            }
        );
        let problem = parse("ping\n{\"a\": }").unwrap_err();
        assert!(problem.contains("line 2"), "{problem}");
        assert!(parse("\n{}").is_err());
    }

    #[test]
    fn a_call_of_the_plain_shape_is_a_call_and_any_other_shape_a_request() {
        assert_eq!(
            parse("tools/call\n{\"name\": \"nope\", \"arguments\": 5}").unwrap(),
            Composed::Call {
                tool: "nope".into(),
                arguments: json!(5)
            }
        );
        for odd in [
            "tools/call\n{\"name\": \"x\"}",
            "tools/call\n{\"name\": 1, \"arguments\": {}}",
            "tools/call\n[1]",
        ] {
            assert!(
                matches!(parse(odd).unwrap(), Composed::Request { .. }),
                "{odd}"
            );
        }
    }
}
