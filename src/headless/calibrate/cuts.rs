//! A host's cut of a long result, fitted: the size limit or the saved-file notice that turns
//! each long text the server sent into what the model read, read off the captures, its numbers
//! written as the keys the model view fills.

use serde_json::Value;

use crate::headless::capture::{self, answer_blocks};
use crate::model_view::hosts::{HostProfile, Keep, Limit, Persist, PersistOf};
use crate::model_view::thousands;

/// A text shorter than this is never taken for a cut one (the host's own words may be longer).
const LONG: usize = 4096;
/// How much of the server's text must be found in the host's to call it kept.
const PROBE: usize = 256;
/// How many bytes a kept head is tried shorter than the text the host's shares with the
/// server's.
const BACK_OFF: usize = 4;

/// `profile` without any cut: what the model would read of every result whole.
pub fn uncut(profile: &HostProfile) -> HostProfile {
    HostProfile {
        limit: None,
        persist: None,
        ..profile.clone()
    }
}

/// The long text a capture's server answered with, if it answered one text block of at least
/// `LONG` bytes.
pub fn long_text(got: &Value) -> Option<String> {
    let blocks = answer_blocks(got);
    let [block] = blocks.as_slice() else {
        return None;
    };
    let text = block["text"].as_str().filter(|text| text.len() >= LONG)?;
    (block["type"] == "text").then(|| text.to_owned())
}

/// The cuts that would turn each long text whole into what the host sent: a size limit keeping
/// the head (and the tail) with the host's words between, the whole text replaced by them, or
/// the text saved with a preview. `threshold` is the largest size the host passes whole, when
/// measured; without it the limit is the kept size, a notice's the smallest cut size less one.
pub fn candidates(
    profile: &HostProfile,
    captured: &[&Value],
    threshold: Option<usize>,
) -> Vec<HostProfile> {
    let whole = uncut(profile);
    let cut: Vec<(&Value, String)> = captured
        .iter()
        .filter_map(|got| {
            let text = long_text(got)?;
            let read = got["text"].as_str()?;
            let expected = capture::predicted(got, &whole)?.text;
            (read != expected).then_some((*got, text))
        })
        .collect();
    let smallest = cut.iter().map(|(_, text)| text.len()).min();
    let Some(passes) = threshold.or(smallest.map(|size| size - 1)) else {
        return Vec::new();
    };
    let mut candidates = Vec::new();
    for (got, text) in &cut {
        let read = got["text"].as_str().unwrap_or_default();
        let Some(expected) = capture::predicted(got, &whole).map(|p| p.text) else {
            continue;
        };
        // The host cuts the message it would have sent (Gemini CLI: its wrapper too), or the
        // text before writing it into one.
        let seen = [
            Seen::whole(read, &expected),
            Seen::of(text, read, &expected),
        ];
        let mut kept_some = false;
        for seen in seen.into_iter().flatten() {
            kept_some = true;
            candidates.extend(seen.candidates(profile, threshold, passes));
        }
        if !kept_some {
            let values = limit_values(text.len(), text.lines().count(), 0);
            candidates.push(with_limit(
                profile,
                Limit {
                    bytes: passes,
                    keep: Keep::Replace,
                    marker: keyed(read, &values),
                    head: None,
                    notice: None,
                    then: None,
                },
            ));
        }
    }
    candidates
}

/// A long text as the host cuts it and what the host read of it where it kept some: the
/// host's words before the kept text and the kept text on, as its message writes them
/// (`escaped`: inside a JSON string), and the text as the message would have written it.
struct Seen<'a> {
    text: &'a str,
    escaped: bool,
    notice: &'a str,
    kept: &'a str,
    written: &'a str,
}

