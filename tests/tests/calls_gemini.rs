//! Gemini's half of a tool call, against replies written from Gemini's documentation
//! (`tests/fixtures/replies/gemini`, whose README says where each shape comes from): the calls
//! found in whole and streamed replies, the model's turn rebuilt from a stream, and the exact
//! parts that answer calls.

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use tooldef::calls::{
    GeminiCallAccumulator, ToolCall, gemini_function_calls, gemini_function_response,
    gemini_function_responses_content,
};
use tooldef::{Content, ToolOutput};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/replies/gemini")
        .join(name)
}

fn reply(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_path(name)).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn chunks(name: &str) -> Vec<Value> {
    std::fs::read_to_string(fixture_path(name))
        .unwrap()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

/// Pushes every chunk; the calls each one completed, chunk by chunk.
fn stream(acc: &mut GeminiCallAccumulator, name: &str) -> Vec<Vec<ToolCall>> {
    chunks(name)
        .iter()
        .map(|chunk| acc.push(chunk).unwrap())
        .collect()
}

#[test]
fn parallel_calls_keep_their_ids_and_order() {
    let response = reply("parallel_calls.json");
    let calls = gemini_function_calls(&response).unwrap();
    assert_eq!(
        calls,
        vec![
            call(
                "fc_8d1c2a7e",
                "get_weather",
                r#"{"location":"Paris, France","unit":"celsius"}"#
            ),
            call(
                "fc_3b9f40d1",
                "get_weather",
                r#"{"location":"Tokyo, Japan","unit":"celsius"}"#
            ),
            call(
                "fc_77e0c5aa",
                "get_local_time",
                r#"{"timezone":"Asia/Tokyo"}"#
            ),
        ]
    );
    // The turn sent back is the reply's content as it came: the one signature stays on the first
    // call's part, where Gemini put it.
    let turn = &response["candidates"][0]["content"];
    assert_eq!(gemini_function_calls(turn).unwrap(), calls);
    assert!(turn["parts"][0]["thoughtSignature"].is_string());
}

#[test]
fn a_call_without_args_has_empty_arguments_and_a_made_up_id() {
    let calls = gemini_function_calls(&reply("empty_args.json")).unwrap();
    assert_eq!(
        calls,
        vec![call("gemini-call-0", "list_open_tickets", "{}")]
    );
}

#[test]
fn text_before_a_call_is_skipped() {
    let calls = gemini_function_calls(&reply("text_and_call.json")).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "schedule_meeting");
    assert_eq!(calls[0].id, "gemini-call-0");
    let arguments: Value = serde_json::from_str(&calls[0].arguments).unwrap();
    assert_eq!(
        arguments,
        json!({"attendees": ["Bob", "Alice"], "date": "2025-03-27", "time": "10:00", "topic": "Q3 planning"})
    );
}

#[test]
fn a_thought_part_is_skipped_and_the_signature_stays_in_the_turn() {
    let response = reply("thought_signature.json");
    let calls = gemini_function_calls(&response).unwrap();
    assert_eq!(
        calls,
        vec![call(
            "gemini-call-0",
            "check_inventory",
            r#"{"sku":"KTL-204-BLU","store":"lyon-part-dieu"}"#
        )]
    );
    assert_eq!(
        response["candidates"][0]["content"]["parts"][1]["thoughtSignature"],
        "CtwCAdHtim9tZXNpZ25hdHVyZS1mb3ItdGhlLWZ1bmN0aW9uLWNhbGw="
    );
}

#[test]
fn a_streamed_reply_with_two_calls() {
    let mut acc = GeminiCallAccumulator::new();
    let per_chunk = stream(&mut acc, "stream_two_calls.jsonl");
    assert_eq!(
        per_chunk,
        vec![
            vec![],
            vec![call(
                "gemini-call-0",
                "get_flight_status",
                r#"{"flight":"AF1234","date":"2025-06-14"}"#
            )],
            vec![call(
                "gemini-call-1",
                "get_flight_status",
                r#"{"flight":"LH1021","date":"2025-06-14"}"#
            )],
            vec![],
        ]
    );
    // The model's turn: every part as it came (the empty text part left out), the signature on
    // the part that carried it.
    let lines = chunks("stream_two_calls.jsonl");
    let part = |line: usize| lines[line]["candidates"][0]["content"]["parts"][0].clone();
    assert_eq!(
        acc.finish().unwrap(),
        json!({"role": "model", "parts": [part(0), part(1), part(2)]})
    );
}

#[test]
fn streamed_arguments_are_joined_into_whole_calls() {
    let mut acc = GeminiCallAccumulator::new();
    let per_chunk = stream(&mut acc, "stream_partial_args.jsonl");
    let completed: Vec<(usize, ToolCall)> = per_chunk
        .into_iter()
        .enumerate()
        .flat_map(|(i, calls)| calls.into_iter().map(move |c| (i, c)))
        .collect();
    assert_eq!(
        completed,
        vec![
            (
                4,
                call(
                    "gemini-call-0",
                    "get_weather",
                    r#"{"location":"Boston, MA","days":3}"#
                )
            ),
            (
                8,
                call(
                    "gemini-call-1",
                    "get_weather",
                    r#"{"location":"San Francisco"}"#
                )
            ),
        ]
    );
    assert_eq!(
        acc.finish().unwrap(),
        json!({"role": "model", "parts": [
            {
                "functionCall": {"name": "get_weather", "args": {"location": "Boston, MA", "days": 3}},
                "thoughtSignature": "CiMBjz1rX3BhcnRpYWwtYXJncy1zaWduYXR1cmU="
            },
            {"functionCall": {"name": "get_weather", "args": {"location": "San Francisco"}}}
        ]})
    );
}

