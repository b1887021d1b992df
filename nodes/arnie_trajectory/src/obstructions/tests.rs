use super::*;
use proptest::prelude::*;

fn ws() -> Workspace {
    Workspace::new(
        Point3::new(-200.0, -100.0, -20.0),
        Point3::new(200.0, 200.0, 200.0),
    )
    .unwrap()
}

fn memory(ttl_ms: u64, cap: usize) -> ObstructionMemory {
    ObstructionMemory::new(ObstructionConfig::new(ttl_ms, cap, ContactModel::default()).unwrap())
}

fn field_of<T: std::fmt::Debug>(r: Result<T, TrajectoryError>) -> &'static str {
    match r {
        Err(TrajectoryError::InvalidConfig { field, .. }) => field,
        other => panic!("expected InvalidConfig, got {other:?}"),
    }
}

/// A stop moving along −x at `x` (the box face is x = −38 mm), the set-point
/// 25 mm further.
fn stop_at(x: f64) -> Contact {
    Contact {
        measured_mm: Point3::new(x, 30.0, 0.0),
        expected_mm: Point3::new(x - 25.0, 30.0, 0.0),
        moving: true,
        speed_mm_s: 100.0,
        period_ms: 10,
    }
}

fn region_at(x: f64) -> Region {
    stop_at(x).region(&ContactModel::default(), &ws()).unwrap()
}

#[test]
fn config_errors_name_the_field() {
    let m = ContactModel::default();
    assert_eq!(
        field_of(ObstructionConfig::new(0, 1, m)),
        "obstruction_ttl_ms"
    );
    assert_eq!(
        field_of(ObstructionConfig::new(1, 0, m)),
        "max_obstructions"
    );
    assert_eq!(
        field_of(ObstructionConfig::new(1, MAX_OBSTRUCTIONS + 1, m)),
        "max_obstructions"
    );
    for bad in [f64::NAN, -1.0, 2e3] {
        assert_eq!(
            field_of(ContactModel::new(bad, 5.0, 5.0, 30.0)),
            "tool_radius_mm"
        );
        assert_eq!(
            field_of(ContactModel::new(5.0, bad, 5.0, 30.0)),
            "contact_margin_mm"
        );
    }
    assert_eq!(
        field_of(ContactModel::new(5.0, 5.0, 0.0, 30.0)),
        "obstruction_min_size_mm"
    );
    assert_eq!(
        field_of(ContactModel::new(5.0, 5.0, 10.0, 9.0)),
        "obstruction_max_size_mm"
    );
    let d = ContactModel::default();
    assert_eq!(
        ContactModel::new(
            d.tool_radius_mm(),
            d.margin_mm(),
            d.min_size_mm(),
            d.max_size_mm()
        ),
        Ok(d)
    );
}

/// The case: the arm stopped on the box's face at x = −38 mm while its set-point
/// was at −63 mm. The region lies just beyond the face, sized from the evidence, and
/// leaves the target (−95, 30, 0) mm (33 mm behind the box) outside.
#[test]
fn a_stop_is_remembered_at_the_face_not_around_the_set_point() {
    let model = ContactModel::default();
    let r = region_at(-38.0);
    // s = 25 / 2 + 100 mm/s · 10 ms = 13.5 mm; centre ρ + s = 18.5 mm beyond the arm.
    assert!((r.size_mm - 13.5).abs() < 1e-9, "{r:?}");
    assert!(
        (r.centre_mm - Point3::new(-56.5, 30.0, 0.0)).norm() < 1e-9,
        "{r:?}"
    );
    assert!((r.radius_mm - (13.5 + 5.0 + 5.0)).abs() < 1e-9);
    assert_eq!(r.direction, Vector3::new(-1.0, 0.0, 0.0));
    assert_eq!(r.contact_mm, Point3::new(-38.0, 30.0, 0.0));
    // What is believed solid starts at the taper's edge, ahead of the arm...
    let near = r.centre_mm.x + r.size_mm;
    assert!(
        (near - (-38.0 - model.tool_radius_mm())).abs() < 1e-9,
        "{near}"
    );
    // ... and the target behind the box is outside the clearance (the old 60 mm ball
    // around the set-point reached x = −123 mm and swallowed it).
    let target = Point3::new(-95.0, 30.0, 0.0);
    assert!((target - r.centre_mm).norm() > r.radius_mm);
    // A faster approach or a larger lag: a larger region, never above the largest.
    let mut fast = stop_at(-38.0);
    fast.speed_mm_s = 2000.0;
    fast.expected_mm.x = -38.0 - 80.0;
    let big = fast.region(&model, &ws()).unwrap();
    assert_eq!(big.size_mm, model.max_size_mm());
}

