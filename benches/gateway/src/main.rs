//! `gateway-bench`: `tooldef gateway` against the same scripted upstream reached directly.
//!
//! It starts `scripted-upstream`, `tooldef gateway` and `bare-proxy` (found next to this program, in
//! `target/release`), the gateway injecting the first 100 tools of the github-mcp-server corpus
//! from `corpus-mcp-server`; then it sends the same request (a system and a user message, model
//! `scripted-1`, which the upstream answers "ok") of each of six kinds (Chat Completions,
//! Responses and Messages, whole and streamed) to four places, in alternating blocks so that the machine's
//! drift falls on all alike:
//!
//! - *direct*: the upstream itself;
//! - *direct + tools*: the upstream, with the gateway's 100 injected tools in the request, which
//!   is what the upstream receives through the gateway (its own cost of reading them);
//! - *gateway*: the gateway, which injects the tools and forwards to the upstream;
//! - *bare hop + tools*: `bare-proxy` in front of the upstream, sent what *direct + tools* is:
//!   the same HTTP stack as the gateway's, forwarding bytes only, the floor of one more hop.
//!
//! It measures latency one request at a time (p50, p99, until the whole answer or stream is
//! read), requests per second at a higher concurrency with the gateway's, the upstream's and
//! `bare-proxy`'s CPU time per request (from `/proc/PID/stat`; the gateway's less the bare hop's
//! is its own work, steadier than a p50 on a shared machine), and the gateway's resident memory
//! (`VmRSS`) after startup and after 1,000, 5,000 and 10,000 requests. The children are stopped
//! at the end, on error and on panic.
//!
//! With `--conversations N` it measures something else instead (the `conversations` module): waves
//! of N streamed conversations at once, each with one injected call, through the gateway and
//! directly (the client making both rounds itself): each conversation's latency, conversations
//! per second, and the gateway's memory at its peak in each wave and after it, to show that it
//! holds them with flat memory.
//!
//! ```text
//! cargo build --release -p tooldef-cli -p tooldef-scripted-upstream -p tooldef-gateway-bench
//! target/release/gateway-bench [--requests 2000] [--warmup 200] [--block 100]
//!     [--concurrency 32] [--throughput-requests 2000] [--throughput-block 500] [--tools 100]
//!     [--corpus FILE] [--memory-steps 1000,5000,10000] [--memory-only]
//!     [--conversations N [--waves W] [--stream-gap MS]]
//! ```

mod conversations;
mod load;
mod procs;

use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Duration;

use reqwest::Client;
use serde_json::Value;

use load::{Kind, Request};
use procs::Child;

const USAGE: &str = "usage: gateway-bench [OPTIONS]

  --requests N             latency samples per kind and place, one at a time (2000)
  --warmup N               unmeasured requests before them (200)
  --block N                requests per block; the places alternate block by block (100)
  --concurrency C          requests in flight in the throughput and memory runs (32)
  --throughput-requests N  requests per kind and place in the throughput run (2000)
  --throughput-block N     requests per block of the throughput run (500)
  --tools N                tools the gateway injects (100)
  --corpus FILE            the tools/list file they come from
                           (tests/fixtures/corpus/github-mcp-server.tools.json)
  --memory-steps LIST      after how many requests to read the gateway's memory
                           (1000,5000,10000)
  --memory-only            run only the memory part
  --conversations N        instead: waves of N streamed conversations at once, each with an
                           injected call, through the gateway and directly
  --waves W                how many waves of each API and place (3)
  --stream-gap MS          between the answer's streamed words (150: 3 s answers)

Run from anywhere: the servers are the ones next to this program (target/release).";

struct Options {
    requests: usize,
    warmup: usize,
    block: usize,
    concurrency: usize,
    throughput_requests: usize,
    throughput_block: usize,
    tools: usize,
    corpus: PathBuf,
    /// After how many requests the memory run reads the gateway's memory.
    memory_steps: Vec<usize>,
    /// Only the memory run.
    memory_only: bool,
    /// Instead of the rest: waves of this many conversations at once.
    conversations: Option<usize>,
    waves: usize,
    stream_gap_ms: usize,
}

