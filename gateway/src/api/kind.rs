//! Which of the model APIs the gateway speaks a request or an upstream is in: the one place each
//! API's path, rendering target and name are written.

use serde::{Deserialize, Serialize};
use tooldef::Target;

/// One of the three model APIs: what a client speaks to the gateway, and what an upstream speaks
/// to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Api {
    /// OpenAI Chat Completions, `POST /v1/chat/completions`.
    Chat,
    /// OpenAI Responses, `POST /v1/responses`.
    Responses,
    /// Anthropic Messages, `POST /v1/messages`.
    Messages,
}

impl Api {
    /// Every API, in the order an upstream is tried when it has not said which it speaks.
    pub const ALL: [Api; 3] = [Api::Chat, Api::Responses, Api::Messages];

    /// The path a client posts to, and the upstream is posted to (after its base's own path).
    pub const fn path(self) -> &'static str {
        match self {
            Api::Chat => "/v1/chat/completions",
            Api::Responses => "/v1/responses",
            Api::Messages => "/v1/messages",
        }
    }

    /// The target its tools are rendered for.
    pub const fn target(self) -> Target {
        match self {
            Api::Chat => Target::ChatCompletions,
            Api::Responses => Target::Responses,
            Api::Messages => Target::Anthropic,
        }
    }

    /// Its name in the configuration, metrics and spans: `chat`, `responses`, `messages`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Responses => "responses",
            Api::Messages => "messages",
        }
    }

    /// The API of a name as [`Api::as_str`] writes it.
    pub fn from_name(name: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|api| api.as_str() == name)
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
