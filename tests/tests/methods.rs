//! Tools written as methods of a server, under `#[tools]` on its `impl` block: the tool set lists
//! them with the definitions the same functions would get, calls reach `&self` (concurrently),
//! context parameters and argument checks work as for functions, and the tools are served over
//! MCP and called by rmcp's client.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooldef::mcp::McpServer;
use tooldef::{
    Args, BuildError, CallContext, CancellationToken, Portable, State, Target, Tool, ToolError,
    ToolSet, tool, tools,
};

/// A book on the shelves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
struct Book {
    /// Its title.
    title: String,
    /// The year it came out.
    year: u16,
}

/// What a search found.
#[derive(Debug, Serialize, JsonSchema)]
struct Found {
    /// The books whose title has the words.
    books: Vec<Book>,
    /// How many searches the library has answered, this one included.
    searches: u64,
}

/// Who is asking: state given to the tool set.
#[derive(Clone)]
struct Reader(String);

/// Why a loan was refused.
#[derive(Debug)]
struct OnLoan(String);

impl std::fmt::Display for OnLoan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is out on loan", self.0)
    }
}

/// The server: shared by every tool of its block, and by every call at once.
struct Library {
    books: Mutex<Vec<Book>>,
    searches: AtomicU64,
    loans: Mutex<Vec<String>>,
}

#[tools]
impl Library {
    const DEFAULT_LIMIT: u32 = 10;

    fn new() -> Library {
        Library {
            books: Mutex::new(vec![
                Book {
                    title: "The Rust Programming Language".to_owned(),
                    year: 2018,
                },
                Book {
                    title: "Programming Rust".to_owned(),
                    year: 2017,
                },
                Book {
                    title: "The Little Schemer".to_owned(),
                    year: 1974,
                },
            ]),
            searches: AtomicU64::new(0),
            loans: Mutex::new(Vec::new()),
        }
    }

    /// Find books by title.
    #[tool(read_only)]
    async fn search(
        &self,
        /// Words of the title.
        query: String,
        /// At most this many.
        #[arg(default = Self::DEFAULT_LIMIT)]
        #[schemars(range(min = 1, max = 50))]
        limit: u32,
    ) -> Found {
        let searches = self.searches.fetch_add(1, Ordering::SeqCst) + 1;
        let books = self
            .books
            .lock()
            .unwrap()
            .iter()
            .filter(|book| book.title.contains(&query))
            .take(limit as usize)
            .cloned()
            .collect();
        Found { books, searches }
    }

    /// Borrow a book, for the reader the server was given.
    #[tool(name = "borrow_book", destructive = false)]
    fn borrow(
        &self,
        /// The exact title.
        title: String,
        State(reader): State<Reader>,
        call: CallContext,
    ) -> Result<String, OnLoan> {
        let mut loans = self.loans.lock().unwrap();
        if loans.contains(&title) {
            return Err(OnLoan(title));
        }
        loans.push(title.clone());
        Ok(format!(
            "{title} lent to {} (call {})",
            reader.0,
            call.call_id().unwrap_or("without id")
        ))
    }

    /// Put a book on the shelves.
    #[tool]
    fn shelve(&self, Args(book): Args<Book>) -> usize {
        let mut books = self.books.lock().unwrap();
        books.push(book);
        books.len()
    }

    /// Say when the library opens: an associated function is a tool too.
    #[tool(idempotent)]
    fn opening_hours(
        /// The day, in English.
        day: String,
    ) -> String {
        format!("{day}: 9 to 5")
    }

    /// Reindex the shelves in a task of its own, until done or cancelled.
    #[tool]
    async fn reindex(
        self: Arc<Self>,
        /// How long the reindexing takes, in milliseconds.
        millis: u64,
        stop: CancellationToken,
    ) -> String {
        // `self: Arc<Self>` outlives the call: the task may keep it.
        let task = tokio::spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(millis)) => {
                    format!("{} books reindexed", self.count())
                }
                () = stop.cancelled() => "stopped".to_owned(),
            }
        });
        task.await.unwrap()
    }

    /// Not a tool: a plain method, left as it is.
    fn count(&self) -> usize {
        self.books.lock().unwrap().len()
    }
}

