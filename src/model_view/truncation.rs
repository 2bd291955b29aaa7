//! A host's size limits at work, pure: which bytes of a result it keeps and what stands for the
//! rest, written as the text is read (never built whole); a saved result's preview.

use std::borrow::Cow;
use std::fmt::{self, Write};

use serde::Serialize;

use super::hosts::{self, Keep, Limit};
use super::{Block, Blocks, ModelView, clip};

/// A host's size limit at work: the text is `total` bytes, the host keeps `head` bytes from
/// the start and `tail` from the end, and `marker` stands for the rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Truncation {
    pub total: usize,
    pub head: usize,
    pub tail: usize,
    pub marker: String,
    /// What the host writes before the text it kept (its limit's `notice`), or nothing.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub notice: String,
}

impl Truncation {
    /// `lines` is the number of lines of the whole text. A limit's second limit (`then`)
    /// cuts what the first kept, its marker included: one window over the whole text again,
    /// as its head and tail lie within the first's.
    pub(super) fn for_limit(total: usize, lines: usize, limit: &Limit) -> Option<Truncation> {
        let first = Truncation::once(total, lines, limit);
        let Some(then) = limit.then.as_deref() else {
            return first;
        };
        let Some(first) = first else {
            return Truncation::once(total, lines, then);
        };
        let left = first.notice.len() + first.head + first.marker.len() + first.tail;
        match Truncation::once(left, lines, then) {
            Some(second) if second.head <= first.head && second.tail <= first.tail => {
                Some(Truncation {
                    total,
                    head: second.head,
                    tail: second.tail,
                    marker: second.marker,
                    notice: first.notice,
                })
            }
            _ => Some(first),
        }
    }

    /// One limit's cut of a text of `total` bytes.
    fn once(total: usize, lines: usize, limit: &Limit) -> Option<Truncation> {
        if total <= limit.bytes {
            return None;
        }
        let (head, tail) = match limit.keep {
            Keep::Head => (limit.head.unwrap_or(limit.bytes).min(limit.bytes), 0),
            Keep::Tail => (0, limit.bytes),
            Keep::HeadAndTail => {
                let head = limit.head.unwrap_or(limit.bytes / 2).min(limit.bytes);
                (head, limit.bytes - head)
            }
            Keep::Replace => (0, 0),
        };
        let omitted = (total - head - tail).to_string();
        let omitted_thousands = thousands(total - head - tail);
        let omitted_tokens = (total - head - tail).div_ceil(4).to_string();
        let marker = hosts::fill_exact(
            &limit.marker,
            &[
                ("omitted", &omitted),
                ("omitted_thousands", &omitted_thousands),
                ("omitted_tokens", &omitted_tokens),
                ("characters", &thousands(total)),
                ("lines", &thousands(lines)),
            ],
        );
        Some(Truncation {
            total,
            head,
            tail,
            marker,
            notice: limit.notice.clone().unwrap_or_default(),
        })
    }

    pub fn omitted(&self) -> usize {
        self.total - self.head - self.tail
    }

    /// Where the cut is, in words.
    pub fn describe(&self, limit: usize) -> String {
        if (self.head, self.tail) == (0, 0) {
            return format!(
                "this host keeps {limit} bytes of a result: this one has {}, so the model reads \
                 the host's notice \"{}\" instead of any of it",
                self.total,
                clip(&self.marker, 120)
            );
        }
        let what = match (self.head, self.tail) {
            (_, 0) => "the end",
            (0, _) => "the start",
            _ => "the middle",
        };
        format!(
            "this host keeps {limit} bytes of a result: {} of {} bytes are cut from {what} \
             (bytes {}–{}), and \"{}\" stands in their place",
            self.omitted(),
            self.total,
            self.head,
            self.total - self.tail,
            self.marker
        )
    }
}

/// The blocks as one text, one block per line, written as it is read (never built whole), cut
/// as the host's size limit cuts it.
#[derive(Debug, Clone, Copy)]
pub struct Joined<'v, 'a> {
    pub(super) blocks: &'v Blocks<'a>,
    pub(super) truncation: Option<&'v Truncation>,
}

impl fmt::Display for Joined<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(truncation) = self.truncation else {
            return write_blocks(self.blocks.iter(), f);
        };
        f.write_str(&truncation.notice)?;
        let mut window = Window {
            out: f,
            at: 0,
            truncation,
            head_done: false,
            tail_started: false,
        };
        write_blocks(self.blocks.iter(), &mut window)?;
        if !window.head_done {
            window.out.write_str(&truncation.marker)?;
        }
        Ok(())
    }
}

