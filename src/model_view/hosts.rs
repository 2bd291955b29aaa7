//! Host profiles as data: how a host turns a tool result into its model's input. The built-ins
//! are the files under `hosts/`, each citing the code it was read from; user profiles use the
//! same schema, and a bad file is an error naming the file, line and key.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// What a host does with `structuredContent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Structured {
    /// The content blocks; the structured value too when no text block already carries it.
    #[default]
    Alongside,
    /// The content blocks only.
    Ignore,
    /// The structured value when present, else the content blocks.
    Prefer,
    /// The structured value (as JSON text) only when `content` is empty.
    WhenContentEmpty,
    /// The structured value alone when present and the result is not an error.
    PreferOnSuccess,
    /// The structured value as compact JSON before the content blocks, unless a text block is
    /// exactly that JSON (Qwen Code).
    First,
    /// The structured value as compact JSON after the content blocks and a blank line, unless a
    /// text block is exactly that JSON (Copilot CLI).
    AfterBlankLine,
}

/// What the host's MCP client does, after the server answered, with the result of a tool that
/// declares an `outputSchema` (the client's own check, before the host sees the result).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputCheck {
    /// No check: the result goes on as the server sent it.
    #[default]
    None,
    /// The MCP TypeScript SDK's `Client.callTool` (1.20.2 and 1.32.2, run by
    /// `tests/audit_checks.rs`): a success without `structuredContent` throws `McpError` -32600;
    /// `structuredContent` that breaks the schema throws `McpError` -32602, on an `isError`
    /// result too. The host gets the error as it gets a protocol error.
    TypescriptSdk,
    /// The MCP Python SDK's `ClientSession.call_tool` (1.30.0 and 2.3.0, run by
    /// `tests/audit_checks.rs`): on a success only, no `structuredContent` or one that breaks the
    /// schema raises `RuntimeError`; `isError` results pass unchecked. Modelled as the host's
    /// handling of a protocol error (its failure text, or the end of its run).
    PythonSdk,
}

/// The shape of the message a host sends to its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// A neutral tool-result block: `{type, is_error, content: [...]}` with the MCP blocks.
    #[default]
    Generic,
    /// A `tool_result` content block (the Anthropic Messages API).
    AnthropicMessages,
    /// A `role: tool` message: a string or text parts (`OpenAI` Chat Completions).
    OpenaiChat,
    /// A `function_call_output` item: a string or input parts (the `OpenAI` Responses API).
    OpenaiResponses,
    /// A Gemini `functionResponse` part, `{output}` or `{error}`, as Gemini CLI builds it
    /// (`convertToFunctionResponse`): the text parts joined in one string, images after it as
    /// parts of their own, and audio and video left out with a notice first.
    GeminiFunctionResponse,
}

/// What a host does with one kind of content block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Sent as what it is: text as text, an image as an image.
    #[default]
    Pass,
    /// Sent as text holding the block's JSON.
    Json,
    /// Replaced by a short text the host writes.
    Placeholder,
    /// Left out.
    Drop,
    /// The host fails on it: the model sees the host's error, not the result.
    Throw,
    /// An embedded resource sent as the text it holds, alone (no URI, no MIME type); one
    /// holding a blob fares as `pass`. Other blocks: as `pass`.
    Unwrap,
}

/// What a host does with each kind of content block.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Blocks {
    #[serde(default)]
    pub text: Action,
    #[serde(default)]
    pub image: Action,
    #[serde(default)]
    pub audio: Action,
    #[serde(default)]
    pub resource_link: Action,
    /// Embedded resources.
    #[serde(default)]
    pub resource: Action,
    /// The image MIME types a passed image may have; the host fails on others. Absent: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_types: Option<Vec<String>>,
    /// The same for embedded resources: exact types, `text/*`-style prefixes, and `""` for a
    /// resource without a MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_types: Option<Vec<String>>,
    /// The host's own words for a block it replaces (`placeholder`), by block type: `{name}`,
    /// `{uri}`, `{mimeType}`… are the block's string fields (an embedded resource's are its
    /// `resource`'s). A type without one gets sightline's short label.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub placeholders: BTreeMap<String, String>,
    /// The host's words before a block it passes (`pass`), by block type: the same `{key}`s
    /// as `placeholders`, and `{tool}` (the tool's name on the server).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub captions: BTreeMap<String, String>,
    /// A block with both a placeholder and a caption: the caption in its place, the
    /// placeholder after every other block, a part of its own (Qwen Code: its caption in the
    /// text, "[image: MIME]" after it).
    #[serde(default, skip_serializing_if = "is_false")]
    pub placeholders_last: bool,
    /// How a block sent as JSON text (`json`) is written.
    #[serde(default, skip_serializing_if = "is_default")]
    pub json_style: JsonStyle,
}