/// Find books by title.
#[tool(read_only, name = "search")]
async fn search_as_function(
    /// Words of the title.
    query: String,
    /// At most this many.
    #[arg(default = 10)]
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
) -> Found {
    let _ = (query, limit);
    Found {
        books: Vec::new(),
        searches: 0,
    }
}

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn library() -> Arc<Library> {
    Arc::new(Library::new())
}

fn names(tools: &ToolSet) -> Vec<&str> {
    tools.definitions().map(|d| d.name()).collect()
}

/// The tool set of `value`'s methods, with `reader` as the reader in its state.
fn tools_of(value: Arc<Library>, reader: &str) -> ToolSet {
    value
        .toolset()
        .state(Reader(reader.to_owned()))
        .build()
        .unwrap()
}

#[test]
fn the_block_lists_its_tool_methods_in_order() {
    let tools = tools_of(library(), "Ada");
    assert_eq!(
        names(&tools),
        [
            "search",
            "borrow_book",
            "shelve",
            "opening_hours",
            "reindex"
        ]
    );
    let borrow = tools.definition("borrow_book").unwrap();
    assert_eq!(
        borrow.description(),
        Some("Borrow a book, for the reader the server was given.")
    );
    assert_eq!(borrow.annotations().destructive_hint, Some(false));
    // Context parameters are not arguments; `self` is not one either.
    let schema = serde_json::to_value(borrow.input_schema()).unwrap();
    assert_eq!(schema["required"], json!(["title"]));
    assert_eq!(
        schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["title"]
    );
    let reindex =
        serde_json::to_value(tools.definition("reindex").unwrap().input_schema()).unwrap();
    assert_eq!(
        reindex["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["millis"]
    );
    // The whole-struct form: the struct's fields are the arguments.
    let shelve = serde_json::to_value(tools.definition("shelve").unwrap().input_schema()).unwrap();
    assert_eq!(shelve["required"], json!(["title", "year"]));
    // The methods are still methods.
    let value = library();
    assert_eq!(value.count(), 3);
    assert_eq!(
        Library::opening_hours("Monday".to_owned()),
        "Monday: 9 to 5"
    );
}

#[test]
fn a_method_renders_as_the_same_function_does() {
    let method = LibrarySearch(library());
    assert_eq!(<LibrarySearch as Tool>::NAME, "search");
    for target in Target::ALL {
        assert_eq!(
            method.definition().to_json(target).unwrap(),
            SearchAsFunction.definition().to_json(target).unwrap(),
            "{target:?}"
        );
    }
    // `Self::DEFAULT_LIMIT`, written in the block, is the default outside it.
    let chat = method
        .definition()
        .to_json(Target::ChatCompletions)
        .unwrap();
    assert_eq!(chat["function"]["strict"], true);
    assert_eq!(
        chat["function"]["parameters"]["properties"]["limit"]["description"],
        "At most this many. Default: 10."
    );
    assert_eq!(
        chat["function"]["parameters"]["properties"]["limit"]["maximum"],
        50
    );
    let mcp = method.definition().to_json(Target::Mcp).unwrap();
    assert_eq!(mcp["inputSchema"]["properties"]["limit"]["default"], 10);
    assert_eq!(mcp["annotations"]["readOnlyHint"], true);
    // A return type with a schema gives an output schema, as for a function.
    assert_eq!(
        mcp["outputSchema"]["required"],
        json!(["books", "searches"])
    );
}

#[tokio::test]
async fn calls_run_the_method_on_the_value() {
    let value = library();
    let tools = tools_of(Arc::clone(&value), "Ada");
    let output = tools.call("search", r#"{"query": "Rust"}"#).await.unwrap();
    let found = output.structured.clone().unwrap();
    assert_eq!(found["searches"], 1);
    assert_eq!(found["books"].as_array().unwrap().len(), 2);
    // The state is the value's: the counter the tool changed is the one kept here.
    tools
        .call("search", json!({"query": "Schemer", "limit": 1}))
        .await
        .unwrap();
    assert_eq!(value.searches.load(Ordering::SeqCst), 2);

    let shelved = tools
        .call(
            "shelve",
            json!({"title": "Crafting Interpreters", "year": 2021}),
        )
        .await
        .unwrap();
    assert_eq!(shelved.to_text(), "4");
    assert_eq!(value.count(), 4);
    let hours = tools
        .call("opening_hours", json!({"day": "Sunday"}))
        .await
        .unwrap();
    assert_eq!(hours.to_text(), "Sunday: 9 to 5");
}

#[tokio::test]
async fn concurrent_calls_share_the_value() {
    let value = library();
    let tools = tools_of(Arc::clone(&value), "Ada");
    let calls = (0..64).map(|i| {
        let tools = tools.clone();
        tokio::spawn(async move {
            tools
                .call("search", json!({"query": format!("no such title {i}")}))
                .await
        })
    });
    let mut seen = Vec::new();
    for call in calls {
        let output = call.await.unwrap().unwrap();
        seen.push(output.structured.unwrap()["searches"].as_u64().unwrap());
    }
    seen.sort_unstable();
    assert_eq!(
        seen,
        (1..=64).collect::<Vec<u64>>(),
        "each call counted once"
    );
    assert_eq!(value.searches.load(Ordering::SeqCst), 64);

    // One loan per title, whichever of the concurrent calls gets there first.
    let loans = (0..16).map(|_| {
        let tools = tools.clone();
        tokio::spawn(async move {
            tools
                .call("borrow_book", json!({"title": "Programming Rust"}))
                .await
        })
    });
    let mut lent = 0;
    for loan in loans {
        match loan.await.unwrap() {
            Ok(_) => lent += 1,
            Err(ToolError::Failed { message, .. }) => {
                assert_eq!(message, "`Programming Rust` is out on loan");
            }
            Err(other) => panic!("{other}"),
        }
    }
    assert_eq!(lent, 1);
    assert_eq!(*value.loans.lock().unwrap(), ["Programming Rust"]);
}

#[tokio::test]
async fn context_parameters_are_filled_from_the_call() {
    let tools = tools_of(library(), "Grace");
    let lent = tools
        .call_with(
            "borrow_book",
            json!({"title": "The Little Schemer"}),
            CallContext::new().with_call_id("call-7"),
        )
        .await
        .unwrap();
    assert_eq!(
        lent.to_text(),
        "The Little Schemer lent to Grace (call call-7)"
    );

    // Without the state a context parameter needs, the set is not built; declared to come with
    // each call and not given, the call says so (the server's mistake).
    let Err(error) = library().toolset().build() else {
        panic!("built without the `Reader` that `borrow_book` takes");
    };
    assert!(
        error
            .to_string()
            .starts_with("the tool `borrow_book` takes `State<"),
        "{error}"
    );
    let without_state = library()
        .toolset()
        .state_per_call::<Reader>()
        .build()
        .unwrap();
    let error = without_state
        .call("borrow_book", json!({"title": "Programming Rust"}))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::Unavailable { .. }), "{error:?}");

    // `self: Arc<Self>` and a cancellation token: the task the method spawned is told to stop
    // when the call times out.
    let token = CancellationToken::new();
    let slow = tools.call_with(
        "reindex",
        json!({"millis": 60_000}),
        CallContext::new().with_cancellation(token.clone()),
    );
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        token.cancel();
    };
    let (output, ()) = tokio::join!(slow, cancel);
    assert_eq!(output.unwrap().to_text(), "stopped");
    let quick = tools.call("reindex", json!({"millis": 1})).await.unwrap();
    assert_eq!(quick.to_text(), "3 books reindexed");
}

