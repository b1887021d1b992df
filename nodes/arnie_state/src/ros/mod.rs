//! The ROS 2 side of the `arnie_state` node (feature `ros`): the only module that uses
//! r2r. The binary only calls [`run`].
//!
//! What robot_state_publisher does, for the arm whose controller reports its tool's
//! position instead of joint angles:
//! - `robot_description` (std_msgs/String, reliable, transient local, depth 1): the URDF
//!   text, once at start, as robot_state_publisher serves it (rviz's RobotModel and
//!   Foxglove's 3D panel read it);
//! - `/tf_static` (tf2_msgs/TFMessage, reliable, transient local, depth 1, as tf2's
//!   static broadcaster): every fixed joint, once at start;
//! - on each `arm/position` (geometry_msgs/PointStamped, best effort, depth 5; metres,
//!   in `world` from the spine, or in the URDF's root link): `joint_states`
//!   (sensor_msgs/JointState, reliable, depth 10) with the three stage joints'
//!   positions \[m\], and `/tf` (tf2_msgs/TFMessage, reliable, volatile, depth 100, as
//!   tf2's broadcaster) with their transforms, both stamped with the position's stamp;
//! - subscribes `/tf_static` (reliable, transient local, depth 100, as tf2's listener)
//!   to learn the root link's parent (the spine's `world` → `arm`), which places
//!   positions given in that parent frame.
//!
//! A position with a non-finite coordinate or in a frame the node cannot place is
//! dropped, counted (`positions_not_finite`, `positions_unknown_frame`) and logged
//! (rate-limited). A URDF that does not parse, or whose way to `tool_link` is not a
//! three-axis Cartesian stage, stops the node at start (exit code 2) naming the file (or
//! the parameter) and the line.
//!
//! `/tf` and `/tf_static` are absolute, as tf2 has them; two arms under two namespaces
//! keep apart by remapping both into the namespace (`/tf:=tf`, `/tf_static:=tf_static`),
//! as multi-robot ROS 2 set-ups do (the launch file does it).
//!
//! Layout: `params` (the parameters), `counters` (`/diagnostics`).
mod counters;
mod params;

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use node_glue::r2r::builtin_interfaces::msg::Time;
use node_glue::r2r::geometry_msgs::msg::{PointStamped, TransformStamped};
use node_glue::r2r::sensor_msgs::msg::JointState;
use node_glue::r2r::std_msgs::msg::{Header, String as RosString};
use node_glue::r2r::tf2_msgs::msg::TFMessage;
use node_glue::ratelimit::RateLimit;
use node_glue::{qos, topics, App, Error};

use crate::{Frame, Rejected, RobotState, StageError, Urdf, UrdfError};
use counters::Counters;
use params::{StateParams, RULES};

/// Why the node cannot start, beyond its parameters and ROS (the line it exits with).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `robot_description_file` cannot be read.
    #[error("robot_description_file {file}: {source}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The robot description does not parse.
    #[error("{description}: {source}")]
    Parse {
        /// Where it came from (`parameter robot_description`, `robot_description_file <file>`).
        description: String,
        /// Why (with the line).
        source: UrdfError,
    },
    /// The stage does not reach `tool_link`.
    #[error("{description}: tool_link {tool_link}: {source}")]
    ToolLink {
        /// Where the description came from.
        description: String,
        /// The link asked for.
        tool_link: String,
        /// Why.
        source: StageError,
    },
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Self {
        Error::node(e)
    }
}

/// The node's name (`main_with`; the logger is the node's).
pub const NODE: &str = "state_publisher";

/// The robot description topic (relative, as robot_state_publisher's).
pub const ROBOT_DESCRIPTION: &str = "robot_description";
/// The joint states topic (relative, as robot_state_publisher's input).
pub const JOINT_STATES: &str = "joint_states";
/// The transforms topics (absolute, as tf2's).
pub use node_glue::tf::{TF, TF_STATIC};

/// Reads the URDF and checks its stage; returns it with its text (served as it is).
/// `Err` names the parameter or file and the line.
fn load(p: &StateParams) -> Result<(Urdf, String, String), Error> {
    let (source, text) = if !p.robot_description.is_empty() {
        (
            "parameter robot_description".to_string(),
            p.robot_description.clone(),
        )
    } else {
        let file = &p.robot_description_file;
        let text = std::fs::read_to_string(file).map_err(|source| SetupError::Read {
            file: file.clone(),
            source,
        })?;
        (format!("robot_description_file {file}"), text)
    };
    let urdf = Urdf::parse(&text).map_err(|e| SetupError::Parse {
        description: source.clone(),
        source: e,
    })?;
    Ok((urdf, text, source))
}

