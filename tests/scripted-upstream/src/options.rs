//! What the server is started as: which APIs it serves (`--apis`) and whose shapes it answers in
//! (`--quirks`). Both hold for every request while the server runs.

use std::fmt;

/// The model APIs the server can answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// OpenAI's Chat Completions, `POST /v1/chat/completions`.
    Chat,
    /// OpenAI's Responses, `POST /v1/responses`.
    Responses,
    /// Anthropic's Messages, `POST /v1/messages` and `POST /v1/messages/count_tokens`.
    Messages,
}

impl Api {
    pub const ALL: [Api; 3] = [Api::Chat, Api::Responses, Api::Messages];

    /// The API's name in `--apis`.
    pub fn name(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Responses => "responses",
            Api::Messages => "messages",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of APIs: those the server serves. The others' endpoints answer 404, as a server that has
/// never heard of them does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Apis(u8);

impl Apis {
    pub fn all() -> Self {
        Self(Api::ALL.iter().fold(0, |bits, api| bits | api.bit()))
    }

    pub fn only(apis: &[Api]) -> Self {
        Self(apis.iter().fold(0, |bits, api| bits | api.bit()))
    }

    /// A comma-separated list of API names, e.g. `chat,responses`.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut apis = Vec::new();
        for name in list
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            match Api::ALL.iter().find(|api| api.name() == name) {
                Some(api) => apis.push(*api),
                None => {
                    return Err(format!(
                        "unknown API '{name}' in --apis (known: chat, responses, messages)"
                    ));
                }
            }
        }
        if apis.is_empty() {
            return Err("--apis needs at least one of chat, responses, messages".into());
        }
        Ok(Self::only(&apis))
    }

    pub fn serves(self, api: Api) -> bool {
        self.0 & api.bit() != 0
    }
}

impl Default for Apis {
    fn default() -> Self {
        Self::all()
    }
}

impl fmt::Display for Apis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Api::ALL
            .iter()
            .filter(|api| self.serves(**api))
            .map(|api| api.name())
            .collect();
        f.write_str(&names.join(","))
    }
}

/// Whose wire shapes the replies take. The default is the providers' documented shapes; a quirk
/// imitates a server that departs from them, so the gateway can be tested on what it will meet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Quirks {
    /// OpenAI's and Anthropic's documented shapes.
    #[default]
    None,
    /// llama.cpp's server (`llama-server`): see `llamacpp`.
    LlamaCpp,
}

impl Quirks {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "llamacpp" => Ok(Quirks::LlamaCpp),
            "none" => Ok(Quirks::None),
            _ => Err(format!(
                "unknown quirks '{name}' in --quirks (known: llamacpp, none)"
            )),
        }
    }
}

/// Everything an [`App`](crate::App) is built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Whether requests are recorded for `GET /_log`.
    pub log: bool,
    pub apis: Apis,
    pub quirks: Quirks,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            log: true,
            apis: Apis::all(),
            quirks: Quirks::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apis_parse_and_print() {
        let apis = Apis::parse("chat, messages").unwrap();
        assert!(apis.serves(Api::Chat));
        assert!(!apis.serves(Api::Responses));
        assert!(apis.serves(Api::Messages));
        assert_eq!(apis.to_string(), "chat,messages");
        assert_eq!(Apis::parse("chat,chat").unwrap(), Apis::only(&[Api::Chat]));
        assert_eq!(Apis::default().to_string(), "chat,responses,messages");
        assert!(
            Apis::parse("chat,completions")
                .unwrap_err()
                .contains("completions")
        );
        assert!(Apis::parse(" , ").is_err());
    }

    #[test]
    fn quirks_parse() {
        assert_eq!(Quirks::parse("llamacpp"), Ok(Quirks::LlamaCpp));
        assert_eq!(Quirks::parse("none"), Ok(Quirks::None));
        assert!(Quirks::parse("vllm").is_err());
    }
}
