//! The board's scan: it reads the 64 squares one after another, a full sweep every
//! 200–250 ms (protocol §1.1), and reports per sweep the squares that differ from what it
//! last saw.
//!
//! Because square i is read at `start + i·period/64`, what the host sees depends on timing
//! exactly as on a real board (§4.1): a piece lifted and placed within one sweep shows up
//! only as its new square (and the old one emptied) in one report; a captured piece removed
//! and the capturer placed in the same sweep is never reported removed; a slide is reported
//! only on the squares where the piece sat while they were read; a piece moved from a square
//! read late to one read early can even show on both squares in one sweep.

use crate::prng::Prng;
use crate::surface::Surface;

#[derive(Debug, Clone)]
pub struct Scanner {
    surface: Surface,
    /// What the board saw in its last sweep (what the dump shows).
    image: [u8; 64],
    sweep_start: u64,
    period: u64,
    /// The earliest time every square was last read at.
    all_read_at: u64,
    rng: Prng,
}

impl Scanner {
    /// Scanning from power-up at t = 0; the first image is the surface at power-up.
    pub fn new(surface: Surface, mut rng: Prng) -> Self {
        let period = rng.range(200, 250);
        Scanner {
            image: surface.initial(),
            surface,
            sweep_start: 0,
            period,
            all_read_at: 0,
            rng,
        }
    }

    pub fn image(&self) -> &[u8; 64] {
        &self.image
    }

    /// When the current sweep is complete and reported.
    pub fn sweep_end(&self) -> u64 {
        self.sweep_start + self.period
    }

    /// Completes the current sweep: the changed squares as (square, new code), new
    /// occurrences first, then emptied squares (the header: "new occurrence first, then
    /// clearing of the old square"), each group in scan order.
    pub fn sweep(&mut self) -> Vec<(u8, u8)> {
        let (start, period) = (self.sweep_start, self.period);
        let last_read = start + 63 * period / 64;
        let quiet = self.surface.quiet(self.all_read_at, last_read);
        self.all_read_at = start;
        self.sweep_start = start + period;
        self.period = self.rng.range(200, 250);
        if quiet {
            // Nothing on the surface changed since every square was last read.
            return Vec::new();
        }
        let mut seen = [0u8; 64];
        for (i, v) in seen.iter_mut().enumerate() {
            *v = self.surface.sample(i, start + i as u64 * period / 64);
        }
        let mut out = Vec::new();
        for placed in [true, false] {
            for (i, (&now, &before)) in seen.iter().zip(&self.image).enumerate() {
                if now != before && (now != 0) == placed {
                    out.push((i as u8, now));
                }
            }
        }
        self.image = seen;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanner(changes: &[(u64, usize, u8)]) -> Scanner {
        let mut initial = [0u8; 64];
        initial[52] = 1; // white pawn e2
        initial[27] = 7; // black pawn d5
        initial[36] = 1; // white pawn e4
        Scanner::new(Surface::new(initial, changes), Prng::new(1))
    }

    fn run(s: &mut Scanner, until: u64) -> Vec<(u8, u8)> {
        let mut out = Vec::new();
        while s.sweep_end() <= until {
            out.extend(s.sweep());
        }
        out
    }

    #[test]
    fn capture_within_one_sweep_never_reports_the_removal() {
        // exd5: d5 emptied and the white pawn placed 30 ms later, just after d5 (square 27)
        // was read: the next read sees only the white pawn.
        let probe = scanner(&[]);
        let read_27 = probe.sweep_start + 27 * probe.period / 64;
        let t = read_27 + 1;
        let mut s = scanner(&[(t, 27, 0), (t + 30, 27, 1), (t + 60, 36, 0)]);
        let out = run(&mut s, 5000);
        assert!(out.contains(&(27, 1)) && out.contains(&(36, 0)));
        assert_eq!(out.len(), 2, "{out:?}");

        // The same capture straddling a read of d5 shows the removal.
        let t = read_27 - 10;
        let mut s = scanner(&[(t, 27, 0), (t + 30, 27, 1)]);
        let out = run(&mut s, 5000);
        assert!(out.contains(&(27, 0)), "{out:?}");
    }

    #[test]
    fn reports_only_real_changes_and_short_blips_can_vanish() {
        // A 5 ms flicker of e2 is almost never seen; reports never repeat the image.
        let mut s = scanner(&[(1000, 52, 0), (1005, 52, 1)]);
        let mut image = *s.image();
        while s.sweep_end() < 3000 {
            for (sq, code) in s.sweep() {
                assert_ne!(image[sq as usize], code);
                image[sq as usize] = code;
            }
        }
        assert_eq!(&image, s.image());
        assert_eq!(image[52], 1);
    }
}
