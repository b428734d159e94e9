//! The request the upstream gets, written straight from the client's request, the rounds'
//! additions and the catalog's tools serialised once per catalog: nothing is copied per request
//! (with 100 injected tools, copying them as JSON values was most of a request's cost).

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::injection::Injection;

/// How long `value` is as compact JSON, counted without writing it anywhere. Raw JSON (the
/// injected tools) is only measured, so counting a round's body costs little beside writing it.
pub fn json_len(value: &impl Serialize) -> serde_json::Result<usize> {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value)?;
    Ok(count.0)
}

/// `value` as compact JSON, written once into a buffer of its exact length: a round's body is
/// 105–115 KB with 100 injected tools, and growing a `Vec` to that size copied it again at each
/// doubling (7% of the gateway's CPU for a whole Chat request, in `perf`), then kept up to as
/// much again of spare capacity.
pub fn to_vec_exact(value: &impl Serialize) -> serde_json::Result<Vec<u8>> {
    let mut written = Vec::with_capacity(json_len(value)?);
    serde_json::to_writer(&mut written, value)?;
    Ok(written)
}

/// One upstream request, in the client's API.
pub struct Outgoing<'a> {
    /// The client's request (for a round: without its conversation).
    pub request: &'a Map<String, Value>,
    /// The conversation of a round: its key (`messages` or `input`), the client's items and the
    /// rounds' additions.
    pub conversation: Option<(&'static str, &'a [Value], &'a [Value])>,
    /// A `tool_choice` replacing the client's (`auto` after a forced first round, `none` in the
    /// last, `required` for a named one).
    pub tool_choice: Option<Value>,
    /// The one tool this round carries (a named `tool_choice`, said as `required`).
    pub only: Option<&'a str>,
    /// The name of one of the client's tools.
    pub tool_name: fn(&Value) -> Option<&str>,
    /// The injected tools, after the client's own.
    pub injection: &'a Injection,
}

impl Outgoing<'_> {
    /// The request without the injected tools, as a JSON object (for an upstream of another
    /// API, which gets the request translated and the injected tools in its own form after).
    pub fn without_injected(&self) -> Map<String, Value> {
        let written = Written {
            outgoing: self,
            injected: false,
        };
        match serde_json::to_value(&written) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }

    /// Whether a tool of `name` goes in this round.
    fn carries(&self, name: Option<&str>) -> bool {
        self.only.is_none_or(|only| name == Some(only))
    }

    /// The injected tools this round carries, as the upstream's API writes them; the last one
    /// with the prompt-caching breakpoint when the gateway is told to cache an Anthropic
    /// upstream's tools (`anthropic_cache_tools`), so that every tool up to it is cached.
    pub fn injected(&self) -> Vec<Cow<'_, RawValue>> {
        let mut tools = self.injection.wire_tools(self.only);
        if let (Some(cache), Some(last)) = (&self.injection.cache, tools.last_mut()) {
            *last = Cow::Owned(with_cache_control(last, cache));
        }
        tools
    }
}

impl Serialize for Outgoing<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Written {
            outgoing: self,
            injected: true,
        }
        .serialize(serializer)
    }
}

/// The request as written: with the injected tools, or without them.
struct Written<'a, 'b> {
    outgoing: &'b Outgoing<'a>,
    injected: bool,
}

impl Serialize for Written<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let outgoing = self.outgoing;
        let tools = Tools {
            outgoing,
            injected: self.injected && outgoing.injection.active,
        };
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in outgoing.request {
            match key.as_str() {
                "tools" => map.serialize_entry(key, &tools)?,
                "tool_choice" if outgoing.tool_choice.is_some() => {
                    map.serialize_entry(key, &outgoing.tool_choice)?;
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        if !outgoing.request.contains_key("tools") && tools.injected {
            map.serialize_entry("tools", &tools)?;
        }
        if let (Some(choice), false) = (
            &outgoing.tool_choice,
            outgoing.request.contains_key("tool_choice"),
        ) {
            map.serialize_entry("tool_choice", choice)?;
        }
        if let Some((key, client, added)) = outgoing.conversation {
            map.serialize_entry(key, &Chain(client, added))?;
        }
        map.end()
    }
}

/// The client's tools, then the injected ones its own did not displace.
struct Tools<'a, 'b> {
    outgoing: &'b Outgoing<'a>,
    injected: bool,
}

impl Serialize for Tools<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let outgoing = self.outgoing;
        let mut seq = serializer.serialize_seq(None)?;
        let client = outgoing
            .request
            .get("tools")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for tool in client {
            if outgoing.carries((outgoing.tool_name)(tool)) {
                seq.serialize_element(tool)?;
            }
        }
        if self.injected {
            for raw in outgoing.injected() {
                seq.serialize_element(&*raw)?;
            }
        }
        seq.end()
    }
}

/// A tool with `cache_control` added, unless it has one already (the client's choice stands).
fn with_cache_control(tool: &RawValue, cache: &tooldef::targets::CacheControl) -> Box<RawValue> {
    let mut value: Value = match serde_json::from_str(tool.get()) {
        Ok(value) => value,
        Err(_) => return tool.to_owned(),
    };
    if let (Value::Object(tool), Ok(cache)) = (&mut value, serde_json::to_value(cache)) {
        tool.entry("cache_control").or_insert(cache);
    }
    serde_json::value::to_raw_value(&value).unwrap_or_else(|_| tool.to_owned())
}

/// Two lists written as one.
struct Chain<'a>(&'a [Value], &'a [Value]);

impl Serialize for Chain<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().chain(self.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_at_its_exact_length() {
        let raw =
            RawValue::from_string(r#"{"type":"function","name":"t\u00e9"}"#.to_owned()).unwrap();
        let value = serde_json::json!({
            "model": "m",
            "input": [{"role": "user", "content": "quote \" and \\ and é"}],
            "tools": [raw.clone(), raw],
        });
        let written = to_vec_exact(&value).unwrap();
        assert_eq!(written, serde_json::to_vec(&value).unwrap());
        assert_eq!(written.capacity(), written.len());
        assert_eq!(json_len(&value).unwrap(), written.len());
    }
}
