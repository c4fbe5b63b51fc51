# What the record scripts share (sourced): step NAME COMMAND... runs the command unless
# KERNWERK_RECORD_STEPS names other steps, logs it to $out/NAME.log and sets failed=1 where it
# fails. The caller sets `out`.
steps=${KERNWERK_RECORD_STEPS:-all}
failed=0
step() {
  local name=$1
  shift
  [[ $steps == all || " $steps " == *" $name "* ]] || return 0
  echo "== $name $(date +%T)" >&2
  if ! "$@" > "$out/$name.log" 2>&1; then
    echo "FAILED: $name (see $name.log)" >&2
    tail -n 20 "$out/$name.log" >&2
    failed=1
  fi
}
