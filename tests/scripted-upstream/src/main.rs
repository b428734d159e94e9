//! `scripted-upstream`: an OpenAI-compatible server standing in for the model provider in the
//! gateway's end-to-end tests and benchmarks. It answers Chat Completions and Responses requests,
//! whole or streamed, in OpenAI's documented wire formats, playing the `SCRIPT:` a test writes
//! into its last user message (see `script`), refusing conversations OpenAI would refuse (see
//! `validate`), and recording what it receives (see `log`).
//!
//! ```text
//! scripted-upstream [--listen 127.0.0.1:0] [--no-log]
//! ```
//!
//! Once listening it prints `listening on http://ADDRESS:PORT` on stdout; it stops on SIGTERM or
//! SIGINT.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;

const USAGE: &str = "usage: scripted-upstream [--listen ADDRESS] [--no-log]

  --listen ADDRESS  where to listen (default 127.0.0.1:0, any free port)
  --no-log          do not record requests (GET /_log then answers [])";

/// How long open streams and delayed replies get to finish once asked to stop.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

struct Options {
    listen: String,
    log: bool,
}

impl Options {
    /// `Ok(None)` for `--help`.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Self>, String> {
        let mut options = Options {
            listen: "127.0.0.1:0".into(),
            log: true,
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--listen" => {
                    options.listen = args.next().ok_or("--listen needs an address")?;
                }
                "--no-log" => options.log = false,
                "-h" | "--help" => return Ok(None),
                _ => match arg.strip_prefix("--listen=") {
                    Some(address) => options.listen = address.to_owned(),
                    None => return Err(format!("unknown argument '{arg}'")),
                },
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
    let app = Arc::new(tooldef_scripted_upstream::App::new(options.log));
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
