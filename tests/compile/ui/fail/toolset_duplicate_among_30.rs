use tooldef::{tool, toolset};

/// Tool 0.
#[tool]
fn tool_0(n: u32) -> u32 {
    n
}

/// Tool 1.
#[tool]
fn tool_1(n: u32) -> u32 {
    n
}

/// Tool 2.
#[tool]
fn tool_2(n: u32) -> u32 {
    n
}

/// Tool 3.
#[tool]
fn tool_3(n: u32) -> u32 {
    n
}

/// Tool 4.
#[tool]
fn tool_4(n: u32) -> u32 {
    n
}

/// Tool 5.
#[tool]
fn tool_5(n: u32) -> u32 {
    n
}

/// Tool 6.
#[tool]
fn tool_6(n: u32) -> u32 {
    n
}

/// Tool 7.
#[tool]
fn tool_7(n: u32) -> u32 {
    n
}

/// Tool 8.
#[tool]
fn tool_8(n: u32) -> u32 {
    n
}

/// Tool 9.
#[tool]
fn tool_9(n: u32) -> u32 {
    n
}

/// Tool 10.
#[tool]
fn tool_10(n: u32) -> u32 {
    n
}

/// Tool 11.
#[tool]
fn tool_11(n: u32) -> u32 {
    n
}

/// Tool 12.
#[tool]
fn tool_12(n: u32) -> u32 {
    n
}

/// Tool 13.
#[tool]
fn tool_13(n: u32) -> u32 {
    n
}

/// Tool 14.
#[tool]
fn tool_14(n: u32) -> u32 {
    n
}

/// Tool 15.
#[tool]
fn tool_15(n: u32) -> u32 {
    n
}

/// Tool 16.
#[tool]
fn tool_16(n: u32) -> u32 {
    n
}

/// Tool 17.
#[tool(name = "tool_4")]
fn tool_17(n: u32) -> u32 {
    n
}

/// Tool 18.
#[tool]
fn tool_18(n: u32) -> u32 {
    n
}

/// Tool 19.
#[tool]
fn tool_19(n: u32) -> u32 {
    n
}

/// Tool 20.
#[tool]
fn tool_20(n: u32) -> u32 {
    n
}

/// Tool 21.
#[tool]
fn tool_21(n: u32) -> u32 {
    n
}

/// Tool 22.
#[tool]
fn tool_22(n: u32) -> u32 {
    n
}

/// Tool 23.
#[tool]
fn tool_23(n: u32) -> u32 {
    n
}

/// Tool 24.
#[tool]
fn tool_24(n: u32) -> u32 {
    n
}

/// Tool 25.
#[tool]
fn tool_25(n: u32) -> u32 {
    n
}

/// Tool 26.
#[tool]
fn tool_26(n: u32) -> u32 {
    n
}

/// Tool 27.
#[tool]
fn tool_27(n: u32) -> u32 {
    n
}

/// Tool 28.
#[tool]
fn tool_28(n: u32) -> u32 {
    n
}

/// Tool 29.
#[tool]
fn tool_29(n: u32) -> u32 {
    n
}

fn main() {
    let _ = toolset![
        Tool0, Tool1, Tool2, Tool3, Tool4, Tool5, Tool6, Tool7, Tool8, Tool9, Tool10, Tool11,
        Tool12, Tool13, Tool14, Tool15, Tool16, Tool17, Tool18, Tool19, Tool20, Tool21, Tool22,
        Tool23, Tool24, Tool25, Tool26, Tool27, Tool28, Tool29,
    ]
    .build();
}
