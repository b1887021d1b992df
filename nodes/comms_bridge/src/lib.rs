//! JSON-defined packets over UART and CAN, bridged to ROS 2 topics and a service.
