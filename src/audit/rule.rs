//! A rule of the spec as a verdict cites it: its version, where it is written, its words.

use serde::Serialize;

/// A rule of the spec, quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// The spec version (or standard) the text comes from.
    pub version: &'static str,
    pub source: &'static str,
    pub text: &'static str,
}
