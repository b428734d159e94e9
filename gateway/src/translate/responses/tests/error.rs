//! Tests of a Responses stream's error event.

use serde_json::json;

use crate::translate::responses::write_error_event;

#[test]
fn an_error_event() {
    let error = crate::translate::ir::ErrorBody {
        message: "boom".to_owned(),
        kind: "server_error".to_owned(),
        code: None,
        param: None,
    };
    assert_eq!(
        write_error_event(&error),
        json!({"type": "error", "code": "server_error", "message": "boom", "param": null})
    );
}
