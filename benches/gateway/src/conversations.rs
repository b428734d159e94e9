//! Many streamed conversations at once, each with one injected tool call: through the gateway
//! (one client request; the gateway streams round 1, runs the call on the MCP server, streams
//! round 2), and directly (the client streams round 1 from the upstream, then streams round 2
//! with the call's result itself, as a client without the gateway would, the call's result
//! written by the client at no cost, and the same tools in both requests as the gateway sends:
//! the upstream's and the client's cost of them is not the gateway's). Each conversation's latency is until its last stream is
//! read; the answer streams slowly (`stream_delay_ms`) so that the conversations overlap and the
//! gateway holds them all at once.

use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::Client;
use serde_json::{Value, json};

use crate::load::{Request, send};

/// The call each conversation makes: a tool of the corpus server, under its injected name.
const TOOL: &str = "corpus__actions_list";
/// Its arguments.
fn arguments() -> Value {
    json!({"owner": "octo-org", "repo": "octo-repo", "method": "list_workflow_runs"})
}

/// The answer's words, streamed one event apart.
pub const WORDS: usize = 20;
/// Over how long a wave's conversations start.
const RAMP: Duration = Duration::from_secs(1);

/// The script in the user message: a call, then a streamed answer.
fn user_text(call_id: &str, gap_ms: u64) -> String {
    let answer: Vec<String> = (0..WORDS).map(|k| format!("w{k}")).collect();
    let script = json!([
        {"calls": [{"name": TOOL, "arguments": arguments(), "id": call_id}]},
        {"content": answer.join(" "), "stream_delay_ms": gap_ms},
    ]);
    format!("Look at the latest workflow runs.\nSCRIPT: {script}")
}

/// Chat Completions or Responses.
#[derive(Clone, Copy)]
pub enum Api {
    Chat,
    Responses,
}

impl Api {
    pub const BOTH: [Api; 2] = [Api::Chat, Api::Responses];

    pub fn label(self) -> &'static str {
        match self {
            Api::Chat => "Chat Completions, streamed",
            Api::Responses => "Responses, streamed",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Api::Chat => "/chat/completions",
            Api::Responses => "/responses",
        }
    }

    /// A request of this API to `base`, with `tools` when the client sends them itself.
    fn request(self, base: &str, mut body: Value, tools: Option<&[Value]>) -> Request {
        if let Some(tools) = tools {
            body["tools"] = Value::Array(tools.to_vec());
        }
        Request {
            url: format!("{base}{}", self.path()),
            body: Bytes::from(body.to_string()),
        }
    }

    /// The conversation's first request: what the client sends the gateway, and round 1 of the
    /// direct conversation.
    fn first(self, base: &str, gap_ms: u64, tools: Option<&[Value]>) -> Request {
        let call_id = "call_bench_1";
        let user = json!({"role": "user", "content": user_text(call_id, gap_ms)});
        let body = match self {
            Api::Chat => json!({"model": "scripted-1", "stream": true, "messages": [user]}),
            Api::Responses => json!({"model": "scripted-1", "stream": true, "input": [user]}),
        };
        self.request(base, body, tools)
    }

    /// Round 2 of the direct conversation: the call and its result after the user's message.
    fn second(self, base: &str, gap_ms: u64, tools: Option<&[Value]>) -> Request {
        let call_id = "call_bench_1";
        let user = json!({"role": "user", "content": user_text(call_id, gap_ms)});
        let arguments = arguments().to_string();
        let result = format!(
            "{} called with {arguments}",
            TOOL.trim_start_matches("corpus__")
        );
        let body = match self {
            Api::Chat => json!({"model": "scripted-1", "stream": true, "messages": [
                user,
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": call_id, "type": "function", "function": {"name": TOOL, "arguments": arguments}}]},
                {"role": "tool", "tool_call_id": call_id, "content": result},
            ]}),
            Api::Responses => json!({"model": "scripted-1", "stream": true, "input": [
                user,
                {"type": "function_call", "call_id": call_id, "name": TOOL, "arguments": arguments},
                {"type": "function_call_output", "call_id": call_id, "output": result},
            ]}),
        };
        self.request(base, body, tools)
    }
}

/// One wave: `count` conversations started together, directly with `tools` or through the
/// gateway without; each one's latency, the wave's wall time, and the gateway's peak resident
/// memory sampled while they ran (when `watch` is its pid).
pub async fn wave(
    client: &Client,
    api: Api,
    base: &str,
    tools: Option<&[Value]>,
    count: usize,
    gap_ms: u64,
    watch: Option<u32>,
) -> Result<(Vec<Duration>, Duration, u64), String> {
    // Directly, the client sends the tools itself; through the gateway, the gateway does.
    let through_gateway = tools.is_none();
    let first = api.first(base, gap_ms, tools);
    let second = api.second(base, gap_ms, tools);
    let started = Instant::now();
    let mut conversations = tokio::task::JoinSet::new();
    for k in 0..count {
        let client = client.clone();
        let (first, second) = (first.clone(), second.clone());
        // Started over a second (as users arrive, not in one instant, which only measures the
        // listen queues); each lasts longer than that, so all are under way at once.
        let at = started + RAMP.mul_f64(k as f64 / count as f64);
        conversations.spawn(async move {
            tokio::time::sleep_until(at.into()).await;
            let started = Instant::now();
            patiently(&client, &first).await?;
            if !through_gateway {
                patiently(&client, &second).await?;
            }
            Ok::<_, String>(started.elapsed())
        });
    }
    let mut peak = 0;
    let mut latencies = Vec::with_capacity(count);
    let mut sampler = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            done = conversations.join_next() => match done {
                Some(done) => latencies.push(done.map_err(|err| format!("a conversation failed: {err}"))??),
                None => break,
            },
            _ = sampler.tick() => {
                if let Some(pid) = watch {
                    peak = peak.max(crate::procs::memory_kib(pid)?.0);
                }
            }
        }
    }
    Ok((latencies, started.elapsed(), peak))
}

/// Sends a request, once more after a moment if the connection could not be made or was lost
/// before an answer (as OpenAI's SDKs retry a connection error, and as the gateway does towards
/// its upstream): at a thousand new connections a second on two cores, the upstream's queue of
/// new connections overflows now and then, for both places alike.
async fn patiently(client: &Client, request: &Request) -> Result<Duration, String> {
    match send(client, request).await {
        Err(message) if message.contains("error sending request") => {
            tokio::time::sleep(Duration::from_millis(100)).await;
            send(client, request).await
        }
        sent => sent,
    }
}