impl<'a> Seen<'a> {
    /// `read` as what the host's words and the start of the message it would have sent.
    fn whole(read: &'a str, expected: &'a str) -> Option<Seen<'a>> {
        let start = &expected[..floor_char_boundary(expected, PROBE)];
        let at = read.find(start).filter(|_| !start.is_empty())?;
        Some(Seen {
            text: expected,
            escaped: false,
            notice: &read[..at],
            kept: &read[at..],
            written: expected,
        })
    }

    /// `read` around the text as `expected` has it (the same words before and after), with
    /// the text's start found in it.
    fn of(text: &'a str, read: &'a str, expected: &'a str) -> Option<Seen<'a>> {
        let first = &text[..floor_char_boundary(text, PROBE)];
        let escaped = !expected.contains(first);
        let start = written(first, escaped);
        let end = written(
            &text[ceil_char_boundary(text, text.len().saturating_sub(PROBE))..],
            escaped,
        );
        let from = expected.find(&start)?;
        let to = expected.rfind(&end)? + end.len();
        let (before, after) = (&expected[..from], &expected[to..]);
        let body = read.strip_prefix(before)?.strip_suffix(after)?;
        let at = body.find(&start)?;
        Some(Seen {
            text,
            escaped,
            notice: &body[..at],
            kept: &body[at..],
            written: &expected[from..to],
        })
    }

    /// The cuts for each head and tail the kept text shares with the whole one, and a few
    /// bytes shorter: the host's words may start as the text went on (a newline), or end as
    /// the kept tail starts.
    fn candidates(
        &self,
        profile: &HostProfile,
        threshold: Option<usize>,
        passes: usize,
    ) -> Vec<HostProfile> {
        let mut candidates = Vec::new();
        let common = common_prefix(self.kept, self.written);
        for head in (common.saturating_sub(BACK_OFF)..=common).rev() {
            let Some(rest) = self.kept.get(head..) else {
                continue;
            };
            let common_tail = common_suffix(rest, &self.written[head..]);
            let tails = if common_tail >= PROBE {
                common_tail - BACK_OFF..=common_tail
            } else {
                0..=0
            };
            for tail in tails.rev() {
                if let Some(cut) = self.cut(head, tail) {
                    candidates.extend(cut.candidates(profile, threshold, passes));
                }
            }
        }
        candidates
    }

    /// Keeping `head` and `tail` bytes of the kept text as written, in the text's own bytes.
    fn cut(&self, head: usize, tail: usize) -> Option<Cut<'a>> {
        let kept = self.kept;
        let end = kept.len().checked_sub(tail)?;
        let raw = |piece: &str| unwritten(piece, self.escaped);
        Some(Cut {
            text: self.text,
            head: raw(kept.get(..head)?)?.len(),
            tail: raw(kept.get(end..)?)?.len(),
            notice: raw(self.notice)?,
            between: raw(kept.get(head..end)?)?,
        })
    }
}

/// One way to cut a long text: `head` and `tail` bytes kept, the host's words before and
/// between.
struct Cut<'a> {
    text: &'a str,
    head: usize,
    tail: usize,
    notice: String,
    between: String,
}

impl Cut<'_> {
    /// The limit keeping the head (and the tail), and, with no tail, the saved text with a
    /// preview of the head.
    fn candidates(
        &self,
        profile: &HostProfile,
        threshold: Option<usize>,
        passes: usize,
    ) -> Vec<HostProfile> {
        let (head, tail) = (self.head, self.tail);
        let values = limit_values(self.text.len(), self.text.lines().count(), head + tail);
        let notice = (!self.notice.is_empty()).then(|| keyed(&self.notice, &values));
        let marker = keyed(&self.between, &values);
        if tail > 0 {
            let limit = Limit {
                bytes: head + tail,
                keep: Keep::HeadAndTail,
                marker,
                head: Some(head),
                notice,
                then: None,
            };
            return vec![with_limit(profile, limit)];
        }
        // Measured, the size passed whole may be more than the head kept of a longer text.
        let bytes = threshold.filter(|passes| *passes > head).unwrap_or(head);
        let limit = Limit {
            bytes,
            keep: Keep::Head,
            marker,
            head: (bytes != head).then_some(head),
            notice,
            then: None,
        };
        let values = persist_values(self.text);
        let persist = Persist {
            bytes: passes,
            preview: self.text[..head.min(self.text.len())].chars().count(),
            marker: format!(
                "{}{{preview}}{}",
                keyed(&self.notice, &values),
                keyed(&self.between, &values)
            ),
            of: PersistOf::Text,
            whole_lines: false,
        };
        vec![
            with_limit(profile, limit),
            HostProfile {
                persist: Some(persist),
                ..uncut(profile)
            },
        ]
    }
}

