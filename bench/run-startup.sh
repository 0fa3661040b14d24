#!/usr/bin/env bash
# Runs the start-up benchmark, building whatever is missing first (bench/run). Arguments go to StartupBench:
#   bench/run-startup.sh [runs] [--opts "extra JVM options"] [--label text] [--home dir] [--results file | --no-results]
set -euo pipefail
bench="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
# The harness mostly sleeps and polls; a small serial-GC heap keeps it from competing with the agent it measures.
BENCH_JAVA_OPTS="${BENCH_JAVA_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx64m}" exec "$bench/run" StartupBench "$@"