/// How a host writes a block it sends as JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JsonStyle {
    /// The block as the server wrote it, compact.
    #[default]
    Wire,
    /// As the MCP Python SDK's `model_dump_json()`: its field order, `snake_case`, nulls.
    PythonSdk,
    /// As the Vercel AI SDK's MCP client writes it: its schemas' keys first, in their order,
    /// then the others as received (`JSON.stringify` of what zod parsed).
    AiSdk,
    /// As a Rust host writes it from the `rmcp` SDK's types (Codex): `type` first, then each
    /// type's fields in its struct's order, then the others as received.
    Rmcp,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// Which part of a too-long result a host keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Keep {
    Head,
    Tail,
    /// The head and the tail; the middle is dropped.
    #[default]
    HeadAndTail,
    /// Nothing: the whole text is replaced by the marker (a host that saves a long result to
    /// a file and tells the model where it is).
    Replace,
}

/// A host's size limit on what the model reads of one result.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    /// Bytes of the result's text kept, at most.
    pub bytes: usize,
    #[serde(default)]
    pub keep: Keep,
    /// What stands where text was cut; `{omitted}` is the number of bytes left out
    /// (`{omitted_thousands}` with thousands separators, `{omitted_tokens}` as tokens of 4
    /// bytes, rounded up), `{characters}` and `{lines}` the size of the whole text (with
    /// thousands separators).
    #[serde(default = "default_marker")]
    pub marker: String,
    /// For `head-and-tail`: bytes kept from the start (the rest of `bytes` from the end).
    /// Absent: half. For `head`: the bytes kept of a longer text, when fewer than `bytes`
    /// (opencode passes 51,200 bytes whole and keeps 51,199 of more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<usize>,
    /// What the host writes before the text it kept, when it cuts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// A second limit the host applies to what this one left (its marker included), or to the
    /// whole text when this one did not cut it (Codex cuts twice). Its `head` and `tail` must
    /// not exceed this one's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<Box<Limit>>,
}

fn default_marker() -> String {
    "[… {omitted} bytes omitted …]".to_owned()
}

/// A host that keeps a long result in a file and shows its model a preview (Claude Code).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Persist {
    /// The result's text may have this many bytes (characters, for ASCII) before it is saved.
    pub bytes: usize,
    /// How many characters of the preview: the host's content for the model as pretty JSON
    /// (two-space indent), or its text (`of`), cut there.
    pub preview: usize,
    /// What the model reads instead: `{size}` is what is previewed's length in KB (the JSON
    /// in UTF-16 units, as JavaScript counts it; a text in bytes) with one decimal and the
    /// unit ("50.4KB"), `{kb}` the number alone ("50.4"), `{kb_rounded}` it rounded ("50");
    /// `{preview}` its first `preview` characters; `{sha256}` the SHA-256 of the text, in hex.
    pub marker: String,
    /// What is measured and previewed: the content as pretty JSON (Claude Code), or the text.
    #[serde(default, skip_serializing_if = "is_default")]
    pub of: PersistOf,
    /// The preview keeps whole lines only: cut back to the last newline, without it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub whole_lines: bool,
}

/// What a host that saves a long result measures and previews.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PersistOf {
    /// The host's content for its model as pretty JSON (two-space indent).
    #[default]
    ContentJson,
    /// The result's text, as the model would have read it.
    Text,
}

