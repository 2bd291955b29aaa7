//! A server's stderr split into lines a read at a time: one string a read, not one allocation
//! a line, so that a server logging millions of short lines is drained as fast as it writes.

use std::fmt::Write as _;

/// Splits stderr as it is read; what a read completes comes back as one `\n`-joined string.
/// Empty lines are dropped (they say nothing), a trailing `\r` is cut, and a line longer than
/// the limit is replaced by a note of its length.
#[derive(Debug)]
pub struct StderrLines {
    /// The line begun by earlier reads and not yet ended.
    partial: Vec<u8>,
    max: usize,
    /// Bytes of an oversized line skipped so far; `Some` until its newline arrives.
    skipping: Option<usize>,
}

impl StderrLines {
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            partial: Vec::new(),
            max: max_line_bytes.max(1),
            skipping: None,
        }
    }

    /// Feeds one read; the lines it completes, joined by `\n` (empty when none).
    pub fn push(&mut self, bytes: &[u8]) -> String {
        let mut out = String::new();
        let Some(first) = memchr::memchr(b'\n', bytes) else {
            self.keep(bytes);
            return out;
        };
        self.keep(&bytes[..first]);
        self.end_partial(&mut out);
        let rest = &bytes[first + 1..];
        let (whole, tail) = match memchr::memrchr(b'\n', rest) {
            Some(last) => (Some(&rest[..last]), &rest[last + 1..]),
            None => (None, rest),
        };
        if let Some(whole) = whole {
            // Cut at newlines, so no character is split: one conversion for all of them.
            let text = String::from_utf8_lossy(whole);
            // Lines wholly inside one read are shorter than the limit; with no empty line and
            // no CR among them the block is kept as it is, without a step a line.
            let plain = whole.len() < self.max
                && whole.first() != Some(&b'\n')
                && memchr::memchr(b'\r', whole).is_none()
                && memchr::memmem::find(whole, b"\n\n").is_none();
            if plain {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&text);
            } else {
                out.reserve(text.len());
                for line in text.split('\n') {
                    self.line(line, &mut out);
                }
            }
        }
        self.keep(tail);
        out
    }

    /// At the end of the stream: the last line, if it had no newline.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        self.end_partial(&mut out);
        out
    }

    fn keep(&mut self, bytes: &[u8]) {
        if let Some(skipped) = &mut self.skipping {
            *skipped += bytes.len();
        } else if self.partial.len() + bytes.len() > self.max {
            self.skipping = Some(self.partial.len() + bytes.len());
            self.partial = Vec::new();
        } else {
            self.partial.extend_from_slice(bytes);
        }
    }

    fn end_partial(&mut self, out: &mut String) {
        if let Some(len) = self.skipping.take() {
            Self::skipped(len, out);
            return;
        }
        let partial = std::mem::take(&mut self.partial);
        self.line(&String::from_utf8_lossy(&partial), out);
    }

    fn line(&self, line: &str, out: &mut String) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.len() > self.max {
            Self::skipped(line.len(), out);
        } else if !line.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(line);
        }
    }

    fn skipped(len: usize, out: &mut String) {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = write!(out, "[a stderr line of {len} bytes was skipped]");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_back_joined_whatever_the_reads_cut() {
        let input = "first\r\n\n\nsecond line\nthird é\nlast";
        for cut in 0..input.len() {
            let mut lines = StderrLines::new(1024);
            let mut got: Vec<String> = Vec::new();
            for part in [&input.as_bytes()[..cut], &input.as_bytes()[cut..]] {
                let text = lines.push(part);
                got.extend(
                    text.split('\n')
                        .filter(|l| !l.is_empty())
                        .map(str::to_owned),
                );
            }
            got.push(lines.finish());
            assert_eq!(
                got,
                ["first", "second line", "third é", "last"],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_line_over_the_limit_is_replaced_by_its_length_and_reading_goes_on() {
        let mut lines = StderrLines::new(8);
        assert_eq!(lines.push(b"short\n0123456789"), "short");
        assert_eq!(
            lines.push(b"abc\nok\n"),
            "[a stderr line of 13 bytes was skipped]\nok"
        );
        assert_eq!(
            lines.push(b"x\n0123456789abc\ny\n"),
            "x\n[a stderr line of 13 bytes was skipped]\ny"
        );
        assert_eq!(lines.finish(), "");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced_not_lost() {
        let mut lines = StderrLines::new(64);
        assert_eq!(lines.push(b"bad \xff byte\n"), "bad \u{fffd} byte");
    }
}
