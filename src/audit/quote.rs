//! A rule of the spec as a verdict quotes it: its version, where it is written, its words.

use serde::Serialize;

/// A rule of the spec, quoted (the text a verdict cites).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SpecQuote {
    /// The spec version (or standard) the text comes from.
    pub version: &'static str,
    pub source: &'static str,
    pub text: &'static str,
}
