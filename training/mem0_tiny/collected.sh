# Sourced by the collection pipelines (video.sh, mn.sh).

# Moves the episodes of collect.ts folder $1 that did not succeed to $1-failed (the expert's data only).
set_failures_aside() {
  mkdir -p "$1-failed"
  for meta in "$1"/*.json; do
    [ "$(basename "$meta")" = vocabulary.json ] && continue
    grep -q '"outcome":"success"' "$meta" || mv "${meta%.json}".* "$1-failed/"
  done
}
