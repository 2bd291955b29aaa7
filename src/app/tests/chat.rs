//! The Chat pane: a run's model requests, the calls it sends as ordinary calls, what goes back
//! to the model under the run's host, and how a run ends; fed in the order the live session
//! produces them.

use super::*;
use crate::app::action::Chat;
use crate::app::chat::{ChatModel, Entry, Phase};
use crate::model_api::{Api, Ending, ToolCall, ToolNaming, Turn, Usage};

fn with_model(max_turns: u32) -> AppState {
    let mut state = state();
    state.settings.chat = Some(ChatModel {
        api: Api::Chat,
        name: "any".into(),
        label: "openai:any".into(),
        max_turns,
        naming: vec![(
            "claude-code".into(),
            ToolNaming {
                template: "mcp__{server}__{tool}".into(),
                rule: None,
            },
        )],
    });
    state
}

/// `c`, the prompt typed, Enter: the effects of Enter.
fn run_prompt(state: &mut AppState, prompt: &str) -> Vec<Effect> {
    press(state, KeyCode::Char('c'), KeyModifiers::NONE);
    type_text(state, prompt);
    press(state, KeyCode::Enter, KeyModifiers::NONE)
}

/// The one model request among `effects`: its run and body.
fn asked(effects: &[Effect]) -> (usize, serde_json::Value) {
    match effects {
        [Effect::AskModel { run, body }] => (*run, body.clone()),
        other => panic!("not one model request: {other:?}"),
    }
}

fn calls(turn_calls: &[(&str, serde_json::Value)]) -> Turn {
    Turn {
        text: String::new(),
        calls: turn_calls
            .iter()
            .enumerate()
            .map(|(n, (name, arguments))| ToolCall {
                id: format!("call_{n}"),
                name: (*name).to_owned(),
                arguments: arguments.clone(),
            })
            .collect(),
        usage: Usage {
            input: 100,
            output: 10,
        },
    }
}

fn answered(state: &mut AppState, run: usize, turn: Turn) -> Vec<Effect> {
    update(
        state,
        Action::ModelAnswered {
            run,
            result: Ok(turn),
        },
    )
}

fn last_run(state: &AppState) -> &crate::app::chat::Run {
    state.chat.runs.last().expect("a run")
}

#[test]
fn behind_claude_code_the_model_reads_the_servers_reason_and_its_next_turn_follows() {
    let mut state = with_model(4);
    use_host(&mut state, "claude-code");
    let (run, body) = asked(&run_prompt(&mut state, "Book a flight departing 12/12"));
    assert_eq!(run, 1);
    assert_eq!(
        state.key_mode(),
        crate::app::Mode::Editing,
        "the prompt took the keys"
    );
    assert_eq!(
        body["messages"][0]["content"],
        "Book a flight departing 12/12"
    );
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"mcp__srv__book_flight"), "{names:?}");
    let past = json!({"departureDate": "12/12/2024"});
    let sent = answered(
        &mut state,
        1,
        calls(&[("mcp__srv__book_flight", past.clone())]),
    );
    assert_eq!(sent_call(&sent), ("book_flight".to_owned(), past.clone()));
    assert_eq!(last_run(&state).phase, Phase::Calling);
    let reason = "Invalid departure date: must be in the future. Current date is 03/12/2026.";
    let next = answer_call(&mut state, call("book_flight", past).error(-32602, reason));
    let (run, body) = asked(&next);
    assert_eq!(run, 1);
    let messages = body["messages"].as_array().unwrap();
    let read = messages.last().unwrap();
    assert_eq!(read["role"], "tool");
    assert_eq!(read["tool_call_id"], "call_0");
    assert!(
        read["content"]
            .to_string()
            .contains("must be in the future"),
        "Claude Code forwards the -32602 message: {read}"
    );
    let Some(Entry::Call(made)) = last_run(&state).entries.last() else {
        panic!("a call entry");
    };
    assert_eq!(
        (made.call, made.class, made.id.as_deref()),
        (Some(0), Some(Class::ProtocolError), Some("7"))
    );
    assert!(
        made.read
            .as_deref()
            .unwrap()
            .contains("must be in the future")
    );
    assert_eq!(
        state.chat.made(0),
        Some((1, 1)),
        "the log's call links to its turn"
    );
    assert_eq!(state.chat.made_calls(), vec![0]);
    let done = answered(
        &mut state,
        1,
        Turn {
            text: "Booked.".into(),
            calls: Vec::new(),
            usage: Usage::default(),
        },
    );
    assert!(done.is_empty());
    assert_eq!(last_run(&state).phase, Phase::Ended(Ending::Answered));
    assert_eq!(last_run(&state).turns, 2);
    assert!(
        last_run(&state)
            .summary()
            .starts_with("✓ answered after 2 turns · 1 call, 0 repeated")
    );
    // The model pane says the call was the model's, and that it read this view.
    let notes = &state.model.as_ref().unwrap().notes;
    assert_eq!(
        notes[0],
        "◆ the Chat model's call (run 1, turn 1): it read this"
    );
    command(&mut state, Command::Lens(crate::app::action::Lens::Host));
    let notes = &state.model.as_ref().unwrap().notes;
    assert!(
        notes[0].ends_with("it read what 'claude-code' sends (h to 'claude-code' shows it)"),
        "{notes:?}"
    );
    while state.settings.host().name != "claude-code" {
        command(&mut state, Command::Lens(crate::app::action::Lens::Host));
    }
    // Closed, and opened again on the call the model made: at the run that made it.
    command(&mut state, Command::Back);
    command(&mut state, Command::Chat(Chat::Open));
    assert_eq!((state.chat.open, state.chat.focus), (true, Some(1)));
}

