#!/usr/bin/env bash
# Runs the distlock benchmarks (benchmarks/README.md): builds the library, the test kit and
# benchmarks/, runs JMH, the uncontended turn-taking driver, the two-JVM hot-key driver, the many-keys driver and
# the segment-id latency driver, prints markdown and writes it to
# benchmarks/target/benchmarks.md.
#   ./bench.sh            full run with short defaults (~11–15 minutes on 2 cores, and the hot key with
#                         Redis across a network: 24 more 5 s runs; -Dbench.hot.delays=0 leaves it out)
#   ./bench.sh --quick    one very short iteration of everything (a smoke check, ~20 s)
# Extra arguments are passed to the JVM, e.g. ./bench.sh -Dbench.hot.seconds=10 -Dbench.only=hot
# DISTLOCK_BENCH_REDIS_URL=redis://host:port uses that Redis instead of an embedded redis-server.
set -euo pipefail
cd "$(dirname "$0")"
props=()
for arg in "$@"; do
    case "$arg" in
        --quick) props+=("-Dbench.quick=true") ;;
        *) props+=("$arg") ;;
    esac
done
./mvnw -q -pl benchmarks -am package -DskipTests
cd benchmarks
exec java -Xmx512m -Xss16m -cp "target/classes:$(cat target/classpath.txt)" ${props[@]+"${props[@]}"} dev.distlock.bench.BenchMain
