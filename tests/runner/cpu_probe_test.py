"""The bfloat16-slower warning: measured once per machine, cached, one line."""

import json

from bert_tf2.runner import cpu_probe


def _counting(values):
  calls = []

  def measure(dtype):
    calls.append(dtype)
    return values[dtype]
  return measure, calls


def test_speedup_is_measured_once_and_cached(tmp_path):
  path = str(tmp_path / "probe.json")
  measure, calls = _counting({"float32": 300.0, "bfloat16": 200.0})
  first = cpu_probe.bfloat16_speedup(measure, path=path, key="cpu A")
  again = cpu_probe.bfloat16_speedup(measure, path=path, key="cpu A")
  rounds = cpu_probe.PROBE_ROUNDS
  assert calls == ["float32", "bfloat16"] * rounds  # Interleaved.
  assert first["ratio"] == again["ratio"] == 200.0 / 300.0
  # Another machine (or TensorFlow version) is measured anew.
  cpu_probe.bfloat16_speedup(measure, path=path, key="cpu B")
  assert calls == ["float32", "bfloat16"] * rounds * 2
  with open(path) as f:
    assert set(json.load(f)) == {"cpu A", "cpu B"}


def test_damaged_cache_is_measured_again(tmp_path):
  path = tmp_path / "probe.json"
  for content in (b"", b"{not json", b"\x00\xff" * 8, b"[1, 2]",
                  b'{"cpu A": {"float32": 0, "bfloat16": "x"}}'):
    path.write_bytes(content)
    measure, calls = _counting({"float32": 100.0, "bfloat16": 150.0})
    got = cpu_probe.bfloat16_speedup(measure, path=str(path), key="cpu A")
    assert calls == ["float32", "bfloat16"] * cpu_probe.PROBE_ROUNDS, content
    assert got["ratio"] == 1.5


def test_warning_only_when_bfloat16_is_slower_on_a_cpu(monkeypatch):
  slow = lambda: {"float32": 300.0, "bfloat16": 150.0, "ratio": 0.5}
  fast = lambda: {"float32": 100.0, "bfloat16": 170.0, "ratio": 1.7}
  monkeypatch.setattr(cpu_probe, "_warned", [])
  assert cpu_probe.warn_if_bfloat16_slower("float32", slow) is None
  assert cpu_probe.warn_if_bfloat16_slower("bfloat16", fast) is None
  assert cpu_probe.warn_if_bfloat16_slower(
      "bfloat16", slow, cpu_only=lambda: False) is None
  text = cpu_probe.warn_if_bfloat16_slower("bfloat16", slow)
  assert "150 GFLOP/s against 300 for float32" in text
  assert "\n" not in text
  # Once per process.
  assert cpu_probe.warn_if_bfloat16_slower("bfloat16", slow) is None


def test_the_key_names_what_changes_the_answer():
  key = cpu_probe.machine_key(environ={})
  assert "|cores " in key and "|threads " in key
  assert cpu_probe.machine_key(environ={}) == key
  for name in cpu_probe.PROBE_ENVIRONMENT:
    other = cpu_probe.machine_key(environ={name: "1"})
    assert other != key and ("%s=1" % name) in other, name


def test_a_drift_between_rounds_hits_both_precisions_alike():
  # The host slows down 2x after the first round: the per-round ratio
  # stays 1.5, where one measure of each (before and after) read 0.75.
  rates = iter([100.0, 150.0] + [50.0, 75.0] * 4)
  got = cpu_probe.interleaved_rates(lambda dtype: next(rates), rounds=5)
  assert got["ratio"] == 1.5


def test_probe_measures_a_positive_rate():
  assert cpu_probe.measure_gflops("float32", shape=(16, 32, 16), warmup=1,
                                  repeats=1) > 0