#[tokio::test]
async fn bad_arguments_are_refused_as_for_a_function() {
    let tools = library()
        .toolset()
        .state(Reader("Ada".to_owned()))
        .build()
        .unwrap();
    let function = ToolSet::builder().tool(SearchAsFunction).build().unwrap();
    for arguments in [
        json!({"query": "Rust", "limit": 0}),
        json!({"limit": 3}),
        json!({"query": "Rust", "colour": "red"}),
        json!({"query": 7}),
    ] {
        let method_error = tools.call("search", arguments.clone()).await.unwrap_err();
        let function_error = function
            .call("search", arguments.clone())
            .await
            .unwrap_err();
        assert!(
            matches!(method_error, ToolError::InvalidArguments { .. }),
            "{arguments}: {method_error:?}"
        );
        assert_eq!(
            method_error.to_string(),
            function_error.to_string(),
            "{arguments}"
        );
    }
    let error = tools
        .call("search", json!({"query": "Rust", "limit": 0}))
        .await
        .unwrap_err();
    let ToolError::InvalidArguments { problems, .. } = error else {
        unreachable!()
    };
    assert_eq!(problems[0].pointer, "/limit");
    // An unknown tool gets the closest names.
    let unknown = tools.call("serach", json!({})).await.unwrap_err();
    assert!(unknown.to_string().contains("search"), "{unknown}");
}

