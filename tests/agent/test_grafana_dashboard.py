#!/usr/bin/env python3
"""Every query of the Grafana dashboard parses and names only series we export or record.

usage: test_grafana_dashboard.py ROCEHEALTH FIXTURE_DIR PACKAGING_DIR [DASHBOARD_JSON]

0. Checks the layout: every panel has a title and a grid place of its own.
1. Takes every expression of the dashboard: each panel's targets (rows' nested panels too), the
   template variables' queries (label_values(SELECTOR, label), query_result(EXPR)) and the
   annotation queries.
2. Substitutes Grafana's variables as Grafana would: $__rate_interval, $__interval, $__range
   and the other built-ins; the dashboard's own variables ($v, ${v}, ${v:fmt}, [[v]]) by their
   current or first value, a multi-value or "All" variable in its regex form (a|b) (${v:pipe}
   a|b, ${v:csv} a,b). A variable the dashboard does not define is an error, and so is a
   multi-value one in regex form outside a =~ or !~ matcher (Grafana would write "(a|b)" into
   an exact match).
3. Writes them as recording rules into one rules file and runs `promtool check rules` on it:
   every expression must parse as PromQL.
4. Checks every metric name an expression uses against what exists: the names of a running
   agent's /metrics (`rocehealth agent` on a copy of FIXTURE_DIR's tree, with a topology `tor`,
   a mesh and one open finding, so rocehealth_host_info, the probe summaries and
   rocehealth_finding are there) and the series recorded by the rule files that
   PACKAGING_DIR/prometheus/prometheus-scrape.yml loads (ALERTS too, with an alertname that is
   one of their alerts). On an exported series, every label a matcher or a label_values()
   variable names must be one /metrics shows on it (or a target label: instance, job, fabric).
5. Runs the fabric panels' queries on recorded series of a synthetic 4-host fabric
   (`promtool test rules`): each must show the hosts, ToR pairs and ports it is about, and
   every query of the fabric rows sized by $k or $pairs must show 2 or more series there at
   the defaults and exactly 1 with $k and $pairs at 1 (the bound holds); the other queries of
   the fabric rows must show something and no series of their own per host.
6. Shows that it can fail: the same check on copies of the dashboard with one fault each (a
   typo'd recorded and exported series name, an unbalanced parenthesis, an undefined variable,
   a multi-value variable in an exact match, a typo'd alert name, a list of hosts without its
   topk, a typo'd label name in a matcher and in a variable) must fail naming it.

Exit 0 when all holds; 1 naming the panel, the expression and what is wrong otherwise.
DASHBOARD_JSON defaults to PACKAGING_DIR/prometheus/grafana-dashboard.json.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

# Grafana's built-in variables with a value of the shape Grafana gives them.
BUILTINS = {
    "__rate_interval": "1m",
    "__interval": "30s",
    "__interval_ms": "30000",
    "__range": "1h",
    "__range_s": "3600",
    "__range_ms": "3600000",
    "__from": "1700000000000",
    "__to": "1700003600000",
}
KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan", "atan2", "start", "end"}
LABEL_LIST_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right"}


# Prometheus' target labels: on every scraped series, though /metrics does not carry them
# (fabric: prometheus-scrape.yml's target label).
TARGET_LABELS = {"instance", "job", "fabric"}


class Failure(Exception):
    pass


def panels_of(dashboard):
    """Every panel, the panels nested in (collapsed) rows included."""
    for p in dashboard.get("panels", []):
        yield p
        yield from p.get("panels", [])


def variable_query(var):
    """The PromQL inside a template variable's query, or None (label_names(), metrics(...))."""
    q = var.get("query")
    if isinstance(q, dict):
        q = q.get("query", "")
    q = (q or "").strip()
    m = re.fullmatch(r"label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)", q, re.S)
    if m:
        return m.group(1)
    m = re.fullmatch(r"query_result\((.*)\)", q, re.S)
    if m:
        return m.group(1)
    return None


