//! `cuts` against `fit`: each built-in profile's cut, rebuilt from captures the profile
//! itself produced (a test of its own, so neither module imports the other's tests).

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::cuts::uncut;
use super::fit;
use super::fit_tests::capture;
use crate::demo_server::host_cases;
use crate::headless::capture::predicted;
use crate::model_view::hosts::{self, HostProfile};

/// What `target` makes of `long_text` at each size, as captures.
fn captured_by(target: &HostProfile, sizes: &[usize]) -> Vec<Value> {
    sizes
        .iter()
        .map(|size| {
            let text = host_cases::long_text(*size);
            let reply = json!({"result": {"content": [{"type": "text", "text": text}]}});
            let mut got = capture("long_text", &json!({"size": size}), Some(reply), "");
            got["text"] = json!(predicted(&got, target).unwrap().text);
            got
        })
        .collect()
}

/// Fitted from the cut-free profile on `sizes` (the 40, 80 and 400 KB cases and what
/// the search for the threshold captured), the cut is `target`'s.
fn refitted(target: &HostProfile, sizes: &[usize], threshold: usize) -> HostProfile {
    let got = captured_by(target, sizes);
    let got: Vec<&Value> = got.iter().collect();
    let fitted = fit::fitted(uncut(target), &got, Some(threshold));
    assert!(got.iter().all(|got| fit::predicts(&fitted, got)));
    fitted
}

#[test]
fn a_kept_head_one_byte_short_of_what_passes_whole_is_fitted_with_its_words_keyed() {
    let mut opencode = hosts::resolve("opencode", &[]).unwrap();
    let limit = opencode.limit.as_mut().unwrap();
    (limit.bytes, limit.head) = (51_200, Some(51_199));
    let fitted = refitted(
        &opencode,
        &[40_000, 51_200, 51_201, 80_000, 200_000],
        51_200,
    );
    assert_eq!(fitted.limit, opencode.limit);
    assert!(fitted.persist.is_none());
}

#[test]
fn a_head_and_tail_behind_a_notice_is_fitted() {
    let gemini = hosts::resolve("gemini-cli", &[]).unwrap();
    let fitted = refitted(&gemini, &[40_000, 40_001, 80_000], 40_000);
    assert_eq!(fitted.limit, gemini.limit);
}

#[test]
fn a_text_replaced_by_the_host_s_notice_is_fitted_with_its_counts_keyed() {
    // Claude Code's limit alone: its saved-file notice before it (a preview of the
    // content as JSON, a second threshold) is not fitted.
    let mut claude = hosts::resolve("claude-code", &[]).unwrap();
    claude.persist = None;
    let fitted = refitted(&claude, &[100_001, 100_002, 200_000], 100_001);
    assert_eq!(fitted.limit, claude.limit);
}

#[test]
fn a_saved_text_with_a_preview_is_fitted_as_persist() {
    let copilot = hosts::resolve("copilot-cli", &[]).unwrap();
    let fitted = refitted(&copilot, &[20_480, 20_481, 40_000, 200_000], 20_480);
    assert_eq!(fitted.persist, copilot.persist);
    assert!(fitted.limit.is_none());
}
