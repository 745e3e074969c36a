//! A tiny seeded pseudo-random generator (SplitMix64).
//!
//! Written here rather than taken from `rand` so that a seed gives byte-identical games on
//! every platform and with every future version of the dependencies: the corpus built from
//! seeds must stay reproducible. Only integer arithmetic and IEEE multiplication are used (no
//! `ln`/`exp`, whose last bit may differ between platform maths libraries).

/// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, one add and a finaliser per draw.
#[derive(Debug, Clone)]
pub struct Prng {
    state: u64,
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

fn finalise(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Prng {
    pub fn new(seed: u64) -> Self {
        Prng { state: seed }
    }

    /// An independent stream for one part of the emulator (the human, the board's scan
    /// jitter, …), so that e.g. host commands never change what the human does.
    pub fn stream(seed: u64, stream: u64) -> Self {
        Prng::new(finalise(seed ^ finalise(stream.wrapping_add(GOLDEN))))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        finalise(self.state)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            lo
        } else {
            lo + self.below(hi - lo + 1)
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    /// A random element (panics on an empty slice).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// A right-skewed factor with mean 1: mostly short, now and then 2–5× longer. Used for
    /// human think times (most moves are quick, a few are long thinks).
    pub fn skewed_factor(&mut self) -> f64 {
        let u = self.unit();
        let x = if self.chance(0.12) {
            2.0 + 3.0 * u
        } else {
            3.0 * u * u
        };
        // Mixture mean: 0.88·1 + 0.12·3.5 = 1.30.
        x / 1.30
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_ranges_hold() {
        let mut a = Prng::stream(7, 1);
        let mut b = Prng::stream(7, 1);
        let mut c = Prng::stream(7, 2);
        let xs: Vec<u64> = (0..50).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..50).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..50).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        for _ in 0..1000 {
            let r = a.range(200, 250);
            assert!((200..=250).contains(&r));
            assert!(a.unit() < 1.0);
        }
    }

    #[test]
    fn splitmix_reference_value() {
        // First output of SplitMix64 seeded with 0 (the reference implementation's value).
        assert_eq!(Prng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }
}