pub(super) fn write_blocks<'b, 'a: 'b>(
    blocks: impl Iterator<Item = Cow<'b, Block<'a>>>,
    out: &mut dyn Write,
) -> fmt::Result {
    for (i, block) in blocks.enumerate() {
        if i > 0 {
            out.write_char('\n')?;
        }
        write!(out, "{block}")?;
    }
    Ok(())
}

/// Passes the head and the tail of what is written through, and the marker between them.
struct Window<'o, 't> {
    out: &'o mut dyn Write,
    at: usize,
    truncation: &'t Truncation,
    head_done: bool,
    tail_started: bool,
}

impl Write for Window<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let start = self.at;
        self.at += s.len();
        if !self.head_done {
            let room = self.truncation.head.saturating_sub(start);
            let kept = clip(s, room);
            self.out.write_str(kept)?;
            if kept.len() < s.len() {
                self.head_done = true;
                self.out.write_str(&self.truncation.marker)?;
            } else {
                return Ok(());
            }
        }
        let tail_from = self.truncation.total - self.truncation.tail;
        if self.at <= tail_from {
            return Ok(());
        }
        let mut from = tail_from.saturating_sub(start);
        if self.tail_started {
            from = 0;
        }
        while from < s.len() && !s.is_char_boundary(from) {
            from += 1;
        }
        self.tail_started = true;
        self.out.write_str(&s[from.min(s.len())..])
    }
}

impl ModelView<'_> {
    /// The whole text replaced by the host's notice with a preview of its content as pretty
    /// JSON, or of its text (built once, for a result a host saves: tens of KB).
    pub(super) fn persisted(&self, total: usize, persist: &hosts::Persist) -> Truncation {
        let text = self.text();
        let previewed = match persist.of {
            hosts::PersistOf::ContentJson => {
                let payload = self.payload();
                let content = payload.get("content").unwrap_or(&payload);
                serde_json::to_string_pretty(content).unwrap_or_default()
            }
            hosts::PersistOf::Text => text.clone(),
        };
        // JSON measured as JavaScript counts a string (Claude Code), a text in bytes.
        let size = match persist.of {
            hosts::PersistOf::ContentJson => previewed.encode_utf16().count(),
            hosts::PersistOf::Text => previewed.len(),
        };
        #[allow(clippy::cast_precision_loss)] // a size shown with one decimal
        let kb = size as f64 / 1024.0;
        let mut preview: String = previewed.chars().take(persist.preview).collect();
        // Back to the last newline of the cut, without it (Qwen Code's `generatePreview`).
        if persist.whole_lines
            && preview.len() < previewed.len()
            && let Some(end) = preview.rfind('\n').filter(|end| *end > 0)
        {
            preview.truncate(end);
        }
        // Hashed only for a host that says it.
        let sha256 = if persist.marker.contains("{sha256}") {
            let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
            digest.as_ref().iter().fold(String::new(), |mut hex, byte| {
                let _ = write!(hex, "{byte:02x}");
                hex
            })
        } else {
            String::new()
        };
        let values = [
            ("size", format!("{kb:.1}KB")),
            ("kb", format!("{kb:.1}")),
            // As JavaScript's Math.round: halves up.
            ("kb_rounded", format!("{}", (kb + 0.5).floor())),
            ("preview", preview),
            ("sha256", sha256),
        ];
        let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
        Truncation {
            total,
            head: 0,
            tail: 0,
            marker: hosts::fill_exact(&persist.marker, &values),
            notice: String::new(),
        }
    }
}

/// Counts the lines of what is written (a last line without a newline counts).
#[derive(Default)]
pub(super) struct LineCount {
    newlines: usize,
    open: bool,
}

impl LineCount {
    pub(super) fn lines(&self) -> usize {
        self.newlines + usize::from(self.open)
    }
}

impl Write for LineCount {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.newlines += s.bytes().filter(|b| *b == b'\n').count();
        if !s.is_empty() {
            self.open = !s.ends_with('\n');
        }
        Ok(())
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Collects at most `max` bytes, counting the rest.
pub(super) struct Bounded {
    pub(super) text: String,
    pub(super) max: usize,
    pub(super) omitted: usize,
}

impl Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.max.saturating_sub(self.text.len());
        let kept = if self.omitted == 0 { clip(s, room) } else { "" };
        self.text.push_str(kept);
        self.omitted += s.len() - kept.len();
        Ok(())
    }
}
