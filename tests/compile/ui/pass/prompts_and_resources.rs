//! Every form a prompt and a resource take, as functions and as methods of a `#[tools]` block in
//! another module, served from outside it; with no warning from the generated code.
#![deny(warnings)]

use std::net::IpAddr;
use std::sync::Arc;

use tooldef::{
    CallContext, CompletionRequest, Completions, PromptMessage, PromptReply, ResourceContents,
    ResourceUri, State, ToolSet, prompt, resource,
};

#[derive(Clone)]
struct Config {
    greeting: &'static str,
}

/// Greet someone.
#[prompt(name = "greet", title = "Greeting", icon = "https://example.com/hi.png")]
fn greet(
    /// Who to greet.
    #[arg(complete = suggest_name)]
    name: String,
    /// How often.
    #[arg(default = 1)]
    times: u8,
    #[arg(rename = "address", description = "Where they are.")] ip: Option<IpAddr>,
    #[arg(default)] shout: bool,
    State(config): State<Config>,
    _context: CallContext,
) -> String {
    let text = format!("{} {name} {times} {ip:?}", config.greeting);
    if shout { text.to_uppercase() } else { text }
}

fn suggest_name(request: &CompletionRequest) -> Vec<&'static str> {
    ["Ada", "Alan"]
        .into_iter()
        .filter(|name| name.starts_with(&request.value))
        .collect()
}

async fn suggest_topic(request: CompletionRequest) -> Result<Completions, std::io::Error> {
    Ok(Completions::new([request.value]))
}

/// Talk about a topic.
///
/// # Arguments
///
/// * `topic` - What to talk about.
#[prompt(meta(version = 2))]
async fn talk(#[arg(complete = suggest_topic)] topic: String) -> Result<Vec<PromptMessage>, String> {
    Ok(vec![
        PromptMessage::user(topic),
        PromptMessage::assistant("Sure."),
    ])
}

#[prompt(description = "No arguments.")]
fn plain() -> PromptReply {
    PromptReply::new([PromptMessage::user("hi")]).with_description("plain")
}

/// The README.
#[resource(uri = "docs://readme", mime_type = "text/markdown", size = 9, title = "README")]
fn readme() -> &'static str {
    "# Read me"
}

/// A logo.
#[resource(
    uri = "images://logo",
    mime_type = "image/png",
    annotations(audience = ["user", "assistant"], priority = 1, last_modified = "2025-01-12T15:00:58Z"),
)]
async fn logo() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

/// A file, any depth.
#[resource(uri = "file:///srv/{+path}{?rev,raw}")]
fn file(
    #[arg(complete = suggest_path)] path: String,
    rev: Option<u32>,
    #[arg(default = false)] raw: bool,
    uri: ResourceUri,
) -> Result<Vec<ResourceContents>, std::io::Error> {
    Ok(vec![ResourceContents::text(uri.as_str(), format!("{path} {rev:?} {raw}"))])
}

fn suggest_path(_: &CompletionRequest) -> Vec<String> {
    vec!["etc/hosts".to_owned()]
}

/// A repository.
#[resource(uri = "repo://{owner}{/name}", name = "repository")]
fn repo(owner: String, #[arg(rename = "name")] repository: String) -> String {
    format!("{owner}/{repository}")
}

mod library {
    use std::sync::Arc;

    use tooldef::{CompletionRequest, ResourceUri, prompt, resource, tool, tools};

    pub struct Library {
        pub books: Vec<String>,
    }

    #[tools]
    impl Library {
        const DEFAULT_COUNT: usize = 2;

        /// Find books.
        #[tool(read_only)]
        fn find(&self, query: String) -> Vec<String> {
            self.books.iter().filter(|b| b.contains(&query)).cloned().collect()
        }

        /// Recommend books.
        #[prompt]
        pub fn recommend(
            &self,
            #[arg(default = Self::DEFAULT_COUNT, complete = Self::counts)] count: usize,
        ) -> String {
            self.books.iter().take(count).cloned().collect::<Vec<_>>().join(", ")
        }

        fn counts(_: &CompletionRequest) -> Vec<&'static str> {
            vec!["1", "2", "3"]
        }

        /// A book by its number.
        #[resource(uri = "books://{number}", mime_type = "text/plain")]
        async fn book(self: Arc<Self>, number: usize, uri: ResourceUri) -> Result<String, String> {
            self.books
                .get(number)
                .cloned()
                .ok_or_else(|| format!("no book at {uri}"))
        }

        /// The catalogue.
        #[tooldef::resource(uri = "books://catalogue")]
        fn catalogue() -> String {
            "all".to_owned()
        }
    }
}

fn main() {
    let library = Arc::new(library::Library {
        books: vec!["Dune".to_owned()],
    });
    let set: ToolSet = Arc::clone(&library)
        .toolset()
        .prompt(Greet)
        .prompt(Talk)
        .prompt(Plain)
        .resource(Readme)
        .resource(Logo)
        .resource(File)
        .resource(Repo)
        .state(Config { greeting: "Hello" })
        .build()
        .unwrap();
    assert_eq!(set.prompts().count(), 4);
    assert_eq!(set.resources().count(), 3);
    assert_eq!(set.resource_templates().count(), 3);
    let _: library::LibraryRecommend = library::LibraryRecommend(Arc::clone(&library));
}
