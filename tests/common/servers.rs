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
        let url = url.trim().to_owned();
        listening(&url);
        Server { child, url }
    }

    pub fn demo(style: &str) -> Server {
        Server::start(BIN, &["demo-server", "--http", "--style", style])
    }

    /// server-everything in its streamableHttp mode, on a free port.
    pub fn everything() -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("node")
            .arg(&super::peers::everything()[1])
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let url = format!("http://127.0.0.1:{port}/mcp");
        listening(&url);
        Server { child, url }
    }

    pub fn fault(mode: &str) -> Server {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/http_faults.py");
        Server::start("python3", &[script, mode])
    }
}

/// Waits until `url`'s port takes connections: some servers (the Python SDK's) print their
/// URL before they listen.
pub fn listening(url: &str) {
    let address = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(&address).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "{url} never took a connection"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
