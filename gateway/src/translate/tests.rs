//! The translation's own tests: every API carries a conversation, a reply and a stream to every
//! other, read and written through the dispatch of `translate`.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::fixtures::{
    check_messages_events, check_responses_events, conversation, llama_chat_stream,
    llama_responses_stream, messages_stream,
};
use super::ir::{
    Call, Delta, Finish, Message, Part, Reply, Request, ResponseFormat, Role, Tool, ToolChoice,
    ToolResult,
};
use super::{Collector, Reader, Writer, read_reply, read_request, write_request};
use crate::api::Api;

/// What a request's writing in one API and reading back cannot keep in any: whether a Chat
/// client asked for a usage chunk (every Chat upstream is asked), and a Responses upstream's
/// `store` (written `false` when unsaid).
fn normalised(mut request: Request) -> Request {
    request.include_usage = false;
    request.store = None;
    request
}

/// `request` written in `api` and read back.
fn through(api: Api, request: &Request) -> Request {
    let written = write_request(api, request).unwrap_or_else(|refusal| panic!("{api}: {refusal}"));
    normalised(read_request(api, &written).unwrap_or_else(|refusal| panic!("{api}: {refusal}")))
}

/// The conversation read in any API and written in any other comes back the same.
#[test]
fn every_api_carries_the_conversation_to_every_other() {
    for from in Api::ALL {
        let read = through(from, &conversation());
        assert_eq!(read, conversation(), "{from}");
        for to in Api::ALL {
            assert_eq!(through(to, &read), conversation(), "{from} to {to}");
        }
    }
}

/// A reply written in each API and read back is the same reply, but for what an API cannot
/// say (Messages: the reasoning tokens; Responses: counts it says as 0).
#[test]
fn every_api_carries_a_reply() {
    let reply = super::fixtures::reply();
    for api in Api::ALL {
        let written = super::write_reply(api, &reply, &conversation());
        let read = read_reply(api, &written).unwrap();
        assert_eq!(read.parts, reply.parts, "{api}");
        assert_eq!(read.finish, reply.finish, "{api}");
        assert_eq!(read.model, reply.model, "{api}");
        let usage = read.usage.unwrap();
        assert_eq!(
            (usage.input, usage.output, usage.cached_input),
            (100, 20, Some(40)),
            "{api}"
        );
    }
}

/// The deltas of a stream of `api`.
fn deltas(api: Api, events: &[Value]) -> Vec<Delta> {
    let mut reader = Reader::new(api);
    events
        .iter()
        .flat_map(|event| reader.read(event).expect("the stream reads"))
        .collect()
}

/// Deltas written as a stream of `api` for `request`.
fn written(api: Api, request: &Request, deltas: &[Delta]) -> Vec<Value> {
    let mut writer = Writer::new(api, request);
    let mut events: Vec<Value> = deltas
        .iter()
        .flat_map(|delta| writer.write(delta.clone()))
        .collect();
    events.extend(writer.finish());
    events
}

/// The reply a stream's deltas make.
fn collected(deltas: &[Delta]) -> Reply {
    let mut collector = Collector::default();
    for delta in deltas {
        collector.push(delta);
    }
    collector.reply().expect("a reply")
}

/// Checks Chat chunks: one id, object, time and model; the role first; the finish last but
/// for the usage chunk; gives the reply they make, read back.
fn check_chat_chunks(chunks: &[Value]) -> Reply {
    for chunk in chunks {
        for key in ["id", "object", "created", "model"] {
            assert_eq!(chunk[key], chunks[0][key], "{chunk}");
        }
        assert_eq!(chunk["object"], "chat.completion.chunk");
    }
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let finishes: Vec<usize> = chunks
        .iter()
        .enumerate()
        .filter(|(_, chunk)| !chunk["choices"][0]["finish_reason"].is_null())
        .map(|(at, _)| at)
        .collect();
    assert_eq!(finishes.len(), 1, "one finish");
    assert!(
        finishes[0] + 2 >= chunks.len(),
        "the finish is last, or before the usage"
    );
    let mut reader = Reader::new(Api::Chat);
    let deltas: Vec<Delta> = chunks
        .iter()
        .flat_map(|chunk| reader.read(chunk).unwrap())
        .collect();
    collected(&deltas)
}

