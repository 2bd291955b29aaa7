//! Findings on how a task ended: a tool result with `isError: true` ends its task `completed`
//! in the tasks extension (SEP-2663), where 2025-11-25 had said `failed`.

use super::{Context, Finding, Severity};
use crate::mcp::session::TaskForm;

/// A task that ended `failed` although the tool answered with a result (an `isError: true`
/// tool result), or `failed` without the JSON-RPC error it must carry.
pub(super) fn task_failed_on_tool_error(context: &Context) -> Option<Finding> {
    let task = context.exchange.task.as_deref()?;
    if task.status != "failed" {
        return None;
    }
    let tool_error = context.result().is_some_and(|result| result.is_error);
    let (severity, message) = match (task.form, tool_error, &task.reply) {
        (TaskForm::Extension, true, _) => (
            Severity::Warning,
            format!(
                "task {} ended 'failed' with an isError: true tool result; the tasks extension \
                 (SEP-2663) says such a call ends 'completed' with the result, and 'failed' \
                 MUST NOT be used for non-JSON-RPC errors: a client that reads 'failed' as a \
                 protocol fault may never show the model the tool's message",
                task.id
            ),
        ),
        (TaskForm::Extension, false, None) => (
            Severity::Warning,
            format!(
                "task {} ended 'failed' without the 'error' member the tasks extension \
                 (SEP-2663) says it MUST include: what went wrong is lost",
                task.id
            ),
        ),
        (TaskForm::Augmented, true, _) => (
            Severity::Info,
            format!(
                "task {} ended 'failed' on an isError: true tool result, as 2025-11-25 says \
                 (tasks.mdx, Task Status); the tasks extension (2026-07-28, SEP-2663) ends it \
                 'completed' instead, and a client that stops at 'failed' without calling \
                 tasks/result never shows the model the tool's message",
                task.id
            ),
        ),
        _ => return None,
    };
    Some(context.finding("tasks.tool-error-as-failed", severity, message))
}
