use super::*;

#[tokio::test]
async fn a_call_waits_for_its_turn_within_its_time_limit() {
    let limit = Duration::from_millis(200);
    let turns = tokio::sync::Semaphore::new(1);
    assert_eq!(in_turn(Some(&turns), limit, async { 7 }).await, Ok(7));
    // Every turn taken: the call never starts, and says it was waiting.
    let held = turns.acquire().await.unwrap();
    let started = std::sync::atomic::AtomicBool::new(false);
    let waited = in_turn(Some(&turns), limit, async {
        started.store(true, std::sync::atomic::Ordering::Relaxed);
    })
    .await;
    assert_eq!(waited, Err(Late::Waiting));
    assert!(!started.load(std::sync::atomic::Ordering::Relaxed));
    drop(held);
    // A turn free, but the call too slow; with no bound on turns, the same.
    let slow = || tokio::time::sleep(Duration::from_secs(5));
    assert_eq!(
        in_turn(Some(&turns), limit, slow()).await,
        Err(Late::Running)
    );
    assert_eq!(in_turn(None, limit, slow()).await, Err(Late::Running));
    // The turn is given back when the call ends, late or not.
    assert_eq!(turns.available_permits(), 1);
}