/// Where a profile was taken from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub repository: String,
    /// The files read, with their lines.
    pub files: Vec<String>,
    /// The release or commit read.
    pub version: String,
    /// The date the code was read.
    pub checked: String,
    /// Calibrated against the real host by `sightline capture` (tests/hosts.rs), not only read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub captured: bool,
}

const DEFAULT_FAILURE_TEXT: &str = "Error: the tool call failed.";

/// How much of the `inputSchema` a host checks itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArgumentCheck {
    /// Nothing: the arguments go to the server as the model wrote them.
    #[default]
    None,
    /// Only that the top-level `required` properties are there.
    Required,
    /// The whole schema.
    Schema,
}

/// What a host checks itself before it calls the server. Profiles calibrated against a real
/// host have them; the generic profiles do not (sightline shows the server's answer).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Checks {
    /// What of the arguments the host checks against the tool's `inputSchema` before it calls
    /// the server; arguments that fail are refused there.
    #[serde(default)]
    pub arguments: ArgumentCheck,
    /// What the model reads when the host refuses the arguments: `{tool}` is the tool's name,
    /// `{error}` the validator's first complaint.
    #[serde(default = "default_failure_text")]
    pub invalid_arguments_text: String,
    /// What the model reads when it calls a tool the host did not list (`{tool}`; `{tools}`
    /// is the names of the tools it did list, joined by ", "; `{host_tools}` the same by the
    /// host's names for them, `tool_name`, sorted); absent: the host fails the
    /// whole run, and the model reads nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_tool_text: Option<String>,
    /// Whose validator the host checks the arguments with: which error it reports, in which
    /// words. With `ajv`, `{error}` is what Ajv's `errorsText` says.
    #[serde(default, skip_serializing_if = "is_default")]
    pub validator: Validator,
    /// The host's name for a server tool (`{tool}`), for `{did_you_mean}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// All the host's tools in its registry's order, `{server_tools}` standing for the
    /// server's: `unknown_tool_text`'s `{did_you_mean}` picks the nearest names among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_order: Vec<String>,
    /// With `ajv`: the name its messages give the arguments (`errorsText`'s `dataVar`).
    #[serde(
        default = "default_data_var",
        skip_serializing_if = "is_default_data_var"
    )]
    pub data_var: String,
    /// With `ajv`: Ajv's `coerceTypes`: a value of another scalar type than the schema's is
    /// turned into it first (a number into its text), then checked.
    #[serde(default, skip_serializing_if = "is_false")]
    pub coerce_types: bool,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_false(value: &bool) -> bool {
    !*value
}

fn default_data_var() -> String {
    "data".to_owned()
}

fn is_default_data_var(name: &str) -> bool {
    name == "data"
}

/// A validator whose choice and words of errors a host's check has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Validator {
    /// sightline's (the `jsonschema` crate): its first complaint, in its words.
    #[default]
    Sightline,
    /// Ajv 8 without `allErrors` (JavaScript hosts): the error it stops at, in its words.
    Ajv,
}

/// What can end a host's whole run instead of reaching the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Abort {
    /// A JSON-RPC error from the server (the host re-raises it; no MAY, no failure text).
    ProtocolError,
    /// A block the host fails on (`throw`, or a MIME type it refuses): no `host_error_text`.
    HostError,
    /// No reply (the server exited, or the call timed out): the host re-raises its client's
    /// error (an MCP SDK's "Connection closed"); no `failure_text`.
    NoReply,
}

/// A host that sends a result's parts as one text, their JSON array (as `JSON.stringify` of
/// its own parts writes it): each part is its kind's template, whose `{key}`s are filled
/// with JSON strings, quoted and escaped.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PartsAsJson {
    /// A text part (text blocks, and what the host turned into text: JSON, placeholders,
    /// `structuredContent`, the label of a passed block without its own template): `{text}`.
    pub text: String,
    /// An image part: `{data}` (its base64) and `{mimeType}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// An audio part: `{data}` and `{mimeType}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<String>,
}

