#!/bin/sh
# L2 server vs nginx (sendfile on) serving the same file with Range requests, same wrk load, same run.
# Scenarios: 64 KiB and 1 MiB random block-aligned ranges, from the L2 RAM tier (working set < RAM tier) and from
# the L2 SSD tier (whole file prefetched to SSD, working set >> RAM tier). Each case runs ABBA (L2, nginx, nginx, L2)
# so drift on a shared machine hits both alike, and prints the ratio of the means. Prints req/s, MB/s, p50/p99
# latency and each server's peak RSS (VmHWM).
#
# Needs: the built server (./mvnw -B -q -pl cache-server -am package -DskipTests), wrk and nginx
# (apt-get install -y wrk nginx). Usage: sh cache-server/bench/l2-vs-nginx.sh
# Knobs (env): BENCH_DIR, FILE_MB (512), RAM_MB (64), DURATION (10s), CONNECTIONS (16), WRK_THREADS (2),
# IO_THREADS (2, also nginx workers), WARMUP (15s: each server's unmeasured run per size before each phase; the JIT
# compiles meanwhile), L2_PORT (18091), NGINX_PORT (18090), CASES (which cells to measure, any of
# "ram64 ram1024 ssd64 ssd1024", default all four; the SSD phase's prefetch runs only when an SSD cell is asked).
# Every measured run also goes into RESULTS ($BENCH_DIR/l2-vs-nginx.json), a measurement file for
# perf-reports/bin/offcache-perf report --measurements FILE (format: docs/perf-reports.md, "Measurement files").
# FLOOR=memory or FLOOR=sendfile puts bench/floor-server.c (built here with gcc) in the L2's place: the least any
# server can do per request (no cache, headers from one snprintf, the body by writev from memory or by sendfile), so a
# ratio against nginx can be told apart from what no server reaches on this machine. FLOOR=netty-memory or
# FLOOR=netty-sendfile does the same with bench/NettyFloor.java on the L2's own stack (Java, Netty epoll, no HTTP
# codec), run from the built jar with the launcher's JVM flags. Their rows say "floor"; the SSD phase's prefetch and
# the L2's metrics are skipped, and RESULTS defaults to $BENCH_DIR/floor-vs-nginx.json.
set -eu
HERE="$(cd "$(dirname "$0")/.." && pwd)"
LAUNCHER="${LAUNCHER:-$HERE/target/bin/offcache-server}"
BENCH_DIR="${BENCH_DIR:-/tmp/offcache-bench}"
FILE_MB="${FILE_MB:-512}"
RAM_MB="${RAM_MB:-64}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-16}"
WRK_THREADS="${WRK_THREADS:-2}"
IO_THREADS="${IO_THREADS:-2}"
L2_PORT="${L2_PORT:-18091}"
NGINX_PORT="${NGINX_PORT:-18090}"
CASES="${CASES:-ram64 ram1024 ssd64 ssd1024}"
WARMUP="${WARMUP:-15s}"
FLOOR="${FLOOR:-}"
KEY="bench-key-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"

case "$FLOOR" in
  memory|sendfile) command -v gcc >/dev/null || { echo "FLOOR=$FLOOR needs gcc" >&2; exit 1; } ;;
  ""|netty-memory|netty-sendfile)
    [ -f "$LAUNCHER" ] || { echo "build first: ./mvnw -B -q -pl cache-server -am package -DskipTests" >&2; exit 1; } ;;
  *) echo "FLOOR must be memory, sendfile, netty-memory or netty-sendfile, not '$FLOOR'" >&2; exit 2 ;;
esac
command -v wrk >/dev/null || { echo "needs wrk (apt-get install -y wrk)" >&2; exit 1; }
command -v nginx >/dev/null || { echo "needs nginx (apt-get install -y nginx)" >&2; exit 1; }

