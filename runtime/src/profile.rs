//! Provider profiles: what a model takes beyond its API's documented schema rules, and the
//! target and profile a model's id calls for, so that a gateway or an agent that knows its model
//! need not know each provider's quirks (`docs/TARGET_RULES.md`, "Profiles").
//!
//! ```
//! use tooldef::{Profile, Target};
//!
//! let chosen = Target::for_model("o3-mini");
//! assert_eq!(chosen.target, Target::ChatCompletions);
//! assert_eq!(chosen.profile, Profile::OpenAiReasoning);
//! assert_eq!(Target::for_model("claude-sonnet-4-5").target, Target::Anthropic);
//! assert_eq!(Target::for_model("gemini-2.5-pro").target, Target::GeminiJsonSchema);
//! assert_eq!(Target::for_model("gemini-live-2.5-flash-preview").target, Target::Gemini);
//! assert_eq!(Target::for_model("ft:gpt-4o-mini-2024-07-18:acme::9x").profile, Profile::OpenAiFineTuned);
//! assert_eq!(Target::for_model("meta-llama/Llama-3.3-70B-Instruct").profile, Profile::OpenAiCompatible);
//! ```

use crate::Target;

/// How a model takes tool schemas, beyond its API's documented rules. Profiles other than
/// [`Documented`](Profile::Documented) concern the OpenAI targets (Chat Completions and
/// Responses, which OpenAI-compatible endpoints also speak); the others render as documented.
///
/// [`Target::for_model`] chooses one from a model's id;
/// [`ToolDefinition::render_for`](crate::ToolDefinition::render_for) and
/// [`ToolSet::list_for_model`](crate::ToolSet::list_for_model) render with it.
///
/// ```
/// use tooldef::{Profile, Target, Tool, tool};
///
/// /// Count up to a number.
/// #[tool]
/// fn count(#[schemars(range(min = 1, max = 10))] to: u32) -> u32 {
///     to
/// }
///
/// let definition = Count.definition();
/// let to = |profile| {
///     let rendering = definition.render_for(Target::ChatCompletions, profile).unwrap();
///     rendering.to_json()["function"]["parameters"]["properties"]["to"].clone()
/// };
/// assert_eq!(to(Profile::Documented)["maximum"], 10);
/// // An OpenAI-compatible endpoint (vLLM, a router) ignores ranges: they are said in words.
/// let compatible = to(Profile::OpenAiCompatible);
/// assert!(compatible.get("maximum").is_none());
/// assert!(compatible["description"].as_str().unwrap().contains("10"));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Profile {
    /// As the API documents (the default).
    #[default]
    Documented,
    /// OpenAI's reasoning models (o1, o3, o4-mini, the gpt-5 family, codex-mini): they refuse
    /// more of the constraint keywords in practice, and follow them as well in words; the
    /// constraints OpenAI's fine-tuned models refuse are said in the description.
    OpenAiReasoning,
    /// OpenAI's fine-tuned models (`ft:…`): they refuse `pattern`, `format`, `minimum`/`maximum`
    /// and `minItems`/`maxItems`, so those are said in the description.
    OpenAiFineTuned,
    /// A model behind an OpenAI-compatible endpoint (Llama, Qwen, Mistral, DeepSeek and the
    /// others, served by vLLM, Ollama, OpenRouter, Together…): such endpoints ignore constraint
    /// keywords (so the model would never see them) and strict mode, so every constraint is said
    /// in the description and the tool is never strict.
    OpenAiCompatible,
}

