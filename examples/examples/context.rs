//! Injected context: tool parameters that the server fills, not the model.
//!
//! ```text
//! cargo run -p tooldef-examples --example context
//! ```
//!
//! `State<T>` hands a tool the application's state (here a notes store) given once to the
//! `ToolSet`; `CallContext` carries per-call metadata such as the tool-call id; a
//! `CancellationToken` tells a long tool to stop when the call times out or the client cancels.
//! None of them appears in the schema the model sees.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tooldef::{CallContext, CancellationToken, State, Target, ToolSet, tool};

/// The application's state: shared, so it is cheap to clone into each call.
#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Vec<String>>>);

/// Save a note for later.
#[tool]
fn add_note(
    /// The note's text.
    text: String,
    State(notes): State<Notes>,
    call: CallContext,
) -> String {
    let mut notes = notes
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    notes.push(text);
    format!(
        "Saved note #{} (call {}).",
        notes.len(),
        call.call_id().unwrap_or("without id")
    )
}

/// List every note saved so far.
#[tool(read_only)]
fn list_notes(State(notes): State<Notes>) -> Vec<String> {
    notes
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// Search the notes slowly, stopping as soon as the call is cancelled.
#[tool(read_only)]
async fn slow_search(
    /// Words to look for.
    query: String,
    State(notes): State<Notes>,
    cancel: CancellationToken,
) -> Vec<String> {
    tokio::select! {
        // Stands in for slow work (a remote index, say).
        () = tokio::time::sleep(Duration::from_secs(5)) => {}
        () = cancel.cancelled() => return Vec::new(),
    }
    let notes = notes
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    notes
        .iter()
        .filter(|n| n.contains(&query))
        .cloned()
        .collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = ToolSet::builder()
        .tool(AddNote)
        .tool(ListNotes)
        .tool_with_timeout(SlowSearch, Duration::from_millis(200))
        .state(Notes::default())
        .build()
        .expect("distinct tool names");

    // What the model sees: only `text`, `query`; no state, no context.
    let listed = tools.list(Target::ChatCompletions).expect("renders");
    for tool in listed.iter() {
        println!(
            "{}: {}",
            tool["function"]["name"], tool["function"]["parameters"]["properties"]
        );
    }

    for (id, text) in [("call_1", "Buy stamps"), ("call_2", "Call the plumber")] {
        let output = tools
            .call_with(
                "add_note",
                serde_json::json!({ "text": text }),
                CallContext::new().with_call_id(id),
            )
            .await;
        match output {
            Ok(output) => println!("{}", output.to_text()),
            Err(error) => println!("error: {error}"),
        }
    }
    match tools.call("list_notes", "{}").await {
        Ok(output) => println!("notes: {}", output.to_text()),
        Err(error) => println!("error: {error}"),
    }
    // The search takes 5 s, its limit is 200 ms: the call times out and the token is cancelled.
    match tools.call("slow_search", r#"{"query": "stamps"}"#).await {
        Ok(output) => println!("found: {}", output.to_text()),
        Err(error) => println!("error for the model: {error}"),
    }
}
