//! Transcript files: read line by line, loaded whole, a line read again by its place.

use std::io::BufRead;
use std::sync::Arc;

use serde_json::Value;

use crate::mcp::catalog::Catalog;
use crate::mcp::jsonrpc::{self, Id};
use crate::mcp::log::{Connection, LogEntry, LogEvent, Role, SessionEvent};
use crate::mcp::session::Exchange;
use crate::transcript::{Frames, Header, ModelTurn, ProbeTrail, Record, VERSION};

/// Why a transcript cannot be read (further), naming the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptError {
    pub file: String,
    /// 0 when the file itself cannot be opened.
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "transcript '{}': {}", self.file, self.message),
            line => write!(
                f,
                "transcript '{}', line {line}: {}",
                self.file, self.message
            ),
        }
    }
}

impl std::error::Error for TranscriptError {}

/// A transcript being read: its header, then its events one line at a time (a large file is
/// never read whole).
pub struct Reader<R> {
    file: String,
    lines: R,
    line: usize,
    pub header: Header,
    done: bool,
    recent: Frames,
    probe: ProbeTrail,
    /// The model turns read so far (`sightline agent`), kept beside the events.
    pub model_turns: Vec<ModelTurn>,
    /// Bytes read so far, and where the line of the last event began.
    read: u64,
    last: u64,
}

impl<R: BufRead> Reader<R> {
    /// Reads the header; a file that is not a transcript, or is newer than this sightline
    /// reads, is an error naming line 1.
    pub fn new(mut lines: R, file: &str) -> Result<Self, TranscriptError> {
        let error = |message: String| TranscriptError {
            file: file.to_owned(),
            line: 1,
            message,
        };
        let mut first = String::new();
        let read = lines
            .read_line(&mut first)
            .map_err(|e| error(format!("cannot be read: {e}")))?;
        if first.trim().is_empty() {
            return Err(error("empty: not a sightline transcript".into()));
        }
        let value: Value = serde_json::from_str(&first)
            .map_err(|e| error(format!("not a sightline transcript (not JSON: {e})")))?;
        let version = value
            .get("sightline_transcript")
            .and_then(Value::as_u64)
            .ok_or_else(|| {
                error("not a sightline transcript (no \"sightline_transcript\" version)".into())
            })?;
        if version > u64::from(VERSION) {
            return Err(error(format!(
                "transcript format version {version} is newer than this sightline reads ({VERSION}); update sightline"
            )));
        }
        let header: Header = serde_json::from_value(value)
            .map_err(|e| error(format!("a header this sightline cannot read: {e}")))?;
        Ok(Self {
            file: file.to_owned(),
            lines,
            line: 1,
            header,
            done: false,
            recent: Frames::default(),
            probe: ProbeTrail::default(),
            model_turns: Vec::new(),
            read: read as u64,
            last: 0,
        })
    }

    /// Where the line of the event last returned begins, in bytes from the file's start.
    pub fn offset(&self) -> u64 {
        self.last
    }

    fn error(&mut self, message: String) -> TranscriptError {
        self.done = true;
        TranscriptError {
            file: self.file.clone(),
            line: self.line,
            message,
        }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<SessionEvent, TranscriptError>;

    /// The next event; a line that cannot be read ends the transcript there, with the reason.
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut text = String::new();
        let record = loop {
            match self.next_record(&mut text)? {
                Ok(Record::Model(turn)) => self.model_turns.push(*turn),
                Ok(record) => break record,
                Err(error) => return Some(Err(error)),
            }
        };
        self.probe.see(&record);
        let event = record
            .into_event(&mut self.recent)
            .map(|event| self.probe.upgrade(event));
        Some(event.map_err(|message| self.error(message)))
    }
}

impl<R: BufRead> Reader<R> {
    /// The next line's record (`None` at the end), read into `text`.
    fn next_record<'t>(
        &mut self,
        text: &'t mut String,
    ) -> Option<Result<Record<'t>, TranscriptError>> {
        loop {
            text.clear();
            self.line += 1;
            self.last = self.read;
            match self.lines.read_line(text) {
                Ok(0) => return None,
                Ok(read) if text.trim().is_empty() => self.read += read as u64,
                Ok(read) => {
                    self.read += read as u64;
                    break;
                }
                Err(error) => return Some(Err(self.error(format!("cannot be read: {error}")))),
            }
        }
        let complete = text.ends_with('\n');
        let record = match serde_json::from_str::<Record>(text.trim_end()) {
            Ok(record) => record,
            Err(_) if !complete => {
                return Some(Err(self.error(
                    "cut short: the recording stopped in the middle of this line; everything before it is shown".into(),
                )));
            }
            Err(error) if error.is_syntax() || error.is_eof() => {
                return Some(Err(self.error(format!("not JSON: {error}"))));
            }
            Err(error) => {
                return Some(Err(
                    self.error(format!("not an event this sightline reads: {error}"))
                ));
            }
        };
        Some(Ok(record))
    }
}