impl Options {
    /// `Ok(None)` for `--help`.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
        let mut options = Options {
            requests: 2_000,
            warmup: 200,
            block: 100,
            concurrency: 32,
            throughput_requests: 2_000,
            throughput_block: 500,
            tools: 100,
            corpus: PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/fixtures/corpus/github-mcp-server.tools.json"
            )),
            memory_steps: vec![1_000, 5_000, 10_000],
            memory_only: false,
            conversations: None,
            waves: 3,
            stream_gap_ms: 150,
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-h" | "--help" => return Ok(None),
                "--memory-only" => {
                    options.memory_only = true;
                    continue;
                }
                _ => {}
            }
            let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
            let number = || -> Result<usize, String> {
                match value.parse::<usize>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(format!("{arg} {value}: expected a positive number")),
                }
            };
            match arg.as_str() {
                "--requests" => options.requests = number()?,
                "--warmup" => options.warmup = number()?,
                "--block" => options.block = number()?,
                "--concurrency" => options.concurrency = number()?,
                "--throughput-requests" => options.throughput_requests = number()?,
                "--throughput-block" => options.throughput_block = number()?,
                "--tools" => options.tools = number()?,
                "--conversations" => options.conversations = Some(number()?),
                "--waves" => options.waves = number()?,
                "--stream-gap" => options.stream_gap_ms = number()?,
                "--corpus" => options.corpus = PathBuf::from(&value),
                "--memory-steps" => {
                    options.memory_steps = value
                        .split(',')
                        .map(|step| step.trim().replace('_', "").parse::<usize>())
                        .collect::<Result<_, _>>()
                        .ok()
                        .filter(|steps: &Vec<usize>| {
                            steps.windows(2).all(|w| w[0] < w[1])
                                && steps.first().is_some_and(|&first| first >= 4)
                        })
                        .ok_or_else(|| {
                            format!("--memory-steps {value}: expected increasing counts, from 4")
                        })?;
                }
                _ => return Err(format!("unknown argument `{arg}`")),
            }
        }
        Ok(Some(options))
    }
}

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("gateway-bench: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("gateway-bench: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The four places a request goes.
const PLACES: [&str; 4] = ["direct", "direct + tools", "gateway", "bare hop + tools"];
const DIRECT: usize = 0;
const WITH_TOOLS: usize = 1;
const GATEWAY: usize = 2;
/// `bare-proxy` in front of the upstream, sent what *direct + tools* is: the floor of one more
/// HTTP hop with the gateway's own HTTP stack, which any proxy pays.
const BARE: usize = 3;

/// The running servers.
struct Servers {
    upstream: Child,
    gateway: Child,
    /// `bare-proxy`, which only forwards.
    bare: Child,
    upstream_base: String,
    gateway_base: String,
    bare_base: String,
}

fn run(options: &Options) -> Result<(), String> {
    let bin_dir = std::env::current_exe()
        .map_err(|err| format!("cannot find this program's directory: {err}"))?
        .parent()
        .map(PathBuf::from)
        .ok_or("cannot find this program's directory")?;
    let corpus = options
        .corpus
        .canonicalize()
        .map_err(|err| format!("{}: {err}", options.corpus.display()))?;
    let mcp_server = procs::sibling(&bin_dir, "corpus-mcp-server")?;

    let mut upstream = Command::new(procs::sibling(&bin_dir, "scripted-upstream")?);
    upstream.args(["--listen", "127.0.0.1:0", "--no-log"]);
    let (upstream, upstream_address) =
        procs::start("scripted-upstream", upstream, "listening on ", false)?;
    let upstream_base = format!("{upstream_address}/v1");

    let mut gateway = Command::new(procs::sibling(&bin_dir, "tooldef")?);
    gateway.args(["gateway", "--listen", "127.0.0.1:0", "--upstream"]);
    gateway.arg(&upstream_base).arg("--mcp").arg(format!(
        "corpus={mcp_server} {} --limit {}",
        corpus.display(),
        options.tools
    ));
    let (gateway, gateway_address) = procs::start(
        "the gateway",
        gateway,
        "tooldef gateway: listening on ",
        true,
    )?;
    let mut bare = Command::new(procs::sibling(&bin_dir, "bare-proxy")?);
    bare.args(["--listen", "127.0.0.1:0", "--upstream", &upstream_address]);
    let (bare, bare_address) = procs::start("bare-proxy", bare, "bare-proxy: listening on ", true)?;
    let servers = Servers {
        upstream,
        gateway,
        bare,
        upstream_base,
        gateway_base: format!("{gateway_address}/v1"),
        bare_base: format!("{bare_address}/v1"),
    };
    eprintln!(
        "gateway-bench: upstream {} (pid {}), gateway {} (pid {}), bare hop {} (pid {})",
        servers.upstream_base,
        servers.upstream.pid(),
        servers.gateway_base,
        servers.gateway.pid(),
        servers.bare_base,
        servers.bare.pid()
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start the async runtime: {err}"))?;
    runtime
        .block_on(bench(options, &servers))
        .map_err(|message| {
            format!(
                "{message}\nthe gateway's last output:\n{}",
                servers.gateway.last_output()
            )
        })
}

async fn get_json(client: &Client, url: &str) -> Result<Value, String> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|err| format!("GET {url}: {err}"))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|err| format!("GET {url}: {err}"))?;
    if !status.is_success() {
        return Err(format!("GET {url}: {status}: {text}"));
    }
    serde_json::from_str(&text).map_err(|err| format!("GET {url}: not JSON: {err}"))
}

