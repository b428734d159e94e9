//! Tests of Chat error bodies, read and written.

use serde_json::json;

use crate::translate::chat::{read_error, write_error};

#[test]
fn errors() {
    let error = read_error(&json!({"error": {"message": "bad", "type": "invalid_request_error", "param": "model", "code": "model_not_found"}})).unwrap();
    assert_eq!(
        write_error(&error),
        json!({"error": {"message": "bad", "type": "invalid_request_error", "param": "model", "code": "model_not_found"}})
    );
    assert_eq!(
        read_error(&json!({"error": "nope"})).unwrap().message,
        "nope"
    );
    assert_eq!(read_error(&json!({"ok": true})), None);
}
