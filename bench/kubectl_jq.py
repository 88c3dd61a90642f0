"""The jq script a user would run instead of wmap: `kubectl get <types> -A -o json | jq -r -f workloads.jq`.

It prints one line per top-level workload: NAMESPACE KIND NAME STATUS READY/PODS (tab separated), where
STATUS is the primary status by the same precedence, READY counts pods whose last Ready condition is
"True" and PODS every pod whose owner chain reaches the workload. The status rules are not written by
hand: they are translated from the built-in catalog's status mappings (the knowledge a user would have to
copy from each operator), so the comparison with wmap is like for like. Runs on jq >= 1.6.

    python bench/kubectl_jq.py -o bench/workloads.jq       # regenerate the checked-in script
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parent / "workloads.jq"
PRECEDENCE = ("Failed", "Completed", "Suspending", "Resuming", "Suspended", "Degraded", "Running", "Initializing")

PRELUDE = r"""
def _text: if . == null then null else tostring end;
def _group: (.apiVersion // "") | if contains("/") then split("/")[0] else "" end;
def _key: "\(_group)|\(.kind)|\(.metadata.namespace // "default")|\(.metadata.name // "")";
def _conds(f; $tf; $sf; $rf):
  [f] | map(if type == "array" then .[] elif . != null then . else empty end)
  | map(select(type == "object" and .[$tf] != null))
  | reduce .[] as $c ({};
      .[$c[$tf] | tostring] = {status: ($c[$sf] | _text), reason: (if $rf then ($c[$rf] | _text) else null end)});
def _ready: ([.status.conditions[]? | select(.type == "Ready")] | last | .status) == "True";
"""

MAIN = r"""
(if type == "array" then map(.items // [.]) | add else (.items // [.]) end) as $items
| (reduce $items[] as $o ({}; if $o.metadata.uid then .[$o.metadata.uid] = $o else . end)) as $byuid
| (reduce $items[] as $o ({}; .[$o | _key] = $o)) as $bykey
| def _resolve($ns):
    if .uid != null and $byuid[.uid] != null then $byuid[.uid]
    else ((.apiVersion // "") | if contains("/") then split("/")[0] else "" end) as $g
      | "\($g)|\(.kind)|\($ns)|\(.name // "")" as $k
      | $bykey[$k] | if . != null and $ref_uid_ok then . else null end
    end;
  def _parent:
    (.metadata.namespace // "default") as $ns
    | (.metadata.ownerReferences // []) | map(select(type == "object" and .kind != null))
    | ([.[] | select(.controller == true)] + [.[] | select(.controller != true)])
    | [.[] | . as $r | (.uid) as $u | _resolve($ns)
       | select(. != null and ($u == null or .metadata.uid == null or .metadata.uid == $u))] | .[0] // empty;
  def _owners: [limit(32; recurse(_parent))] | .[1:];
  [ $items[] | select(_covered) | {o: ., owners: _owners} ] as $covered
| [ $items[] | select(.kind == "Pod" and .apiVersion == "v1") | {ready: _ready, owners: [_owners[] | _key]} ] as $pods
| (reduce $pods[] as $p ({};
    reduce $p.owners[] as $k (.; .[$k].n += 1 | .[$k].r += (if $p.ready then 1 else 0 end)))) as $counts
| [ $covered[] | select([.owners[] | select(_covered)] | length == 0) | .o ]
| sort_by([(.metadata.namespace // "default"), .kind, .metadata.name])
| .[]
| (if .kind == "Pod" and .apiVersion == "v1" then {n: 1, r: (if _ready then 1 else 0 end)}
   else ($counts[_key] // {n: 0, r: 0}) end) as $c
| [(.metadata.namespace // "default"), .kind, .metadata.name, _status, "\($c.r // 0)/\($c.n // 0)"]
| @tsv
"""


def _q(text: str) -> str:
    return json.dumps(text)


def _matcher(m: Any) -> str:
    checks: list[str] = []
    if m.by_phase is not None:
        checks.append(f"($phase == {_q(m.by_phase)})")
    for c in m.by_conditions or []:
        ref = f"$by[{_q(c.type)}]"
        parts = [f"{ref} != null"]
        if c.status is not None:
            parts.append(f"{ref}.status == {_q(c.status)}")
        if c.reason is not None:
            parts.append(f"{ref}.reason == {_q(c.reason)}")
        checks.append("(" + " and ".join(parts) + ")")
    if m.by_expression is not None:
        expr = m.by_expression.expression
        checks.append(
            f"(try ([$w | ({expr})] | length > 0 and ((.[0] | tostring) == {_q(m.by_expression.expected_result)})) "
            "catch false)"
        )
    return "(" + " and ".join(checks) + ")" if checks else "false"


def _status_function(name: str, sd: Any) -> str:
    if sd is None:
        return f'def {name}: "Undefined";'
    lines = [f"def {name}:", "  . as $w"]
    if sd.phase_definition is not None:
        lines.append(f"  | (try ([$w | ({sd.phase_definition.path})][0] | _text) catch null) as $phase")
    else:
        lines.append("  | null as $phase")
    cd = sd.conditions_definition
    if cd is not None:
        rf = _q(cd.reason_field_name) if cd.reason_field_name else "null"
        args = f"{_q(cd.type_field_name)}; {_q(cd.status_field_name)}; {rf}"
        lines.append(f"  | (try _conds($w | ({cd.path}); {args}) catch {{}}) as $by")
    else:
        lines.append("  | {} as $by")
    by_status = {status.value: matchers for status, _field, matchers in sd.status_mappings.entries()}
    alternatives = []
    for status in PRECEDENCE:
        matchers = by_status.get(status) or []
        if not matchers:
            continue
        cond = " or ".join(_matcher(m) for m in matchers)
        alternatives.append(f"    (if {cond} then {_q(status)} else empty end)")
    body = ",\n".join(alternatives)
    lines.append(f'  | [\n{body}\n  ] | .[0] // "Undefined";' if alternatives else '  | "Undefined";')
    return "\n".join(lines)


def generate(definitions: Iterable[Any]) -> str:
    """The jq program for these definitions (LoadedDefinition, later ones override earlier ones)."""
    by_kind: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)
    for loaded in definitions:
        ident = loaded.karta.identity
        if ident is None:
            continue
        by_kind[(ident.group, ident.kind)][ident.version] = loaded.karta
    functions: list[str] = []
    dispatch: list[str] = []
    covered: list[str] = []
    for n, ((group, kind), versions) in enumerate(sorted(by_kind.items())):
        covered.append(f"($g == {_q(group)} and $k == {_q(kind)})")
        fallback = sorted(versions)[-1]
        for version, karta in sorted(versions.items()):
            fname = f"_status_{n}_{version.replace('.', '_')}"
            functions.append(f"# {kind}.{group or 'core'} {version} ({karta.name})")
            functions.append(_status_function(fname, karta.root.status_definition))
            api = f"{group}/{version}" if group else version
            dispatch.append(f"  elif .apiVersion == {_q(api)} and .kind == {_q(kind)} then {fname}")
        fb = f"_status_{n}_{fallback.replace('.', '_')}"
        dispatch.append(f"  elif $g == {_q(group)} and .kind == {_q(kind)} then {fb}")
    status_def = "def _status: _group as $g | if false then null\n" + "\n".join(dispatch) + '\n  else "Undefined" end;'
    covered_def = "def _covered: _group as $g | .kind as $k | " + (" or ".join(covered) or "false") + ";"
    header = "# GENERATED by bench/kubectl_jq.py from the built-in catalog - do not edit by hand.\n"
    main = MAIN.replace("$ref_uid_ok", "true")
    return header + PRELUDE + "\n".join(functions) + "\n" + status_def + "\n" + covered_def + "\n" + main


def builtin_script() -> str:
    from workload_map.catalog import builtin_definitions

    return generate(builtin_definitions())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", type=Path, default=SCRIPT)
    args = ap.parse_args(argv)
    args.output.write_text(builtin_script())
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
