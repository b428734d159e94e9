//! Tests of Messages error bodies, read and written.

use serde_json::json;

use crate::translate::ir::ErrorBody;
use crate::translate::messages::{read_error, write_error};

#[test]
fn errors() {
    let error = read_error(
        &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}),
    )
    .unwrap();
    assert_eq!(error.kind, "rate_limit_error");
    assert_eq!(read_error(&json!({"error": {"message": "x"}})), None);
    let openai = |kind: &str| ErrorBody {
        message: "m".to_owned(),
        kind: kind.to_owned(),
        code: None,
        param: None,
    };
    for (kind, anthropic) in [
        ("invalid_request_error", "invalid_request_error"),
        ("authentication_error", "authentication_error"),
        ("permission_error", "permission_error"),
        ("not_found_error", "not_found_error"),
        ("rate_limit_error", "rate_limit_error"),
        ("overloaded_error", "overloaded_error"),
        ("upstream_error", "api_error"),
        ("server_error", "api_error"),
        ("mcp_error", "api_error"),
        ("exceed_context_size_error", "invalid_request_error"),
        ("something", "api_error"),
    ] {
        assert_eq!(
            write_error(&openai(kind)),
            json!({"type": "error", "error": {"type": anthropic, "message": "m"}}),
            "{kind}"
        );
    }
}