/// The tools the gateway injects for `target`, checked to be `expected` many.
async fn injected_tools(
    client: &Client,
    servers: &Servers,
    target: &str,
    expected: usize,
) -> Result<Vec<Value>, String> {
    let url = format!("{}/tools?target={target}", servers.gateway_base);
    let listed = get_json(client, &url).await?;
    let tools = listed
        .get("data")
        .and_then(Value::as_array)
        .cloned()
        .ok_or_else(|| format!("GET {url}: no `data` array"))?;
    if tools.len() != expected {
        return Err(format!(
            "the gateway injects {} tools for {target}, not {expected}",
            tools.len()
        ));
    }
    Ok(tools)
}

/// What a place's requests of each kind are.
struct Place {
    requests: [Request; 6],
}

impl Place {
    fn of(&self, kind: Kind) -> &Request {
        &self.requests[Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0)]
    }
}

/// Latency samples, throughput and CPU time of one kind at each place.
#[derive(Default)]
struct Figures {
    samples: [Vec<Duration>; 4],
    requests: [usize; 4],
    wall: [Duration; 4],
    /// The gateway's, the upstream's and `bare-proxy`'s CPU ticks during each place's
    /// throughput blocks.
    gateway_ticks: [u64; 4],
    upstream_ticks: [u64; 4],
    bare_ticks: [u64; 4],
}

