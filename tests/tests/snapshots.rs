//! Snapshots of every showcase tool in every target. Each was reviewed by eye: would the provider
//! accept it, and does the description read well to a model? Review changes with `cargo insta review`.

use tooldef::Target;
use tooldef_examples::showcase;

#[test]
fn showcase_tools_in_every_target() {
    for target in Target::ALL {
        for definition in showcase::definitions() {
            let json = definition.to_json(target).expect("renders");
            let name = format!("{}__{}", target.short_name(), definition.name());
            insta::assert_json_snapshot!(name, json);
        }
    }
}
