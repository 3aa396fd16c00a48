#!/usr/bin/env bash
# What ../shop.sh and ../shop-bench.sh share: builds the library and the example WAR (unless one of
# the arguments is --no-build), then runs the given main class of the shop's launcher with plain
# java, so that Ctrl-C reaches it.
#   example-war/launch.sh <main class> [java -D options ...] -- [arguments ...]
set -euo pipefail
cd "$(dirname "$0")/.."

main="$1"
shift
jvm=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
    jvm+=("$1")
    shift
done
[[ $# -gt 0 ]] && shift

build=true
args=()
for arg in "$@"; do
    if [[ "$arg" == "--no-build" ]]; then build=false; else args+=("$arg"); fi
done

if $build; then
    echo "Building the library and the shop (the first time, Maven downloads Payara Micro and the rest)..."
    ./mvnw -q -pl example-war -am package -DskipTests
fi

java="java"
if [[ -n "${JAVA_HOME:-}" ]]; then java="$JAVA_HOME/bin/java"; fi
cd example-war
exec "$java" ${jvm[@]+"${jvm[@]}"} -cp "target/test-classes:$(cat target/launcher.classpath)" "$main" ${args[@]+"${args[@]}"}
