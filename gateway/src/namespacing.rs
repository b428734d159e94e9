//! The calls of a Responses upstream whose injected tools are in namespaces
//! (`tool_grouping = "namespace"`): the model calls `{"namespace": "github", "name":
//! "create_issue"}`, and every such call must go back upstream with its namespace (OpenAI
//! answers a call without it with a 400: vercel/ai#15193). Inside the gateway a call is known by
//! its injected name (`github__create_issue`), as with prefixes: the upstream's replies are read
//! with each namespaced call of an injected tool named so (`flatten`), and each request gets the
//! namespace put back on every call of an injected tool that lacks it (`restore`), whoever wrote
//! the call (the model, a client translated from another API, the store, the hosted-MCP items).
//! The rest of the gateway (dispositions, execution, the store, translation) then needs to know
//! nothing of namespaces. A client that talks to the upstream without the gateway running
//! anything (inject mode over the same API) gets the upstream's items as they are, namespaces
//! included.

use serde_json::{Map, Value};

use crate::catalog::Injected;

/// Whether `item` is a function call.
fn is_call(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str) == Some("function_call")
}

/// A reply, or one of its stream's events, with the namespaced calls of injected tools named by
/// their injected names (the namespace taken off): its `output` (a whole response), its
/// `response.output` (`response.completed`) and its `item` (`response.output_item.*`).
pub fn flatten(reply: &mut Value, injected: &Injected) {
    let Value::Object(object) = reply else {
        return;
    };
    let mut items: Vec<&mut Value> = Vec::new();
    for (key, value) in object.iter_mut() {
        match (key.as_str(), value) {
            ("output", Value::Array(output)) => items.extend(output.iter_mut()),
            ("item", item) => items.push(item),
            ("response", Value::Object(response)) => {
                if let Some(Value::Array(output)) = response.get_mut("output") {
                    items.extend(output.iter_mut());
                }
            }
            _ => {}
        }
    }
    for item in items.into_iter().filter(|item| is_call(item)) {
        let (Some(namespace), Some(name)) = (
            item.get("namespace").and_then(Value::as_str),
            item.get("name").and_then(Value::as_str),
        ) else {
            continue;
        };
        if let Some(key) = injected.namespaced(namespace, name) {
            let key = Value::from(key);
            if let Value::Object(item) = item {
                item.insert("name".to_owned(), key);
                item.remove("namespace");
            }
        }
    }
}

/// A Responses request with its namespace put back on every call of an injected tool in
/// `input` that has none.
pub fn restore(request: &mut Map<String, Value>, injected: &Injected) {
    let Some(Value::Array(input)) = request.get_mut("input") else {
        return;
    };
    for item in input.iter_mut().filter(|item| is_call(item)) {
        if item.get("namespace").is_some_and(|n| !n.is_null()) {
            continue;
        }
        let Some((namespace, name)) = item
            .get("name")
            .and_then(Value::as_str)
            .and_then(|key| injected.call_name(key))
        else {
            continue;
        };
        let (namespace, name) = (Value::from(namespace), Value::from(name));
        if let Value::Object(item) = item {
            item.insert("namespace".to_owned(), namespace);
            item.insert("name".to_owned(), name);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tooldef::Target;

    use super::*;
    use crate::catalog::Catalog;

    use crate::catalog::test_source as source;

    #[test]
    fn calls_are_routed_by_namespace_and_name_and_go_back_with_their_namespace() {
        let sources = [
            source("github", &["create_issue", "get_me"]),
            source("gitlab", &["create_issue"]),
        ];
        let catalog = Catalog::build(&sources, "__", 1, true);
        let injected = catalog.for_target(Target::Responses);
        // Two tools of one name, told apart by their namespace, each routed to its source.
        assert_eq!(
            injected.namespaced("github", "create_issue"),
            Some("github__create_issue")
        );
        assert_eq!(
            injected.namespaced("gitlab", "create_issue"),
            Some("gitlab__create_issue")
        );
        assert_eq!(injected.namespaced("gitlab", "get_me"), None);
        assert_eq!(injected.routes["gitlab__create_issue"].source, 1);
        assert_eq!(
            injected.routes["gitlab__create_issue"]
                .converted
                .original_name,
            "create_issue"
        );
        let listing = injected.listing();
        assert_eq!(listing.len(), 2, "{listing:#?}");
        assert_eq!(listing[0]["type"], "namespace");
        assert_eq!(listing[0]["name"], "github");
        assert_eq!(listing[0]["tools"][1]["name"], "get_me");
        // Chat Completions has no namespaces: prefixes there.
        assert_eq!(
            catalog.for_target(Target::ChatCompletions).names,
            [
                "github__create_issue",
                "github__get_me",
                "gitlab__create_issue"
            ]
        );

        let call = json!({"type": "function_call", "call_id": "c1", "namespace": "gitlab", "name": "create_issue", "arguments": "{}"});
        let mut reply = json!({"output": [call.clone(), {"type": "function_call", "call_id": "c2", "namespace": "crm", "name": "find", "arguments": "{}"}]});
        flatten(&mut reply, injected);
        assert_eq!(reply["output"][0]["name"], "gitlab__create_issue");
        assert!(reply["output"][0].get("namespace").is_none());
        // A namespace of the client's own is left as it is.
        assert_eq!(reply["output"][1]["namespace"], "crm");
        let mut event = json!({"type": "response.output_item.done", "item": call.clone()});
        flatten(&mut event, injected);
        assert_eq!(event["item"]["name"], "gitlab__create_issue");

        // Whoever wrote the call, it goes back upstream with its namespace and its own name.
        let mut request = json!({"input": [
            {"role": "user", "content": "hi"},
            reply["output"][0].clone(),
            {"type": "function_call", "call_id": "c3", "name": "github__get_me", "arguments": "{}"},
            {"type": "function_call", "call_id": "c4", "name": "lookup_order", "arguments": "{}"},
            call,
        ]});
        let Value::Object(request) = &mut request else {
            unreachable!()
        };
        restore(request, injected);
        let input = request["input"].as_array().unwrap();
        assert_eq!(
            (&input[1]["namespace"], &input[1]["name"]),
            (&json!("gitlab"), &json!("create_issue"))
        );
        assert_eq!(
            (&input[2]["namespace"], &input[2]["name"]),
            (&json!("github"), &json!("get_me"))
        );
        assert!(input[3].get("namespace").is_none(), "the client's own tool");
        assert_eq!(input[4]["namespace"], "gitlab");
    }
}
