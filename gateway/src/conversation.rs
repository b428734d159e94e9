//! What every API's conversation shares in the gateway's loop: the bounds on the rounds, usage
//! summed over rounds, and the rounds' texts made one answer.

use serde_json::{Map, Value};

/// The bound that made a round the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The request's rounds ran out.
    MaxRounds,
    /// The request's injected tool calls ran out.
    MaxToolCalls,
}

impl Bound {
    /// Its name, as the configuration and the request spell it: `max_rounds`, `max_tool_calls`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::MaxRounds => "max_rounds",
            Bound::MaxToolCalls => "max_tool_calls",
        }
    }
}

/// The request member through which a client sets its own bounds: `{"tooldef": {"max_rounds":
/// 4, "max_tool_calls": 8}}`. It is the gateway's, and never reaches the upstream.
pub const EXTENSION: &str = "tooldef";

/// The last event of a stream that a stopping gateway cut at the end of its grace.
pub const STOPPED: &str = "The gateway stopped before this answer was complete: it was asked to shut down, and the conversation ran past the time it gives conversations in flight. Send the request again.";

/// One request's bounds on its rounds, and how many injected calls the rounds have run.
#[derive(Debug, Clone)]
pub struct Budget {
    max_rounds: u32,
    max_tool_calls: Option<u32>,
    calls_run: u32,
}

impl Budget {
    /// The bounds of one request: the configuration's, lowered by the request's [`EXTENSION`]
    /// member (taken out of the request) and, on Responses (`openai_field`), by OpenAI's own
    /// `max_tool_calls`, which is left in the request for the upstream's built-in tools. A bound
    /// above the configuration's is refused rather than lowered: the operator's bound is a
    /// ceiling, and a client asking for more should hear so.
    pub fn of_request(
        config: &crate::config::Config,
        request: &mut Map<String, Value>,
        openai_field: bool,
    ) -> Result<Budget, crate::error::ApiError> {
        let mut budget = Budget {
            max_rounds: config.max_rounds,
            max_tool_calls: config.max_tool_calls,
            calls_run: 0,
        };
        if openai_field && let Some(value) = request.get("max_tool_calls").filter(|v| !v.is_null())
        {
            budget.max_tool_calls = Some(bound(
                value,
                "max_tool_calls",
                "max_tool_calls",
                1,
                config.max_tool_calls,
            )?);
        }
        match request.remove(EXTENSION) {
            None | Some(Value::Null) => {}
            Some(Value::Object(extension)) => {
                for (key, value) in &extension {
                    match key.as_str() {
                        "max_rounds" => {
                            budget.max_rounds = bound(
                                value,
                                "max_rounds",
                                "tooldef.max_rounds",
                                2,
                                Some(config.max_rounds),
                            )?;
                        }
                        "max_tool_calls" => {
                            budget.max_tool_calls = Some(bound(
                                value,
                                "max_tool_calls",
                                "tooldef.max_tool_calls",
                                1,
                                config.max_tool_calls,
                            )?);
                        }
                        other => {
                            return Err(crate::error::ApiError::invalid(
                                format!(
                                    "`tooldef.{other}` is not a setting of the gateway: `tooldef` takes `max_rounds` and `max_tool_calls`."
                                ),
                                "invalid_tooldef_setting",
                            )
                            .param("tooldef"));
                        }
                    }
                }
            }
            Some(_) => {
                return Err(crate::error::ApiError::invalid(
                    "`tooldef` must be an object, e.g. {\"max_rounds\": 4, \"max_tool_calls\": 8}.",
                    "invalid_tooldef_setting",
                )
                .param("tooldef"));
            }
        }
        Ok(budget)
    }

    /// The bound that makes round `round` (from 1) the last, sent with `tool_choice: "none"`,
    /// if one does.
    pub fn bound_at(&self, round: u32) -> Option<Bound> {
        if self.max_tool_calls.is_some_and(|max| self.calls_run >= max) {
            Some(Bound::MaxToolCalls)
        } else if round >= self.max_rounds {
            Some(Bound::MaxRounds)
        } else {
            None
        }
    }