/// The pieces of a Messages stream's `input_json_delta`s, by block.
fn json_pieces(events: &[Value]) -> String {
    events
        .iter()
        .filter(|event| event["delta"]["type"] == "input_json_delta")
        .map(|event| event["delta"]["partial_json"].as_str().unwrap())
        .collect()
}

fn streaming(model: &str) -> Request {
    Request {
        model: Some(model.to_owned()),
        stream: true,
        include_usage: true,
        ..Request::default()
    }
}

/// llama.cpp's Chat stream of a call cut at the limit, to a Responses client and to a
/// Messages client: the events in order, the cut said, the partial arguments as they came.
#[test]
fn llama_cpps_cut_chat_stream_to_responses_and_messages() {
    let deltas = deltas(Api::Chat, &llama_chat_stream());

    let events = written(Api::Responses, &streaming("m"), &deltas);
    let response = check_responses_events(&events);
    assert_eq!(events.last().unwrap()["type"], "response.incomplete");
    assert_eq!(response["status"], "incomplete");
    assert_eq!(
        response["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    assert_eq!(response["output"][0]["arguments"], "{\"city\":");
    assert_eq!(
        response["output"][0]["call_id"],
        "1Vg6C9Ta3dAGao6WR54B455yecsZs1M0"
    );
    assert_eq!(response["model"], "m");

    let events = written(Api::Messages, &streaming("m"), &deltas);
    let message = check_messages_events(&events);
    assert_eq!(message["stop_reason"], "max_tokens");
    assert_eq!(json_pieces(&events), "{\"city\":");
    assert_eq!(
        message["content"][0]["id"],
        "1Vg6C9Ta3dAGao6WR54B455yecsZs1M0"
    );
    assert_eq!(message["content"][0]["name"], "get_weather");
    assert!(message["id"].as_str().unwrap().starts_with("msg_"));

    // The stream's reply is the whole reply's.
    let whole = json!({
        "id": "chatcmpl-DW68", "object": "chat.completion", "created": 1_795_795_995, "model": "m",
        "choices": [{"index": 0, "finish_reason": "length", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "1Vg6C9Ta3dAGao6WR54B455yecsZs1M0", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":"}}],
        }}],
    });
    assert_eq!(collected(&deltas), read_reply(Api::Chat, &whole).unwrap());
}

/// llama.cpp's Responses stream, without indexes, to a Chat client and to a Messages
/// client.
#[test]
fn llama_cpps_responses_stream_to_chat_and_messages() {
    let deltas = deltas(Api::Responses, &llama_responses_stream());

    let chunks = written(Api::Chat, &streaming("m"), &deltas);
    let reply = check_chat_chunks(&chunks);
    assert_eq!(
        reply.parts,
        vec![Part::Call(Call {
            id: "call_k83".to_owned(),
            name: "get_weather".to_owned(),
            arguments: "{".to_owned(),
        })]
    );
    assert_eq!(reply.finish, Finish::ToolCalls);
    let usage = chunks.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(
        usage["usage"],
        json!({"prompt_tokens": 362, "completion_tokens": 14, "total_tokens": 376, "prompt_tokens_details": {"cached_tokens": 361}})
    );

    let events = written(Api::Messages, &streaming("m"), &deltas);
    let message = check_messages_events(&events);
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!(json_pieces(&events), "{");
    assert_eq!(
        message["usage"],
        json!({"input_tokens": 1, "output_tokens": 14, "cache_read_input_tokens": 361})
    );

    // The stream's reply is the final response's, but for the model and time that
    // llama.cpp's `response.created` does not give (a Start is given once, first).
    let events = llama_responses_stream();
    let whole = &events.last().unwrap()["response"];
    let mut read = read_reply(Api::Responses, whole).unwrap();
    let collected = collected(&deltas);
    read.model = collected.model.clone();
    read.created = collected.created;
    assert_eq!(collected, read);
}