def expressions(dashboard):
    """[(where, expr)]: every query of the dashboard, where naming it for a message."""
    out = []
    for p in panels_of(dashboard):
        for t in p.get("targets", []):
            if t.get("expr"):
                where = f'panel "{p.get("title", "?")}" target {t.get("refId", "?")}'
                out.append((where, t["expr"]))
    for v in dashboard.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = variable_query(v)
            if q is None and v.get("query"):
                raise Failure(f'variable {v.get("name")}: query {v["query"]!r} is not '
                              "label_values(SELECTOR, label) or query_result(EXPR)")
            if q:
                out.append((f'variable ${v["name"]}', q))
    for a in dashboard.get("annotations", {}).get("list", []):
        if a.get("expr"):
            out.append((f'annotation "{a.get("name", "?")}"', a["expr"]))
    return out


def variable_values(dashboard):
    """{name: (value, multi)}: what Grafana writes for each dashboard variable."""
    values = {}
    for v in dashboard.get("templating", {}).get("list", []):
        name, kind = v["name"], v.get("type")
        multi = bool(v.get("multi") or v.get("includeAll"))
        current = (v.get("current") or {}).get("value")
        if isinstance(current, list):
            current = current[0] if current else None
        options = [o.get("value") for o in v.get("options", []) if o.get("value") is not None]
        if kind in ("custom", "interval"):
            choices = options or [c.strip() for c in str(v.get("query", "")).split(",")
                                  if c.strip()]
            value = current if current not in (None, "$__all") else next(iter(choices), None)
            if value is None:
                raise Failure(f"variable ${name}: no value to substitute")
            values[name] = (str(value), multi)
        elif kind in ("constant", "textbox"):
            values[name] = (str(current if current is not None else v.get("query", "")), multi)
        elif kind == "query":
            values[name] = ("(a|b)" if multi else "a", multi)
        else:  # datasource, adhoc: not written into expressions
            values[name] = (None, multi)
    return values


VAR_RE = re.compile(r"\$\{(\w+)(?::(\w+))?\}|\[\[(\w+)(?::(\w+))?\]\]|\$(\w+)")


def substitute(where, expr, values):
    """expr with every variable replaced; Failure on an unknown or misused variable."""
    def one(m):
        name = m.group(1) or m.group(3) or m.group(5)
        if name.isdigit():  # $1 in label_replace: not a variable
            return m.group(0)
        if name in BUILTINS:
            return BUILTINS[name]
        if name not in values or values[name][0] is None:
            raise Failure(f"{where}: ${name} is not a variable of the dashboard: {expr}")
        value, multi = values[name]
        fmt = m.group(2) or m.group(4)
        if multi and fmt in ("csv", "raw", "text", "glob", "json"):
            return value.strip("()").replace("|", ",")  # a list, not a regex: takes care of itself
        if multi and not re.search(r'[=!]~\s*"[^"]*$', expr[:m.start()]):
            raise Failure(f"{where}: ${name} takes several values (a|b) but is not inside a "
                          f"=~ or !~ matcher: {expr}")
        return value.strip("()") if multi and fmt == "pipe" else value
    return VAR_RE.sub(one, expr)


TOKEN_RE = re.compile(r"""
    (?P<space>\s+|\#[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<number>(?:0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)[a-zA-Z0-9]*)
  | (?P<ident>[a-zA-Z_:][a-zA-Z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=(){}\[\],@])
""", re.X)


def unquote(s):
    """A PromQL string literal's value (the escapes the dashboard can use: \\\\ and \\")."""
    return s[1:-1] if s[0] == "`" else re.sub(r"\\(.)", r"\1", s[1:-1])


def tokens(expr):
    pos, out = 0, []
    while pos < len(expr):
        m = TOKEN_RE.match(expr, pos)
        if not m:
            raise Failure(f"cannot read {expr[pos:pos + 20]!r} in {expr}")
        pos = m.end()
        if m.lastgroup != "space":
            out.append((m.lastgroup, m.group(0)))
    return out


