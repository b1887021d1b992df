//! [`Rng`]: a small seeded generator (SplitMix64, Steele, Lea & Flood 2014), so that a
//! simulation's noise, packet loss, jitter and corrupted bytes are reproducible from a
//! seed. No extra crate; not for cryptography.

/// SplitMix64 with uniform ([`Rng::next_f64`], [`Rng::chance`]) and Gaussian
/// ([`Rng::gauss`], Box-Muller) samples. The same seed always gives the same stream;
/// every seed (0 too) is usable, and close seeds give unrelated streams.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose stream is fixed by `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p` (`p ≤ 0` never, `p ≥ 1` always).
    pub fn chance(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }

    /// Standard normal.
    pub fn gauss(&mut self) -> f64 {
        let u1 = self.next_f64().max(f64::MIN_POSITIVE);
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(seed: u64) -> Vec<u64> {
        let mut r = Rng::new(seed);
        (0..8).map(|_| r.next_u64()).collect()
    }

    #[test]
    fn same_seed_same_sequence_different_seed_different() {
        assert_eq!(first(7), first(7));
        assert_ne!(first(7), first(8));
        // Seed 0 is usable.
        assert!(first(0).iter().all(|x| *x != 0));
    }

    #[test]
    fn uniform_and_gaussian_with_plausible_moments() {
        let mut r = Rng::new(42);
        let n = 20_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let x = r.next_f64();
            assert!((0.0..1.0).contains(&x));
            sum += x;
        }
        let mean = sum / n as f64;
        assert!((mean - 0.5).abs() < 0.02, "mean {mean}");
        let hits = (0..n).filter(|_| r.chance(0.25)).count() as f64 / n as f64;
        assert!((hits - 0.25).abs() < 0.02, "rate {hits}");
        assert!(!r.chance(0.0));
        assert!(r.chance(1.0));
        let g: Vec<f64> = (0..n).map(|_| r.gauss()).collect();
        let m = g.iter().sum::<f64>() / n as f64;
        let var = g.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64;
        assert!(
            m.abs() < 0.03 && (var - 1.0).abs() < 0.05,
            "mean {m} var {var}"
        );
    }
}
