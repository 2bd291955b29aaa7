//! `sightline proxy`: between a real host and its server, frames passed on unchanged both ways
//! and each one watched as sightline watches its own sessions; found by `sightline attach`.

pub mod bridge;
pub mod host_pipes;
pub mod install;
pub mod listen;
pub mod observe;
pub mod registry;
pub mod stdio;
pub mod watch;
