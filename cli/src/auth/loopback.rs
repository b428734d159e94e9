//! The browser side of signing in (RFC 8252, OAuth for native apps): a redirect URI on the
//! loopback interface (`http://127.0.0.1:PORT/callback`), the authorization URL opened with the
//! system's opener or the user's command (`--auth-browser`), and always shown on stderr, since
//! the browser may open elsewhere or not at all.

use std::future::Future;
use std::pin::Pin;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tooldef_gateway::oauth::{Callback, Redirect, UserAgent};

use crate::output;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The most bytes of a request's head read from the browser.
const MAX_HEAD: usize = 8 * 1024;
/// How long a connection to the redirect URI may take to send its request.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// How the authorization URL is opened.
#[derive(Clone, Debug)]
pub enum Opener {
    /// The system's opener (`xdg-open`, `open`).
    System,
    /// A command (program and arguments) given the URL as its last argument.
    Command(Vec<String>),
    /// None: the URL is shown, for the user to open.
    Show,
}

/// The user's browser, reached through the loopback redirect.
pub struct Loopback {
    /// How the server is named in what is shown.
    pub server: String,
    /// How the URL is opened.
    pub opener: Opener,
    /// How long the user has to sign in.
    pub timeout: Duration,
}

impl UserAgent for Loopback {
    fn listen<'a>(
        &'a self,
        previous: Option<&'a str>,
    ) -> Boxed<'a, Result<Box<dyn Redirect>, String>> {
        Box::pin(async move {
            // The port of a kept registration's redirect URI, which some servers match exactly;
            // any port when it is taken.
            let port = previous
                .and_then(|uri| url::Url::parse(uri).ok())
                .filter(|uri| uri.host_str() == Some("127.0.0.1"))
                .and_then(|uri| uri.port());
            let kept = match port {
                Some(port) => TcpListener::bind(("127.0.0.1", port)).await.ok(),
                None => None,
            };
            let listener = match kept {
                Some(listener) => listener,
                None => TcpListener::bind(("127.0.0.1", 0))
                    .await
                    .map_err(|err| format!("cannot listen on the loopback interface: {err}"))?,
            };
            let port = listener
                .local_addr()
                .map_err(|err| format!("cannot listen on the loopback interface: {err}"))?
                .port();
            Ok(Box::new(Listening {
                listener,
                uri: format!("http://127.0.0.1:{port}/callback"),
                server: self.server.clone(),
                opener: self.opener.clone(),
                timeout: self.timeout,
            }) as Box<dyn Redirect>)
        })
    }
}

/// A user agent that cannot be used (no terminal, no command): signing in fails at once
/// with what to do instead, rather than waiting for a browser nobody will see.
pub struct Unavailable(pub String);

impl UserAgent for Unavailable {
    fn listen<'a>(
        &'a self,
        _previous: Option<&'a str>,
    ) -> Boxed<'a, Result<Box<dyn Redirect>, String>> {
        let why = self.0.clone();
        Box::pin(async move { Err(why) })
    }
}

struct Listening {
    listener: TcpListener,
    uri: String,
    server: String,
    opener: Opener,
    timeout: Duration,
}

impl Redirect for Listening {
    fn uri(&self) -> &str {
        &self.uri
    }

    fn visit(
        self: Box<Self>,
        authorization_url: String,
        state: String,
    ) -> Boxed<'static, Result<Callback, String>> {
        Box::pin(async move {
            let Listening {
                listener,
                server,
                opener,
                timeout,
                ..
            } = *self;
            // The URL comes from the server's metadata: only a web page is opened.
            if !matches!(
                url::Url::parse(&authorization_url)
                    .map(|u| u.scheme().to_owned())
                    .as_deref(),
                Ok("https" | "http")
            ) {
                return Err(format!(
                    "the authorization server's sign-in page is not an http(s) URL: \
                     `{authorization_url}`"
                ));
            }
            output::stderr_line(&format!(
                "tooldef: `{server}` asks you to sign in; open this in your browser if it does \
                 not open by itself:\n  {authorization_url}"
            ));
            open(&opener, &authorization_url);
            tokio::time::timeout(timeout, redirected(&listener, &state))
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "no sign-in came back from the browser within {} s (--auth-timeout)",
                        timeout.as_secs()
                    ))
                })
        })
    }
}

