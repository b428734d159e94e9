//! `tooldef gateway`: the configuration from a file and flags, logs on stderr (and spans over
//! OTLP when asked: `traces.rs`), and the gateway served until Ctrl-C or SIGTERM.

use std::process::ExitCode;

use tooldef_gateway::{Api, Config, GatewayBuilder, ServerConfig};

use crate::args::GatewayArgs;
use crate::failure::Failure;

/// Runs the gateway until it is asked to stop.
pub fn run(args: GatewayArgs) -> Result<ExitCode, Failure> {
    let config = config(&args)?;
    let traces = crate::traces::install(config.otlp_endpoint.as_deref())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|err| Failure::input(format!("cannot start the async runtime: {err}")))?;
    let served = runtime.block_on(async move {
        let listen = config.listen;
        let gateway = GatewayBuilder::from_config(config)
            .start()
            .await
            .map_err(|err| Failure::input(err.to_string()))?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|err| Failure::input(format!("cannot listen on {listen}: {err}")))?;
        let address = listener
            .local_addr()
            .map_err(|err| Failure::input(format!("cannot listen on {listen}: {err}")))?;
        eprintln!("tooldef gateway: listening on http://{address}");
        gateway
            .serve(listener)
            .await
            .map_err(|err| Failure::input(format!("serving on {address} failed: {err}")))?;
        Ok(ExitCode::SUCCESS)
    });
    // The gateway has stopped: the spans still waiting for their batch go out now.
    traces.flush();
    served
}

/// The file's configuration with the flags over it.
fn config(args: &GatewayArgs) -> Result<Config, Failure> {
    let mut config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|err| {
                Failure::input(format!(
                    "cannot read {}: {}",
                    path.display(),
                    crate::input::io_reason(&err)
                ))
            })?;
            // Checked once the flags are over it: `--upstream` completes a file that names none.
            Config::read_toml(&text)
                .map_err(|err| Failure::input(format!("{}: {err}", path.display())))?
        }
        None => Config::new(args.upstream.clone().ok_or_else(|| {
            Failure::input("no upstream: give --upstream URL or a --config file that names one")
        })?),
    };
    if let Some(upstream) = &args.upstream {
        config.upstream.clone_from(upstream);
    }
    if !args.upstream_api.is_empty() {
        config.upstream_apis = args
            .upstream_api
            .iter()
            .map(|name| {
                Api::from_name(name.trim()).ok_or_else(|| {
                    Failure::input(format!(
                        "--upstream-api `{name}`: the APIs are `chat`, `responses` and `messages`"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
    }
    if let Some(listen) = args.listen {
        config.listen = listen;
    }
    if let Some(mode) = &args.mode {
        config.mode = mode.parse().map_err(Failure::input)?;
    }
    if let Some(rounds) = args.max_rounds {
        config.max_rounds = rounds;
    }
    if let Some(calls) = args.max_tool_calls {
        config.max_tool_calls = Some(calls);
    }
    if let Some(tools) = args.max_tools {
        config.max_tools = Some(tools);
    }
    config.pinned.extend(args.pinned.iter().cloned());
    if let Some(grouping) = &args.tool_grouping {
        config.tool_grouping = grouping
            .parse()
            .map_err(|why| Failure::input(format!("--tool-grouping: {why}")))?;
    }
    if let Some(discovery) = &args.discovery {
        config.discovery = discovery
            .parse()
            .map_err(|why| Failure::input(format!("--discovery: {why}")))?;
    }
    if let Some(cache) = &args.anthropic_cache_tools {
        config.anthropic_cache_tools = cache
            .parse()
            .map_err(|why| Failure::input(format!("--anthropic-cache-tools: {why}")))?;
    }
    if let Some(grace) = args.shutdown_grace {
        config.shutdown_grace_secs = grace;
    }
    if let Some(timeout) = args.tool_timeout {
        config.tool_timeout_secs = timeout;
    }
    if let Some(separator) = &args.separator {
        config.separator.clone_from(separator);
    }
    if args.key_env.is_some() {
        config.key_env.clone_from(&args.key_env);
    }
    if args.upstream_key_env.is_some() {
        config.upstream_key_env.clone_from(&args.upstream_key_env);
    }
    if args.store.is_some() {
        config.store.clone_from(&args.store);
    }
    if args.otlp_endpoint.is_some() {
        config.otlp_endpoint.clone_from(&args.otlp_endpoint);
    }
    config.trace_content |= args.trace_content;
    for spec in &args.mcp {
        let (name, command) = named(spec, "--mcp", "NAME=PROGRAM ARG...")?;
        let mut words = command.split_whitespace().map(str::to_owned);
        let program = words
            .next()
            .ok_or_else(|| Failure::input(format!("--mcp `{spec}`: no program after `{name}=`")))?;
        config
            .servers
            .insert(name.to_owned(), ServerConfig::stdio(program, words));
    }
    for spec in &args.mcp_url {
        let (name, url) = named(spec, "--mcp-url", "NAME=URL")?;
        config
            .servers
            .insert(name.to_owned(), ServerConfig::http(url.trim()));
    }
    config
        .check()
        .map_err(|err| Failure::input(err.to_string()))?;
    Ok(config)
}

fn named<'a>(spec: &'a str, flag: &str, shape: &str) -> Result<(&'a str, &'a str), Failure> {
    match spec.split_once('=') {
        Some((name, rest)) if !name.trim().is_empty() => Ok((name.trim(), rest)),
        _ => Err(Failure::input(format!("{flag} `{spec}`: expected {shape}"))),
    }
}
