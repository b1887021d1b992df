//! TF on the ROS graph: the [`Buffer`] (in `ros_model::tf`, without ROS) fed by a
//! [`Listener`], and the messages and QoS of tf2.
//!
//! [`Listener`] is the ROS side: it subscribes `/tf` (reliable, keep-last 100) and
//! `/tf_static` (reliable, transient local: every static transform, also from publishers
//! that started earlier) and keeps a shared [`Buffer`] up to date, counting the transforms
//! it refused (NaN, loops) and logging the first of each run.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion};
use r2r::geometry_msgs::msg::TransformStamped;
use r2r::tf2_msgs::msg::TFMessage;

pub use ros_model::tf::{Buffer, TfError};

/// `/tf`: dynamic transforms.
pub const TF: &str = "/tf";
/// `/tf_static`: static transforms (latched).
pub const TF_STATIC: &str = "/tf_static";

/// tf2's broadcaster QoS on `/tf`: reliable, volatile, keep last 100.
pub fn broadcaster_qos() -> r2r::QosProfile {
    r2r::QosProfile::default().reliable().keep_last(100)
}

/// tf2's static broadcaster QoS on `/tf_static`: reliable, transient local, depth 1
/// (one message holds every static transform of its publisher).
pub fn static_broadcaster_qos() -> r2r::QosProfile {
    crate::qos::latched()
}

/// tf2's listener QoS on `/tf_static`: reliable, transient local, keep last 100
/// (several static broadcasters' messages may arrive at once).
pub fn static_listener_qos() -> r2r::QosProfile {
    r2r::QosProfile::default()
        .reliable()
        .transient_local()
        .keep_last(100)
}

/// `parent` → `child` at `stamp` as a `TransformStamped`: `translation` in metres,
/// `rotation` a unit quaternion `[x, y, z, w]`.
pub fn transform_stamped(
    parent: &str,
    child: &str,
    stamp: &r2r::builtin_interfaces::msg::Time,
    translation: [f64; 3],
    rotation: [f64; 4],
) -> TransformStamped {
    use r2r::geometry_msgs::msg::{Quaternion as Q, Transform, Vector3};
    TransformStamped {
        header: r2r::std_msgs::msg::Header {
            stamp: stamp.clone(),
            frame_id: parent.to_string(),
        },
        child_frame_id: child.to_string(),
        transform: Transform {
            translation: Vector3 {
                x: translation[0],
                y: translation[1],
                z: translation[2],
            },
            rotation: Q {
                x: rotation[0],
                y: rotation[1],
                z: rotation[2],
                w: rotation[3],
            },
        },
    }
}

/// A planar pose (`x`, `y` \[m\], heading `theta` \[rad\] about z) as a
/// `TransformStamped` `parent` → `child`.
pub fn planar_transform(
    parent: &str,
    child: &str,
    stamp: &r2r::builtin_interfaces::msg::Time,
    x: f64,
    y: f64,
    theta: f64,
) -> TransformStamped {
    let (s, c) = (theta / 2.0).sin_cos();
    transform_stamped(parent, child, stamp, [x, y, 0.0], [0.0, 0.0, s, c])
}

/// `parent_T_child` of a `TransformStamped` (metres; the quaternion normalised).
///
/// # Errors
/// [`TfError::Invalid`] for a NaN or infinite value or a zero quaternion.
pub fn isometry(t: &TransformStamped) -> Result<Isometry3<f64>, TfError> {
    let (v, q) = (&t.transform.translation, &t.transform.rotation);
    let q = Quaternion::new(q.w, q.x, q.y, q.z);
    let norm = q.norm();
    if !(norm.is_finite() && norm > 1e-9 && [v.x, v.y, v.z].iter().all(|x| x.is_finite())) {
        return Err(TfError::Invalid {
            reason: format!(
                "\"{}\" -> \"{}\" has a NaN, infinite or zero-length value",
                t.header.frame_id, t.child_frame_id
            ),
        });
    }
    Ok(Isometry3::from_parts(
        Translation3::new(v.x, v.y, v.z),
        UnitQuaternion::from_quaternion(q),
    ))
}

/// A [`Buffer`] kept up to date from `/tf` and `/tf_static` (see the module doc).
#[derive(Clone)]
pub struct Listener {
    buffer: Arc<Mutex<Buffer>>,
    refused: Arc<AtomicU64>,
}

impl Listener {
    /// Subscribes `/tf` and `/tf_static` on `app`'s node; the updates run on the node's
    /// runtime until shutdown.
    ///
    /// # Errors
    /// A subscription could not be created.
    pub fn new(app: &mut crate::App, cache: Duration) -> Result<Self, crate::Error> {
        let dynamic = app.subscribe::<TFMessage>(TF, broadcaster_qos())?;
        let statics = app.subscribe::<TFMessage>(TF_STATIC, static_listener_qos())?;
        let listener = Listener {
            buffer: Arc::new(Mutex::new(Buffer::new(cache))),
            refused: Arc::new(AtomicU64::new(0)),
        };
        let _rt = app.handle().enter();
        tokio::spawn(listener.clone().feed(dynamic, false));
        tokio::spawn(listener.clone().feed(statics, true));
        Ok(listener)
    }

    async fn feed(self, mut messages: impl Stream<Item = TFMessage> + Unpin, statics: bool) {
        let mut failing = false;
        while let Some(msg) = messages.next().await {
            let mut buffer = self.buffer.lock().unwrap_or_else(|e| e.into_inner());
            for t in &msg.transforms {
                let stored = isometry(t).and_then(|iso| {
                    let (parent, child) = (t.header.frame_id.as_str(), t.child_frame_id.as_str());
                    if statics {
                        buffer.set_static(parent, child, iso)
                    } else {
                        let stamp = Duration::new(
                            u64::try_from(t.header.stamp.sec).unwrap_or(0),
                            t.header.stamp.nanosec,
                        );
                        buffer.set(parent, child, stamp, iso)
                    }
                });
                match stored {
                    Ok(()) => failing = false,
                    Err(e) => {
                        self.refused.fetch_add(1, Ordering::Relaxed);
                        if !failing {
                            crate::log_warn!(
                                "{} transform refused: {e}",
                                if statics { TF_STATIC } else { TF }
                            );
                        }
                        failing = true;
                    }
                }
            }
        }
    }

    /// `target_T_source` at `time` ([`Buffer::lookup`]).
    ///
    /// # Errors
    /// As [`Buffer::lookup`].
    pub fn lookup(
        &self,
        target: &str,
        source: &str,
        time: Option<Duration>,
    ) -> Result<Isometry3<f64>, TfError> {
        self.buffer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .lookup(target, source, time)
    }

    /// Transforms refused so far (NaN, loops, empty names).
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}
