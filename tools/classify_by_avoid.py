#!/usr/bin/env python3
"""classify_by_avoid.py - which bugs of a campaign fall under a documented avoid rule.

A campaign run with "avoid": [] (every configuration the ONNX schemas allow) finds, among
others, the configurations config/onnxruntime_avoid.json documents: no kernel, rejected, or a
known deviation. This names, per bug bundle, the first rule one of its reduced model's nodes
(bodies included) matches, or "???" for the bundles left to judge by hand:

    tools/classify_by_avoid.py CAMPAIGN [RULES.json]
"""
import glob
import json
import os
import sys

import onnx
from onnx import helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
rules = json.load(open(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, 'config', 'onnxruntime_avoid.json')))
DT = {1: 'f32', 11: 'f64', 6: 'i32', 7: 'i64', 3: 'i8', 2: 'u8', 9: 'bool'}
def types(m):
    t = {}
    for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output):
        tt = vi.type.tensor_type
        t[vi.name] = (DT.get(tt.elem_type, str(tt.elem_type)), len(tt.shape.dim))
    for init in m.graph.initializer:
        t[init.name] = (DT.get(init.data_type, str(init.data_type)), len(init.dims))
    return t
def matches(rule, node, t, opset=17):
    if node.op_type != rule['op']: return False
    if 'opsets' in rule and opset not in rule['opsets']: return False
    ins = list(node.input)
    if any(k < len(ins) and ins[k] for k in rule.get('omitted', [])): return False
    if any(k >= len(ins) or any(ins[k:]) for k in rule.get('empty', [])): return False
    if 'dtypes' in rule or 'ranks' in rule:
        cands = [rule['operand']] if 'operand' in rule else [0]
        ok = False
        for k in cands:
            if k < len(ins) and ins[k] in t:
                d, r = t[ins[k]]
                if ('dtypes' not in rule or d in rule['dtypes']) and ('ranks' not in rule or r in rule['ranks']): ok = True
        if not ok: return False
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    for name, vals in rule.get('attrs', {}).items():
        if name not in attrs: return False
        v = attrs[name]
        if isinstance(v, bytes): v = v.decode()
        if '*' in vals: continue
        if str(v) not in vals: return False
    return True
for b in sorted(glob.glob(sys.argv[1] + '/bugs/*')):
    m = onnx.load(b + '/model.onnx')
    t = types(m)
    def nodes(g):
        for n in g.node:
            yield n
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    for vi in list(a.g.input) + list(a.g.value_info) + list(a.g.output):
                        tt = vi.type.tensor_type
                        t[vi.name] = (DT.get(tt.elem_type, str(tt.elem_type)), len(tt.shape.dim))
                    for init in a.g.initializer:
                        t[init.name] = (DT.get(init.data_type, str(init.data_type)), len(init.dims))
                    yield from nodes(a.g)
    opset = next((i.version for i in m.opset_import if i.domain in ('', 'ai.onnx')), 17)
    hit = [r for n in list(nodes(m.graph)) for r in rules if matches(r, n, t, opset)]
    ops = [n.op_type for n in m.graph.node]
    first = open(b + '/README.md').read().split('\n')[0]
    print(('DOC ' if hit else '??? ') + os.path.basename(b), ops[:6], '|', (hit[0]['why'][:60] if hit else first[:110]))
