//! `arnie_bag info`: the content and layout of `ros2 bag info` (rosbag2 Jazzy
//! `format_bag_metadata.cpp`), and the same facts as JSON.
//!
//! As in rosbag2, a bag folder's information comes from its `metadata.yaml` alone (so it
//! works on a bag still being recorded), its size is the size of the folder's files, and
//! a bare `.mcap` file is described from its summary. Dates are local time.

use std::path::Path;

use serde_json::json;

use crate::bag::{dir_size, metadata_from_mcap};
use crate::error::{BagError, Result};
use crate::mcap::McapFile;
use crate::metadata::{BagMetadata, TopicInformation};

/// What `info` shows about a bag.
#[derive(Debug, Clone, PartialEq)]
pub struct BagInfo {
    /// The bag's `metadata.yaml` (rebuilt from the files when it has none).
    pub metadata: BagMetadata,
    /// Bytes of the folder's files (or of the bare file).
    pub bag_size: u64,
}

impl BagInfo {
    /// Reads a bag folder's `metadata.yaml`, or a bare `.mcap` file's summary.
    pub fn read(path: impl AsRef<Path>) -> Result<BagInfo> {
        let path = path.as_ref();
        let md = std::fs::metadata(path).map_err(|e| BagError::io(path, e))?;
        if md.is_dir() {
            let metadata = BagMetadata::read_dir(path)?;
            return Ok(BagInfo {
                metadata,
                bag_size: dir_size(path),
            });
        }
        let file = McapFile::open(path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(BagInfo {
            metadata: metadata_from_mcap(&file, &name)?,
            bag_size: md.len(),
        })
    }

    /// The `ros2 bag info` text, dates in the machine's local time.
    pub fn render(&self) -> String {
        self.render_with(local_utc_offset)
    }

    /// The `ros2 bag info` text, dates shifted by `utc_offset(seconds since epoch)`
    /// seconds (`|_| 0` for UTC).
    pub fn render_with(&self, utc_offset: impl Fn(i64) -> i64) -> String {
        let m = &self.metadata;
        let ind = " ".repeat(19);
        let mut s = String::from("\n");
        s += "Files:             ";
        if m.relative_file_paths.is_empty() {
            s += "\n";
        } else {
            for (i, p) in m.relative_file_paths.iter().enumerate() {
                if i > 0 {
                    s += &ind;
                }
                s += p;
                s += "\n";
            }
        }
        let (services, service_msgs) = services(&m.topics_with_message_count);
        let distro = if m.ros_distro.is_empty() {
            "unknown"
        } else {
            &m.ros_distro
        };
        let start = m.starting_time_ns;
        let end = m.end_time_ns();
        s += &format!("Bag size:          {}\n", format_size(self.bag_size));
        s += &format!("Storage id:        {}\n", m.storage_identifier);
        s += &format!("ROS Distro:        {distro}\n");
        s += &format!("Duration:          {}s\n", seconds(m.duration_ns));
        s += &format!("Start:             {}\n", time_point(start, &utc_offset));
        s += &format!("End:               {}\n", time_point(end, &utc_offset));
        s += &format!(
            "Messages:          {}\n",
            m.message_count.saturating_sub(service_msgs)
        );
        s += "Topic information: ";
        let topics: Vec<_> = m
            .topics_with_message_count
            .iter()
            .filter(|t| !is_service_event(t))
            .collect();
        if topics.is_empty() {
            s += "\n";
        }
        for (i, t) in topics.iter().enumerate() {
            if i > 0 {
                s += &ind;
            }
            let tm = &t.topic_metadata;
            s += &format!(
                "Topic: {} | Type: {} | Count: {} | Serialization Format: {}\n",
                tm.name, tm.type_name, t.message_count, tm.serialization_format
            );
        }
        s += &format!("Service:           {}\n", services.len());
        s += "Service information: ";
        let ind2 = " ".repeat(21);
        for (i, (name, ty, count, fmt)) in services.iter().enumerate() {
            if i > 0 {
                s += &ind2;
            }
            s += &format!("Service: {name} | Type: {ty} | Event Count: {count} | Serialization Format: {fmt}\n");
        }
        s
    }

    /// The same facts as JSON (times in ns since the epoch, QoS in the v9 names).
    pub fn to_json(&self) -> serde_json::Value {
        let m = &self.metadata;
        let topics: Vec<_> = m
            .topics_with_message_count
            .iter()
            .map(|t| {
                let tm = &t.topic_metadata;
                let qos =
                    crate::yaml::parse(&crate::qos::profiles_to_yaml(&tm.offered_qos_profiles, 9))
                        .ok()
                        .map(|y| yaml_to_json(&y))
                        .unwrap_or(json!([]));
                json!({
                    "name": tm.name,
                    "type": tm.type_name,
                    "message_count": t.message_count,
                    "serialization_format": tm.serialization_format,
                    "type_description_hash": tm.type_description_hash,
                    "offered_qos_profiles": qos,
                })
            })
            .collect();
        json!({
            "files": m.relative_file_paths,
            "bag_size": self.bag_size,
            "storage_identifier": m.storage_identifier,
            "ros_distro": m.ros_distro,
            "version": m.version,
            "duration_ns": m.duration_ns,
            "starting_time_ns": m.starting_time_ns,
            "end_time_ns": m.end_time_ns(),
            "message_count": m.message_count,
            "topics": topics,
            "files_detail": m.files.iter().map(|f| json!({
                "path": f.path, "starting_time_ns": f.starting_time_ns,
                "duration_ns": f.duration_ns, "message_count": f.message_count,
            })).collect::<Vec<_>>(),
            "custom_data": m.custom_data,
            "compression_format": m.compression_format,
            "compression_mode": m.compression_mode,
        })
    }
}

fn yaml_to_json(y: &yaml_rust2::Yaml) -> serde_json::Value {
    use yaml_rust2::Yaml;
    match y {
        Yaml::Array(a) => a.iter().map(yaml_to_json).collect(),
        Yaml::Hash(h) => h
            .iter()
            .filter_map(|(k, v)| Some((crate::yaml::as_string(k)?, yaml_to_json(v))))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        Yaml::Integer(i) => json!(i),
        Yaml::Boolean(b) => json!(b),
        Yaml::String(s) | Yaml::Real(s) => json!(s),
        _ => serde_json::Value::Null,
    }
}

fn is_service_event(t: &TopicInformation) -> bool {
    let tm = &t.topic_metadata;
    crate::filter::is_service_event(&tm.name, &tm.type_name)
}

type ServiceLine = (String, String, u64, String);

fn services(topics: &[TopicInformation]) -> (Vec<ServiceLine>, u64) {
    let mut out = Vec::new();
    let mut total = 0;
    for t in topics.iter().filter(|t| is_service_event(t)) {
        let tm = &t.topic_metadata;
        let name = crate::filter::service_of_event_topic(&tm.name).to_string();
        let ty = crate::filter::service_of_event_type(&tm.type_name).to_string();
        total += t.message_count;
        out.push((name, ty, t.message_count, tm.serialization_format.clone()));
    }
    (out, total)
}

/// rosbag2's `format_file_size`: B, KiB, MiB, GiB, TiB, one decimal past bytes.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut size = bytes as f64;
    let mut i = 0;
    while size >= 1024.0 && i < 4 {
        size /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{size:.0} {}", UNITS[i])
    } else {
        format!("{size:.1} {}", UNITS[i])
    }
}

