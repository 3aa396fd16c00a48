/**
 * The shop's HTTP benchmark: orders per second and latency of {@code POST /api/orders} through one
 * and two Payara Micro servers, with distlock, raw Redisson, a database row lock and a striped SKU
 * side by side on one Redis and one database. {@link dev.distlock.example.shop.bench.ShopBench} is
 * what {@code ../shop-bench.sh} runs; {@link dev.distlock.example.shop.bench.ShopBenchIT} runs it
 * small in the build.
 */
package dev.distlock.example.shop.bench;
