#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The job-runner examples no cluster here can run: examples/kubernetes (an Indexed Job and its merge Job) and
# examples/ci/github-actions.yml (a matrix and a merge job). Each file is read as YAML; its shard count, index
# range and index variable must agree with the --shard auto/N its command gives; then the commands themselves
# run here, once per index with the variable the runner would set (JOB_COMPLETION_INDEX; the matrix value),
# on a sample trace and a generated one, and their merge must be the single build's bytes. (Slurm, which can
# run here, has its own test: slurm_shards_test.sh.)
# Usage: job_manifests_test.sh SHADERBAKE TRACEGEN SOURCE_ROOT
bin=$(realpath "$1")
tracegen=$2
root=$(realpath "$3")
source "$(dirname "$0")/common.sh"

# A shaderbake on PATH, as the images and runners have it.
mkdir -p "$tmp/path"
ln -s "$bin" "$tmp/path/shaderbake"
export PATH=$tmp/path:$PATH

# The Kubernetes manifests: the build Job's pods, then the merge Job, with /work a directory here.
export WORK=$tmp/work
python3 - "$root/examples/kubernetes" "$tmp/k8s" >"$tmp/k8s.out" 2>&1 <<'PY'
import os, re, sys, yaml
src, out = sys.argv[1], sys.argv[2]
shards = yaml.safe_load(open(os.path.join(src, 'shaderbake-shards.yaml')))
merge = yaml.safe_load(open(os.path.join(src, 'shaderbake-merge.yaml')))
spec = shards['spec']
assert shards['kind'] == 'Job' and spec['completionMode'] == 'Indexed', 'the shard Job is not an Indexed Job'
build = spec['template']['spec']['containers'][0]['command']
n = int(re.search(r'--shard auto/(\d+)', build[-1]).group(1))
assert spec['completions'] == n, f"completions {spec['completions']} but --shard auto/{n}"
assert spec['template']['spec']['restartPolicy'] == 'Never'
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, 'count'), 'w') as f: f.write(str(n))
with open(os.path.join(out, 'build.sh'), 'w') as f: f.write(build[-1].replace('/work', os.environ['WORK']))
assert build[:2] == ['sh', '-c'], 'the build command is not sh -c'
command = merge['spec']['template']['spec']['containers'][0]['command']
assert command[:2] == ['sh', '-c'], 'the merge command is not sh -c'
with open(os.path.join(out, 'merge.sh'), 'w') as f: f.write(command[-1].replace('/work', os.environ['WORK']))
PY
check "the Kubernetes manifests read as an Indexed Job and a merge ($(head -c 300 "$tmp/k8s.out"))" test -s "$tmp/k8s/merge.sh"
mkdir -p "$WORK/traces"
cp "$root/samples/traces/session_ref.jsonl" "$WORK/traces/a.jsonl"
"$tracegen" --seed 3 --frames 60 --draws-per-frame 20 --states 120 -o "$WORK/traces/b.jsonl" >/dev/null 2>&1
"$bin" build "$WORK"/traces/*.jsonl -o "$tmp/single.sbk" --no-cache >/dev/null 2>&1
check "the single build exits 0" test $? -eq 0
n=$(cat "$tmp/k8s/count" 2>/dev/null || echo 0)
for ((k = 0; k < n; ++k)); do
  JOB_COMPLETION_INDEX=$k sh -c "$(cat "$tmp/k8s/build.sh")" >"$tmp/pod_$k.out" 2>&1
  rc=$?
  check "Indexed Job pod $k succeeds ($(head -c 200 "$tmp/pod_$k.out"))" test $rc -eq 0
done
sh -c "$(cat "$tmp/k8s/merge.sh")" >"$tmp/merge.out" 2>&1
rc=$?
check "the merge Job succeeds ($(head -c 200 "$tmp/merge.out"))" test $rc -eq 0
check "the Kubernetes run gives the single build's bytes" cmp -s "$WORK/game.sbk" "$tmp/single.sbk"

# The GitHub Actions workflow: each matrix job's build step, then the merge job's step, in a checkout whose
# captures are the traces above, with this shaderbake on PATH (the jobs install the package).
python3 - "$root/examples/ci/github-actions.yml" "$tmp/gha" >"$tmp/gha.out" 2>&1 <<'PY'
import os, re, sys, yaml
workflow, out = yaml.safe_load(open(sys.argv[1])), sys.argv[2]
jobs = workflow['jobs']
matrix = jobs['shards']['strategy']['matrix']['shard']
step = next(s for s in jobs['shards']['steps'] if '--shard' in s.get('run', ''))
n = int(re.search(r'--shard auto/(\d+)', step['run']).group(1))
assert matrix == list(range(n)), f'matrix {matrix} but --shard auto/{n}'
variable = re.search(r'--shard-index-env (\w+)', step['run']).group(1)
assert step['env'][variable] == '${{ matrix.shard }}', f'{variable} is not the matrix index'
assert jobs['merge']['needs'] == 'shards', 'the merge job does not wait for the shards'
assert jobs['shards']['needs'] == 'tool', 'the shard jobs do not wait for the tool'
assert all(jobs[j].get('container') == 'debian:12' for j in jobs), 'every job runs in one image (one toolchain)'
merge = next(s for s in jobs['merge']['steps'] if 'merge' in s.get('run', ''))
os.makedirs(out, exist_ok=True)
for k in matrix:
    with open(os.path.join(out, f'shard_{k}.sh'), 'w') as f:
        f.write(f'export {variable}={k}\nset -e\n' + step['run'].replace('${{ matrix.shard }}', str(k)))
with open(os.path.join(out, 'merge.sh'), 'w') as f: f.write('set -e\n' + merge['run'])
PY
check "the workflow reads as a matrix and a merge job ($(head -c 300 "$tmp/gha.out"))" test -s "$tmp/gha/merge.sh"
checkout=$tmp/checkout
mkdir -p "$checkout/captures"
cp "$WORK"/traces/*.jsonl "$checkout/captures/"
# The report records the traces' paths as given: the single build reads them as the workflow does.
(cd "$checkout" && "$bin" build captures/*.jsonl -o "$tmp/single_checkout.sbk" --no-cache >/dev/null 2>&1)
for script in "$tmp"/gha/shard_*.sh; do
  (cd "$checkout" && bash "$script") >"$tmp/job.out" 2>&1
  rc=$?
  check "matrix job $(basename "$script" .sh) succeeds ($(head -c 200 "$tmp/job.out"))" test $rc -eq 0
done
# The merge job downloads every shard artifact into shards/: here they are there already.
(cd "$checkout" && bash "$tmp/gha/merge.sh") >"$tmp/merge.out" 2>&1
rc=$?
check "the merge job succeeds ($(head -c 200 "$tmp/merge.out"))" test $rc -eq 0
check "the matrix run gives the single build's bytes" cmp -s "$checkout/game.sbk" "$tmp/single_checkout.sbk"

finish job_manifests