rm -rf "$BENCH_DIR/ssd" "$BENCH_DIR/nginx"
mkdir -p "$BENCH_DIR/data" "$BENCH_DIR/nginx/logs" "$BENCH_DIR/ssd"
FILE="$BENCH_DIR/data/bench.bin"
if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE")" -ne $((FILE_MB * 1048576)) ]; then
  head -c $((FILE_MB * 1048576)) /dev/urandom > "$FILE"
fi
chmod -R a+rX "$BENCH_DIR/data"

cat > "$BENCH_DIR/nginx/nginx.conf" <<CONF
daemon off;
worker_processes $IO_THREADS;
pid $BENCH_DIR/nginx/nginx.pid;
error_log $BENCH_DIR/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $BENCH_DIR/data;
    location / { }
  }
}
CONF

cat > "$BENCH_DIR/ranges.lua" <<'LUA'
local len = tonumber(os.getenv("RANGE_BYTES"))
local slots = math.floor(tonumber(os.getenv("SPAN_BYTES")) / len)
math.randomseed(os.time())
request = function()
  local start = math.random(0, slots - 1) * len
  -- headers given here replace wrk's -H headers, so the bearer key comes from the environment too
  return wrk.format(nil, nil, { ["Range"] = "bytes=" .. start .. "-" .. (start + len - 1),
    ["Authorization"] = os.getenv("AUTH_HEADER") })
end
LUA

nginx -p "$BENCH_DIR/nginx" -c "$BENCH_DIR/nginx/nginx.conf" &
NGINX_PID=$!
case "$FLOOR" in
  netty-*)
    # the launcher's own JVM flags (the build's, filtered in) and its jar, not retyped here
    flags="$(sed -n 's/^exec "[^"]*java" \(.*\) \$memory .*/\1/p' "$LAUNCHER")"
    # leak detector off, as the launcher has it for the L2
    # shellcheck disable=SC2086
    java $flags -Xms64m -Xmx512m -Dio.netty.leakDetection.level=disabled \
      -cp "$(dirname "$LAUNCHER")/../offcache-server.jar" "$HERE/bench/NettyFloor.java" \
      "$L2_PORT" "$FILE" "${FLOOR#netty-}" "$IO_THREADS" > "$BENCH_DIR/l2.log" 2>&1 &
    L2_PID=$!; ME=floor ;;
  ?*)
    gcc -O2 -pthread -o "$BENCH_DIR/floor-server" "$HERE/bench/floor-server.c"
    "$BENCH_DIR/floor-server" "$L2_PORT" "$FILE" "$FLOOR" "$IO_THREADS" > "$BENCH_DIR/l2.log" 2>&1 &
    L2_PID=$!; ME=floor ;;
  *)
    OFFCACHE_API_KEYS="$KEY" sh "$LAUNCHER" --listen 127.0.0.1:$L2_PORT --origin-dir "$BENCH_DIR/data" \
      --disk-path "$BENCH_DIR/ssd" --ram-mb "$RAM_MB" --disk-mb $((FILE_MB * 2)) --io-threads "$IO_THREADS" \
      --prefetch-threads 2 > "$BENCH_DIR/l2.log" 2>&1 &
    L2_PID=$!; ME=l2 ;;
