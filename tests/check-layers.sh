#!/bin/sh
# Data flows one way: a folder of the library includes only folders before it
# in this order (README, doc/architecture.md). Fails naming every include
# that points to a later stage.
srcdir=${top_srcdir:-$(dirname "$0")/..}
order="model calibrate hypotheses sim analysis extrap output pipeline cli"
status=0
i=0
for dir in $order; do
  i=$((i + 1))
  later=$(echo "$order" | tr ' ' '\n' | tail -n +$((i + 1)) | tr '\n' '|' | sed 's/|$//')
  [ -n "$later" ] || continue
  hits=$(grep -nE "#include \"($later)/" "$srcdir/$dir"/*.c "$srcdir/$dir"/*.cpp "$srcdir/$dir"/*.h 2>/dev/null)
  if [ -n "$hits" ]; then
    echo "$dir/ includes a later stage:"
    echo "$hits"
    status=1
  fi
done
[ $status -eq 0 ] && echo "layers: $order, no include points to a later stage"
exit $status
