use super::*;
use crate::Point;

const STEP_DEG: f64 = 0.8; // 3600 °/s at 4500 samples/s

/// Consecutive packets from device angle `from_deg`, 12 points 0.8° apart each, with the
/// distance at each device angle from `dist`, arriving at 10 Hz's rate from `t0`.
fn sweep(from_deg: f64, packets: usize, t0: f64, dist: impl Fn(f64) -> u16) -> Vec<(Packet, f64)> {
    (0..packets)
        .map(|j| {
            let a0 = from_deg + (j * 12) as f64 * STEP_DEG;
            let mut p = Packet {
                speed_deg_s: 3600,
                start_angle_cdeg: ((a0 * 100.0).round() as i64).rem_euclid(36_000) as u16,
                end_angle_cdeg: (((a0 + 11.0 * STEP_DEG) * 100.0).round() as i64).rem_euclid(36_000)
                    as u16,
                timestamp_ms: 0,
                ..Packet::default()
            };
            for (i, pt) in p.points.iter_mut().enumerate() {
                let a = (a0 + i as f64 * STEP_DEG).rem_euclid(360.0);
                *pt = Point {
                    distance_mm: dist(a),
                    intensity: 180,
                };
            }
            (p, t0 + (j + 1) as f64 * 12.0 / 4500.0)
        })
        .collect()
}

/// A box 0.5 m away between device angles 80° and 100°, a wall at 2 m elsewhere.
fn room(a: f64) -> u16 {
    if (80.0..=100.0).contains(&a) {
        500
    } else {
        2000
    }
}

fn run(asm: &mut Assembler, packets: &[(Packet, f64)]) -> Vec<Scan> {
    packets
        .iter()
        .filter_map(|(p, t)| asm.push(p, *t))
        .collect()
}

fn ray_near(scan: &Scan, laser_angle: f64) -> f32 {
    let i = (0..scan.ranges.len())
        .min_by(|&a, &b| {
            let da = wrap(scan.angle(a) - laser_angle).abs();
            let db = wrap(scan.angle(b) - laser_angle).abs();
            da.total_cmp(&db)
        })
        .unwrap();
    scan.ranges[i]
}

#[test]
fn one_scan_per_revolution_in_measurement_order() {
    let mut asm = Assembler::new(ScanConfig::default());
    // Three and a half revolutions from device angle 10°.
    let scans = run(&mut asm, &sweep(10.0, 131, 0.0, room));
    // The cut (laser π = device 180°) is crossed at 180°, 540°, 900° and 1260°: before
    // the first crossing the revolution began mid-way (partial, dropped), then three
    // whole ones.
    assert_eq!(scans.len(), 3, "{:?}", asm.counters());
    assert_eq!(asm.counters().partial_revolutions, 1);
    for s in &scans {
        assert_eq!(s.ranges.len(), 450);
        assert!(
            wrap(s.angle_min - PI).abs() <= STEP_DEG.to_radians(),
            "{}",
            s.angle_min
        );
        assert!(
            (s.angle_increment + STEP_DEG.to_radians()).abs() < 1e-9,
            "clockwise"
        );
        assert!((s.scan_time - 0.1).abs() < 1e-3, "{}", s.scan_time);
        assert!((s.time_increment - 0.1 / 450.0).abs() < 1e-6);
        assert_eq!(s.finite_rays(), 450);
        // The device's 90° (clockwise) is the laser frame's -90°: the right-hand side.
        assert_eq!(ray_near(s, -FRAC_PI_2), 0.5);
        assert_eq!(ray_near(s, FRAC_PI_2), 2.0);
        assert_eq!(ray_near(s, 0.0), 2.0);
        assert!((s.angle_max - (s.angle_min + s.angle_increment * 449.0)).abs() < 1e-12);
    }
    // Consecutive scans are one revolution apart.
    assert!((scans[1].stamp_s - scans[0].stamp_s - 0.1).abs() < 2e-3);
}

use std::f64::consts::FRAC_PI_2;

#[test]
fn the_stamp_is_the_first_ray_s_time() {
    let mut asm = Assembler::new(ScanConfig::default());
    let packets = sweep(0.0, 120, 5.0, room);
    let scans = run(&mut asm, &packets);
    let s = &scans[0];
    // Device 180° (the cut) was measured at 180/3600 s + k revolutions after device 0°,
    // which the first packet's first point saw at 5.0 + 12/4500 - 11 * 0.8/3600.
    let t_dev0 = 5.0 + 12.0 / 4500.0 - 11.0 * STEP_DEG / 3600.0;
    let want = t_dev0 + 0.05;
    assert!((s.stamp_s - want).abs() < 1e-3, "{} vs {want}", s.stamp_s);
}

