//! The scripted model (`tests/peers/scripted_model.py`) on a free port, for `sightline agent`.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The scripted model on a free port; stopped when dropped.
pub struct ScriptedModel {
    child: Child,
    pub port: u16,
    log: PathBuf,
    pub dir: PathBuf,
}

impl ScriptedModel {
    pub fn start(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("sightline-agent-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let port_file = dir.join("port");
        let log = dir.join("requests.jsonl");
        let child = Command::new("python3")
            .arg(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/peers/scripted_model.py"),
            )
            .arg(&port_file)
            .arg(&log)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                break text.trim().parse().unwrap();
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the scripted model did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        Self {
            child,
            port,
            log,
            dir,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every request the model was sent, in order.
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
