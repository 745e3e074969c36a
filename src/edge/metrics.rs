//! The daemon's own Prometheus metrics, kept by the core task with atomics (no lock on the
//! hot path) and rendered by the server's `/metrics`: bytes from and to the boards, inputs,
//! link drops, the core's time per step and the time from a move's step to its release to
//! clients (core + journal commit).

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A histogram with fixed bucket bounds (seconds), Prometheus style (cumulative on output).
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    counts: Vec<AtomicU64>,
    sum_micros: AtomicU64,
    total: AtomicU64,
}

impl Histogram {
    pub fn new(bounds: &'static [f64]) -> Self {
        Histogram {
            bounds,
            counts: bounds.iter().map(|_| AtomicU64::new(0)).collect(),
            sum_micros: AtomicU64::new(0),
            total: AtomicU64::new(0),
        }
    }

    pub fn observe(&self, d: Duration) {
        let s = d.as_secs_f64();
        if let Some(i) = self.bounds.iter().position(|&b| s <= b) {
            self.counts[i].fetch_add(1, Ordering::Relaxed);
        }
        self.sum_micros
            .fetch_add(d.as_micros() as u64, Ordering::Relaxed);
        self.total.fetch_add(1, Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut cumulative = 0;
        for (b, c) in self.bounds.iter().zip(&self.counts) {
            cumulative += c.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{b}\"}} {cumulative}");
        }
        let total = self.count();
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {total}");
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {total}");
    }
}

/// Core steps take microseconds (benchmarks: ≈ 4–7 µs per board input).
const STEP_BOUNDS: &[f64] = &[
    0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.005, 0.025, 0.1,
];
/// Releasing a move waits for the journal's commit (about a millisecond with fsync).
const RELEASE_BOUNDS: &[f64] = &[0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5];

/// Everything the core task counts.
#[derive(Debug)]
pub struct DaemonMetrics {
    pub rx_bytes: AtomicU64,
    pub tx_bytes: AtomicU64,
    pub inputs: AtomicU64,
    pub operator_actions: AtomicU64,
    /// Links that went down (cable pulled, board silent, port error).
    pub link_drops: AtomicU64,
    pub core_step: Histogram,
    pub move_release: Histogram,
}

impl Default for DaemonMetrics {
    fn default() -> Self {
        DaemonMetrics {
            rx_bytes: AtomicU64::new(0),
            tx_bytes: AtomicU64::new(0),
            inputs: AtomicU64::new(0),
            operator_actions: AtomicU64::new(0),
            link_drops: AtomicU64::new(0),
            core_step: Histogram::new(STEP_BOUNDS),
            move_release: Histogram::new(RELEASE_BOUNDS),
        }
    }
}

impl DaemonMetrics {
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (name, help, v) in [
            (
                "dgt_serial_rx_bytes_total",
                "Bytes received from the boards.",
                &self.rx_bytes,
            ),
            (
                "dgt_serial_tx_bytes_total",
                "Bytes sent to the boards.",
                &self.tx_bytes,
            ),
            (
                "dgt_core_inputs_total",
                "Inputs handled by the core (bytes, links, operator actions).",
                &self.inputs,
            ),
            (
                "dgt_operator_actions_total",
                "Arbiter and operator actions handled.",
                &self.operator_actions,
            ),
            (
                "dgt_link_drops_total",
                "Board links that went down (cable, silence, port errors).",
                &self.link_drops,
            ),
        ] {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                v.load(Ordering::Relaxed)
            );
        }
        self.core_step.render(
            &mut out,
            "dgt_core_step_seconds",
            "Time the core takes for one input or timer firing.",
        );
        self.move_release.render(
            &mut out,
            "dgt_move_release_seconds",
            "From the core step that produced a move to its release to clients (journal commit included).",
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_with_sum_and_count() {
        let h = Histogram::new(&[0.001, 0.01]);
        h.observe(Duration::from_micros(500));
        h.observe(Duration::from_millis(5));
        h.observe(Duration::from_millis(50));
        let mut out = String::new();
        h.render(&mut out, "x_seconds", "test");
        assert!(out.contains("x_seconds_bucket{le=\"0.001\"} 1\n"), "{out}");
        assert!(out.contains("x_seconds_bucket{le=\"0.01\"} 2\n"), "{out}");
        assert!(out.contains("x_seconds_bucket{le=\"+Inf\"} 3\n"), "{out}");
        assert!(out.contains("x_seconds_count 3\n"), "{out}");
        assert!(out.contains("x_seconds_sum 0.0555\n"), "{out}");
    }
}
