# Top-level entry points: `make run` (set-up, build, check this node) and `make test` (set-up, build, tests).
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all deps configure build run test clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) >/dev/null

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The check's exit code is its verdict (0 pass, 1 warn, 2 fail); only 3 (could not run) fails make.
run: build
	@$(BUILD_DIR)/distdoctor check; rc=$$?; [ $$rc -ne 3 ] || exit 3

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD_DIR)
