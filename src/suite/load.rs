//! A case run under load, reported: percentiles, a histogram, throughput, the count per class.

use std::collections::BTreeMap;

use serde::Serialize;

use super::class_name;
use crate::classify::Class;

/// A case run under load: how many calls, how fast, how long each took, and what came.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadReport {
    pub calls: usize,
    pub concurrency: usize,
    pub elapsed_ms: u64,
    /// Calls finished per second, over the whole run.
    pub per_second: f64,
    pub p50_ms: u64,
    pub p90_ms: u64,
    pub p99_ms: u64,
    pub max_ms: u64,
    /// Calls per class, every class named.
    pub classes: BTreeMap<&'static str, usize>,
    /// Calls whose answer broke the case's expectations.
    pub failed_expectations: usize,
    /// Latency buckets: calls that took at most `le_ms` (the last bucket has none: the rest).
    pub histogram: Vec<Bucket>,
}

/// One bucket of [`LoadReport::histogram`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bucket {
    pub le_ms: Option<u64>,
    pub calls: usize,
}

/// Bucket bounds, in milliseconds.
const BOUNDS: [u64; 12] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

/// The report of a load run: each call's milliseconds and class, and whether it broke the
/// case's expectations.
pub fn load_report(
    calls: &[(u64, Class, bool)],
    concurrency: usize,
    elapsed_ms: u64,
) -> LoadReport {
    let mut latencies: Vec<u64> = calls.iter().map(|(ms, ..)| *ms).collect();
    latencies.sort_unstable();
    let at = |share: f64| -> u64 {
        if latencies.is_empty() {
            return 0;
        }
        // Nearest rank: the smallest latency at least `share` of the calls do not exceed.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let rank = ((share * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len());
        latencies[rank - 1]
    };
    let mut classes: BTreeMap<&'static str, usize> = [
        Class::Success,
        Class::ToolError,
        Class::ProtocolError,
        Class::TransportFailure,
    ]
    .into_iter()
    .map(|class| (class_name(class), 0))
    .collect();
    for (_, class, _) in calls {
        *classes.entry(class_name(*class)).or_default() += 1;
    }
    let mut histogram: Vec<Bucket> = BOUNDS
        .iter()
        .map(|bound| Bucket {
            le_ms: Some(*bound),
            calls: 0,
        })
        .chain(std::iter::once(Bucket {
            le_ms: None,
            calls: 0,
        }))
        .collect();
    for ms in &latencies {
        let bucket = BOUNDS
            .iter()
            .position(|bound| ms <= bound)
            .unwrap_or(BOUNDS.len());
        histogram[bucket].calls += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let per_second = if elapsed_ms == 0 {
        0.0
    } else {
        calls.len() as f64 * 1000.0 / elapsed_ms as f64
    };
    LoadReport {
        calls: calls.len(),
        concurrency,
        elapsed_ms,
        per_second,
        p50_ms: at(0.50),
        p90_ms: at(0.90),
        p99_ms: at(0.99),
        max_ms: latencies.last().copied().unwrap_or(0),
        classes,
        failed_expectations: calls.iter().filter(|(.., failed)| *failed).count(),
        histogram,
    }
}
