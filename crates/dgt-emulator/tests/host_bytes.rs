//! Whatever the host writes, the emulated board neither panics nor stops keeping time.

use dgt_emulator::{BoardSpec, EmulatedBoard};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn arbitrary_host_bytes_are_survived(
        writes in proptest::collection::vec(
            (0u64..400, proptest::collection::vec(any::<u8>(), 0..12)), 0..25),
        seed in 0u64..1000,
    ) {
        let mut board = EmulatedBoard::new(BoardSpec::random(seed, 12));
        let mut t = 0;
        let mut sent = 0;
        for (gap, bytes) in writes {
            t += gap;
            board.on_host_bytes(t, &bytes);
            sent += board.poll_output(t).len();
        }
        let deadline = board.next_deadline().unwrap();
        prop_assert!(deadline >= t);
        prop_assert!(deadline <= t + 10_000, "the scan never stops");
        let _ = sent;
    }
}
