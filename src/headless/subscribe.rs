//! `sightline subscribe URI [--for SECS] [--read]`: subscribe, print each
//! `notifications/resources/updated` as it comes (re-reading the resource with `--read`), and
//! unsubscribe at the end. Up to 2025-11-25 that is `resources/subscribe` and `unsubscribe`;
//! 2026-07-28 replaced them with a `subscriptions/listen` stream, held open beside the reads,
//! which sightline ends by cancelling it (the era's unsubscribe). `--json` prints JSON Lines: one object per event, as
//! it happens, so a pipeline sees each update without waiting for the end.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::exit;
use super::one_shot::{RequestJson, judged, with_tapped_client};
use super::output::{emit, server_line};
use crate::classify::Class;
use crate::cli::{RecordArgs, SubscribeArgs};
use crate::mcp::era::Era;
use crate::mcp::jsonrpc::{Frame, Reply};
use crate::mcp::session::{End, Exchange, Failure};
use crate::present::resources as words;
use crate::runner::{Command, Done, LogEvent, Role, SessionEvent, SessionRunner, Wake};
use crate::sanitize;

/// Notifications waiting for the loop, at most; more are counted as missed, never kept.
const NOTES: usize = 4096;

/// One line of `--json`.
#[derive(Serialize)]
struct Line<'a> {
    event: &'static str,
    /// Since the subscription was asked for.
    after_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    notification: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exchange: Option<RequestJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<Value>,
}

/// `sightline subscribe`.
pub async fn subscribe(args: &SubscribeArgs, record: &RecordArgs) -> u8 {
    if !(args.seconds.is_finite() && args.seconds >= 0.0) {
        eprintln!("sightline: --for takes a number of seconds, 0 or more");
        return exit::USAGE;
    }
    let (notes, mut heard) = mpsc::channel::<Frame>(NOTES);
    let tap: crate::stream::Tap = std::sync::Arc::new(move |event: &SessionEvent| {
        if let Some(frame) = subscription_note(event) {
            // A loop that cannot keep up misses notes: said as missing, never a block.
            let _ = notes.try_send(frame);
        }
    });
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    let common = &args.common;
    with_tapped_client(
        common,
        record,
        "subscribe",
        Some(tap),
        stopped,
        async |client, _| {
            let mut run = Run {
                args,
                started: Instant::now(),
                updates: 0,
            };
            let modern = client.connection().is_some_and(|c| c.era == Era::Modern);
            if !common.json {
                let line = server_line(client.connection(), &client.transport().description);
                emit(|out| writeln!(out, "{line}\n"));
            }
            if modern {
                run.listen(client, &mut heard).await
            } else {
                run.subscribe(client, &mut heard).await
            }
        },
    )
    .await
}

/// The notifications a subscription brings.
fn subscription_note(event: &SessionEvent) -> Option<Frame> {
    let SessionEvent::Logged(entry) = event else {
        return None;
    };
    let LogEvent::Received {
        frame,
        role: Role::Notification,
    } = &entry.event
    else {
        return None;
    };
    matches!(
        frame.message.method(),
        Some("notifications/resources/updated" | "notifications/subscriptions/acknowledged")
    )
    .then(|| frame.clone())
}

struct Run<'a> {
    args: &'a SubscribeArgs,
    started: Instant,
    updates: usize,
}

