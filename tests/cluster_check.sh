#!/bin/bash
# docs/cluster.md's two recipes, run locally on the fixture model: a Slurm job array simulated by
# setting SLURM_ARRAY_TASK_ID/COUNT, and GNU parallel with local jobs. Each must equal the unsharded run.
set -euo pipefail
nmt=$1
model=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/nmt_cluster.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/a/b" "$work/bin"
for i in $(seq 1 12); do
  dir=$work/src; [ $((i % 3)) = 0 ] && dir=$work/src/a; [ $((i % 4)) = 0 ] && dir=$work/src/a/b
  for j in $(seq 1 $((i * i % 17 + 1))); do echo "the dog number $j"; done > "$dir/f$i.txt"
done
ln -s "$nmt" "$work/bin/nmt"  # the recipes call `nmt` from PATH
export PATH=$work/bin:$PATH NMT_MODEL=$model

nmt translate -q --threads 1 --input-dir "$work/src" --output-dir "$work/whole" 2> /dev/null

# The Slurm script of docs/cluster.md, paths adjusted.
cat > "$work/translate.sbatch" << 'SCRIPT'
#!/bin/bash
#SBATCH --array=0-2
exec nmt translate -q --threads "$SLURM_CPUS_PER_TASK" \
  --input-dir "$SRC" --output-dir "$DST" \
  --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"
SCRIPT
for i in 0 1 2; do
  SRC=$work/src DST=$work/slurm SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=1 \
    bash "$work/translate.sbatch" 2> /dev/null &
done
wait

parallel -S : --jobs 2 --halt now,fail=1 \
  nmt translate -q --threads 1 --input-dir "$work/src" --output-dir "$work/parallel" --shard {}/4 ::: 0 1 2 3 \
  2> /dev/null

for run in slurm parallel; do
  diff -r -x '.nmt-manifest*' "$work/whole" "$work/$run"
done
ls "$work/slurm"/.nmt-manifest.{0,1,2}-of-3.json > /dev/null
echo "cluster recipes match the unsharded run"