esac
cleanup() { kill "$L2_PID" 2>/dev/null || true; kill "$NGINX_PID" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$L2_PORT/ready" >/dev/null 2>&1 && curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/bench.bin" -r 0-0 && break
  sleep 1
done

AUTH="Authorization: Bearer $KEY"
metric() { curl -s -H "$AUTH" "http://127.0.0.1:$L2_PORT/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
hwm() { awk '/VmHWM/ { print int($2 / 1024) " MiB" }' "/proc/$1/status"; }
# nginx: the largest worker's VmHWM (the master does no I/O)
nginx_hwm() { for p in $(pgrep -P "$NGINX_PID"); do awk '/VmHWM/ { print $2 }' "/proc/$p/status"; done | sort -n | tail -1 | awk '{ print int($1 / 1024) " MiB" }'; }

# Every measured run, for the measurement file written at the end.
if [ -n "$FLOOR" ]; then RESULTS="${RESULTS:-$BENCH_DIR/floor-vs-nginx.json}"; fi
RESULTS="${RESULTS:-$BENCH_DIR/l2-vs-nginx.json}"
RUNS="$BENCH_DIR/runs.tsv"; : > "$RUNS"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg); STARTED_AT=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# CPU time (user + system, clock ticks) the given processes have used so far, all their threads.
cpu_ticks() { for p in "$@"; do awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null; done | awk '{ s += $1 } END { print s + 0 }'; }
server_pids() { case "$1" in *":$L2_PORT/"*) echo "$L2_PID" ;; *) pgrep -P "$NGINX_PID" | tr '\n' ' ' ;; esac; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))

run() { # name url range_bytes span_bytes
  pids=$(server_pids "$2"); cpu0=$(cpu_ticks $pids)
  out=$(AUTH_HEADER="Bearer $KEY" RANGE_BYTES=$3 SPAN_BYTES=$4 wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$BENCH_DIR/ranges.lua" \
    -H "$AUTH" "$2")
  cpu1=$(cpu_ticks $pids)
  rps=$(echo "$out" | awk '/Requests\/sec/ { print $2 }')
  reqs=$(echo "$out" | awk '/requests in/ { print $1 }')
  # the server's CPU per request (all its threads): a cost the other load on a shared machine hardly changes
  cpu=$(awk -v t=$((cpu1 - cpu0)) -v n="$reqs" -v us="$TICK_US" 'BEGIN { printf "%.1f", (n > 0 ? t * us / n : 0) }')
  p50=$(echo "$out" | awk '$1 == "50%" { print $2 }')
  p99=$(echo "$out" | awk '$1 == "99%" { print $2 }')
  errs=$(echo "$out" | awk '/Non-2xx|Socket errors/ { printf "%s ", $0 }')
  mbs=$(awk -v r="$rps" -v b="$3" 'BEGIN { printf "%.0f", r * b / 1048576 }')
  printf '%-28s %10s %8s MB/s  p50 %8s  p99 %8s  cpu %6s us/req %s\n' "$1" "$rps" "$mbs" "$p50" "$p99" "$cpu" "$errs"
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$rps" "$p50" "$p99" "$errs" >> "$RUNS"
  LAST_RPS=$rps
}

# One case, ABBA order (L2, nginx, nginx, L2), so drift on a shared machine hits both servers alike; prints the ratio
# of the two means.
pair() { # label range_bytes span_bytes
  run "$(printf '%-7s' "$ME") $1 (1)" "$L2_URL" "$2" "$3"; a1=$LAST_RPS
  run "nginx   $1 (1)" "$NGINX_URL" "$2" "$3"; b1=$LAST_RPS
  run "nginx   $1 (2)" "$NGINX_URL" "$2" "$3"; b2=$LAST_RPS
  run "$(printf '%-7s' "$ME") $1 (2)" "$L2_URL" "$2" "$3"; a2=$LAST_RPS
  awk -v l="$1" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" \
    -v me="$ME" 'BEGIN { printf "=> %-24s " (me == "l2" ? "L2" : me) " / nginx = %.2f (mean req/s %.0f vs %.0f)\n", l, (a1 + a2) / (b1 + b2), (a1 + a2) / 2, (b1 + b2) / 2 }'
}

L2_URL="http://127.0.0.1:$L2_PORT/obj/bench.bin"
NGINX_URL="http://127.0.0.1:$NGINX_PORT/bench.bin"
RAM_SPAN=$((RAM_MB * 1048576 / 2))
FILE_BYTES=$((FILE_MB * 1048576))

echo "== warm-up (RAM working set $((RAM_SPAN / 1048576)) MiB; not measured)"
AUTH_HEADER="Bearer $KEY" RANGE_BYTES=1048576 SPAN_BYTES=$RAM_SPAN wrk -t1 -c4 -d3s -s "$BENCH_DIR/ranges.lua" -H "$AUTH" "$L2_URL" >/dev/null
curl -s -H "$AUTH" "$L2_URL" -r 0-$((RAM_SPAN - 1)) -o /dev/null
cat "$FILE" > /dev/null
# JIT warm-up of both request paths at the measured sizes: without it the first L2 runs measure the compiler
for url in "$L2_URL" "$NGINX_URL"; do
  for len in 65536 1048576; do
    AUTH_HEADER="Bearer $KEY" RANGE_BYTES=$len SPAN_BYTES=$RAM_SPAN wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$WARMUP" \
      -s "$BENCH_DIR/ranges.lua" -H "$AUTH" "$url" >/dev/null
  done
done

wanted() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }

