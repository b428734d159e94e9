//! The showcase's tools as echoes: the same definitions, argument types and argument pipeline,
//! but a function that hands back the arguments as deserialised, under their wire names (the
//! idea of `ECHOES` in `tests/tests/properties.rs`). The argument structs have no `PartialEq`,
//! and several showcase functions ignore some of their parameters, so their results alone would
//! not show every field.

use serde_json::{Value, json};
use tooldef::{
    CallContext, ContextError, ReturnValue, Tool, ToolDefinition, ToolOutput, ToolSetBuilder,
};
use tooldef_examples::showcase::{
    BookHotel, BookHotelArgs, CancelBooking, CancelBookingArgs, ConvertCurrency,
    ConvertCurrencyArgs, FlightSearch, GetServerTime, GetWeather, GetWeatherArgs, PlanItinerary,
    PlanItineraryArgs, SearchFlights, SendMessage, SendMessageArgs, SetReminder, SetReminderArgs,
};

/// A tool with `T`'s definition and argument type whose function returns `describe(args)`.
pub struct Echo<T: Tool> {
    /// The tool echoed.
    pub tool: T,
    /// The arguments as JSON, under their wire names.
    pub describe: fn(&T::Args) -> Value,
}

impl<T: Tool> Tool for Echo<T> {
    type Args = T::Args;
    type Output = Value;
    const NAME: &'static str = T::NAME;

    fn definition(&self) -> &'static ToolDefinition {
        self.tool.definition()
    }

    fn call(
        &self,
        args: Self::Args,
        _context: CallContext,
    ) -> impl Future<Output = Result<Value, ContextError>> + Send {
        let received = (self.describe)(&args);
        async move { Ok(received) }
    }

    /// The arguments as text: they are no result of the tool's, so its output schema (which
    /// debug builds hold structured results to) does not apply.
    fn output(output: Value) -> Result<ReturnValue, String> {
        Ok(ReturnValue::Output(ToolOutput::text(output.to_string())))
    }
}

/// `builder` with the nine showcase tools added as echoes.
pub fn add_echoes(builder: ToolSetBuilder) -> ToolSetBuilder {
    builder
        .tool(Echo {
            tool: GetServerTime,
            describe: |_| json!({}),
        })
        .tool(Echo {
            tool: GetWeather,
            describe: |a: &GetWeatherArgs| {
                json!({
                    "city": a.city,
                    "days": a.days,
                    "units": a.units,
                    "include_hourly": a.include_hourly,
                })
            },
        })
        .tool(Echo {
            tool: ConvertCurrency,
            describe: |a: &ConvertCurrencyArgs| {
                json!({"amount": a.amount, "from": a.from, "to": a.to, "round_to": a.round_to})
            },
        })
        .tool(Echo {
            tool: SearchFlights,
            describe: |a: &FlightSearch| json!(a),
        })
        .tool(Echo {
            tool: BookHotel,
            describe: |a: &BookHotelArgs| {
                json!({
                    "hotel_id": a.hotel_id,
                    "guest": a.guest,
                    "check_in": a.check_in,
                    "nights": a.nights,
                    "requests": a.requests,
                })
            },
        })
        .tool(Echo {
            tool: PlanItinerary,
            describe: |a: &PlanItineraryArgs| json!({"stops": a.stops, "pace": a.pace}),
        })
        .tool(Echo {
            tool: SetReminder,
            describe: |a: &SetReminderArgs| {
                json!({"text": a.text, "schedule": a.schedule, "volume": a.volume})
            },
        })
        .tool(Echo {
            tool: SendMessage,
            describe: |a: &SendMessageArgs| {
                json!({
                    "to": a.to,
                    "subject": a.subject,
                    "body": a.body,
                    "readReceipt": a.read_receipt,
                })
            },
        })
        .tool(Echo {
            tool: CancelBooking,
            describe: |a: &CancelBookingArgs| json!({"reference": a.reference, "reason": a.reason}),
        })
}
