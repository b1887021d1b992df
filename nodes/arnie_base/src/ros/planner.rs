//! The planner's services, called from helper tasks so the control task never waits:
//! `planner/plan_path` (a path for the navigator) and `planner/update_map` (a mark
//! around an obstacle the sensors saw).
use std::time::Duration;

use node_glue::r2r::{
    self,
    arnie_interfaces::{srv::PlanPath, srv::UpdateMap},
    geometry_msgs::msg::Point,
};
use node_glue::topics;

use super::UPDATE_MAP;
use crate::{PlanFailure, PlanReply};

fn point(p: (f64, f64)) -> Point {
    Point {
        x: p.0,
        y: p.1,
        z: 0.0,
    }
}

/// One `plan_path` call (waits for the service, then for the answer, within `timeout`).
pub(super) async fn plan(
    client: &r2r::Client<PlanPath::Service>,
    start: (f64, f64),
    goal: (f64, f64),
    timeout: Duration,
) -> PlanReply {
    let call = async {
        r2r::Node::is_available(client)?.await?;
        let req = PlanPath::Request {
            start: point(start),
            goal: point(goal),
            simplify: true,
            smooth: true,
        };
        client.request(&req)?.await
    };
    match tokio::time::timeout(timeout, call).await {
        Err(_) => PlanReply::Failed(
            PlanFailure::Unavailable,
            format!(
                "the planner ({}) did not answer within {:.1} s",
                topics::PLAN_PATH,
                timeout.as_secs_f64()
            ),
        ),
        Ok(Err(e)) => PlanReply::Failed(
            PlanFailure::Unavailable,
            format!("the planner ({}): {e}", topics::PLAN_PATH),
        ),
        Ok(Ok(resp)) => match PlanFailure::from_code(resp.error_code) {
            None => PlanReply::Path(
                resp.path
                    .poses
                    .iter()
                    .map(|p| (p.pose.position.x, p.pose.position.y))
                    .collect(),
            ),
            Some(why) => PlanReply::Failed(why, resp.error_msg),
        },
    }
}

/// A path through `points` (the start, then each pose in order): one `plan_path` call
/// per leg, in turn, within `timeout` each; the first failed leg's failure, its message
/// naming the leg when there are several.
pub(super) async fn plan_route(
    client: &r2r::Client<PlanPath::Service>,
    points: &[(f64, f64)],
    timeout: Duration,
) -> PlanReply {
    let mut legs = Vec::with_capacity(points.len().saturating_sub(1));
    for (i, leg) in points.windows(2).enumerate() {
        match plan(client, leg[0], leg[1], timeout).await {
            PlanReply::Path(p) => legs.push(p),
            PlanReply::Failed(why, msg) if points.len() == 2 => return PlanReply::Failed(why, msg),
            PlanReply::Failed(why, msg) => {
                return PlanReply::Failed(
                    why,
                    format!("leg {} of {} (to pose {i}): {msg}", i + 1, points.len() - 1),
                )
            }
            PlanReply::Legs(mut l) => legs.append(&mut l),
        }
    }
    PlanReply::Legs(legs)
}

/// One `update_map` call; true when the planner answered OK.
pub(super) async fn mark(
    client: &r2r::Client<UpdateMap::Service>,
    centers: Vec<(f64, f64)>,
    radius_m: f64,
    ttl_s: f64,
    timeout: Duration,
) -> bool {
    let call = async {
        r2r::Node::is_available(client)?.await?;
        let req = UpdateMap::Request {
            centers: centers.into_iter().map(point).collect(),
            radius_m,
            clear: false,
            ttl_s,
        };
        client.request(&req)?.await
    };
    match tokio::time::timeout(timeout, call).await {
        Ok(Ok(resp)) if resp.outcome == arnie_constants::srv::update_map::response::OK => true,
        Ok(Ok(resp)) => {
            node_glue::log_warn!("{UPDATE_MAP} refused the mark: {}", resp.message);
            false
        }
        Ok(Err(e)) => {
            node_glue::log_warn!("{UPDATE_MAP}: {e}");
            false
        }
        Err(_) => {
            node_glue::log_warn!(
                "{UPDATE_MAP} did not answer within {:.1} s",
                timeout.as_secs_f64()
            );
            false
        }
    }
}
