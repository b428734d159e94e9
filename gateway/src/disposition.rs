//! What happens to a call the model makes, decided once per call, as rmcp's router resolves a
//! name to one route before the call.

use crate::injection::Injection;

/// Who answers a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// An injected tool the gateway runs without asking.
    Run,
    /// The gateway's search tool, when the request has more tools than it carries: answered
    /// here, and the tools it finds are sent in the next rounds.
    Search,
    /// An injected tool whose calls wait for the client's approval, shown to the client as an
    /// approval request (where the client's API has them: Responses with `mcp` tools).
    Ask,
    /// The client's own tool, or an injected one whose calls need approval where the client's
    /// API shows no approval requests: handed back to the client as its call.
    Client,
}

impl Disposition {
    /// Whether the gateway answers the call itself, now (it runs or searches).
    pub fn runs_here(self) -> bool {
        matches!(self, Disposition::Run | Disposition::Search)
    }

    /// Whether the gateway handles the call (it runs it, or shows it as an approval request),
    /// so that the client is not shown it as a call of its own.
    pub fn is_gateways(self) -> bool {
        self != Disposition::Client
    }
}

impl Injection {
    /// What happens to a call of `name`; `approvals_shown` says whether the client's API shows
    /// calls waiting for approval (otherwise they are the client's to run).
    pub fn disposition(&self, name: &str, approvals_shown: bool) -> Disposition {
        if !self.runs {
            return Disposition::Client;
        }
        if self
            .discovery
            .as_ref()
            .is_some_and(|discovery| discovery.is_search(name))
        {
            return Disposition::Search;
        }
        match self.needs_approval(name) {
            Some(false) if self.offers(name) => Disposition::Run,
            Some(true) if approvals_shown && self.offers(name) => Disposition::Ask,
            _ => Disposition::Client,
        }
    }
}
