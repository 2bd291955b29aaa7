//! The change shown as a unified diff on stdout, and the user's yes asked on stderr: nothing is
//! written without it.

use std::io::{BufRead, IsTerminal, Write};

/// The unified diff of `before` → `after`, three lines of context, headed by the file.
pub fn diff(shown: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(shown, &format!("{shown} (new)"))
        .to_string()
}

/// Go ahead when `yes`; else ask "Write FILE? [y/N]" on stderr and read the answer from stdin,
/// a terminal: anything but y/yes, or stdin not a terminal, writes nothing.
pub fn confirm(shown: &str, yes: bool) -> Result<(), String> {
    if yes {
        return Ok(());
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(format!(
            "stdin is not a terminal, so nobody can confirm: nothing written to {shown} \
             (--yes writes without asking)"
        ));
    }
    let mut stderr = std::io::stderr();
    let _ = write!(stderr, "Write {shown}? [y/N] ");
    let _ = stderr.flush();
    answered_yes(&mut stdin.lock(), shown)
}

/// The answer read from `input`: y or yes (any case) goes ahead.
fn answered_yes(input: &mut dyn BufRead, shown: &str) -> Result<(), String> {
    let mut line = String::new();
    input
        .read_line(&mut line)
        .map_err(|error| format!("cannot read the answer: {error}"))?;
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Ok(()),
        _ => Err(format!("not confirmed: nothing written to {shown}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_y_or_yes_goes_ahead() {
        for yes in ["y\n", "Y\n", "yes\n", " YES \n"] {
            assert!(answered_yes(&mut yes.as_bytes(), "f").is_ok(), "{yes:?}");
        }
        for no in ["n\n", "\n", "", "yep\n", "no\n"] {
            let refused = answered_yes(&mut no.as_bytes(), "f").unwrap_err();
            assert_eq!(refused, "not confirmed: nothing written to f", "{no:?}");
        }
    }

    #[test]
    fn the_diff_shows_the_changed_lines_in_context() {
        let before = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4,\n  \"e\": 5\n}\n";
        let after = before.replace("\"c\": 3", "\"c\": 30");
        assert_eq!(
            diff("f.json", before, &after),
            "--- f.json\n+++ f.json (new)\n@@ -1,7 +1,7 @@\n {\n   \"a\": 1,\n   \"b\": 2,\n-  \"c\": 3,\n+  \"c\": 30,\n   \"d\": 4,\n   \"e\": 5\n }\n"
        );
    }
}
