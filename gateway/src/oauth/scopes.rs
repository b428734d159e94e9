//! Which scopes to ask for again when a server refuses a request for want of scope (a 403 with
//! `error="insufficient_scope"`: MCP's step-up authorization), and when to stop asking.
//!
//! The first authorization's scopes are rmcp's `select_initial_scopes`: the `scope` of the
//! 401's challenge, else the protected resource's `scopes_supported`, else none (and
//! `offline_access` when the authorization server lists it, for a refresh token).

/// The most step-up authorizations one request may cause. A server that keeps asking for more
/// would otherwise send the user back to the browser for ever (MCP: clients SHOULD bound these
/// retries).
pub const MAX_STEP_UPS: u32 = 2;

/// The scopes to authorize again with after a 403 whose challenge asks for `challenged` (its
/// `scope` parameter), holding a token `granted` these, after `attempts` step-ups already made
/// for this request: what is held and what is asked for, together, so that what worked before
/// goes on working. `Err` says why asking again cannot help.
pub fn step_up(
    granted: &[String],
    challenged: Option<&str>,
    attempts: u32,
) -> Result<Vec<String>, String> {
    let required = split(challenged.unwrap_or(""));
    if required.is_empty() {
        return Err(
            "the server refused the request for want of scope (HTTP 403, insufficient_scope) \
             without saying which scope it wants"
                .to_owned(),
        );
    }
    let missing: Vec<&String> = required.iter().filter(|s| !granted.contains(s)).collect();
    if missing.is_empty() {
        return Err(format!(
            "the server refused the request for want of scope `{}` (HTTP 403, \
             insufficient_scope), which the token already carries: authorizing again cannot help",
            required.join(" ")
        ));
    }
    if attempts >= MAX_STEP_UPS {
        return Err(format!(
            "the server still wants scope `{}` (HTTP 403, insufficient_scope) after {attempts} \
             authorizations for more scope; giving up",
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    let mut scopes = granted.to_vec();
    for scope in required {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Ok(scopes)
}

/// A `scope` value (space-separated, RFC 6749 §3.3) as its scopes, each once, in order.
pub fn split(scope: &str) -> Vec<String> {
    let mut scopes: Vec<String> = Vec::new();
    for scope in scope.split_whitespace() {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
    scopes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(scopes: &[&str]) -> Vec<String> {
        scopes.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_step_up_asks_for_what_is_held_and_what_is_wanted() {
        let granted = owned(&["mcp:basic"]);
        assert_eq!(
            step_up(&granted, Some("mcp:basic mcp:write"), 0).unwrap(),
            owned(&["mcp:basic", "mcp:write"])
        );
        // A token whose scopes are unknown (given in a configuration) asks for the challenge's.
        assert_eq!(
            step_up(&[], Some("mcp:write  mcp:write"), 0).unwrap(),
            owned(&["mcp:write"])
        );
    }

    #[test]
    fn asking_again_for_what_is_held_is_refused() {
        let granted = owned(&["mcp:admin", "offline_access"]);
        let why = step_up(&granted, Some("mcp:admin"), 0).unwrap_err();
        assert!(why.contains("already carries"), "{why}");
        let why = step_up(&granted, None, 0).unwrap_err();
        assert!(why.contains("without saying which"), "{why}");
        let why = step_up(&granted, Some("  "), 0).unwrap_err();
        assert!(why.contains("without saying which"), "{why}");
    }

    #[test]
    fn step_ups_are_bounded() {
        let granted = owned(&["a"]);
        assert!(step_up(&granted, Some("b"), MAX_STEP_UPS - 1).is_ok());
        let why = step_up(&granted, Some("b"), MAX_STEP_UPS).unwrap_err();
        assert!(why.contains("giving up") && why.contains("`b`"), "{why}");
    }

    #[test]
    fn scope_values_are_split_once_each() {
        assert_eq!(split(" a b\ta  c "), owned(&["a", "b", "c"]));
        assert!(split("").is_empty());
    }
}