async fn bench(options: &Options, servers: &Servers) -> Result<(), String> {
    let client = load::client()?;
    let health = get_json(&client, &format!("{}/healthz", gateway_root(servers))).await?;
    for server in health["servers"].as_array().into_iter().flatten() {
        eprintln!("gateway-bench: MCP server {server}");
    }
    let chat_tools =
        injected_tools(&client, servers, load::Api::Chat.name(), options.tools).await?;
    let responses_tools =
        injected_tools(&client, servers, load::Api::Responses.name(), options.tools).await?;
    let messages_tools =
        injected_tools(&client, servers, load::Api::Messages.name(), options.tools).await?;
    let startup = procs::memory_kib(servers.gateway.pid())?;
    if let Some(count) = options.conversations {
        let tools = [chat_tools.as_slice(), responses_tools.as_slice()];
        return bench_conversations(options, servers, &client, count, startup.0, tools).await;
    }

    let place = |base: &str, with_tools: bool| Place {
        requests: Kind::ALL.map(|kind| Request {
            url: format!("{base}{}", kind.path()),
            body: kind.body(with_tools.then_some(match kind.api() {
                load::Api::Chat => chat_tools.as_slice(),
                load::Api::Responses => responses_tools.as_slice(),
                load::Api::Messages => messages_tools.as_slice(),
            })),
        }),
    };
    let places = [
        place(&servers.upstream_base, false),
        place(&servers.upstream_base, true),
        place(&servers.gateway_base, false),
        place(&servers.bare_base, true),
    ];
    for kind in Kind::ALL {
        for (name, place) in PLACES.iter().zip(&places) {
            let text = load::fetch_text(&client, place.of(kind)).await?;
            if !kind.answered(&text) {
                return Err(format!(
                    "{}, {name}: not the scripted answer: {}",
                    kind.label(),
                    text.chars().take(600).collect::<String>()
                ));
            }
        }
    }
    eprintln!(
        "gateway-bench: request bodies {} bytes (Chat), {} (Responses) and {} (Messages); with the {} tools {}, {} and {} bytes",
        places[DIRECT].of(Kind::Chat).body.len(),
        places[DIRECT].of(Kind::Responses).body.len(),
        places[DIRECT].of(Kind::Messages).body.len(),
        options.tools,
        places[WITH_TOOLS].of(Kind::Chat).body.len(),
        places[WITH_TOOLS].of(Kind::Responses).body.len(),
        places[WITH_TOOLS].of(Kind::Messages).body.len(),
    );

    // Memory first, from a fresh gateway: a mix of the six kinds.
    let gateway_pid = servers.gateway.pid();
    let mixed: Vec<Request> = Kind::ALL
        .iter()
        .map(|kind| places[GATEWAY].of(*kind).clone())
        .collect();
    let mut memory = vec![(0, startup)];
    // The checks above sent one request of each kind through the gateway.
    let mut served = Kind::ALL.len();
    for &step in &options.memory_steps {
        eprintln!("gateway-bench: memory: {served}..{step} requests");
        load::run(&client, &mixed, step - served, options.concurrency).await?;
        served = step;
        memory.push((served, procs::memory_kib(gateway_pid)?));
    }
    if options.memory_only {
        print_memory(options, &memory, None);
        return Ok(());
    }

    let mut figures: Vec<Figures> = Kind::ALL.iter().map(|_| Figures::default()).collect();
    let blocks = options.requests.div_ceil(options.block);
    for (kind, figures) in Kind::ALL.iter().zip(&mut figures) {
        eprintln!("gateway-bench: latency: {}", kind.label());
        for place in &places {
            load::run(
                &client,
                std::slice::from_ref(place.of(*kind)),
                options.warmup,
                1,
            )
            .await?;
        }
        for block in 0..blocks {
            for turn in 0..PLACES.len() {
                let at = (block + turn) % PLACES.len();
                let (samples, _) = load::run(
                    &client,
                    std::slice::from_ref(places[at].of(*kind)),
                    options.block,
                    1,
                )
                .await?;
                figures.samples[at].extend(samples);
            }
        }
        served += blocks * options.block + options.warmup;
    }

    let upstream_pid = servers.upstream.pid();
    let bare_pid = servers.bare.pid();
    let blocks = options
        .throughput_requests
        .div_ceil(options.throughput_block);
    for (kind, figures) in Kind::ALL.iter().zip(&mut figures) {
        eprintln!(
            "gateway-bench: throughput at {}: {}",
            options.concurrency,
            kind.label()
        );
        for place in &places {
            let request = std::slice::from_ref(place.of(*kind));
            load::run(
                &client,
                request,
                options.concurrency * 4,
                options.concurrency,
            )
            .await?;
        }
        for block in 0..blocks {
            for turn in 0..PLACES.len() {
                let at = (block + turn) % PLACES.len();
                let gateway_before = procs::cpu_ticks(gateway_pid)?;
                let upstream_before = procs::cpu_ticks(upstream_pid)?;
                let bare_before = procs::cpu_ticks(bare_pid)?;
                let (_, wall) = load::run(
                    &client,
                    std::slice::from_ref(places[at].of(*kind)),
                    options.throughput_block,
                    options.concurrency,
                )
                .await?;
                figures.gateway_ticks[at] += procs::cpu_ticks(gateway_pid)? - gateway_before;
                figures.upstream_ticks[at] += procs::cpu_ticks(upstream_pid)? - upstream_before;
                figures.bare_ticks[at] += procs::cpu_ticks(bare_pid)? - bare_before;
                figures.requests[at] += options.throughput_block;
                figures.wall[at] += wall;
            }
        }
        served += blocks * options.throughput_block + options.concurrency * 4;
    }
    let end = procs::memory_kib(gateway_pid)?;

    print_report(options, &mut figures, &memory, (served, end));
    Ok(())
}

