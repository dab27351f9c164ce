#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the sharded build, waits for every index to complete, then runs the merge and waits for it.
# Usage: examples/kubernetes/run.sh [TIMEOUT]   (kubectl configured for the cluster; default timeout 2h)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
timeout=${1:-2h}
kubectl apply -f "$here/shaderbake-shards.yaml"
kubectl wait --for=condition=complete --timeout="$timeout" job/shaderbake-shards
kubectl apply -f "$here/shaderbake-merge.yaml"
kubectl wait --for=condition=complete --timeout="$timeout" job/shaderbake-merge
