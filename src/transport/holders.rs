//! Which processes hold a pipe open (Linux `/proc`): so that "a process it started still holds
//! its output open" can name it. Elsewhere, or without permission, nobody is found.

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
