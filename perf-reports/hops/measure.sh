#!/bin/bash
# Counts the offcache classes and thread hand-offs of a cold L2 GET, a cold L2 client read and a df.cache() action
# (miss, then hit) at one commit of this repository, with the offtrace agent (docs/architecture.md, "What a read and
# an action cost in classes and hops").
#   measure.sh <worktree> <label> [before]   # "before": the probes in the API of 035c4eb (L2Client.newBuilder,
#                                            # EvictionPolicy, CountingOrigin.tellsSize a field)
# Writes /tmp/offtrace/<label>-{server-get,client-read,action-miss,action-hit}.txt and prints the analysis.
# The probes are copied into the worktree's src/test for the run and removed after it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wt="$(cd "$1" && pwd)"; label="$2"; api="${3:-main}"
out=/tmp/offtrace; mkdir -p "$out/classes"
bb="$HOME/.m2/repository/net/bytebuddy/byte-buddy/1.14.12/byte-buddy-1.14.12.jar"
if [ ! -f "$out/offtrace.jar" ]; then
  javac -d "$out/classes" -cp "$bb" "$here/Trace.java" "$here/Agent.java"
  (cd "$out/classes" && unzip -qo "$bb" -x 'META-INF/*' && printf 'Premain-Class: offtrace.Agent\n' > ../manifest \
    && jar cfm ../offtrace.jar ../manifest .)
fi
server="$wt/cache-server/src/test/java/dev/offcache/server/http/HopCountProbe.java"
registry="$wt/dataset-cache/src/test/java/dev/offcache/dataset/cluster/ActionHopProbe.java"
if [ "$api" = before ]; then
  sed -e 's/TELLS_SIZE/harness.origin.tellsSize = true/' -e 's#CLIENT#L2Client.newBuilder().server(URI.create(harness.base())).apiKey(ServerHarness.KEY).origin(new FileSystemOrigin(dir, 2)).abandonTimeout(Duration.ofSeconds(5)).build()#' "$here/HopCountProbe.java.in" > "$server"
  sed -e 's/POLICY_PKG/eviction.EvictionPolicy/; s/POLICY\.none/EvictionPolicy.none/' "$here/ActionHopProbe.java.in" > "$registry"
else
  sed -e 's/TELLS_SIZE/harness.origin.tellsSize(true)/' -e 's#CLIENT#new L2Client(new dev.offcache.range.l2.L2ClientContext().serverUri(URI.create(harness.base())).apiKey(ServerHarness.KEY).origin(new FileSystemOrigin(dir, 2)).abandonTimeout(Duration.ofSeconds(5)))#' "$here/HopCountProbe.java.in" > "$server"
  sed -e 's/POLICY_PKG/retention.RetentionPolicy/; s/POLICY\.none/RetentionPolicy.none/' "$here/ActionHopProbe.java.in" > "$registry"
fi
trap 'rm -f "$server" "$registry"' EXIT
cd "$wt"
flags="$(grep -o '<offcache.jvm.flags>[^<]*' pom.xml | sed 's/<offcache.jvm.flags>//')"
nice -n 10 ./mvnw -B -q -o -pl cache-server,dataset-cache -am verify -Djmh.smoke.skip=true \
  -Dtest='HopCountProbe,ActionHopProbe' -Dsurefire.failIfNoSpecifiedTests=false -Dcheckstyle.skip=true \
  -Doffcache.jvm.flags="$flags -javaagent:$out/offtrace.jar -Dofftrace.out=$out/$label" > "$out/$label-build.log" 2>&1
bg="/dev/shm/aeron offcache-payload-client offcache-payload-server"
echo "### cold GET (server threads)"; CALLS="BlockStream.execute$|BlockFetcher.onGetDone$" python3 "$here/analyse.py" "$out/$label-server-get.txt" "$wt" offcache-ssd-spill
echo "### L2 client read (client threads)"
WITH_MAIN=1 python3 "$here/analyse.py" "$out/$label-client-read.txt" "$wt" offcache-ssd-spill offcache-l2client-warming multiThreadIo offcache-file-origin Thread-
echo "### action, miss"; WITH_MAIN=1 python3 "$here/analyse.py" "$out/$label-action-miss.txt" "$wt" $bg
echo "### action, hit"; WITH_MAIN=1 python3 "$here/analyse.py" "$out/$label-action-hit.txt" "$wt" $bg