/// The stage of `urdf` ending at `tool_link`.
fn stage(urdf: Urdf, source: &str, p: &StateParams) -> Result<RobotState, Error> {
    let state = RobotState::new(urdf, &p.tool_link).map_err(|e| SetupError::ToolLink {
        description: source.to_string(),
        tool_link: p.tool_link.clone(),
        source: e,
    })?;
    node_glue::log_info!(
        "robot '{}' from {source}: {} links, root '{}', stage joints {:?}, tool '{}'",
        state.urdf().name,
        state.urdf().links.len(),
        state.urdf().root,
        state.joint_names(),
        p.tool_link
    );
    Ok(state)
}

fn transform(f: &Frame, stamp: &Time) -> TransformStamped {
    node_glue::tf::transform_stamped(&f.parent, &f.child, stamp, f.translation, f.rotation)
}

/// Runs the node until shutdown, then exits the process (exit 2 when it cannot start,
/// naming the reason). All the binary calls.
pub fn run() -> ! {
    node_glue::main_with(NODE, setup)
}

/// Creates the node's publishers, subscriptions and task (`node_glue::main_with(NODE, setup)`).
///
/// # Errors
/// No robot description, one that cannot be read or parsed (naming the file or the
/// parameter and the line), a tool link the stage does not reach, or a ROS entity that
/// could not be created.
pub fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters_checked(StateParams::default(), RULES)?;
    let p = params.lock()?.clone();
    let (urdf, description, source) = load(&p)?;
    if p.tool_link.is_empty() {
        return setup_static(app, &urdf, description, &source);
    }
    let state = stage(urdf, &source, &p)?;

    let latched = publish_description(app, description, &state.static_frames())?;
    let tf_pub = app
        .node
        .create_publisher::<TFMessage>(TF, node_glue::tf::broadcaster_qos())?;
    let joints_pub = app
        .node
        .create_publisher::<JointState>(JOINT_STATES, qos::commands())?;
    let positions = app.subscribe::<PointStamped>(topics::ARM_POSITION, qos::sensor())?;
    let statics = app.subscribe::<TFMessage>(TF_STATIC, node_glue::tf::static_listener_qos())?;

    let counters = Arc::new(Counters::default());
    let mount = Arc::new(std::sync::Mutex::new(None::<String>));
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    let publishers = Publishers {
        tf: tf_pub,
        joints: joints_pub,
        // Kept alive: a latched topic is served as long as its publisher lives.
        _latched: latched,
    };
    tokio::spawn(follow(
        state,
        positions,
        statics,
        publishers,
        counters.clone(),
        mount.clone(),
        shutdown.clone(),
    ));
    diagnostics.spawn_periodic(Duration::from_secs(1), shutdown, move || {
        let m = mount.lock().unwrap_or_else(|p| p.into_inner()).clone();
        vec![counters.status(m.as_deref())]
    });
    Ok(())
}

/// A robot without a stage (`tool_link` empty: the Eurobot base): the description and
/// the fixed joints, served as long as the node runs. A moving joint has no source of
/// positions here, so it is not published: named in a warning.
fn setup_static(
    app: &mut App,
    urdf: &Urdf,
    description: String,
    source: &str,
) -> Result<(), Error> {
    let moving: Vec<&str> = urdf
        .joints
        .iter()
        .filter(|j| j.kind.moves())
        .map(|j| j.name.as_str())
        .collect();
    if !moving.is_empty() {
        node_glue::log_warn!(
            "{source}: joints {moving:?} move, but without tool_link nothing gives their positions: their links are not on TF"
        );
    }
    node_glue::log_info!(
        "robot '{}' from {source}: {} links, root '{}', no stage (tool_link is empty)",
        urdf.name,
        urdf.links.len(),
        urdf.root
    );
    let latched = publish_description(app, description, &crate::stage::fixed_frames(urdf))?;
    let counters = Arc::new(Counters::default());
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    let keep = shutdown.clone();
    tokio::spawn(async move {
        // A latched topic is served as long as its publisher lives.
        let _latched = latched;
        keep.wait().await;
    });
    diagnostics.spawn_periodic(Duration::from_secs(1), shutdown, move || {
        vec![counters.status(Some("(no stage: description and fixed joints only)"))]
    });
    Ok(())
}

