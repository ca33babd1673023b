"""Batch prediction on Beam (RunInference + RawTextModelHandler): a JSONL
or text file labelled by the pipeline gets the predictor's answers, for the
classifier and NER; bad input lines are one error naming the file."""

import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from bert_tf2 import models
from bert_tf2.beam import inference
from bert_tf2.beam import predict
from bert_tf2.common import InputError
from tests.beam import shards as shards_lib
from tests.common.models_load_docs_test import _ner_run
from tests.common.models_load_test import _classifier_run
from tests.golden import REPO_ROOT

TEXTS = ["angela merkel visited paris", "the cat sat on the mat",
         "bob met ann in paris .", "a dog ran", "ann sat on a mat in paris",
         "the cats sat", "merkel met bob", "江泽民在北京。"]
IN_PROCESS = shards_lib.BEAM_IN_PROCESS


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
  root = tmp_path_factory.mktemp("beam_predict")
  out = {}
  for task, make in (("classifier", _classifier_run), ("ner", _ner_run)):
    run_dir = make(str(root / task))
    predictor = models.load_predictor(run_dir)
    out[task] = (predictor, predictor.export(str(root / (task + "_export"))))
  return root, out


def _answers(prefix):
  lines = [l for path in sorted(glob.glob(prefix + "-*.jsonl"))
           for l in open(path, encoding="utf-8")]
  return [json.loads(l) for l in lines]


def _jsonl(path, texts, key):
  with open(path, "w", encoding="utf-8") as f:
    for i, text in enumerate(texts):
      f.write(json.dumps({"id": i, key: text}, ensure_ascii=False) + "\n")
  return path


@pytest.mark.slow  # ~20-40 s: tiny runs exported, a SavedModel per worker.
def test_classifier_answers_equal_the_predictors(runs):
  root, out = runs
  predictor, export = out["classifier"]
  source = _jsonl(str(root / "clf.jsonl"), TEXTS, "text_a")
  predict.run(export, source, str(root / "clf_out"), IN_PROCESS, "jsonl",
              batch_size=3, num_output_files=2)
  got = {r["id"]: r for r in _answers(str(root / "clf_out"))}
  assert sorted(got) == list(range(len(TEXTS)))
  expected = predictor.predict(TEXTS)
  for i, want in enumerate(expected):
    answer = got[i]["prediction"]
    assert got[i]["text_a"] == TEXTS[i]
    assert answer["label"] == want["label"]
    np.testing.assert_allclose(answer["probabilities"],
                               want["probabilities"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(answer["logits"], want["logits"], rtol=1e-5,
                               atol=1e-6)


@pytest.mark.slow  # ~20-40 s: tiny runs exported, a SavedModel per worker.
def test_ner_answers_equal_the_predictors(runs):
  root, out = runs
  predictor, export = out["ner"]
  source = root / "ner.txt"
  source.write_text("\n".join(TEXTS[:5] + [""] + TEXTS[5:]) + "\n",
                    encoding="utf-8")  # The blank line is skipped.
  predict.run(export, str(source), str(root / "ner_out"), IN_PROCESS, "text",
              batch_size=4)
  got = {r["text"]: r["prediction"] for r in _answers(str(root / "ner_out"))}
  assert sorted(got) == sorted(TEXTS)
  for text, want in zip(TEXTS, predictor.predict(TEXTS)):
    assert got[text]["words"] == want["words"]
    assert got[text]["tags"] == want["tags"]
    assert got[text]["num_words"] == len(want["words"])


def test_bad_input_lines_name_the_file(runs):
  root, out = runs
  _, export = out["classifier"]
  broken = root / "broken.jsonl"
  broken.write_text('{"text_a": "fine"}\n{"text_a": "cut\n', encoding="utf-8")
  with pytest.raises(InputError) as e:
    predict.run(export, str(broken), str(root / "b_out"), IN_PROCESS, "jsonl")
  assert ("--input: %s: a line is not JSON" % broken) in str(e.value)
  assert "\n" not in str(e.value)
  assert not glob.glob(str(root / "b_out") + "*")
  with pytest.raises(InputError, match="lacks the text 'text_a'"):
    inference.batch_inputs([{"text_a": "x"}, {"text": "y"}], ["text_a"])
  with pytest.raises(InputError, match="a plain text line gives only one"):
    inference.batch_inputs(["x"], ["text_a", "text_b"], "serving_pair")
  with pytest.raises(InputError, match="matches no file"):
    predict.run(export, str(root / "none*.jsonl"), str(root / "d_out"),
                IN_PROCESS, "jsonl")


@pytest.mark.slow  # ~20 s: a Python process importing Beam and TensorFlow.
def test_python_m_pipeline_labels_a_jsonl_file(runs):
  root, out = runs
  predictor, export = out["classifier"]
  source = _jsonl(str(root / "cli.jsonl"), TEXTS[:4], "text_a")
  command = [sys.executable, "-m", "bert_tf2.beam.predict",
             "--saved_model=" + export, "--input=" + source,
             "--input_format=jsonl", "--output=" + str(root / "cli_out"),
             "--batch_size=2", "--num_output_files=1"] + IN_PROCESS
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
  proc = subprocess.run(command, capture_output=True, text=True, env=env,
                        cwd=REPO_ROOT, timeout=300, check=False)
  assert proc.returncode == 0, proc.stderr[-3000:]
  got = {r["id"]: r["prediction"]["label"]
         for r in _answers(str(root / "cli_out"))}
  assert got == {i: a["label"]
                 for i, a in enumerate(predictor.predict(TEXTS[:4]))}
  bad = subprocess.run(command[:4] + ["--input=" + str(root / "no*.jsonl"),
                                      "--output=" + str(root / "x")],
                       capture_output=True, text=True, env=env, cwd=REPO_ROOT,
                       timeout=300, check=False)
  assert bad.returncode == 1
  assert bad.stderr.strip().splitlines()[-1] == (
      "error: --input: %r matches no file" % str(root / "no*.jsonl"))
