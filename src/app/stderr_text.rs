//! The server's stderr as the TUI keeps it: one growing text, each line found from a sparse
//! mark before it, so a flood of tiny lines costs little more than its bytes.

use crate::mcp::Timestamp;

/// The server's stderr as one growing text, each line ended by `\n` (sanitised text holds none
/// of its own): a flood of tiny lines costs little more than its bytes. A line is found from the
/// mark before it, a scan of under [`MARK_BYTES`]; a table of every line's end cost 4 bytes a
/// line, twice the 2-byte lines of a flood. Lines are numbered from 0, in the order they came.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StderrText {
    text: String,
    /// Lines kept.
    lines: u32,
    /// (line, where it starts in `text`), every [`MARK_LINES`] lines or [`MARK_BYTES`] bytes,
    /// whichever comes first.
    marks: Vec<(u32, u32)>,
    /// When lines came: the first line of each new arrival time, and that time.
    times: Vec<(u32, Timestamp)>,
}

/// A stderr line's start is marked at least every this many lines…
const MARK_LINES: u32 = 64;
/// …and every this many bytes.
const MARK_BYTES: usize = 4096;

impl StderrText {
    /// Adds a line (sanitised); its number, or `None` once 4 GiB are kept (then lines are
    /// dropped).
    pub fn push(&mut self, line: &str, at: Timestamp) -> Option<u32> {
        let number = self.lines;
        let safe = crate::sanitize::text(line);
        let start = self.text.len();
        u32::try_from(start + safe.len() + 1).ok()?;
        let lines = number.checked_add(1)?;
        let marked = self.marks.last().is_some_and(|&(first, offset)| {
            number - first < MARK_LINES && start - (offset as usize) < MARK_BYTES
        });
        if !marked {
            // Within u32: checked above.
            self.marks.push((number, u32::try_from(start).ok()?));
        }
        self.text.push_str(&safe);
        self.text.push('\n');
        self.lines = lines;
        if self.times.last().is_none_or(|&(_, time)| time != at) {
            self.times.push((number, at));
        }
        Some(number)
    }

    /// Line `number`, terminal-safe ("" past the end).
    pub fn line(&self, number: u32) -> &str {
        if number >= self.lines {
            return "";
        }
        let after = self.marks.partition_point(|&(first, _)| first <= number);
        let Some(&(first, offset)) = after.checked_sub(1).and_then(|at| self.marks.get(at)) else {
            return "";
        };
        let bytes = self.text.as_bytes();
        let from = offset as usize;
        let start = match (number - first).checked_sub(1) {
            None => from,
            Some(skip) => memchr::memchr_iter(b'\n', bytes.get(from..).unwrap_or_default())
                .nth(skip as usize)
                .map_or(bytes.len(), |end| from + end + 1),
        };
        let end = memchr::memchr(b'\n', bytes.get(start..).unwrap_or_default())
            .map_or(bytes.len(), |end| start + end);
        self.text.get(start..end).unwrap_or_default()
    }

    /// When line `number` came.
    pub fn time(&self, number: u32) -> Timestamp {
        let after = self.times.partition_point(|&(first, _)| first <= number);
        after
            .checked_sub(1)
            .and_then(|at| self.times.get(at))
            .map_or(Timestamp::default(), |&(_, time)| time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line comes back as it was kept, around the marks (by count and by bytes), an
    /// empty line and an unsafe one included.
    #[test]
    fn each_stderr_line_comes_back_whatever_marks_are_near_it() {
        let mut stderr = StderrText::default();
        let mut kept = Vec::new();
        for n in 0..1000u32 {
            let line = match n % 7 {
                0 => String::new(),
                1 => "y".repeat(1500),
                2 => "bell \u{7} here".to_owned(),
                _ => format!("line {n}"),
            };
            assert_eq!(stderr.push(&line, Timestamp(u64::from(n / 10))), Some(n));
            kept.push(crate::sanitize::text(&line).into_owned());
        }
        for (n, line) in kept.iter().enumerate() {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            assert_eq!(stderr.line(n), line, "line {n}");
            assert_eq!(stderr.time(n), Timestamp(u64::from(n / 10)));
        }
        assert_eq!(stderr.line(1000), "");
        assert!(
            stderr.marks.len() < 1000 / 4,
            "{} marks",
            stderr.marks.len()
        );
    }
}
