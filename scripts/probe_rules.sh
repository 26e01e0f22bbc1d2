#!/usr/bin/env bash
# Rebuilds the probe-derived rule files of rules/ (issue 9): the default-domain operators
# Debian's node tests lack and ONNX Runtime's com.microsoft operators with a CPU kernel,
# each probed from its schema (24 calls) and labelled and augmented by ONNX Runtime. Only
# operators without a node-test record are copied: the node-test operators' files stay
# what `nnfuzz infer -o rules` builds (CommittedRules.EqualWhatInferBuilds).
#   scripts/probe_rules.sh [RULES_DIR]      (default: rules)
set -euo pipefail
cd "$(dirname "$0")/.."
rules=${1:-rules}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Operators with fewer than 3 node-test records: counted over the node tests' own files.
mkdir "$out/node_tests"
grep -L '"labelled_by": "[^"]*relabelled' "$rules"/*.json | xargs -I{} cp {} "$out/node_tests/"
few=$(.venv/bin/python tools/rule_coverage.py --few 3 --opset 17 "$out/node_tests")
rm -r "$out/node_tests"
contrib=$(.venv/bin/python -c "import json; d=json.load(open('config/ort_contrib_schemas.json'))
print(','.join(d['domain'] + '.' + s['name'] for s in d['schemas'] if s['cpu_kernel'] and not s['deprecated']))")
./build/nnfuzz infer --backend onnxruntime --probe 24 --probe-schemas config/ort_contrib_schemas.json \
  --ops "$few,$contrib" -o "$out"
.venv/bin/python - "$out" "$rules" <<'PY'
import json, os, shutil, sys
src, dst = sys.argv[1:]
copied = 0
for name in sorted(os.listdir(src)):
    with open(os.path.join(src, name)) as f:
        rules = json.load(f)
    sources = [r["source"] for p in rules["partial_operators"] for r in p["records"]]
    if any(s.startswith("debian:") or s.startswith("onnx-pip:") for s in sources):
        continue  # a node-test operator: its committed file is the node tests' own
    if os.path.exists(os.path.join(dst, name)):
        with open(os.path.join(dst, name)) as f:
            if "relabelled" not in json.load(f)["labelled_by"]:
                continue  # ONNX Runtime dropped its node-test records (NonZero: value-dependent)
    shutil.copy(os.path.join(src, name), os.path.join(dst, name))
    copied += 1
print(f"copied {copied} probe-derived rule files into {dst}")
PY
