use tooldef::prompt;

struct PlanTrip;

/// Plan a trip.
#[prompt]
fn plan_trip(city: String) -> String {
    city
}

fn main() {
    let _ = PlanTrip;
}
