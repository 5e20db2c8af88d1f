#!/usr/bin/env bash
# Runs COMMAND and reports how busy the machine's cores were while it ran:
# every INTERVAL seconds (5 by default) a line "SECONDS-SINCE-START IDLE%"
# on stderr, then the core-seconds busy and idle in all. It reads the whole
# machine (the first line of /proc/stat), not only COMMAND: run it on an
# otherwise quiet machine.
#
# What it is for: when the idle total is small, the command (CI's
# `.ci/run`, say) is bound by CPU, and only less work, not a better order
# of the same work, makes it faster.
#
# Usage: tests/measure/cpu_busy.sh [-i SECONDS] COMMAND [ARGS...]
# Example: tests/measure/cpu_busy.sh bash .ci/run
set -euo pipefail
interval=5
if [ "${1:-}" = "-i" ]; then
    interval=$2
    shift 2
fi
if [ $# -eq 0 ]; then
    echo "usage: $0 [-i SECONDS] COMMAND [ARGS...]" >&2
    exit 2
fi
ticks=$(getconf CLK_TCK)

# Prints "TOTAL IDLE" in clock ticks since boot, over every core: idle
# counts idle and iowait, total every state.
counters() {
    read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
    echo "$((user + nice + system + idle + iowait + irq + softirq + steal)) $((idle + iowait))"
}

read -r total0 idle0 < <(counters)
start=$(date +%s)
(
    read -r prev_total prev_idle < <(counters)
    while sleep "$interval"; do
        read -r total idle < <(counters)
        span=$((total - prev_total))
        [ "$span" -gt 0 ] || continue
        echo "$(($(date +%s) - start)) $((100 * (idle - prev_idle) / span))%" >&2
        prev_total=$total
        prev_idle=$idle
    done
) &
sampler=$!
status=0
"$@" || status=$?
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
read -r total1 idle1 < <(counters)
busy=$(((total1 - total0) - (idle1 - idle0)))
idle=$((idle1 - idle0))
echo "$(($(date +%s) - start)) s: $((busy / ticks)) core-seconds busy, $((idle / ticks)) idle, on $(nproc) cores (exit status $status)" >&2
exit "$status"
