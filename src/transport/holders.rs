//! What Linux `/proc` tells of the server's processes: which hold a pipe open (so that "a
//! process it started still holds its output open" can name it), and whether a process group
//! has a member that is not a zombie. Elsewhere, or without permission, nothing is known.

use std::path::Path;

/// The pipe an open file descriptor of ours is (`pipe:[12345]`), if it is one.
pub fn pipe_of(fd: i32) -> Option<String> {
    let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    let target = target.to_str()?;
    target.starts_with("pipe:").then(|| target.to_owned())
}

/// The other processes with `pipe` open, as `pid (name)`, at most `limit` of them.
pub fn holders(pipe: &str, limit: usize) -> Vec<String> {
    let me = std::process::id().to_string();
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for process in processes.flatten() {
        let pid = process.file_name();
        let Some(pid) = pid
            .to_str()
            .filter(|pid| pid.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if pid == me || !holds(&process.path(), pipe) {
            continue;
        }
        let name = std::fs::read_to_string(process.path().join("comm")).unwrap_or_default();
        found.push(format!("{pid} ({})", name.trim()));
        if found.len() == limit {
            break;
        }
    }
    found
}

/// Whether process group `group` has a member that is not a zombie; `None` where `/proc`
/// cannot tell. (A signal to a group of zombies succeeds, and a zombie whose parent is gone
/// waits for a reaper that may never come: it is nothing to wait for.)
pub fn group_has_live_member(group: i32) -> Option<bool> {
    let processes = std::fs::read_dir("/proc").ok()?;
    let group = group.to_string();
    Some(processes.flatten().any(|process| {
        let pid = process.file_name();
        if !pid
            .to_str()
            .is_some_and(|pid| pid.bytes().all(|b| b.is_ascii_digit()))
        {
            return false;
        }
        let Ok(stat) = std::fs::read_to_string(process.path().join("stat")) else {
            return false;
        };
        // `pid (comm) state ppid pgrp …`; the name may hold spaces and parentheses.
        let fields = stat.rfind(')').map_or("", |end| &stat[end + 1..]);
        let mut fields = fields.split_whitespace();
        let state = fields.next();
        let in_group = fields.nth(1) == Some(group.as_str());
        in_group && !matches!(state, Some("Z" | "X"))
    }))
}

fn holds(process: &Path, pipe: &str) -> bool {
    let Ok(fds) = std::fs::read_dir(process.join("fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .ok()
            .is_some_and(|target| target.to_str() == Some(pipe))
    })
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn a_child_holding_our_pipe_is_named() {
        let mut child = Command::new("sleep")
            .arg("5")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let pipe = pipe_of(stdout.as_raw_fd()).expect("a pipe");
        let found = holders(&pipe, 4);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(found, [format!("{} (sleep)", child.id())]);
    }
}
