# Top-level entry points: `make run` (set-up, build the binary only, check this node) and `make test` (set-up,
# build everything, lint the tests, run them and print the summary line). Both share one build dir and one
# build type, so `make run` then `make test` compiles the core library once.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
# ccache speeds up rebuilds where it is installed; a fresh machine has none and builds the same way.
LAUNCHER := $(if $(shell command -v ccache 2>/dev/null),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)

.PHONY: all deps configure binary build run test lint clean fuzz fuzz-smoke test-asan test-tsan install package \
	package-test speed-guard portable dist wheel portable-test

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(LAUNCHER) >/dev/null

configure: deps $(BUILD_DIR)/build.ninja

# Only build/distdoctor (and build/distdoctor.debug): no tests, no benchmarks.
binary: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target distdoctor

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The check's exit code is its verdict (0 pass, 1 warn, 2 fail); only 3 (could not run) fails make.
run: binary
	@$(BUILD_DIR)/distdoctor check; rc=$$?; [ $$rc -ne 3 ] || exit 3

# Install (cmake/install.cmake): the binary, its debug info, the man page, bash completion, the Slurm prolog.
PREFIX ?= /usr/local
install: binary
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target man
	@DESTDIR=$(DESTDIR) cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# Debian packages (cmake/package.cmake): build/distdoctor_*.deb and build/distdoctor-dbg_*.deb.
package: binary
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target man
	@cd $(BUILD_DIR) && cpack -G DEB >/dev/null && ls -1 distdoctor*.deb

# CI: the package installed on this machine, its check run, then removed (root only: see the script).
package-test: package
	@scripts/package-test.sh $(BUILD_DIR)

# The portable binary (build-portable/distdoctor): compiled against the Debian 11 tree of scripts/portable-deps.sh
# (glibc 2.31; cmake/portable-toolchain.cmake), libstdc++ and libgcc linked in, NCCL/CUDA/NVML opened at run time.
PORTABLE_DIR ?= build-portable
$(PORTABLE_DIR)/build.ninja:
	@env -u LIBRARY_PATH -u CPATH cmake -S . -B $(PORTABLE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DDD_PORTABLE=ON \
		-DCMAKE_TOOLCHAIN_FILE=cmake/portable-toolchain.cmake $(LAUNCHER) >/dev/null

portable: deps
	@scripts/portable-deps.sh
	@$(MAKE) --no-print-directory $(PORTABLE_DIR)/build.ninja
	@env -u LIBRARY_PATH -u CPATH cmake --build $(PORTABLE_DIR) -j $(JOBS) --target distdoctor man

# $(PORTABLE_DIR)/distdoctor-VERSION-linux-x86_64.tar.gz (scripts/make-dist.sh) and
# $(PORTABLE_DIR)/distdoctor-VERSION-py3-none-manylinux_2_31_x86_64.whl (scripts/make-wheel.py).
dist: portable
	@scripts/make-dist.sh $(PORTABLE_DIR)

wheel: portable
	@scripts/make-wheel.py $(PORTABLE_DIR)

# CI: the glibc floor and libraries, a run on glibc 2.31, the wheel and the tarball installed and run as nobody.
portable-test: dist wheel
	@scripts/portable-test.sh $(PORTABLE_DIR)

# Fails when a test has no assertion (the convention is in scripts/check_test_assertions.py), or when two core
# files define the same file-local name (they could clash in a unity batch: see DD_NO_UNITY in CMakeLists.txt),
# or when an include points up the layers or a file is read / a process started outside its folder (layers.py).
lint:
	@scripts/check-test-assertions.sh
	@scripts/unity_clashes.py
	@scripts/layers.py

# Ends with "N passed, M failed, K skipped" and one "skipped: test: reason" line per skip; non-zero on failure.
test: lint build
	@scripts/run-tests.sh $(BUILD_DIR) $(JOBS)

# The speed guard's CPU part (bench/speed_guard.sh --cpu, about 15-40 s on 2 cores): `logs` and `check` timed
# against grep, wc and the binary's own start in the same call; fails on a ratio over 2x the one committed in
# bench/results/speed_guard_baseline.tsv, or on a command that fails.
speed-guard: binary
	@bench/speed_guard.sh --cpu $(BUILD_DIR)/distdoctor

# libFuzzer targets (fuzz/, clang + ASan/UBSan, own build dir build-fuzz): each runs FUZZ_SECONDS on its seed
# corpus; a crash, timeout or OOM fails make and names the reproducer. fuzz-smoke is the short run CI makes.
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 25
fuzz: deps
	@fuzz/run.sh $(FUZZ_SECONDS)

fuzz-smoke: deps
	@fuzz/run.sh $(FUZZ_SMOKE_SECONDS)

# The suite under sanitizers, each in its own build dir (Debug, -O1 -g; cmake/sanitizers.cmake): ASan+UBSan in
# build-asan, TSan in build-tsan. Every test runs through scripts/sanitizers/run.sh: any report fails it.
build-asan/build.ninja:
	@cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DDD_SANITIZE=address;undefined" $(LAUNCHER) >/dev/null

build-tsan/build.ninja:
	@cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDD_SANITIZE=thread $(LAUNCHER) >/dev/null

test-asan test-tsan: test-%: lint deps build-%/build.ninja
	@cmake --build build-$* -j $(JOBS)
	@scripts/run-tests.sh build-$* $(JOBS)

clean:
	rm -rf $(BUILD_DIR) build-asan build-tsan build-fuzz $(PORTABLE_DIR)
