//! The rest of a written profile, fitted: each setting the error texts do not give (structured
//! content, what each kind of block becomes, the host's own argument check) set to the value
//! under which the profile predicts the most captured cases, judged again without the host.

use serde_json::Value;

use crate::headless::capture::{self, answer_blocks};
use crate::model_view::hosts::{Action, ArgumentCheck, Checks, HostProfile, Structured, Validator};

/// Whether `profile` predicts what the host sent in one capture (`capture --json`).
pub fn predicts(profile: &HostProfile, got: &Value) -> bool {
    capture::Replayed::of(got).is_some_and(|replayed| predicts_replayed(profile, got, &replayed))
}

/// `predicts`, with the capture's exchange judged already.
fn predicts_replayed(profile: &HostProfile, got: &Value, replayed: &capture::Replayed) -> bool {
    let Some(prediction) = replayed.predicted(profile) else {
        return false;
    };
    prediction.server_called == (got["server_called"] == true)
        && prediction.text == got["text"].as_str().unwrap_or_default()
        && got["error_flag"]
            .as_bool()
            .is_none_or(|flag| flag == prediction.is_error)
}

/// How many of `captured` the profile predicts.
pub fn score(profile: &HostProfile, captured: &[&Value]) -> usize {
    captured.iter().filter(|got| predicts(profile, got)).count()
}

/// The profiles to try for one setting: the profile with that setting changed, value by value.
type Candidates = fn(&HostProfile, &[&Value]) -> Vec<HostProfile>;

/// `profile` with each fitted setting at the value that predicts the most of `captured`; on a
/// tie the profile keeps what it had. `threshold` is the largest text the host was measured
/// to pass whole, if it cuts.
pub fn fitted(
    mut profile: HostProfile,
    captured: &[&Value],
    threshold: Option<usize>,
) -> HostProfile {
    // Each capture judged once: hundreds of profiles are tried on them.
    let replayed: Vec<(&Value, capture::Replayed)> = captured
        .iter()
        .filter_map(|got| Some((*got, capture::Replayed::of(got)?)))
        .collect();
    let score = |profile: &HostProfile| {
        replayed
            .iter()
            .filter(|(got, replayed)| predicts_replayed(profile, got, replayed))
            .count()
    };
    let mut best = score(&profile);
    let mut keep = |candidates: Vec<HostProfile>, profile: &mut HostProfile| {
        for candidate in candidates {
            let scored = score(&candidate);
            if scored > best {
                (best, *profile) = (scored, candidate);
            }
        }
    };
    let dimensions: [Candidates; 7] = [
        tool_error, failure, wrapped, structured, blocks, media, checks,
    ];
    for dimension in dimensions {
        keep(dimension(&profile, captured), &mut profile);
    }
    keep(
        super::cuts::candidates(&profile, captured, threshold),
        &mut profile,
    );
    profile
}

/// The keys a tool error's text can hold, each between two marks no text has.
const TOOL_ERROR_KEYS: [&str; 5] = ["result", "content", "arguments", "text", "tool"];

/// The host's words for a tool error (`isError`) as a template: each capture's text with the
/// values the model view gives `{result}`, `{content}`, `{arguments}`, `{text}` and `{tool}`
/// (read by predicting a template of marks) written as those keys, the first found first.
fn tool_error(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    let marks: String = TOOL_ERROR_KEYS
        .iter()
        .enumerate()
        .map(|(at, key)| format!("\u{1}{at}{{{key}}}"))
        .chain(["\u{1}".to_owned()])
        .collect();
    let probe = HostProfile {
        tool_error_text: Some(marks),
        ..profile.clone()
    };
    let mut candidates = Vec::new();
    for got in captured {
        let Some(probed) = capture::predicted(got, &probe) else {
            continue;
        };
        // Not a tool error: the template was not used.
        let values: Vec<&str> = probed.text.split('\u{1}').skip(1).collect();
        if values.len() != TOOL_ERROR_KEYS.len() + 1 {
            continue;
        }
        let mut template = got["text"].as_str().unwrap_or_default().to_owned();
        for (key, value) in TOOL_ERROR_KEYS.iter().zip(&values) {
            let value = value.get(1..).unwrap_or_default();
            if !value.is_empty() {
                template = template.replace(value, &format!("{{{key}}}"));
            }
        }
        candidates.push(HostProfile {
            tool_error_text: Some(template),
            ..profile.clone()
        });
    }
    candidates
}