/// Serves the description on `robot_description` and the fixed joints on `/tf_static`
/// (both latched, as robot_state_publisher); returns the publishers, to be kept alive.
fn publish_description(
    app: &mut App,
    description: String,
    fixed: &[Frame],
) -> Result<Latched, Error> {
    let description_pub = app
        .node
        .create_publisher::<RosString>(ROBOT_DESCRIPTION, qos::latched())?;
    let static_pub = app
        .node
        .create_publisher::<TFMessage>(TF_STATIC, node_glue::tf::static_broadcaster_qos())?;
    description_pub.publish(&RosString { data: description })?;
    let now = node_glue::time::now();
    if !fixed.is_empty() {
        static_pub.publish(&TFMessage {
            transforms: fixed.iter().map(|f| transform(f, &now)).collect(),
        })?;
    }
    node_glue::log_info!(
        "{ROBOT_DESCRIPTION} published; {TF_STATIC}: [{}]",
        fixed
            .iter()
            .map(|f| format!("{} -> {}", f.parent, f.child))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok((description_pub, static_pub))
}

/// The latched publishers: served as long as they live.
type Latched = (
    node_glue::r2r::Publisher<RosString>,
    node_glue::r2r::Publisher<TFMessage>,
);

/// The publishers the task uses.
struct Publishers {
    tf: node_glue::r2r::Publisher<TFMessage>,
    joints: node_glue::r2r::Publisher<JointState>,
    _latched: Latched,
}

/// Turns every position into a joint state and transforms; learns the root's mount
/// from `/tf_static`; until shutdown.
async fn follow(
    mut state: RobotState,
    mut positions: impl futures::Stream<Item = PointStamped> + Unpin,
    mut statics: impl futures::Stream<Item = TFMessage> + Unpin,
    publishers: Publishers,
    counters: Arc<Counters>,
    mount: Arc<std::sync::Mutex<Option<String>>>,
    shutdown: node_glue::Shutdown,
) {
    let limit = RateLimit::default();
    let names: Vec<String> = state.joint_names().map(String::from).to_vec();
    loop {
        tokio::select! {
            _ = shutdown.wait() => break,
            m = statics.next() => {
                let Some(m) = m else { break };
                for t in &m.transforms {
                    let Ok(p) = node_glue::tf::isometry(t) else {
                        node_glue::warn_limited!(limit, "static", "{TF_STATIC}: ignored {} -> {} (not finite, or a zero quaternion)", t.header.frame_id, t.child_frame_id);
                        continue;
                    };
                    if state.set_mount(&t.header.frame_id, &t.child_frame_id, p) {
                        node_glue::log_info!(
                            "{TF_STATIC}: root link '{}' is mounted in '{}': positions in '{}' are placed through it",
                            t.child_frame_id, t.header.frame_id, t.header.frame_id
                        );
                        *mount.lock().unwrap_or_else(|p| p.into_inner()) =
                            Some(t.header.frame_id.clone());
                    }
                }
            }
            m = positions.next() => {
                let Some(m) = m else { break };
                counters.positions.inc();
                let p = [m.point.x, m.point.y, m.point.z];
                match state.on_position(&m.header.frame_id, p) {
                    Ok(sample) => {
                        let stamp = m.header.stamp;
                        let joints = JointState {
                            header: Header { stamp: stamp.clone(), frame_id: String::new() },
                            name: names.clone(),
                            position: sample.positions.to_vec(),
                            velocity: Vec::new(),
                            effort: Vec::new(),
                        };
                        let tf = TFMessage {
                            transforms: sample.transforms.iter().map(|f| transform(f, &stamp)).collect(),
                        };
                        match publishers.joints.publish(&joints) {
                            Ok(()) => counters.joint_states_published.inc(),
                            Err(e) => {
                                counters.publish_errors.inc();
                                node_glue::warn_limited!(limit, "publish", "{JOINT_STATES}: {e}");
                            }
                        }
                        match publishers.tf.publish(&tf) {
                            Ok(()) => counters.tf_published.inc(),
                            Err(e) => {
                                counters.publish_errors.inc();
                                node_glue::warn_limited!(limit, "publish", "{TF}: {e}");
                            }
                        }
                    }
                    Err(r @ Rejected::NotFinite) => {
                        counters.positions_not_finite.inc();
                        node_glue::warn_limited!(limit, "nan", "{}: dropped a position ({r})", topics::ARM_POSITION);
                    }
                    Err(r @ Rejected::UnknownFrame { .. }) => {
                        counters.positions_unknown_frame.inc();
                        node_glue::warn_limited!(limit, "frame", "{}: dropped a position ({r})", topics::ARM_POSITION);
                    }
                }
            }
        }
    }
}
