#!/usr/bin/env bash
# Builds a user's project (scripts/staged-check) outside the distlock build, against the staged
# bundle only: a fresh, empty local repository, the staging directory as a repository and Maven
# Central for everything else. Checks the published poms' metadata, runs the test kit's contract
# suite on distlock-jdbc and a main that locks through DistributedLocks.builder(...) in Redis and
# in a database. Usage: scripts/check-staged.sh [staging directory]   (after scripts/stage-release.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
staging=$(cd "${1:-$root/target/staging-deploy}" && pwd)
version=$(find "$staging/dev/distlock/distlock" -mindepth 1 -maxdepth 1 -type d -printf '%f\n')

work=$(mktemp -d "${TMPDIR:-/tmp}/distlock-staged-check.XXXXXX")
cp -r "$root/scripts/staged-check/." "$work/"
sed -i "s|@DISTLOCK_VERSION@|$version|; s|@STAGED_URL@|file://$staging|" "$work/pom.xml"
cd "$work"
mvn=("$root/mvnw" -B -ntp -Dmaven.repo.local="$work/repository")
echo "distlock $version from $staging; project and local repository in $work"

# Every published pom, with what it inherits from distlock-parent, says what Central asks for.
for artifact in distlock distlock-jdbc distlock-zookeeper distlock-test-support distlock-parent; do
    "${mvn[@]}" -q help:effective-pom -Dartifact="dev.distlock:$artifact:$version" -Doutput="$work/$artifact.effective.xml"
    for element in '<name>' '<description>' '<url>https://github.com/distlock/distlock</url>' '<licenses>' \
                   '<developers>' '<connection>scm:git:https://github.com/distlock/distlock.git</connection>'; do
        grep -q "$element" "$work/$artifact.effective.xml" || { echo "$artifact: no $element in its effective pom"; exit 1; }
    done
done
echo "poms: name, description, url, licence, developers and scm in all five"

"${mvn[@]}" verify exec:java

# Every dev.distlock artifact came from the staging directory, none from anywhere else.
from=$(find "$work/repository/dev/distlock" -name _remote.repositories -exec grep -h '^[^#]' {} + | sed 's/.*>//' | sort -u | tr '\n' ' ')
[ "$from" = "staged= " ] || { echo "dev.distlock artifacts resolved from: $from"; exit 1; }
echo "every dev.distlock artifact resolved from the staging directory:"
find "$work/repository/dev/distlock" -name '*.jar' -printf '  %P\n' | sort
