//! The session stream: every [`SessionEvent`] of a client, in the order it happened, on one
//! bounded channel (a slow consumer slows the client, never grows memory), plus taps that see
//! each event first, synchronously (the `-v` log, a recorder, tests).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use crate::mcp::log::{LogEntry, SessionEvent};

/// Events in flight between the client and its consumer, at most.
pub const CAPACITY: usize = 256;

/// An observer of every event, called in order before the event is sent on.
pub type Tap = Arc<dyn Fn(&SessionEvent) + Send + Sync>;

/// The sending side of a session stream. Clones share the channel and the taps.
#[derive(Clone, Default)]
pub struct EventSink {
    channel: Option<mpsc::Sender<SessionEvent>>,
    taps: Vec<Tap>,
}

impl fmt::Debug for EventSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventSink")
            .field("channel", &self.channel.is_some())
            .field("taps", &self.taps.len())
            .finish()
    }
}

/// A stream whose events a consumer receives in order.
pub fn channel() -> (EventSink, mpsc::Receiver<SessionEvent>) {
    let (sender, receiver) = mpsc::channel(CAPACITY);
    let sink = EventSink {
        channel: Some(sender),
        taps: Vec::new(),
    };
    (sink, receiver)
}

impl EventSink {
    /// A stream with no consumer: only its taps see the events, and nothing is kept.
    pub fn taps_only() -> Self {
        Self::default()
    }

    /// Adds an observer that sees every event from now on, before the consumer does.
    #[must_use]
    pub fn with_tap(mut self, tap: impl Fn(&SessionEvent) + Send + Sync + 'static) -> Self {
        self.taps.push(Arc::new(tap));
        self
    }

    /// Emits one event: taps first, then the consumer (waiting while its channel is full).
    /// A consumer that has gone away is not an error: the taps still saw the event.
    pub async fn emit(&self, event: SessionEvent) {
        for tap in &self.taps {
            tap(&event);
        }
        if let Some(channel) = &self.channel {
            let _ = channel.send(event).await;
        }
    }
}

/// Keeps every event of a stream in memory, in order: for tests and short runs that need to
/// look back, never for a long session.
#[derive(Debug, Clone, Default)]
pub struct Collector(Arc<Mutex<Vec<SessionEvent>>>);

impl Collector {
    /// A tap that adds each event to this collector.
    pub fn tap(&self) -> impl Fn(&SessionEvent) + Send + Sync + 'static {
        let events = Arc::clone(&self.0);
        move |event| {
            events
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(event.clone());
        }
    }

    /// The events so far.
    pub fn events(&self) -> Vec<SessionEvent> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The log entries so far.
    pub fn log(&self) -> Vec<LogEntry> {
        self.events()
            .into_iter()
            .filter_map(|event| match event {
                SessionEvent::Logged(entry) => Some(entry),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn taps_and_the_consumer_see_every_event_in_order() {
        let seen = Collector::default();
        let (sink, mut receiver) = channel();
        let sink = sink.with_tap(seen.tap());
        let events = [
            SessionEvent::ToolsFailed("one".into()),
            SessionEvent::Disconnected,
        ];
        for event in events.clone() {
            sink.emit(event).await;
        }
        drop(sink);
        let mut delivered = Vec::new();
        while let Some(event) = receiver.recv().await {
            delivered.push(event);
        }
        assert_eq!(delivered, events);
        assert_eq!(seen.events(), events);
    }

    #[tokio::test]
    async fn a_full_channel_holds_the_sender_back_instead_of_growing() {
        let (sink, mut receiver) = channel();
        for _ in 0..CAPACITY {
            sink.emit(SessionEvent::Disconnected).await;
        }
        let blocked = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            sink.emit(SessionEvent::Disconnected),
        )
        .await;
        assert!(
            blocked.is_err(),
            "the 257th event must wait for the consumer"
        );
        assert_eq!(receiver.recv().await, Some(SessionEvent::Disconnected));
    }

    #[tokio::test]
    async fn a_gone_consumer_does_not_stop_the_taps() {
        let count = Arc::new(Mutex::new(0));
        let counted = Arc::clone(&count);
        let (sink, receiver) = channel();
        drop(receiver);
        let sink = sink.with_tap(move |_| *counted.lock().unwrap() += 1);
        sink.emit(SessionEvent::Disconnected).await;
        EventSink::taps_only()
            .emit(SessionEvent::Disconnected)
            .await;
        assert_eq!(*count.lock().unwrap(), 1);
    }
}
