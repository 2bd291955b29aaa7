//! Task-augmented `tools/call` (2025-11-25): when a call is made a task, how its result is
//! fetched, input it asks for, and cancelling it.

use serde_json::json;

use super::*;

/// A 2025-11-25 server that declares task-augmented `tools/call`, with its tools listed:
/// `research` requires a task, `book` allows one, `plain` has no say.
fn tasks_2025(tasks: bool) -> Harness {
    let mut h = Harness::new(EraChoice::Legacy, false, false);
    h.driver.core.options.tasks = tasks;
    h.command(Command::Connect);
    let capabilities = json!({"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}});
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": {"name": "s", "version": "1"}});
    h.reply(1, &init);
    h.command(Command::ListTools);
    let tool = |name: &str, support: Option<&str>| {
        let mut tool = json!({"name": name, "inputSchema": {"type": "object"}});
        if let Some(support) = support {
            tool["execution"] = json!({"taskSupport": support});
        }
        tool
    };
    let tools = json!({"tools": [tool("research", Some("required")), tool("book", Some("optional")), tool("plain", None)]});
    let out = h.reply(2, &tools);
    assert!(matches!(h.done(&out)[..], [Done::Tools(Ok(_))]));
    h
}

#[test]
fn a_tool_that_requires_a_task_is_called_as_one_and_its_result_fetched_with_tasks_result() {
    let mut h = tasks_2025(false);
    h.command(call("research"));
    let sent = h.last_request();
    assert_eq!(sent["params"]["task"], json!({}), "task-augmented: {sent}");
    let created = json!({"task": {"taskId": "t1", "status": "working", "pollInterval": 300}});
    let out = h.reply(3, &created);
    assert!(h.done(&out).is_empty(), "the handle is followed");
    let [(poll, at)] = h.timers(&out)[..] else {
        panic!("a poll timer")
    };
    assert_eq!(at, Duration::from_millis(300), "2025-11-25's pollInterval");
    h.now = at;
    h.feed(Input::Timer(poll));
    assert_eq!(h.last_request()["method"], "tasks/get");
    let out = h.reply(4, &json!({"taskId": "t1", "status": "failed"}));
    assert!(h.done(&out).is_empty(), "the result is still to fetch");
    let fetch = h.last_request();
    assert_eq!(fetch["method"], "tasks/result");
    assert_eq!(fetch["params"]["taskId"], "t1");
    let tool_error = json!({"content": [{"type": "text", "text": "no"}], "isError": true});
    let out = h.reply(5, &tool_error);
    let [Done::Called(finished)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let task = finished.exchange.task.as_deref().unwrap();
    assert_eq!(task.form, crate::mcp::session::TaskForm::Augmented);
    assert_eq!((task.status.as_str(), task.polls), ("failed", 1));
    let judged = finished.judged.as_ref().unwrap();
    assert_eq!(judged.outcome.class, crate::classify::Class::ToolError);
    let finding = judged
        .findings
        .iter()
        .find(|finding| finding.id == "tasks.tool-error-as-failed")
        .expect("2025-11-25's failed on a tool error, noted");
    assert_eq!(finding.severity, crate::classify::findings::Severity::Info);
}

/// `research` called as a task that, polled once, needs input: `tasks/result` is sent.
fn waiting_on_tasks_result() -> Harness {
    let mut h = tasks_2025(false);
    h.command(call("research"));
    h.reply(3, &json!({"task": {"taskId": "t1", "status": "working"}}));
    let poll = h.timers(&[h.seen.len() - 1])[0].0;
    h.now = Duration::from_secs(1);
    h.feed(Input::Timer(poll));
    h.reply(4, &json!({"taskId": "t1", "status": "input_required"}));
    assert_eq!(h.last_request()["method"], "tasks/result");
    h
}

#[test]
fn a_task_that_needs_input_opens_tasks_result_and_polls_once_more_after_it() {
    let mut h = waiting_on_tasks_result();
    // The question comes on the tasks/result stream; sightline (not asking) declines it.
    let question = json!({"jsonrpc": "2.0", "id": 90, "method": "elicitation/create",
        "params": {"message": "which?", "requestedSchema": {"type": "object", "properties": {}}}});
    let out = h.server(&question.to_string());
    let answer = h.sent(&out);
    assert_eq!(answer[0]["id"], 90, "the question is answered: {answer:?}");
    let out = h.reply(5, &json!({"content": [{"type": "text", "text": "done"}]}));
    assert!(
        h.done(&out).is_empty(),
        "the final status is still to learn"
    );
    assert_eq!(h.last_request()["method"], "tasks/get");
    let out = h.reply(6, &json!({"taskId": "t1", "status": "completed"}));
    let [Done::Called(finished)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let task = finished.exchange.task.as_deref().unwrap();
    assert_eq!((task.status.as_str(), task.polls), ("completed", 2));
    assert_eq!(finished.exchange.rounds.len(), 1, "the question is a round");
}

#[test]
fn an_optional_task_is_augmented_only_with_tasks_and_a_tool_with_no_say_never() {
    let mut h = tasks_2025(false);
    h.command(call("book"));
    assert!(h.last_request()["params"].get("task").is_none());
    let mut h = tasks_2025(true);
    h.command(call("book"));
    assert_eq!(h.last_request()["params"]["task"], json!({}));
    h.reply(3, &json!({"content": []}));
    h.command(call("plain"));
    assert!(h.last_request()["params"].get("task").is_none());
}

#[test]
fn a_required_task_is_not_augmented_when_the_server_does_not_declare_task_calls() {
    let mut h = Harness::legacy(false);
    h.command(Command::ListTools);
    let tools = json!({"tools": [{"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}]});
    h.reply(2, &tools);
    h.command(call("research"));
    assert!(h.last_request()["params"].get("task").is_none());
    assert!(
        h.notes()
            .iter()
            .any(|note| note.contains("does not declare tasks.requests.tools.call")),
        "{:?}",
        h.notes()
    );
}

#[test]
fn cancelling_while_tasks_result_waits_drops_it_then_cancels_the_task() {
    let mut h = waiting_on_tasks_result();
    let out = h.command(Command::Cancel);
    let sent = h.sent(&out);
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert_eq!(sent[0]["params"]["requestId"], 5);
    assert_eq!(sent[1]["method"], "tasks/cancel");
    let out = h.reply(6, &json!({"taskId": "t1", "status": "cancelled"}));
    assert!(h.done(&out).is_empty(), "polled once more");
    let out = h.reply(7, &json!({"taskId": "t1", "status": "cancelled"}));
    let [Done::Called(finished)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    assert_eq!(
        finished.exchange.task.as_deref().unwrap().status,
        "cancelled"
    );
}