/// A finished `tools/call` of a transcript, with what its analysis depends on at that point.
#[derive(Debug, Clone)]
pub struct RecordedCall {
    pub exchange: Exchange,
    pub transport: String,
    pub connection: Option<Connection>,
    pub catalog: Option<Arc<Catalog>>,
}

impl RecordedCall {
    /// The negotiated version the call was made under.
    pub fn version(&self) -> &str {
        self.connection
            .as_ref()
            .map_or("unknown", |connection| connection.protocol_version.as_str())
    }
}

/// What `replay --json`, `diff` and `--serve` need of a transcript, read whole.
#[derive(Debug)]
pub struct Loaded {
    pub header: Header,
    /// The last tool listing.
    pub tools: Option<Arc<Catalog>>,
    pub calls: Vec<RecordedCall>,
    /// Every request sightline sent that got a reply, with the reply, in order.
    pub replies: Vec<(jsonrpc::Frame, jsonrpc::Frame)>,
    /// The model's turns, when `sightline agent` recorded the run.
    pub model_turns: Vec<ModelTurn>,
    /// Why reading stopped before the end, if it did.
    pub stopped: Option<TranscriptError>,
}

/// Reads a whole transcript; a bad line stops it there (`stopped`).
pub fn load(path: &str) -> Result<Loaded, TranscriptError> {
    let mut reader = open(path)?;
    let mut loaded = Loaded {
        header: reader.header.clone(),
        tools: None,
        calls: Vec::new(),
        replies: Vec::new(),
        model_turns: Vec::new(),
        stopped: None,
    };
    let mut transport = loaded.header.transport.clone();
    let mut connection = None;
    let mut pending: std::collections::HashMap<Id, jsonrpc::Frame> =
        std::collections::HashMap::new();
    for event in reader.by_ref() {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                loaded.stopped = Some(error);
                break;
            }
        };
        match event {
            SessionEvent::Connecting { transport: named } => transport = named,
            SessionEvent::Connected(connected) => connection = Some(*connected),
            SessionEvent::ToolsListed(tools) => loaded.tools = Some(tools),
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Sent(frame),
                ..
            }) => {
                if let jsonrpc::Message::Request { id, .. } = &frame.message {
                    pending.insert(id.clone(), frame.clone());
                }
            }
            SessionEvent::Logged(LogEntry {
                event:
                    LogEvent::Received {
                        frame,
                        role: Role::Reply { .. } | Role::Late { .. },
                    },
                ..
            }) => {
                let request = jsonrpc::scan_id(&frame.raw).and_then(|id| pending.remove(&id));
                if let Some(request) = request {
                    loaded.replies.push((request, frame));
                }
            }
            SessionEvent::CallFinished(finished) if finished.exchange.method == "tools/call" => {
                loaded.calls.push(RecordedCall {
                    exchange: finished.exchange,
                    transport: transport.clone(),
                    connection: connection.clone(),
                    catalog: loaded.tools.clone(),
                });
            }
            _ => {}
        }
    }
    loaded.model_turns = reader.model_turns;
    Ok(loaded)
}

/// Where a transcript's frames and calls lie, by number (the n-th `sent` or `received` line,
/// the n-th `call` line): what a replay reads back when it is shown instead of holding it.
#[derive(Debug, Default, Clone)]
pub struct Places {
    frames: Vec<u64>,
    /// Each call line, and the last `received` line before it (its reply, when it says
    /// `replied_above`).
    calls: Vec<(u64, Option<u64>)>,
    received: Option<u64>,
}