fn seconds(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `Mon dd YYYY HH:MM:SS.nnnnnnnnn (secs.nnnnnnnnn)` (`%b %e %Y %H:%M:%S`).
fn time_point(ns: u64, utc_offset: &impl Fn(i64) -> i64) -> String {
    let secs = (ns / 1_000_000_000) as i64;
    let frac = ns % 1_000_000_000;
    let local = secs + utc_offset(secs);
    let days = local.div_euclid(86_400);
    let sod = local.rem_euclid(86_400);
    let (y, mo, d) = civil_from_days(days);
    format!(
        "{} {:>2} {} {:02}:{:02}:{:02}.{:09} ({}.{:09})",
        MONTHS[(mo - 1) as usize],
        d,
        y,
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        frac,
        secs,
        frac
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant).
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The machine's UTC offset at `secs` (localtime_r's `tm_gmtoff`), 0 when unknown.
pub fn local_utc_offset(secs: i64) -> i64 {
    let t: libc::time_t = secs as libc::time_t;
    // SAFETY: localtime_r writes only into the `tm` we pass; both pointers are valid.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return 0;
        }
        tm.tm_gmtoff as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::TopicMetadata;

    #[test]
    fn layout_matches_ros2_bag_info() {
        let t = |name: &str, ty: &str, n| TopicInformation {
            topic_metadata: TopicMetadata {
                name: name.into(),
                type_name: ty.into(),
                serialization_format: "cdr".into(),
                offered_qos_profiles: vec![],
                type_description_hash: String::new(),
            },
            message_count: n,
        };
        let info = BagInfo {
            bag_size: 13_271,
            metadata: BagMetadata {
                version: 8,
                duration_ns: 70_653_944,
                starting_time_ns: 1_699_345_836_270_074_454,
                message_count: 10,
                topics_with_message_count: vec![
                    t(
                        "/events/write_split",
                        "rosbag2_interfaces/msg/WriteSplitEvent",
                        0,
                    ),
                    t(
                        "/test_service1/_service_event",
                        "test_msgs/srv/BasicTypes_Event",
                        4,
                    ),
                    t("/test_topic1", "test_msgs/msg/Strings", 1),
                ],
                relative_file_paths: vec!["b.mcap".into()],
                ..BagMetadata::default()
            },
        };
        let want = "\nFiles:             b.mcap\nBag size:          13.0 KiB\nStorage id:        mcap\nROS Distro:        unknown\nDuration:          0.070653944s\nStart:             Nov  7 2023 08:30:36.270074454 (1699345836.270074454)\nEnd:               Nov  7 2023 08:30:36.340728398 (1699345836.340728398)\nMessages:          6\nTopic information: Topic: /events/write_split | Type: rosbag2_interfaces/msg/WriteSplitEvent | Count: 0 | Serialization Format: cdr\n                   Topic: /test_topic1 | Type: test_msgs/msg/Strings | Count: 1 | Serialization Format: cdr\nService:           1\nService information: Service: /test_service1 | Type: test_msgs/srv/BasicTypes | Event Count: 4 | Serialization Format: cdr\n";
        assert_eq!(info.render_with(|_| 0), want);
        let j = info.to_json();
        assert_eq!(j["message_count"], 10);
        assert_eq!(j["topics"][2]["name"], "/test_topic1");
    }

    #[test]
    fn sizes_and_dates() {
        assert_eq!(format_size(512), "512 B");
        assert_eq!(format_size(1536), "1.5 KiB");
        assert_eq!(format_size(3 << 30), "3.0 GiB");
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(
            time_point(0, &|_| 3600),
            "Jan  1 1970 01:00:00.000000000 (0.000000000)"
        );
    }
}