echo "== L2 RAM tier vs nginx, $CONNECTIONS connections, $DURATION each"
for len in 65536 1048576; do
  if wanted "ram$((len / 1024))"; then pair "RAM tier $((len / 1024)) KiB" $len $RAM_SPAN; fi
done

if wanted ssd64 || wanted ssd1024; then
if [ -z "$FLOOR" ]; then
echo "== prefetch the whole file to the SSD tier"
curl -s -H "$AUTH" -X POST --data-binary "{\"key\":\"bench.bin\",\"size\":$FILE_BYTES}" "http://127.0.0.1:$L2_PORT/prefetch"; echo
for _ in $(seq 1 300); do
  # the page writes doubles ("1.0"): compare as a number
  [ "$(metric 'offcache_server_prefetch_requests_total{outcome="completed"}' | awk '{ print ($1 >= 1) }')" = 1 ] && break
  sleep 1
done
echo "SSD blocks: $(metric 'offcache_server_tier_blocks{tier="ssd"}') (blocks already in RAM are not prefetched)"
# one sequential pass: each SSD block is read back and CRC-checked once, after which it is sent with sendfile
curl -s -H "$AUTH" "$L2_URL" -o /dev/null
fi
# JIT warm-up of the SSD path (chunks sent from block files), not measured: without it the first L2 run of the SSD
# phase measures the compiler (the RAM warm-up never sends a file region)
for url in "$L2_URL" "$NGINX_URL"; do
  AUTH_HEADER="Bearer $KEY" RANGE_BYTES=65536 SPAN_BYTES=$FILE_BYTES wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$WARMUP" \
    -s "$BENCH_DIR/ranges.lua" -H "$AUTH" "$url" >/dev/null
done

echo "== L2 SSD tier (working set $FILE_MB MiB >> RAM $RAM_MB MiB) vs nginx"
for len in 65536 1048576; do
  if wanted "ssd$((len / 1024))"; then pair "SSD tier $((len / 1024)) KiB" $len $FILE_BYTES; fi
done
fi
if [ -z "$FLOOR" ]; then
echo "lookups: ram_hit $(metric 'offcache_server_block_lookups_total{result="ram_hit"}')" \
  "ssd_hit $(metric 'offcache_server_block_lookups_total{result="ssd_hit"}')" \
  "miss $(metric 'offcache_server_block_lookups_total{result="miss"}')"
echo "SSD blocks verified $(metric offcache_server_ssd_verified_reads_total)," \
  "sent from their files $(metric offcache_server_ssd_zero_copy_reads_total)"
fi
echo "peak RSS: $ME $(hwm "$L2_PID"), nginx worker $(nginx_hwm)"
# of the L2's RSS now: anonymous memory (heap, slab, pools) and file pages (mapped files: the JVM's own, page cache)
echo "$ME RSS now: $(awk '/RssAnon|RssFile/ { printf "%s %d MiB  ", $1, $2 / 1024 }' "/proc/$L2_PID/status")"
[ -n "$FLOOR" ] || echo "l2 response memory peak: $(metric offcache_server_memory_in_flight_peak_bytes) bytes"