impl Places {
    /// Notes where the line of `event` began.
    pub fn note(&mut self, event: &SessionEvent, offset: u64) {
        match event {
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Sent(_),
                ..
            }) => self.frames.push(offset),
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Received { .. },
                ..
            }) => {
                self.frames.push(offset);
                self.received = Some(offset);
            }
            SessionEvent::CallFinished(_) => self.calls.push((offset, self.received)),
            _ => {}
        }
    }

    /// The `number`-th frame of the transcript at `path`, read again.
    pub fn frame(&self, path: &str, number: u64) -> Result<jsonrpc::Frame, String> {
        let offset = usize::try_from(number)
            .ok()
            .and_then(|number| self.frames.get(number));
        match read_at(path, offset.copied(), &mut Frames::default())? {
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Sent(frame) | LogEvent::Received { frame, .. },
                ..
            }) => Ok(frame),
            _ => Err(format!("line {number} of the frames is not a frame")),
        }
    }

    /// The `number`-th call of the transcript at `path`, read again.
    pub fn call(&self, path: &str, number: usize) -> Result<Exchange, String> {
        let (call, received) = self.calls.get(number).copied().unzip();
        let mut frames = Frames::default();
        // The reply it may name as the frame received above it.
        if let Some(received) = received.flatten() {
            read_at(path, Some(received), &mut frames)?;
        }
        match read_at(path, call, &mut frames)? {
            SessionEvent::CallFinished(finished) => Ok(finished.exchange),
            _ => Err(format!("call {number} is not a call line")),
        }
    }
}

/// The event of the line at `offset`, read on its own.
fn read_at(path: &str, offset: Option<u64>, frames: &mut Frames) -> Result<SessionEvent, String> {
    use std::io::{Seek, SeekFrom};
    let offset = offset.ok_or("not in the transcript as read")?;
    let cannot = |error: std::io::Error| format!("{path} cannot be read again: {error}");
    let mut source = Source::open(path).map_err(cannot)?;
    source.seek(SeekFrom::Start(offset)).map_err(cannot)?;
    let mut line = String::new();
    source.read_line(&mut line).map_err(cannot)?;
    let record: Record = serde_json::from_str(line.trim_end())
        .map_err(|error| format!("{path} changed since it was read: {error}"))?;
    record.into_event(frames)
}

/// A transcript's lines: the file itself, or, for a call saved with `J`, the transcript it
/// reads as (made in memory, so its lines are read again from the same text).
pub enum Source {
    File(std::io::BufReader<std::fs::File>),
    CallDocument(std::io::Cursor<Vec<u8>>),
}

impl Source {
    /// The file at `path` as transcript lines.
    fn open(path: &str) -> std::io::Result<Self> {
        use std::io::{Seek, SeekFrom};
        let file = std::fs::File::open(path)?;
        let written = file
            .metadata()
            .and_then(|metadata| metadata.modified())
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |since| {
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            });
        let mut lines = std::io::BufReader::with_capacity(1 << 16, file);
        let mut first = String::new();
        lines.read_line(&mut first)?;
        // A transcript's header is one line of JSON; `J` writes pretty JSON, whose first line
        // is a lone brace (or, compacted, a line that is the whole document).
        let document = if first.trim() == "{" {
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut lines, &mut rest)?;
            serde_json::from_str::<Value>(&(first + &rest)).ok()
        } else {
            serde_json::from_str::<Value>(&first).ok()
        };
        if let Some(document) = document.filter(crate::transcript::is_call_document) {
            let name = std::path::Path::new(path).file_name().map_or_else(
                || path.to_owned(),
                |name| name.to_string_lossy().into_owned(),
            );
            let text = crate::transcript::from_call_document(&document, &name, written);
            return Ok(Source::CallDocument(std::io::Cursor::new(
                text.into_bytes(),
            )));
        }
        lines.seek(SeekFrom::Start(0))?;
        Ok(Source::File(lines))
    }
}

impl std::io::Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Source::File(file) => file.read(buf),
            Source::CallDocument(text) => text.read(buf),
        }
    }
}

impl BufRead for Source {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        match self {
            Source::File(file) => file.fill_buf(),
            Source::CallDocument(text) => text.fill_buf(),
        }
    }

    fn consume(&mut self, amount: usize) {
        match self {
            Source::File(file) => file.consume(amount),
            Source::CallDocument(text) => text.consume(amount),
        }
    }
}

impl std::io::Seek for Source {
    fn seek(&mut self, position: std::io::SeekFrom) -> std::io::Result<u64> {
        match self {
            Source::File(file) => file.seek(position),
            Source::CallDocument(text) => text.seek(position),
        }
    }
}

/// Opens a transcript file, or a call saved with `J` as the transcript it reads as.
pub fn open(path: &str) -> Result<Reader<Source>, TranscriptError> {
    let source = Source::open(path).map_err(|error| TranscriptError {
        file: path.to_owned(),
        line: 0,
        message: format!("cannot be opened: {error}"),
    })?;
    Reader::new(source, path)
}

#[cfg(test)]
mod tests;
