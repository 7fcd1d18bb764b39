#!/bin/bash
# Includes go one way (README.md, "Layers"; issue 14 §3): data flows
#   core <- collectors, probes <- store <- rules <- agent
# and a file may include only its own layer and the layers listed for it below. Prints
# file:line: include (layer -> layer) for every include that goes against the rule, and
# CMakeLists: target links library for every target_link_libraries that does, and exits 1;
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
# Links go the same one way (issue 30): a target defined in a layer's CMakeLists links the
# project's libraries (rh_*, wherever defined) of its own layer and of the layers it may include;
# inside agent/, of its own part and of the parts agent_may lists. External libraries are not
# checked. The exceptions, each with its reason (as for the includes):
#  - the responder's fault and net-setup code uses the collectors' kernel-access helpers
#    (allowed_exceptions above).
allowed_links=(
  "rh_probes rh_collectors"
)
declare -A lib_dir=()  # a project target -> the folder of the CMakeLists.txt that defines it
cmakes=$(find "${!may[@]}" -name CMakeLists.txt 2>/dev/null | sort)
for cm in $cmakes; do
  for t in $(sed 's/#.*//' "$cm" | tr '\n' ' ' |
             grep -oE '(add_library|add_executable)\([[:space:]]*[A-Za-z0-9_]+' |
             sed -E 's/.*\([[:space:]]*//'); do
    lib_dir[$t]=$(dirname "$cm")
  done
done
part_of() {  # a folder -> its layer, and for agent/ its part ("agent/daemon" -> "agent daemon")
  local layer=${1%%/*} rest=${1#*/}
  [[ $1 == */* ]] || rest=.
  echo "$layer ${rest%%/*}"
}
for cm in $cmakes; do
  while IFS= read -r call; do
    read -ra words <<<"$(sed -E 's/^target_link_libraries\(//; s/\)$//' <<<"$call")"
    target=${words[0]}
    read -r tl tp <<<"$(part_of "${lib_dir[$target]:-$(dirname "$cm")}")"
    for dep in "${words[@]:1}"; do
      [[ -n ${lib_dir[$dep]+set} && $dep != "$target" ]] || continue  # not one of the project's
      read -r dl dp <<<"$(part_of "${lib_dir[$dep]}")"
      [[ " ${allowed_links[*]/%/;} " == *" $target $dep;"* ]] && continue
      if [[ $tl != "$dl" ]]; then
        [[ " ${may[$tl]} " == *" $dl "* ]] && continue
        echo "$cm: $target links $dep: goes up or across ($tl may link ${may[$tl]:-only $tl}${may[$tl]:+ and $tl})"
        bad=1
      elif [[ $tl == agent && $tp != "$dp" ]]; then
        [[ " ${agent_may[$tp]:-} " == *" $dp "* ]] && continue
        echo "$cm: $target links $dep: goes up or across inside agent/ (agent/$tp may link ${agent_may[$tp]:-only itself})"
        bad=1
      fi
    done
  done < <(sed 's/#.*//' "$cm" | tr '\n' ' ' | grep -oE 'target_link_libraries\([^)]*\)' || true)
done
if ((bad)); then
  echo "check_layers: includes or links against the layering (README.md, \"Layers\"): move the shared" \
       "type down to core/, or pass the behaviour in through a callback set by agent/" >&2
  exit 1
fi
echo "check_layers: every include and every link goes one way"
for l in "${known_loops[@]}"; do echo "check_layers: known loop left (issue 30): $l"; done
