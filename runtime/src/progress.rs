//! [`Progress`]: how far a tool has got, told to whoever called it while it runs.
//!
//! A tool takes a `Progress` parameter (injected context, not an argument) and calls
//! [`report`](Progress::report). Where the updates go is the caller's business: a
//! [`ProgressSink`] installed in the call's context with [`CallContext::with_progress`]. The MCP
//! server (feature `mcp`) installs one that sends `notifications/progress` with the request's
//! `progressToken`; an application that runs a [`ToolSet`](crate::ToolSet) itself (an agent
//! loop showing a spinner, say) installs its own. Without a sink, reporting does nothing, so a
//! tool that reports progress works unchanged wherever it is called.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::lock::Mutex;

use crate::context::{CallContext, ContextError, FromCallContext};

/// The future a sink returns (boxed, so that the sink traits can be trait objects).
pub type SinkFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// One progress update, as MCP's `notifications/progress` carries it (less the token, which is
/// the sink's to know).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProgressUpdate {
    /// The progress so far: greater than in every update before it of the same call.
    pub progress: f64,
    /// The total the progress goes to, when known.
    pub total: Option<f64>,
    /// What is being done, in words.
    pub message: Option<String>,
}

/// Where a call's progress updates go.
///
/// [`Progress`] calls `send` one update at a time, in order, and only with updates whose
/// progress is greater than the last one's, so a sink passes them on as they come. A sink that
/// cannot deliver (its receiver is gone) drops the update: the tool goes on either way.
///
/// A closure `Fn(ProgressUpdate) -> impl Future<Output = ()>` is a sink:
///
/// ```
/// use tooldef::{CallContext, Progress, ProgressUpdate};
///
/// let (sender, _receiver) = std::sync::mpsc::channel::<ProgressUpdate>();
/// let sender = std::sync::Mutex::new(sender);
/// let context = CallContext::new().with_progress(Progress::new(move |update| {
///     let _ = sender.lock().map(|s| s.send(update));
///     async {}
/// }));
/// # let _ = context;
/// ```
pub trait ProgressSink: Send + Sync + 'static {
    /// Passes one update on.
    fn send(&self, update: ProgressUpdate) -> SinkFuture<'_>;
}

impl<F, Fut> ProgressSink for F
where
    F: Fn(ProgressUpdate) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn send(&self, update: ProgressUpdate) -> SinkFuture<'_> {
        Box::pin(self(update))
    }
}

