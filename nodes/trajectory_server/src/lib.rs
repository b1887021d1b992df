//! MoveTo action server: minimum-jerk arm moves with obstacle detection and reverse to start.
