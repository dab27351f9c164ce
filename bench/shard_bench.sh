#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sharded builds against one build, on generated traces, every build cold (--no-cache: every module compiled).
# Part 1, the base trace (1x), RUNS rounds (default 3), interleaved so a noisy stretch hits every variant:
#   single      one build, -j2;
#   at once     N shards started together on this machine, -j1 each (what N processes on 2 cores give);
#   alone       each shard by itself, -j2 (what each of N 2-core machines would do), then merge the N.
#   projected on N machines = the slowest shard alone + the merge (traces and shards moved for free).
# Part 2, the cost curve: traces of 1x, 4x and 16x the draws and states, one build each and 4 shards alone +
# their merge, so the merge's cost and the projection are known as the input grows.
# Every merge must give the single build's bytes (exit 1 otherwise); nothing about time is asserted.
# Usage: bench/shard_bench.sh   BUILD_DIR (default build/), RUNS, SHARDS (default "2 4 8"), SCALES (default
#                               "1 4 16"), TMPDIR the work directory. Raw output: --json FILE.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
[[ -f $build_dir/CMakeCache.txt ]] || BUILD_DIR=$build_dir "$root/scripts/build" >&2
cmake --build "$build_dir" --target shaderbake shaderbake-tracegen >&2
exec python3 - "$build_dir" "${RUNS:-3}" "${SHARDS:-2 4 8}" "${SCALES:-1 4 16}" "${TMPDIR:-/tmp}/shaderbake-bench/shards" "$@" <<'PY'
import json, os, statistics, subprocess, sys, time

build_dir, runs, shard_counts, scales, work = sys.argv[1], int(sys.argv[2]), [int(n) for n in sys.argv[3].split()], \
    [int(s) for s in sys.argv[4].split()], sys.argv[5]
json_out = sys.argv[sys.argv.index('--json') + 1] if '--json' in sys.argv else None
bin_ = os.path.join(build_dir, 'shaderbake')
os.makedirs(work, exist_ok=True)

