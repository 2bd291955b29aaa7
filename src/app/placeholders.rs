//! Where the member values of the request being edited are, pure: Enter puts the cursor on the
//! first, Tab moves to the next. Read from the text as it is now, so edits never leave them
//! stale; a line that is not `"key": value` (broken JSON while typing) is simply skipped.

/// A member value: its line, and the characters to select (a string's inside, without the
/// quotes; an empty container's inside, as an empty range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placeholder {
    pub row: usize,
    pub start: usize,
    pub end: usize,
}

/// Every member value that sits on its own line, top to bottom.
pub fn placeholders(lines: &[String]) -> Vec<Placeholder> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(row, line)| {
            value_in(line).map(|(start, end)| Placeholder { row, start, end })
        })
        .collect()
}

/// The value the cursor is in (or just after), if any.
pub fn at(lines: &[String], (row, column): (usize, usize)) -> Option<Placeholder> {
    let (start, end) = value_in(lines.get(row)?)?;
    (start <= column && column <= end).then_some(Placeholder { row, start, end })
}

/// The next value after `(row, column)`, wrapping around; the previous with `back`.
pub fn step(lines: &[String], at: (usize, usize), back: bool) -> Option<Placeholder> {
    let all = placeholders(lines);
    let after = |p: &&Placeholder| (p.row, p.start) > at;
    let before = |p: &&Placeholder| (p.row, p.end) < at;
    if back {
        all.iter()
            .rev()
            .find(before)
            .or_else(|| all.last())
            .copied()
    } else {
        all.iter().find(after).or_else(|| all.first()).copied()
    }
}

/// The character range of the value on a `"key": value,` line.
fn value_in(line: &str) -> Option<(usize, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let mut at = chars.iter().position(|c| !c.is_whitespace())?;
    if chars[at] != '"' {
        return None;
    }
    at = string_end(&chars, at)?;
    at = skip_space(&chars, at);
    if chars.get(at) != Some(&':') {
        return None;
    }
    let start = skip_space(&chars, at + 1);
    let mut end = chars.len();
    while end > start && (chars[end - 1].is_whitespace() || chars[end - 1] == ',') {
        end -= 1;
    }
    let value = &chars[start..end];
    match value {
        [] | ['{' | '['] => None,
        ['"', .., '"'] if string_end(&chars, start) == Some(end) => Some((start + 1, end - 1)),
        ['{', '}'] | ['[', ']'] => Some((start + 1, start + 1)),
        _ => Some((start, end)),
    }
}

/// Just past the closing quote of the string whose opening quote is at `at`.
fn string_end(chars: &[char], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        match chars.get(i)? {
            '"' => return Some(i + 1),
            '\\' => i += 2,
            _ => i += 1,
        }
    }
}

fn skip_space(chars: &[char], mut at: usize) -> usize {
    while chars.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn values_are_found_on_their_lines_strings_by_their_inside() {
        let text = lines(
            "{\n  \"departureDate\": \"\",\n  \"seats\": 1,\n  \"cabin\": \"economy\",\n  \"tags\": [],\n  \"nested\": {\n    \"a\\\"b\": true\n  },\n  \"é\": null\n}",
        );
        let found: Vec<_> = placeholders(&text)
            .iter()
            .map(|p| (p.row, p.start, p.end))
            .collect();
        assert_eq!(
            found,
            [
                (1, 20, 20),
                (2, 11, 12),
                (3, 12, 19),
                (4, 11, 11),
                (6, 12, 16),
                (8, 7, 11)
            ]
        );
    }

    #[test]
    fn tab_moves_forward_and_back_wrapping_around() {
        let text = lines("{\n  \"a\": \"\",\n  \"b\": 0\n}");
        assert_eq!(step(&text, (0, 0), false).map(|p| p.row), Some(1));
        assert_eq!(step(&text, (1, 8), false).map(|p| p.row), Some(2));
        assert_eq!(step(&text, (2, 9), false).map(|p| p.row), Some(1), "wraps");
        assert_eq!(step(&text, (2, 8), true).map(|p| p.row), Some(1));
        assert_eq!(
            step(&text, (1, 8), true).map(|p| p.row),
            Some(2),
            "wraps back"
        );
        assert_eq!(step(&lines("not json {"), (0, 0), false), None);
        assert_eq!(
            at(&text, (1, 8)).map(|p| p.row),
            Some(1),
            "in the empty string"
        );
        assert_eq!(at(&text, (0, 0)), None);
    }
}