fn structured(profile: &HostProfile, _: &[&Value]) -> Vec<HostProfile> {
    [
        Structured::Alongside,
        Structured::Ignore,
        Structured::Prefer,
        Structured::WhenContentEmpty,
        Structured::PreferOnSuccess,
        Structured::First,
        Structured::AfterBlankLine,
    ]
    .into_iter()
    .map(|structured| HostProfile {
        structured,
        ..profile.clone()
    })
    .collect()
}

/// The host's words when the server never answered (it exited mid-call): each such capture's
/// text.
fn failure(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    captured
        .iter()
        .filter(|got| got["server_called"] == true && answer(got).is_none())
        .filter_map(|got| Some((got["text"].as_str()?, got["tool"].as_str()?)))
        .flat_map(|(text, tool)| {
            let keyed = if tool.is_empty() {
                text.to_owned()
            } else {
                text.replace(tool, "{tool}")
            };
            [text.to_owned(), keyed]
        })
        .map(|text| HostProfile {
            failure_text: text,
            ..profile.clone()
        })
        .collect()
}

/// The host's words around a text (or an embedded text resource) it passes: each capture of
/// a result of one such block, its text written as `{text}` in what the host sent.
fn wrapped(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    let mut candidates = Vec::new();
    for got in captured {
        let blocks = answer_blocks(got);
        let [block] = blocks.as_slice() else {
            continue;
        };
        let (kind, said) = match block["type"].as_str() {
            Some("text") => ("text", block["text"].as_str()),
            Some("resource") => ("resource", block["resource"]["text"].as_str()),
            _ => continue,
        };
        let (Some(said), Some(read)) = (said, got["text"].as_str()) else {
            continue;
        };
        if said.is_empty() || read == said || read.matches(said).count() != 1 {
            continue;
        }
        let mut candidate = profile.clone();
        match kind {
            "text" => candidate.blocks.text = Action::Placeholder,
            _ => candidate.blocks.resource = Action::Placeholder,
        }
        candidate
            .blocks
            .placeholders
            .insert(kind.to_owned(), read.replacen(said, "{text}", 1));
        candidates.push(candidate);
    }
    candidates
}

/// What audio and an embedded resource become, each on its own (the matrix has each alone):
/// passed (with a caption or not), as JSON, dropped, unwrapped (a resource's text alone) or
/// the host's words.
fn media(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    let mut candidates = Vec::new();
    for kind in ["audio", "resource"] {
        let mut options = block_options(profile, captured, kind);
        // Before the host's words: an embedded text that reads as itself is unwrapped.
        if kind == "resource" {
            options.insert(3, BlockOption::plain(Action::Unwrap));
        }
        for option in options {
            let mut candidate = profile.clone();
            option.apply(&mut candidate, kind);
            candidates.push(candidate);
        }
    }
    candidates
}

/// What an image and a resource link become, together (a capture holding both matches only
/// when both are right): each passed (with a caption or not), as JSON, dropped, or replaced by
/// the host's words, read off each capture whose server answer had such a block.
fn blocks(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    let images = block_options(profile, captured, "image");
    let links = block_options(profile, captured, "resource_link");
    let mut candidates = Vec::new();
    for image in &images {
        for link in &links {
            let mut candidate = profile.clone();
            image.apply(&mut candidate, "image");
            link.apply(&mut candidate, "resource_link");
            candidates.push(candidate);
        }
    }
    candidates
}

/// One thing a block may become: an action, with a placeholder's words or a caption's.
#[derive(Clone)]
struct BlockOption {
    action: Action,
    placeholder: Option<String>,
    caption: Option<String>,
}

impl BlockOption {
    fn plain(action: Action) -> Self {
        Self {
            action,
            placeholder: None,
            caption: None,
        }
    }

