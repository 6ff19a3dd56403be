#!/bin/sh
# The SSD tier's descriptor cache (--ssd-open-files) on and off, side by side: two L2 servers, A with the default
# cache and B with the B_OPEN_FILES setting (0: every chunk opens, sends and closes its block file), each with the
# whole file prefetched to its SSD tier and read once so every block is verified (then sent with sendfile). The same
# wrk load of random block-aligned 64 KiB and 1 MiB ranges (working set 4x the RAM tier) alternates between them,
# ABBA, ROUNDS times; prints each run and the ratio of the means per round.
# Uses the file and ranges.lua that l2-vs-nginx.sh created (run that once first).
#
# Usage: sh cache-server/bench/ssd-open-files.sh
# Knobs (env): BENCH_DIR (/tmp/offcache-bench), RAM_MB (64), DURATION (8s), CONNECTIONS (16), WRK_THREADS (2),
# IO_THREADS (2), B_OPEN_FILES (0), ROUNDS (2), A_PORT (18093), B_PORT (18094), B_LAUNCHER (B's server: another
# build's target/bin/offcache-server, to set two builds side by side; default LAUNCHER), SIZES (range bytes to
# measure, "65536 1048576").
set -eu
HERE="$(cd "$(dirname "$0")/.." && pwd)"
LAUNCHER="${LAUNCHER:-$HERE/target/bin/offcache-server}"
B_LAUNCHER="${B_LAUNCHER:-$LAUNCHER}"
BENCH_DIR="${BENCH_DIR:-/tmp/offcache-bench}"
RAM_MB="${RAM_MB:-64}"
DURATION="${DURATION:-8s}"
CONNECTIONS="${CONNECTIONS:-16}"
WRK_THREADS="${WRK_THREADS:-2}"
IO_THREADS="${IO_THREADS:-2}"
B_OPEN_FILES="${B_OPEN_FILES:-0}"
ROUNDS="${ROUNDS:-2}"
SIZES="${SIZES:-65536 1048576}"
A_PORT="${A_PORT:-18093}"
B_PORT="${B_PORT:-18094}"
KEY="bench-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
FILE="$BENCH_DIR/data/bench.bin"
[ -f "$FILE" ] && [ -f "$BENCH_DIR/ranges.lua" ] || { echo "run l2-vs-nginx.sh first" >&2; exit 1; }
FILE_BYTES=$(stat -c %s "$FILE")
AUTH="Authorization: Bearer $KEY"

start() { # launcher port disk-dir extra-args...
  launcher=$1; port=$2; dir=$3; shift 3
  rm -rf "$dir"; mkdir -p "$dir"
  OFFCACHE_API_KEYS="$KEY" sh "$launcher" --listen 127.0.0.1:"$port" --origin-dir "$BENCH_DIR/data" \
    --disk-path "$dir" --ram-mb "$RAM_MB" --disk-mb $((FILE_BYTES / 1048576 * 2)) --io-threads "$IO_THREADS" \
    --prefetch-threads 2 "$@" > "$dir.log" 2>&1 &
  LAST_PID=$!
}
start "$LAUNCHER" "$A_PORT" "$BENCH_DIR/ssd-a"; A_PID=$LAST_PID
start "$B_LAUNCHER" "$B_PORT" "$BENCH_DIR/ssd-b" --ssd-open-files "$B_OPEN_FILES"; B_PID=$LAST_PID
trap 'kill "$A_PID" "$B_PID" 2>/dev/null || true' EXIT INT TERM

metric() { curl -s -H "$AUTH" "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
for port in "$A_PORT" "$B_PORT"; do
  for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 1; done
  curl -s -H "$AUTH" -X POST --data-binary "{\"key\":\"bench.bin\",\"size\":$FILE_BYTES}" \
    "http://127.0.0.1:$port/prefetch" > /dev/null
  for _ in $(seq 1 300); do
    # the page writes doubles ("1.0"): compare as a number
    [ "$(metric "$port" 'offcache_server_prefetch_requests_total{outcome="completed"}' | awk '{ print ($1 >= 1) }')" = 1 ] && break
    sleep 1
  done
  # one sequential pass verifies every block, after which each is sent from its file
  curl -s -H "$AUTH" "http://127.0.0.1:$port/obj/bench.bin" -o /dev/null
  # JIT warm-up at both sizes
  for len in 65536 1048576; do
    AUTH_HEADER="Bearer $KEY" RANGE_BYTES=$len SPAN_BYTES=$FILE_BYTES wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d5s \
      -s "$BENCH_DIR/ranges.lua" "http://127.0.0.1:$port/obj/bench.bin" > /dev/null
  done
done

run() { # label port range_bytes
  out=$(AUTH_HEADER="Bearer $KEY" RANGE_BYTES=$3 SPAN_BYTES=$FILE_BYTES wrk -t"$WRK_THREADS" -c"$CONNECTIONS" \
    -d"$DURATION" --latency -s "$BENCH_DIR/ranges.lua" "http://127.0.0.1:$2/obj/bench.bin")
  LAST_RPS=$(echo "$out" | awk '/Requests\/sec/ { print $2 }')
  printf '%-36s %10s req/s  p50 %8s  p99 %8s %s\n' "$1" "$LAST_RPS" "$(echo "$out" | awk '$1 == "50%" { print $2 }')" \
    "$(echo "$out" | awk '$1 == "99%" { print $2 }')" "$(echo "$out" | awk '/Non-2xx|Socket errors/ { printf "%s ", $0 }')"
}

echo "== SSD tier, A: $LAUNCHER, --ssd-open-files default, B: $B_LAUNCHER, --ssd-open-files $B_OPEN_FILES; $CONNECTIONS connections," \
  "$DURATION each, load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
  for len in $SIZES; do
    l="$((len / 1024)) KiB"
    run "A $l (round $round, 1)" "$A_PORT" $len; a1=$LAST_RPS
    run "B $l (round $round, 1)" "$B_PORT" $len; b1=$LAST_RPS
    run "B $l (round $round, 2)" "$B_PORT" $len; b2=$LAST_RPS
    run "A $l (round $round, 2)" "$A_PORT" $len; a2=$LAST_RPS
    awk -v l="$l" -v r="$round" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" \
      'BEGIN { printf "=> %s round %s: A / B = %.3f (mean req/s %.0f vs %.0f)\n", l, r, (a1 + a2) / (b1 + b2), (a1 + a2) / 2, (b1 + b2) / 2 }'
  done
done
for side in "A $A_PORT $A_PID" "B $B_PORT $B_PID"; do
  set -- $side
  echo "$1: ssd_hit $(metric "$2" 'offcache_server_block_lookups_total{result="ssd_hit"}')," \
    "ram_hit $(metric "$2" 'offcache_server_block_lookups_total{result="ram_hit"}')," \
    "sent from files $(metric "$2" offcache_server_ssd_zero_copy_reads_total)," \
    "open fds $(ls "/proc/$3/fd" 2>/dev/null | wc -l)"
done
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