#[test]
fn contacts_that_teach_nothing_are_refused_with_the_reason() {
    let model = ContactModel::default();
    let mut c = stop_at(-38.0);
    c.moving = false;
    let e = c.region(&model, &ws()).unwrap_err();
    assert!(matches!(e, TrajectoryError::ContactNotMoving { .. }), "{e}");
    assert!(e.to_string().contains("not moving"), "{e}");
    let mut c = stop_at(-38.0);
    c.expected_mm = c.measured_mm;
    assert!(matches!(
        c.region(&model, &ws()),
        Err(TrajectoryError::ContactNotMoving { .. })
    ));
    for bad in [f64::NAN, f64::INFINITY] {
        let mut c = stop_at(-38.0);
        c.measured_mm.y = bad;
        assert!(matches!(
            c.region(&model, &ws()),
            Err(TrajectoryError::ContactNotFinite { .. })
        ));
        let mut c = stop_at(-38.0);
        c.speed_mm_s = bad;
        assert!(matches!(
            c.region(&model, &ws()),
            Err(TrajectoryError::ContactNotFinite { .. })
        ));
    }
    let e = stop_at(-500.0).region(&model, &ws()).unwrap_err();
    assert!(
        matches!(
            e,
            TrajectoryError::ContactOutsideWorkspace { axis: 'x', .. }
        ),
        "{e}"
    );
}

#[test]
fn learn_counts_ids_and_merges_the_same_place() {
    let mut m = memory(1000, 4);
    let a = m.learn(&region_at(-38.0), 500).unwrap();
    assert!(!a.merged && a.dropped.is_none());
    let o = a.obstruction;
    assert_eq!((o.id, o.hits), (1, 1));
    assert_eq!((o.recorded_at_ms, o.expires_at_ms), (500, 1500));
    // Touched again at (almost) the same place: the same region, hit twice, TTL anew.
    let b = m.learn(&region_at(-39.0), 900).unwrap();
    assert!(b.merged);
    assert_eq!((b.obstruction.id, b.obstruction.hits), (1, 2));
    assert_eq!(b.obstruction.expires_at_ms, 1900);
    assert_eq!(m.len(), 1);
    // Another place of the face: a second region; together they describe the face.
    let mut c = stop_at(-38.0);
    c.measured_mm.y = 0.0;
    c.expected_mm.y = 0.0;
    let r = c.region(&ContactModel::default(), &ws()).unwrap();
    let d = m.learn(&r, 1000).unwrap();
    assert_eq!((d.obstruction.id, d.merged), (2, false));
    assert_eq!(m.len(), 2);
    assert!(m.contains(Point3::new(-50.0, 15.0, 0.0)), "between the two");
}

#[test]
fn a_burst_of_contacts_is_bounded() {
    let mut m = memory(1000, 8);
    // Hundreds at one place: one region.
    for _ in 0..500 {
        m.learn(&region_at(-38.0), 0).unwrap();
    }
    assert_eq!(m.len(), 1);
    assert_eq!(m.iter().next().unwrap().hits, 500);
    // Hundreds at different places: the cap, the oldest dropped and counted.
    for k in 0..300 {
        let mut c = stop_at(-38.0);
        c.measured_mm.y = -90.0 + f64::from(k);
        c.expected_mm.y = c.measured_mm.y;
        if let Ok(r) = c.region(&ContactModel::default(), &ws()) {
            m.learn(&r, 0).unwrap();
        }
        assert!(m.len() <= 8);
    }
    assert!(m.dropped_total() > 0);
}

#[test]
fn non_finite_region_is_refused_and_not_recorded() {
    let mut m = memory(1000, 4);
    let mut r = region_at(-38.0);
    r.centre_mm.y = f64::NAN;
    assert!(matches!(
        m.learn(&r, 0),
        Err(TrajectoryError::ObstructionNotFinite { .. })
    ));
    let mut r = region_at(-38.0);
    r.size_mm = f64::INFINITY;
    assert!(m.learn(&r, 0).is_err());
    assert!(m.is_empty());
}

