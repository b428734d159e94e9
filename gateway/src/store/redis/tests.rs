//! The Redis store against a real `redis-server`, started here on a free port (skipped, saying
//! so, where there is none, unless `TOOLDEF_REQUIRE_REDIS=1`), and against a server that
//! accepts connections and never answers.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::super::tests::{contract, response};
use super::*;

/// Said on stderr itself: the test harness keeps what `eprintln!` says of a passing test.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `redis-server` that keeps nothing on disk, killed when dropped.
struct Server {
    child: Child,
}

impl Server {
    fn start(port: u16) -> Server {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Server { child }
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether the test can run: `redis-server` on PATH, or else a skip said (a failure when
/// `TOOLDEF_REQUIRE_REDIS=1`, as in CI, where a missing server must not pass unnoticed).
fn redis_server_here() -> bool {
    let found = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        assert!(
            std::env::var("TOOLDEF_REQUIRE_REDIS").as_deref() != Ok("1"),
            "TOOLDEF_REQUIRE_REDIS=1 and there is no redis-server on PATH: install it (Debian: apt-get install redis-server)"
        );
        say(
            "store::redis::tests: SKIPPED: no redis-server on PATH (TOOLDEF_REQUIRE_REDIS=1 makes this a failure)",
        );
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keeps_as_every_store_does_and_comes_back_after_a_restart() {
    if !redis_server_here() {
        return;
    }
    let port = free_port();
    let server = Server::start(port);
    let url = format!("redis://127.0.0.1:{port}/0");
    let ttl = Duration::from_secs(1);
    let store = RedisStore::open(&url, ttl, 4096).unwrap();
    store.ping().await.unwrap();
    contract(&store, ttl, 4096, "contract").await;

    // Namespaced, with the TTL on every key.
    store
        .put(
            vec!["chat:a".to_owned(), "chat:b".to_owned()],
            response("r"),
        )
        .await
        .unwrap();
    let mut direct = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let ttls: Vec<i64> = redis::pipe()
        .cmd("TTL")
        .arg("tooldef:chat:a")
        .cmd("TTL")
        .arg("tooldef:chat:b")
        .query_async(&mut direct)
        .await
        .unwrap();
    assert_eq!(ttls, vec![1, 1], "both keys expire with the store's TTL");
    // An entry the gateway cannot read is as if it were not there.
    let _: () = redis::cmd("SET")
        .arg("tooldef:chat:junk")
        .arg("{not json")
        .query_async(&mut direct)
        .await
        .unwrap();
    let got = store.get_many(&["chat:junk".to_owned()]).await.unwrap();
    assert_eq!(got, vec![None]);

    // Redis stops: every operation fails soon, saying where and why.
    server.stop();
    for _ in 0..3 {
        let started = Instant::now();
        let err = store.get_many(&["chat:a".to_owned()]).await.unwrap_err();
        let StoreError::Unavailable { address, reason } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(address, &url);
        assert!(!reason.is_empty());
        let err = store
            .put(vec!["chat:c".to_owned()], response("r"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
        assert!(
            started.elapsed() < 2 * TIMEOUT + Duration::from_millis(500),
            "a store that is down failed in {:?}",
            started.elapsed()
        );
    }

    // Redis is back (empty: it kept nothing on disk): the same store works again by itself,
    // from the first operation on.
    let server = Server::start(port);
    store
        .put(vec!["chat:d".to_owned()], response("back"))
        .await
        .unwrap();
    let got = store.get_many(&["chat:d".to_owned()]).await.unwrap();
    assert_eq!(got[0].as_deref(), Some(&response("back")));

    // Restarted between two operations: the connection the store holds is dead, and the next
    // operation still succeeds.
    server.stop();
    let _server = Server::start(port);
    store
        .put(vec!["chat:e".to_owned()], response("again"))
        .await
        .unwrap();
    let got = store.get_many(&["chat:e".to_owned()]).await.unwrap();
    assert_eq!(got[0].as_deref(), Some(&response("again")));
}

#[tokio::test]
async fn a_server_that_never_answers_fails_within_the_timeout() {
    // Accepts connections and reads nothing: what a stalled Redis (or a black hole) looks like.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            open.push(socket);
        }
    });
    let store = RedisStore::open(
        &format!("redis://127.0.0.1:{port}/0"),
        Duration::from_secs(60),
        4096,
    )
    .unwrap();
    let started = Instant::now();
    let err = store.get_many(&["x".to_owned()]).await.unwrap_err();
    let elapsed = started.elapsed();
    assert!(
        elapsed >= TIMEOUT / 2 && elapsed < TIMEOUT + Duration::from_millis(500),
        "failed after {elapsed:?}: {err}"
    );
    let StoreError::Unavailable { reason, .. } = err else {
        panic!("{err:?}");
    };
    assert!(!reason.is_empty());
    held.abort();
}

#[tokio::test]
async fn addresses_are_shown_without_their_password() {
    assert_eq!(
        redact("redis://:s3cret@cache:6379/0"),
        "redis://***@cache:6379/0"
    );
    assert_eq!(
        redact("rediss://user:s3cret@cache.example.com/2"),
        "rediss://***@cache.example.com/2"
    );
    assert_eq!(redact("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
    assert_eq!(
        redact("redis+unix:///run/redis.sock"),
        "redis+unix:///run/redis.sock"
    );
    let err = RedisStore::open("http://cache:6379", Duration::from_secs(1), 1)
        .err()
        .unwrap();
    assert!(err.contains("is not a Redis URL"), "{err}");
    let err = RedisStore::open("redis://:pw@", Duration::from_secs(1), 1)
        .err()
        .unwrap();
    assert!(!err.contains("pw"), "{err}");
}
