# The user's entry to squall: `make demo` and `make test` are the two commands in the README.
# Every target installs what is missing first (scripts/bootstrap), then drives CMake presets.

SUITE ?=
BASELINE ?=
FUZZ_SECONDS ?= 30
JOBS ?= 2

# ccache, where this machine has it, makes a build in a fresh clone cheap; it is never required.
ifneq ($(shell command -v ccache 2>/dev/null),)
export CMAKE_CXX_COMPILER_LAUNCHER ?= ccache
export CMAKE_C_COMPILER_LAUNCHER ?= ccache
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1
endif

.PHONY: all bootstrap release asan demo test test-netns fresh-check bench fuzz format format-check clean

all: release

bootstrap:
	@scripts/bootstrap

release asan debug tsan: bootstrap
	@cmake --preset $@ >/dev/null
	@cmake --build --preset $@ -j$(JOBS)

demo: release
	@scripts/demo build/release

test: bootstrap format-check
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j$(JOBS)
	@ctest --preset release
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j$(JOBS)
	@ctest --preset asan

# The engine's components on hosts of their own (network namespaces; needs root, skips without):
# the tests labelled netns, which make test runs too.
test-netns: bootstrap
	@cmake --preset release >/dev/null
	@cmake --build --preset release --target netns_cluster_test -j$(JOBS)
	@ctest --preset release -L netns

# make demo and make test on a fresh minimal Debian 12 chroot (root; KEEP=1 keeps the chroot)
fresh-check:
	@scripts/fresh-check

bench: release
	@python3 scripts/bench.py --build build/release $(if $(SUITE),--suite $(SUITE)) \
	  $(if $(BASELINE),--baseline $(BASELINE))

fuzz: bootstrap
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz -j$(JOBS)
	@scripts/fuzz build/fuzz/fuzz $(FUZZ_SECONDS)

format: bootstrap
	@git ls-files '*.h' '*.cpp' | xargs -r clang-format -i

format-check:
	@git ls-files '*.h' '*.cpp' | xargs -r clang-format --dry-run --Werror

clean:
	rm -rf build
