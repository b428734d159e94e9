//! Compile errors are part of the product: each case in `tests/compile/ui/fail` has a `.stderr` that was
//! read as a user would read it; each case in `tests/compile/ui/pass` is surface that must keep compiling.
//!
//! Run with `cargo test -p tooldef-compile-tests`; after a deliberate change to a message, regenerate with
//! `TRYBUILD=overwrite cargo test -p tooldef-compile-tests` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/pass/*.rs");
}
