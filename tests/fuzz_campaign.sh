#!/bin/bash
# A long fuzz campaign in chunks (docs/reliability.md, "The campaign that was run").
# Usage: tests/fuzz_campaign.sh OUTDIR [FIRST_SEED] [CHUNKS_PER_KIND]
# Runs CHUNKS_PER_KIND chunks of 1,000 examples of each fuzz kind, one Hypothesis seed per chunk,
# so a failure costs one chunk and the rest of the campaign goes on. Per chunk: OUTDIR/out.KIND.SEED.txt;
# tallies (inputs per kind and outcome) append to OUTDIR/tally.KIND.json; OUTDIR/summary.txt has one
# line per chunk with its exit code. Run it from a separate clone so edits do not change the checker
# under test (EXAMPLES=N changes the chunk size). Not part of CI: 1,000 examples of a kind take one to three minutes on one core.
set -u
out=$(realpath -m "${1:?usage: tests/fuzz_campaign.sh OUTDIR [FIRST_SEED] [CHUNKS_PER_KIND]}")
seed=${2:-1}
chunks=${3:-25}
mkdir -p "$out"
cd "$(dirname "$0")/.."
python=${PYTHON:-python}
examples=${EXAMPLES:-1000}
for kind in token_soup grammar_shaped mutated define_values; do
  for c in $(seq 0 $((chunks - 1))); do
    s=$((seed + c))
    start=$(date +%s)
    TLACHECK_FUZZ_EXAMPLES="$examples" TLACHECK_FUZZ_TALLY="$out/tally.$kind.json" \
      "$python" -m pytest tests/test_fuzz.py -q -k "$kind" --hypothesis-seed="$s" -p no:cacheprovider \
      > "$out/out.$kind.$s.txt" 2>&1
    echo "$kind seed=$s rc=$? seconds=$(( $(date +%s) - start ))" >> "$out/summary.txt"
  done
done
