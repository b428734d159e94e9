//! Random ids in the shapes OpenAI uses (`chatcmpl-…`, `call_…`, `resp_…`, `msg_…`, `fc_…`), those
//! Anthropic uses (`msg_01…`, `toolu_01…`, `req_011C…`) and llama.cpp's (32 alphanumerics), and the
//! clock the replies are stamped with.
//!
//! Ids only need to be unique and look right, not to be unpredictable, so each thread runs a
//! splitmix64 generator seeded once from the OS (through `uuid`): no system call per id on the
//! benchmark's hot path.

use std::cell::Cell;
use std::time::{SystemTime, UNIX_EPOCH};

const ALPHANUMERIC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &[u8] = b"0123456789abcdef";

thread_local! {
    static STATE: Cell<u64> = Cell::new({
        let (high, low) = uuid::Uuid::new_v4().as_u64_pair();
        high ^ low.rotate_left(29)
    });
}

fn next() -> u64 {
    STATE.with(|state| {
        let mut z = state.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
        state.set(z);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    })
}

fn random_string(alphabet: &[u8], len: usize) -> String {
    (0..len)
        .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
        .collect()
}

/// `chatcmpl-` and 24 alphanumerics.
pub fn chat_completion() -> String {
    format!("chatcmpl-{}", random_string(ALPHANUMERIC, 24))
}

/// `call_` and 24 alphanumerics: a tool call's id (Chat) or `call_id` (Responses).
pub fn call() -> String {
    format!("call_{}", random_string(ALPHANUMERIC, 24))
}

/// `resp_` and 48 hex digits.
pub fn response() -> String {
    format!("resp_{}", random_string(HEX, 48))
}

/// `msg_` and 48 hex digits: a Responses message item.
pub fn message() -> String {
    format!("msg_{}", random_string(HEX, 48))
}

/// `fc_` and 48 hex digits: a Responses function call item.
pub fn function_call() -> String {
    format!("fc_{}", random_string(HEX, 48))
}

/// `req_` and 32 hex digits: the `x-request-id` header OpenAI sends with every reply.
pub fn request() -> String {
    format!("req_{}", random_string(HEX, 32))
}

/// `msg_01` and 22 alphanumerics: an Anthropic message (`msg_01XFDUDYJgAACzvnptvVoYEL`).
pub fn anthropic_message() -> String {
    format!("msg_01{}", random_string(ALPHANUMERIC, 22))
}

/// `toolu_01` and 22 alphanumerics: an Anthropic `tool_use` block's id.
pub fn tool_use() -> String {
    format!("toolu_01{}", random_string(ALPHANUMERIC, 22))
}

/// `req_011C` and 20 alphanumerics: the `request-id` header (and an error's `request_id`) of an
/// Anthropic reply.
pub fn anthropic_request() -> String {
    format!("req_011C{}", random_string(ALPHANUMERIC, 20))
}

/// 32 alphanumerics: llama.cpp's tool call id, bare in Chat and Messages (Responses prefixes it
/// with `call_` for the `call_id` and `fc_` for the item).
pub fn llamacpp_call() -> String {
    random_string(ALPHANUMERIC, 32)
}

/// `chatcmpl-` and 32 alphanumerics: llama.cpp's completion id.
pub fn llamacpp_completion() -> String {
    format!("chatcmpl-{}", random_string(ALPHANUMERIC, 32))
}

/// `prefix` and 32 alphanumerics: llama.cpp's Responses ids (`resp_`, `msg_`).
pub fn llamacpp_prefixed(prefix: &str) -> String {
    format!("{prefix}{}", random_string(ALPHANUMERIC, 32))
}

/// Unix seconds, for `created` and `created_at`.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_openai_shapes() {
        let chat = chat_completion();
        assert_eq!(chat.len(), "chatcmpl-".len() + 24);
        assert!(
            chat["chatcmpl-".len()..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric())
        );
        let response = response();
        assert!(response.starts_with("resp_"));
        assert!(response[5..].bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(call(), call());
    }

    #[test]
    fn ids_have_anthropic_and_llamacpp_shapes() {
        let message = anthropic_message();
        assert!(message.starts_with("msg_01") && message.len() == 28);
        let tool_use = tool_use();
        assert!(tool_use.starts_with("toolu_01") && tool_use.len() == 30);
        assert!(anthropic_request().starts_with("req_011C"));
        let call = llamacpp_call();
        assert_eq!(call.len(), 32);
        assert!(call.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_eq!(llamacpp_completion().len(), "chatcmpl-".len() + 32);
    }
}
