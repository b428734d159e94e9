use tooldef::tool;

#[tool(description = "This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. This tool does a great many things. ")]
fn verbose() {}

fn main() {}
