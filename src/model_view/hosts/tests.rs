use super::*;

#[test]
fn every_builtin_file_parses_to_one_profile_named_after_it() {
    let builtins = builtins();
    assert_eq!(builtins.len(), BUILTIN_FILES.len());
    for ((file, text), profile) in BUILTIN_FILES.iter().zip(&builtins) {
        let parsed = parse(text, file).unwrap();
        assert_eq!(parsed.len(), 1, "{file}");
        assert_eq!(
            Some(profile.name.as_str()),
            file.strip_prefix("hosts/")
                .and_then(|f| f.strip_suffix(".toml")),
            "{file}"
        );
        assert!(!profile.description.is_empty(), "{file}");
    }
}

#[test]
fn the_hosts_read_from_code_cite_their_source() {
    for profile in builtins() {
        let generic = ["spec", "content-only", "structured-first"];
        if generic.contains(&profile.name.as_str()) {
            continue;
        }
        let source = profile
            .source
            .as_ref()
            .unwrap_or_else(|| panic!("{}", profile.name));
        assert!(source.repository.contains('/'), "{}", profile.name);
        assert!(!source.files.is_empty() && !source.version.is_empty());
        assert!(source.checked.starts_with("2026-"), "{}", profile.name);
    }
}

#[test]
fn a_profile_printed_for_copying_reads_back_the_same() {
    let user = parse(
        "[hosts.mine]\ndescription = \"x\"\nerror_flag = false\n[hosts.mine.limit]\nbytes = 100\n",
        "f",
    )
    .unwrap();
    for profile in builtins().iter().chain(&user) {
        let text = to_file(profile);
        let back = parse(&text, "printed").unwrap();
        assert_eq!(back, vec![profile.clone()], "{text}");
    }
    assert!(to_file(&resolve("openai-agents", &[]).unwrap()).starts_with('#'));
}

#[test]
fn fill_replaces_each_key_once_and_leaves_values_alone() {
    let values = [("code", "-32602"), ("message", "bad {code}"), ("data", "")];
    assert_eq!(
        fill("MCP error {code}: {message} {data}", &values),
        "MCP error -32602: bad {code}"
    );
    assert_eq!(fill("{nope} {code", &values), "{nope} {code");
}

#[test]
fn a_profile_file_adds_and_overrides_profiles() {
    let text = r#"
[hosts.claude-like]
description = "forwards protocol errors as text"
shape = "anthropic-messages"
forward_protocol_errors = true

[hosts.spec]
structured = "ignore"
"#;
    let user = parse(text, "hosts.toml").unwrap();
    let claude = resolve("claude-like", &user).unwrap();
    assert_eq!(claude.shape, Shape::AnthropicMessages);
    assert!(claude.forward_protocol_errors && claude.error_flag);
    assert_eq!(claude.failure_text, DEFAULT_FAILURE_TEXT);
    assert_eq!(
        resolve("spec", &user).unwrap().structured,
        Structured::Ignore
    );
    assert_eq!(
        resolve("content-only", &user).unwrap().structured,
        Structured::Ignore
    );
}

#[test]
fn a_bad_value_names_the_file_line_and_key() {
    let text = "[hosts.x]\ndescription = \"ok\"\nshape = \"fax\"\n";
    let error = parse(text, "/home/u/.config/sightline/hosts.toml").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (3, Some("shape")));
    let shown = error.to_string();
    assert!(
        shown.starts_with(
            "host profiles file '/home/u/.config/sightline/hosts.toml', line 3, key 'shape': "
        ),
        "{shown}"
    );
    assert!(
        shown.contains("fax") || shown.contains("unknown variant"),
        "{shown}"
    );
    let text = "[hosts.x]\n[hosts.x.blocks]\naudio = \"explode\"\n";
    let error = parse(text, "f").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (3, Some("audio")));
}

#[test]
fn an_unknown_key_and_broken_toml_are_errors_too() {
    let error = parse("[hosts.x]\nshapes = \"generic\"\n", "f").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (2, Some("shapes")));
    let error = parse("[hosts.x.limit]\nbytes = 10\nkeep = \"middle\"\n", "f").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (3, Some("keep")));
    let error = parse("[hosts.x\n", "f").unwrap_err();
    assert_eq!(error.line, 1);
}

#[test]
fn an_unknown_profile_lists_the_available_ones() {
    let error = resolve("nope", &[]).unwrap_err();
    assert_eq!(
        error,
        "unknown host profile 'nope'; available: spec, content-only, structured-first, \
         anthropic-messages, anthropic-tool-runner, openai-chat, openai-responses, \
         openai-agents, openai-agents-structured, codex, opencode, copilot-cli, qwen-code, \
         qwen-code-direct, claude-code, \
         gemini-cli, vercel-ai, vercel-ai-chat, langchain"
    );
}