/// Waves of `count` streamed conversations at once, each with one injected call, through the
/// gateway and directly, the two alternating wave by wave; then the table.
async fn bench_conversations(
    options: &Options,
    servers: &Servers,
    client: &Client,
    count: usize,
    startup_kib: u64,
    tools: [&[Value]; 2],
) -> Result<(), String> {
    use conversations::{Api, wave};
    let gap = options.stream_gap_ms as u64;
    let gateway_pid = servers.gateway.pid();
    let mut rows = Vec::new();
    let mut memory = vec![("after startup".to_owned(), startup_kib, startup_kib)];
    for (api, tools) in Api::BOTH.into_iter().zip(tools) {
        // Unmeasured: one small wave each, so that connections and caches are warm.
        for (base, tools) in [
            (&servers.upstream_base, Some(tools)),
            (&servers.gateway_base, None),
        ] {
            wave(client, api, base, tools, count.min(50), gap, None).await?;
        }
        let mut samples = [Vec::new(), Vec::new()];
        let mut walls = [Duration::ZERO; 2];
        for w in 0..options.waves {
            for at in [w % 2, (w + 1) % 2] {
                let (base, through) = if at == 0 {
                    (&servers.upstream_base, false)
                } else {
                    (&servers.gateway_base, true)
                };
                eprintln!(
                    "gateway-bench: {}: wave {} of {count}, {}",
                    api.label(),
                    w + 1,
                    ["direct", "gateway"][at]
                );
                let watch = through.then_some(gateway_pid);
                let direct_tools = (!through).then_some(tools);
                let (latencies, wall, peak) =
                    wave(client, api, base, direct_tools, count, gap, watch).await?;
                samples[at].extend(latencies);
                walls[at] += wall;
                if through {
                    let after = procs::memory_kib(gateway_pid)?.0;
                    memory.push((format!("{}, wave {}", api.label(), w + 1), peak, after));
                }
            }
        }
        rows.push((api, samples, walls));
    }
    println!();
    println!(
        "{count} streamed conversations at once (started over a second), each with one injected call ({} waves per API and place; the answer streams {} words {gap} ms apart; directly, the client sends the gateway's tools itself and makes both rounds); latency per conversation, ms:",
        options.waves,
        conversations::WORDS,
    );
    println!();
    println!(
        "| conversation | direct + tools p50 | gateway p50 | **added p50** | direct + tools p99 | gateway p99 | **added p99** | direct conv/s | gateway conv/s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (api, mut samples, walls) in rows {
        let [p50, p99] = [50.0, 99.0].map(|p| {
            samples.each_mut().map(|samples| {
                samples.sort_unstable();
                load::percentile(samples, p)
            })
        });
        let rate = |at: usize| samples[at].len() as f64 / walls[at].as_secs_f64();
        println!(
            "| {} | {} | {} | **{}** | {} | {} | **{}** | {:.0} | {:.0} |",
            api.label(),
            ms(p50[0]),
            ms(p50[1]),
            added(p50[0], p50[1]),
            ms(p99[0]),
            ms(p99[1]),
            added(p99[0], p99[1]),
            rate(0),
            rate(1),
        );
    }
    println!();
    println!("The gateway's memory (VmRSS), at its peak during each wave and after it:");
    println!();
    println!("| when | peak during | after |");
    println!("|---|---|---|");
    for (when, peak, after) in memory {
        println!("| {when} | {} | {} |", mib(peak), mib(after));
    }
    Ok(())
}

/// The gateway's base URL without `/v1` (for `/healthz`).
fn gateway_root(servers: &Servers) -> &str {
    servers
        .gateway_base
        .strip_suffix("/v1")
        .unwrap_or(&servers.gateway_base)
}

fn ms(duration: Duration) -> String {
    format!("{:.3}", duration.as_secs_f64() * 1e3)
}

