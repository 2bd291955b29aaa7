use serde_json::json;

use super::*;

const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF\n\nSkill body.\n";

fn entry(body: &str) -> Value {
    json!({
        "uri": "skill://pdf-processing/SKILL.md",
        "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
        "resources": [
            {"uri": "skill://pdf-processing/SKILL.md", "digest": sha256(body.as_bytes()), "size": body.len()},
            {"uri": "skill://pdf-processing/references/FORMS.md", "digest": sha256(b"forms"), "size": 5},
        ]
    })
}

#[test]
fn an_entry_is_read_with_its_manifest_and_supporting_files() {
    let skill = Skill::from_entry(&entry(SKILL_MD)).unwrap();
    assert_eq!(skill.name, "pdf-processing");
    assert_eq!(skill.manifest().unwrap().size, Some(SKILL_MD.len() as u64));
    let supporting: Vec<_> = skill.supporting().map(|f| f.uri.as_str()).collect();
    assert_eq!(supporting, ["skill://pdf-processing/references/FORMS.md"]);
    assert!(skill.fully_digested());
}

#[test]
fn a_dynamic_listing_has_no_files_and_no_digests() {
    let skill = Skill::from_entry(&json!({
        "uri": "skill://acme/tools/deploy/SKILL.md", "frontmatter": {}, "resources": "dynamic"
    }))
    .unwrap();
    assert_eq!(skill.name, "deploy", "taken from the URI's last segment");
    assert_eq!(skill.files, None);
    assert!(!skill.fully_digested());
}

#[test]
fn an_unreadable_entry_says_why() {
    let error =
        Skill::from_entry(&json!({"uri": "skill://x/SKILL.md", "resources": 3})).unwrap_err();
    assert!(
        error.contains("neither an array nor \"dynamic\""),
        "{error}"
    );
    assert!(Skill::from_entry(&json!({"frontmatter": {}})).is_err());
}

