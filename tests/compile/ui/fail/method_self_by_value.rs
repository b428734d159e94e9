use std::rc::Rc;

use tooldef::{tool, tools};

struct Session;

#[tools]
impl Session {
    /// Close the session.
    #[tool]
    fn close(self) -> String {
        "closed".to_owned()
    }

    /// Close the session, boxed.
    #[tool]
    fn close_boxed(self: Box<Self>) -> String {
        "closed".to_owned()
    }

    /// Share the session.
    #[tool]
    fn share(self: Rc<Self>) -> String {
        "shared".to_owned()
    }
}

fn main() {}