/// `b - a` in milliseconds, signed.
fn added(a: Duration, b: Duration) -> String {
    format!("{:+.3}", (b.as_secs_f64() - a.as_secs_f64()) * 1e3)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn print_report(
    options: &Options,
    figures: &mut [Figures],
    memory: &[(usize, (u64, u64))],
    end: (usize, (u64, u64)),
) {
    let tick = 1.0 / procs::clock_ticks();
    println!();
    println!(
        "Latency, one request at a time, ms ({} samples per cell, after {} warm-up; \"added\" = gateway - direct; \"own share\" = gateway - (direct + tools), what the gateway itself adds; \"hop\" = bare hop - (direct + tools), what one more HTTP hop costs any proxy; \"beyond the hop\" = gateway - bare hop):",
        options.requests, options.warmup
    );
    println!();
    println!(
        "| request | direct p50 | direct + tools p50 | gateway p50 | **added p50** | **own share p50** | bare hop p50 | hop p50 | **beyond the hop p50** | direct p99 | direct + tools p99 | gateway p99 | **added p99** |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (kind, figures) in Kind::ALL.iter().zip(figures.iter_mut()) {
        let [p50, p99] = [50.0, 99.0].map(|p| {
            figures.samples.each_mut().map(|samples| {
                samples.sort_unstable();
                load::percentile(samples, p)
            })
        });
        println!(
            "| {} | {} | {} | {} | **{}** | **{}** | {} | {} | **{}** | {} | {} | {} | **{}** |",
            kind.label(),
            ms(p50[DIRECT]),
            ms(p50[WITH_TOOLS]),
            ms(p50[GATEWAY]),
            added(p50[DIRECT], p50[GATEWAY]),
            added(p50[WITH_TOOLS], p50[GATEWAY]),
            ms(p50[BARE]),
            added(p50[WITH_TOOLS], p50[BARE]),
            added(p50[BARE], p50[GATEWAY]),
            ms(p99[DIRECT]),
            ms(p99[WITH_TOOLS]),
            ms(p99[GATEWAY]),
            added(p99[DIRECT], p99[GATEWAY]),
        );
    }
    println!();
    println!(
        "Throughput, {} in flight ({} requests per cell, in blocks of {}); CPU time per request, µs:",
        options.concurrency, options.throughput_requests, options.throughput_block
    );
    println!();
    println!(
        "| request | direct req/s | direct + tools req/s | gateway req/s | bare hop req/s | gateway / direct | **gateway / (direct + tools)** | gateway CPU | bare hop CPU | **gateway CPU beyond the hop** | upstream CPU: direct | direct + tools | via the gateway |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (kind, figures) in Kind::ALL.iter().zip(figures.iter()) {
        let rate = |at: usize| figures.requests[at] as f64 / figures.wall[at].as_secs_f64();
        let micros =
            |ticks: u64, at: usize| ticks as f64 * tick * 1e6 / figures.requests[at] as f64;
        let cpu = |ticks: u64, at: usize| format!("{:.0}", micros(ticks, at));
        println!(
            "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.3} | **{:.2}** | {} | {} | **{:+.0}** | {} | {} | {} |",
            kind.label(),
            rate(DIRECT),
            rate(WITH_TOOLS),
            rate(GATEWAY),
            rate(BARE),
            rate(GATEWAY) / rate(DIRECT),
            // The acceptance of issue 35: the upstream's own cost of the tools taken out.
            rate(GATEWAY) / rate(WITH_TOOLS),
            cpu(figures.gateway_ticks[GATEWAY], GATEWAY),
            cpu(figures.bare_ticks[BARE], BARE),
            // What the gateway's process spends on a request beyond what a process that only
            // forwards it spends: its own work, measured in the same alternating blocks.
            micros(figures.gateway_ticks[GATEWAY], GATEWAY)
                - micros(figures.bare_ticks[BARE], BARE),
            cpu(figures.upstream_ticks[DIRECT], DIRECT),
            cpu(figures.upstream_ticks[WITH_TOOLS], WITH_TOOLS),
            cpu(figures.upstream_ticks[GATEWAY], GATEWAY),
        );
    }
    let idle: u64 = figures
        .iter()
        .map(|f| f.gateway_ticks[DIRECT] + f.gateway_ticks[WITH_TOOLS])
        .sum();
    println!();
    println!(
        "(The gateway's CPU while the upstream was reached directly: {:.2} s in all.)",
        idle as f64 * tick
    );
    print_memory(options, memory, Some(end));
}

/// The memory table, with the figure at the end of the whole run when there is one.
fn print_memory(
    options: &Options,
    memory: &[(usize, (u64, u64))],
    end: Option<(usize, (u64, u64))>,
) {
    println!();
    println!(
        "The gateway's memory, a mix of the six kinds, {} in flight:",
        options.concurrency
    );
    println!();
    println!("| requests served | VmRSS | VmHWM (peak) |");
    println!("|---|---|---|");
    for (served, (rss, hwm)) in memory {
        let label = if *served == 0 {
            "0 (after startup)".to_owned()
        } else {
            thousands(*served)
        };
        println!("| {label} | {} | {} |", mib(*rss), mib(*hwm));
    }
    let Some((served, (rss, hwm))) = end else {
        return;
    };
    println!(
        "| {} (at the end of the run) | {} | {} |",
        thousands(served),
        mib(rss),
        mib(hwm)
    );
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