    /// How many of `wanted` calls may run now; those are counted as run.
    pub fn take(&mut self, wanted: usize) -> usize {
        let wanted = u32::try_from(wanted).unwrap_or(u32::MAX);
        let allowed = match self.max_tool_calls {
            Some(max) => wanted.min(max.saturating_sub(self.calls_run)),
            None => wanted,
        };
        self.calls_run = self.calls_run.saturating_add(allowed);
        allowed as usize
    }

    /// The result given to a call that the bound kept from running.
    pub fn not_run(&self) -> String {
        format!(
            "Not run: this request may run at most {} tool calls, and they have been used. Answer with what you have.",
            self.max_tool_calls.unwrap_or_default()
        )
    }
}

/// A positive integer bound of the request, at least `min` and at most the configuration's.
fn bound(
    value: &Value,
    name: &str,
    param: &'static str,
    min: u32,
    ceiling: Option<u32>,
) -> Result<u32, crate::error::ApiError> {
    let n = value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= min)
        .ok_or_else(|| {
            crate::error::ApiError::invalid(
                format!("`{param}` must be an integer of at least {min}, got {value}."),
                "invalid_tooldef_setting",
            )
            .param(param)
        })?;
    match ceiling {
        Some(ceiling) if n > ceiling => Err(crate::error::ApiError::invalid(
            format!(
                "`{param}` is {n}, above this gateway's `{name}` of {ceiling}: ask for {ceiling} or fewer."
            ),
            "invalid_tooldef_setting",
        )
        .param(param)),
        _ => Ok(n),
    }
}

