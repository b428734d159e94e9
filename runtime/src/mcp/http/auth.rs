//! The bearer token, checked on every request before anything else reads it: a client without
//! the token learns nothing but that it needs one, and what to send.

use axum::body::Body;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use subtle::ConstantTimeEq;

/// The 401 answer to a request without `Authorization: Bearer <expected>`; `None` lets it in.
pub(super) fn refusal(expected: Option<&str>, headers: &HeaderMap) -> Option<Response> {
    let expected = expected?;
    let Some(given) = headers.get(AUTHORIZATION) else {
        return Some(unauthorized(
            "Bearer",
            "Unauthorized: this MCP server needs a bearer token: send the header \
             `Authorization: Bearer <token>` with the token the server was started with",
        ));
    };
    let Some(token) = bearer(given.as_bytes()) else {
        return Some(unauthorized(
            "Bearer error=\"invalid_request\"",
            "Unauthorized: the `Authorization` header is not a bearer token: send \
             `Authorization: Bearer <token>` with the token the server was started with",
        ));
    };
    // Constant time over the bytes, so that the time taken says nothing of how much of the
    // token was right (its length aside, which is no secret).
    if bool::from(token.ct_eq(expected.as_bytes())) {
        None
    } else {
        Some(unauthorized(
            "Bearer error=\"invalid_token\"",
            "Unauthorized: this is not the server's bearer token: send the token the server \
             was started with",
        ))
    }
}

/// The token of a `Bearer` credential; the scheme's name is case-insensitive (RFC 9110 11.1).
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(7)?;
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return None;
    }
    let token = rest.trim_ascii();
    (!token.is_empty()).then_some(token)
}

fn unauthorized(challenge: &'static str, message: &'static str) -> Response {
    let mut response = Response::new(Body::from(message));
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    let headers = response.headers_mut();
    headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_authorization(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        headers
    }

    fn refused(expected: &str, headers: &HeaderMap) -> (String, String) {
        let response = refusal(Some(expected), headers).expect("refused");
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let challenge = response.headers()[WWW_AUTHENTICATE]
            .to_str()
            .unwrap()
            .to_owned();
        let body = futures_util::FutureExt::now_or_never(axum::body::to_bytes(
            response.into_body(),
            1 << 16,
        ))
        .expect("a body in memory is ready")
        .unwrap();
        (challenge, String::from_utf8(body.to_vec()).unwrap())
    }

    #[test]
    fn the_right_token_passes_whatever_the_scheme_s_case() {
        assert!(refusal(Some("t0ken"), &with_authorization("Bearer t0ken")).is_none());
        assert!(refusal(Some("t0ken"), &with_authorization("bearer t0ken")).is_none());
        assert!(refusal(None, &HeaderMap::new()).is_none());
    }

    #[test]
    fn a_missing_or_wrong_token_is_told_what_to_send() {
        let (challenge, body) = refused("t0ken", &HeaderMap::new());
        assert_eq!(challenge, "Bearer");
        assert!(body.contains("`Authorization: Bearer <token>`"), "{body}");

        let (challenge, body) = refused("t0ken", &with_authorization("Bearer t0ke"));
        assert_eq!(challenge, "Bearer error=\"invalid_token\"");
        assert!(body.contains("not the server's bearer token"), "{body}");
        let (challenge, _) = refused("t0ken", &with_authorization("Bearer t0ken2"));
        assert_eq!(challenge, "Bearer error=\"invalid_token\"");

        for other in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", "t0ken"] {
            let (challenge, body) = refused("t0ken", &with_authorization(other));
            assert_eq!(challenge, "Bearer error=\"invalid_request\"", "{other}");
            assert!(body.contains("is not a bearer token"), "{body}");
        }
    }
}
