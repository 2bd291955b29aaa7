//! The known name nearest a mistyped one, when it is near enough to be a typo.

/// The name of `known` nearest to `word` (the first in order among equals): within two edits,
/// one for a word of four characters or fewer (`bun`, a server's runtime, is not `man`).
pub fn nearest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let near = if word.chars().count() <= 4 { 1 } else { 2 };
    known
        .into_iter()
        .map(|name| (distance(name, word), name))
        .filter(|(edits, _)| *edits <= near)
        .min_by_key(|(edits, _)| *edits)
        .map(|(_, name)| name)
}

/// Edits from `a` to `b`: insert, delete or replace a character, or swap two neighbours (`qiut`
/// is one edit from `quit`).
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // d[i][j]: edits from a's first i characters to b's first j.
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let replaced = d[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = replaced.min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_its_name_and_a_stranger_finds_none() {
        let names = ["call", "audit", "tools", "capture", "man"];
        assert_eq!(nearest("cal", names), Some("call"));
        assert_eq!(nearest("audti", names), Some("audit"));
        assert_eq!(nearest("node", names), None);
        assert_eq!(nearest("bun", names), None);
        assert_eq!(nearest("qiut", ["quit"]), Some("quit"));
        assert_eq!(nearest("server.js", names), None);
    }
}
