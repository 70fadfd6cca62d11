# Cashier — the two commands a new user runs are `make demo` and `make test`.
SWIFT ?= swift
# Builds run with a TMPDIR of their own, removed when they finish (scripts/with-own-tmp: SwiftPM
# leaves empty folders in TMPDIR on every build).
OWN_TMP := scripts/with-own-tmp
# Swift Testing starts every test at once unless told otherwise: on two cores the first minute
# then ran some 550 tests together, each taking a minute instead of seconds, and tests with a
# network timeout failed when the machine was slow (two runs of two, 2026-12-04 evening). Four at
# a time took the same three minutes and passed every run. Override with `make test TEST_WIDTH=…`.
TEST_WIDTH ?= 4
FORMAT_PATHS := Sources Tests Package.swift Fuzz/Package.swift Fuzz/Sources

.PHONY: demo test deps venv build lint format docs bench bench-scale-long fuzz check-long stop-soak schemathesis-long release release-check clean

## demo: install what is missing, build, and run the end-to-end demo (the sandbox executable's)
demo: deps
	$(OWN_TMP) $(SWIFT) build --product cashier-sandbox
	$(OWN_TMP) $(SWIFT) run --skip-build cashier-sandbox demo

## test: install what is missing, check formatting, build, build the docs (no warnings), and run every test
# The release `cashier` is built too: ReleaseBinaryTests reads its symbol table (no simulator in the
# shipped server). From nothing it took 4 min 48 s of wall time on the shared two-core machine
# (3 min 21 s of CPU, 2026-12-07); seconds when the sources have not changed since the last run.
test: deps lint venv
	$(OWN_TMP) $(SWIFT) build --build-tests
	$(OWN_TMP) $(SWIFT) build -c release --product cashier
	$(OWN_TMP) scripts/docs
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) CASHIER_EXIT_WITH_PARENT=1 timeout --kill-after=60 1500 \
	  scripts/with-pg scripts/with-audit scripts/with-scratch $(SWIFT) test --skip-build

## venv: the PyPI peers for interop tests and benchmarks, in .venv (scripts/python-requirements.txt)
## .venv-alipay-official (scripts/python-requirements-alipay-official.txt) and .venv-openapi
## (scripts/python-requirements-openapi.txt: openapi-spec-validator, Schemathesis)
venv:
	scripts/python-env >/dev/null
	scripts/python-env alipay-official >/dev/null
	scripts/python-env openapi >/dev/null

## deps: the Debian packages (as root; otherwise prints the apt-get command)
deps:
	scripts/install-deps

build: deps
	$(OWN_TMP) $(SWIFT) build

## lint: `swift format lint` must be clean (`make format` fixes most findings)
lint:
	$(OWN_TMP) $(SWIFT) format lint --strict -r $(FORMAT_PATHS)

format:
	$(OWN_TMP) $(SWIFT) format -i -r $(FORMAT_PATHS)

## docs: the DocC site of every library product in .build/docs-site (warnings are errors; scripts/docs)
docs:
	$(OWN_TMP) scripts/docs

## bench: ratios against baselines measured in the same run (`openssl speed`, wechatpy, …)
bench: deps
	$(OWN_TMP) $(SWIFT) build -c release --product cashier-bench
	scripts/with-scratch .build/release/cashier-bench crypto
	scripts/with-scratch .build/release/cashier-bench wechat
	scripts/with-scratch .build/release/cashier-bench alipay
	scripts/with-scratch .build/release/cashier-bench applepay
	scripts/with-scratch .build/release/cashier-bench server
	scripts/with-pg scripts/with-scratch sh -c '.build/release/cashier-bench server --db "$$CASHIER_TEST_PG_URL" && .build/release/cashier-bench server --db "$$CASHIER_TEST_PG_URL" --instances 3'
	scripts/with-scratch .build/release/cashier-bench scale --orders 1000000
	scripts/with-pg scripts/with-scratch sh -c '.build/release/cashier-bench scale --orders 1000000 --db "$$CASHIER_TEST_PG_URL"'

## bench-scale-long: `cashier-bench scale` on ten million orders, SQLite then PostgreSQL (some 10 GB of
## scratch space each; part of check-long, never of make test)
bench-scale-long: deps
	$(OWN_TMP) $(SWIFT) build -c release --product cashier-bench
	scripts/with-scratch .build/release/cashier-bench scale --orders 10000000
	scripts/with-pg scripts/with-scratch sh -c '.build/release/cashier-bench scale --orders 10000000 --db "$$CASHIER_TEST_PG_URL"'

## fuzz: libFuzzer + AddressSanitizer on every parser, 1,000,000 executions (or 300 s) each (scripts/fuzz)
fuzz: deps
	scripts/fuzz 1000000 300

## check-long: everything `make test` runs, then the slow suites: benchmarks (and ten million orders), fuzzing,
## 3000 stops of a busy HTTP server (libmicrohttpd's epoll mode aborted within ~1500),
## Schemathesis for five minutes a key with three more seeds and one from the date, and the
## release tarball run on a bare Debian (release-check)
check-long: test bench bench-scale-long fuzz stop-soak schemathesis-long release-check

## release: .build/release-artifacts/cashier-<version>-linux-<arch>.tar.gz — the binary with the Swift
## runtime linked in, the systemd unit, the container file, nginx, alert rules, docs, SHA256SUMS
## (scripts/release, deploy/release-manifest.txt; docs/deploy/release.md)
release: deps
	$(OWN_TMP) scripts/release

## release-check: the tarball on a debootstrapped Debian 12 without Swift, chrooted (root; scripts/release-check)
release-check: deps
	$(OWN_TMP) scripts/release-check

stop-soak:
	CASHIER_STOP_ROUNDS=3000 $(OWN_TMP) $(SWIFT) test --filter stoppingWhileConnectionsArriveNeverAbortsTheProcess

# make test gives Schemathesis 40 s a key, and a run bounded in time reaches different cases
# each time whatever its seed: this gives it 300 s a key with three other seeds and one from
# today's date, so a scheduled run explores new cases each day (each seed is printed; run one
# again with `make schemathesis-long SCHEMATHESIS_SEEDS=…`).
SCHEMATHESIS_SEEDS ?= 7 99 4242 $(shell date +%Y%m%d)
schemathesis-long:
	for seed in $(SCHEMATHESIS_SEEDS); do \
	  echo "schemathesis-long: seed $$seed (again: make schemathesis-long SCHEMATHESIS_SEEDS=$$seed)"; \
	  CASHIER_SCHEMATHESIS_SEED=$$seed CASHIER_SCHEMATHESIS_SECONDS=300 $(OWN_TMP) $(SWIFT) test --filter schemathesisFindsNothing || exit 1; \
	done

clean:
	rm -rf .build
