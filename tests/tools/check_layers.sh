#!/bin/bash
# Includes go one way (README.md, "Layers"; issue 14 §3): data flows
#   core <- collectors, probes <- store <- rules <- agent
# and a file may include only its own layer and the layers listed for it below. Prints
# file:line: include (layer -> layer) for every include that goes against the rule and exits 1;
# exits 0 when there is none. Usage: tests/tools/check_layers.sh [REPO]  (default: this checkout)
set -euo pipefail
repo=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$repo"

# What each top-level folder may include besides itself.
declare -A may=(
  [core]=""
  [collectors]="core"
  [probes]="core"
  [store]="core"
  [rules]="core store"
  [agent]="core collectors probes store rules"
)
# The exceptions, each with its reason; anything not listed here fails.
#  - The fault and net-setup code of the responder changes the host's links: it uses the
#    collectors' kernel-access helpers (rtnetlink handles and link lookup, the RDMA device's
#    netdev in sysfs), never collect_snapshot() or the store.
allowed_exceptions=(
  "probes/responder/control_fault.cpp collectors/sources/rdma_sysfs.h"
  "probes/fault/link_admin.cpp collectors/netlink/nl_route.h"
  "probes/fault/link_admin.cpp collectors/sources/rdma_sysfs.h"
  "probes/fault/net_setup.cpp collectors/netlink/nl_route.h"
  "probes/fault/net_setup.h collectors/netlink/nl_handles.h"
)

bad=0
for layer in "${!may[@]}"; do
  [[ -d $layer ]] || continue
  while IFS=: read -r file line text; do
    inc=${text#*\"}
    inc=${inc%%\"*}
    target=${inc%%/*}
    [[ $inc == */* && -n ${may[$target]+set} ]] || continue  # not one of the layers
    [[ $target == "$layer" ]] && continue
    [[ " ${may[$layer]} " == *" $target "* ]] && continue
    [[ " ${allowed_exceptions[*]/%/;} " == *" $file $inc;"* ]] && continue
    echo "$file:$line: #include \"$inc\" goes up or across ($layer may include ${may[$layer]:-only $layer}${may[$layer]:+ and $layer})"
    bad=1
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$layer" \
             --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.cc' || true)
done
# Inside agent/, the same one way (agent/README.md): the commands (cli/) may use everything; the
# daemon, the acceptance runner and the reports never include cli/, so each is a library the
# tests link without the command line. main.cpp (agent/ itself) includes cli/ only.
declare -A agent_may=(
  [replay]=""
  [sampling]="replay"
  [fabric]=""
  [fleet]="fabric"
  [accept]=""
  [reports]="fabric replay"
  [accept_run]="accept reports"
  [daemon]="fabric fleet reports replay sampling"
  [cli]="accept accept_run daemon fabric fleet replay reports sampling"
  [.]="cli"
)
while IFS=: read -r file line text; do
  inc=${text#*\"}
  inc=${inc%%\"*}
  [[ $inc == agent/*/* ]] || continue
  target=${inc#agent/}
  target=${target%%/*}
  sub=${file#agent/}
  [[ $sub == */* ]] && sub=${sub%%/*} || sub=.
  [[ $target == "$sub" ]] && continue
  if [[ -z ${agent_may[$sub]+set} ]]; then
    echo "$file:$line: agent/$sub/ is not a known part of agent/ (add it to agent_may in $0)"
    bad=1
    continue
  fi
  [[ " ${agent_may[$sub]} " == *" $target "* ]] && continue
  echo "$file:$line: #include \"$inc\" goes up or across inside agent/ (agent/$sub may include ${agent_may[$sub]:-only itself})"
  bad=1
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"agent/' agent \
           --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.cc' || true)
# Inside every layer, sub-folders include each other one way too (issue 30): no loop between two
# sub-folders (or a sub-folder and the layer's own files, "."). tsort finds the loops; each
# include on a loop is printed. The loops below are known and each has its owner; an include
# listed here is left out of the graph, any other loop fails.
known_loops=(
  "core/json -> core/."            # json_reader.cpp uses core/json_file.h (issue 30)
  "probes/incast -> probes/responder"  # incast_sender.h uses control_dispatch.h (issue 30)
  "rules/joblog -> rules/engine"   # the log rules use engine.h (issue 30)
)
for layer in "${!may[@]}"; do
  [[ -d $layer ]] || continue
  edges=()
  declare -A where=()
  while IFS=: read -r file line text; do
    inc=${text#*\"}
    inc=${inc%%\"*}
    from=${file#"$layer"/}
    [[ $from == */* ]] && from=${from%%/*} || from=.
    to=${inc#"$layer"/}
    [[ $to == */* ]] && to=${to%%/*} || to=.
    [[ $from == "$to" ]] && continue
    [[ " ${known_loops[*]/%/;} " == *" $layer/$from -> $layer/$to;"* ]] && continue
    edges+=("$from $to")
    where["$from $to"]+="  $file:$line: #include \"$inc\""$'\n'
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"'"$layer"'/' "$layer" \
             --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.cc' || true)
  ((${#edges[@]})) || { unset where; continue; }
  loop=$(printf '%s\n' "${edges[@]}" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p' |
         grep -v 'input contains a loop' | sort -u || true)
  if [[ -n $loop ]]; then
    mapfile -t members <<<"$loop"
    echo "$layer/: its sub-folders include each other in a loop: ${members[*]/#/$layer/}"
    for a in "${members[@]}"; do
      for b in "${members[@]}"; do
        [[ -n ${where["$a $b"]+set} ]] && printf '%s' "${where["$a $b"]}"
      done
    done
    bad=1
  fi
  unset where
done
if ((bad)); then
  echo "check_layers: includes against the layering (README.md, \"Layers\"): move the shared" \
       "type down to core/, or pass the behaviour in through a callback set by agent/" >&2
  exit 1
fi
echo "check_layers: every include goes one way"
