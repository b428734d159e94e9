//! The store in Redis, shared by every gateway instance pointed at it: each entry is JSON under
//! `tooldef:KEY`, set with the store's TTL (`SET … EX`). Every command is bounded by a short
//! timeout, so that a Redis that is down or stalled fails a request quickly instead of holding
//! it; the connection is redis-rs's `ConnectionManager`, which connects on first use and again
//! after the connection is lost.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::{Kept, KeptStore, StoreError, check_size};

/// Every key the gateway writes starts so, to share a Redis with other users.
const PREFIX: &str = "tooldef:";

/// The most one store operation may take, connecting included: a request waits no longer than
/// this for a store that does not answer.
const TIMEOUT: Duration = Duration::from_secs(2);

/// Kept things in Redis, each for `ttl` (whole seconds, at least one), none larger than
/// `max_entry` bytes as JSON.
pub struct RedisStore {
    client: redis::Client,
    config: ConnectionManagerConfig,
    /// Cloned for each operation (it is a handle on one multiplexed connection); replaced when
    /// an error other than the connection's own leaves it unable to recover by itself.
    manager: Mutex<ConnectionManager>,
    /// The URL without its password, for messages.
    address: String,
    ttl_secs: u64,
    max_entry: usize,
    timeout: Duration,
}

impl RedisStore {
    /// A store at `url` (`redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`, `rediss://` for TLS,
    /// `redis+unix:///PATH`), connected on first use.
    pub fn open(url: &str, ttl: Duration, max_entry: usize) -> Result<RedisStore, String> {
        let address = redact(url);
        let client = client(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT / 2))
            .set_response_timeout(Some(TIMEOUT))
            // One attempt per connection: the request's own timeout bounds its wait, and the
            // next request that needs the store tries again.
            .set_number_of_retries(0);
        let manager = Self::manager(&client, &config, &address)?;
        Ok(RedisStore {
            client,
            config,
            manager: Mutex::new(manager),
            address,
            ttl_secs: ttl.as_secs().max(1),
            max_entry,
            timeout: TIMEOUT,
        })
    }

    fn manager(
        client: &redis::Client,
        config: &ConnectionManagerConfig,
        address: &str,
    ) -> Result<ConnectionManager, String> {
        ConnectionManager::new_lazy_with_config(client.clone(), config.clone())
            .map_err(|err| format!("`store`: cannot use the Redis at {address}: {err}"))
    }

    /// Where the store is, its password hidden.
    pub fn address(&self) -> &str {
        &self.address
    }

    fn unavailable(&self, reason: String) -> StoreError {
        StoreError::Unavailable {
            address: self.address.clone(),
            reason,
        }
    }

    /// Runs `command` on the connection within the timeout, once more when the connection was
    /// lost (Redis restarted: the manager has started a new one, which the second try waits
    /// for; every command here can be sent twice).
    async fn run<T: redis::FromRedisValue>(&self, command: &Command) -> Result<T, StoreError> {
        let attempt = async {
            let mut connection = self.connection();
            match command.query(&mut connection).await {
                Err(err) if err.is_io_error() || err.is_unrecoverable_error() => {
                    tracing::debug!(store = %self.address, "{err}; trying once more");
                    command.query(&mut self.connection()).await
                }
                other => other,
            }
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => {
                if !err.is_io_error() {
                    // The manager reconnects only after errors of the connection itself; a
                    // failure while connecting (a full server, `LOADING`) would stay its
                    // connection's outcome for good. A new manager tries afresh next time.
                    if let Ok(manager) = Self::manager(&self.client, &self.config, &self.address) {
                        *self.manager.lock().unwrap_or_else(|e| e.into_inner()) = manager;
                    }
                }
                Err(self.unavailable(err.to_string()))
            }
            Err(_) => {
                Err(self.unavailable(format!("no answer within {} s", self.timeout.as_secs_f32())))
            }
        }
    }

    fn connection(&self) -> ConnectionManager {
        self.manager
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether Redis answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.run::<String>(&Command::One(redis::cmd("PING")))
            .await
            .map(drop)
    }
}

/// A command or an atomic pipeline, as `run` sends it.
enum Command {
    One(redis::Cmd),
    All(redis::Pipeline),
}

impl Command {
    async fn query<T: redis::FromRedisValue>(
        &self,
        connection: &mut ConnectionManager,
    ) -> redis::RedisResult<T> {
        match self {
            Command::One(command) => command.query_async(connection).await,
            Command::All(pipeline) => pipeline.query_async(connection).await,
        }
    }
}

impl KeptStore for RedisStore {
    async fn put(&self, keys: Vec<String>, kept: Kept) -> Result<(), StoreError> {
        let json = serde_json::to_vec(&kept).expect("a Kept is always JSON");
        check_size(json.len(), self.max_entry)?;
        // One entry under several keys: all or none, so that no follow-up finds half a turn.
        let mut pipeline = redis::pipe();
        pipeline.atomic();
        for key in keys {
            pipeline
                .set_ex(format!("{PREFIX}{key}"), json.as_slice(), self.ttl_secs)
                .ignore();
        }
        self.run::<()>(&Command::All(pipeline)).await
    }

    async fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Arc<Kept>>>, StoreError> {
        let mut mget = redis::cmd("MGET");
        for key in keys {
            mget.arg(format!("{PREFIX}{key}"));
        }
        let found: Vec<Option<Vec<u8>>> = self.run(&Command::One(mget)).await?;
        Ok(found
            .into_iter()
            .zip(keys)
            .map(|(json, key)| {
                let json = json?;
                match serde_json::from_slice::<Kept>(&json) {
                    Ok(kept) => Some(Arc::new(kept)),
                    Err(err) => {
                        // Written by another version of the gateway, or by someone else: as
                        // if it had expired.
                        tracing::warn!(store = %self.address, key, "a kept entry is unreadable, ignored: {err}");
                        None
                    }
                }
            })
            .collect())
    }
}

/// The client for a store URL, or what is wrong with it.
pub fn client(url: &str) -> Result<redis::Client, String> {
    redis::Client::open(url).map_err(|err| {
        format!(
            "`store`: `{}` is not a Redis URL ({err}); write `redis://HOST:PORT/DB` (`rediss://` for TLS), or leave `store` out to keep things in memory",
            redact(url)
        )
    })
}

/// A Redis URL without its user and password.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests;
