//! `sightline audit`, pure: a plan of deliberately invalid calls from each tool's schema, a
//! verdict per answer against the spec version in force, and the report in every format.

pub mod answer;
mod base;
pub mod plan;
mod quote;
pub mod report;
mod sarif;
pub mod unknown_tool;
pub mod verdict;

pub use plan::{Case, CaseKind, Options, Plan, plan};
pub use report::{Baseline, CaseResult, Report};
pub use verdict::{Consequence, HostConsequence, Judged, Verdict, judge};

#[cfg(test)]
mod tests;
