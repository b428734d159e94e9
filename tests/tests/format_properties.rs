//! Every string `format` tooldef validates accepts what its RFC accepts and refuses what it does
//! not: values drawn from each format's generator (`tooldef_tests::schema_instances::formats`:
//! upper- and mixed-case domains, A-labels in any case, U-labels of several scripts, offsets,
//! fractional seconds) are called through a tool whose schema has that format, and must be
//! accepted; the generator's invalid values must be refused at their place, with the format
//! in words. The oracle reads host names and mailboxes apart from the library (the `idna` and
//! `email_address` crates), and must agree on each value.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use tooldef::{CallContext, ContextError, ReturnValue, Tool, ToolDefinition, ToolError, ToolSet};
use tooldef_tests::schema_instances::dialect;
use tooldef_tests::schema_instances::formats::{KNOWN, generate, invalid};
use tooldef_tests::schema_instances::rng::Rng;

/// Values drawn per format, valid ones and invalid ones each.
const DRAWS: usize = 2_000;

/// One optional string property per format, named after it.
fn schema() -> Value {
    let properties: Map<String, Value> = KNOWN
        .iter()
        .map(|format| {
            (
                (*format).to_owned(),
                json!({"type": "string", "format": format}),
            )
        })
        .collect();
    json!({"type": "object", "properties": properties, "additionalProperties": false})
}

struct Formats;

impl Tool for Formats {
    type Args = Map<String, Value>;
    type Output = Map<String, Value>;
    const NAME: &'static str = "check_formats";

    fn definition(&self) -> &'static ToolDefinition {
        static DEFINITION: OnceLock<ToolDefinition> = OnceLock::new();
        DEFINITION.get_or_init(|| {
            ToolDefinition::builder(Self::NAME)
                .description("Take one value of each format.")
                .input_schema(schema().try_into().expect("an object is a schema"))
                .strict(false)
                .build()
        })
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        _: CallContext,
    ) -> Result<Map<String, Value>, ContextError> {
        Ok(args)
    }

    fn output(output: Map<String, Value>) -> Result<ReturnValue, String> {
        Ok(ReturnValue::Json(Value::Object(output)))
    }
}

#[tokio::test]
async fn every_format_accepts_what_its_rfc_accepts() {
    let set = ToolSet::builder().tool(Formats).build().unwrap();
    let oracle = dialect::validator(&schema()).unwrap();
    let mut failures: Vec<String> = Vec::new();
    let mut seen = 0;
    for format in KNOWN {
        let mut rng = Rng::new(Rng::seed_for(0xF0_57A7, &[format], 0));
        for n in 0..DRAWS {
            let value = generate(format, &mut rng).expect("a known format");
            let arguments = json!({ *format: value });
            if !oracle.is_valid(&arguments) {
                failures.push(format!("the oracle refuses a generated {format}: {value}"));
                continue;
            }
            // Half as a value, half as JSON text (the text path may take the fast path).
            let result = if n % 2 == 0 {
                set.call(Formats::NAME, arguments.clone()).await
            } else {
                set.call(Formats::NAME, arguments.to_string().as_str())
                    .await
            };
            match result {
                Ok(_) => seen += 1,
                Err(error) => failures.push(format!("{format} {value:?} refused: {error}")),
            }
        }
        for _ in 0..DRAWS / 10 {
            let value = invalid(format, &mut rng);
            let arguments = json!({ *format: value });
            if oracle.is_valid(&arguments) {
                continue;
            }
            match set.call(Formats::NAME, arguments.clone()).await {
                Err(ToolError::InvalidArguments { problems, .. })
                    if problems.len() == 1
                        && problems[0].pointer == format!("/{format}")
                        && problems[0].message.starts_with("must be ") => {}
                other => failures.push(format!(
                    "the invalid {format} {value:?} is not refused at `/{format}` with the \
                     format in words: {other:?}"
                )),
            }
        }
    }
    failures.dedup();
    assert!(
        failures.is_empty(),
        "{} of {} draws failed:\n{}",
        failures.len(),
        KNOWN.len() * DRAWS,
        failures[..failures.len().min(30)].join("\n")
    );
    assert_eq!(seen, KNOWN.len() * DRAWS);
}

/// The values issue 34 found refused, and their kin.
#[tokio::test]
async fn domains_in_any_case_are_accepted() {
    let set = ToolSet::builder().tool(Formats).build().unwrap();
    for (format, value) in [
        ("email", "z@example.XN--55QW42G"),
        ("email", "z@example.xn--55qw42g"),
        ("email", "Ada.Lovelace@Example.COM"),
        ("hostname", "WWW.XN--BCHER-KVA.EXAMPLE"),
        ("idn-hostname", "BÜCHER.example"),
        ("idn-email", "josé@bücher.example"),
        ("idn-email", "z@example.XN--55QW42G"),
    ] {
        let result = set.call(Formats::NAME, json!({ format: value })).await;
        assert!(result.is_ok(), "{format} {value}: {result:?}");
    }
}