impl Run<'_> {
    fn json(&self) -> bool {
        self.args.common.json
    }

    fn after_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn until(&self) -> Instant {
        self.started + Duration::from_secs_f64(self.args.seconds)
    }

    /// Up to 2025-11-25: `resources/subscribe`, the updates until `--for` ends, then
    /// `resources/unsubscribe`.
    async fn subscribe(
        &mut self,
        client: &mut SessionRunner,
        heard: &mut mpsc::Receiver<Frame>,
    ) -> u8 {
        let params = json!({"uri": self.args.uri});
        let subscribed = client
            .request("resources/subscribe", Some(params.clone()))
            .await;
        let (outcome, code) = judged(&subscribed);
        self.exchange(client, "subscribed", &subscribed);
        if outcome.class != Class::Success {
            return code;
        }
        let until = self.until();
        let mut gone = false;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match tokio::time::timeout(left, client.next(Some(&mut *heard))).await {
                Err(_) => break,
                Ok(Wake::Command(note)) => self.note(client, &note).await,
                Ok(Wake::Gone) => {
                    gone = true;
                    break;
                }
                Ok(Wake::Done(_) | Wake::Closed) => {}
            }
        }
        if gone {
            return self.ended("the server went before the end", exit::TRANSPORT_FAILURE);
        }
        let unsubscribed = client.request("resources/unsubscribe", Some(params)).await;
        let (_, unsubscribe_code) = judged(&unsubscribed);
        self.exchange(client, "unsubscribed", &unsubscribed);
        let code = code.max(unsubscribe_code);
        self.ended("unsubscribed at the end of --for", code)
    }

    /// 2026-07-28: a `subscriptions/listen` stream for the URI, held open until `--for` ends,
    /// then cancelled (the era's unsubscribe); the server may end it first.
    async fn listen(
        &mut self,
        client: &mut SessionRunner,
        heard: &mut mpsc::Receiver<Frame>,
    ) -> u8 {
        let params = json!({"notifications": {"resourceSubscriptions": [self.args.uri]}});
        let key = self.args.uri.clone();
        client.start(Command::Listen {
            key: key.clone(),
            method: "subscriptions/listen".into(),
            params: Some(params),
        });
        let until = self.until();
        let mut cancelled = false;
        loop {
            // It may have ended while `--read` read the resource.
            if let Some((_, exchange)) = client.take_listened() {
                return self.listen_ended(client, &exchange);
            }
            let left = until.saturating_duration_since(Instant::now());
            let woke = if cancelled {
                Ok(client.next(Some(&mut *heard)).await)
            } else {
                tokio::time::timeout(left, client.next(Some(&mut *heard))).await
            };
            match woke {
                Err(_) => {
                    client.start(Command::StopListening { key: key.clone() });
                    cancelled = true;
                }
                Ok(Wake::Command(note)) => self.note(client, &note).await,
                Ok(Wake::Done(Done::Listened { exchange, .. })) => {
                    return self.listen_ended(client, &exchange);
                }
                Ok(Wake::Gone) if !cancelled => {
                    return self.ended("the server went before the end", exit::TRANSPORT_FAILURE);
                }
                Ok(Wake::Done(_) | Wake::Gone | Wake::Closed) => {}
            }
        }
    }

    /// The listen request's end: sightline's cancel is the expected one.
    fn listen_ended(&mut self, client: &SessionRunner, exchange: &Exchange) -> u8 {
        self.exchange(client, "listen ended", exchange);
        if let End::Failed(Failure::CancelledByUser) = &exchange.end {
            return self.ended(
                "sightline ended the listen stream at the end of --for (2026-07-28: cancelling \
                 it is unsubscribing)",
                exit::SUCCESS,
            );
        }
        let (outcome, code) = judged(exchange);
        let why = match outcome.class {
            Class::Success => "the server ended the listen stream".to_owned(),
            _ => format!("the listen stream ended: {}", outcome.detail),
        };
        self.ended(&why, code)
    }

    /// One notification: said, and with `--read` the resource read again (in 2026-07-28 while
    /// the listen stream stays open).
    async fn note(&mut self, client: &mut SessionRunner, note: &Frame) {
        let params = match &note.message {
            crate::mcp::jsonrpc::Message::Notification { params, .. } => {
                params.as_ref().map(crate::mcp::jsonrpc::Params::value)
            }
            _ => None,
        };
        let uri = params
            .as_ref()
            .and_then(|params| params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let updated = note.message.method() == Some("notifications/resources/updated");
        if updated {
            self.updates += 1;
        }
        if self.json() {
            Self::print(&Line {
                event: if updated { "updated" } else { "acknowledged" },
                after_ms: self.after_ms(),
                notification: serde_json::from_str(&note.raw).ok(),
                exchange: None,
                summary: None,
            });
        } else {
            let what = if updated {
                format!("updated  {}", sanitize::text(uri.as_deref().unwrap_or("?")))
            } else {
                let honoured = params
                    .as_ref()
                    .and_then(|p| p.pointer("/notifications/resourceSubscriptions"))
                    .map_or_else(|| "nothing".into(), Value::to_string);
                format!(
                    "acknowledged  resourceSubscriptions {}",
                    sanitize::text(&honoured)
                )
            };
            let line = format!("{:>8.2} s  {what}", self.started.elapsed().as_secs_f64());
            emit(|out| writeln!(out, "{line}"));
        }
        if updated && self.args.read {
            let read = client
                .request(
                    "resources/read",
                    Some(json!({"uri": uri.unwrap_or_default()})),
                )
                .await;
            self.read_back(client, &read);
        }
    }

    fn read_back(&self, client: &SessionRunner, read: &Exchange) {
        if self.json() {
            self.exchange(client, "read", read);
            return;
        }
        let lines = match read.reply() {
            Some(Reply::Result(result)) => words::contents(result).map_or_else(
                || vec!["(no `contents` array)".to_owned()],
                |contents| contents.iter().flat_map(words::Content::lines).collect(),
            ),
            _ => vec![format!("read failed: {}", judged(read).0.detail)],
        };
        let text: Vec<String> = lines
            .iter()
            .map(|line| format!("           {line}"))
            .collect();
        emit(|out| writeln!(out, "{}", text.join("\n")));
    }

    /// An exchange of the subscription: a `--json` line, or one line of text.
    fn exchange(&self, client: &SessionRunner, event: &'static str, exchange: &Exchange) {
        let (outcome, _) = judged(exchange);
        if self.json() {
            let show_secrets = self.args.common.server.show_secrets;
            Self::print(&Line {
                event,
                after_ms: self.after_ms(),
                notification: None,
                exchange: Some(RequestJson::of(
                    client.connection(),
                    exchange,
                    &outcome,
                    show_secrets,
                )),
                summary: None,
            });
            return;
        }
        let elapsed = exchange.ended_at.since(exchange.sent_at);
        let line = format!(
            "{:>8.2} s  {event}  {} {} · {} after {elapsed} ms: {}",
            self.started.elapsed().as_secs_f64(),
            exchange.method,
            sanitize::text(&self.args.uri),
            outcome.class.label(),
            sanitize::text(&outcome.detail)
        );
        emit(|out| writeln!(out, "{line}"));
    }

    fn ended(&self, why: &str, code: u8) -> u8 {
        let plural = if self.updates == 1 { "" } else { "s" };
        let seconds = self.started.elapsed().as_secs_f64();
        if self.json() {
            Self::print(&Line {
                event: "ended",
                after_ms: self.after_ms(),
                notification: None,
                exchange: None,
                summary: Some(json!({"updates": self.updates, "detail": why, "exit": code})),
            });
        } else {
            let line = format!(
                "\noutcome  {} update{plural} in {seconds:.1} s; {why}",
                self.updates
            );
            emit(|out| writeln!(out, "{line}"));
        }
        code
    }

    /// One compact line of JSON, terminal-safe.
    fn print(line: &Line<'_>) {
        emit(|out| {
            let mut safe = sanitize::JsonWriter::new(out);
            serde_json::to_writer(&mut safe, line).map_err(std::io::Error::from)?;
            std::io::Write::write_all(&mut safe, b"\n")?;
            std::io::Write::flush(&mut safe)
        });
    }
}
