#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real Slurm run of examples/slurm: a one-node cluster (Debian's slurm-wlm and munge) started in a temporary
# directory by this test and stopped by PID: munged on its own socket, slurmctld and slurmd on free loopback
# ports. submit.sh sends the shard builds as a job array and the merge as a job depending on it (afterok);
# the merged bundle must be the single build's bytes. A second submission whose array fails (a trace that
# does not exist) must leave the merge pending forever (DependencyNeverSatisfied) with no output written.
# Usage: slurm_shards_test.sh SHADERBAKE SOURCE_ROOT
bin=$(realpath "$1")
root=$(realpath "$2")
source "$(dirname "$0")/common.sh"

for tool in munged slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (scripts/setup installs slurm-wlm and munge)" >&2; exit 1; }
done
cluster=$tmp/cluster
mkdir -p "$cluster/munge" "$cluster/state" "$cluster/spool"
chmod 700 "$cluster/munge"
head -c 1024 /dev/urandom >"$cluster/munge/munge.key"
chmod 400 "$cluster/munge/munge.key"
pids=()
stop_cluster() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}
trap stop_cluster EXIT

munged -F -f --socket="$cluster/munge/socket" --key-file="$cluster/munge/munge.key" --pid-file="$cluster/munge/pid" \
  --log-file="$cluster/munge/log" --seed-file="$cluster/munge/seed" >"$cluster/munged.out" 2>&1 &
pids+=($!)
free_ports=$(python3 -c "
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(('127.0.0.1', 0))
print(' '.join(str(s.getsockname()[1]) for s in sockets))")
read -r ctld_port slurmd_port <<<"$free_ports"
user=$(id -un)
cat >"$cluster/slurm.conf" <<EOF
ClusterName=shaderbake-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$cluster/munge/socket
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/slurmctld.log
SlurmdLogFile=$cluster/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
NodeName=testnode NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) CPUs=$(nproc) State=UNKNOWN
PartitionName=shaderbake Nodes=testnode Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$cluster/slurm.conf
for _ in $(seq 50); do [[ -S $cluster/munge/socket ]] && break; sleep 0.1; done
slurmctld -D -i >"$cluster/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N testnode >"$cluster/slurmd.out" 2>&1 &
pids+=($!)
idle=0
for _ in $(seq 100); do
  if sinfo -h -n testnode -o %t 2>/dev/null | grep -qx idle; then idle=1; break; fi
  sleep 0.2
done
check "the one-node cluster comes up ($(tail -c 300 "$cluster/slurmctld.log" 2>/dev/null))" test $idle -eq 1

job_state() { scontrol show job "$1" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
job_reason() { scontrol show job "$1" -o 2>/dev/null | grep -o 'Reason=[A-Za-z_]*' | head -1 | cut -d= -f2; }
wait_done() {  # wait_done JOB: until it completes, fails or is cancelled (at most 10 minutes); fails when it never can run
  for _ in $(seq 3000); do
    case $(job_state "$1") in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 0 ;; esac
    [[ $(job_reason "$1") == DependencyNeverSatisfied ]] && return 1
    sleep 0.2
  done
  return 1
}

trace=$root/samples/traces/session_ref.jsonl
"$bin" build "$trace" -o "$tmp/single.sbk" --no-cache >/dev/null 2>&1
check "the single build exits 0" test $? -eq 0

cd "$tmp" || exit 1
jobs_line=$(SHADERBAKE=$bin "$root/examples/slurm/submit.sh" 3 shards game.sbk "$trace" 2>"$tmp/submit.err")
check "submit.sh submits the array and the merge ($(head -c 300 "$tmp/submit.err"))" test -n "$jobs_line"
read -r array merge <<<"$jobs_line"
check "the merge job depends on the array" grep -q "afterok:${array}" <(scontrol show job "$merge" -o)
check "the merge job finishes" wait_done "$merge"
for k in 0 1 2; do
  check "array task $k completed" test "$(job_state "${array}_$k")" = COMPLETED
done
check "the merge job completed ($(cat shaderbake-merge-"$merge".log 2>/dev/null | head -c 300))" test "$(job_state "$merge")" = COMPLETED
check "three shards were written" test "$(ls shards/shard_*.sbk 2>/dev/null | wc -l)" -eq 3
check "the merged bundle is the single build's bytes" cmp -s game.sbk single.sbk
check "the merge job's log names the three shards merged" grep -q "from 3 bundles" shaderbake-merge-"$merge".log

# An array task that fails: the merge never runs.
jobs_line=$(SHADERBAKE=$bin "$root/examples/slurm/submit.sh" 2 broken broken.sbk "$tmp/no-such-trace.jsonl" 2>/dev/null)
check "the second submission is made" test -n "$jobs_line"
read -r array merge <<<"$jobs_line"
check "the failing array finishes" wait_done "${array}_1"
for _ in $(seq 100); do [[ $(job_reason "$merge") == DependencyNeverSatisfied ]] && break; sleep 0.2; done
check "the merge after a failed array never runs (state $(job_state "$merge"), reason $(job_reason "$merge"))" \
  test "$(job_state "$merge")/$(job_reason "$merge")" = PENDING/DependencyNeverSatisfied
check "no merged bundle is written" test ! -e broken.sbk
scancel "$merge" 2>/dev/null

finish slurm_shards
