//! What `#[prompt]` and `#[resource]` generate, driven through a `ToolSet` as an MCP server
//! drives it: definitions as listed, arguments and template variables read from their strings
//! (and the client's error when one cannot be), context, completions (sync and async), and the
//! same from the methods of a `#[tools]` block.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::json;
use tooldef::{
    CallContext, CompletionRequest, Completions, Content, Prompt, PromptError, PromptMessage,
    PromptReply, Resource, ResourceBody, ResourceContents, ResourceError, ResourceUri, Role, State,
    StringArgError, StringArgs, ToolSet, prompt, resource, tool, tools,
};

#[derive(Clone)]
struct Agency(&'static str);

/// Plan a trip to a city.
///
/// # Arguments
///
/// * `budget` - What the trip may cost, in euros.
#[prompt(
    title = "Plan a trip",
    icon = "https://example.com/trip.png",
    meta(version = 2)
)]
fn plan_trip(
    /// The city to visit.
    #[arg(complete = suggest_city)]
    city: String,
    /// How many days the trip lasts.
    #[arg(default = 3)]
    days: u32,
    budget: Option<u32>,
    #[arg(rename = "from", description = "Where the traveller connects from.")] origin: Option<
        IpAddr,
    >,
    State(agency): State<Agency>,
) -> Vec<PromptMessage> {
    let mut text = format!("{}: plan a {days}-day trip to {city}", agency.0);
    if let Some(budget) = budget {
        text.push_str(&format!(" for {budget} euros"));
    }
    if let Some(origin) = origin {
        text.push_str(&format!(" from {origin}"));
    }
    vec![
        PromptMessage::user(text),
        PromptMessage::assistant("Where would you like to stay?"),
    ]
}

/// Cities, those of the country given so far first.
fn suggest_city(request: &CompletionRequest) -> Vec<&'static str> {
    let cities: &[&str] = match request.arguments.get("country") {
        Some("fr") => &["Lyon", "Lille"],
        _ => &["Lisbon", "London", "Lyon"],
    };
    cities
        .iter()
        .copied()
        .filter(|city| city.starts_with(&request.value))
        .collect()
}

async fn suggest_word(request: CompletionRequest) -> Result<Completions, String> {
    if request.value.is_empty() {
        return Err("type a letter first".to_owned());
    }
    Ok(Completions::new([format!("{}ish", request.value)]).with_total(10))
}

/// Say a word.
#[prompt(name = "say")]
async fn say_word(
    #[arg(complete = suggest_word)] word: String,
    #[arg(default)] times: usize,
) -> Result<String, String> {
    if word == "never" {
        return Err("that word is not said here".to_owned());
    }
    Ok(word.repeat(times.max(1)))
}

#[prompt]
fn bare() -> PromptReply {
    PromptReply::new([PromptMessage::user("hi")]).with_description("a bare prompt")
}

/// The README.
#[resource(
    uri = "docs://readme",
    title = "README",
    mime_type = "text/markdown",
    size = 9,
    annotations(audience = ["user"], priority = 0.5, last_modified = "2025-01-12T15:00:58Z"),
)]
fn readme() -> &'static str {
    "# Read me"
}

/// The logo.
#[resource(uri = "images://logo", mime_type = "image/png")]
async fn logo() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

/// A user's profile, in JSON.
#[resource(
    uri = "users://{id}/profile{?fields,lang}",
    mime_type = "application/json"
)]
fn profile(
    #[arg(complete = suggest_id)] id: u64,
    fields: Option<String>,
    #[arg(default = String::from("en"))] lang: String,
    uri: ResourceUri,
) -> Result<String, String> {
    if id == 0 {
        return Err("there is no user 0".to_owned());
    }
    Ok(json!({"id": id, "fields": fields, "lang": lang, "uri": uri.as_str()}).to_string())
}

fn suggest_id(request: &CompletionRequest) -> Vec<String> {
    (1..=3).map(|id| format!("{}{id}", request.value)).collect()
}

/// A file under `/srv`: `path` may hold `/`.
#[resource(uri = "file:///srv/{+path}", name = "srv-file")]
fn srv_file(path: String, State(agency): State<Agency>) -> Vec<ResourceContents> {
    vec![
        ResourceContents::text(format!("file:///srv/{path}"), path.clone()),
        ResourceContents::text("agency://name", agency.0).with_mime_type("text/plain"),
    ]
}

fn set() -> ToolSet {
    ToolSet::builder()
        .prompt(PlanTrip)
        .prompt(SayWord)
        .prompt(Bare)
        .resource(Readme)
        .resource(Logo)
        .resource(Profile)
        .resource(SrvFile)
        .state(Agency("Far Away"))
        .build()
        .unwrap()
}