def trace_for(scale):
    path = os.path.join(work, f'trace_{scale}x.jsonl')
    args = ['--seed', '21', '--frames', str(200 * scale), '--draws-per-frame', '40', '--states', str(500 * scale)]
    if not os.path.exists(path):
        subprocess.run([os.path.join(build_dir, 'samples', 'shaderbake-tracegen'), *args, '-o', path], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path, ' '.join(args)

def start_build(trace, out, jobs, shard=None):
    cmd = [bin_, 'build', trace, '-o', out, '--no-cache', '-j', str(jobs), '--json']
    if shard: cmd += ['--shard', shard]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

def finish(p):
    out, err = p.communicate()
    if p.returncode not in (0, 1):  # 1: a bundle with per-key failures, written
        sys.exit(f'error: {" ".join(p.args)} exited {p.returncode}: {err.decode()[-400:]}')
    return json.loads(out)

def timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result

def single(trace, out):
    return timed(lambda: finish(start_build(trace, out, 2)))

def shards_alone(trace, n, prefix):
    times = []
    for k in range(n):
        t, _ = timed(lambda: finish(start_build(trace, f'{prefix}_{k}.sbk', 2, f'{k}/{n}')))
        times.append(t)
    return times

def shards_at_once(trace, n, prefix):
    def run():
        procs = [start_build(trace, f'{prefix}_{k}.sbk', 1, f'{k}/{n}') for k in range(n)]
        for p in procs: finish(p)
    return timed(run)[0]

def merge(n, prefix, out):
    cmd = [bin_, 'merge', *[f'{prefix}_{k}.sbk' for k in range(n)], '-o', out, '-j', '2', '--json']
    t, p = timed(lambda: subprocess.run(cmd, capture_output=True))
    if p.returncode != 0: sys.exit(f'error: merge exited {p.returncode}: {p.stderr.decode()[-400:]}')
    return t

def same(a, b):
    with open(a, 'rb') as fa, open(b, 'rb') as fb:
        if fa.read() != fb.read(): sys.exit(f'error: {a} is not the single build {b}: merge broke byte identity')

cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
print(f'machine: {os.cpu_count()} cores, {cpu}, load average {" ".join(open("/proc/loadavg").read().split()[:3])}')
raw = {'machine': {'cores': os.cpu_count(), 'cpu': cpu}, 'runs': runs, 'part1': {}, 'part2': []}

# Part 1.
trace, args = trace_for(1)
print(f'part 1: shaderbake-tracegen {args} ({os.path.getsize(trace)} bytes), {runs} rounds, cold builds')
rounds = {'single': [], **{n: {'at_once': [], 'alone': [], 'merge': []} for n in shard_counts}}
summary = None
for r in range(runs):
    t, summary = single(trace, os.path.join(work, 'single.sbk'))
    rounds['single'].append(t)
    for n in shard_counts:
        prefix = os.path.join(work, f'shard{n}')
        rounds[n]['at_once'].append(shards_at_once(trace, n, prefix))
        rounds[n]['alone'].append(shards_alone(trace, n, prefix))
        rounds[n]['merge'].append(merge(n, prefix, os.path.join(work, f'merged{n}.sbk')))
        same(os.path.join(work, f'merged{n}.sbk'), os.path.join(work, 'single.sbk'))
single_median = statistics.median(rounds['single'])
print(f'  the build: {summary.get("draws", "?")} draws, {summary.get("exact_pipelines", "?")} exact pipelines, '
      f'{summary.get("modules", "?")} modules; every merge byte-identical to it')
print(f'  single build -j2: median {single_median:.2f} s (runs {", ".join(f"{t:.2f}" for t in rounds["single"])})')
print(f'  {"N":>3} {"at once":>9} {"vs single":>9} {"slowest alone":>13} {"sum alone":>9} {"merge":>7} {"projected":>9} {"speed-up":>8}')
raw['part1'] = {'trace': args, 'single_s': rounds['single'], 'shards': {}}
for n in shard_counts:
    at_once = statistics.median(rounds[n]['at_once'])
    slowest = statistics.median(max(a) for a in rounds[n]['alone'])
    total = statistics.median(sum(a) for a in rounds[n]['alone'])
    merge_s = statistics.median(rounds[n]['merge'])
    projected = slowest + merge_s
    print(f'  {n:>3} {at_once:>8.2f}s {at_once / single_median:>8.2f}x {slowest:>12.2f}s {total:>8.2f}s {merge_s:>6.2f}s '
          f'{projected:>8.2f}s {single_median / projected:>7.2f}x')
    raw['part1']['shards'][str(n)] = {k: rounds[n][k] for k in ('at_once', 'alone', 'merge')}

# Part 2.
print('part 2: the cost curve (one round each): single -j2, 4 shards alone -j2, their merge')
print(f'  {"scale":>5} {"draws":>8} {"pipelines":>9} {"modules":>8} {"bundle":>10} {"single":>8} {"slowest":>8} '
      f'{"merge":>7} {"projected":>9} {"speed-up":>8}')
for scale in scales:
    trace, args = trace_for(scale)
    t, s = single(trace, os.path.join(work, f'scale{scale}.sbk'))
    prefix = os.path.join(work, f'scale{scale}_shard')
    alone = shards_alone(trace, 4, prefix)
    merge_s = merge(4, prefix, os.path.join(work, f'scale{scale}_merged.sbk'))
    same(os.path.join(work, f'scale{scale}_merged.sbk'), os.path.join(work, f'scale{scale}.sbk'))
    size = os.path.getsize(os.path.join(work, f'scale{scale}.sbk'))
    pipelines = s.get('exact_pipelines', 0) + s.get('fallback_pipelines', 0)
    print(f'  {scale:>4}x {s.get("draws", "?"):>8} {pipelines:>9} {s.get("modules", "?"):>8} {size:>10} {t:>7.2f}s '
          f'{max(alone):>7.2f}s {merge_s:>6.2f}s {max(alone) + merge_s:>8.2f}s {t / (max(alone) + merge_s):>7.2f}x')
    raw['part2'].append({'scale': scale, 'trace': args, 'summary': s, 'single_s': t, 'alone_s': alone, 'merge_s': merge_s,
                         'bundle_bytes': size})
if json_out:
    with open(json_out, 'w') as f: json.dump(raw, f, indent=1)
PY