/// Opens `url` with `opener`; its failure is only said, the URL being shown anyway.
fn open(opener: &Opener, url: &str) {
    let (program, arguments): (&str, Vec<&str>) = match opener {
        Opener::Show => return,
        Opener::Command(command) => match command.split_first() {
            Some((program, arguments)) => (program, arguments.iter().map(String::as_str).collect()),
            None => return,
        },
        Opener::System if cfg!(target_os = "macos") => ("open", Vec::new()),
        Opener::System => ("xdg-open", Vec::new()),
    };
    let spawned = tokio::process::Command::new(program)
        .args(arguments)
        .arg(url)
        .stdin(Stdio::null())
        // Its output is not this command's: stdout carries the result.
        .stdout(Stdio::null())
        .spawn();
    match spawned {
        // Reaped when it exits; it may well outlive the sign-in (a browser does).
        Ok(mut child) => {
            tokio::spawn(async move {
                let _ = child.wait().await;
            });
        }
        Err(err) => output::stderr_line(&format!(
            "tooldef: cannot start `{program}` to open the browser ({err}); open the URL above"
        )),
    }
}

/// Answers the connections to the redirect URI until one carries `state`.
async fn redirected(listener: &TcpListener, state: &str) -> Result<Callback, String> {
    loop {
        let (stream, _) = listener
            .accept()
            .await
            .map_err(|err| format!("the loopback redirect failed: {err}"))?;
        if let Some(outcome) = answer(stream, state).await {
            return outcome;
        }
    }
}

/// What a request to the loopback says.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not the redirect (a favicon, a stray request).
    NotOurs,
    /// A redirect for another sign-in (its `state` is not this one's).
    OtherState,
    /// The authorization server refused, saying why.
    Refused(String),
    /// The code.
    Code(Callback),
}

/// Reads the request target of a request's head (`GET /callback?code=… HTTP/1.1`) as an
/// [`Outcome`] for the sign-in whose state is `state`.
pub fn outcome(head: &str, state: &str) -> Outcome {
    let mut words = head.lines().next().unwrap_or("").split_whitespace();
    let (Some("GET"), Some(target)) = (words.next(), words.next()) else {
        return Outcome::NotOurs;
    };
    let Ok(url) = url::Url::parse("http://127.0.0.1").and_then(|base| base.join(target)) else {
        return Outcome::NotOurs;
    };
    if url.path() != "/callback" {
        return Outcome::NotOurs;
    }
    let param = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    if param("state").as_deref() != Some(state) {
        return Outcome::OtherState;
    }
    if let Some(error) = param("error") {
        let description = param("error_description")
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        return Outcome::Refused(format!(
            "the authorization server refused the sign-in ({error}{description})"
        ));
    }
    match param("code") {
        Some(code) if !code.is_empty() => Outcome::Code(Callback {
            code,
            state: state.to_owned(),
            issuer: param("iss"),
        }),
        _ => Outcome::Refused("the redirect carried no authorization code".to_owned()),
    }
}

/// Reads one request and answers it; the sign-in's end when it was the redirect.
async fn answer(mut stream: TcpStream, state: &str) -> Option<Result<Callback, String>> {
    let head = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream))
        .await
        .ok()??;
    let outcome = outcome(&head, state);
    let (status, body) = match &outcome {
        Outcome::NotOurs => ("404 Not Found", "Not found."),
        Outcome::OtherState => (
            "400 Bad Request",
            "This sign-in is not the one tooldef is waiting for.",
        ),
        Outcome::Refused(_) => (
            "200 OK",
            "Signing in did not succeed; tooldef says why in the terminal. You can close this window.",
        ),
        Outcome::Code(_) => (
            "200 OK",
            "Signed in. You can close this window and return to tooldef.",
        ),
    };
    let page =
        format!("<!doctype html><meta charset=\"utf-8\"><title>tooldef</title><p>{body}</p>\n");
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\
         cache-control: no-store\r\nconnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    match outcome {
        Outcome::NotOurs | Outcome::OtherState => None,
        Outcome::Refused(why) => Some(Err(why)),
        Outcome::Code(callback) => Some(Ok(callback)),
    }
}

