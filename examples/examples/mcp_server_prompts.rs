//! An MCP server over stdio with prompts and resources beside tooldef tools: the prompts are
//! rmcp's own (`#[prompt_router]`), the resources a handful of handlers, and the tools half is
//! handed to a tooldef `McpServer` (the showcase's tools and `process_batch`).
//!
//! ```text
//! cargo run --example mcp_server_prompts
//! ```
//!
//! stdout carries the protocol; everything else goes to stderr.

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::wrapper::Parameters;
// MCP's logging is deprecated by MCP 2026-07-28 (SEP-2577), and by rmcp with it; the tools'
// log messages still reach the clients of 2025-11-25, whose level this server keeps.
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, PromptMessage, PromptsCapability, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourcesCapability,
    Role, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt, prompt, prompt_handler, prompt_router,
};
use schemars::JsonSchema;
use serde::Deserialize;
use tooldef::mcp::McpServer;
use tooldef_examples::{batch, showcase};

/// The travel desk: tooldef's tools, rmcp's prompts, and a few guides as resources.
#[derive(Clone)]
struct TravelDesk {
    tools: McpServer,
    prompt_router: PromptRouter<TravelDesk>,
}

/// The arguments of the `plan_trip` prompt. MCP sends a prompt's arguments as strings, so a
/// number comes as text.
#[derive(Deserialize, JsonSchema)]
struct PlanTrip {
    /// The city to visit.
    city: String,
    /// How many days the trip lasts (3 if not given).
    days: Option<String>,
}

#[prompt_router]
impl TravelDesk {
    fn new(tools: McpServer) -> TravelDesk {
        TravelDesk {
            tools,
            prompt_router: TravelDesk::prompt_router(),
        }
    }

    /// Plan a trip to a city, with the weather and the flights in mind.
    #[prompt(name = "plan_trip")]
    async fn plan_trip(
        &self,
        Parameters(trip): Parameters<PlanTrip>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let days = match trip.days.as_deref().map(str::parse::<u32>) {
            None => 3,
            Some(Ok(days)) if days > 0 => days,
            Some(_) => {
                return Err(ErrorData::invalid_params(
                    "`days` is a whole number of days, at least 1 (e.g. \"5\")",
                    None,
                ));
            }
        };
        Ok(vec![
            PromptMessage::new_text(
                Role::User,
                format!(
                    "Plan a {days}-day trip to {}. Check the forecast with `get_weather` and \
                     look for flights with `search_flights` before you suggest anything.",
                    trip.city
                ),
            ),
            PromptMessage::new_text(
                Role::Assistant,
                format!("I'll start with the weather in {}.", trip.city),
            ),
        ])
    }

    /// Help a traveller cancel a booking, within the cancellation policy.
    #[prompt(name = "cancellation_help")]
    async fn cancellation_help(&self) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            "Read the cancellation policy (policy://cancellation), then help me cancel my \
             booking with `cancel_booking`.",
        )]
    }
}

/// The resources: (URI, name, MIME type, text).
const RESOURCES: &[(&str, &str, &str, &str)] = &[
    (
        "guide://lisbon",
        "Lisbon guide",
        "text/markdown",
        "# Lisbon\n\nTrams, viewpoints and custard tarts. Bring shoes for the hills.",
    ),
    (
        "guide://kyoto",
        "Kyoto guide",
        "text/markdown",
        "# Kyoto\n\nTemples, gardens and tea houses. Book the moss garden ahead.",
    ),
    (
        "policy://cancellation",
        "Cancellation policy",
        "text/plain",
        "Bookings can be cancelled free of charge up to 48 hours before check-in.",
    ),
];

#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for TravelDesk {
    /// The tools' configuration (name, instructions, tools and logging), with prompts and
    /// resources added.
    fn get_info(&self) -> ServerConfig {
        let mut config = self.tools.get_info();
        config.capabilities.prompts = Some(PromptsCapability::default());
        config.capabilities.resources = Some(ResourcesCapability::default());
        config
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.tools.list_tools_page(request, &context)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tools.call(request, context).await
    }

    /// So that the client hears `notifications/tools/list_changed` when the tools change.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.tools.on_initialized(context).await;
    }

    /// MCP 2026-07-28 clients hear of changed tools on `subscriptions/listen` instead.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.tools.accepted_subscription_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.tools.listen(context).await
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tools.set_level(request, context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = RESOURCES
            .iter()
            .map(|(uri, name, mime_type, _)| Resource::new(*uri, *name).with_mime_type(*mime_type))
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some((uri, _, mime_type, text)) = RESOURCES.iter().find(|r| r.0 == request.uri) else {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource `{}`: list them with resources/list",
                    request.uri
                ),
                None,
            ));
        };
        let contents = ResourceContents::text(*text, *uri).with_mime_type(*mime_type);
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = showcase::toolset_builder()
        .tool(batch::ProcessBatch)
        .build()?;
    eprintln!(
        "mcp_server_prompts: serving {} tools, 2 prompts and {} resources over stdio",
        tools.len(),
        RESOURCES.len()
    );
    let tools = McpServer::new(tools)
        .with_name("tooldef-travel-desk", env!("CARGO_PKG_VERSION"))
        .with_instructions("A travel desk: tools, prompts to plan and cancel, and city guides.");
    let running = TravelDesk::new(tools).serve(tooldef::mcp::stdio()).await?;
    running.waiting().await?;
    eprintln!("mcp_server_prompts: the client went away; stopping");
    Ok(())
}