#[test]
fn the_digest_is_sha256_of_the_bytes_in_hex() {
    assert_eq!(
        sha256(b"abc"),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn a_file_is_checked_by_size_then_by_digest() {
    let skill = Skill::from_entry(&entry(SKILL_MD)).unwrap();
    let manifest = skill.manifest().unwrap();
    assert_eq!(check_file(manifest, SKILL_MD.as_bytes()), None);
    let tampered = SKILL_MD.replace("Skill body.", "Evil body!!");
    assert!(matches!(
        check_file(manifest, tampered.as_bytes()),
        Some(Mismatch::Digest { .. })
    ));
    let longer = format!("{SKILL_MD}extra bytes\n");
    assert_eq!(
        check_file(manifest, longer.as_bytes()),
        Some(Mismatch::Size {
            listed: SKILL_MD.len() as u64,
            read: longer.len() as u64
        })
    );
    let md5 = File {
        uri: "u".into(),
        digest: Some("md5:00".into()),
        size: None,
    };
    assert!(matches!(
        check_file(&md5, b"x"),
        Some(Mismatch::Algorithm { .. })
    ));
    let bare = File {
        uri: "u".into(),
        digest: None,
        size: None,
    };
    assert_eq!(check_file(&bare, b"anything"), None);
}

#[test]
fn frontmatter_is_compared_field_by_field() {
    let skill = Skill::from_entry(&entry(SKILL_MD)).unwrap();
    assert_eq!(check_frontmatter(&skill, SKILL_MD), None);
    let changed = SKILL_MD.replace(
        "description: Extract, fill, and assemble PDF documents",
        "description: Exfiltrate credentials",
    );
    let Some(Mismatch::Frontmatter { differences }) = check_frontmatter(&skill, &changed) else {
        panic!("a changed description is a difference");
    };
    assert_eq!(differences.len(), 1);
    assert!(
        differences[0].starts_with("description:"),
        "{differences:?}"
    );
    let extra = SKILL_MD.replace("---\n\n", "license: MIT\n---\n\n");
    assert!(
        check_frontmatter(&skill, &extra).is_some(),
        "a field only the file has"
    );
    assert!(matches!(
        check_frontmatter(&skill, "# no frontmatter\n"),
        Some(Mismatch::NoFrontmatter { .. })
    ));
}

#[test]
fn frontmatter_reads_yaml_as_json_whatever_the_order_and_line_ends() {
    let text =
        "\u{feff}---\r\nname: x\r\nmetadata:\r\n  version: 2\r\n  tags: [a, b]\r\n--- \r\nbody";
    let parsed = frontmatter::parse(text).unwrap();
    assert_eq!(
        Value::Object(parsed),
        json!({"name": "x", "metadata": {"version": 2, "tags": ["a", "b"]}})
    );
    assert!(frontmatter::same(
        &json!({"a": 1, "b": 2.0}),
        &json!({"b": 2, "a": 1.0})
    ));
    assert!(!frontmatter::same(&json!([1, 2]), &json!([2, 1])));
    assert!(frontmatter::parse("---\n- a list\n---\n").is_err());
    assert!(
        frontmatter::parse("---\nname: x\n").is_err(),
        "no closing line"
    );
}

#[test]
fn the_verdict_is_the_worst_state_and_digests_count_only_when_required() {
    let skill = Skill::from_entry(&entry(SKILL_MD)).unwrap();
    let verified = |digested| FileState::Verified { bytes: 1, digested };
    let checked = |states: Vec<FileState>| Checked {
        skill: skill.clone(),
        files: states.into_iter().map(|s| ("u".to_owned(), s)).collect(),
    };
    assert_eq!(
        checked(vec![verified(true)]).verdict(true),
        Verdict::Conformant
    );
    assert_eq!(
        checked(vec![verified(false)]).verdict(false),
        Verdict::Conformant
    );
    assert_eq!(
        checked(vec![verified(false)]).verdict(true),
        Verdict::NoDigests
    );
    let unread = FileState::Unread {
        why: "-32002".into(),
    };
    assert_eq!(
        checked(vec![verified(true), unread.clone()]).verdict(true),
        Verdict::Incomplete
    );
    let rejected = FileState::Rejected {
        mismatch: Mismatch::Size { listed: 1, read: 2 },
    };
    assert_eq!(
        checked(vec![rejected, FileState::Skipped, unread]).verdict(false),
        Verdict::Nonconformant
    );
    assert_eq!(
        overall(&[checked(vec![verified(true)])], 1, false),
        Verdict::Nonconformant
    );
    assert_eq!(overall(&[], 0, true), Verdict::Conformant);
}

#[test]
fn a_load_reads_skill_md_first_then_each_file_in_order() {
    let mut load = Load::new(Skill::from_entry(&entry(SKILL_MD)).unwrap());
    assert_eq!(load.next(), Some("skill://pdf-processing/SKILL.md"));
    assert_eq!(
        load.read(Ok(SKILL_MD.as_bytes())),
        Some(&FileState::Verified {
            bytes: SKILL_MD.len() as u64,
            digested: true
        })
    );
    assert_eq!(
        load.next(),
        Some("skill://pdf-processing/references/FORMS.md")
    );
    load.read(Ok(b"forms"));
    assert_eq!(load.next(), None);
    assert!(!load.stopped());
    assert_eq!(load.read(Ok(b"more")), None, "no read was due");
    let checked = load.checked();
    assert_eq!(checked.files.len(), 2);
    assert_eq!(checked.verdict(true), Verdict::Conformant);
    assert_eq!(
        checked
            .files
            .iter()
            .map(|(_, s)| s.mark())
            .collect::<String>(),
        "✓✓"
    );
}

#[test]
fn a_load_reads_nothing_after_a_file_that_fails() {
    let tampered = SKILL_MD.replace("Skill body.", "Evil body!!");
    let mut load = Load::new(Skill::from_entry(&entry(SKILL_MD)).unwrap());
    let state = load.read(Ok(tampered.as_bytes())).cloned();
    assert!(matches!(
        state,
        Some(FileState::Rejected {
            mismatch: Mismatch::Digest { .. }
        })
    ));
    assert!(load.stopped());
    assert_eq!(load.next(), None, "FORMS.md is never read");
    assert_eq!(load.rest().len(), 1);
    let checked = load.checked();
    assert_eq!(checked.files[1].1, FileState::Skipped);
    assert_eq!(checked.verdict(false), Verdict::Nonconformant);
    assert_eq!(
        checked
            .files
            .iter()
            .map(|(_, s)| s.mark())
            .collect::<String>(),
        "✗·"
    );
    // A read that failed stops the load too.
    let mut load = Load::new(Skill::from_entry(&entry(SKILL_MD)).unwrap());
    load.read(Err(refused("resources/read", -32002, "gone")));
    assert_eq!(load.next(), None);
    assert_eq!(load.checked().verdict(false), Verdict::Incomplete);
    assert_eq!(
        load.files()[0].1.words(),
        "not read: resources/read: error -32002 gone"
    );
}

#[test]
fn a_load_checks_the_frontmatter_of_skill_md_only() {
    let changed = SKILL_MD.replace("Extract, fill", "Exfiltrate, fill");
    let entry = json!({
        "uri": "skill://pdf-processing/SKILL.md",
        "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
        "resources": "dynamic"
    });
    let mut load = Load::new(Skill::from_entry(&entry).unwrap());
    assert_eq!(
        load.next(),
        Some("skill://pdf-processing/SKILL.md"),
        "dynamic: SKILL.md only"
    );
    let state = load.read(Ok(changed.as_bytes())).cloned();
    assert!(
        matches!(
            state,
            Some(FileState::Rejected {
                mismatch: Mismatch::Frontmatter { .. }
            })
        ),
        "no digest to check, the frontmatter still is: {state:?}"
    );
    let mut load = Load::new(Skill::from_entry(&entry).unwrap());
    let state = load.read(Ok(SKILL_MD.as_bytes())).cloned();
    assert_eq!(
        state.as_ref().map(FileState::mark),
        Some('·'),
        "no digest: not checked"
    );
    assert_eq!(load.next(), None);
}

#[test]
fn content_bytes_are_a_texts_utf8_or_a_blob_decoded() {
    assert_eq!(
        content_bytes(&json!({"contents": [{"uri": "u", "text": "é"}]})).unwrap(),
        "é".as_bytes()
    );
    assert_eq!(
        content_bytes(&json!({"contents": [{"uri": "u", "blob": "AAE="}]})).unwrap(),
        [0, 1]
    );
    assert!(content_bytes(&json!({"contents": []})).is_err());
    assert!(content_bytes(&json!({"contents": [{"uri": "u", "blob": "%%"}]})).is_err());
}

fn dynamic() -> Skill {
    Skill::from_entry(&json!({
        "uri": "skill://pdf-processing/SKILL.md",
        "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
        "resources": "dynamic"
    }))
    .unwrap()
}

#[test]
fn a_dynamic_skill_s_directory_is_walked_once_its_skill_md_holds_and_its_files_read_after() {
    let mut load = Load::new(dynamic());
    assert_eq!(
        load.directory_due(),
        None,
        "nothing is walked before SKILL.md is read"
    );
    assert_eq!(load.next(), Some("skill://pdf-processing/SKILL.md"));
    load.read(Ok(SKILL_MD.as_bytes()));
    assert_eq!(load.next(), None);
    assert_eq!(load.directory_due(), Some("skill://pdf-processing"));
    load.walked(Ok(vec![
        "skill://pdf-processing/SKILL.md".into(),
        "skill://pdf-processing/references/FORMS.md".into(),
    ]));
    assert_eq!(load.directory_due(), None, "walked once");
    assert_eq!(
        load.next(),
        Some("skill://pdf-processing/references/FORMS.md"),
        "SKILL.md is not read twice"
    );
    load.read(Ok(b"forms"));
    assert_eq!(load.next(), None);
    let checked = load.checked();
    assert_eq!(checked.files.len(), 2);
    assert_eq!(checked.verdict(false), Verdict::Conformant);
    assert_eq!(checked.verdict(true), Verdict::NoDigests);

    let mut rejected = Load::new(dynamic());
    rejected.read(Ok(b"---\nname: other\n---\n"));
    assert_eq!(
        rejected.directory_due(),
        None,
        "a rejected SKILL.md is the end of it"
    );

    let mut unwalkable = Load::new(dynamic());
    unwalkable.read(Ok(SKILL_MD.as_bytes()));
    unwalkable.walked(Err(
        "resources/directory/read: error -32601 Method not found".into(),
    ));
    assert_eq!(unwalkable.next(), None);
    assert_eq!(unwalkable.checked().verdict(false), Verdict::Incomplete);
    assert_eq!(unwalkable.checked().files[1].0, "skill://pdf-processing");
}

#[test]
fn a_directory_page_gives_its_files_its_subdirectories_and_its_cursor() {
    let page = walk::page(&json!({
        "resources": [
            {"uri": "skill://a/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown"},
            {"uri": "skill://a/scripts", "name": "scripts", "mimeType": "inode/directory"},
            {"uri": "skill://a/LICENSE", "name": "LICENSE"}
        ],
        "nextCursor": "2"
    }))
    .unwrap();
    assert_eq!(page.files, ["skill://a/SKILL.md", "skill://a/LICENSE"]);
    assert_eq!(page.directories, ["skill://a/scripts"]);
    assert_eq!(page.cursor.as_deref(), Some("2"));
    let last = walk::page(&json!({"resources": [], "nextCursor": ""})).unwrap();
    assert_eq!(last.cursor, None, "an empty cursor ends the pages");
    assert!(
        walk::page(&json!({}))
            .unwrap_err()
            .contains("without `resources`")
    );
    assert!(
        walk::page(&json!({"resources": [{"name": "x"}]}))
            .unwrap_err()
            .contains("without a `uri`")
    );
}

#[test]
fn a_walk_reads_every_page_then_each_subdirectory_once_and_stops_at_an_error_or_the_bound() {
    let mut walk = Walk::new("skill://a");
    assert_eq!(walk.next(), Some(json!({"uri": "skill://a"})));
    let first = json!({"resources": [
        {"uri": "skill://a/SKILL.md"},
        {"uri": "skill://a/scripts", "mimeType": "inode/directory"}
    ], "nextCursor": "p2"});
    walk.answered(Ok(&first)).unwrap();
    assert_eq!(
        walk.next(),
        Some(json!({"uri": "skill://a", "cursor": "p2"}))
    );
    // The second page names the subdirectory again, and the skill's own: each is read once.
    let second = json!({"resources": [
        {"uri": "skill://a/scripts", "mimeType": "inode/directory"},
        {"uri": "skill://a", "mimeType": "inode/directory"}
    ]});
    walk.answered(Ok(&second)).unwrap();
    assert_eq!(walk.next(), Some(json!({"uri": "skill://a/scripts"})));
    walk.answered(Ok(
        &json!({"resources": [{"uri": "skill://a/scripts/run.sh"}]}),
    ))
    .unwrap();
    assert_eq!(walk.next(), None);
    assert_eq!(
        walk.found(),
        ["skill://a/SKILL.md", "skill://a/scripts/run.sh"]
    );

    let mut refused = Walk::new("skill://a");
    let error = refused.answered(Err("error -32602 not a directory".into()));
    assert_eq!(error, Err("error -32602 not a directory".into()));
    assert_eq!(refused.next(), None);

    let mut endless = Walk::new("skill://a");
    let more = json!({"resources": [], "nextCursor": "again"});
    let mut pages = 0;
    let stopped = loop {
        pages += 1;
        if let Err(why) = endless.answered(Ok(&more)) {
            break why;
        }
    };
    assert_eq!(pages, walk::MAX_PAGES);
    assert!(stopped.contains("the walk stopped there"), "{stopped}");
}
