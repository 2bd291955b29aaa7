//! Server processes for the end-to-end tests: anything that prints its URL on the first line
//! of stdout (the demo server over HTTP, `tests/peers/http_faults.py`), killed on drop.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

/// A server process printing its URL on the first line of stdout; killed on drop.
pub struct Server {
    child: Child,
    pub url: String,
}

impl Server {
    pub fn start(program: &str, args: &[&str]) -> Server {
        let mut child = Command::new(program)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
        Server {
            child,
            url: url.trim().to_owned(),
        }
    }

    pub fn demo(style: &str) -> Server {
        Server::start(BIN, &["demo-server", "--http", "--style", style])
    }

    pub fn fault(mode: &str) -> Server {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/http_faults.py");
        Server::start("python3", &[script, mode])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
