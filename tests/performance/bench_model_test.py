"""bench_model's arithmetic: interleaved rounds, ratios, machine header."""

from bench import bench_model
from bench import ceiling
from bench import shapes


def _r(value, name="p"):
  return {"seq_per_s": value, "gflops_per_s": 10 * value, "peer": name}


def test_ratios_are_per_round_so_a_slow_spell_cancels():
  # Round 2 is a slow spell for everyone: per-peer medians still rank the
  # peers, and the per-round ratio is unaffected by it.
  rounds = [{"ours": _r(12.0), "orig": _r(10.0), "hub": None},
            {"ours": _r(6.0), "orig": _r(5.0), "hub": _r(4.0)},
            {"ours": _r(12.0), "orig": _r(10.0), "hub": _r(8.0)}]
  s = bench_model.summarize(rounds)
  assert s["ours"]["seq_per_s"] == 12.0 and s["ours"]["ratio"] is None
  assert s["orig"]["ratio"] == s["orig"]["ratio_min"] == 1.2
  assert s["orig"]["all"] == [10.0, 5.0, 10.0]
  # A peer missing in a round counts only the rounds it ran.
  assert s["hub"]["all"] == [4.0, 8.0]
  assert s["hub"]["ratio"] == 1.5
  table = bench_model.format_table([(("train", "minilm", 128, "float32"), s)],
                                   ceiling=200.0)
  assert "1.20x [1.20-1.20]" in table
  assert "| 60% |" in table  # ours: 120 GFLOP/s of a 200 GFLOP/s ceiling
  # A bfloat16 row is a share of the bfloat16 ceiling, not of float32's.
  table = bench_model.format_table(
      [(("train", "minilm", 128, "bfloat16"), s)],
      ceiling={"float32": 200.0, "bfloat16": 400.0})
  assert "| 30% |" in table  # ours: 120 GFLOP/s of 400


def test_cpu_info_names_model_and_flags(tmp_path):
  info = tmp_path / "cpuinfo"
  info.write_text("processor\t: 0\nmodel name\t: Test CPU 9000\n"
                  "flags\t\t: fpu avx2 fma avx512f amx_bf16 sse\n")
  model, flags = bench_model.cpu_info(str(info))
  assert model == "Test CPU 9000"
  assert flags == ["avx2", "fma", "avx512f", "amx_bf16"]
  assert bench_model.cpu_info(str(tmp_path / "missing"))[0] == "unknown CPU"


def test_ceiling_chain_is_the_encoders_dense_matmuls():
  shape = shapes.SHAPES["minilm"]
  chain = ceiling.chain_shapes(shape, 128)
  # Each product feeds the next.
  assert all(a[2] == b[1] for a, b in zip(chain, chain[1:]))
  # The encoder's FLOPs less the attention scores/context products and the
  # pooler.
  expected = (shapes.encoder_flops_per_sequence(shape, 128)
              - 128 * shape["num_hidden_layers"] * 4 * 128 * 384
              - 2 * 384 * 384)
  assert ceiling.chain_flops(chain) == expected


def test_training_ceiling_counts_three_products_per_matmul():
  # The tiny shape, one short timing: what is checked is the accounting
  # (forward and training rows, 3x the FLOPs for the training pass), not
  # the speed.
  rows = ceiling.measure("tiny", seq_length=8, batch_size=2,
                         dtypes=("float32",), libraries=("tensorflow",),
                         warmup=0, repeats=1, number=1, training=True)
  assert [(r["pass"], r["xla"]) for r in rows] == [
      ("forward", False), ("forward", True),
      ("training", False), ("training", True)]
  flops = ceiling.chain_flops(ceiling.chain_shapes(shapes.SHAPES["tiny"], 16))
  for r in rows:
    factor = 3 if r["pass"] == "training" else 1
    assert abs(r["gflops_per_s"] * r["sec_median"] * 1e9
               - factor * flops) <= 1e-6 * flops
  assert ceiling.best(rows, "float32", "training") == max(
      r["gflops_per_s"] for r in rows if r["pass"] == "training")
  assert "| tensorflow | training | float32 | on |" in ceiling.format_rows(
      rows)