/// Anthropic's stream of text and a call, to a Chat client and to a Responses client.
#[test]
fn a_messages_stream_to_chat_and_responses() {
    let deltas = deltas(Api::Messages, &messages_stream());
    let call = Part::Call(Call {
        id: "toolu_01X".to_owned(),
        name: "get_weather".to_owned(),
        arguments: "{\"city\": \"Paris\"}".to_owned(),
    });
    let text = Part::Text {
        text: "Let me look.".to_owned(),
    };

    let chunks = written(Api::Chat, &streaming("claude"), &deltas);
    let reply = check_chat_chunks(&chunks);
    assert_eq!(reply.parts, vec![text.clone(), call.clone()]);
    assert_eq!(reply.finish, Finish::ToolCalls);
    assert_eq!(chunks[0]["model"], "claude");

    let events = written(Api::Responses, &streaming("claude"), &deltas);
    let response = check_responses_events(&events);
    assert_eq!(events.last().unwrap()["type"], "response.completed");
    let read = read_reply(Api::Responses, &response).unwrap();
    assert_eq!(read.parts, vec![text, call]);
    assert_eq!(read.finish, Finish::ToolCalls);
    assert_eq!(response["usage"]["input_tokens"], 60);
    assert_eq!(response["usage"]["output_tokens"], 30);

    // The stream's reply is the whole reply's, the call's arguments the same JSON (the
    // stream gives them as the model wrote them; a whole reply as an object).
    let whole = json!({
        "id": "msg_01ABC", "type": "message", "role": "assistant", "model": "claude",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_01X", "name": "get_weather", "input": {"city": "Paris"}},
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 50, "cache_read_input_tokens": 10, "output_tokens": 30},
    });
    let parsed = |mut reply: Reply| {
        for part in &mut reply.parts {
            if let Part::Call(call) = part {
                call.arguments = serde_json::from_str::<Value>(&call.arguments)
                    .unwrap()
                    .to_string();
            }
        }
        reply
    };
    assert_eq!(
        parsed(collected(&deltas)),
        parsed(read_reply(Api::Messages, &whole).unwrap())
    );
}

/// A stream written in each API and read back gives the deltas' reply.
#[test]
fn every_api_streams_to_itself() {
    let deltas = vec![
        Delta::Start {
            id: "x".to_owned(),
            model: Some("m".to_owned()),
            created: Some(1),
        },
        Delta::Reasoning("Hm.".to_owned()),
        Delta::Text("Hi.".to_owned()),
        Delta::CallStart {
            index: 0,
            id: "call_1".to_owned(),
            name: "f".to_owned(),
        },
        Delta::CallArguments {
            index: 0,
            delta: "{\"a\":".to_owned(),
        },
        Delta::CallArguments {
            index: 0,
            delta: "1}".to_owned(),
        },
        Delta::CallStart {
            index: 1,
            id: "call_2".to_owned(),
            name: "g".to_owned(),
        },
        Delta::Finish(Finish::ToolCalls),
    ];
    let expected = collected(&deltas).parts;
    for api in Api::ALL {
        let events = written(api, &streaming("m"), &deltas);
        let read = collected(&self::deltas(api, &events));
        assert_eq!(read.parts, expected, "{api}");
        assert_eq!(read.finish, Finish::ToolCalls, "{api}");
    }
}

fn word() -> impl Strategy<Value = String> {
    "[ -~é°]{1,12}"
}

fn arguments() -> impl Strategy<Value = String> {
    prop::collection::vec(("[a-z]{1,6}", any::<i32>()), 0..3).prop_map(|pairs| {
        let object: serde_json::Map<String, Value> = pairs
            .into_iter()
            .map(|(key, value)| (key, json!(value)))
            .collect();
        Value::Object(object).to_string()
    })
}