/// A tool's progress reporter, injected into a tool parameter of this type:
///
/// ```
/// use tooldef::{Progress, tool};
///
/// /// Resize every image of an album.
/// #[tool]
/// async fn resize_album(
///     /// The album's name.
///     album: String,
///     progress: Progress,
/// ) -> String {
///     let images = 40;
///     for done in 1..=images {
///         // … resize one image …
///         progress
///             .report(f64::from(done), Some(f64::from(images)), Some("resizing"))
///             .await;
///     }
///     format!("{album}: {images} images resized")
/// }
/// ```
///
/// Where the updates go depends on who called the tool: the MCP server sends them to the
/// client as `notifications/progress` when the request asked for progress (it carried a
/// `progressToken`); an application installs a [`ProgressSink`] with
/// [`CallContext::with_progress`]. Otherwise (no token, a call that is not an MCP call, a
/// client that has gone) [`report`](Progress::report) does nothing.
///
/// An application that runs a [`ToolSet`](crate::ToolSet) itself gives a call a sink, a
/// closure, say:
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tooldef::{CallContext, Progress, ProgressUpdate, ToolSet, tool};
///
/// /// Count to three, slowly.
/// #[tool]
/// async fn count(progress: Progress) -> u32 {
///     for done in 1..=3 {
///         progress.report(f64::from(done), Some(3.0), None).await;
///     }
///     3
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = {
///     let seen = seen.clone();
///     move |update: ProgressUpdate| {
///         seen.lock().unwrap().push(update.progress);
///         async {}
///     }
/// };
/// let tools = ToolSet::builder().tool(Count).build()?;
/// let call = CallContext::new().with_progress(Progress::new(sink));
/// tools.call_with("count", "{}", call).await?;
/// assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);
/// # Ok(())
/// # }
/// ```
///
/// Cheap to clone; clones share the call's last progress, so updates stay increasing whichever
/// clone sends them.
#[derive(Clone, Default)]
pub struct Progress {
    shared: Option<Arc<Shared>>,
}

struct Shared {
    sink: Box<dyn ProgressSink>,
    /// The last progress sent. Held while an update is being sent, so that two clones reporting
    /// at once cannot put a smaller value on the wire after a greater one.
    last: Mutex<Option<f64>>,
}

impl Progress {
    /// A reporter whose updates go to `sink`. Make one per call: the increasing-progress rule
    /// is kept per reporter.
    pub fn new(sink: impl ProgressSink) -> Progress {
        Progress {
            shared: Some(Arc::new(Shared {
                sink: Box::new(sink),
                last: Mutex::new(None),
            })),
        }
    }

    /// A reporter that reports to no one (what a tool gets when its caller installed none).
    pub fn disabled() -> Progress {
        Progress::default()
    }

    /// Whether updates go anywhere: a tool may skip working out a costly message when not.
    pub fn is_enabled(&self) -> bool {
        self.shared.is_some()
    }

    /// Reports `progress` (of `total`, when known), with a message in words.
    ///
    /// Progress must increase with every update (MCP requires it of `notifications/progress`,
    /// even when the total is unknown): an update whose progress is not greater than the last
    /// one sent, or is not a finite number, is not sent. A `total` that is not finite is left
    /// out. Returns once the sink has passed the update on; never fails.
    pub async fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(shared) = &self.shared else {
            return;
        };
        if !progress.is_finite() {
            return;
        }
        let mut last = shared.last.lock().await;
        if last.is_some_and(|last| progress <= last) {
            return;
        }
        *last = Some(progress);
        shared
            .sink
            .send(ProgressUpdate {
                progress,
                total: total.filter(|total| total.is_finite()),
                message: message.map(str::to_owned),
            })
            .await;
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

impl CallContext {
    /// Where the tools of this call report their progress (see [`Progress`]). Give a new
    /// `Progress` to each call: its updates are for that call alone.
    #[must_use]
    pub fn with_progress(self, progress: Progress) -> CallContext {
        self.with_state(progress)
    }
}

/// Never fails: without a reporter in the context, the tool gets one that reports to no one.
impl FromCallContext for Progress {
    fn from_call_context(context: &CallContext) -> Result<Self, ContextError> {
        Ok(context.state::<Progress>().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex as StdMutex;

    use super::*;

    /// A reporter recording what it was given, and the recording.
    fn recording() -> (Progress, Arc<StdMutex<Vec<ProgressUpdate>>>) {
        let seen = Arc::new(StdMutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let progress = Progress::new(move |update| {
            sink.lock().unwrap().push(update);
            async {}
        });
        (progress, seen)
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn updates_that_do_not_increase_are_not_sent() {
        let (progress, seen) = recording();
        block_on(async {
            progress.report(1.0, Some(3.0), Some("one")).await;
            progress.report(1.0, Some(3.0), Some("one again")).await;
            progress.clone().report(0.5, None, None).await;
            progress.report(f64::NAN, None, None).await;
            progress.report(f64::INFINITY, None, None).await;
            progress.report(2.5, Some(f64::INFINITY), None).await;
        });
        let seen = seen.lock().unwrap();
        let sent: Vec<(f64, Option<f64>, Option<&str>)> = seen
            .iter()
            .map(|u| (u.progress, u.total, u.message.as_deref()))
            .collect();
        assert_eq!(sent, [(1.0, Some(3.0), Some("one")), (2.5, None, None)]);
    }

    #[test]
    fn without_a_sink_reporting_does_nothing() {
        let progress = Progress::from_call_context(&CallContext::new()).unwrap();
        assert!(!progress.is_enabled());
        block_on(progress.report(1.0, None, Some("to no one")));
    }

    #[test]
    fn the_context_hands_out_the_installed_reporter() {
        let (progress, seen) = recording();
        let context = CallContext::new().with_progress(progress);
        let injected = Progress::from_call_context(&context).unwrap();
        let again = Progress::from_call_context(&context).unwrap();
        block_on(async {
            injected.report(2.0, None, None).await;
            // The same call's reporter, extracted twice: still one increasing sequence.
            again.report(1.0, None, None).await;
        });
        assert_eq!(seen.lock().unwrap().len(), 1);
    }
}