# The measurement file: per case and server the runs' req/s and p50/p99 (ms), and each server's peak RSS.
awk -F'\t' -v CONVFMT=%.10g -v cmd="${FLOOR:+FLOOR=$FLOOR }FILE_MB=$FILE_MB RAM_MB=$RAM_MB DURATION=$DURATION CONNECTIONS=$CONNECTIONS WRK_THREADS=$WRK_THREADS IO_THREADS=$IO_THREADS sh cache-server/bench/l2-vs-nginx.sh" \
  -v started="$STARTED_AT" -v load0="$LOAD_START" -v load1="$(cut -d' ' -f1-3 /proc/loadavg)" \
  -v machine="$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs" \
  -v me="$ME" -v rss_l2="$(hwm "$L2_PID" | cut -d' ' -f1)" -v rss_nginx="$(nginx_hwm | cut -d' ' -f1)" '
  function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /m$/) return v * 60000
                   if (v ~ /s$/) return v * 1000; return v + 0 }
  function esc(t) { gsub(/\\/, "\\\\", t); gsub(/"/, "\\\"", t); return t }
  function entry(c, metric, unit, better, impl, values) {
    out = out (out == "" ? "" : ",\n") sprintf("    {\"case\": \"%s\", \"metric\": \"%s\", \"unit\": \"%s\", \"better\": \"%s\", \"impl\": \"%s\", \"values\": [%s]}", c, metric, unit, better, impl, values)
  }
  { server = $1; sub(/ .*/, "", server); c = $1; sub(/^[^ ]+ +/, "", c); sub(/ \([0-9]+\)$/, "", c)
    k = c SUBSEP server; if (!(k in rps)) { order[++n] = k; cases[k] = c; servers[k] = server }
    rps[k] = rps[k] (rps[k] == "" ? "" : ", ") ($2 + 0); p50[k] = p50[k] (p50[k] == "" ? "" : ", ") ms($3)
    p99[k] = p99[k] (p99[k] == "" ? "" : ", ") ms($4)
    if ($5 != "") notes = notes ", \"" esc($1 ": " $5) "\"" }
  END {
    for (i = 1; i <= n; i++) { k = order[i]; impl = servers[k] == "l2" ? "offcache" : servers[k]
      entry(cases[k], "throughput", "req/s", "higher", impl, rps[k])
      entry(cases[k], "p50 latency", "ms", "lower", impl, p50[k]); entry(cases[k], "p99 latency", "ms", "lower", impl, p99[k]) }
    if (rss_l2 != "") entry("whole run", "peak RSS", "MiB", "lower", me == "l2" ? "offcache" : me, rss_l2)
    if (rss_nginx != "") entry("whole run", "peak RSS", "MiB", "lower", "nginx", rss_nginx)
    printf "{\n  \"format\": \"offcache-measurements/1\",\n  \"suite\": \"cache-server.L2VsNginx\",\n"
    printf "  \"title\": \"The L2 cache server against nginx (sendfile) serving one file, the same wrk load of random block-aligned Range GETs (runs in ABBA order, each value the mean of its runs, the interval their range)\",\n"
    printf "  \"command\": \"%s\",\n  \"machine\": \"%s\",\n  \"startedAt\": \"%s\",\n", cmd, esc(machine), started
    printf "  \"load\": {\"start\": \"%s\", \"end\": \"%s\"},\n", load0, load1
    printf "  \"notes\": [\"Peak RSS: the L2 JVM against the largest nginx worker (the master does no I/O).\"%s],\n", notes
    printf "  \"measurements\": [\n%s\n  ]\n}\n", out }' "$RUNS" > "$RESULTS"
echo "measurement file: $RESULTS"
