# devicectl: `make demo` runs the migration demo, `make test` runs every test.
# Both install what they need on a fresh Debian 12 (as root, with apt-get) before building.

SWIFT ?= swift
APT_PACKAGES := libarchive-dev libarchive-tools libssl-dev pkg-config attr e2fsprogs zstd xz-utils gzip python3 tar time \
	strace util-linux zlib1g-dev file mount
RELEASE_BIN := .build/release/devicectl

.PHONY: all deps build release test demo bench bench-smoke fuzz clean

all: build

# Installs the system packages that are missing (dpkg-query decides; apt-get only runs when needed).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  if [ "$$(id -u)" -ne 0 ]; then echo "devicectl: run as root to install:$$missing" >&2; exit 1; fi; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory bench-smoke

# The narrated migration story (Scripts/demo.sh) against a debug build of the binary (the quickest to build;
# `make test` reuses it).
demo: deps
	$(SWIFT) build --product devicectl
	DEVICECTL="$$($(SWIFT) build --show-bin-path)/devicectl" bash Scripts/demo.sh

clean:
	rm -rf .build

# Benchmark: devicectl vs GNU tar / bsdtar / sha256sum, side by side (writes bench/results.md).
# Parameters: make bench FILES=40000 MB=200 RUNS=11 SCALE=10000,50000,200000
FILES ?= 40000
MB ?= 200
RUNS ?= 11
SCALE ?= 10000,50000,200000
bench: release
	python3 bench/bench.py --devicectl $(RELEASE_BIN) --files $(FILES) --megabytes $(MB) --runs $(RUNS) --scale "$(SCALE)"

# The harness runs end to end (tiny tree, one run, no scale run; the debug build; nothing is timed or kept).
bench-smoke:
	@out=$$(mktemp) && python3 bench/bench.py --devicectl .build/debug/devicectl --files 300 --megabytes 2 --runs 1 \
	  --scale "" --output $$out > $$out.log 2>&1 || { cat $$out.log; rm -f $$out $$out.log; exit 1; }; \
	rm -f $$out $$out.log; echo "bench-smoke: the benchmark harness runs"

# Archive fuzzer (Tests/FaultTests/Fuzz): `make test` runs 2500 cases of a fixed seed; long runs:
#   make fuzz N=50000 SEED=7     (FUZZ_FIRST=k starts at case k; FUZZ_CASE=i runs case i alone)
# Properties: no crash, no hang, nothing written outside ROOT, a clean failure with ROOT untouched or a
# restore that verify agrees with. Each finding's input and description are saved in .build/fuzz-artifacts.
N ?= 20000
SEED ?= 20261201
fuzz: deps
	$(SWIFT) build --build-tests
	FUZZ_CASES=$(N) FUZZ_SEED=$(SEED) FUZZ_ARTIFACTS=$(CURDIR)/.build/fuzz-artifacts \
	  $(SWIFT) test --skip-build --filter 'ArchiveFuzzTests/mutatedArchivesFailCleanlyOrRestoreExactly'