/// What OpenAI's fine-tuned models refuse (PROVIDERS.md, "OpenAI strict mode").
const FINE_TUNED_REFUSED: &[&str] = &[
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// Every constraint keyword an OpenAI target keeps: what an endpoint that ignores them would
/// silently drop.
const CONSTRAINTS: &[&str] = &[
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

impl Profile {
    /// The keywords this profile says in words, beyond what the target itself describes.
    pub(crate) fn described_keywords(self) -> &'static [&'static str] {
        match self {
            Profile::Documented => &[],
            Profile::OpenAiReasoning | Profile::OpenAiFineTuned => FINE_TUNED_REFUSED,
            Profile::OpenAiCompatible => CONSTRAINTS,
        }
    }

    /// Whether a strict rendering is of use.
    pub(crate) fn allows_strict(self) -> bool {
        self != Profile::OpenAiCompatible
    }

    /// Whether this profile changes renderings for `target`.
    pub fn applies_to(self, target: Target) -> bool {
        self != Profile::Documented && target.is_openai()
    }
}

/// The target and profile a model calls for: [`Target::for_model`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModelTarget {
    /// The API the model is served by.
    pub target: Target,
    /// How it takes schemas beyond that API's rules.
    pub profile: Profile,
}

/// OpenAI models served by the Responses API only (OpenAI's model pages: "available in the
/// Responses API only").
const RESPONSES_ONLY: &[&str] = &[
    "o1-pro",
    "o3-pro",
    "o3-deep-research",
    "o4-mini-deep-research",
    "gpt-5-pro",
    "gpt-5-codex",
    "codex-mini",
    "computer-use-preview",
];

impl Target {
    /// The target and profile for a model, from its id as the provider, a cloud (Bedrock,
    /// Vertex) or a router (`openai/gpt-4.1`) spells it:
    ///
    /// - `claude-…` (and Bedrock's `anthropic.claude-…`, Vertex's `claude-…@date`):
    ///   [`Target::Anthropic`];
    /// - `gemini-…` (and `models/gemini-…`, Vertex's `publishers/google/models/gemini-…`):
    ///   [`Target::GeminiJsonSchema`], which every current Gemini model takes on
    ///   `generateContent`; the Live API's models (`…-live-…`, `…native-audio…`) take only
    ///   OpenAPI `parameters`: [`Target::Gemini`];
    /// - OpenAI's: `gpt-…`, `chatgpt-…`, `o1`…`o4` and their variants, `codex-…`, fine-tuned
    ///   `ft:…`: [`Target::ChatCompletions`], or [`Target::Responses`] for the models only the
    ///   Responses API serves (`o3-pro`, `codex-mini`…), with [`Profile::OpenAiReasoning`] for
    ///   the reasoning models and [`Profile::OpenAiFineTuned`] for fine-tuned ones;
    /// - anything else (Llama, Qwen, Mistral, DeepSeek, a router's `vendor/model`): an
    ///   OpenAI-compatible endpoint, [`Target::ChatCompletions`] with
    ///   [`Profile::OpenAiCompatible`].
    pub fn for_model(model: &str) -> ModelTarget {
        let id = model.trim().to_ascii_lowercase();
        let id = id.strip_prefix("openai/").unwrap_or(&id);
        let id = id.strip_prefix("publishers/google/").unwrap_or(id);
        let id = id.strip_prefix("models/").unwrap_or(id);
        let chat = |profile| ModelTarget {
            target: Target::ChatCompletions,
            profile,
        };
        if id.starts_with("claude-") || id.starts_with("anthropic.claude-") {
            return ModelTarget {
                target: Target::Anthropic,
                profile: Profile::Documented,
            };
        }
        if id.starts_with("gemini-") {
            let live = id.contains("-live") || id.contains("native-audio");
            return ModelTarget {
                target: if live {
                    Target::Gemini
                } else {
                    Target::GeminiJsonSchema
                },
                profile: Profile::Documented,
            };
        }
        if id.starts_with("ft:") {
            return chat(Profile::OpenAiFineTuned);
        }
        let reasoning = is_openai_reasoning(id);
        if reasoning || id.starts_with("gpt-") || id.starts_with("chatgpt-") {
            let profile = if reasoning {
                Profile::OpenAiReasoning
            } else {
                Profile::Documented
            };
            let responses_only = RESPONSES_ONLY
                .iter()
                .any(|m| id == *m || id.starts_with(&format!("{m}-")));
            return ModelTarget {
                target: if responses_only {
                    Target::Responses
                } else {
                    Target::ChatCompletions
                },
                profile,
            };
        }
        chat(Profile::OpenAiCompatible)
    }
}

