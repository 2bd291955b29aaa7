//! The session stream: every [`SessionEvent`] of a client, in the order it happened, on one
//! bounded channel (a slow consumer slows the client, never grows memory), plus taps that see
//! each event first, synchronously (the `-v` log, a recorder, tests). Events travel in batches
//! (all that one read of the server's output brought), so a flood costs one hand-over per read;
//! several sessions can share one stream ([`merged`]), each batch arriving whole with the index
//! of the session it came from.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use crate::mcp::log::{LogEntry, SessionEvent};

/// Batches in flight between the client and its consumer, at most (per session).
pub const CAPACITY: usize = 16;

/// One session's events, in order, with the index of the session they came from.
type Batch = (usize, Vec<SessionEvent>);

/// An observer of every event, called in order before the event is sent on.
pub type Tap = Arc<dyn Fn(&SessionEvent) + Send + Sync>;

/// The sending side of a session stream. Clones share the channel and the taps.
#[derive(Clone, Default)]
pub struct EventSink {
    channel: Option<mpsc::Sender<Batch>>,
    /// The index its batches carry.
    session: usize,
    taps: Vec<Tap>,
}

impl fmt::Debug for EventSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventSink")
            .field("channel", &self.channel.is_some())
            .field("session", &self.session)
            .field("taps", &self.taps.len())
            .finish()
    }
}

/// A stream whose events a consumer receives in order.
pub fn channel() -> (EventSink, EventReceiver) {
    let (mut sinks, receiver) = merged(1);
    let sink = sinks.pop().unwrap_or_default();
    (sink, receiver)
}

/// One stream for `sessions` sessions: a sink for each, and one consumer that receives each
/// session's events in its order, every batch whole with the session's index (no task in
/// between to take batches apart and tag them).
pub fn merged(sessions: usize) -> (Vec<EventSink>, EventReceiver) {
    let (sender, receiver) = mpsc::channel(CAPACITY * sessions.max(1));
    let sinks = (0..sessions)
        .map(|session| EventSink {
            channel: Some(sender.clone()),
            session,
            taps: Vec::new(),
        })
        .collect();
    let receiver = EventReceiver {
        channel: receiver,
        from: 0,
        ready: VecDeque::new(),
    };
    (sinks, receiver)
}

/// The consuming end of a session stream: one event at a time, in order.
#[derive(Debug)]
pub struct EventReceiver {
    channel: mpsc::Receiver<Batch>,
    /// The session the batch being read came from.
    from: usize,
    /// The rest of the batch being read.
    ready: VecDeque<SessionEvent>,
}

impl EventReceiver {
    /// The next event; `None` once every sink is gone and every event was read.
    pub async fn recv(&mut self) -> Option<SessionEvent> {
        Some(self.recv_from().await?.1)
    }

    /// The next event if one is ready now.
    pub fn try_recv(&mut self) -> Option<SessionEvent> {
        Some(self.try_recv_from()?.1)
    }

    /// The next event and the index of the session it came from. Cancel-safe: a batch taken is
    /// kept before anything else can happen.
    pub async fn recv_from(&mut self) -> Option<(usize, SessionEvent)> {
        while self.ready.is_empty() {
            (self.from, self.ready) = self
                .channel
                .recv()
                .await
                .map(|(from, batch)| (from, batch.into()))?;
        }
        Some((self.from, self.ready.pop_front()?))
    }

    /// The next event and its session's index, if one is ready now.
    pub fn try_recv_from(&mut self) -> Option<(usize, SessionEvent)> {
        while self.ready.is_empty() {
            let (from, batch) = self.channel.try_recv().ok()?;
            (self.from, self.ready) = (from, batch.into());
        }
        Some((self.from, self.ready.pop_front()?))
    }
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
        self.emit_all(vec![event]).await;
    }

    /// Emits events in order, handed to the consumer together.
    pub async fn emit_all(&self, mut events: Vec<SessionEvent>) {
        self.emit_from(&mut events).await;
    }

    /// Emits and takes the events in `events`, in order. Cancel-safe: if the future is dropped
    /// while the consumer is full, `events` is left as it was and no tap has seen them.
    pub async fn emit_from(&self, events: &mut Vec<SessionEvent>) {
        self.emit_first(events, usize::MAX).await;
    }

    /// Emits and takes the first `at_most` events of `events` as one batch, in order; the
    /// rest stay. Cancel-safe like [`EventSink::emit_from`]: nothing is taken before the
    /// consumer has room.
    pub async fn emit_first(&self, events: &mut Vec<SessionEvent>, at_most: usize) {
        if events.is_empty() {
            return;
        }
        // A gone consumer still leaves the taps to tell.
        let permit = match &self.channel {
            Some(channel) => channel.reserve().await.ok(),
            None => None,
        };
        let events = if events.len() <= at_most {
            std::mem::take(events)
        } else {
            events.drain(..at_most).collect()
        };
        for event in &events {
            for tap in &self.taps {
                tap(event);
            }
        }
        if let Some(permit) = permit {
            permit.send((self.session, events));
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
            SessionEvent::ToolsFailed("three".into()),
        ];
        sink.emit(events[0].clone()).await;
        sink.emit_all(events[1..].to_vec()).await;
        drop(sink);
        let mut delivered = Vec::new();
        while let Some(event) = receiver.recv().await {
            delivered.push(event);
        }
        assert_eq!(delivered, events);
        assert_eq!(receiver.try_recv(), None);
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
            "one batch more than the capacity must wait"
        );
        assert_eq!(receiver.try_recv(), Some(SessionEvent::Disconnected));
    }

    #[tokio::test]
    async fn an_emit_dropped_while_the_consumer_is_full_loses_nothing() {
        let seen = Collector::default();
        let (sink, mut receiver) = channel();
        let sink = sink.with_tap(seen.tap());
        for _ in 0..CAPACITY {
            sink.emit(SessionEvent::Disconnected).await;
        }
        let mut pending = vec![SessionEvent::ToolsFailed("kept".into())];
        let dropped = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            sink.emit_from(&mut pending),
        )
        .await;
        assert!(dropped.is_err());
        assert_eq!(pending.len(), 1, "nothing was taken");
        assert_eq!(seen.events().len(), CAPACITY, "no tap saw it yet");
        assert_eq!(receiver.recv().await, Some(SessionEvent::Disconnected));
        sink.emit_from(&mut pending).await;
        assert!(pending.is_empty());
        assert_eq!(
            seen.events().last(),
            Some(&SessionEvent::ToolsFailed("kept".into()))
        );
    }

    #[tokio::test]
    async fn merged_sessions_arrive_each_in_its_order_with_its_index() {
        let (sinks, mut receiver) = merged(2);
        let [first, second] = &sinks[..] else {
            panic!("two sinks")
        };
        first
            .emit_all(vec![
                SessionEvent::ToolsFailed("a1".into()),
                SessionEvent::ToolsFailed("a2".into()),
            ])
            .await;
        second.emit(SessionEvent::ToolsFailed("b1".into())).await;
        first.emit(SessionEvent::ToolsFailed("a3".into())).await;
        drop(sinks);
        let mut seen = Vec::new();
        while let Some((from, event)) = receiver.recv_from().await {
            seen.push((from, event));
        }
        let failed = |from, text: &str| (from, SessionEvent::ToolsFailed(text.into()));
        assert_eq!(
            seen,
            [
                failed(0, "a1"),
                failed(0, "a2"),
                failed(1, "b1"),
                failed(0, "a3")
            ]
        );
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
