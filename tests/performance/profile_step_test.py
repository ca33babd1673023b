"""bench.profile_step: its stages are the training step cut where it says."""

import argparse
import math
import sys

from bench import profile_step


def test_stages_run_and_only_the_full_step_updates_the_weights():
  args = argparse.Namespace(mode="train", config="tiny", seq_length=16,
                            batch_size=2, num_masked=3, jit_compile=0)
  stages = profile_step.build_stages(args)
  names = [name for name, _ in stages]
  assert names[0] == "forward, dropout off" and names[-1].startswith("full")
  no_dropout = stages[0][1]
  before = no_dropout()
  assert math.isfinite(before)
  for _, fn in stages[:-1]:  # forward, forward + backward: no update
    assert math.isfinite(fn())
  assert no_dropout() == before
  stages[-1][1]()  # the full step applies the optimizer
  assert no_dropout() != before


def test_options_it_cannot_honour_are_refused(capsys):
  for argv in (["--mode", "infer"], ["--device", "gpu"],
               ["--precision", "bfloat16"]):
    try:
      old, sys.argv = sys.argv, ["profile_step"] + argv
      try:
        profile_step.main()
      finally:
        sys.argv = old
    except SystemExit as e:
      assert e.code == 2
    else:
      raise AssertionError("accepted %s" % argv)
    assert argv[0] in capsys.readouterr().err