/// A piece of text as a message writes it: as is, or escaped as inside a JSON string.
fn written(piece: &str, escaped: bool) -> String {
    if !escaped {
        return piece.to_owned();
    }
    let quoted = Value::from(piece).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// A written piece back as text; `None` for one cut inside an escape.
fn unwritten(piece: &str, escaped: bool) -> Option<String> {
    if !escaped {
        return Some(piece.to_owned());
    }
    serde_json::from_str(&format!("\"{piece}\"")).ok()
}

fn with_limit(profile: &HostProfile, limit: Limit) -> HostProfile {
    HostProfile {
        limit: Some(limit),
        persist: None,
        ..profile.clone()
    }
}

/// What a limit's marker keys stand for, for a text of `total` bytes and `lines` lines of
/// which `kept` bytes were kept (as `truncation` fills them).
fn limit_values(total: usize, lines: usize, kept: usize) -> Vec<(&'static str, String)> {
    let omitted = total.saturating_sub(kept);
    let mut values = vec![
        ("characters", thousands(total)),
        ("lines", thousands(lines)),
    ];
    // Nothing kept: what was left out is the whole text, said as its size.
    if kept > 0 {
        values.extend([
            ("omitted_thousands", thousands(omitted)),
            ("omitted_tokens", omitted.div_ceil(4).to_string()),
            ("omitted", omitted.to_string()),
        ]);
    }
    values
}

/// What a saved text's notice keys stand for (as `truncation` fills them for `of = "text"`).
fn persist_values(text: &str) -> Vec<(&'static str, String)> {
    #[allow(clippy::cast_precision_loss)] // a size shown with one decimal
    let kb = text.len() as f64 / 1024.0;
    let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    let sha256 = digest.as_ref().iter().fold(String::new(), |mut hex, byte| {
        use std::fmt::Write;
        let _ = write!(hex, "{byte:02x}");
        hex
    });
    vec![
        ("sha256", sha256),
        ("size", format!("{kb:.1}KB")),
        ("kb", format!("{kb:.1}")),
        ("kb_rounded", format!("{}", (kb + 0.5).floor())),
    ]
}

/// `text` with each value written as its `{key}`, longest value first; values of fewer than
/// three characters are left (a "1" or a "10" is more likely the host's own word).
fn keyed(text: &str, values: &[(&'static str, String)]) -> String {
    let mut values: Vec<&(&str, String)> = values
        .iter()
        .filter(|(_, value)| value.len() >= 3)
        .collect();
    values.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
    values
        .into_iter()
        .fold(text.to_owned(), |text, (key, value)| {
            text.replace(value.as_str(), &format!("{{{key}}}"))
        })
}

/// The longest common start of `a` and `b`, in bytes, on a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or_else(|| a.len().min(b.len()), |((at, _), _)| at)
}

/// The longest common end of `a` and `b`, in bytes, on a character boundary.
fn common_suffix(a: &str, b: &str) -> usize {
    a.chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum()
}

fn ceil_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_become_keys_longest_first_and_short_ones_stay() {
        let values = limit_values(80_000, 2_500, 51_199);
        assert_eq!(
            keyed("...28801 bytes truncated (80,000 in 10 parts)", &values),
            "...{omitted} bytes truncated ({characters} in 10 parts)"
        );
        let saved = persist_values(&"x".repeat(400_000));
        assert_eq!(
            keyed("Output too large (390.6 KB, 390.6KB, 391)", &saved),
            "Output too large ({kb} KB, {size}, {kb_rounded})"
        );
    }

    #[test]
    fn common_ends_stop_at_the_first_difference() {
        assert_eq!(common_prefix("abcdé", "abcdéf"), 6);
        assert_eq!(common_prefix("abx", "aby"), 2);
        assert_eq!(common_suffix("xé-end", "yé-end"), 6);
    }
}
