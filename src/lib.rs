//! sightline: a terminal inspector for MCP servers that shows which tool errors reach the model.
//!
//! - [`mcp`]: the protocol, sans I/O (JSON-RPC frames, correlation, eras, payloads).
//! - [`classify`]: the outcome class of an exchange (success, tool error, protocol error,
//!   transport failure). Pure.
//! - [`model_view`]: what the model would see, per host profile. Pure.
//! - [`transport`]: the I/O edge (stdio child processes, Streamable HTTP), reporting events.
//! - [`server_config`]: server entries of `mcp.json`-style files. Pure.
//! - [`time`]: dates and timestamps as text (the UTC calendar, `dd/mm/yyyy`, RFC 3339). Pure.
//! - [`runner`]: the runner of a session: the sans-I/O driver over a transport, its outputs carried out in order.
//! - [`headless`]: the commands without a TUI (`tools`, `call`, `capture`, `audit`, `replay --json`,
//!   `hosts`, `diff`, `auth`), one module each.
//! - [`transcript`]: the transcript format, pure: each session event as a JSON line and back,
//!   secrets redacted. [`recording`]: transcripts on disk (`--record`, `replay`), written as
//!   they happen, read back into the same events.
//! - [`demo_server`]: the built-in SEP-1303 demo server, in both styles and both eras;
//!   [`replay_server`]: a server from a recording. Both serve HTTP on [`http_listener`].
//! - The TUI: [`app`] (state and pure `update`), [`ui`] (pure rendering), [`theme`],
//!   [`input`] (terminal events to actions), [`live_session`] (the client on its own task), [`runtime`] and
//!   [`terminal`] (the impure loop and terminal restoration).

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
pub mod live_session;
pub mod mcp;
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
pub mod stream;
pub mod terminal;
pub mod theme;
pub mod time;
pub mod transcript;
pub mod transport;
pub mod ui;
