//! Every form a tool method takes, in a block of a type of another module, served from outside
//! it; with no warning from the generated code.
#![deny(warnings)]

mod server {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use tooldef::{Args, CallContext, CancellationToken, State, tool, tools};

    #[derive(Clone)]
    pub struct Db;

    /// What to find.
    #[derive(serde::Deserialize, schemars::JsonSchema, tooldef::Portable)]
    pub struct Query {
        /// The text.
        pub text: String,
    }

    /// A page of results.
    #[derive(serde::Serialize, schemars::JsonSchema)]
    pub struct Page {
        pub items: Vec<String>,
    }

    pub struct Server {
        hits: AtomicU64,
    }

    impl Server {
        pub fn new() -> Server {
            Server {
                hits: AtomicU64::new(0),
            }
        }
    }

    #[tools]
    impl Server {
        const PAGE: u32 = 20;

        /// How many calls were made.
        #[tool(read_only)]
        async fn hits(&self) -> u64 {
            self.hits.fetch_add(1, Ordering::Relaxed)
        }

        /// Find things.
        #[tool(name = "find_things", title = "Find")]
        pub fn find(
            &self,
            Args(query): Args<Query>,
            State(_db): State<Db>,
        ) -> Result<Page, std::io::Error> {
            self.note();
            Ok(Page {
                items: vec![query.text],
            })
        }

        /// Maybe say something.
        #[tool]
        pub(crate) fn maybe(
            &self,
            context: CallContext,
            _stop: CancellationToken,
            /// What to say.
            what: Option<String>,
            /// The page size.
            #[arg(default = Self::PAGE)]
            size: u32,
        ) -> Option<String> {
            what.map(|w| format!("{w} {size} {:?}", context.call_id()))
        }

        /// Work in the background.
        #[tool(type_name = "Background")]
        async fn background(self: Arc<Self>) -> String {
            tokio::spawn(async move { self.hits.load(Ordering::Relaxed).to_string() })
                .await
                .unwrap_or_default()
        }

        /// The server's version.
        #[tool]
        fn version() -> String {
            "1.0".to_owned()
        }

        fn note(&self) {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A private type whose tool method is `pub`: as reachable as the type.
struct Hidden;

#[tooldef::tools]
impl Hidden {
    /// Peek.
    #[tooldef::tool]
    pub fn peek(&self) -> u8 {
        1
    }
}

use tooldef as td;

struct Renamed;

#[td::tools(crate = "td")]
impl Renamed {
    /// Rename.
    #[td::tool]
    fn rename(&self, r#type: String) -> String {
        r#type
    }
}

/// Two blocks with a `search` each: `ShopSearch` and `LibrarySearch`.
struct Shop;
struct Library;

#[td::tools(crate = "td")]
impl Shop {
    /// Search the shop.
    #[td::tool(crate = "td")]
    fn search(&self) -> u8 {
        1
    }
}

#[td::tools(crate = "td")]
impl Library {
    /// Search the library.
    #[td::tool]
    fn search(&self) -> u8 {
        2
    }
}

/// A generic type, served at one concrete instantiation; and one with a `'static` borrow.
struct Backed<S>(S);
struct Named<'a>(&'a str);

#[tooldef::tools]
impl Backed<u8> {
    /// The byte it is backed by.
    #[tooldef::tool]
    fn byte(&self) -> u8 {
        self.0
    }
}

#[tooldef::tools]
impl Named<'static> {
    /// Its name.
    #[tooldef::tool]
    fn name(&self) -> String {
        self.0.to_owned()
    }
}

fn main() {
    use std::sync::Arc;

    use tooldef::{Target, Tool, ToolSet};

    let value = Arc::new(server::Server::new());
    let tools = Arc::clone(&value)
        .toolset()
        .state(server::Db)
        .build()
        .unwrap();
    assert_eq!(tools.len(), 5);
    assert!(tools.list(Target::Gemini).is_ok());
    // The tool types of `pub` methods are public, the others as private as their methods.
    let find = server::ServerFind(Arc::clone(&value));
    assert_eq!(find.definition().name(), "find_things");
    let _: Option<server::ServerMaybeArgs> = None;

    assert_eq!(Arc::new(Hidden).toolset().build().unwrap().len(), 1);
    assert_eq!(Arc::new(Renamed).toolset().build().unwrap().len(), 1);
    let both = ToolSet::builder()
        .tool(ShopSearch(Arc::new(Shop)))
        .tool(LibrarySearch(Arc::new(Library)))
        .build();
    assert!(both.is_err(), "two tools named `search`");
    assert_eq!(Arc::new(Backed(7u8)).toolset().build().unwrap().len(), 1);
    assert_eq!(Arc::new(Named("n")).toolset().build().unwrap().len(), 1);
}