def selectors(expr):
    """[(metric name or None, {label: (op, value)})]: every vector selector of a parsed expr."""
    toks, out, i = tokens(expr), [], 0
    while i < len(toks):
        kind, text = toks[i]
        nxt = toks[i + 1][1] if i + 1 < len(toks) else None
        if kind == "op" and text == "[":  # range or subquery: durations only
            while toks[i][1] != "]":
                i += 1
        elif kind == "ident" and text.lower() in LABEL_LIST_KEYWORDS and nxt == "(":
            while toks[i][1] != ")":
                i += 1
        elif kind == "ident" and (nxt == "(" or (nxt or "").lower() in ("by", "without")
                                  or text.lower() in KEYWORDS):
            pass  # a function or aggregation (sum by (l) (...)), or a keyword
        elif kind == "ident" or (kind == "op" and text == "{"):
            name, matchers = (text, {}) if kind == "ident" else (None, {})
            j = i + 1 if kind == "ident" else i
            if j < len(toks) and toks[j][1] == "{":
                j += 1
                while toks[j][1] != "}":
                    if toks[j][0] == "ident":
                        matchers[toks[j][1]] = (toks[j + 1][1], unquote(toks[j + 2][1]))
                        j += 3
                    else:
                        j += 1
                i = j
            if "__name__" in matchers and matchers["__name__"][0] == "=":
                name = matchers.pop("__name__")[1]
            out.append((name, matchers))
        i += 1
    return out


