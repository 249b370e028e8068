# Thin wrapper over CMake. `make` builds, `make test` runs every test, see README.md for the rest.
BUILD ?= build
BUILD_TYPE ?= Release
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
PYTHON ?= /usr/bin/python3
DEPS = cmake g++ make pkg-config libopenblas-dev libsentencepiece-dev sentencepiece libcli11-dev \
       nlohmann-json3-dev catch2 zlib1g-dev libzip-dev libisal-dev libicu-dev libcld2-dev help2man dpkg-dev parallel \
       librsvg2-bin bash-completion
TOOLS_DEPS = python3-torch python3-sentencepiece python3-numpy

.PHONY: all build test test-asan deps deps-tools install deb fixtures model bench fuzz fuzz-smoke stress format clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_EXTRA)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# ctest counts the skipped tests but does not say why: each one's reason (the line it printed after the
# marker set in CMakeLists.txt) follows the summary.
test: build
	cd $(BUILD) && { ctest --output-on-failure -j $(JOBS); status=$$?; \
	  awk '/^[0-9]+\/[0-9]+ Testing: /{sub(/^[^:]*: /, ""); name = $$0} \
	       /^nmt-test-skipped: /{sub(/^[^:]*: /, ""); print "skipped: " name ": " $$0; n++} \
	       END {print n + 0 " test(s) skipped (ctest counts them among the passed)"}' \
	    Testing/Temporary/LastTest.log; exit $$status; }

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer, in their own build dir.
test-asan:
	$(MAKE) test BUILD=build-asan BUILD_TYPE=Debug CMAKE_EXTRA=-DNMT_SANITIZE=ON

deps:
	apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEPS)

deps-tools:
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(TOOLS_DEPS)

# Only what is installed is built (no tests), whatever $(BUILD) was configured with; PREFIX wins.
install: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target nmt nmt_man
	cmake --install $(BUILD) --prefix $(PREFIX)

# A Debian package (CPack) in the repository root: `apt install ./nmt_*.deb`, `apt remove nmt`.
DEB_BUILD ?= build-deb
deb:
	cmake -S . -B $(DEB_BUILD) -DCMAKE_BUILD_TYPE=Release -DNMT_TESTS=OFF -DNMT_GZIP_MAN=ON -DCMAKE_INSTALL_PREFIX=/usr
	cmake --build $(DEB_BUILD) -j $(JOBS)
	cd $(DEB_BUILD) && cpack -G DEB
	cp $(DEB_BUILD)/package/nmt_*.deb .

fixtures:
	$(PYTHON) tools/make_fixtures.py --out tests/fixtures
	cd tools && $(PYTHON) attention_fixture.py --out ../tests/fixtures

# Retrain the bundled model (about two hours on 2 cores); see data/multi30k-en-de/README.md.
DATA ?= ../shared/data/multi30k
model:
	$(PYTHON) tools/train.py --data $(DATA) --out build/train --lr 2e-3 --warmup 800 --epochs 25 --cooldown 0.3 --stop-after 22 --time-budget-min 1000 --bleu-every 0 --average 5 --bf16
	$(PYTHON) tools/average_checkpoints.py build/train/epoch20.pt build/train/epoch21.pt build/train/epoch22.pt --out build/train/avg20-22.pt
	$(PYTHON) tools/export.py build/train/avg20-22.pt --out data/multi30k-en-de --dtype f16 --beam 5 --length-penalty 1.5 --alignment-layer 1 \
		--no-repeat-ngram-size 4

# Speed: nmt vs the PyTorch reference, median of 3 runs; prints a table, writes bench/latest/MACHINE.md.
# BENCH_ARGS=--quick for a smoke run; --model DIR for another model (see tools/bench.py --help).
BENCH_ARGS ?=
bench: build
	$(PYTHON) tools/bench.py --nmt $(BUILD)/nmt $(BENCH_ARGS)

format:
	clang-format -i $$(git ls-files '*.h' '*.cc' '*.inl')

clean:
	rm -rf $(BUILD) build-asan build-fuzz $(DEB_BUILD) nmt_*.deb

# libFuzzer targets (clang, ASan + UBSan); FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 600
fuzz:
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DNMT_FUZZ=ON -DNMT_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS)
	tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

# Hostile inputs that once hung or took gigabytes, under `ulimit -v` 1.5 GB and `timeout` (tests/stress/run.sh).
stress: build
	tests/stress/run.sh $(BUILD)

fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=30
