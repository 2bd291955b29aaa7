//! What an installed sightline ships besides itself: shell completions and a man page, both made
//! from the same command-line definition the parser uses.

#![allow(clippy::unwrap_used)]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

fn stdout(args: &[&str]) -> String {
    let output = Command::new(BIN).args(args).output().unwrap();
    assert!(output.status.success(), "sightline {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn bash_completion_loads_in_a_fresh_shell_and_completes_subcommands() {
    // Sourced from a file, as an installed completion is: the script (137 kB with every
    // command's flags) is longer than one argument may be (128 kB on Linux).
    let script = stdout(&["completions", "bash"]);
    let file =
        std::env::temp_dir().join(format!("sightline-completion-{}.bash", std::process::id()));
    std::fs::write(&file, script).unwrap();
    let shell = Command::new("bash")
        .args(["--norc", "--noprofile", "-c"])
        .arg(format!(
            "source {}\ncomplete -p sightline\nCOMP_WORDS=(sightline pro); COMP_CWORD=1; \
             _sightline sightline pro sightline; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            file.display()
        ))
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    let said = String::from_utf8_lossy(&shell.stdout);
    assert!(shell.status.success(), "{shell:?}");
    assert!(
        said.contains("complete -o bashdefault -o default -o nosort -F _sightline sightline"),
        "{said}"
    );
    assert!(
        said.lines().any(|line| line == "proxy"),
        "`pro` completes to proxy: {said}"
    );
    assert!(
        !said.contains("relay"),
        "the hidden relay is not offered: {said}"
    );
}

#[test]
fn completions_for_the_other_shells_name_the_commands() {
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&["completions", shell]);
        for command in ["audit", "proxy", "attach", "replay"] {
            assert!(script.contains(command), "{shell} completes {command}");
        }
    }
}

#[test]
fn the_man_page_is_roff_with_every_subcommand() {
    let page = stdout(&["man"]);
    assert!(page.contains(".TH sightline 1"), "{page}");
    for command in ["tools", "call", "audit", "proxy", "attach", "completions"] {
        assert!(page.contains(command), "the man page names {command}");
    }
}
