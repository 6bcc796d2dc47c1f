"""trace_ros: a long-term, state-aware memory for ROS 2 robots.

The engine (everything outside ``trace_ros.nodes``) imports no ROS code; the
nodes are thin adapters. The generated interfaces live in ``trace_ros.msg``
and ``trace_ros.srv`` of the installed package; ``extend_path`` lets a source
checkout on ``sys.path`` and the installed copy share one package namespace.
"""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)
__version__ = "0.1.0"
