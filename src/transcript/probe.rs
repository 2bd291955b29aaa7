//! The era probe of a transcript written before `connected` carried it, read back from the
//! negotiation's own frames, pure: what the negotiation said of it when the file was written.

use serde_json::Value;

use super::Record;
use crate::mcp::era::Era;
use crate::mcp::jsonrpc::Id;
use crate::mcp::log::{Probe, ProbeAnswer, SessionEvent};

/// The negotiation's frames, watched from `connecting` to `connected`.
#[derive(Debug, Default)]
pub struct ProbeTrail {
    /// Past the negotiation: nothing more to watch until the next connection.
    connected: bool,
    sent: Option<Id>,
    answer: Option<ProbeAnswer>,
}

impl ProbeTrail {
    /// Takes note of a record read (only during a negotiation, a handful of frames).
    pub fn see(&mut self, record: &Record<'_>) {
        match record {
            Record::Connecting { .. } => *self = Self::default(),
            _ if self.connected => {}
            Record::Connected { .. } => self.connected = true,
            Record::Sent { raw, .. } => {
                let sent = serde_json::from_str::<Value>(raw).unwrap_or_default();
                if sent["method"] == "server/discover" {
                    self.sent = serde_json::from_value(sent["id"].clone()).ok();
                    self.answer = None;
                }
            }
            Record::Received { raw, .. } if self.sent.is_some() && self.answer.is_none() => {
                let received = serde_json::from_str::<Value>(raw).unwrap_or_default();
                let Some(code) = received["error"]["code"].as_i64() else {
                    return;
                };
                let id = serde_json::from_value::<Id>(received["id"].clone()).ok();
                if id.is_none() || id == self.sent {
                    self.answer = Some(ProbeAnswer::Refused {
                        code,
                        addressed: id.is_some(),
                    });
                }
            }
            Record::TimedOut { id, .. } if Some(id) == self.sent.as_ref() => {
                self.answer.get_or_insert(ProbeAnswer::Unanswered);
            }
            _ => {}
        }
    }

    /// A legacy connection read from a file that did not say how its probe ended, told it.
    pub fn upgrade(&self, event: SessionEvent) -> SessionEvent {
        match event {
            SessionEvent::Connected(mut connection)
                if connection.era == Era::Legacy && connection.probe.is_none() =>
            {
                connection.probe = self
                    .sent
                    .clone()
                    .zip(self.answer.clone())
                    .map(|(id, answer)| Probe { id, answer });
                SessionEvent::Connected(connection)
            }
            event => event,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The events of these transcript lines, read as the reader reads them.
    fn read(lines: &[&str]) -> Vec<SessionEvent> {
        let mut trail = ProbeTrail::default();
        let mut frames = super::super::Frames::default();
        lines
            .iter()
            .map(|line| {
                let record: Record = serde_json::from_str(line).unwrap();
                trail.see(&record);
                trail.upgrade(record.into_event(&mut frames).unwrap())
            })
            .collect()
    }

    fn probe_of(events: &[SessionEvent]) -> Option<Probe> {
        events.iter().find_map(|event| match event {
            SessionEvent::Connected(connection) => Some(connection.probe.clone()),
            _ => None,
        })?
    }

    const CONNECTING: &str = r#"{"type":"connecting","transport":"stdio: x"}"#;
    const PROBE: &str = r#"{"type":"sent","at":1,"raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\"}"}"#;
    const LEGACY: &str = r#"{"type":"connected","era":"legacy","protocol_version":"2025-11-25","server":{"name":"s","version":"1"}}"#;

    #[test]
    fn an_older_transcripts_probe_is_read_from_its_frames() {
        let refused = r#"{"type":"received","at":2,"raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"no\"}}","role":{"kind":"reply","method":"server/discover"}}"#;
        let events = read(&[CONNECTING, PROBE, refused, LEGACY]);
        assert_eq!(
            probe_of(&events),
            Some(Probe {
                id: Id::Number(1),
                answer: ProbeAnswer::Refused {
                    code: -32601,
                    addressed: true
                }
            })
        );
        let unaddressed = r#"{"type":"received","at":2,"raw":"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":\"no\"}}","role":{"kind":"unaddressed"}}"#;
        let events = read(&[CONNECTING, PROBE, unaddressed, LEGACY]);
        assert!(matches!(
            probe_of(&events),
            Some(Probe {
                answer: ProbeAnswer::Refused {
                    code: -32000,
                    addressed: false
                },
                ..
            })
        ));
        let silent =
            r#"{"type":"timed_out","at":3,"id":1,"method":"server/discover","after_ms":2000}"#;
        let events = read(&[CONNECTING, PROBE, silent, LEGACY]);
        assert!(matches!(
            probe_of(&events),
            Some(Probe {
                answer: ProbeAnswer::Unanswered,
                ..
            })
        ));
    }

    #[test]
    fn what_the_file_says_wins_and_no_probe_is_made_up() {
        // `--era legacy`: no probe was sent.
        assert_eq!(probe_of(&read(&[CONNECTING, LEGACY])), None);
        // A transcript that says how its probe ended is taken at its word.
        let said = r#"{"type":"connected","era":"legacy","protocol_version":"2025-11-25","server":{"name":"s","version":"1"},"probe":{"id":7,"answer":"not_discover"}}"#;
        assert_eq!(
            probe_of(&read(&[CONNECTING, PROBE, said])),
            Some(Probe {
                id: Id::Number(7),
                answer: ProbeAnswer::NotDiscover
            })
        );
        // A `server/discover` the user sent after connecting is no probe.
        let later = read(&[CONNECTING, LEGACY, PROBE, CONNECTING, LEGACY]);
        assert_eq!(probe_of(&later[3..]), None);
    }
}
