//! One presentation of a session, pure: the words and limits that the TUI and the headless
//! commands share, so the same event reads the same everywhere.

pub mod call;
pub mod limits;
pub mod log;
pub mod nearest;
pub mod prompts;
pub mod resources;
pub mod side_by_side;
