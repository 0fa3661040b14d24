#!/bin/sh
# The C1M-class scheduling scenario (SchedulingScenarioBench) from a fresh clone: builds the agent, the bench and the
# node simulator bundle in the reactor (nothing is installed into ~/.m2), then runs it from the repository root.
#   bench/run-c1m.sh [jobs=100] [count=1000] [nodes=5000] [--no-results] [--opts "more agent JVM options"]
# Full C1M-class run: bench/run-c1m.sh 1000 1000 5000
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mvn -B -q -Dstyle.color=never -Dmaven.test.skip=true package -pl distribution/assembly,bench,bench/nodesim -am
exec java -cp bench/target/classes io.caravan.bench.SchedulingScenarioBench "$@"
