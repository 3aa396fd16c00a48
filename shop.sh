#!/usr/bin/env bash
# Runs the example shop (example-war/) on this machine with nothing but a JDK 17: builds the
# library and the WAR, then starts a Redis server, an H2 database server and Payara Micro, each on
# a free port (the first shop server on 8080 if it is free), and keeps them running until Ctrl-C.
#
#   ./shop.sh                    one shop server
#   ./shop.sh --instances 2      two shop servers sharing one Redis and one database
#   ./shop.sh --no-build ...     skip the build (after a first run)
#   ./shop.sh --help             every option
set -euo pipefail
exec "$(dirname "$0")/example-war/launch.sh" dev.distlock.example.shop.launcher.ShopMain -- "$@"
