//! A tool that takes a while, and says how far it has got: [`process_batch`] reports its
//! progress after every item ([`Progress`]) and logs to the client as it goes ([`ClientLog`]).
//!
//! Served over MCP, a client that sends a `progressToken` sees `notifications/progress` (one per
//! item, `progress` of `total`) and, at the level it asked for, `notifications/message` from the
//! logger `process_batch`. Called through a [`ToolSet`](tooldef::ToolSet) by anything else, the
//! same tool runs without reporting to anyone. Add it to a set with
//! `.tool(tooldef_examples::batch::ProcessBatch)`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use tooldef::{ClientLog, Progress, tool};

/// What [`process_batch`] did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BatchReport {
    /// How many items were processed.
    pub processed: u32,
    /// Each item, processed (upper-cased), in the order given.
    pub results: Vec<String>,
}

/// Process a batch of items one at a time (upper-casing each), reporting progress after each
/// item. Slow on purpose: each item takes `millis_per_item`.
#[tool(title = "Process a batch", read_only, idempotent, open_world = false)]
pub async fn process_batch(
    /// The items to process, in order.
    #[schemars(length(min = 1, max = 100))]
    items: Vec<String>,
    /// How long each item takes, in milliseconds.
    #[arg(default = 50)]
    #[schemars(range(max = 1000))]
    millis_per_item: u64,
    progress: Progress,
    log: ClientLog,
) -> BatchReport {
    // At most 100 items (the schema says so, and the arguments are checked against it).
    let total = u32::try_from(items.len()).unwrap_or(u32::MAX);
    log.info(format!("processing {total} items")).await;
    let mut results = Vec::with_capacity(items.len());
    for (done, item) in (1..=total).zip(&items) {
        tokio::time::sleep(Duration::from_millis(millis_per_item)).await;
        results.push(item.to_uppercase());
        log.debug(json!({"item": item, "done": done})).await;
        progress
            .report(
                f64::from(done),
                Some(f64::from(total)),
                Some(&format!("processed {item:?}")),
            )
            .await;
    }
    log.notice(format!("processed {total} items")).await;
    BatchReport {
        processed: total,
        results,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::{Value, json};
    use tooldef::{
        CallContext, LogLevel, LogMessage, LogSink, ProgressUpdate, SinkFuture, ToolSet,
    };

    use super::*;

    fn tools() -> ToolSet {
        ToolSet::builder().tool(ProcessBatch).build().unwrap()
    }

    #[tokio::test]
    async fn without_anyone_listening_it_just_runs() {
        let output = tools()
            .call(
                "process_batch",
                r#"{"items": ["a", "b"], "millis_per_item": 1}"#,
            )
            .await
            .unwrap();
        assert_eq!(
            output.structured,
            Some(json!({"processed": 2, "results": ["A", "B"]}))
        );
    }

    /// Keeps every message at or above `Info`.
    struct Lines(Arc<Mutex<Vec<LogMessage>>>);

    impl LogSink for Lines {
        fn level(&self) -> Option<LogLevel> {
            Some(LogLevel::Info)
        }

        fn send(&self, message: LogMessage) -> SinkFuture<'_> {
            self.0.lock().unwrap().push(message);
            Box::pin(async {})
        }
    }

    #[tokio::test]
    async fn an_application_sees_every_step_and_the_log_lines_it_wants() {
        let updates = Arc::new(Mutex::new(Vec::<ProgressUpdate>::new()));
        let lines = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&updates);
        let context = CallContext::new()
            .with_progress(Progress::new(move |update| {
                seen.lock().unwrap().push(update);
                async {}
            }))
            .with_client_log(ClientLog::new(Lines(Arc::clone(&lines))).named("batch"));
        tools()
            .call_with(
                "process_batch",
                r#"{"items": ["x", "y", "z"], "millis_per_item": 1}"#,
                context,
            )
            .await
            .unwrap();
        let updates = updates.lock().unwrap();
        let steps: Vec<(f64, Option<f64>, Option<&str>)> = updates
            .iter()
            .map(|u| (u.progress, u.total, u.message.as_deref()))
            .collect();
        assert_eq!(
            steps,
            [
                (1.0, Some(3.0), Some("processed \"x\"")),
                (2.0, Some(3.0), Some("processed \"y\"")),
                (3.0, Some(3.0), Some("processed \"z\"")),
            ]
        );
        // The debug line of each item is below the sink's level; the first and last are not.
        let lines = lines.lock().unwrap();
        let said: Vec<(LogLevel, &Value)> = lines.iter().map(|m| (m.level, &m.data)).collect();
        assert_eq!(
            said,
            [
                (LogLevel::Info, &json!("processing 3 items")),
                (LogLevel::Notice, &json!("processed 3 items")),
            ]
        );
        assert!(lines.iter().all(|m| m.logger.as_deref() == Some("batch")));
    }
}
