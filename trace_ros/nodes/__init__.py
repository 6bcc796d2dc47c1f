"""ROS 2 adapters: thin nodes that convert messages and call the engine."""