    /// `profile` with a `kind` block becoming this.
    fn apply(&self, profile: &mut HostProfile, kind: &str) {
        let blocks = &mut profile.blocks;
        match kind {
            "image" => blocks.image = self.action,
            "resource_link" => blocks.resource_link = self.action,
            "audio" => blocks.audio = self.action,
            _ => blocks.resource = self.action,
        }
        if let Some(words) = &self.placeholder {
            blocks.placeholders.insert(kind.to_owned(), words.clone());
        }
        match &self.caption {
            Some(words) => blocks.captions.insert(kind.to_owned(), words.clone()),
            None => blocks.captions.remove(kind),
        };
    }
}

/// What a `kind` block may become: passed, as JSON, dropped, or for each line of the host's
/// own a capture with such a block shows, that line as its placeholder or as its caption.
fn block_options(profile: &HostProfile, captured: &[&Value], kind: &str) -> Vec<BlockOption> {
    let mut options: Vec<BlockOption> = [Action::Pass, Action::Json, Action::Drop]
        .into_iter()
        .map(BlockOption::plain)
        .collect();
    // With every block but the text dropped, the host's other lines are its words for them.
    let mut dropped = profile.clone();
    dropped.blocks.image = Action::Drop;
    dropped.blocks.resource_link = Action::Drop;
    dropped.blocks.audio = Action::Drop;
    dropped.blocks.resource = Action::Drop;
    for got in captured {
        let Some(block) = answer_blocks(got).into_iter().find(|b| b["type"] == kind) else {
            continue;
        };
        let Some(without) = capture::predicted(got, &dropped) else {
            continue;
        };
        let text = got["text"].as_str().unwrap_or_default();
        for line in text.lines().filter(|line| !without.text.contains(line)) {
            let words = in_block_keys(line, &block);
            let caption = match got["tool"].as_str().filter(|tool| !tool.is_empty()) {
                Some(tool) => words.replace(tool, "{tool}"),
                None => words.clone(),
            };
            options.push(BlockOption {
                placeholder: Some(words),
                ..BlockOption::plain(Action::Placeholder)
            });
            options.push(BlockOption {
                caption: Some(caption),
                ..BlockOption::plain(Action::Pass)
            });
        }
    }
    options
}

/// A line of the host's with the block's string fields as `{key}`s, longest value first.
fn in_block_keys(line: &str, block: &Value) -> String {
    // An embedded resource's keys are its `resource`'s.
    let block = block.get("resource").unwrap_or(block);
    let mut fields: Vec<(&String, &str)> = block
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| key.as_str() != "type")
        .filter_map(|(key, value)| Some((key, value.as_str()?)))
        .filter(|(_, value)| !value.is_empty())
        .collect();
    fields.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
    fields
        .into_iter()
        .fold(line.to_owned(), |line, (key, value)| {
            line.replace(value, &format!("{{{key}}}"))
        })
}

/// The host's own check of the arguments: none, the required ones, or the whole schema, with
/// either validator and the name its messages give the arguments; its words around the
/// validator's read off each capture where the host refused the call itself.
fn checks(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    let base = profile.checks.clone().unwrap_or_else(|| Checks {
        arguments: ArgumentCheck::None,
        invalid_arguments_text: "{error}".to_owned(),
        unknown_tool_text: None,
        validator: Validator::default(),
        tool_name: None,
        tool_order: Vec::new(),
        data_var: "data".to_owned(),
        coerce_types: false,
    });
    let refused: Vec<&&Value> = captured
        .iter()
        .filter(|got| got["server_called"] == false && has_tool(got))
        .collect();
    let mut candidates = Vec::new();
    for arguments in [ArgumentCheck::Required, ArgumentCheck::Schema] {
        for validator in [Validator::Sightline, Validator::Ajv] {
            for (data_var, coerce_types) in ["data", "params", "args", "arguments", "input"]
                .into_iter()
                .flat_map(|name| [(name, false), (name, true)])
            {
                let checks = Checks {
                    arguments,
                    validator,
                    data_var: data_var.to_owned(),
                    coerce_types,
                    invalid_arguments_text: "{error}".to_owned(),
                    ..base.clone()
                };
                let candidate = HostProfile {
                    checks: Some(checks.clone()),
                    ..profile.clone()
                };
                let mut texts = vec!["{error}".to_owned()];
                for got in &refused {
                    let said = got["text"].as_str().unwrap_or_default();
                    let Some(error) = capture::predicted(got, &candidate) else {
                        continue;
                    };
                    if !error.text.is_empty() && said != error.text && said.contains(&error.text) {
                        let tool = got["tool"].as_str().unwrap_or_default();
                        let around = said.replacen(&error.text, "\u{0}", 1);
                        let around = if tool.is_empty() {
                            around
                        } else {
                            around.replace(tool, "{tool}")
                        };
                        texts.push(around.replace('\u{0}', "{error}"));
                    }
                }
                for text in texts {
                    candidates.push(HostProfile {
                        checks: Some(Checks {
                            invalid_arguments_text: text,
                            ..checks.clone()
                        }),
                        ..profile.clone()
                    });
                }
            }
        }
    }
    candidates
}