#[tokio::test]
async fn the_builder_takes_more_tools_state_and_limits() {
    let value = library();
    let tools = Arc::clone(&value)
        .toolset()
        .tool(Add)
        .state(Reader("Ada".to_owned()))
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    assert_eq!(names(&tools).last(), Some(&"add"));
    assert_eq!(
        tools
            .call("add", json!({"a": 2, "b": 40}))
            .await
            .unwrap()
            .to_text(),
        "42"
    );

    // The tool types are nameable, to choose the tools or give one its own time limit.
    let chosen = ToolSet::builder()
        .tool(LibrarySearch(Arc::clone(&value)))
        .tool_with_timeout(
            LibraryReindex(Arc::clone(&value)),
            Duration::from_millis(30),
        )
        .build()
        .unwrap();
    assert_eq!(names(&chosen), ["search", "reindex"]);
    let error = chosen
        .call("reindex", json!({"millis": 60_000}))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::TimedOut { .. }), "{error:?}");

    // The same tool twice is refused at `build()`, as for any tool.
    let twice = Arc::clone(&value)
        .toolset()
        .tool(SearchAsFunction)
        .build()
        .err()
        .unwrap();
    let BuildError::DuplicateName { first, second, .. } = twice else {
        panic!("{twice:?}")
    };
    assert!(first.ends_with("::LibrarySearch"), "{first}");
    assert!(second.ends_with("::SearchAsFunction"), "{second}");
}

async fn in_process(server: McpServer) -> RunningService<RoleClient, ()> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_side).await.expect("the client initialises")
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are objects"),
    }
}

