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
    let script = stdout(&["completions", "bash"]);
    let shell = Command::new("bash")
        .args(["--norc", "--noprofile", "-c"])
        .arg(format!(
            "{script}\ncomplete -p sightline\nCOMP_WORDS=(sightline pro); COMP_CWORD=1; \
             _sightline sightline pro sightline; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        ))
        .output()
        .unwrap();
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
