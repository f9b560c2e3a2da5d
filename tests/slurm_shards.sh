#!/usr/bin/env bash
# A sharded run on a real single-node Slurm equals the unsharded run. Starts its own munged,
# slurmctld and slurmd (as root, in a private folder, on private ports), submits
# scripts/shards.sh's job array and merge job, waits, compares, and stops the daemons.
# Usage: tests/slurm_shards.sh QCESIM_BINARY SOURCE_DIR. Exit 77 (skipped) when not root, when
# Slurm is not installed or when its daemons do not come up on this machine; a sharded result that
# is missing or differs is a failure.
set -euo pipefail
bin=${1:?qcesim binary}
src=${2:?source dir}
if [[ $(id -u) -ne 0 ]]; then echo "skipped: the daemons need root"; exit 77; fi
for t in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$t" >/dev/null || { echo "skipped: $t not installed (scripts/setup.sh installs slurm-wlm and munge)"; exit 77; }
done
tmp=$(mktemp -d /tmp/qcesim-slurm-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp"/{state,spool,munge,out,work}
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.sock" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed"
pids+=("$(cat "$tmp/munge/munged.pid")")
host=$(hostname -s)
cpus=$(nproc)
port=$((20000 + RANDOM % 20000))
cat > "$tmp/slurm.conf" <<CONF
ClusterName=qcesim-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -f "$SLURM_CONF" -D >/dev/null 2>&1 &
pids+=($!)
slurmd -f "$SLURM_CONF" -D >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
  sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
  sleep 0.5
done
if ! sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
  # The machine would not run the daemons (no loopback, a locked-down container): not a qcesim
  # failure, so skipped, with the daemons' last words.
  echo "skipped: Slurm did not come up"; tail -5 "$tmp/slurmctld.log" "$tmp/slurmd.log" 2>/dev/null || true
  exit 77
fi
# The work: a small uncertainty run, unsharded and as 3 Slurm array tasks + merge.
cp "$src/scenarios/sm8650-seed.json" "$src/scenarios/sm8650.json" "$tmp/work/"
cd "$tmp/work"
args=(run sm8650-seed.json --uncertainty 6 --set workload.messages=40 --jobs 1)
"$bin" "${args[@]}" > whole.txt 2>/dev/null
"$src/scripts/shards.sh" slurm 3 "$tmp/out" -- "$bin" "${args[@]}"
for _ in $(seq 1 240); do
  [[ -z $(squeue -h -n qcesim-shard,qcesim-merge 2>/dev/null) ]] && break
  sleep 0.5
done
if [[ ! -s $tmp/out/result.txt ]]; then
  echo "no merged result"; cat "$tmp"/out/*.log 2>/dev/null | tail -20; exit 1
fi
if ! cmp -s whole.txt "$tmp/out/result.txt"; then
  echo "the merged result differs from the unsharded run"; diff whole.txt "$tmp/out/result.txt" | head; exit 1
fi
echo "3 Slurm array tasks + merge job: identical to the unsharded run"
# A sweep the same way: 2 array tasks and a merge job; its table is the unsharded sweep's.
cp "$src/scenarios/study-message-size.json" "$tmp/work/"
sweep=(sweep study-message-size.json --set workload.messages=20 --jobs 1 --out merged)
"$bin" sweep study-message-size.json --set workload.messages=20 --jobs 1 --out whole > whole-sweep.txt 2>/dev/null
"$src/scripts/shards.sh" slurm 2 "$tmp/sweep" -- "$bin" "${sweep[@]}"
for _ in $(seq 1 480); do
  [[ -z $(squeue -h -n qcesim-shard,qcesim-merge 2>/dev/null) ]] && break
  sleep 0.5
done
if [[ ! -s $tmp/sweep/result.txt ]] || ! cmp -s whole-sweep.txt "$tmp/sweep/result.txt"; then
  echo "the merged sweep differs from the unsharded one"; diff whole-sweep.txt "$tmp/sweep/result.txt" | head
  cat "$tmp"/sweep/*.log 2>/dev/null | tail -20; exit 1
fi
echo "2 Slurm array tasks + merge job: the sweep's table identical to the unsharded sweep's"
