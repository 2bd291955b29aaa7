//! sightline: a terminal inspector for MCP servers that shows which tool errors reach the model.
//!
//! Every top-level module, from the pure core out to the I/O edges (`ARCHITECTURE.md` gives each
//! one's contract and what it may import; `tests/layering.rs` holds both to the code):
//!
//! - The pure core: [`mcp`] (the protocol, sans I/O: frames, correlation, eras, payloads),
//!   [`time`] (dates as text), [`sanitize`] (server text made terminal-safe), [`schema`]
//!   (skeletons and validation from `inputSchema`), [`lint`] (tool definitions clients
//!   mishandle), [`classify`] (the outcome class and
//!   findings of an exchange), [`model_view`] (what the model sees, per host profile),
//!   [`analysis`] (a finished call judged once, for every output), [`audit`] (SEP-1303 cases and verdicts), [`present`]
//!   (the words every output shares), [`driver`] (the session's decisions, sans I/O),
//!   [`transcript`] (the transcript format), [`diff`] (two recordings compared), [`suite`]
//!   (test files and their checks), [`skills`] (SEP-2640 skills: entries, files and frontmatter
//!   checked), [`model_api`]
//!   (the model APIs' requests and turns).
//! - The TUI's core: [`app`] (state and pure `update`), [`input`] (terminal events to actions),
//!   [`config`] (the user's files: keys, hosts, themes), [`theme`], [`ui`] (pure rendering).
//! - The I/O edges: [`stream`] (session events in order, on one bounded channel), [`transport`]
//!   (stdio child processes, Streamable HTTP), [`server_config`] (`mcp.json`-style entries),
//!   [`runner`] (the driver over a transport), [`recording`] (transcripts on disk),
//!   [`http_listener`], [`demo_server`] (the SEP-1303 demo, both styles and eras),
//!   [`replay_server`] (a recording as a server), [`terminal`] (restored, panic included),
//!   [`proxy`] (between a real host and its server), [`live_session`] (the TUI's session on its
//!   own task), [`model_client`] (the model API over HTTP).
//! - The commands: [`cli`] (the command line), [`headless`] (each command without a TUI, one
//!   module each), [`runtime`] (the TUI's loop).

pub mod analysis;
pub mod app;
pub mod audit;
pub mod classify;
pub mod cli;
pub mod config;
pub mod demo_server;
pub mod diff;
pub mod driver;
pub mod headless;
pub mod http_listener;
pub mod input;
pub mod lint;
pub mod live_session;
pub mod mcp;
pub mod model_api;
pub mod model_client;
pub mod model_view;
pub mod present;
pub mod proxy;
pub mod recording;
pub mod replay_server;
pub mod runner;
pub mod runtime;
pub mod sanitize;
pub mod schema;
pub mod server_config;
pub mod skills;
pub mod stream;
pub mod suite;
pub mod terminal;
pub mod theme;
pub mod time;
pub mod transcript;
pub mod transport;
pub mod ui;