#[tokio::test]
async fn served_over_mcp_and_called_by_rmcps_client() {
    let value = library();
    let tools = tools_of(Arc::clone(&value), "Linus");
    let client = in_process(McpServer::new(tools.clone())).await;

    let listed = client.list_all_tools().await.unwrap();
    let listed_names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(listed_names, names(&tools));
    let search = listed.iter().find(|t| t.name == "search").unwrap();
    assert_eq!(
        serde_json::to_value(search).unwrap(),
        tools
            .definition("search")
            .unwrap()
            .to_json(Target::Mcp)
            .unwrap()
    );

    let result = client
        .call_tool(
            CallToolRequestParams::new("search")
                .with_arguments(arguments(json!({"query": "Rust", "limit": 1}))),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true));
    let structured = result.structured_content.clone().unwrap();
    assert_eq!(structured["books"][0]["year"], 2018);
    assert_eq!(value.searches.load(Ordering::SeqCst), 1);

    let lent = client
        .call_tool(
            CallToolRequestParams::new("borrow_book")
                .with_arguments(arguments(json!({"title": "Programming Rust"}))),
        )
        .await
        .unwrap();
    let text = serde_json::to_value(&lent.content).unwrap();
    assert!(
        text[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Programming Rust lent to Linus (call "),
        "{text}"
    );

    // Bad arguments are a result the model reads, not a protocol error.
    let refused = client
        .call_tool(
            CallToolRequestParams::new("search")
                .with_arguments(arguments(json!({"query": "Rust", "limit": 99}))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let text = serde_json::to_value(&refused.content).unwrap();
    assert!(
        text[0]["text"].as_str().unwrap().contains("limit"),
        "{text}"
    );
    client.cancel().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// A server in the middle of its move from rmcp (docs/MIGRATING_FROM_RMCP.md): the tools not yet
// moved stay in rmcp's `#[tool_router]`, the moved ones are `Library`'s `#[tools]`, and one
// `ServerHandler` serves both.
// ---------------------------------------------------------------------------------------------

/// What `echo` says back.
#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to say back.
    text: String,
}

/// The rmcp server, as it was, plus the tooldef tools it now serves.
#[derive(Clone)]
struct Legacy {
    tool_router: rmcp::handler::server::router::tool::ToolRouter<Legacy>,
    moved: McpServer,
}

// rmcp's attributes by their paths: `tool` in this module is tooldef's.
#[rmcp::tool_router]
impl Legacy {
    fn new(moved: McpServer) -> Legacy {
        Legacy {
            tool_router: Self::tool_router(),
            moved,
        }
    }

    /// Say the text back.
    #[rmcp::tool]
    fn echo(
        &self,
        rmcp::handler::server::wrapper::Parameters(EchoArgs { text }): rmcp::handler::server::wrapper::Parameters<EchoArgs>,
    ) -> String {
        text
    }
}

impl rmcp::ServerHandler for Legacy {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_tools()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        request: Option<rmcp::model::PaginatedRequestParams>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        // tooldef's pages, with rmcp's tools on the last one.
        let mut page = self.moved.list_tools_page(request, &context)?;
        if page.next_cursor.is_none() {
            page.tools.extend(self.tool_router.list_all());
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        if self.tool_router.has_route(&request.name) {
            let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
            return self.tool_router.call(call).await;
        }
        self.moved.call(request, context).await
    }
}

#[tokio::test]
async fn a_server_half_moved_from_rmcp_serves_both_kinds() {
    let value = library();
    let moved = McpServer::new(
        Arc::clone(&value)
            .toolset()
            .state(Reader("Ada".to_owned()))
            .build()
            .unwrap(),
    )
    .with_page_size(2);
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    let server = Legacy::new(moved);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_side).await.unwrap();

    let listed = client.list_all_tools().await.unwrap();
    let listed_names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        listed_names,
        [
            "search",
            "borrow_book",
            "shelve",
            "opening_hours",
            "reindex",
            "echo"
        ]
    );

    let echoed = client
        .call_tool(
            CallToolRequestParams::new("echo").with_arguments(arguments(json!({"text": "hi"}))),
        )
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&echoed.content).unwrap()[0]["text"],
        "hi"
    );
    let found = client
        .call_tool(
            CallToolRequestParams::new("search")
                .with_arguments(arguments(json!({"query": "Schemer"}))),
        )
        .await
        .unwrap();
    assert_eq!(found.structured_content.unwrap()["books"][0]["year"], 1974);
    assert_eq!(value.searches.load(Ordering::SeqCst), 1);

    // What the move gains: an argument out of range is refused before the method runs, with a
    // message for the model; rmcp's own tools take what deserialises.
    let refused = client
        .call_tool(
            CallToolRequestParams::new("search")
                .with_arguments(arguments(json!({"query": "Rust", "limit": 500}))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(value.searches.load(Ordering::SeqCst), 1, "not called");
    client.cancel().await.unwrap();
}

/// Notes of any shape: what rmcp's `Parameters<JsonObject>` becomes.
struct Notes {
    kept: Mutex<Vec<serde_json::Map<String, Value>>>,
}

#[tools]
impl Notes {
    /// Keep a note, whatever its fields.
    #[tool(strict = false)]
    fn keep(&self, Args(note): Args<serde_json::Map<String, Value>>) -> usize {
        let mut kept = self.kept.lock().unwrap();
        kept.push(note);
        kept.len()
    }
}

#[tokio::test]
async fn free_form_arguments_take_a_map_and_are_not_strict() {
    let notes = Arc::new(Notes {
        kept: Mutex::new(Vec::new()),
    });
    let tools = Arc::clone(&notes).toolset().build().unwrap();
    let output = tools
        .call(
            "keep",
            json!({"title": "milk", "count": 2, "tags": ["shop"]}),
        )
        .await
        .unwrap();
    assert_eq!(output.to_text(), "1");
    assert_eq!(notes.kept.lock().unwrap()[0]["tags"], json!(["shop"]));
    let chat = tools.list(Target::ChatCompletions).unwrap();
    assert_eq!(chat[0]["function"]["strict"], false);
}
