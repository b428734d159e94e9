//! Enums in every serde representation: internally, externally and adjacently tagged, untagged,
//! a unit enum documented on only some variants, and a list of tagged values.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tooldef::{Portable, tool};

/// A shape, tagged inside its object (`{"type": "circle", "radius": 1.5}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// The radius.
        radius: f64,
    },
    /// A rectangle.
    Rectangle {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// A caption.
        label: Option<String>,
    },
    /// Nothing at all.
    Empty,
}

/// Draw one shape (internally tagged enum).
#[tool]
pub fn draw_shape(
    /// What to draw.
    shape: Shape,
    /// Stroke width.
    #[arg(default = 1)]
    stroke: u8,
) -> Value {
    json!({"shape": shape, "stroke": stroke})
}

/// What a robot does next, tagged by its key (`"stop"`, `{"wait": 3}`, `{"move": {…}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Stand still.
    Stop,
    /// Wait some seconds.
    Wait(u32),
    /// Go somewhere.
    Move {
        /// Metres east.
        x: i32,
        /// Metres north.
        y: i32,
    },
    /// Say something.
    Say(String),
}

/// Give a robot its next actions (externally tagged enum).
#[tool]
pub fn command_robot(
    /// The first action.
    first: Action,
    /// Then these, in order.
    #[schemars(length(max = 4))]
    then: Vec<Action>,
) -> Value {
    json!({"first": first, "then": then})
}

/// An edit, tagged beside its content (`{"op": "scale", "args": 2.0}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(tag = "op", content = "args", rename_all = "snake_case")]
pub enum Edit {
    /// Undo everything.
    Reset,
    /// Scale by a factor.
    Scale(f64),
    /// Rename the document.
    Rename {
        /// The new name.
        to: String,
    },
}

/// Apply an edit (adjacently tagged enum).
#[tool]
pub fn apply_edit(
    /// The edit.
    edit: Edit,
    /// Keep a copy of the original.
    keep_original: Option<bool>,
) -> Value {
    json!({"edit": edit, "keep_original": keep_original})
}

/// A quantity given as a number, a word, or a range (untagged).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(untagged)]
pub enum Quantity {
    /// An exact count.
    Exact(i64),
    /// A word such as "dozen".
    Word(String),
    /// A range of counts.
    Between {
        /// The least.
        low: u32,
        /// The most.
        high: u32,
    },
}

/// Order some items (untagged enum).
#[tool]
pub fn order_items(
    /// The item.
    item: String,
    /// How many.
    quantity: Quantity,
) -> Value {
    json!({"item": item, "quantity": quantity})
}

/// How urgent something is; only some levels are documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Portable)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// It can wait.
    Low,
    // Undocumented on purpose: the shape under test.
    #[allow(missing_docs)]
    Normal,
    /// Do it now.
    High,
    #[allow(missing_docs)]
    Critical,
}

/// File a ticket (a unit enum documented on only some variants).
#[tool]
pub fn file_ticket(
    /// The ticket's title.
    title: String,
    /// How urgent it is.
    #[arg(default = Priority::Normal)]
    priority: Priority,
    /// Who else cares, by urgency.
    watchers: Option<Vec<Priority>>,
) -> Value {
    json!({"title": title, "priority": priority, "watchers": watchers})
}

/// Draw several shapes (a list of internally tagged values).
#[tool]
pub fn draw_shapes(
    /// The shapes, back to front.
    #[schemars(length(min = 1, max = 5))]
    shapes: Vec<Shape>,
) -> Value {
    json!({"shapes": shapes})
}
