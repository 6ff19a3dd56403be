#!/bin/sh
# Container entry point of the offcache L2 cache server: sizes the RAM tier and the heap from the container's
# memory limit unless they are set, then runs the launcher (which sets -XX:MaxDirectMemorySize from the RAM tier).
#   RAM tier (OFFCACHE_RAM_MB): 50% of the limit; heap: -XX:MaxRAMPercentage=20; the rest is for the page cache,
#   Netty, spill slots and the JVM itself. Without a limit, the program's defaults apply.
set -e
limit_file="${OFFCACHE_CGROUP_MEMORY_FILE:-}"
if [ -z "$limit_file" ]; then
  for candidate in /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes; do
    if [ -r "$candidate" ]; then limit_file="$candidate"; break; fi
  done
fi
limit=""
if [ -n "$limit_file" ] && [ -r "$limit_file" ]; then
  limit="$(cat "$limit_file")"
fi
case "$limit" in
  ''|max|*[!0-9]*) ;;
  *)
    limit_mb=$((limit / 1048576))
    # cgroup v1 reports "no limit" as a huge number
    if [ "$limit_mb" -gt 0 ] && [ "$limit_mb" -lt 16777216 ]; then
      : "${OFFCACHE_RAM_MB:=$((limit_mb / 2))}"
      export OFFCACHE_RAM_MB
    fi ;;
esac
: "${OFFCACHE_JAVA_OPTS:=-XX:MaxRAMPercentage=20}"
export OFFCACHE_JAVA_OPTS
exec "$(dirname "$0")/offcache-server" "$@"
