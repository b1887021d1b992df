use super::*;
use crate::task::Strategy;
use proptest::prelude::*;

fn s(name: &str, points: f64, cost: Option<f64>) -> TaskScore {
    score(name, points, cost, 0, 0.01)
}

#[test]
fn best_ratio_wins() {
    let scores = [
        s("a", 10.0, Some(2.0)),
        s("b", 6.0, Some(1.0)),
        s("c", 1.0, Some(0.5)),
    ];
    assert_eq!(scores[1].score, 6.0);
    assert_eq!(select(&scores), Some(1));
}

#[test]
fn ties_go_to_the_default_order() {
    let scores = [
        s("a", 4.0, Some(2.0)),
        s("b", 2.0, Some(1.0)),
        s("c", 6.0, Some(3.0)),
    ];
    assert_eq!(select(&scores), Some(0));
    assert_eq!(select(&scores[1..]), Some(0));
}

#[test]
fn unreachable_is_never_selected() {
    for bad in [None, Some(f64::NAN), Some(f64::INFINITY), Some(-1.0)] {
        let t = s("far", 1000.0, bad);
        assert!(!t.reachable);
        assert_eq!(t.cost_m, f64::INFINITY);
        assert_eq!(t.score, 0.0);
        assert_eq!(select(&[t.clone(), s("near", 1.0, Some(5.0))]), Some(1));
    }
    assert_eq!(select(&[s("x", 3.0, None), s("y", 3.0, None)]), None);
    assert_eq!(select(&[]), None);
}

#[test]
fn zero_cost_is_clamped_and_zero_points_still_count() {
    let here = s("here", 1.0, Some(0.0));
    assert_eq!(here.score, 100.0);
    assert_eq!(here.cost_m, 0.0);
    assert_eq!(select(&[s("nothing", 0.0, Some(1.0))]), Some(0));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// The winner is reachable, no reachable score beats it, and every earlier
    /// reachable candidate scores strictly less (ties go first).
    #[test]
    fn select_is_the_first_maximum(cands in proptest::collection::vec((0.0f64..100.0, proptest::option::of(0.0f64..10.0)), 0..12)) {
        let scores: Vec<TaskScore> = cands.iter().enumerate().map(|(i, (p, c))| s(&i.to_string(), *p, *c)).collect();
        match select(&scores) {
            None => prop_assert!(scores.iter().all(|t| !t.reachable)),
            Some(w) => {
                prop_assert!(scores[w].reachable);
                for (i, t) in scores.iter().enumerate().filter(|(_, t)| t.reachable) {
                    prop_assert!(t.score <= scores[w].score);
                    if i < w { prop_assert!(t.score < scores[w].score); }
                }
            }
        }
    }
}

fn strategy(deadlines: &[Option<f64>], max_failures: u32) -> Strategy {
    let tasks: Vec<serde_json::Value> = deadlines
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut t = serde_json::json!({"name": format!("t{i}"), "points": 1, "approach_m": [i as f64, 0.0]});
            if let Some(d) = d {
                t["deadline_s"] = serde_json::json!(d);
            }
            t
        })
        .collect();
    let v = serde_json::json!({"tasks": tasks, "max_failures": max_failures});
    Strategy::from_json(&v.to_string()).unwrap()
}

#[test]
fn default_order_until_trouble_then_scored_then_back() {
    let st = strategy(&[None, None, None], 2);
    let mut m = MatchState::new(&st);
    assert_eq!(m.pick(), Pick::Task(0));
    m.succeeded(0, 5.0);
    assert_eq!(m.pick(), Pick::Task(1));
    assert!(!m.failed(1));
    assert_eq!(
        m.pick(),
        Pick::Score(vec![2]),
        "the task that just failed waits one pick"
    );
    m.succeeded(2, 1.0);
    assert_eq!(m.pick(), Pick::Task(1), "back to default order");
    assert!(m.failed(1), "second failure drops it");
    assert_eq!(m.pick(), Pick::AllDone);
    assert_eq!(m.points(), 6.0);
    assert_eq!(
        (m.done(), m.dropped(), m.failures(1)),
        (vec![0, 2], vec![1], 2)
    );
}

#[test]
fn the_only_task_left_is_rescored_even_after_failing() {
    let st = strategy(&[None], 3);
    let mut m = MatchState::new(&st);
    m.failed(0);
    assert_eq!(m.pick(), Pick::Score(vec![0]));
    m.interrupted(0);
    assert_eq!(m.pick(), Pick::Score(vec![0]));
    assert_eq!(m.failures(0), 1, "an interruption is not a failure");
}

#[test]
fn replan_and_deadlines() {
    let st = strategy(&[Some(10.0), None, Some(30.0)], 2);
    let mut m = MatchState::new(&st);
    m.replan();
    assert_eq!(m.pick(), Pick::Score(vec![0, 1, 2]));
    assert_eq!(m.expire(&st.tasks, 9.9), Vec::<usize>::new());
    assert_eq!(m.expire(&st.tasks, 10.0), vec![0]);
    assert_eq!(m.pick(), Pick::Score(vec![1, 2]));
    m.missed_deadline(2, 30.0);
    assert!(matches!(m.status(2), Status::Dropped(r) if r.contains("deadline")));
    assert_eq!(m.pick(), Pick::Score(vec![1]));
    assert_eq!(
        m.expire(&st.tasks, 100.0),
        Vec::<usize>::new(),
        "dropped tasks are not dropped twice"
    );
    assert_eq!(m.pending(), vec![1]);
}
