#!/usr/bin/env python3
"""How many ONNX default-domain operators rule folders cover (docs/neuri.md's figures).

    tools/rule_coverage.py [--opset 21] RULES_DIR [RULES_DIR...]
    tools/rule_coverage.py --few 3 --opset 17 rules   # operators to probe: fewer than 3 passing records, comma-separated
    tools/rule_coverage.py --schemas config/ort_contrib_schemas.json rules   # another domain's operators

The folders are merged (an operator's file from the first folder that has one). The
operators counted are those of the onnx package's default domain with a schema at
--opset or below, deprecated ones included. Per operator: records (any passing record),
partial operators, a full shape rule (every output dim of at least one partial operator).
"""
import argparse
import json
import os
import sys

import onnx.defs


def default_domain_ops(opset):
    return {s.name for s in onnx.defs.get_all_schemas_with_history()
            if s.domain in ("", "ai.onnx") and s.since_version <= opset}


def load(dirs, domain=""):
    rules = {}
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(d, name)) as f:
                r = json.load(f)
            if r["domain"] == domain:
                rules.setdefault(r["op"], r)
    return rules


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opset", type=int, default=21)
    parser.add_argument("--few", type=int, default=0, help="print the operators with fewer passing records than this")
    parser.add_argument("--schemas", help="count the operators of this schema dump (tools/ort_contrib_schemas.py)")
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    if args.schemas:
        with open(args.schemas) as f:
            dump = json.load(f)
        ops = {s["name"] for s in dump["schemas"] if not s["deprecated"]}
        cpu = {s["name"] for s in dump["schemas"] if s["cpu_kernel"] and not s["deprecated"]}
        rules = load(args.dirs, dump["domain"])
    else:
        ops = default_domain_ops(args.opset) - {s.name for s in onnx.defs.get_all_schemas() if s.deprecated}
        cpu = None
        rules = load(args.dirs)
    if args.few:
        def passing(op):
            return sum(rec["passing"] for p in rules[op]["partial_operators"] for rec in p["records"]) if op in rules else 0
        print(",".join(sorted(op for op in ops if passing(op) < args.few)))
        return 0
    with_records = with_rule = partials = full = 0
    for op in sorted(ops):
        r = rules.get(op)
        if not r:
            continue
        parts = r["partial_operators"]
        if any(rec.get("passing", True) for p in parts for rec in p["records"]):
            with_records += 1
        partials += len(parts)
        n_full = sum(all(e is not None for e in p["shape"]) for p in parts)
        full += n_full
        with_rule += n_full > 0
    counts = {"default_domain_ops" if cpu is None else "ops": len(ops), "with_records": with_records,
              "partial_operators": partials, "partial_operators_with_full_rule": full, "ops_with_a_full_rule": with_rule,
              "other_ops_in_folders": sorted(set(rules) - ops)}
    if cpu is not None:
        counts["with_a_cpu_kernel"] = len(cpu)
        counts["cpu_ops_without_records"] = sorted(cpu - {op for op in rules if any(
            rec.get("passing", True) for p in rules[op]["partial_operators"] for rec in p["records"])})
    print(json.dumps(counts))


if __name__ == "__main__":
    sys.exit(main())
