//! The rest of a written profile, fitted: each setting the error texts do not give (structured
//! content, what each kind of block becomes, the host's own argument check) set to the value
//! under which the profile predicts the most captured cases, judged again without the host.

use serde_json::Value;

use crate::headless::capture::{self, answer_blocks};
use crate::model_view::hosts::{
    Abort, Action, ArgumentCheck, Checks, HostProfile, Structured, Validator,
};

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
    let dimensions: [Candidates; 8] = [
        tool_error, failure, wrapped, structured, blocks, audio, resource, checks,
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

/// `text` without the profile's `call_prefix` and the newline after it, where it starts so.
fn without_call_prefix<'a>(profile: &HostProfile, text: &'a str) -> &'a str {
    profile
        .call_prefix
        .as_deref()
        .and_then(|prefix| text.strip_prefix(prefix)?.strip_prefix('\n'))
        .unwrap_or(text)
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
/// text, with the tool's name as `{tool}` or not; where the model read nothing, the run ends.
fn failure(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    let died: Vec<&&Value> = captured
        .iter()
        .filter(|got| got["server_called"] == true && answer(got).is_none())
        .collect();
    let mut candidates: Vec<HostProfile> = died
        .iter()
        .filter_map(|got| Some((got["text"].as_str()?, got["tool"].as_str()?)))
        // The host's lines before every call are the profile's already.
        .map(|(text, tool)| (without_call_prefix(profile, text), tool))
        .flat_map(|(text, tool)| [text.to_owned(), with_tool_key(text, tool)])
        .map(|text| HostProfile {
            failure_text: text,
            ..profile.clone()
        })
        .collect();
    // A host whose run ends when its server does: the model reads nothing.
    if died.iter().any(|got| got["text"].is_null())
        && !profile.aborts_run_on.contains(&Abort::NoReply)
    {
        let mut ends = profile.clone();
        ends.aborts_run_on.push(Abort::NoReply);
        candidates.push(ends);
    }
    candidates
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

/// What audio becomes: passed (with a caption or not), as JSON, dropped, failed on, or the
/// host's words.
fn audio(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    alone(profile, captured, "audio", Vec::new())
}

/// What an embedded resource becomes: as audio, or unwrapped (its text alone).
fn resource(profile: &HostProfile, captured: &[&Value]) -> Vec<HostProfile> {
    alone(
        profile,
        captured,
        "resource",
        vec![BlockOption::plain(Action::Unwrap)],
    )
}

/// A `kind` the matrix has alone in an answer, fitted on its own: each of its options, then
/// `more` (tried before the host's words).
fn alone(
    profile: &HostProfile,
    captured: &[&Value],
    kind: &str,
    more: Vec<BlockOption>,
) -> Vec<HostProfile> {
    let mut options = block_options(profile, captured, kind);
    let plain = options
        .iter()
        .take_while(|o| o.placeholder.is_none() && o.caption.is_none());
    let at = plain.count();
    options.splice(at..at, more);
    options
        .into_iter()
        .map(|option| {
            let mut candidate = profile.clone();
            option.apply(&mut candidate, kind);
            candidate
        })
        .collect()
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
    /// A block the host fails on ends the run (`aborts_run_on` host-error).
    ends_run: bool,
    /// The caption in the block's place, the placeholder after every other block.
    placeholder_last: bool,
}

impl BlockOption {
    fn plain(action: Action) -> Self {
        Self {
            action,
            placeholder: None,
            caption: None,
            ends_run: false,
            placeholder_last: false,
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
        if self.placeholder_last {
            blocks.placeholders_last = true;
        }
        if self.ends_run && !profile.aborts_run_on.contains(&Abort::HostError) {
            profile.aborts_run_on.push(Abort::HostError);
        }
    }
}

/// What a `kind` block may become: passed, as JSON, dropped, failed on (the run ending with
/// it or not), or for each line of the host's own a capture with such a block shows, that
/// line as its placeholder or as its caption.
fn block_options(profile: &HostProfile, captured: &[&Value], kind: &str) -> Vec<BlockOption> {
    let mut options: Vec<BlockOption> = [Action::Pass, Action::Json, Action::Drop, Action::Throw]
        .into_iter()
        .map(BlockOption::plain)
        .collect();
    options.push(BlockOption {
        ends_run: true,
        ..BlockOption::plain(Action::Throw)
    });
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
        let tool = got["tool"].as_str().unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .filter(|line| !without.text.contains(line))
            .collect();
        for (at, line) in lines.iter().enumerate() {
            let words = in_block_keys(line, &block);
            options.push(BlockOption {
                placeholder: Some(words.clone()),
                ..BlockOption::plain(Action::Placeholder)
            });
            options.push(BlockOption {
                caption: Some(with_tool_key(&words, tool)),
                ..BlockOption::plain(Action::Pass)
            });
            // A caption in its place and the placeholder after all else (Qwen Code's image).
            for later in &lines[at + 1..] {
                options.push(BlockOption {
                    placeholder: Some(in_block_keys(later, &block)),
                    caption: Some(with_tool_key(&words, tool)),
                    placeholder_last: true,
                    ..BlockOption::plain(Action::Placeholder)
                });
            }
        }
    }
    options
}

/// `words` with the tool's name as `{tool}`.
fn with_tool_key(words: &str, tool: &str) -> String {
    if tool.is_empty() {
        words.to_owned()
    } else {
        words.replace(tool, "{tool}")
    }
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
    let mut own = Vec::new();
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
                    // A host that says a sentence of its own, not the validator's words: tried
                    // after every check whose words it holds.
                    if !said.is_empty() && !said.contains(&error.text) {
                        own.push(HostProfile {
                            checks: Some(Checks {
                                invalid_arguments_text: said.to_owned(),
                                ..checks.clone()
                            }),
                            ..profile.clone()
                        });
                    }
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
    candidates.extend(own);
    candidates
}

/// Whether the capture's call names a tool the server listed (an unknown tool is refused by
/// every host, checked or not).
fn has_tool(got: &Value) -> bool {
    let tool = got["tool"].as_str().unwrap_or_default();
    capture::exchange_frames(got)
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