#[test]
fn a_stream_cut_mid_call_gives_no_call() {
    let mut acc = GeminiCallAccumulator::new();
    let per_chunk = stream(&mut acc, "stream_cut_mid_call.jsonl");
    assert!(per_chunk.iter().all(Vec::is_empty), "{per_chunk:?}");
    let error = acc.finish().unwrap_err().to_string();
    assert_eq!(
        error,
        "the stream ended while the arguments of function call `send_email` were still \
         arriving: the call is incomplete"
    );
}

#[test]
fn a_malformed_call_at_the_end_of_a_stream_is_an_error() {
    let lines = chunks("stream_malformed_call.jsonl");
    let mut acc = GeminiCallAccumulator::new();
    assert!(acc.push(&lines[0]).unwrap().is_empty());
    let error = acc.push(&lines[1]).unwrap_err().to_string();
    assert_eq!(
        error,
        "the model wrote a function call Gemini could not read (`finishReason` \
         MALFORMED_FUNCTION_CALL): Malformed function call: \
         print(default_api.convert_currency(amount=100, from='USD', to=))"
    );
}

#[test]
fn a_blocked_prompt_is_an_error() {
    let response = reply("blocked_prompt.json");
    let expected = "the prompt was blocked (`promptFeedback.blockReason` SAFETY): the model did \
                    not reply";
    assert_eq!(
        gemini_function_calls(&response).unwrap_err().to_string(),
        expected
    );
    let mut acc = GeminiCallAccumulator::new();
    assert_eq!(acc.push(&response).unwrap_err().to_string(), expected);
}

#[test]
fn responses_for_each_kind_of_output() {
    let calls = gemini_function_calls(&reply("parallel_calls.json")).unwrap();
    let with_id = &calls[0];
    let made_up = &gemini_function_calls(&reply("empty_args.json")).unwrap()[0];

    // Text.
    assert_eq!(
        gemini_function_response(with_id, &ToolOutput::text("18°C, light rain"), false),
        json!({"functionResponse": {
            "name": "get_weather",
            "id": "fc_8d1c2a7e",
            "response": {"output": "18°C, light rain"}
        }})
    );

    // Structured content that is an object: the response itself (its text copy is not repeated).
    let object = ToolOutput::json(json!({"temperature": 18, "conditions": "light rain"}), true);
    assert_eq!(
        gemini_function_response(with_id, &object, false),
        json!({"functionResponse": {
            "name": "get_weather",
            "id": "fc_8d1c2a7e",
            "response": {"temperature": 18, "conditions": "light rain"}
        }})
    );

    // Structured content that is not an object: wrapped, since `response` must be one.
    let array = ToolOutput::json(json!([{"id": 7, "title": "Printer jam"}]), true);
    assert_eq!(
        gemini_function_response(made_up, &array, false),
        json!({"functionResponse": {
            "name": "list_open_tickets",
            "response": {"output": [{"id": 7, "title": "Printer jam"}]}
        }})
    );

    // An image: in `functionResponse.parts`, beside the words.
    let image = ToolOutput::blocks([
        Content::Text("Radar map for Paris".into()),
        Content::Image {
            data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==".into(),
            mime_type: "image/png".into(),
        },
    ]);
    assert_eq!(
        gemini_function_response(with_id, &image, false),
        json!({"functionResponse": {
            "name": "get_weather",
            "id": "fc_8d1c2a7e",
            "response": {"output": "Radar map for Paris"},
            "parts": [{"inlineData": {
                "mimeType": "image/png",
                "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
            }}]
        }})
    );

    // A resource link: said in words.
    let mut link = Map::new();
    link.insert("type".into(), json!("resource_link"));
    link.insert("uri".into(), json!("file:///var/log/tickets.log"));
    link.insert("name".into(), json!("tickets.log"));
    let linked = ToolOutput::blocks([
        Content::Text("The full list is in the log.".into()),
        Content::ResourceLink(link),
    ]);
    assert_eq!(
        gemini_function_response(made_up, &linked, false),
        json!({"functionResponse": {
            "name": "list_open_tickets",
            "response": {
                "output": "The full list is in the log.\n\n[resource link: tickets.log <file:///var/log/tickets.log>]"
            }
        }})
    );

    // An error: under `error`.
    let failed = ToolOutput::text("The ticket service is unreachable. Try again later.");
    assert_eq!(
        gemini_function_response(made_up, &failed, true),
        json!({"functionResponse": {
            "name": "list_open_tickets",
            "response": {"error": "The ticket service is unreachable. Try again later."}
        }})
    );
}

#[test]
fn one_content_answers_a_turn_of_parallel_calls_in_order() {
    let calls = gemini_function_calls(&reply("parallel_calls.json")).unwrap();
    let parts: Vec<Value> = calls
        .iter()
        .map(|c| gemini_function_response(c, &ToolOutput::text(format!("done: {}", c.id)), false))
        .collect();
    let content = gemini_function_responses_content(parts);
    assert_eq!(content["role"], "user");
    let ids: Vec<&str> = content["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["functionResponse"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["fc_8d1c2a7e", "fc_3b9f40d1", "fc_77e0c5aa"]);
}
