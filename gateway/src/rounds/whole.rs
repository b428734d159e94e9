//! The rounds answered as one reply: each round's reply read whole, the last made the client's.

use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::{Ending, Rounds, Tally};
use crate::api::ClientApi;
use crate::error::ApiError;

impl<A: ClientApi> Rounds<A> {
    /// Runs the rounds and answers with one reply, carrying `headers`.
    pub async fn whole(
        mut self,
        headers: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Response, Response> {
        let mut tally = Tally::default();
        let mut round = 0;
        loop {
            round += 1;
            let sent = self.send(round).await.map_err(|err| err.answer(A::API))?;
            let informative = sent.informative();
            let reply = sent.whole(&self.inner.store).await?;
            let reply = self
                .api
                .read_reply(reply, &self.injection)
                .map_err(|why| ApiError::upstream(why).answer(A::API))?;
            tally.count(&reply);
            self.api.absorb(&reply);
            let ending = match self.ends(round, &reply) {
                Some(ending) => {
                    self.at_end(&reply)
                        .await
                        .map_err(|err| err.on_write().answer(A::API))?;
                    ending
                }
                None => {
                    let after = self
                        .run(&reply)
                        .await
                        .map_err(|err| err.on_write().answer(A::API))?;
                    if !after.ends {
                        continue;
                    }
                    Ending::default()
                }
            };
            let end = tally.end(round, ending);
            tracing::info!(api = %A::API, rounds = round, "answered");
            let answer = self.api.answer(reply, &end);
            let mut response = (StatusCode::OK, axum::Json(answer)).into_response();
            let out = response.headers_mut();
            out.extend(informative);
            out.extend(headers);
            out.insert(crate::headers::ROUNDS, HeaderValue::from(round));
            if let Some(bound) = end.bound {
                out.insert(
                    crate::headers::INCOMPLETE,
                    HeaderValue::from_static(bound.as_str()),
                );
            }
            return Ok(response);
        }
    }
}