/// Adds every number of `more` into `sum`, field by field (token counts and their details).
pub fn add_usage(sum: &mut Value, more: &Value) {
    match (sum, more) {
        (Value::Object(sum), Value::Object(more)) => {
            for (key, value) in more {
                match sum.get_mut(key) {
                    Some(existing) => add_usage(existing, value),
                    None => {
                        sum.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (sum @ Value::Number(_), Value::Number(more)) => {
            if let (Some(a), Some(b)) = (sum.as_u64(), more.as_u64()) {
                *sum = Value::from(a + b);
            } else if let (Some(a), Some(b)) = (sum.as_f64(), more.as_f64()) {
                *sum = Value::from(a + b);
            }
        }
        (sum @ Value::Null, more) => *sum = more.clone(),
        _ => {}
    }
}

/// The texts of several rounds as one answer: the non-empty ones, a blank line apart.
#[derive(Debug, Default)]
pub struct Texts {
    parts: Vec<String>,
}

impl Texts {
    /// A round's text (nothing for none).
    pub fn push(&mut self, text: Option<&str>) {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            self.parts.push(text.to_owned());
        }
    }

    /// What goes between the texts of two rounds.
    pub const SEPARATOR: &'static str = "\n\n";

    /// The answer, or `None` when no round said anything.
    pub fn joined(&self) -> Option<String> {
        (!self.parts.is_empty()).then(|| self.parts.join(Self::SEPARATOR))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_adds_up_with_details() {
        let mut sum = Value::Null;
        add_usage(
            &mut sum,
            &json!({"prompt_tokens": 10, "completion_tokens": 2, "details": {"cached_tokens": 1}}),
        );
        add_usage(
            &mut sum,
            &json!({"prompt_tokens": 20, "completion_tokens": 3, "details": {"cached_tokens": 0}}),
        );
        assert_eq!(
            sum,
            json!({"prompt_tokens": 30, "completion_tokens": 5, "details": {"cached_tokens": 1}})
        );
    }

    fn budget(
        config: &crate::config::Config,
        request: Value,
        responses: bool,
    ) -> Result<(Budget, Map<String, Value>), String> {
        let mut request = request.as_object().unwrap().clone();
        Budget::of_request(config, &mut request, responses)
            .map(|budget| (budget, request))
            .map_err(|err| err.message)
    }

    #[test]
    fn bounds_come_from_the_configuration_and_the_request_lowers_them() {
        let mut config = crate::config::Config::new("http://h/v1");
        config.max_rounds = 4;
        let (plain, _) = budget(&config, json!({}), false).unwrap();
        assert_eq!(plain.bound_at(3), None);
        assert_eq!(plain.bound_at(4), Some(Bound::MaxRounds));

        let (lowered, request) = budget(
            &config,
            json!({"model": "m", "tooldef": {"max_rounds": 2, "max_tool_calls": 3}}),
            false,
        )
        .unwrap();
        assert_eq!(
            request,
            *json!({"model": "m"}).as_object().unwrap(),
            "the member is the gateway's"
        );
        assert_eq!(lowered.bound_at(1), None);
        assert_eq!(lowered.bound_at(2), Some(Bound::MaxRounds));

        // OpenAI's own field on Responses, left for the upstream; ignored on Chat Completions.
        let (responses, request) = budget(&config, json!({"max_tool_calls": 1}), true).unwrap();
        assert_eq!(request.get("max_tool_calls"), Some(&json!(1)));
        assert_eq!(responses.max_tool_calls, Some(1));
        let (chat, _) = budget(&config, json!({"max_tool_calls": 1}), false).unwrap();
        assert_eq!(chat.max_tool_calls, None);
    }

    #[test]
    fn a_bound_above_the_gateways_or_out_of_shape_is_refused() {
        let mut config = crate::config::Config::new("http://h/v1");
        config.max_rounds = 3;
        config.max_tool_calls = Some(5);
        let refused =
            |request: Value, responses: bool| budget(&config, request, responses).unwrap_err();
        assert!(
            refused(json!({"tooldef": {"max_rounds": 4}}), false)
                .contains("above this gateway's `max_rounds` of 3")
        );
        assert!(
            refused(json!({"tooldef": {"max_tool_calls": 6}}), false)
                .contains("`max_tool_calls` of 5")
        );
        assert!(refused(json!({"max_tool_calls": 6}), true).contains("`max_tool_calls` is 6"));
        assert!(refused(json!({"tooldef": {"max_rounds": 1}}), false).contains("at least 2"));
        assert!(refused(json!({"tooldef": {"max_tool_calls": 0}}), false).contains("at least 1"));
        assert!(refused(json!({"tooldef": {"max_tool_calls": 2.5}}), false).contains("an integer"));
        assert!(
            refused(json!({"tooldef": {"max_round": 2}}), false)
                .contains("`tooldef.max_round` is not a setting")
        );
        assert!(refused(json!({"tooldef": 3}), false).contains("must be an object"));
    }

    #[test]
    fn calls_are_counted_and_cut_at_the_bound() {
        let mut config = crate::config::Config::new("http://h/v1");
        config.max_tool_calls = Some(3);
        let (mut budget, _) = budget(&config, json!({}), false).unwrap();
        assert_eq!(budget.take(2), 2);
        assert_eq!(budget.bound_at(2), None);
        assert_eq!(budget.take(2), 1, "one call of the two is left");
        assert_eq!(budget.bound_at(3), Some(Bound::MaxToolCalls));
        assert_eq!(budget.take(4), 0);
        assert!(budget.not_run().contains("at most 3 tool calls"));
    }

    #[test]
    fn texts_join_with_a_blank_line() {
        let mut texts = Texts::default();
        texts.push(Some("Let me look."));
        texts.push(Some(""));
        texts.push(None);
        texts.push(Some("It is sunny."));
        assert_eq!(texts.joined().unwrap(), "Let me look.\n\nIt is sunny.");
        assert_eq!(Texts::default().joined(), None);
    }
}
