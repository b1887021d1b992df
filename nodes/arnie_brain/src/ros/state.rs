//! [`Snapshot`] → `arnie_interfaces/BrainState` (published on `/brain/state` and in the
//! `RunTask` feedback). The target is scaled to metres (frame `world`); variables stay in
//! instructions units (mm), as `Variable.msg` says.

use node_glue::{time, topics};
use r2r::arnie_interfaces::msg::{ActiveAction, BrainState, Variable};
use r2r::geometry_msgs::msg::Point;

use super::Scale;
use crate::{Event, Snapshot};

/// The message for `snap`, with the events of the tick that produced it.
pub fn state_msg(task: &str, snap: &Snapshot, events: &[Event], scale: Scale) -> BrainState {
    let target = snap.target_mm.map(|t| scale.to_m(t));
    BrainState {
        header: time::header(topics::WORLD_FRAME),
        task: task.to_owned(),
        tick: snap.tick,
        active: snap
            .active
            .iter()
            .map(|a| ActiveAction {
                name: a.name.clone(),
                step: a.step,
                steps: a.steps,
                retries: a.counted(),
            })
            .collect(),
        variables: snap
            .variables
            .iter()
            .map(|v| Variable {
                name: v.name.clone(),
                values: v.values.clone(),
            })
            .collect(),
        last_decision: snap.last_decision.clone(),
        events: events.iter().map(ToString::to_string).collect(),
        has_target: target.is_some(),
        target: target
            .map(|t| Point {
                x: t.x,
                y: t.y,
                z: t.z,
            })
            .unwrap_or_default(),
        paused: snap.paused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Brain, Observation};
    use nalgebra::Point3;

    const TASK: &str = r#"{"initialAction": "a", "actions": {"a": {
        "trajectory": [{"x": 10, "y": 20, "z": 30}, {"x": "a,0,0", "y": 0, "z": 0}],
        "decisions": [{"executeAfter": 0,
            "state": {"arm": {"x": -1, "y": -1, "z": -1}, "objects": [{"x": -1, "y": -1, "z": -1}]},
            "success": {"action": "a", "delay": 5}, "fail": {"action": "a", "delay": 5}}]}}}"#;

    #[test]
    fn target_in_metres_variables_in_mm() {
        let mut b = Brain::from_json(TASK).unwrap();
        let scale = Scale::new(0.001).unwrap();
        let out = b.tick(Some(Point3::origin()), &[]);
        let msg = state_msg("inline", &b.state(), &out.events, scale);
        assert!(msg.has_target);
        assert!((msg.target.x - 0.01).abs() < 1e-12 && (msg.target.z - 0.03).abs() < 1e-12);
        assert_eq!(msg.header.frame_id, "world");
        assert_eq!(msg.active[0].name, "a");
        assert_eq!((msg.active[0].step, msg.active[0].steps), (0, 2));
        assert_eq!(msg.events, ["a: started", "a: step 0 -> (10, 20, 30)"]);

        let seen = [Observation::at(5.0, 6.0, 7.0).with_confidence(80.0)];
        let out = b.tick(Some(Point3::new(10.0, 20.0, 30.0)), &seen);
        let msg = state_msg("inline", &b.state(), &out.events, scale);
        let var = msg.variables.iter().find(|v| v.name == "a,0,0").unwrap();
        assert_eq!(var.values, [5.0, 6.0, 7.0, 80.0]);
        assert!((msg.target.x - 0.005).abs() < 1e-12);
        assert!(msg.last_decision.starts_with("a.decisions[0]: success"));
        assert!(!msg.paused);
    }
}
