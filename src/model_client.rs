//! The model API over HTTP: `--model PROVIDER:MODEL` resolved to a URL and a key, one request
//! at a time; the key goes in a header only, never in an error, a log or a transcript.

use std::time::Duration;

use serde_json::Value;

use crate::model_api::{Api, PROVIDERS, Turn, stream};
use crate::recording::Recorder;

/// The model API a `--model PROVIDER:MODEL` names, where its requests go, and its key.
pub struct Model {
    pub api: Api,
    /// Where its requests go.
    pub url: String,
    pub name: String,
    /// Never printed, logged or recorded.
    key: Option<String>,
}

impl std::fmt::Debug for Model {
    // Without the key: a Debug print must not show it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("api", &self.api)
            .field("url", &self.url)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// `--model`, `--model-url` and `--model-key-env` resolved (the key read from its
    /// variable), or why they cannot be.
    pub fn resolve(
        model: &str,
        model_url: Option<&str>,
        key_env: Option<&str>,
    ) -> Result<Model, String> {
        let (provider, name) = model
            .split_once(':')
            .ok_or_else(|| format!("--model {model}: PROVIDER:MODEL, e.g. openai:gpt-4.1"))?;
        let (api, default_base, default_key, path) =
            Api::of(provider).ok_or_else(|| format!("--model {provider}:…: {PROVIDERS}"))?;
        let base = model_url.unwrap_or(default_base);
        let variable = key_env.unwrap_or(default_key);
        let key = std::env::var(variable).ok().filter(|key| !key.is_empty());
        if key.is_none() && model_url.is_none() {
            return Err(format!(
                "{variable} is not set (or name another with --model-key-env)"
            ));
        }
        Ok(Model {
            api,
            url: format!(
                "{}{}",
                base.trim_end_matches('/'),
                path.replace("{model}", name)
            ),
            name: name.to_owned(),
            key,
        })
    }
}

/// An HTTP client for the model API.
pub fn http_client() -> Result<reqwest::Client, String> {
    // The one TLS provider sightline builds with (its HTTP transport installs the same).
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()
        .map_err(|error| format!("cannot start the model client: {error}"))
}

/// One request to the model API: the model's turn, or why there is none. An error names the
/// URL and the status, never the request. Both bodies are recorded when the run is.
pub async fn turn(
    http: &reqwest::Client,
    model: &Model,
    body: &Value,
    recorder: Option<&Recorder>,
) -> Result<Turn, String> {
    asked(http, model, &model.url, body, None, recorder).await
}

/// As [`turn`], streamed: `said` is given the model's text so far each time it grows. The transcript keeps the body sent and the body the
/// stream came to.
pub async fn turn_streamed(
    http: &reqwest::Client,
    model: &Model,
    body: &Value,
    said: &mut (dyn FnMut(&str) + Send),
    recorder: Option<&Recorder>,
) -> Result<Turn, String> {
    let streamed = stream::streaming(model.api, body);
    let url = stream::streaming_url(model.api, &model.url);
    asked(http, model, &url, &streamed, Some(said), recorder).await
}

async fn asked(
    http: &reqwest::Client,
    model: &Model,
    url: &str,
    body: &Value,
    said: Option<&mut (dyn FnMut(&str) + Send)>,
    recorder: Option<&Recorder>,
) -> Result<Turn, String> {
    let mut request = http
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.to_string());
    match (model.api, &model.key) {
        (Api::Chat | Api::Responses, Some(key)) => request = request.bearer_auth(key),
        (Api::Anthropic, key) => {
            request = request.header("anthropic-version", "2023-06-01");
            if let Some(key) = key {
                request = request.header("x-api-key", key);
            }
        }
        (Api::Gemini, Some(key)) => request = request.header("x-goog-api-key", key),
        (Api::Chat | Api::Responses | Api::Gemini, None) => {}
    }
    let mut response = request.send().await.map_err(|error| {
        format!(
            "the model API at {} did not answer: {}",
            model.url,
            with_causes(&error.without_url())
        )
    })?;
    let status = response.status();
    let broke_off = |error: reqwest::Error| {
        format!(
            "the model API at {} broke off its answer (HTTP {status}): {}",
            model.url,
            with_causes(&error.without_url())
        )
    };
    let events = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let answer: Value = match said {
        // An API that refuses a streamed request answers with plain JSON: read as such.
        Some(said) if events => {
            let mut assembler = stream::Assembler::new(model.api);
            while let Some(bytes) = response.chunk().await.map_err(broke_off)? {
                if assembler.feed(&bytes) {
                    said(assembler.text());
                }
            }
            assembler.finish()
        }
        Some(_) | None => {
            let bytes = response.bytes().await.map_err(broke_off)?;
            serde_json::from_slice(&bytes).map_err(|error| {
                format!(
                    "the model API at {} sent no JSON (HTTP {status}): {error}",
                    model.url
                )
            })?
        }
    };
    if let Some(recorder) = recorder {
        recorder.model_turn(model.api.name(), body, &answer);
    }
    model
        .api
        .turn(&answer)
        .map_err(|why| format!("{why} (HTTP {status})"))
}

/// An error and what caused it ("error sending request: … Connection refused"): the URL is
/// said by the caller, and no request, so no key, is ever in it.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut said = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        said.push_str(": ");
        said.push_str(&error.to_string());
        cause = error.source();
    }
    said
}
