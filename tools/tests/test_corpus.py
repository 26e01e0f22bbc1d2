"""`nnfuzz corpus`: tier 2 networks pass the ONNX checker and ONNX Runtime matches our
reference; replays with the real ONNX Runtime record results and compare with the last one."""
import sqlite3

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def test_tier2_networks_pass_the_checker_and_onnxruntime_matches(nnfuzz, tmp_path):
    db = tmp_path / "corpus.db"
    nnfuzz("corpus", "add", "--corpus", db, "--tier", 2, "--seed", 5)
    con = sqlite3.connect(db)
    rows = con.execute("SELECT e.name, f.path, f.data FROM entries e JOIN entry_files f ON f.entry = e.id "
                       "WHERE e.tier = 2").fetchall()
    nets = {}
    for name, path, data in rows:
        nets.setdefault(name, {})[path] = data
    assert len(nets) == 9
    for name, files in sorted(nets.items()):
        model = onnx.load_from_string(files["model.onnx"])
        onnx.checker.check_model(model, full_check=True)
        inputs, outputs = onnx.SequenceProto(), onnx.SequenceProto()  # entries keep the packed layout
        inputs.ParseFromString(files["test_data_set_0/inputs.pb"])
        outputs.ParseFromString(files["test_data_set_0/outputs.pb"])
        feeds = {t.name: numpy_helper.to_array(t) for t in inputs.tensor_values}
        assert list(feeds) == [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        got = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"]).run(None, feeds)
        assert len(got) == len(outputs.tensor_values)
        for g, t in zip(got, outputs.tensor_values):
            np.testing.assert_allclose(g, numpy_helper.to_array(t), rtol=1e-3, atol=1e-4, err_msg=name)


def test_replay_with_onnxruntime_compares_with_the_last_replay(nnfuzz, tmp_path):
    db = tmp_path / "corpus.db"
    nnfuzz("corpus", "add", "--corpus", db, "--tier", 2)
    first = nnfuzz("corpus", "replay", "--corpus", db, "--backends", "onnxruntime")
    assert "9 entries" in first.stdout and "0 failing" in first.stdout, first.stdout
    assert "first replay of this SUT" in first.stdout
    second = nnfuzz("corpus", "replay", "--corpus", db, "--backends", "onnxruntime")
    assert "compared with replay 1" in second.stdout, second.stdout
    con = sqlite3.connect(db)
    per_replay = con.execute("SELECT replay, COUNT(*), SUM(bug) FROM replay_results GROUP BY replay").fetchall()
    assert len(per_replay) == 2 and all(n >= 9 and bugs == 0 for _, n, bugs in per_replay)
    listing = nnfuzz("corpus", "list", "--corpus", db)
    assert "tier 2: 9 networks" in listing.stdout
    bad = nnfuzz("corpus", "replay", "--corpus", db, "--backends", "nosuchsut", check=False)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1