#[test]
fn a_lost_packet_leaves_nan_and_shifts_nothing() {
    let mut packets = sweep(0.0, 130, 0.0, room);
    // Lose a packet in the middle of the second revolution (device 0..10° region).
    let lost = packets
        .iter()
        .position(|(p, _)| p.start_angle_cdeg == 86 * 100 + 40)
        .unwrap_or(45);
    packets.remove(lost + 38);
    let mut asm = Assembler::new(ScanConfig::default());
    let scans = run(&mut asm, &packets);
    let s = &scans[0];
    let nan = s.ranges.iter().filter(|r| r.is_nan()).count();
    assert!((11..=13).contains(&nan), "{nan} NaN rays");
    assert_eq!(
        ray_near(s, -FRAC_PI_2),
        0.5,
        "bins after the gap are where they were"
    );
    assert_eq!(ray_near(s, FRAC_PI_2), 2.0);
}

#[test]
fn special_values_follow_rep_117() {
    let cfg = ScanConfig {
        range_min_m: 0.1,
        range_max_m: 1.5,
        min_intensity: 100,
        ..ScanConfig::default()
    };
    // 0 (no return) around device 0°, 50 mm at 45°, 3 m at 270°.
    let dist = |a: f64| match a {
        a if a < 5.0 => 0,
        a if (40.0..50.0).contains(&a) => 50,
        a if (265.0..275.0).contains(&a) => 3000,
        _ => 1000,
    };
    let mut asm = Assembler::new(cfg);
    let scans = run(&mut asm, &sweep(0.0, 120, 0.0, dist));
    let s = &scans[0];
    assert!(ray_near(s, 0.0 - 2.0f64.to_radians()).is_nan());
    assert_eq!(ray_near(s, -45f64.to_radians()), f32::NEG_INFINITY);
    assert_eq!(ray_near(s, -270f64.to_radians()), f32::INFINITY);
    assert_eq!(ray_near(s, -180f64.to_radians()), 1.0);
    assert!(s.no_return > 0);
    // Too weak: NaN.
    let weak = |_a: f64| 1000;
    let mut asm = Assembler::new(ScanConfig {
        min_intensity: 200,
        ..ScanConfig::default()
    });
    let scans = run(&mut asm, &sweep(0.0, 120, 0.0, weak));
    assert_eq!(scans[0].finite_rays(), 0);
}

#[test]
fn the_mounting_turns_device_angles_into_the_laser_frame() {
    // Upside down, its 0° mark pointing left: device a → laser π/2 + a.
    let cfg = ScanConfig {
        mounting: Mounting {
            angle_offset_rad: FRAC_PI_2,
            clockwise: false,
        },
        cut_angle_rad: 0.0,
        ..ScanConfig::default()
    };
    let mut asm = Assembler::new(cfg);
    let scans = run(&mut asm, &sweep(0.0, 120, 0.0, room));
    let s = &scans[0];
    assert!(s.angle_increment > 0.0);
    assert!(s.angle_min.abs() < 0.8f64.to_radians());
    // The box at device 90° is at laser π.
    assert_eq!(ray_near(s, PI), 0.5);
    assert_eq!(ray_near(s, 0.0), 2.0);
}

#[test]
fn a_silence_drops_the_revolution_in_progress() {
    let mut asm = Assembler::new(ScanConfig::default());
    let mut packets = sweep(0.0, 60, 0.0, room);
    // 1 s of silence, then the stream again from elsewhere.
    packets.extend(sweep(200.0, 100, 1.0, room));
    let scans = run(&mut asm, &packets);
    // Dropped: 0°..180° (began mid-way), 540°..576° (cut by the silence), 200°..540°
    // after it (began mid-way). Whole: 180°..540° before, 540°..900° after.
    assert_eq!(
        asm.counters().partial_revolutions,
        3,
        "{:?}",
        asm.counters()
    );
    assert_eq!(scans.len(), 2);
    assert!(scans.iter().all(|s| s.finite_rays() == 450));
    assert!(scans[1].stamp_s > 1.0);
}

#[test]
fn config_checks_name_the_parameter() {
    ScanConfig::default().check().unwrap();
    let bad = ScanConfig {
        range_min_m: 2.0,
        range_max_m: 1.0,
        ..ScanConfig::default()
    };
    assert!(bad.check().unwrap_err().to_string().contains("range_min_m"));
    let bad = ScanConfig {
        cut_angle_rad: f64::NAN,
        ..ScanConfig::default()
    };
    assert!(bad
        .check()
        .unwrap_err()
        .to_string()
        .starts_with("cut_angle_rad"));
}
