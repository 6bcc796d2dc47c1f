"""Road 2, the slow path: project captured sources into derived, revisable state."""
