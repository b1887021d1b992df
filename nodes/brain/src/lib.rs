//! Runs instructions.json tasks (the original BrainJS) as a ROS 2 executive.