fn args<const N: usize>(pairs: [(&str, &str); N]) -> StringArgs {
    StringArgs::from_iter(pairs)
}

fn text(message: &PromptMessage) -> &str {
    match &message.content {
        Content::Text(text) => text,
        other => panic!("not text: {other:?}"),
    }
}

#[test]
fn prompt_definitions_say_what_the_function_does() {
    let definition = PlanTrip.definition();
    assert_eq!(
        definition.to_mcp(),
        json!({
            "name": "plan_trip",
            "title": "Plan a trip",
            "description": "Plan a trip to a city.",
            "arguments": [
                {"name": "city", "description": "The city to visit.", "required": true},
                {"name": "days", "description": "How many days the trip lasts.", "required": false},
                {"name": "budget", "description": "What the trip may cost, in euros.", "required": false},
                {"name": "from", "description": "Where the traveller connects from.", "required": false},
            ],
            "icons": [{"src": "https://example.com/trip.png"}],
            "_meta": {"version": 2},
        })
    );
    assert_eq!(SayWord.definition().name(), "say");
    assert_eq!(
        Bare.definition().to_mcp(),
        json!({"name": "bare"}),
        "no doc comment, no description"
    );
    assert!(PlanTrip.type_name().ends_with("::PlanTrip"));
}

#[tokio::test]
async fn prompt_arguments_are_read_from_their_strings() {
    let set = set();
    let reply = set
        .get_prompt(
            "plan_trip",
            args([("city", "Porto"), ("budget", "900"), ("from", "192.0.2.1")]),
            CallContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(reply.messages.len(), 2);
    assert_eq!(reply.messages[0].role, Role::User);
    assert_eq!(
        text(&reply.messages[0]),
        "Far Away: plan a 3-day trip to Porto for 900 euros from 192.0.2.1"
    );
    assert_eq!(reply.messages[1].role, Role::Assistant);

    let reply = set
        .get_prompt(
            "plan_trip",
            args([("city", "Porto"), ("days", "5")]),
            CallContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        text(&reply.messages[0]),
        "Far Away: plan a 5-day trip to Porto"
    );

    let reply = set
        .get_prompt("say", args([("word", "ho")]), CallContext::new())
        .await
        .unwrap();
    assert_eq!(
        text(&reply.messages[0]),
        "ho",
        "`default` alone is `Default`"
    );
    let reply = set
        .get_prompt("bare", StringArgs::new(), CallContext::new())
        .await
        .unwrap();
    assert_eq!(reply.description.as_deref(), Some("a bare prompt"));
}

#[tokio::test]
async fn prompt_argument_errors_are_the_clients() {
    let set = set();
    let error = set
        .get_prompt(
            "plan_trip",
            args([("city", "Porto"), ("days", "five")]),
            CallContext::new(),
        )
        .await
        .unwrap_err();
    assert!(error.is_invalid_params(), "{error:?}");
    assert_eq!(
        error.to_string(),
        "prompt `plan_trip`: argument `days`: \"five\" is not valid here (invalid digit found in \
         string)"
    );
    let error = set
        .get_prompt("plan_trip", args([("from", "mars")]), CallContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        error,
        PromptError::Argument {
            prompt: "plan_trip".to_owned(),
            source: StringArgError::Missing {
                name: "city".to_owned()
            },
        }
    );
    let error = set
        .get_prompt(
            "plan_trip",
            args([("city", "Porto"), ("from", "mars")]),
            CallContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "prompt `plan_trip`: argument `from`: \"mars\" is not valid here (invalid IP address \
         syntax)"
    );
    let error = set
        .get_prompt(
            "plan_trip",
            args([("city", "Porto"), ("nights", "2")]),
            CallContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "prompt `plan_trip`: there is no argument `nights`"
    );
}

#[tokio::test]
async fn prompt_failures_and_missing_context_are_not_the_clients() {
    let set = set();
    let error = set
        .get_prompt("say", args([("word", "never")]), CallContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "prompt `say` failed: that word is not said here"
    );
    assert!(!error.is_invalid_params());

    // Without the state `PlanTrip` takes, the set is not built; declared to come with each
    // call and not given, the prompt is the server's failure.
    let Err(error) = ToolSet::builder().prompt(PlanTrip).build() else {
        panic!("built without the state it needs");
    };
    assert!(
        error
            .to_string()
            .starts_with("the prompt `plan_trip` takes `State<"),
        "{error}"
    );
    let Err(error) = ToolSet::builder().resource(SrvFile).build() else {
        panic!("built without the state it needs");
    };
    assert!(
        error
            .to_string()
            .starts_with("the resource `file:///srv/{+path}` takes `State<"),
        "{error}"
    );
    let bare = ToolSet::builder()
        .prompt(PlanTrip)
        .state_per_call::<Agency>()
        .build()
        .unwrap();
    let error = bare
        .get_prompt("plan_trip", args([("city", "Porto")]), CallContext::new())
        .await
        .unwrap_err();
    match &error {
        PromptError::Unavailable { prompt, reason } => {
            assert_eq!(prompt, "plan_trip");
            assert!(reason.contains("Agency"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn prompt_arguments_are_completed_by_their_functions() {
    let set = set();
    let completions = set
        .complete_prompt(
            "plan_trip",
            CompletionRequest::new("city", "L"),
            CallContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(completions.values, ["Lisbon", "London", "Lyon"]);
    // The other arguments given so far reach the function.
    let request = CompletionRequest::new("city", "L").with_arguments(args([("country", "fr")]));
    let completions = set
        .complete_prompt("plan_trip", request, CallContext::new())
        .await
        .unwrap();
    assert_eq!(completions.values, ["Lyon", "Lille"]);
    // An argument without a completion function has no suggestions.
    let completions = set
        .complete_prompt(
            "plan_trip",
            CompletionRequest::new("days", "1"),
            CallContext::new(),
        )
        .await
        .unwrap();
    assert!(completions.values.is_empty());
    // An async function, its `Completions` and its error.
    let completions = set
        .complete_prompt(
            "say",
            CompletionRequest::new("word", "blu"),
            CallContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(completions.values, ["bluish"]);
    assert_eq!((completions.total, completions.has_more), (Some(10), true));
    let error = set
        .complete_prompt(
            "say",
            CompletionRequest::new("word", ""),
            CallContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "prompt `say` failed: type a letter first"
    );
    let error = set
        .complete_prompt(
            "say",
            CompletionRequest::new("volume", ""),
            CallContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "prompt `say`: there is no argument `volume`"
    );
}

#[test]
fn resource_definitions_say_where_and_what() {
    assert_eq!(
        Readme.definition().to_mcp(),
        json!({
            "uri": "docs://readme",
            "name": "readme",
            "title": "README",
            "description": "The README.",
            "mimeType": "text/markdown",
            "annotations": {
                "audience": ["user"],
                "priority": 0.5,
                "lastModified": "2025-01-12T15:00:58Z",
            },
            "size": 9,
        })
    );
    assert_eq!(
        Profile.definition().to_mcp(),
        json!({
            "uriTemplate": "users://{id}/profile{?fields,lang}",
            "name": "profile",
            "description": "A user's profile, in JSON.",
            "mimeType": "application/json",
        })
    );
    let set = set();
    let fixed: Vec<&str> = set.resources().map(|d| d.uri()).collect();
    assert_eq!(fixed, ["docs://readme", "images://logo"]);
    let templates: Vec<&str> = set.resource_templates().map(|d| d.name()).collect();
    assert_eq!(templates, ["profile", "srv-file"]);
}

#[tokio::test]
async fn resources_are_read_with_their_variables() {
    let set = set();
    let contents = set
        .read_resource("docs://readme", CallContext::new())
        .await
        .unwrap();
    assert_eq!(
        contents,
        [ResourceContents::text("docs://readme", "# Read me").with_mime_type("text/markdown")]
    );
    let contents = set
        .read_resource("images://logo", CallContext::new())
        .await
        .unwrap();
    assert_eq!(contents[0].body, ResourceBody::Blob(b"\x89PNG".to_vec()));
    assert_eq!(contents[0].mime_type.as_deref(), Some("image/png"));

    let uri = "users://42/profile?fields=name%2Cemail";
    let contents = set.read_resource(uri, CallContext::new()).await.unwrap();
    let ResourceBody::Text(body) = &contents[0].body else {
        panic!("{contents:?}")
    };
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(body).unwrap(),
        json!({"id": 42, "fields": "name,email", "lang": "en", "uri": uri})
    );
    assert_eq!(contents[0].uri, uri);
    let contents = set
        .read_resource("users://7/profile?lang=pt", CallContext::new())
        .await
        .unwrap();
    let ResourceBody::Text(body) = &contents[0].body else {
        panic!("{contents:?}")
    };
    assert!(body.contains(r#""lang":"pt""#), "{body}");

    let contents = set
        .read_resource("file:///srv/notes/today.md", CallContext::new())
        .await
        .unwrap();
    assert_eq!(
        contents,
        [
            ResourceContents::text("file:///srv/notes/today.md", "notes/today.md"),
            ResourceContents::text("agency://name", "Far Away").with_mime_type("text/plain"),
        ]
    );
}

#[tokio::test]
async fn resource_variable_errors_and_failures() {
    let set = set();
    let error = set
        .read_resource("users://me/profile", CallContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ResourceError::Variable {
            uri: "users://me/profile".to_owned(),
            source: StringArgError::Invalid {
                name: "id".to_owned(),
                value: "me".to_owned(),
                reason: "invalid digit found in string".to_owned(),
            },
        }
    );
    assert_eq!(
        error.to_string(),
        "the resource `users://me/profile`: argument `id`: \"me\" is not valid here (invalid \
         digit found in string)"
    );
    let error = set
        .read_resource("users://0/profile", CallContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "reading `users://0/profile` failed: there is no user 0"
    );
    let error = set
        .read_resource("users://1/settings", CallContext::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ResourceError::NotFound { .. }), "{error:?}");
}

#[tokio::test]
async fn template_variables_are_completed_by_their_functions() {
    let set = set();
    let completions = set
        .complete_resource(
            "users://{id}/profile{?fields,lang}",
            CompletionRequest::new("id", "4"),
            CallContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(completions.values, ["41", "42", "43"]);
    let completions = set
        .complete_resource(
            "users://{id}/profile{?fields,lang}",
            CompletionRequest::new("lang", ""),
            CallContext::new(),
        )
        .await
        .unwrap();
    assert!(completions.values.is_empty());
}

/// A library whose tools, prompts and resources are its methods.
struct Library {
    books: Vec<&'static str>,
    reads: AtomicU32,
}

#[tools]
impl Library {
    /// Find books by a word of their title.
    #[tool(read_only)]
    fn find(&self, word: String) -> Vec<String> {
        self.books
            .iter()
            .filter(|book| book.contains(&word))
            .map(|book| (*book).to_owned())
            .collect()
    }

    /// Recommend books.
    #[prompt]
    fn recommend(
        &self,
        /// How many books.
        #[arg(default = Self::DEFAULT_COUNT, complete = Self::counts)]
        count: usize,
    ) -> String {
        format!(
            "Read {}.",
            self.books[..count.min(self.books.len())].join(" and ")
        )
    }

    /// A book by its place on the shelf.
    #[resource(uri = "library://books/{index}", mime_type = "text/plain")]
    async fn book(self: Arc<Self>, index: usize) -> Result<String, String> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.books
            .get(index)
            .map(|book| (*book).to_owned())
            .ok_or_else(|| format!("the shelf has {} books", self.books.len()))
    }

    /// How many books were read.
    #[resource(uri = "library://reads")]
    fn reads(&self) -> String {
        self.reads.load(Ordering::Relaxed).to_string()
    }

    const DEFAULT_COUNT: usize = 1;

    fn counts(_: &CompletionRequest) -> Vec<&'static str> {
        vec!["1", "2"]
    }
}

#[tokio::test]
async fn a_blocks_toolset_serves_its_prompts_and_resources() {
    let library = Arc::new(Library {
        books: vec!["Dune", "Emma"],
        reads: AtomicU32::new(0),
    });
    let set = Arc::clone(&library).toolset().build().unwrap();
    assert_eq!(set.len(), 1);
    let prompts: Vec<&str> = set.prompts().map(|p| p.name()).collect();
    assert_eq!(prompts, ["recommend"]);
    assert_eq!(set.resources().count(), 1);
    assert_eq!(set.resource_templates().count(), 1);

    let reply = set
        .get_prompt("recommend", args([("count", "2")]), CallContext::new())
        .await
        .unwrap();
    assert_eq!(text(&reply.messages[0]), "Read Dune and Emma.");
    let reply = set
        .get_prompt("recommend", StringArgs::new(), CallContext::new())
        .await
        .unwrap();
    assert_eq!(text(&reply.messages[0]), "Read Dune.");
    let completions = set
        .complete_prompt(
            "recommend",
            CompletionRequest::new("count", ""),
            CallContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(completions.values, ["1", "2"]);

    let contents = set
        .read_resource("library://books/1", CallContext::new())
        .await
        .unwrap();
    assert_eq!(
        contents,
        [ResourceContents::text("library://books/1", "Emma").with_mime_type("text/plain")]
    );
    let error = set
        .read_resource("library://books/9", CallContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "reading `library://books/9` failed: the shelf has 2 books"
    );
    let contents = set
        .read_resource("library://reads", CallContext::new())
        .await
        .unwrap();
    assert_eq!(contents[0].body, ResourceBody::Text("2".to_owned()));
    assert!(LibraryBook(library).type_name().ends_with("::LibraryBook"));
}
