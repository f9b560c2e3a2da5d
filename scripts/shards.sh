#!/usr/bin/env bash
# Splits a qcesim uncertainty, --seeds, sensitivity or sweep run into N shards for a batch engine,
# then merges them; the merged table is identical to the unsharded run's (docs/validation.md,
# docs/sweep.md).
#
#   scripts/shards.sh local N JOBS DIR -- QCESIM ARGS...   shards under xargs -P JOBS on this machine
#   scripts/shards.sh slurm N DIR -- QCESIM ARGS...        a Slurm job array (one shard per task) and a
#                                                          merge job that waits for it (afterok)
#
# QCESIM ARGS is the command as it would run unsharded, with the binary first, e.g.
#   scripts/shards.sh slurm 16 out -- build/release/qcesim sensitivity scenarios/sm8650-seed.json \
#       --set workload.messages=5000 --trajectories 40
# DIR receives shard-I.json, the merged result (result.txt), the logs and (slurm) the two job
# scripts. Every argument is passed on as one word: quoted with bash's printf %q where a shell reads
# it, and that shell is bash (xargs' bash -c, the job scripts' #!/bin/bash), which reads %q's
# $'...' forms back; /bin/sh (sbatch --wrap) would not.
set -euo pipefail
mode=${1:?local or slurm}; shift
n=${1:?number of shards}; shift
case $mode in
  local) jobs=${1:?parallel jobs}; shift ;;
  slurm) ;;
  *) echo "shards.sh: expected local or slurm, found '$mode'" >&2; exit 2 ;;
esac
dir=${1:?output folder}; shift
[[ ${1:-} == -- ]] || { echo "shards.sh: expected -- before the qcesim command" >&2; exit 2; }
shift
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "shards.sh: expected a shard count, found '$n'" >&2; exit 2; }
mkdir -p -- "$dir"
dir=$(cd -- "$dir" && pwd)
cmd=$(printf '%q ' "$@")
merge_args=()
for ((i = 0; i < n; i++)); do merge_args+=("$dir/shard-$i.json"); done
case $mode in
  local)
    [[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "shards.sh: expected a job count, found '$jobs'" >&2; exit 2; }
    seq 0 $((n - 1)) | xargs -P "$jobs" -I{} bash -c "$cmd --shard {}/$n --shard-out $(printf '%q' "$dir")/shard-{}.json 2> $(printf '%q' "$dir")/shard-{}.log"
    "$@" --merge "${merge_args[@]}" > "$dir/result.txt"
    cat "$dir/result.txt"
    ;;
  slurm)
    printf '#!/bin/bash\nset -e\ncd %q\n%s --shard "$SLURM_ARRAY_TASK_ID/%s" --shard-out %q/shard-"$SLURM_ARRAY_TASK_ID".json\n' \
      "$PWD" "$cmd" "$n" "$dir" > "$dir/shard.sbatch"
    printf '#!/bin/bash\nset -e\ncd %q\n%s --merge %s > %q/result.txt\n' \
      "$PWD" "$cmd" "$(printf '%q ' "${merge_args[@]}")" "$dir" > "$dir/merge.sbatch"
    array=$(sbatch --parsable --array=0-$((n - 1)) --output="$dir/shard-%a.log" --job-name=qcesim-shard "$dir/shard.sbatch")
    merge=$(sbatch --parsable --dependency=afterok:"$array" --output="$dir/merge.log" --job-name=qcesim-merge \
      "$dir/merge.sbatch")
    echo "submitted array $array ($n shards) and merge $merge; the result goes to $dir/result.txt"
    ;;
esac
