#!/usr/bin/env bash
# The shop's HTTP benchmark (benchmarks/README.md, "The shop over HTTP"): builds the library and the
# example WAR, starts one Redis and one PostgreSQL server (Maven Central's binaries; H2 where
# PostgreSQL cannot run), and for each variant (distlock, redisson, row-lock, striped, combined; then
# distlock and redisson with Redis across a network, then distlock, row-lock, striped and combined
# with the database across one) two Payara Micro servers; measures orders/s, latency, CPU and Redis commands per order
# of POST /api/orders through one server and through both, and a sold-out storm per variant; prints
# a markdown table and writes it, with an SVG chart, to example-war/target/shop-bench/. Exits
# non-zero if any storm oversold or lost units; orders answered other than 201/409 (failed by the
# variant) are counted in the report.
#
#   ./shop-bench.sh                 3 rounds of 3,000 orders per storm, 64 client threads, every variant (about 100 minutes)
#   ./shop-bench.sh --quick         a smoke run (300 orders, 16 clients, one round, one row across a network)
#   ./shop-bench.sh --no-build ...  skip the build (after a first run)
#   ./shop-bench.sh --help          every option
set -euo pipefail
exec "$(dirname "$0")/example-war/launch.sh" dev.distlock.example.shop.bench.ShopBench -Dshop.bench.command=./shop-bench.sh -- "$@"