fn call() -> impl Strategy<Value = Call> {
    ("[A-Za-z0-9_-]{1,12}", "[a-z_]{1,8}", arguments()).prop_map(|(id, name, arguments)| Call {
        id,
        name,
        arguments,
    })
}

fn image() -> impl Strategy<Value = Part> {
    prop_oneof![
        Just("data:image/png;base64,iVBORw0KGgo=".to_owned()),
        "https://example\\.com/[a-z]{1,5}\\.png",
    ]
    .prop_map(|url| Part::Image { url, detail: None })
}

/// One round: the assistant's text and calls, then the user's results and words (the
/// roles alternate, as Messages requires).
fn round() -> impl Strategy<Value = Vec<Message>> {
    (
        prop::option::of(word()),
        prop::collection::vec((call(), word()), 0..3),
        prop::option::of(word()),
    )
        .prop_map(|(said, calls, words)| {
            let mut assistant = Vec::new();
            let mut user = Vec::new();
            if said.is_some() || calls.is_empty() {
                assistant.push(Part::Text {
                    text: said.unwrap_or_else(|| "ok".to_owned()),
                });
            }
            for (call, result) in calls {
                user.push(Part::Result(ToolResult {
                    call_id: call.id.clone(),
                    content: vec![Part::Text { text: result }],
                    is_error: false,
                }));
                assistant.push(Part::Call(call));
            }
            if words.is_some() || user.is_empty() {
                user.push(Part::Text {
                    text: words.unwrap_or_else(|| "go on".to_owned()),
                });
            }
            vec![
                Message {
                    role: Role::Assistant,
                    parts: assistant,
                },
                Message {
                    role: Role::User,
                    parts: user,
                },
            ]
        })
}

fn tool() -> impl Strategy<Value = Tool> {
    ("[a-z_]{1,8}", prop::option::of(word()), any::<bool>()).prop_map(
        |(name, description, strict)| Tool {
            name,
            description,
            parameters: json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
            strict: Some(strict),
        },
    )
}

prop_compose! {
    fn request()(
        system in prop::option::of(word()),
        first in word(),
        picture in prop::option::of(image()),
        rounds in prop::collection::vec(round(), 0..3),
        tools in prop::collection::vec(tool(), 0..3),
        choice in 0..5u8,
        max_tokens in 1..100_000u64,
        temperature in prop::option::of(0..=20u8),
        top_p in prop::option::of(0..=10u8),
        stream in any::<bool>(),
        schema in any::<bool>(),
        user in prop::option::of(word()),
    ) -> Request {
        let mut messages = Vec::new();
        if let Some(system) = system {
            messages.push(Message { role: Role::System, parts: vec![Part::Text { text: system }] });
        }
        let mut parts = vec![Part::Text { text: first }];
        parts.extend(picture);
        messages.push(Message { role: Role::User, parts });
        messages.extend(rounds.into_iter().flatten());
        let tool_choice = match (tools.first(), choice) {
            (None, _) | (_, 0) => None,
            (_, 1) => Some(ToolChoice::Auto),
            (_, 2) => Some(ToolChoice::None),
            (_, 3) => Some(ToolChoice::Required),
            (Some(tool), _) => Some(ToolChoice::Named(tool.name.clone())),
        };
        Request {
            model: Some("m".to_owned()),
            messages,
            tools,
            tool_choice,
            max_tokens: Some(max_tokens),
            temperature: temperature.map(|tenths| f64::from(tenths) / 10.0),
            top_p: top_p.map(|tenths| f64::from(tenths) / 10.0),
            stream,
            response_format: schema.then(|| ResponseFormat::JsonSchema {
                name: "output".to_owned(),
                schema: json!({"type": "object", "properties": {"answer": {"type": "string"}}}),
                strict: None,
                description: None,
            }),
            user,
            ..Request::default()
        }
    }
}

proptest! {
    /// Any conversation all three APIs can say, written in each and read back, is itself.
    #[test]
    fn any_conversation_survives_every_api(request in request()) {
        for api in Api::ALL {
            prop_assert_eq!(&through(api, &request), &request, "{}", api);
        }
    }
}
