//! `scripted-upstream`: a server standing in for the model provider in the gateway's end-to-end
//! tests and benchmarks. It answers OpenAI's Chat Completions (`POST /v1/chat/completions`) and
//! Responses (`POST /v1/responses`) and Anthropic's Messages (`POST /v1/messages`, and
//! `POST /v1/messages/count_tokens`), whole or streamed, in their documented wire formats, playing
//! the `SCRIPT:` a test writes into its last user message (see `script`: a turn's content and
//! calls, a turn cut short by the token limit, an error, before or in the middle of a stream),
//! refusing conversations the provider would refuse (see `validate` and `messages::validate`), and
//! recording what it receives (`GET /_log?marker=…`, see `log`).
//!
//! ```text
//! scripted-upstream [--listen 127.0.0.1:0] [--no-log] [--apis chat,responses,messages]
//!                   [--quirks llamacpp]
//! ```
//!
//! - `--apis`: the APIs served. The endpoints of the others answer 404 `{"error": {"message": "Not
//!   Found", "type": "not_found_error", "code": "not_found"}}`, as a Chat-only server
//!   (llama-cpp-python, an older vLLM) answers a path it does not have: for testing how the gateway
//!   finds out what its upstream speaks.
//! - `--quirks llamacpp`: answer as llama.cpp's server does where it departs from the documented
//!   shapes (bare call ids, `content: ""` beside tool calls, `timings`, Responses events without
//!   `output_index` or `sequence_number`, no `incomplete`; see `llamacpp`), for every request.
//!
//! Once listening it prints `listening on http://ADDRESS:PORT` on stdout; it stops on SIGTERM or
//! SIGINT.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tooldef_scripted_upstream::{Apis, Config, Quirks};

const USAGE: &str =
    "usage: scripted-upstream [--listen ADDRESS] [--no-log] [--apis LIST] [--quirks NAME]

  --listen ADDRESS  where to listen (default 127.0.0.1:0, any free port)
  --no-log          do not record requests (GET /_log then answers [])
  --apis LIST       the APIs to serve, comma-separated (default chat,responses,messages):
                      chat       POST /v1/chat/completions
                      responses  POST /v1/responses
                      messages   POST /v1/messages, POST /v1/messages/count_tokens
                    the endpoints of the others answer 404 Not Found
  --quirks NAME     answer as another server does where it departs from the documented
                    shapes: llamacpp (llama.cpp's server); none (the default)";

/// How long open streams and delayed replies get to finish once asked to stop.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

#[derive(Debug, PartialEq)]
struct Options {
    listen: String,
    config: Config,
}

impl Options {
    /// `Ok(None)` for `--help`.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Self>, String> {
        let mut options = Options {
            listen: "127.0.0.1:0".into(),
            config: Config::default(),
        };
        while let Some(arg) = args.next() {
            // `--name value` and `--name=value` alike.
            let (name, inline) = match arg.split_once('=') {
                Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
                _ => (arg.as_str(), None),
            };
            let mut value = |what: &str| {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("{name} needs {what}"))
            };
            match name {
                "--listen" => options.listen = value("an address")?,
                "--apis" => options.config.apis = Apis::parse(&value("a list of APIs")?)?,
                "--quirks" => options.config.quirks = Quirks::parse(&value("a name")?)?,
                "--no-log" if inline.is_none() => options.config.log = false,
                "-h" | "--help" if inline.is_none() => return Ok(None),
                _ => return Err(format!("unknown argument '{arg}'")),
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
            eprintln!("scripted-upstream: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("scripted-upstream: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("scripted-upstream: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(options: Options) -> std::io::Result<()> {
    let listener = TcpListener::bind(&options.listen).await?;
    let address = listener.local_addr()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on http://{address}")?;
        stdout.flush()?;
    }
    // Small SSE frames must not wait on Nagle's algorithm: the benchmark measures latency.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = Arc::new(tooldef_scripted_upstream::App::with_config(options.config));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(
        axum::serve(listener, tooldef_scripted_upstream::router(app))
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .into_future(),
    );
    shutdown_signal().await;
    let _ = stop.send(());
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, server).await;
    Ok(())
}

async fn shutdown_signal() {
    // A signal that cannot be listened for must not read as having arrived.
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

#[cfg(test)]
mod tests {
    use tooldef_scripted_upstream::Api;

    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Options>, String> {
        Options::parse(args.iter().map(|arg| (*arg).to_owned()))
    }

    #[test]
    fn defaults_serve_every_api_in_documented_shapes() {
        let options = parse(&[]).unwrap().unwrap();
        assert_eq!(options.listen, "127.0.0.1:0");
        assert_eq!(options.config, Config::default());
        assert!(Api::ALL.iter().all(|api| options.config.apis.serves(*api)));
    }

    #[test]
    fn options_in_both_spellings() {
        let options = parse(&[
            "--listen=127.0.0.1:9",
            "--apis",
            "chat",
            "--quirks=llamacpp",
            "--no-log",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(options.listen, "127.0.0.1:9");
        assert_eq!(options.config.apis, Apis::only(&[Api::Chat]));
        assert_eq!(options.config.quirks, Quirks::LlamaCpp);
        assert!(!options.config.log);
        let options = parse(&["--apis=chat,responses", "--listen", "[::1]:0"])
            .unwrap()
            .unwrap();
        assert_eq!(
            options.config.apis,
            Apis::only(&[Api::Chat, Api::Responses])
        );
        assert_eq!(options.listen, "[::1]:0");
        assert!(parse(&["--help"]).unwrap().is_none());
    }

    #[test]
    fn bad_options_are_refused_clearly() {
        assert_eq!(
            parse(&["--apis"]).unwrap_err(),
            "--apis needs a list of APIs"
        );
        assert!(
            parse(&["--apis", "grpc"])
                .unwrap_err()
                .contains("unknown API 'grpc'")
        );
        assert!(
            parse(&["--quirks", "vllm"])
                .unwrap_err()
                .contains("unknown quirks 'vllm'")
        );
        assert_eq!(
            parse(&["--no-log=1"]).unwrap_err(),
            "unknown argument '--no-log=1'"
        );
        assert_eq!(
            parse(&["--verbose"]).unwrap_err(),
            "unknown argument '--verbose'"
        );
    }
}