/// Occupancy: a pass through marked space clears it; a pass beside it does nothing; a
/// pass through its edge shrinks it.
#[test]
fn a_pass_through_clears_and_a_graze_shrinks() {
    let mut m = memory(1000, 4);
    let o = m.learn(&region_at(-38.0), 0).unwrap().obstruction;
    let c = o.centre_mm;
    // Beside it, 40 mm away in y: nothing.
    assert!(m
        .free_pass(
            c + Vector3::new(30.0, 40.0, 0.0),
            c + Vector3::new(-30.0, 40.0, 0.0)
        )
        .is_empty());
    // Through its edge, 12 mm from the centre: the taper (5 mm) overlapped 6.5 mm of it.
    let p = m.free_pass(
        c + Vector3::new(30.0, 0.0, 12.0),
        c + Vector3::new(-30.0, 0.0, 12.0),
    );
    assert_eq!(p.len(), 1);
    let PassEffect::Shrunk { from_mm, to_mm } = p[0].effect else {
        panic!("{p:?}")
    };
    assert!((from_mm - 13.5).abs() < 1e-9 && (to_mm - 7.0).abs() < 1e-9);
    let now = *m.iter().next().unwrap();
    assert!((now.radius_mm - (7.0 + 10.0)).abs() < 1e-9, "{now:?}");
    // Through the middle: gone.
    let p = m.free_pass(
        c + Vector3::new(0.0, -30.0, 0.0),
        c + Vector3::new(0.0, 30.0, 0.0),
    );
    assert_eq!(p[0].effect, PassEffect::Cleared);
    assert!(m.is_empty());
    // NaN passes are ignored.
    let mut m = memory(1000, 4);
    m.learn(&region_at(-38.0), 0).unwrap();
    assert!(m
        .free_pass(Point3::new(f64::NAN, 0.0, 0.0), Point3::origin())
        .is_empty());
    assert_eq!(m.len(), 1);
}

#[test]
fn the_arm_standing_at_its_contact_clears_nothing() {
    let mut m = memory(1000, 4);
    let o = m.learn(&region_at(-38.0), 0).unwrap().obstruction;
    // At rest at the contact, then moving back the way it came.
    assert!(m.free_pass(o.contact_mm, o.contact_mm).is_empty());
    assert!(m
        .free_pass(o.contact_mm, o.contact_mm + Vector3::new(20.0, 0.0, 0.0))
        .is_empty());
    assert_eq!(m.len(), 1);
}

#[test]
fn expiry_at_exactly_the_ttl() {
    let mut m = memory(100, 4);
    m.learn(&region_at(-38.0), 0).unwrap();
    m.learn(&region_at(100.0), 50).unwrap();
    assert!(m.expire(99).is_empty());
    let gone = m.expire(100);
    assert_eq!(gone.len(), 1);
    assert_eq!(gone[0].id, 1);
    assert_eq!(m.iter().map(|o| o.id).collect::<Vec<_>>(), vec![2]);
    assert_eq!(m.expire(u64::MAX).len(), 1);
    assert!(m.is_empty());
}

#[test]
fn ttl_saturates_instead_of_wrapping() {
    let mut m = memory(u64::MAX, 1);
    let o = m.learn(&region_at(-38.0), 10).unwrap().obstruction;
    assert_eq!(o.expires_at_ms, u64::MAX);
    assert!(m.expire(u64::MAX - 1).is_empty());
}

#[test]
fn cap_drops_the_oldest_and_counts() {
    let mut m = memory(1000, 2);
    for i in 0u32..5 {
        let r = m
            .learn(&region_at(-150.0 + 60.0 * f64::from(i)), 0)
            .unwrap();
        assert_eq!(r.dropped.map(|o| o.id), (i >= 2).then(|| u64::from(i) - 1));
    }
    assert_eq!(m.dropped_total(), 3);
    assert_eq!(m.iter().map(|o| o.id).collect::<Vec<_>>(), vec![4, 5]);
    assert_eq!(m.clear(), 2);
    assert!(m.is_empty());
    assert_eq!(m.dropped_total(), 3, "clearing is not dropping");
    assert_eq!(m.learn(&region_at(0.0), 0).unwrap().obstruction.id, 6);
}

proptest! {
    #[test]
    fn never_above_the_cap_and_nothing_alive_is_expired(
        ops in proptest::collection::vec((0u64..50, 0u8..3, -150.0f64..150.0), 1..60),
        cap in 1usize..6,
        ttl in 1u64..40,
    ) {
        let mut m = memory(ttl, cap);
        let (mut now, mut recorded, mut expired, mut cleared) = (0u64, 0u64, 0usize, 0usize);
        for (dt, op, x) in ops {
            now += dt;
            match op {
                0 => {
                    if !m.learn(&region_at(x), now).unwrap().merged {
                        recorded += 1;
                    }
                }
                1 => {
                    let gone = m.expire(now);
                    prop_assert!(gone.iter().all(|o| o.is_expired(now)));
                    expired += gone.len();
                    prop_assert!(m.iter().all(|o| !o.is_expired(now)));
                }
                _ => {
                    let a = Point3::new(x, -100.0, 0.0);
                    let passed = m.free_pass(a, Point3::new(x, 200.0, 0.0));
                    cleared += passed.iter().filter(|p| p.effect == PassEffect::Cleared).count();
                    prop_assert!(m.iter().all(|o| o.size_mm >= ContactModel::default().min_size_mm()));
                }
            }
            prop_assert!(m.len() <= cap);
            // Every region learned is alive, expired, cleared or dropped.
            prop_assert_eq!(
                recorded,
                m.len() as u64 + expired as u64 + cleared as u64 + m.dropped_total()
            );
            let ids: Vec<u64> = m.iter().map(|o| o.id).collect();
            prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