/// One host profile.
// Each flag is a setting of its own in the host file, as the file names it.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostProfile {
    #[serde(skip)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub shape: Shape,
    /// Whether the host's message can mark a result as an error (`is_error`).
    #[serde(default = "yes")]
    pub error_flag: bool,
    /// Without a flag: the key the host's message puts a failed call's text under, which the
    /// model reads as the mark (Gemini's `functionResponse.response.error`, beside `output`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_key: Option<String>,
    #[serde(default)]
    pub structured: Structured,
    #[serde(default)]
    pub blocks: Blocks,
    /// What the host sends when no block is left (none: an empty result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_text: Option<String>,
    /// The MAY rule: forward protocol errors to the model.
    #[serde(default)]
    pub forward_protocol_errors: bool,
    /// An error (its message marked `is_error`) goes to the model as one string, not as
    /// blocks: Claude Code's `tool_result` of a protocol error, of an `isError` result and of
    /// its own refusals (a success keeps its blocks).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error_as_string: bool,
    /// A Chat Completions message's content, or a Responses item's output, is always a list of
    /// parts, one text included (`LangChain`'s, the Agents SDK's), never collapsed to a string.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub content_as_parts: bool,
    /// The words a forwarded protocol error reaches the model in: `{code}`, `{message}` and
    /// `{data}` (compact JSON, or nothing) are filled in.
    #[serde(default = "default_protocol_error_text")]
    pub protocol_error_text: String,
    /// The words a tool execution error (`isError`) reaches the model in, instead of its
    /// blocks: `{tool}` (the tool's name on the server), `{arguments}` (compact JSON) and
    /// `{result}` (the whole result as the MCP TypeScript SDK parses it, compact JSON as
    /// `JSON.stringify` writes it), `{text}` (the blocks as the host sends a result's).
    /// Absent: the blocks, as for a result. `protocol_error_text` has `{tool}` and
    /// `{arguments}` too, and `{message_escaped}` (the message escaped as in a JSON string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_error_text: Option<String>,
    /// What the host tells the model when nothing from the server is forwarded (no reply, or
    /// a protocol error it does not forward): `{tool}` (the tool's name on the server) and
    /// `{arguments}` (compact JSON) are filled in, as in `protocol_error_text`.
    #[serde(default = "default_failure_text")]
    pub failure_text: String,
    /// What the model reads when the host itself fails on a result; `{error}` is its message.
    #[serde(default = "default_host_error_text")]
    pub host_error_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Limit>,
    /// A second, lower limit at which the host saves the result to a file and sends a preview
    /// of its message instead (`limit` still wins above its own size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persist: Option<Persist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Checks>,
    /// What the host's MCP client does with a result that does not give the `outputSchema`
    /// its due (a missing or non-conforming `structuredContent`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub output_check: OutputCheck,
    /// What ends the host's whole run, so that its model reads nothing of this call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aborts_run_on: Vec<Abort>,
    /// The result's parts sent as one JSON text rather than as parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts_as_json: Option<PartsAsJson>,
    /// What the host writes before everything the model reads of a call it made (the server's
    /// answer, or the host's words for its failure), then a newline; the size limit does not
    /// count it. A capture writes a timing in it as `<seconds>` (Codex's "Wall time").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
}

fn yes() -> bool {
    true
}

fn default_failure_text() -> String {
    DEFAULT_FAILURE_TEXT.to_owned()
}

fn default_protocol_error_text() -> String {
    "MCP error {code}: {message} {data}".to_owned()
}

fn default_host_error_text() -> String {
    "Error: {error}".to_owned()
}

/// `template` with each `{key}` replaced once, left to right: a value holding `{code}` stays
/// as it is. Unknown keys are kept; the result is trimmed at its end (an empty `{data}`).
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = fill_exact(template, values);
    out.truncate(out.trim_end().len());
    out
}

