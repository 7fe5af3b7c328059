#!/bin/bash
# Runs `bash .ci/run` on N fresh clones of one commit, one after another; every even run beside two busy-loop CPU
# hogs. Stops at the first failure and keeps that run's log. Prints one line a run: its number, hogs, exit status and wall time.
# Usage: Scripts/flake-check.sh [REV] [N]   (default: HEAD, 20). Each run takes 3-6 minutes on 2 cores.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git -C "$repo" rev-parse "${1:-HEAD}")
runs=${2:-20}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for i in $(seq 1 "$runs"); do
  clone="$scratch/run$i"
  git clone -q "$repo" "$clone" && git -C "$clone" checkout -q "$rev"
  hogs=()
  if [ $((i % 2)) -eq 0 ]; then
    bash -c 'while :; do :; done' & hogs+=($!)
    bash -c 'while :; do :; done' & hogs+=($!)
  fi
  start=$(date +%s)
  (cd "$clone" && bash .ci/run > "$scratch/run$i.log" 2>&1)
  status=$?
  [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}"
  echo "run $i of ${rev:0:7}: hogs=${#hogs[@]} exit=$status wall=$(( $(date +%s) - start ))s"
  if [ $status -ne 0 ]; then
    grep -E "✘ Test .*(failed|recorded)" "$scratch/run$i.log" | head -20
    kept=$(mktemp --suffix=.log /tmp/flake-check-run$i-XXXX)
    cp "$scratch/run$i.log" "$kept" && echo "the failing run's log: $kept"
    exit 1
  fi
  rm -rf "$clone"
done
echo "all $runs runs passed"