/// A request's head (up to its blank line), within [`MAX_HEAD`] bytes; `None` for anything
/// else.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 || head.len() + read > MAX_HEAD {
            return None;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    String::from_utf8(head).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_redirect_is_read_from_the_request_line() {
        let head = |target: &str| format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assert_eq!(
            outcome(
                &head("/callback?code=abc%2F1&state=s1&iss=https%3A%2F%2Fas"),
                "s1"
            ),
            Outcome::Code(Callback {
                code: "abc/1".to_owned(),
                state: "s1".to_owned(),
                issuer: Some("https://as".to_owned()),
            })
        );
        assert_eq!(
            outcome(&head("/callback?code=abc&state=other"), "s1"),
            Outcome::OtherState
        );
        assert_eq!(
            outcome(&head("/callback?code=abc"), "s1"),
            Outcome::OtherState
        );
        assert_eq!(outcome(&head("/favicon.ico"), "s1"), Outcome::NotOurs);
        assert_eq!(
            outcome("POST /callback HTTP/1.1\r\n\r\n", "s1"),
            Outcome::NotOurs
        );
        assert_eq!(outcome("", "s1"), Outcome::NotOurs);
        assert_eq!(
            outcome(
                &head("/callback?error=access_denied&error_description=no+thanks&state=s1"),
                "s1"
            ),
            Outcome::Refused(
                "the authorization server refused the sign-in (access_denied: no thanks)"
                    .to_owned()
            )
        );
        assert!(matches!(
            outcome(&head("/callback?state=s1&code="), "s1"),
            Outcome::Refused(_)
        ));
    }

    #[tokio::test]
    async fn a_browser_coming_back_ends_the_wait_and_strays_do_not() {
        let agent = Loopback {
            server: "http://127.0.0.1:1/mcp".to_owned(),
            opener: Opener::Show,
            timeout: Duration::from_secs(10),
        };
        let redirect = agent.listen(None).await.unwrap();
        let uri = redirect.uri().to_owned();
        assert!(
            uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"),
            "{uri}"
        );
        let address = uri
            .trim_start_matches("http://")
            .trim_end_matches("/callback")
            .to_owned();
        let browser = tokio::spawn(async move {
            let send = |request: String| {
                let address = address.clone();
                async move {
                    let mut stream = TcpStream::connect(address).await.unwrap();
                    stream.write_all(request.as_bytes()).await.unwrap();
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer).await.unwrap();
                    answer
                }
            };
            let stray = send("GET /favicon.ico HTTP/1.1\r\n\r\n".to_owned()).await;
            assert!(stray.starts_with("HTTP/1.1 404"), "{stray}");
            let other = send("GET /callback?code=x&state=nope HTTP/1.1\r\n\r\n".to_owned()).await;
            assert!(other.starts_with("HTTP/1.1 400"), "{other}");
            send("GET /callback?code=the-code&state=s1 HTTP/1.1\r\n\r\n".to_owned()).await
        });
        let callback = redirect
            .visit("http://127.0.0.1:1/authorize".to_owned(), "s1".to_owned())
            .await
            .unwrap();
        assert_eq!(callback.code, "the-code");
        let page = browser.await.unwrap();
        assert!(
            page.starts_with("HTTP/1.1 200") && page.contains("Signed in"),
            "{page}"
        );
    }

    #[tokio::test]
    async fn a_kept_port_is_reused_and_nobody_coming_back_is_a_timeout() {
        let agent = Loopback {
            server: "s".to_owned(),
            opener: Opener::Show,
            timeout: Duration::from_millis(200),
        };
        let first = agent.listen(None).await.unwrap();
        let uri = first.uri().to_owned();
        drop(first);
        let again = agent.listen(Some(&uri)).await.unwrap();
        assert_eq!(again.uri(), uri);
        let why = again
            .visit("http://127.0.0.1:1/authorize".to_owned(), "s".to_owned())
            .await
            .unwrap_err();
        assert!(why.contains("--auth-timeout"), "{why}");
        let unavailable = Unavailable("no browser here".to_owned());
        assert_eq!(
            unavailable.listen(None).await.err().unwrap(),
            "no browser here"
        );
    }
}
