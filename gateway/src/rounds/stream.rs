//! The rounds answered as one stream: the first round is asked before the answer starts (its
//! error keeps its status), then the answer's body, as the connection reads it, runs the rest
//! and writes the client's stream: each round's events as they come, re-indexed, the gateway's
//! calls held back; one closing event.

use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;
use futures_util::{FutureExt, StreamExt};

use super::{Ending, Rounds, Tally};
use crate::api::{ClientApi, Event, Failure, StreamFace};
use crate::conversation::STOPPED;
use crate::error::ApiError;
use crate::sse::Writer;
use crate::translate::ir::ErrorBody;
use crate::upstream::Sent;

/// The client's stream, in its API's framing. Events are written to the writer's pending bytes
/// and flushed before every wait, so that the events at hand go out together.
struct Client<A: ClientApi> {
    writer: Writer,
    face: A::Stream,
}

impl<A: ClientApi> Client<A> {
    fn send(&mut self, events: Vec<Event>) {
        for event in events {
            if A::NAMED_EVENTS {
                let name = event
                    .get("type")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("message");
                self.writer.named(name, &event);
            } else {
                self.writer.data(&event);
            }
        }
    }

    /// Ends the stream: its last event, and everything still pending, go to the client.
    async fn done(&mut self) {
        if let Some(done) = A::DONE {
            self.writer.raw_data(done);
        }
        self.writer.flush().await
    }

    /// Ends the stream with an error.
    async fn fail(&mut self, failure: Failure) {
        let event = match failure {
            Failure::Upstream(event) => event,
            Failure::Gateway(error) => {
                tracing::warn!("{}", error.message);
                self.face.fail(&error)
            }
        };
        self.send(vec![event]);
        self.done().await
    }
}

impl<A: ClientApi> Rounds<A> {
    /// Asks the first round, and answers with the stream the rounds make, carrying `headers`.
    pub async fn stream(
        self,
        headers: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Response, Response> {
        let sent = self.send(1).await.map_err(|err| err.answer(A::API))?;
        if !sent.is_success() {
            return Err(sent.refusal().await);
        }
        let informative = sent.informative();
        let inner = self.inner.clone();
        let mut response = crate::sse::response(|writer| {
            crate::telemetry::carried(async move {
                let face = A::Stream::new(&self.api, &self.request);
                let mut client = Client::<A> { writer, face };
                let cut = tokio::select! {
                    () = self.run_stream(&mut client, sent) => false,
                    () = inner.deadline() => true,
                };
                if cut {
                    let error = ErrorBody::from(ApiError::upstream(STOPPED));
                    client.fail(Failure::Gateway(error)).await;
                }
            })
        });
        response.headers_mut().extend(informative);
        response.headers_mut().extend(headers);
        Ok(response)
    }

    async fn run_stream(mut self, client: &mut Client<A>, first: Sent) {
        let mut sent = first;
        let mut round = 1;
        let mut tally = Tally::default();
        loop {
            let mut events = sent.events(Arc::clone(&self.inner));
            loop {
                // The events already read (those of one upstream chunk) are written together;
                // what is written goes to the client when the upstream has nothing more yet, or
                // when enough is pending that the client should not wait for the rest.
                let at_hand = if client.writer.holds_enough() {
                    None
                } else {
                    events.next().now_or_never()
                };
                let event = match at_hand {
                    Some(event) => event,
                    None => {
                        client.writer.flush().await;
                        events.next().await
                    }
                };
                let Some(event) = event else {
                    break;
                };
                let out = event
                    .map_err(Failure::Gateway)
                    .and_then(|event| client.face.event(&self.api, &self.injection, round, event));
                match out {
                    Ok(out) => client.send(out),
                    Err(failure) => return client.fail(failure).await,
                }
            }
            drop(events);
            let reply = match client.face.round(&self.api, &self.injection) {
                Ok(reply) => reply,
                Err(failure) => return client.fail(failure).await,
            };
            tally.count(&reply);
            self.api.absorb(&reply);
            let ending = match self.ends(round, &reply) {
                Some(ending) => {
                    if let Err(err) = self.at_end(&reply).await {
                        return client.fail(err.into()).await;
                    }
                    ending
                }
                None => {
                    let running = reply.runs().len();
                    client
                        .writer
                        .comment(&format!("tooldef: running {running} tool call(s)"));
                    let running = client.face.running(&self.api, &reply, &self.names());
                    client.send(running);
                    // The client hears of the calls before they run, however long they take.
                    client.writer.flush().await;
                    let after = match self.run(&reply).await {
                        Ok(after) => after,
                        Err(err) => return client.fail(err.into()).await,
                    };
                    let ran = client.face.ran(&self.api, after.shown);
                    client.send(ran);
                    if after.ends {
                        Ending::default()
                    } else {
                        round += 1;
                        // The calls' results are shown while the next round is asked.
                        client.writer.flush().await;
                        sent = match self.next_round(round).await {
                            Ok(sent) => sent,
                            Err(error) => return client.fail(Failure::Gateway(error)).await,
                        };
                        continue;
                    }
                }
            };
            let end = tally.end(round, ending);
            if let Some(bound) = end.bound {
                // A stream's headers are gone by now: a comment says it, and the closing event.
                client
                    .writer
                    .comment(&format!("tooldef: incomplete ({})", bound.as_str()));
            }
            tracing::info!(api = %A::API, rounds = round, "streamed");
            let closing = client.face.finish(&mut self.api, reply, &end);
            client.send(closing);
            return client.done().await;
        }
    }

    /// Asks round `round` (after the first): its refusal is the stream's error.
    async fn next_round(&self, round: u32) -> Result<Sent, ErrorBody> {
        let sent = self
            .inner
            .upstream
            .send(
                &self.inner.store,
                self.link,
                &self.headers,
                &self.body(round),
            )
            .await
            .map_err(ErrorBody::from)?;
        if sent.is_success() {
            Ok(sent)
        } else {
            Err(sent.refusal_event(round).await)
        }
    }
}
