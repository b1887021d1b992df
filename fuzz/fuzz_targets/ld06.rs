//! The LD06 LiDAR's stream (nodes/lib/ld06: `Decoder`, `Packet`, `Assembler`; the driver
//! node's `arnie_lidar::Driver` on top), and the base's reading of a scan
//! (arnie_base `avoid::scan_points`). The first byte picks the chunk size and the time
//! step between chunks (gaps included, so silences cut packets); the rest is the byte
//! stream. Properties: never a panic; every byte is accounted for (packets, garbage,
//! rejected, pending); each packet re-encodes to the 47 bytes it came from; a scan has
//! one intensity per ray, finite geometry, only NaN / ±∞ / ranges within its limits, and
//! its map points are finite.
#![no_main]
use arnie_base::{scan_points, Pose2, ScanRays};
use arnie_lidar::{Driver, LidarConfig};
use ld06::{Assembler, Decoder, Packet, ScanConfig, PACKET_LEN};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, bytes)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(ctl & 0x3f) + 1;
    let step = f64::from(ctl >> 6) * 0.04;
    let mut d = Decoder::new(0.05);
    let mut a = Assembler::new(ScanConfig::default());
    let mut driver = Driver::new(&LidarConfig::default());
    driver.opened(0.0);
    let mut t = 0.0;
    for c in bytes.chunks(chunk) {
        t += step + 0.001;
        d.push(c, t);
        while let Some(r) = d.next_packet() {
            if let Ok(p) = r {
                let b = p.encode();
                assert_eq!(Packet::decode(&b), Ok(p));
                if let Some(s) = a.push(&p, t) {
                    check(&s);
                }
            }
        }
        let (scans, _) = driver.on_bytes(c, t);
        for s in &scans {
            check(s);
        }
        driver.tick(t);
    }
    d.finish();
    while d.next_packet().is_some() {}
    let c = d.counters();
    assert_eq!(
        c.bytes,
        PACKET_LEN as u64 * (c.packets + c.bad_angle) + c.garbage_bytes + c.rejected_bytes
    );
    let _ = driver.closed(t);
});

fn check(s: &ld06::Scan) {
    assert_eq!(s.ranges.len(), s.intensities.len());
    assert!(!s.ranges.is_empty());
    for v in [s.stamp_s, s.angle_min, s.angle_max, s.angle_increment, s.time_increment, s.scan_time] {
        assert!(v.is_finite(), "{s:?}");
    }
    for r in &s.ranges {
        let r = f64::from(*r);
        assert!(r.is_nan() || r.is_infinite() || (s.range_min..=s.range_max).contains(&r), "{r}");
    }
    let rays = ScanRays {
        angle_min: s.angle_min,
        angle_increment: s.angle_increment,
        range_min: s.range_min,
        range_max: s.range_max,
        ranges: &s.ranges,
    };
    let p = scan_points(&rays, Pose2::new(0.0, 0.0, 0.3), Pose2::new(1.5, 1.0, -2.0));
    assert!(p.points.iter().all(|(x, y)| x.is_finite() && y.is_finite()));
}
