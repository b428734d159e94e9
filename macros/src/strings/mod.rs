//! `#[prompt]` and `#[resource]`: functions whose arguments arrive as strings (a prompt's
//! arguments, the variables a URI matched in a resource's template), each read into its
//! parameter's type with `FromStr`. They are parsed as a tool is (`ast::Item`: docs, parameters,
//! context, methods of a `#[tools]` block) and checked by `valid` for what they share with it;
//! `valid` here checks what is theirs (which `#[arg]` keys apply, a resource's URI and template
//! against its parameters), and `expand` writes their `Prompt` and `Resource` impls.

mod expand;
mod valid;

pub use expand::{prompt_items, resource_items};
pub use valid::check;
