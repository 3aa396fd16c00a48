/**
 * Runs the shop on this machine with nothing installed but a JDK: a Redis server from a Maven
 * artifact, an H2 database server, and one or more Payara Micro processes, each on a free port.
 * {@link dev.distlock.example.shop.launcher.ShopMain} is what {@code ../shop.sh} runs; the
 * end-to-end tests use {@link dev.distlock.example.shop.launcher.ShopCluster} directly.
 */
package dev.distlock.example.shop.launcher;