/// Whether the capture's call names a tool the server listed (an unknown tool is refused by
/// every host, checked or not).
fn has_tool(got: &Value) -> bool {
    let tool = got["tool"].as_str().unwrap_or_default();
    got["exchange"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|frame| serde_json::from_str::<Value>(frame["frame"].as_str()?).ok())
        .filter_map(|frame| frame.get("result")?.get("tools")?.as_array().cloned())
        .flatten()
        .any(|listed| listed["name"] == tool)
}

/// The server's answer to the call (a result or an error), if it sent one.
fn answer(got: &Value) -> Option<Value> {
    let frames: Vec<(u64, Value)> = got["exchange"]
        .as_array()?
        .iter()
        .filter_map(|frame| {
            let session = frame["session"].as_u64().unwrap_or(0);
            Some((
                session,
                serde_json::from_str(frame["frame"].as_str()?).ok()?,
            ))
        })
        .collect();
    let (session, call) = frames
        .iter()
        .find(|(_, frame)| frame["method"] == "tools/call")?;
    frames
        .iter()
        .find(|(at, frame)| {
            at == session && frame.get("method").is_none() && frame["id"] == call["id"]
        })
        .map(|(_, frame)| frame.clone())
}

#[cfg(test)]
pub(super) mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;
    use crate::model_view::hosts;

    /// A capture of `tool` called with `arguments` on a server listing `book_flight`: the host
    /// read `text`, after the server answered `reply` (none: the host never called it).
    pub(in crate::headless::calibrate) fn capture(
        tool: &str,
        arguments: &Value,
        reply: Option<Value>,
        text: &str,
    ) -> Value {
        let schema = json!({"type": "object", "properties": {"date": {"type": "string", "pattern": "^\\d{2}/\\d{2}/\\d{4}$"}}, "required": ["date"]});
        let mut tools = vec![json!({"name": "book_flight", "inputSchema": schema})];
        if tool != "book_flight" {
            tools.push(json!({"name": tool, "inputSchema": {"type": "object"}}));
        }
        let mut frames = vec![
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}),
        ];
        let called = reply.is_some();
        if let Some(reply) = reply {
            frames.push(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}));
            let mut reply = reply;
            reply["jsonrpc"] = json!("2.0");
            reply["id"] = json!(2);
            frames.push(reply);
        }
        let exchange: Vec<Value> = frames
            .iter()
            .enumerate()
            .map(|(at, frame)| {
                let dir = if frame.get("method").is_some() {
                    "send"
                } else {
                    "recv"
                };
                json!({"session": 0, "dir": dir, "ms": at, "frame": frame.to_string()})
            })
            .collect();
        json!({"tool": tool, "arguments": arguments, "exchange": exchange, "server_called": called, "text": text, "error_flag": null})
    }

    #[test]
    fn a_tool_error_s_words_become_a_template_of_the_keys_the_model_view_fills() {
        let arguments = json!({"date": "12/12/2024"});
        let reply = json!({"result": {"content": [{"type": "text", "text": "date in the past"}], "isError": true}});
        let said = r#"Tool 'book_flight' failed with {"date":"12/12/2024"}: date in the past"#;
        let got = capture("book_flight", &arguments, Some(reply), said);
        let fit = fitted(hosts::spec().clone(), &[&got], None);
        assert_eq!(
            fit.tool_error_text.as_deref(),
            Some("Tool '{tool}' failed with {arguments}: {text}")
        );
        assert!(predicts(&fit, &got));
    }

    #[test]
    fn a_host_that_refuses_arguments_itself_gets_the_check_and_the_words_that_predict_it() {
        // What a host checking the schema with Ajv (its arguments named `params`) would say,
        // behind words of its own: the built-in Qwen Code profile's check, reworded.
        let mut target = hosts::resolve("qwen-code", &[]).unwrap();
        target.checks.as_mut().unwrap().invalid_arguments_text =
            "Invalid input for {tool}: {error}".to_owned();
        let mut got = capture("book_flight", &json!({"date": "2099-12-12"}), None, "");
        let said = capture::predicted(&got, &target).unwrap().text;
        assert!(said.starts_with("Invalid input for "), "{said}");
        got["text"] = json!(said);
        let fit = fitted(hosts::spec().clone(), &[&got], None);
        let checks = fit.checks.as_ref().unwrap();
        assert_eq!(checks.arguments, ArgumentCheck::Schema);
        assert_eq!(checks.validator, Validator::Ajv);
        assert_eq!(checks.data_var, "params");
        assert_eq!(
            checks.invalid_arguments_text,
            "Invalid input for {tool}: {error}"
        );
        // The server answered a call it was sent: no check is fitted to that.
        let answered = capture(
            "book_flight",
            &json!({"date": "12/12/2099"}),
            Some(json!({"result": {"content": [{"type": "text", "text": "booked"}]}})),
            "booked",
        );
        let plain = super::fitted(hosts::spec().clone(), &[&answered], None);
        assert_eq!(plain.checks, hosts::spec().checks);
    }

    #[test]
    fn blocks_the_host_drops_or_replaces_are_fitted_together_its_words_with_the_block_s_fields_as_keys()
     {
        let reply = json!({"result": {"content": [
            {"type": "text", "text": "your pass"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///pass.pdf", "name": "pass.pdf"},
        ]}});
        let said = "your pass\nLink: pass.pdf (file:///pass.pdf)";
        let got = capture(
            "book_flight",
            &json!({"date": "12/12/2099"}),
            Some(reply),
            said,
        );
        let fit = fitted(hosts::spec().clone(), &[&got], None);
        // Both at once: neither alone makes the capture's text.
        assert_eq!(fit.blocks.image, Action::Drop);
        assert_eq!(fit.blocks.resource_link, Action::Placeholder);
        assert_eq!(
            fit.blocks
                .placeholders
                .get("resource_link")
                .map(String::as_str),
            Some("Link: {name} ({uri})")
        );
        assert!(predicts(&fit, &got));
    }

    #[test]
    fn a_caption_before_a_block_the_host_passes_is_fitted_with_the_tool_as_a_key() {
        // Gemini CLI's captions, said by its built-in profile, fitted back from a profile
        // without them.
        let gemini = hosts::resolve("gemini-cli", &[]).unwrap();
        let reply = json!({"result": {"content": [
            {"type": "text", "text": "your pass"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        ]}});
        let mut got = capture("host_picture", &json!({}), Some(reply), "");
        let said = capture::predicted(&got, &gemini).unwrap().text;
        assert!(said.contains("[Tool 'host_picture' provided"), "{said}");
        got["text"] = json!(said);
        let mut uncaptioned = gemini.clone();
        uncaptioned.blocks.captions.clear();
        assert!(!predicts(&uncaptioned, &got));
        let fit = fitted(uncaptioned, &[&got], None);
        assert_eq!(fit.blocks.image, Action::Pass);
        assert_eq!(
            fit.blocks.captions.get("image"),
            gemini.blocks.captions.get("image")
        );
        assert!(predicts(&fit, &got));
    }
}