/// OpenAI's reasoning models: the o-series (`o1`, `o3-mini`, `o4-mini-2025-04-16`…), the gpt-5
/// family but its chat variants (`gpt-5-chat-latest` is not a reasoning model), and codex-mini.
fn is_openai_reasoning(id: &str) -> bool {
    let o_series = id.strip_prefix('o').is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_digit())
            && rest
                .split('-')
                .next()
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
    });
    let gpt5 = id.starts_with("gpt-5") && !id.contains("-chat");
    o_series || gpt5 || id.starts_with("codex-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(model: &str) -> (Target, Profile) {
        let ModelTarget { target, profile } = Target::for_model(model);
        (target, profile)
    }

    #[test]
    fn openai_gpt_models() {
        for model in [
            "gpt-4.1",
            "gpt-4.1-mini",
            "gpt-4.1-nano-2025-04-14",
            "gpt-4o",
            "gpt-4o-mini",
            "chatgpt-4o-latest",
            "gpt-4-turbo",
            "gpt-3.5-turbo",
            "gpt-5-chat-latest",
            "openai/gpt-4.1",
        ] {
            assert_eq!(
                chosen(model),
                (Target::ChatCompletions, Profile::Documented),
                "{model}"
            );
        }
    }

    #[test]
    fn openai_reasoning_models() {
        for model in [
            "o1",
            "o1-mini",
            "o3",
            "o3-mini",
            "o3-mini-2025-01-31",
            "o4-mini",
            "gpt-5",
            "gpt-5-mini",
            "gpt-5-nano",
            "gpt-5.1",
        ] {
            assert_eq!(
                chosen(model),
                (Target::ChatCompletions, Profile::OpenAiReasoning),
                "{model}"
            );
        }
        for model in [
            "o1-pro",
            "o3-pro-2025-06-10",
            "codex-mini-latest",
            "gpt-5-pro",
        ] {
            assert_eq!(
                chosen(model),
                (Target::Responses, Profile::OpenAiReasoning),
                "{model}"
            );
        }
    }

    #[test]
    fn openai_fine_tuned_models() {
        assert_eq!(
            chosen("ft:gpt-4o-mini-2024-07-18:acme:support:9xYz"),
            (Target::ChatCompletions, Profile::OpenAiFineTuned)
        );
    }

    #[test]
    fn anthropic_models() {
        for model in [
            "claude-sonnet-4-5",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-1",
            "claude-haiku-4-5",
            "claude-3-7-sonnet-latest",
            "claude-3-5-haiku-20241022",
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5@20250929",
        ] {
            assert_eq!(
                chosen(model),
                (Target::Anthropic, Profile::Documented),
                "{model}"
            );
        }
    }

    #[test]
    fn gemini_models() {
        for model in [
            "gemini-2.5-pro",
            "gemini-2.5-flash",
            "gemini-2.5-flash-lite",
            "gemini-2.0-flash",
            "gemini-3-pro-preview",
            "gemini-3.1-flash-lite",
            "models/gemini-2.5-pro",
            "publishers/google/models/gemini-2.5-flash",
        ] {
            assert_eq!(
                chosen(model),
                (Target::GeminiJsonSchema, Profile::Documented),
                "{model}"
            );
        }
        // The Live API takes only OpenAPI `parameters`.
        for model in [
            "gemini-live-2.5-flash-preview",
            "gemini-2.0-flash-live-001",
            "gemini-2.5-flash-native-audio-preview-09-2025",
            "gemini-2.5-flash-preview-native-audio-dialog",
        ] {
            assert_eq!(
                chosen(model),
                (Target::Gemini, Profile::Documented),
                "{model}"
            );
        }
    }

    #[test]
    fn models_behind_openai_compatible_endpoints() {
        for model in [
            "meta-llama/Llama-3.3-70B-Instruct",
            "llama3.1:8b",
            "Qwen/Qwen2.5-72B-Instruct",
            "mistral-large-latest",
            "deepseek-chat",
            "deepseek-reasoner",
            "anthropic/claude-3.5-sonnet",
        ] {
            assert_eq!(
                chosen(model),
                (Target::ChatCompletions, Profile::OpenAiCompatible),
                "{model}"
            );
        }
    }
}
