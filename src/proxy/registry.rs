//! Where running proxies can be found: one local socket per proxy in the user's runtime
//! directory (mode 0700, the socket 0600: only the same user attaches). A client that connects
//! reads one line — the proxy's pid, server and transcript — and the connection stays open
//! while the proxy runs: its end is the transcript's.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What a proxy says of itself to whoever connects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyInfo {
    pub pid: u32,
    /// The server it stands in for, as a command line or a URL.
    pub server: String,
    /// The transcript it writes as frames pass.
    pub transcript: String,
    /// When it started, in milliseconds since the epoch.
    pub started_ms: u64,
}

/// The directory of proxy sockets: `$XDG_RUNTIME_DIR/sightline`, else `/tmp/sightline-UID`.
pub fn directory() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => Path::new(&dir).join("sightline"),
        None => PathBuf::from(format!("/tmp/sightline-{}", nix::unistd::getuid())),
    }
}

/// Makes the directory, only the user's, refusing one that someone else can enter.
pub fn prepare() -> Result<PathBuf, String> {
    let dir = directory();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    let mode = std::fs::metadata(&dir)
        .map_err(|error| format!("cannot read {}: {error}", dir.display()))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(format!(
            "{} is open to other users (mode {:o}): sightline will not put its sockets there",
            dir.display(),
            mode & 0o777
        ));
    }
    Ok(dir)
}

/// The socket of the proxy with this pid.
pub fn socket_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("proxy-{pid}.sock"))
}

/// Restricts a socket just bound to its owner.
pub fn restrict(path: &Path) -> Result<(), String> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|error| format!("cannot restrict {}: {error}", path.display()))
}

/// A proxy found running, and the connection that says it still is.
pub struct Found {
    pub info: ProxyInfo,
    pub socket: PathBuf,
    pub connection: UnixStream,
}

/// The proxies running now, oldest first. A socket nothing answers on is a proxy that died
/// without cleaning up: it is removed.
pub fn running() -> Vec<Found> {
    let Ok(entries) = std::fs::read_dir(directory()) else {
        return Vec::new();
    };
    let mut found: Vec<Found> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let named = path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("proxy-"));
            named
                && path
                    .extension()
                    .is_some_and(|extension| extension == "sock")
        })
        .filter_map(|socket| {
            let Some((info, connection)) = hello(&socket) else {
                if UnixStream::connect(&socket).is_err() {
                    let _ = std::fs::remove_file(&socket);
                }
                return None;
            };
            Some(Found {
                info,
                socket,
                connection,
            })
        })
        .collect();
    found.sort_by_key(|found| found.info.started_ms);
    found
}

/// Connects to a proxy's socket and reads what it says of itself.
fn hello(socket: &Path) -> Option<(ProxyInfo, UnixStream)> {
    let connection = UnixStream::connect(socket).ok()?;
    connection
        .set_read_timeout(Some(Duration::from_millis(500)))
        .ok()?;
    let mut line = String::new();
    BufReader::new(connection.try_clone().ok()?)
        .take(64 * 1024)
        .read_line(&mut line)
        .ok()?;
    let info = serde_json::from_str(&line).ok()?;
    connection.set_read_timeout(None).ok()?;
    Some((info, connection))
}

/// The line a proxy writes to each client.
pub fn hello_line(info: &ProxyInfo) -> Vec<u8> {
    let mut line = serde_json::to_vec(info).unwrap_or_default();
    line.push(b'\n');
    line
}

/// A transcript followed while its proxy runs: at its end, the reader waits for more until the
/// proxy's connection closes; then the end is the end.
pub struct Following {
    file: std::fs::File,
    proxy: UnixStream,
    running: bool,
}

/// How often a followed transcript is looked at for more.
const FOLLOW_POLL: Duration = Duration::from_millis(50);

impl Following {
    pub fn new(file: std::fs::File, proxy: UnixStream) -> std::io::Result<Self> {
        proxy.set_nonblocking(true)?;
        Ok(Self {
            file,
            proxy,
            running: true,
        })
    }

    /// Whether the proxy still runs: its connection is open (it never writes after hello).
    fn still_running(&mut self) -> bool {
        let mut byte = [0u8; 1];
        match self.proxy.read(&mut byte) {
            Ok(0) => false,
            Ok(_) => true,
            Err(error) => error.kind() == std::io::ErrorKind::WouldBlock,
        }
    }
}

impl Read for Following {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let read = self.file.read(buffer)?;
            if read > 0 || !self.running {
                return Ok(read);
            }
            if !self.still_running() {
                // One last look: what the proxy wrote before it ended.
                self.running = false;
                continue;
            }
            std::thread::sleep(FOLLOW_POLL);
        }
    }
}

/// Writes `hello` to a client and keeps its connection until the proxy ends.
pub fn greet(mut client: UnixStream, hello: &[u8]) -> Option<UnixStream> {
    client.write_all(hello).ok()?;
    Some(client)
}
