#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the sharded build, waits until every index has completed, then runs the merge and waits for it. Jobs of
# an earlier run are deleted first (their shards would be merged again otherwise); a failed Job stops the run.
# Usage: examples/kubernetes/run.sh [TIMEOUT_SECONDS]   (kubectl configured for the cluster; default 7200)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
timeout=${1:-7200}

wait_for() {  # wait_for JOB: until its Complete condition (exit 0) or its Failed one (exit 1)
  local job=$1 waited=0 conditions
  while ((waited < timeout)); do
    conditions=$(kubectl get "job/$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type} {end}')
    case " $conditions " in
      *" Complete "*) return 0 ;;
      *" Failed "*) echo "job $job failed: kubectl describe job/$job" >&2; return 1 ;;
    esac
    sleep 10
    waited=$((waited + 10))
  done
  echo "job $job did not finish in $timeout s" >&2
  return 1
}

kubectl delete job shaderbake-shards shaderbake-merge --ignore-not-found
kubectl apply -f "$here/shaderbake-shards.yaml"
wait_for shaderbake-shards
kubectl apply -f "$here/shaderbake-merge.yaml"
wait_for shaderbake-merge
