//! Simulated xPC Targets (arm with encoders, eyes seeing flames) speaking UDP like the real hardware.
