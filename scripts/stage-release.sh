#!/usr/bin/env bash
# Stages the release bundle into target/staging-deploy: what a Maven Central upload takes, each
# published artifact's pom, jar, sources and javadoc (and distlock's test kit), with .md5 and .sha1
# checksums, in repository layout; and the same as target/distlock-<version>-bundle.zip.
# Extra arguments go to Maven, e.g. -Dgpg.skip=false to sign with the maintainer's key.
# docs/building.md#publishing
set -euo pipefail
cd "$(dirname "$0")/.."

staging=target/staging-deploy
rm -rf "$staging" target/distlock-*-bundle.zip

# The published modules; each also sets maven.deploy.skip=false in its pom (the root leaves every
# other module out of a deploy).
./mvnw -B -Prelease deploy -DskipTests -pl .,test-support,library,backends/zookeeper,backends/jdbc "$@"

version=$(find "$staging/dev/distlock/distlock" -mindepth 1 -maxdepth 1 -type d -printf '%f\n')
bundle="target/distlock-$version-bundle.zip"
# The repository keeps its own maven-metadata.xml; a bundle holds the artifacts and their checksums.
(cd "$staging" && zip -q -r "../distlock-$version-bundle.zip" . -x '*maven-metadata.xml*')
echo "Staged $(find "$staging" -type f -not -name 'maven-metadata.xml*' | wc -l) files of distlock $version in $staging; bundle $bundle"
