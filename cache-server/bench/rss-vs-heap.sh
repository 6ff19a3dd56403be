#!/bin/sh
# Peak RSS and 64 KiB / 1 MiB RAM-tier throughput of the L2 server under one set of JVM options, to weigh a heap cap
# against throughput. Uses the file that l2-vs-nginx.sh created (run that once first).
#
# Usage: sh cache-server/bench/rss-vs-heap.sh ["JVM OPTIONS"]   e.g. "" / "-Xmx256m" / "-Xmx128m -XX:+UseSerialGC"
# Knobs (env): BENCH_DIR (/tmp/offcache-bench), RAM_MB (64), DURATION (8s), CONNECTIONS (16), WRK_THREADS (2).
set -eu
HERE="$(cd "$(dirname "$0")/.." && pwd)"
LAUNCHER="$HERE/target/bin/offcache-server"
BENCH_DIR="${BENCH_DIR:-/tmp/offcache-bench}"
RAM_MB="${RAM_MB:-64}"
DURATION="${DURATION:-8s}"
CONNECTIONS="${CONNECTIONS:-16}"
WRK_THREADS="${WRK_THREADS:-2}"
PORT=18097
KEY="bench-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
[ -f "$BENCH_DIR/data/bench.bin" ] && [ -f "$BENCH_DIR/ranges.lua" ] || { echo "run l2-vs-nginx.sh first" >&2; exit 1; }
rm -rf "$BENCH_DIR/rss-ssd"
OFFCACHE_API_KEYS="$KEY" OFFCACHE_JAVA_OPTS="${1:-}" sh "$LAUNCHER" --listen 127.0.0.1:$PORT \
  --origin-dir "$BENCH_DIR/data" --disk-path "$BENCH_DIR/rss-ssd" --ram-mb "$RAM_MB" --disk-mb 1024 --io-threads 2 \
  > "$BENCH_DIR/rss-l2.log" 2>&1 &
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null 2>&1 && break; sleep 0.5; done
PID=$(pgrep -f "listen 127.0.0.1:$PORT" | head -1)
trap 'kill "$PID" 2>/dev/null || true' EXIT INT TERM
SPAN=$((RAM_MB * 1048576 / 2))
AUTH_HEADER="Bearer $KEY" RANGE_BYTES=1048576 SPAN_BYTES=$SPAN wrk -t1 -c4 -d3s -s "$BENCH_DIR/ranges.lua" \
  "http://127.0.0.1:$PORT/obj/bench.bin" > /dev/null
for len in 65536 1048576; do
  AUTH_HEADER="Bearer $KEY" RANGE_BYTES=$len SPAN_BYTES=$SPAN wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" \
    -s "$BENCH_DIR/ranges.lua" "http://127.0.0.1:$PORT/obj/bench.bin" |
    awk -v l=$((len / 1024)) '/Requests\/sec/ { printf "RAM tier %5d KiB: %s req/s\n", l, $2 }'
done
awk '/VmHWM/ { print "peak RSS: " int($2 / 1024) " MiB" }' "/proc/$PID/status"