#[test]
fn a_call_of_the_users_finishing_meanwhile_is_not_taken_for_the_models() {
    let mut state = with_model(4);
    asked(&run_prompt(&mut state, "Book"));
    let arguments = json!({"departureDate": "12/12/2027"});
    answered(&mut state, 1, calls(&[("book_flight", arguments.clone())]));
    let other = answer_call(
        &mut state,
        call("get_flight_status", json!({})).text("on time"),
    );
    assert!(other.is_empty(), "nothing is asked of the model: {other:?}");
    assert_eq!(last_run(&state).phase, Phase::Calling);
    let next = answer_call(&mut state, call("book_flight", arguments).text("Booked"));
    asked(&next);
    assert_eq!(state.chat.made_calls(), vec![1]);
}

#[test]
fn the_same_call_again_is_counted_and_the_turns_run_out() {
    let mut state = with_model(2);
    asked(&run_prompt(&mut state, "Book"));
    let past = json!({"departureDate": "12/12/2024"});
    for turn in 1..=2 {
        answered(&mut state, 1, calls(&[("book_flight", past.clone())]));
        let next = answer_call(
            &mut state,
            call("book_flight", past.clone()).error(-32602, "x"),
        );
        if turn == 1 {
            asked(&next);
        } else {
            assert!(next.is_empty(), "the turns ran out: nothing more is asked");
        }
    }
    let run = last_run(&state);
    assert_eq!(run.phase, Phase::Ended(Ending::TurnsRanOut));
    let repeated: Vec<bool> = run
        .entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Call(call) => Some(call.repeated),
            Entry::Prompt(_) | Entry::Said { .. } => None,
        })
        .collect();
    assert_eq!(repeated, [false, true]);
}

#[test]
fn a_name_that_is_no_tool_is_answered_by_the_host_without_the_server() {
    let mut state = with_model(4);
    use_host(&mut state, "claude-code");
    asked(&run_prompt(&mut state, "Book"));
    let next = answered(&mut state, 1, calls(&[("mcp__srv__nope", json!({}))]));
    let (_, body) = asked(&next);
    let read = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert!(
        read["content"]
            .to_string()
            .contains("No such tool available"),
        "{read}"
    );
    let Some(Entry::Call(made)) = last_run(&state).entries.last() else {
        panic!("a call entry");
    };
    assert!(made.by_host && made.call.is_none());
    assert_eq!(state.pending_calls, 0, "the server was not called");
}

#[test]
fn a_host_that_fails_its_run_on_a_protocol_error_ends_the_chat_run() {
    let mut state = with_model(4);
    use_host(&mut state, "langchain");
    asked(&run_prompt(&mut state, "Book"));
    let past = json!({"departureDate": "12/12/2024"});
    answered(&mut state, 1, calls(&[("book_flight", past.clone())]));
    let next = answer_call(
        &mut state,
        call("book_flight", past).error(-32602, "bad date"),
    );
    assert!(next.is_empty(), "LangChain ends the run: {next:?}");
    assert_eq!(last_run(&state).phase, Phase::Ended(Ending::HostEndedRun));
}

#[test]
fn the_model_apis_failure_ends_the_run_and_says_why() {
    let mut state = with_model(4);
    asked(&run_prompt(&mut state, "Book"));
    let effects = update(
        &mut state,
        Action::ModelAnswered {
            run: 1,
            result: Err("the model API refused the request: no such model (HTTP 404)".into()),
        },
    );
    assert!(effects.is_empty());
    assert!(matches!(&last_run(&state).phase, Phase::Failed(why) if why.contains("no such model")));
    // Another run may start.
    asked(&press(&mut state, KeyCode::Char('r'), KeyModifiers::ALT));
    assert_eq!(state.chat.runs.len(), 2);
}

