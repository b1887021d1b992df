//! Messages ⇄ library types. Topics and the library both use metres in `world`, so
//! nothing is scaled here; non-finite values are refused at this edge.

use r2r::arnie_interfaces::action::MoveTo;
use r2r::arnie_interfaces::msg::{Coordinates, Packet, StrategyEvent, TaskScore as TaskScoreMsg};
use r2r::arnie_interfaces::srv::PlanPath;
use r2r::geometry_msgs::msg::Point as RosPoint;
use r2r::GoalStatus;
use serde_json::{json, Map, Value};

use crate::error::{Error, MoveOutcome, PlanCode};
use crate::event::{Event, TaskScore};
use crate::robot::PlannedPath;
use crate::task::{PacketSpec, Point};

/// A library point as `geometry_msgs/Point` (metres, unchanged).
pub fn to_ros(p: &Point) -> RosPoint {
    RosPoint {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// `None` when a coordinate is NaN or infinite.
pub fn from_ros(p: &RosPoint) -> Option<Point> {
    [p.x, p.y, p.z]
        .iter()
        .all(|v| v.is_finite())
        .then(|| Point::new(p.x, p.y, p.z))
}

/// `StrategyEvent`, stamped now.
pub fn event_msg(ev: &Event) -> StrategyEvent {
    StrategyEvent {
        stamp: node_glue::time::now(),
        kind: ev.kind.code(),
        task: ev.task.clone(),
        step: ev.step.clone(),
        done: ev.done,
        total: ev.total,
        message: ev.message.clone(),
    }
}

/// A strategy-level `ERROR` event outside any run (a rejected goal).
pub fn rejection_msg(message: String) -> StrategyEvent {
    StrategyEvent {
        stamp: node_glue::time::now(),
        kind: StrategyEvent::ERROR as u8,
        task: String::new(),
        step: String::new(),
        done: 0,
        total: 0,
        message,
    }
}

/// A task's score as `arnie_interfaces/TaskScore`.
pub fn score_msg(s: &TaskScore) -> TaskScoreMsg {
    TaskScoreMsg {
        task: s.task.clone(),
        points: s.points,
        cost_m: s.cost_m,
        score: s.score,
        failures: s.failures,
        reachable: s.reachable,
    }
}

/// The `SendPacket` packet: `name` wins over `id` in the bridge when both are set.
pub fn packet_msg(p: &PacketSpec) -> Packet {
    Packet {
        stamp: node_glue::time::now(),
        name: p.name.clone(),
        id: p.id.unwrap_or(0),
        device: p.device,
        fields_json: p.fields_json(),
        raw: Vec::new(),
    }
}

/// A packet whose `fields_json` is not a JSON object (names the packet).
#[derive(Debug, thiserror::Error)]
pub enum FieldsError {
    /// Valid JSON, but not an object.
    #[error("packet {0:?}: fields_json is not a JSON object")]
    NotObject(String),
    /// Not JSON.
    #[error("packet {name:?}: fields_json: {source}")]
    Json {
        /// The packet's name.
        name: String,
        /// The parser's reason.
        source: serde_json::Error,
    },
}

/// A received packet as `wait_for` sees it: `{"name", "id", "device", "fields"}`.
///
/// # Errors
/// `fields_json` that is not a JSON object (the message names the packet).
pub fn packet_json(p: &Packet) -> Result<Value, FieldsError> {
    let fields = if p.fields_json.trim().is_empty() {
        Map::new()
    } else {
        match serde_json::from_str::<Value>(&p.fields_json) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err(FieldsError::NotObject(p.name.clone())),
            Err(source) => {
                return Err(FieldsError::Json {
                    name: p.name.clone(),
                    source,
                })
            }
        }
    };
    Ok(json!({"name": p.name, "id": p.id, "device": p.device, "fields": fields}))
}

/// `Coordinates` as `wait_for` sees it: `{"frame_id", "count", "items": [[..], ..]}`.
pub fn coordinates_json(c: &Coordinates) -> Value {
    let items: Vec<Value> = c
        .items
        .iter()
        .map(|i| Value::Array(i.values.iter().map(|v| json!(v)).collect()))
        .collect();
    json!({"frame_id": c.header.frame_id, "count": items.len(), "items": items})
}

/// A `PlanPath` answer: a path, or the error its code names.
///
/// # Errors
/// [`Error::Plan`] for a known error code; [`Error::Robot`] for an unknown code or a
/// non-finite point or length in the answer (then the strategy treats the planner as
/// absent: straight lines).
pub fn plan_from_response(r: &PlanPath::Response) -> Result<PlannedPath, Error> {
    if r.error_code != PlanPath::Response::OK as u16 {
        return Err(match PlanCode::from_code(r.error_code) {
            Some(code) => Error::Plan {
                code,
                message: r.error_msg.clone(),
            },
            None => Error::Robot {
                message: format!(
                    "PlanPath: unknown error code {}: {}",
                    r.error_code, r.error_msg
                ),
            },
        });
    }
    let points: Option<Vec<Point>> = r
        .path
        .poses
        .iter()
        .map(|p| from_ros(&p.pose.position))
        .collect();
    match points {
        Some(points) if r.length_m.is_finite() => Ok(PlannedPath {
            points,
            length_m: r.length_m,
        }),
        _ => Err(Error::Robot {
            message: "PlanPath: the answer has a non-finite point or length".into(),
        }),
    }
}

/// A `MoveTo` result: the final position on `REACHED` (or `REACHED_BY_DETOUR`), else the
/// outcome as an error.
///
/// # Errors
/// [`Error::Move`] for any outcome other than `REACHED`; [`Error::Robot`] for an
/// unknown outcome, a non-finite final position, or `REACHED` from a goal that did not
/// succeed (a server that aborts with a default result).
pub fn move_result(status: GoalStatus, r: &MoveTo::Result) -> Result<Point, Error> {
    match MoveOutcome::from_code(r.outcome) {
        Some(MoveOutcome::Reached | MoveOutcome::ReachedByDetour)
            if status != GoalStatus::Succeeded =>
        {
            Err(Error::Robot {
                message: format!(
                    "MoveTo goal ended {status:?} without an outcome: {}",
                    r.message
                ),
            })
        }
        Some(MoveOutcome::Reached | MoveOutcome::ReachedByDetour) => from_ros(&r.final_position)
            .ok_or_else(|| Error::Robot {
                message: "MoveTo: non-finite final position".into(),
            }),
        Some(outcome) => Err(Error::Move {
            outcome,
            message: r.message.clone(),
        }),
        None => Err(Error::Robot {
            message: format!("MoveTo: unknown outcome {}: {}", r.outcome, r.message),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use r2r::arnie_interfaces::msg::Coordinate;
    use r2r::geometry_msgs::msg::PoseStamped;

    #[test]
    fn packets_become_json_with_parsed_fields() {
        let mut p = Packet {
            name: "ClampDone".into(),
            id: 7,
            device: 2,
            fields_json: r#"{"pos": 1}"#.into(),
            ..Default::default()
        };
        assert_eq!(
            packet_json(&p).unwrap(),
            json!({"name": "ClampDone", "id": 7, "device": 2, "fields": {"pos": 1}})
        );
        p.fields_json = String::new();
        assert_eq!(packet_json(&p).unwrap()["fields"], json!({}));
        p.fields_json = "[1]".into();
        assert!(packet_json(&p)
            .unwrap_err()
            .to_string()
            .contains("not a JSON object"));
        p.fields_json = "{".into();
        assert!(packet_json(&p).is_err());
    }

    #[test]
    fn coordinates_count_their_items() {
        let mut c = Coordinates::default();
        c.header.frame_id = "world".into();
        c.items = vec![
            Coordinate {
                values: vec![1.0, 2.0, 3.0],
            },
            Coordinate { values: vec![4.0] },
        ];
        assert_eq!(
            coordinates_json(&c),
            json!({"frame_id": "world", "count": 2, "items": [[1.0, 2.0, 3.0], [4.0]]})
        );
    }

    #[test]
    fn plan_answers() {
        let mut r = PlanPath::Response {
            length_m: 1.5,
            ..Default::default()
        };
        let pose = |x| PoseStamped {
            pose: r2r::geometry_msgs::msg::Pose {
                position: RosPoint { x, y: 0.0, z: 0.0 },
                ..Default::default()
            },
            ..Default::default()
        };
        r.path.poses = vec![pose(0.0), pose(1.5)];
        let p = plan_from_response(&r).unwrap();
        assert_eq!((p.points.len(), p.length_m), (2, 1.5));
        r.path.poses.push(pose(f64::NAN));
        assert!(matches!(plan_from_response(&r), Err(Error::Robot { .. })));
        r.error_code = PlanPath::Response::NO_PATH as u16;
        assert!(matches!(
            plan_from_response(&r),
            Err(Error::Plan {
                code: PlanCode::NoPath,
                ..
            })
        ));
        r.error_code = 99;
        assert!(matches!(plan_from_response(&r), Err(Error::Robot { .. })));
    }

    #[test]
    fn move_results() {
        let mut r = MoveTo::Result {
            final_position: RosPoint {
                x: 0.1,
                y: 0.2,
                z: 0.3,
            },
            ..Default::default()
        };
        assert_eq!(
            move_result(GoalStatus::Succeeded, &r),
            Ok(Point::new(0.1, 0.2, 0.3))
        );
        assert!(matches!(
            move_result(GoalStatus::Aborted, &r),
            Err(Error::Robot { .. })
        ));
        r.outcome = MoveTo::Result::ABORTED_HELP_NEEDED as u8;
        assert!(matches!(
            move_result(GoalStatus::Aborted, &r),
            Err(Error::Move {
                outcome: MoveOutcome::AbortedHelpNeeded,
                ..
            })
        ));
        r.outcome = 42;
        assert!(matches!(
            move_result(GoalStatus::Aborted, &r),
            Err(Error::Robot { .. })
        ));
    }
}
