//! Errors the gateway itself answers with, in the shape of the client's API (OpenAI's
//! `{"error": {"message", "type", "param", "code"}}`, Anthropic's `{"type": "error", "error":
//! {"type", "message"}}`), so that every SDK raises the right exception and shows the message.
//! Errors of the upstream are not these: they are passed through as they came (translated into
//! the client's API's shape when the upstream speaks another).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::api::Api;
use crate::translate::ir::ErrorBody;

/// An error answered by the gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong and what to do, for the person reading the SDK's exception.
    pub message: String,
    /// OpenAI's error type: `invalid_request_error`, `authentication_error`, `upstream_error`,
    /// `server_error`.
    pub kind: &'static str,
    /// The request field at fault, if one is.
    pub param: Option<&'static str>,
    /// A stable code for programs.
    pub code: Option<&'static str>,
}

impl ApiError {
    /// A 400 about the request.
    pub fn invalid(message: impl Into<String>, code: &'static str) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
            kind: "invalid_request_error",
            param: None,
            code: Some(code),
        }
    }

    /// The field at fault.
    #[must_use]
    pub fn param(mut self, param: &'static str) -> ApiError {
        self.param = Some(param);
        self
    }

    /// A 502: the upstream could not be reached or answered something unreadable.
    pub fn upstream(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_GATEWAY,
            message: message.into(),
            kind: "upstream_error",
            param: None,
            code: Some("upstream_unavailable"),
        }
    }

    /// A 424: an MCP server the request named could not be used (OpenAI answers so for its
    /// hosted MCP tool).
    pub fn dependency(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::FAILED_DEPENDENCY,
            message: message.into(),
            kind: "mcp_error",
            param: Some("tools"),
            code: Some("mcp_server_unavailable"),
        }
    }

    /// A 503: something the gateway needs for this request (its shared store) cannot be reached
    /// now; the same request may succeed later.
    pub fn unavailable(message: impl Into<String>, code: &'static str) -> ApiError {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: message.into(),
            kind: "server_error",
            param: None,
            code: Some(code),
        }
    }

    /// A 413: what the request led to is larger than the gateway keeps; the same request would
    /// fail again (a 4xx, so that SDKs do not retry it).
    pub fn too_large(message: impl Into<String>, code: &'static str) -> ApiError {
        ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: message.into(),
            kind: "invalid_request_error",
            param: None,
            code: Some(code),
        }
    }
}

impl ApiError {
    /// The answer to a client of `api`, in its shape.
    pub fn answer(self, api: Api) -> Response {
        tracing::info!(
            status = self.status.as_u16(),
            code = self.code,
            "{}",
            self.message
        );
        let body = crate::translate::write_error(api, &ErrorBody::from(self.clone()));
        (self.status, axum::Json(body)).into_response()
    }
}

/// OpenAI's shape: the gateway's own endpoints (`/v1/tools`) and the OpenAI APIs.
impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.answer(Api::Chat)
    }
}

impl From<ApiError> for ErrorBody {
    fn from(error: ApiError) -> ErrorBody {
        ErrorBody {
            message: error.message,
            kind: error.kind.to_owned(),
            code: error.code.map(str::to_owned),
            param: error.param.map(str::to_owned),
        }
    }
}

impl ErrorBody {
    /// The gateway's error about what the upstream sent.
    pub fn upstream(message: impl Into<String>) -> ErrorBody {
        ApiError::upstream(message).into()
    }
}