#[test]
fn alt_h_switches_the_host_for_the_next_run_and_alt_r_runs_the_prompt_again() {
    let mut state = with_model(4);
    asked(&run_prompt(&mut state, "Book a flight"));
    answered(
        &mut state,
        1,
        Turn {
            text: "Which date?".into(),
            calls: Vec::new(),
            usage: Usage::default(),
        },
    );
    let before = state.settings.host().name.clone();
    press(&mut state, KeyCode::Char('h'), KeyModifiers::ALT);
    let after = state.settings.host().name.clone();
    assert_ne!(before, after, "Alt-h moved to the next profile");
    assert!(state.chat.open, "and the pane stays");
    let (run, body) = asked(&press(&mut state, KeyCode::Char('r'), KeyModifiers::ALT));
    assert_eq!(run, 2);
    assert_eq!(body["messages"][0]["content"], "Book a flight");
    assert_eq!(last_run(&state).host, after);
}

#[test]
fn without_a_model_the_pane_says_how_to_start_one_and_sends_nothing() {
    let mut state = state();
    let effects = run_prompt(&mut state, "Book");
    assert!(effects.is_empty());
    assert!(status(&state).contains("--model"), "{}", status(&state));
    assert!(state.chat.runs.is_empty());
}

#[test]
fn a_run_going_on_refuses_a_second_and_ctrl_k_stops_it() {
    let mut state = with_model(4);
    asked(&run_prompt(&mut state, "Book"));
    type_text(&mut state, "again");
    assert!(press(&mut state, KeyCode::Enter, KeyModifiers::NONE).is_empty());
    assert!(status(&state).contains("Ctrl-K"), "{}", status(&state));
    press(&mut state, KeyCode::Char('k'), KeyModifiers::CONTROL);
    assert_eq!(last_run(&state).phase, Phase::Stopped);
    // The model's late answer is not wanted.
    let late = answered(&mut state, 1, calls(&[("book_flight", json!({}))]));
    assert!(late.is_empty());
    command(&mut state, Command::Back);
    assert!(!state.chat.open, "Esc closed the pane");
}

#[test]
fn the_models_words_show_as_they_stream_in_and_give_way_to_its_turn() {
    let mut state = with_model(4);
    asked(&run_prompt(&mut state, "Book"));
    for more in ["Let", " me", " book."] {
        update(
            &mut state,
            Action::ModelStreamed {
                run: 1,
                more: more.into(),
            },
        );
    }
    assert_eq!(last_run(&state).streaming.as_deref(), Some("Let me book."));
    // Another run's words, or a run no longer asked, change nothing.
    update(
        &mut state,
        Action::ModelStreamed {
            run: 2,
            more: "no".into(),
        },
    );
    assert_eq!(last_run(&state).streaming.as_deref(), Some("Let me book."));
    let mut turn = calls(&[("book_flight", json!({"departureDate": "12/12/2027"}))]);
    turn.text = "Let me book.".into();
    answered(&mut state, 1, turn);
    let run = last_run(&state);
    assert_eq!(run.streaming, None);
    assert!(run.entries.contains(&Entry::Said {
        turn: 1,
        text: "Let me book.".into()
    }));
}

#[test]
fn a_replays_model_turns_are_told_as_a_run_linked_to_the_calls_even_when_they_come_first() {
    use crate::transcript::ModelTurn;
    let mut state = state();
    state.replay = Some("run.jsonl".into());
    let past = json!({"departureDate": "12/12/2024"});
    let call = |id: &str| {
        json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "book_flight", "arguments": "{\"departureDate\":\"12/12/2024\"}"}}
        ]}}]})
    };
    let turns = vec![
        ModelTurn {
            at: 0,
            api: "chat".into(),
            request: json!({"model": "m", "messages": [{"role": "user", "content": "Book it"}]}),
            response: call("c1"),
        },
        ModelTurn {
            at: 0,
            api: "chat".into(),
            request: json!({"model": "m", "messages": [
                {"role": "user", "content": "Book it"},
                {"role": "assistant", "content": null, "tool_calls": []},
                {"role": "tool", "tool_call_id": "c1", "content": "Error: the tool call failed."},
            ]}),
            response: json!({"choices": [{"message": {"role": "assistant", "content": "I give up."}}]}),
        },
    ];
    // The turns may arrive before the replayed calls: told again as each call comes.
    update(&mut state, Action::ModelsRecorded(turns));
    let Some(Entry::Call(made)) = last_run(&state).entries.get(1) else {
        panic!("{:?}", last_run(&state).entries);
    };
    assert_eq!(made.call, None);
    finish(&mut state, call_fixture(&past));
    let run = last_run(&state);
    let Some(Entry::Call(made)) = run.entries.get(1) else {
        panic!("{:?}", run.entries);
    };
    assert_eq!(
        (made.call, made.class),
        (Some(0), Some(Class::ProtocolError))
    );
    assert_eq!(made.read.as_deref(), Some("Error: the tool call failed."));
    assert_eq!(run.phase, Phase::Ended(Ending::Answered));
    assert_eq!(run.host, "", "a recording does not say its host");
    assert_eq!(state.chat.runs.len(), 1);
}

fn call_fixture(arguments: &serde_json::Value) -> crate::mcp::session::Exchange {
    call("book_flight", arguments.clone()).error(-32602, "bad date")
}
