//! The README's and docs/'s `console` examples run: each `$ sightline …` line that needs nothing but the
//! built-in demo is run by the built binary, its exit code is the one the README's `echo $?`
//! shows, and every line of output the README shows in full (not cut with `…`, not a JSON
//! frame it abridges) is in what the command printed, times and dates aside.

#![allow(clippy::unwrap_used)] // a panic is a failed test

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

/// One example: its arguments, the lines the README shows after it, the exit code it says.
#[derive(Debug)]
struct Example {
    command: String,
    shown: Vec<String>,
    code: Option<i32>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut last_was_echo = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_console = line == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if line == "$ echo $?" {
            last_was_echo = true;
            continue;
        }
        if last_was_echo {
            last_was_echo = false;
            if let Some(example) = examples.last_mut() {
                example.code = line.trim().parse().ok();
            }
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            examples.push(Example {
                command: command.to_owned(),
                shown: Vec::new(),
                code: None,
            });
        } else if let Some(example) = examples.last_mut() {
            example.shown.push(line.to_owned());
        }
    }
    examples
}

/// The command's words as a shell would split them (single quotes only, as the README uses),
/// without its trailing `# comment`; `None` for one that needs more than the demo (a server of
/// its own, a port, a file elsewhere) or is not sightline.
fn words(command: &str) -> Option<Vec<String>> {
    let runnable = command.starts_with("sightline ")
        && !command.contains('&')
        && !command.contains("--url")
        && !command.contains("--save")
        && !command.contains("subscribe");
    if !runnable {
        return None;
    }
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in command.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                started = true;
            }
            '#' if !quoted && !started => break,
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    Some(words.into_iter().skip(1).collect())
}

/// A line with its times, dates and sizes that vary by run made alike.
fn normalized(line: &str) -> String {
    let mut out = String::new();
    let mut digits = false;
    for c in line.trim_end().chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push('9');
            }
            digits = true;
        } else {
            digits = false;
            out.push(c);
        }
    }
    out
}

/// Whether the README shows this line in full: not cut, not an abridged JSON frame.
fn checkable(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty()
        && !trimmed.contains('…')
        && !trimmed.starts_with(['{', '}', '"', '[', ']'])
        && !line.starts_with(' ')
}

#[test]
fn the_readmes_console_examples_run_and_print_what_it_shows() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let text: String = pages
        .iter()
        .map(|page| std::fs::read_to_string(page).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let examples = examples(&text);
    let mut ran = 0;
    let mut lines_checked = 0;
    let mut untrue = Vec::new();
    for example in &examples {
        let Some(args) = words(&example.command) else {
            continue;
        };
        let output = Command::new(BIN).args(&args).output().unwrap();
        let printed = String::from_utf8_lossy(&output.stdout);
        let printed: Vec<String> = printed.lines().map(normalized).collect();
        assert_ne!(
            output.status.code(),
            Some(2),
            "`{}` is a usage error: {}",
            example.command,
            String::from_utf8_lossy(&output.stderr)
        );
        if let Some(code) = example.code {
            assert_eq!(
                output.status.code(),
                Some(code),
                "`{}` exits as the README says",
                example.command
            );
        }
        for line in example.shown.iter().filter(|line| checkable(line)) {
            let want = normalized(line);
            if !printed.iter().any(|got| got.contains(want.trim())) {
                untrue.push(format!(
                    "`{}` does not print\n  {line}\nit printed:\n{}",
                    example.command,
                    printed.join("\n")
                ));
            }
            lines_checked += 1;
        }
        ran += 1;
    }
    assert!(untrue.is_empty(), "{}", untrue.join("\n\n"));
    assert!(ran >= 10, "only {ran} examples ran");
    assert!(lines_checked >= 20, "only {lines_checked} lines checked");
}

#[test]
fn the_splitter_reads_the_readmes_quoting_and_comments() {
    assert_eq!(
        words(r#"sightline call book_flight '{"departureDate":"12/12/2024"}' --demo legacy"#),
        Some(vec![
            "call".to_owned(),
            "book_flight".to_owned(),
            r#"{"departureDate":"12/12/2024"}"#.to_owned(),
            "--demo".to_owned(),
            "legacy".to_owned(),
        ])
    );
    assert_eq!(
        words("sightline ping --era legacy                     # the round trip, in ms"),
        Some(vec![
            "ping".to_owned(),
            "--era".to_owned(),
            "legacy".to_owned()
        ])
    );
    assert_eq!(words("sightline demo-server --http &"), None);
    assert_eq!(
        normalized("after 12 ms on 29/11/2026"),
        "after 9 ms on 9/9/9"
    );
}