/// [`fill`] without trimming: for texts whose last newline is the host's.
pub fn fill_exact(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let key = &after[..close];
            let (_, value) = values.iter().find(|(name, _)| *name == key)?;
            Some((value, close))
        });
        if let Some((value, close)) = value {
            out.push_str(value);
            rest = &after[close + 1..];
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The `{key}`s a template uses: a `{` then a lowercase word of letters and `_`, then `}`
/// (JSON's and TOML's own braces are not keys).
pub fn template_keys(template: &str) -> impl Iterator<Item = &str> {
    template.split('{').skip(1).filter_map(|after| {
        let key = &after[..after.find('}')?];
        let word = !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_');
        word.then_some(key)
    })
}

/// The built-in profile files, in the order `h` cycles through them.
const BUILTIN_FILES: [(&str, &str); 19] = [
    ("hosts/spec.toml", include_str!("../../hosts/spec.toml")),
    (
        "hosts/content-only.toml",
        include_str!("../../hosts/content-only.toml"),
    ),
    (
        "hosts/structured-first.toml",
        include_str!("../../hosts/structured-first.toml"),
    ),
    (
        "hosts/anthropic-messages.toml",
        include_str!("../../hosts/anthropic-messages.toml"),
    ),
    (
        "hosts/anthropic-tool-runner.toml",
        include_str!("../../hosts/anthropic-tool-runner.toml"),
    ),
    (
        "hosts/openai-chat.toml",
        include_str!("../../hosts/openai-chat.toml"),
    ),
    (
        "hosts/openai-responses.toml",
        include_str!("../../hosts/openai-responses.toml"),
    ),
    (
        "hosts/openai-agents.toml",
        include_str!("../../hosts/openai-agents.toml"),
    ),
    (
        "hosts/openai-agents-structured.toml",
        include_str!("../../hosts/openai-agents-structured.toml"),
    ),
    ("hosts/codex.toml", include_str!("../../hosts/codex.toml")),
    (
        "hosts/opencode.toml",
        include_str!("../../hosts/opencode.toml"),
    ),
    (
        "hosts/copilot-cli.toml",
        include_str!("../../hosts/copilot-cli.toml"),
    ),
    (
        "hosts/qwen-code.toml",
        include_str!("../../hosts/qwen-code.toml"),
    ),
    (
        "hosts/qwen-code-direct.toml",
        include_str!("../../hosts/qwen-code-direct.toml"),
    ),
    (
        "hosts/claude-code.toml",
        include_str!("../../hosts/claude-code.toml"),
    ),
    (
        "hosts/gemini-cli.toml",
        include_str!("../../hosts/gemini-cli.toml"),
    ),
    (
        "hosts/vercel-ai.toml",
        include_str!("../../hosts/vercel-ai.toml"),
    ),
    (
        "hosts/vercel-ai-chat.toml",
        include_str!("../../hosts/vercel-ai-chat.toml"),
    ),
    (
        "hosts/langchain.toml",
        include_str!("../../hosts/langchain.toml"),
    ),
];

/// The built-in profiles; `spec` is the default. Each file is checked by a test, so none is
/// ever missing here.
pub fn builtins() -> Vec<HostProfile> {
    static BUILTINS: OnceLock<Vec<HostProfile>> = OnceLock::new();
    BUILTINS
        .get_or_init(|| {
            BUILTIN_FILES
                .iter()
                .flat_map(|(file, text)| parse(text, file).unwrap_or_default())
                .collect()
        })
        .clone()
}

/// The built-in profiles calibrated against their real hosts, in the order of `builtins`.
pub fn captured() -> &'static [HostProfile] {
    static CAPTURED: OnceLock<Vec<HostProfile>> = OnceLock::new();
    CAPTURED.get_or_init(|| {
        builtins()
            .into_iter()
            .filter(|profile| {
                profile
                    .source
                    .as_ref()
                    .is_some_and(|source| source.captured)
            })
            .collect()
    })
}

/// The built-in host files, by path: profiles, and the runs of the hosts they calibrate.
pub fn builtin_files() -> &'static [(&'static str, &'static str)] {
    &BUILTIN_FILES
}

/// The file a built-in profile comes from, as written (comments included).
pub fn builtin_file(name: &str) -> Option<&'static str> {
    BUILTIN_FILES
        .iter()
        .find(|(file, _)| {
            file.strip_prefix("hosts/")
                .and_then(|file| file.strip_suffix(".toml"))
                == Some(name)
        })
        .map(|(_, text)| *text)
}