def exported_names(rocehealth, fixture):
    """{metric or sample name: its label names} of a running agent's /metrics on a copy of the
    fixture tree (a family declared without samples: no labels)."""
    work = tempfile.mkdtemp(prefix="rh-dashboard-")
    agent = None
    try:
        shutil.copytree(fixture, os.path.join(work, "fx"), symlinks=True)
        sys_root = os.path.join(work, "fx", "sys")
        # A port down: port_not_active opens at the first rules run, so rocehealth_finding is
        # exported (the open-findings panel reads it).
        ports = os.path.join(sys_root, "class", "infiniband")
        device = sorted(os.listdir(ports))[0]
        state = os.path.realpath(os.path.join(ports, device, "ports", "1", "state"))
        with open(state, "w") as f:
            f.write("1: DOWN\n")
        config = os.path.join(work, "agent.json")
        with open(config, "w") as f:
            json.dump({"sysfs_root": sys_root, "host": "dashboard-host", "collect_interval_s": 0.5,
                       "inventory_interval_s": 1, "retention_s": 60,
                       "topology": {"pod": "p1", "tor": "r01"},
                       "mesh": {"peers": ["127.0.0.1:1"], "interval_s": 0.5, "timeout_s": 0.2},
                       "http": {"listen": "127.0.0.1:0"}}, f)
        log_path = os.path.join(work, "agent.log")
        with open(log_path, "w") as log:
            agent = subprocess.Popen([rocehealth, "agent", "--config", config], stderr=log,
                                     stdout=subprocess.DEVNULL)
        deadline, text = time.monotonic() + 20, ""
        while time.monotonic() < deadline:
            with open(log_path, errors="replace") as f:
                agent_log = f.read()
            if agent.poll() is not None:
                raise Failure(f"the agent exited ({agent.returncode}): {agent_log[-2000:]}")
            port = re.findall(r'"event":"http_listening".*?"port":(\d+)', agent_log)
            if port:
                try:
                    text = urllib.request.urlopen(f"http://127.0.0.1:{port[-1]}/metrics",
                                                  timeout=2).read().decode()
                except OSError:
                    text = ""
                if re.search(r"^rocehealth_finding\{", text, re.M):
                    break
            time.sleep(0.2)
        else:
            raise Failure(f"the agent exported no rocehealth_finding in 20 s: {text[-500:]}")
        names = {n: set() for n in re.findall(r"^# TYPE (\S+) ", text, re.M)}
        for name, labels in re.findall(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ", text, re.M):
            names.setdefault(name, set()).update(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', labels))
        return names
    finally:
        if agent and agent.poll() is None:
            agent.terminate()
            agent.wait(10)
        shutil.rmtree(work, ignore_errors=True)


def recorded_names(packaging):
    """(record names, alert names) of the rule files prometheus-scrape.yml loads.

    Read by line, as these files are written (`rule_files:` then `  - FILE` items; `- record:
    NAME` and `- alert: NAME`), so the test needs no YAML module; agent_prometheus_files checks
    them with promtool."""
    scrape = os.path.join(packaging, "prometheus", "prometheus-scrape.yml")
    with open(scrape) as f:
        text = f.read()
    block = re.search(r"^rule_files:\n((?:[ \t]+(?:-.*|#.*)\n)+)", text, re.M)
    files = re.findall(r"^[ \t]+-[ \t]+(\S+)", block.group(1), re.M) if block else []
    if not files:
        raise Failure(f"{scrape}: no rule_files")
    records, alerts = set(), set()
    for rel in files:
        with open(os.path.join(os.path.dirname(scrape), rel)) as f:
            rules = f.read()
        records |= set(re.findall(r"^[ \t]*- record:[ \t]*(\S+)", rules, re.M))
        alerts |= set(re.findall(r"^[ \t]*- alert:[ \t]*(\S+)", rules, re.M))
    return records, alerts


def check_names(where, expr, known, alerts):
    problems = []
    for name, matchers in selectors(expr):
        if name is None:
            problems.append(f"{where}: a selector without a metric name: {expr}")
        elif name in ("ALERTS", "ALERTS_FOR_STATE"):
            op, value = matchers.get("alertname", ("=~", ".*"))
            if op == "=" and value not in alerts:
                problems.append(f"{where}: no rule file has the alert {value}: {expr}")
            elif op == "=~":
                # Each alternative must be an alert of the rule files (a typo matches nothing).
                lost = [p for p in value.split("|") if not any(re.fullmatch(p, a) for a in alerts)]
                if lost:
                    problems.append(f"{where}: alertname=~{value!r}: {', '.join(lost)} match no "
                                    "alert of the rule files")
        elif name not in known:
            problems.append(f"{where}: {name} is neither exported by the agent nor recorded by "
                            f"the rule files: {expr}")
        elif known[name] is not None:  # exported: its labels are known
            problems += [f"{where}: {name} has no label {label} (it has "
                         f"{', '.join(sorted(known[name] | TARGET_LABELS))}): {expr}"
                         for label in matchers if label not in known[name] | TARGET_LABELS]
    return problems


def check_variable_labels(dashboard, values, known):
    """label_values(SELECTOR, label) of an exported series asks for a label the series has."""
    problems = []
    for v in dashboard.get("templating", {}).get("list", []):
        q = v.get("query")
        q = (q.get("query", "") if isinstance(q, dict) else q or "").strip()
        m = re.fullmatch(r"label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)", q, re.S)
        if not m or v.get("type") != "query":
            continue
        where = f'variable ${v["name"]}'
        for name, _ in selectors(substitute(where, m.group(1), values)):
            labels = known.get(name)
            if labels is not None and m.group(2) not in labels | TARGET_LABELS:
                problems.append(f"{where}: {name} has no label {m.group(2)}: {q}")
    return problems


def check_layout(dashboard):
    """Every panel has a title and a place on the 24-column grid that no other panel takes."""
    placed = []
    for p in panels_of(dashboard):
        g = p.get("gridPos")
        if not p.get("title") or not g:
            raise Failure(f"panel {p.get('id')} {p.get('title')!r}: no title or no gridPos")
        if g["x"] < 0 or g["x"] + g["w"] > 24:
            raise Failure(f'panel "{p["title"]}": gridPos {g} is outside the 24 columns')
        for q, h in placed:
            if (g["x"] < h["x"] + h["w"] and h["x"] < g["x"] + g["w"]
                    and g["y"] < h["y"] + h["h"] and h["y"] < g["y"] + g["h"]):
                raise Failure(f'panels "{q}" and "{p["title"]}" overlap: {h} and {g}')
        placed.append((p["title"], g))


def check(dashboard, known, alerts):
    """([(where, expr)] of the dashboard's queries, substituted; what check_answers saw);
    Failure naming what is wrong."""
    check_layout(dashboard)
    values = variable_values(dashboard)
    exprs = [(where, substitute(where, e, values)) for where, e in expressions(dashboard)]
    with tempfile.NamedTemporaryFile("w", suffix=".yml", prefix="dashboard-rules-") as rules:
        # JSON is YAML: no YAML module needed.
        json.dump({"groups": [{"name": "dashboard", "rules": [
            {"record": f"dashboard:query_{i}", "expr": e} for i, (_, e) in enumerate(exprs)]}]},
            rules, indent=1)
        rules.flush()
        r = subprocess.run(["promtool", "check", "rules", rules.name], capture_output=True,
                           text=True)
        if r.returncode != 0:
            msg = r.stdout + r.stderr
            for i, (where, e) in reversed(list(enumerate(exprs))):  # query_12 before query_1
                msg = msg.replace(f"dashboard:query_{i}", f"{where} ({e})")
            raise Failure(f"promtool check rules rejects a query:\n{msg}")
    problems = [p for where, e in exprs for p in check_names(where, e, known, alerts)]
    problems += check_variable_labels(dashboard, values, known)
    if problems:
        raise Failure("\n".join(problems))
    return exprs, check_answers(dashboard)


def broken_copies(dashboard):
    """[(what, dashboard, message the check must give)]: the shipped dashboard with one fault
    each, to show that the check catches it."""
    def first_target(d, pred):
        return next(t for p in panels_of(d) for t in p.get("targets", []) if pred(t["expr"]))

    out = []
    d = json.loads(json.dumps(dashboard))
    t = first_target(d, lambda e: "rocehealth:" in e)
    name = re.search(r"rocehealth:[a-z_:0-9]+", t["expr"]).group(0)
    t["expr"] = t["expr"].replace(name, name[:-2] + name[-1] + name[-2], 1)
    out.append((f"a typo in {name}", d, "is neither exported by the agent nor recorded"))
    d = json.loads(json.dumps(dashboard))
    t = first_target(d, lambda e: "rocehealth_" in e)
    name = re.search(r"rocehealth_[a-z_]+", t["expr"]).group(0)
    t["expr"] = t["expr"].replace(name, name + "s", 1)
    out.append((f"a typo in {name}", d, "is neither exported by the agent nor recorded"))
    d = json.loads(json.dumps(dashboard))
    t = first_target(d, lambda e: e.count("(") > 1)
    t["expr"] = t["expr"].replace(")", "", 1)
    out.append(("an unbalanced parenthesis", d, "promtool check rules rejects a query"))
    d = json.loads(json.dumps(dashboard))
    t = first_target(d, lambda e: '=~"$' in e)
    t["expr"] = t["expr"].replace('=~"$', '=~"$x', 1)
    out.append(("an undefined variable", d, "is not a variable of the dashboard"))
    d = json.loads(json.dumps(dashboard))
    t = first_target(d, lambda e: '=~"$' in e)
    t["expr"] = t["expr"].replace('=~"$', '="$', 1)
    out.append(("a multi-value variable in an exact match", d, "is not inside a =~ or !~ matcher"))
    d = json.loads(json.dumps(dashboard))
    t = first_target(d, lambda e: "ALERTS{" in e)
    t["expr"] = re.sub(r'(alertname=~?")Rocehealth', r"\1Rocehealht", t["expr"], 1)
    out.append(("a typo in an alert name", d, "alert"))
    d = json.loads(json.dumps(dashboard))
    t = first_target(d, lambda e: e.startswith("topk($k, ") and "instance" in e)
    t["expr"] = t["expr"][len("topk($k, "):-1]
    out.append(("a list of hosts without its topk", d, "does not show what it should"))
    d = json.loads(json.dumps(dashboard))
    t = first_target(d, lambda e: 'instance=~"$instance"' in e)
    t["expr"] = t["expr"].replace('instance=~"$instance"', 'instace=~"$instance"', 1)
    out.append(("a typo in a label name", d, "has no label instace"))
    d = json.loads(json.dumps(dashboard))
    v = next(v for v in d["templating"]["list"] if "label_values(rocehealth_" in json.dumps(v))
    v["query"] = re.sub(r",\s*(\w+)\)", r", \1x)", json.dumps(v["query"]))
    v["query"] = json.loads(v["query"])
    out.append((f"a typo in ${v['name']}'s label", d, "has no label"))
    return out


def panel_query(dashboard, title, ref="A"):
    for p in panels_of(dashboard):
        if p.get("title") == title:
            return next(t["expr"] for t in p["targets"] if t.get("refId") == ref)
    raise Failure(f'no panel "{title}" (the answers check reads it)')


def host(i, tor):
    return f'rocehealth_host_info{{instance="h{i}:9477", fabric="f", host="h{i}", tor="{tor}"}}'


def per_host(name, i, **labels):
    extra = "".join(f', {k}="{v}"' for k, v in labels.items())
    return f'rocehealth:{name}{{fabric="f", instance="h{i}:9477"{extra}}}'


def per_tor(name, label, tor):
    return f'rocehealth:{name}{{fabric="f", {label}="{tor}"}}'


def port(i, setting, value, **labels):
    return per_host("config_value:port", i, device="mlx5_0", port="1", setting=setting,
                    value=value, **labels)


# Recorded series of a fabric of 4 hosts under ToRs r1 (h1, h2), r2 (h3), r3 (h4): h1 and h3
# pause their switch on priority 3 (origins) and h2 and h4 are paused (victims); probes from r1
# into r2 all fail and half into r3; h4's MTU and h2's PFC on priority 3 are unlike the rest,
# trust is split 2/2; h2 gets CE marks without sending CNPs and h3 the reverse. Every top-K
# panel has at least 2 candidates.
ANSWER_SERIES = {
    host(1, "r1"): 1, host(2, "r1"): 1, host(3, "r2"): 1, host(4, "r3"): 1,
    per_host("pause_storm_origin:tx_fraction", 1, priority=3): 0.2,
    per_host("pause_storm_origin:tx_fraction", 3, priority=3): 0.1,
    per_host("pause_storm_victim:rx_fraction", 2, priority=3): 0.3,
    per_host("pause_storm_victim:rx_fraction", 4, priority=3): 0.1,
    'rocehealth:pause_storm_victims:count_by_tor{fabric="f", tor="r1", priority="3"}': 1,
    'rocehealth:pause_storm_victims:count_by_tor{fabric="f", tor="r3", priority="3"}': 1,
    **{per_host(f"pfc_pause_{d}_fraction:max_rate1m", i, priority=3): v
       for d, i, v in [("tx", 1, 0.2), ("rx", 1, 0), ("tx", 3, 0.1), ("rx", 3, 0),
                       ("tx", 2, 0), ("rx", 2, 0.3), ("tx", 4, 0), ("rx", 4, 0.1)]},
    # the row rules record only the bad rows (1): of the 7 pairs between ToRs, these 3
    **{f'rocehealth:probe_pair_bad_between_tors:2m{{fabric="f", instance="h{i}:9477", '
       f'peer="h{j}", tor="{t}", peer_tor="{pt}"}}': 1
       for i, j, t, pt in [(1, 3, "r1", "r2"), (2, 3, "r1", "r2"), (2, 4, "r1", "r3")]},
    **{per_host("probe_pair_bad:2m", i, peer=f"h{j}"): 1 for i, j in [(1, 3), (2, 3), (2, 4)]},
    per_host("probe_tor_pair_bad:2m", 1, dst_tor="r2"): 1,
    per_host("probe_tor_pair_bad:2m", 1, dst_tor="r3"): 1,
    **{per_tor("probe_pairs_into_tor:bad_ratio", "peer_tor", t): v
       for t, v in [("r1", 0), ("r2", 1), ("r3", 0.5)]},
    **{per_tor("probe_pairs_into_tor:count", "peer_tor", t): v
       for t, v in [("r1", 2), ("r2", 2), ("r3", 3)]},
    **{per_tor("probe_pairs_elsewhere:bad_ratio", "peer_tor", t): v
       for t, v in [("r1", 0.6), ("r2", 0.25), ("r3", 0.5)]},
    **{per_tor("probe_tor_rows_out_of_tor:bad_ratio", "tor", t): v
       for t, v in [("r1", 0.75), ("r2", 0), ("r3", 0)]},
    port(1, "netdev_mtu_bytes", 9000): 1, port(2, "netdev_mtu_bytes", 9000): 1,
    port(3, "netdev_mtu_bytes", 9000): 1, port(4, "netdev_mtu_bytes", 1500): 1,
    port(1, "pfc_enabled", 1, priority=3): 1, port(2, "pfc_enabled", 0, priority=3): 1,
    port(3, "pfc_enabled", 1, priority=3): 1, port(4, "pfc_enabled", 1, priority=3): 1,
    'rocehealth:config_value:ports{fabric="f", setting="netdev_mtu_bytes", value="9000"}': 3,
    'rocehealth:config_value:ports{fabric="f", setting="netdev_mtu_bytes", value="1500"}': 1,
    'rocehealth:config_value:majority{fabric="f", setting="netdev_mtu_bytes", value="9000"}': 0.75,
    'rocehealth:config_value:ports{fabric="f", setting="pfc_enabled", priority="3", value="1"}': 3,
    'rocehealth:config_value:ports{fabric="f", setting="pfc_enabled", priority="3", value="0"}': 1,
    'rocehealth:config_value:majority{fabric="f", setting="pfc_enabled", priority="3", '
    'value="1"}': 0.75,
    'rocehealth:config_value:ports{fabric="f", setting="trust", value="dscp"}': 2,
    'rocehealth:config_value:ports{fabric="f", setting="trust", value="pcp"}': 2,
    'ALERTS{alertname="RocehealthPauseStormOrigin", alertstate="firing", severity="critical", '
    'fabric="f", instance="h1:9477", host="h1", tor="r1", priority="3"}': 1,
    'ALERTS{alertname="RocehealthConfigDrift", alertstate="firing", severity="warning", '
    'fabric="f", instance="h4:9477", host="h4", tor="r3", setting="netdev_mtu_bytes"}': 1,
    **{per_host(f"{n}:rate2m", i): v
       for n, i, v in [("ecn_marked_packets", 1, 5), ("cnp_sent_packets", 1, 5),
                       ("ecn_marked_packets", 2, 5), ("cnp_sent_packets", 2, 0),
                       ("ecn_marked_packets", 3, 0), ("cnp_sent_packets", 3, 3)]},
}
# (panel title, [(labels, value)]) the panel must show on them, every variable at "All" and
# $pairs at 2 (the heatmap's bound: r1 -> r2 and r1 -> r3, not the four good pairs of ToRs).
ANSWERS = [
    ("Storm origins now",
     [('{fabric="f", instance="h1:9477", priority="3", host="h1", tor="r1"}', 0.2),
      ('{fabric="f", instance="h3:9477", priority="3", host="h3", tor="r2"}', 0.1)]),
    ("ToR pairs: bad probe pairs (heatmap, worst $pairs cells)",
     [('{fabric="f", tor="r1", peer_tor="r2"}', 2),
      ('{fabric="f", tor="r1", peer_tor="r3"}', 1)]),
    ("Ports unlike the fabric's majority",
     [('{fabric="f", instance="h4:9477", device="mlx5_0", port="1", setting="netdev_mtu_bytes", '
       'value="1500", fabric_value="9000", host="h4", tor="r3"}', 0.75),
      ('{fabric="f", instance="h2:9477", device="mlx5_0", port="1", setting="pfc_enabled", '
       'priority="3", value="0", fabric_value="1", host="h2", tor="r1"}', 0.75)]),
    ("Settings without a majority", [('{fabric="f", setting="trust"}', 4)]),
    ("ECN / CNP out of pattern",
     [('{fabric="f", instance="h2:9477", signal="CE marks, no CNP", host="h2", tor="r1"}', 5),
      ('{fabric="f", instance="h3:9477", signal="CNPs, no CE marks", host="h3", tor="r2"}', 3)]),
    ("Most bad probe rows out",
     [('{fabric="f", instance="h1:9477", host="h1", tor="r1"}', 3),
      ('{fabric="f", instance="h2:9477", host="h2", tor="r1"}', 2)]),
]


def fabric_queries(dashboard):
    """([(where, expr)] sized by $k or $pairs, [(where, expr)] not) of the fabric rows."""
    sized, other, in_fabric = [], [], False
    for p in dashboard.get("panels", []):
        if p.get("type") == "row":
            in_fabric = p.get("title", "").startswith("Fabric")
        elif in_fabric:
            for t in p.get("targets", []):
                q = (f'panel "{p["title"]}" target {t["refId"]}', t["expr"])
                (sized if re.search(r"\$(k|pairs)\b", t["expr"]) else other).append(q)
    return sized, other


def check_answers(dashboard):
    """On ANSWER_SERIES (promtool test rules): the fabric panels of ANSWERS show what they say;
    each query sized by $k or $pairs shows 2 or more series at the defaults and 1 at 1; every
    other query of the fabric rows shows something, and no series of its own per host."""
    values = {name: (".*", True) if multi else (value, multi)
              for name, (value, multi) in variable_values(dashboard).items()}

    def test(where, expr, bound, want):
        subst = dict(values, pairs=(str(bound), False)) if bound else values
        if bound == 1:
            subst["k"] = ("1", False)
        return {"expr": substitute(where, expr, subst), "eval_time": "2m",
                "exp_samples": [{"labels": labels, "value": v} for labels, v in want]}

    tests = [test(title, panel_query(dashboard, title), 2, want) for title, want in ANSWERS]
    sized, other = fabric_queries(dashboard)
    for where, expr in sized:
        tests.append(test(where, f"count({expr}) > bool 1", None, [("{}", 1)]))
        tests.append(test(where, f"count({expr}) > bool 1", 1, [("{}", 0)]))
    for where, expr in other:  # one {} series: none has an instance label
        tests.append(test(where, f"group by (instance) ({expr})", None, [("{}", 1)]))
    doc = {"rule_files": [], "evaluation_interval": "1m", "tests": [{
        "interval": "1m", "promql_expr_test": tests,
        "input_series": [{"series": k, "values": f"{v}x3"} for k, v in ANSWER_SERIES.items()]}]}
    with tempfile.NamedTemporaryFile("w", suffix=".yml", prefix="dashboard-answers-") as f:
        json.dump(doc, f, indent=1)
        f.flush()
        r = subprocess.run(["promtool", "test", "rules", f.name], capture_output=True, text=True)
    if r.returncode != 0:
        raise Failure(f"a fabric panel does not show what it should:\n{r.stdout}{r.stderr}")
    return (f"{len(ANSWERS)} fabric panels show the origins, the bad ToR pairs, the drifting "
            "ports, the split setting, the ECN/CNP outliers and the hosts with bad probe rows "
            f"of a synthetic fabric; {len(sized)} queries sized by $k or $pairs show 2 or more "
            f"series there and 1 when it is 1; {len(other)} others show no series per host")


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    rocehealth, fixture, packaging = sys.argv[1:4]
    path = sys.argv[4] if len(sys.argv) == 5 else os.path.join(packaging, "prometheus",
                                                                  "grafana-dashboard.json")
    if not shutil.which("promtool"):
        raise Failure("promtool missing (Debian package prometheus)")
    dashboard = json.load(open(path))
    records, alerts = recorded_names(packaging)
    known = {**exported_names(rocehealth, fixture), **{r: None for r in records}}
    try:
        exprs, answers = check(dashboard, known, alerts)
    except Failure as e:
        raise Failure(f"{path}: {e}")
    used = sorted({n for _, e in exprs for n, _ in selectors(e)})
    print(f"{path}: {len(exprs)} queries parse (promtool check rules) and use "
          f"{len(used)} series, each exported or recorded: {' '.join(used)}")
    print(answers)

    # The same check on copies with one fault each must fail, naming it.
    for what, broken, want in broken_copies(dashboard):
        try:
            check(broken, known, alerts)
        except Failure as e:
            if want not in str(e):
                raise Failure(f"with {what}, the check failed without saying {want!r}: {e}")
            lines = str(e).strip().splitlines()  # promtool's reason is on its last line
            line = lines[-1]
            if len(line) > 200:
                line = line[:90] + " ... " + line[-100:]
            print(f"with {what}: fails as it should: {line}")
            continue
        raise Failure(f"the check passes a dashboard with {what}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print(f"FAIL: {e}")
        sys.exit(1)
