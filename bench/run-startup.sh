#!/usr/bin/env bash
# Runs the start-up benchmark, building whatever is missing first. Arguments go to StartupBench:
#   bench/run-startup.sh [runs] [--opts "extra JVM options"] [--label text] [--home dir] [--results file | --no-results]
set -euo pipefail
bench="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
root="$(dirname "$bench")"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"

if [ ! -x "$root/distribution/assembly/target/caravan/bin/caravan" ]; then
  echo "Building the distribution..." >&2
  (cd "$root" && mvn -B -q -Dmaven.test.skip=true package -pl distribution/assembly -am)
fi
main="$bench/target/classes/io/caravan/bench/StartupBench.class"
if [ ! -f "$main" ] || [ -n "$(find "$bench/src/main/java" -name '*.java' -newer "$main")" ]; then
  # Through the reactor: the bench depends on Caravan's modules, which a checkout built by ./caravan never installs.
  (cd "$root" && mvn -B -q compile -pl bench -am)
fi

cd "$root"
# The harness mostly sleeps and polls; a small serial-GC heap keeps it from competing with the agent it measures.
exec "$java" -XX:+UseSerialGC -Xmx64m -cp "$bench/target/classes" io.caravan.bench.StartupBench "$@"
