//! Many streamed conversations at once, each with one injected tool call: through the gateway
//! (one client request; the gateway streams round 1, runs the call on the MCP server, streams
//! round 2), and directly (the client streams round 1 from the upstream, then streams round 2
//! with the call's result itself, as a client without the gateway would, the call's result
//! written by the client at no cost). Each conversation's latency is until its last stream is
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
const WORDS: usize = 20;

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

    /// The conversation's first request: what the client sends the gateway, and round 1 of the
    /// direct conversation.
    fn first(self, base: &str, gap_ms: u64) -> Request {
        let call_id = "call_bench_1";
        let user = json!({"role": "user", "content": user_text(call_id, gap_ms)});
        let body = match self {
            Api::Chat => json!({"model": "scripted-1", "stream": true, "messages": [user]}),
            Api::Responses => json!({"model": "scripted-1", "stream": true, "input": [user]}),
        };
        Request {
            url: format!("{base}{}", self.path()),
            body: Bytes::from(body.to_string()),
        }
    }

    /// Round 2 of the direct conversation: the call and its result after the user's message.
    fn second(self, base: &str, gap_ms: u64) -> Request {
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
        Request {
            url: format!("{base}{}", self.path()),
            body: Bytes::from(body.to_string()),
        }
    }
}

/// One wave: `count` conversations started together; each one's latency, the wave's wall time,
/// and the gateway's peak resident memory sampled while they ran (when `watch` is its pid).
pub async fn wave(
    client: &Client,
    api: Api,
    base: &str,
    through_gateway: bool,
    count: usize,
    gap_ms: u64,
    watch: Option<u32>,
) -> Result<(Vec<Duration>, Duration, u64), String> {
    let first = api.first(base, gap_ms);
    let second = api.second(base, gap_ms);
    let started = Instant::now();
    let mut conversations = tokio::task::JoinSet::new();
    for _ in 0..count {
        let client = client.clone();
        let (first, second) = (first.clone(), second.clone());
        conversations.spawn(async move {
            let started = Instant::now();
            send(&client, &first).await?;
            if !through_gateway {
                send(&client, &second).await?;
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