/// The `spec` profile, for when no other is at hand.
pub fn spec() -> &'static HostProfile {
    static SPEC: OnceLock<HostProfile> = OnceLock::new();
    SPEC.get_or_init(|| {
        builtins()
            .into_iter()
            .find(|profile| profile.name == "spec")
            .unwrap_or_else(|| HostProfile {
                name: "spec".to_owned(),
                description: String::new(),
                shape: Shape::Generic,
                error_flag: true,
                error_key: None,
                structured: Structured::Alongside,
                blocks: Blocks::default(),
                empty_text: None,
                forward_protocol_errors: false,
                error_as_string: false,
                content_as_parts: false,
                protocol_error_text: default_protocol_error_text(),
                tool_error_text: None,
                failure_text: default_failure_text(),
                host_error_text: default_host_error_text(),
                limit: None,
                persist: None,
                checks: None,
                output_check: OutputCheck::None,
                aborts_run_on: Vec::new(),
                parts_as_json: None,
                call_prefix: None,
                source: None,
            })
    })
}

/// A profile as a file a user can copy into `hosts.toml`.
pub fn to_file(profile: &HostProfile) -> String {
    #[derive(Serialize)]
    struct One<'a> {
        hosts: BTreeMap<&'a str, &'a HostProfile>,
    }
    if let Some(text) = builtin_file(&profile.name).filter(|_| builtins().contains(profile)) {
        return text.to_owned();
    }
    let one = One {
        hosts: BTreeMap::from([(profile.name.as_str(), profile)]),
    };
    toml::to_string(&one).unwrap_or_else(|error| format!("# cannot write this profile: {error}\n"))
}

/// A host profile file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("host profiles file '{file}', line {line}{}: {message}", key.as_ref().map(|k| format!(", key '{k}'")).unwrap_or_default())]
pub struct HostsError {
    pub file: String,
    pub line: usize,
    pub key: Option<String>,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostsFile {
    #[serde(default)]
    hosts: BTreeMap<String, HostProfile>,
    /// How `capture` runs each host (a host file's other half, read by `capture`).
    #[serde(default, rename = "run")]
    _run: Option<toml::Table>,
    /// The profile to judge by when `--host` is not given (read by `config::default_host`).
    #[serde(default, rename = "default_host")]
    _default_host: Option<String>,
}

/// Parses a profiles file: `[hosts.NAME]` tables of [`HostProfile`] fields.
pub fn parse(text: &str, file: &str) -> Result<Vec<HostProfile>, HostsError> {
    let parsed: HostsFile = toml::from_str(text).map_err(|error| {
        let offset = error.span().map_or(0, |span| span.start);
        let line = text[..offset.min(text.len())].matches('\n').count() + 1;
        HostsError {
            file: file.to_owned(),
            line,
            key: key_on_line(text.lines().nth(line - 1).unwrap_or_default()),
            message: error.message().trim().to_owned(),
        }
    })?;
    Ok(parsed
        .hosts
        .into_iter()
        .map(|(name, mut profile)| {
            profile.name = name;
            profile
        })
        .collect())
}

fn key_on_line(line: &str) -> Option<String> {
    let line = line.trim();
    let key = match line.split_once('=') {
        Some((key, _)) => key.trim(),
        None => line.trim_start_matches('[').trim_end_matches(']').trim(),
    };
    (!key.is_empty()).then(|| key.trim_matches('"').to_owned())
}

/// Built-ins overridden and extended by the user's profiles.
pub fn all(user: &[HostProfile]) -> Vec<HostProfile> {
    let mut all = builtins();
    all.retain(|builtin| user.iter().all(|u| u.name != builtin.name));
    all.extend(user.iter().cloned());
    all
}

/// Finds a profile by name; user profiles override built-ins of the same name.
pub fn resolve(name: &str, user: &[HostProfile]) -> Result<HostProfile, String> {
    let all = all(user);
    all.iter()
        .find(|profile| profile.name == name)
        .cloned()
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|profile| profile.name.as_str()).collect();
            format!(
                "unknown host profile '{name}'; available: {}",
                names.join(", ")
            )
        })
}

#[cfg(test)]
mod tests;
