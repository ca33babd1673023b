"""SquadPredictor (the SQuAD text model's in-graph windows and n-best rule)
answers as run_squad.py's own Python features and decoding
(convert_examples_to_features, `postprocess.predict_example`) on the
fixture's hard contexts (accents, CJK, U+202F, many windows) and an empty
one: the same answer texts (`get_final_text`'s), scores, logits and null
score differences."""

import keras
import numpy as np
import pytest

import modeling
from bert_tf2.squad import examples as examples_lib
from bert_tf2.squad import features as features_lib
from bert_tf2.squad import postprocess
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.predictor import SquadPredictor
from tests.squad import fixture_data
import tokenization

FEATURES = ("input_ids", "input_mask", "segment_ids")

SETTINGS = dict(max_seq_length=48, doc_stride=12, max_query_length=10,
                n_best_size=5, max_answer_length=8)


def _questions():
  pairs = []
  for article in fixture_data.build(True)["data"]:
    for paragraph in article["paragraphs"]:
      for qa in paragraph["qas"]:
        pairs.append((qa["question"], paragraph["context"]))
  return pairs + [("Who?", ""), ("Where is it?", "   ")]


def _python_answers(p, pairs, vocab, version_2):
  """run_squad.py's answers: the original's features, the task model's
  logits of them, its n-best decoding (`postprocess.predict_example`)."""
  examples = [examples_lib.SquadExample(
      qas_id=str(i), question_text=q,
      doc_tokens=examples_lib.split_context(c)[0])
              for i, (q, c) in enumerate(pairs)]
  features = []
  features_lib.convert_examples_to_features(
      examples, tokenization.FullTokenizer(vocab), SETTINGS["max_seq_length"],
      SETTINGS["doc_stride"], SETTINGS["max_query_length"], False,
      features.append)
  starts, ends = p.model.task({k: np.array([getattr(f, k) for f in features])
                               for k in FEATURES}, training=False)
  answers = []
  for i, example in enumerate(examples):
    mine = [(f, postprocess.RawResult(f.unique_id, s.tolist(), e.tolist()))
            for f, s, e in zip(features, np.asarray(starts),
                               np.asarray(ends))
            if f.example_index == i]
    text, nbest, diff = postprocess.predict_example(
        example, [f for f, _ in mine], [r for _, r in mine],
        SETTINGS["n_best_size"], SETTINGS["max_answer_length"], True,
        version_2, 0.0)
    best = next((e for e in nbest if e["text"]), nbest[0])
    answers.append({"answer": text, "no_answer": version_2 and text == "",
                    "score": best["start_logit"] + best["end_logit"],
                    "start_logit": best["start_logit"],
                    "end_logit": best["end_logit"],
                    "null_score_diff": diff})
  return answers


@pytest.mark.parametrize("version_2", [False, True])
def test_answers_equal_the_originals_features(tmp_path, version_2):
  vocab = fixture_data.real_vocab_file()
  with open(vocab, encoding="utf-8") as f:
    size = sum(1 for _ in f)
  config = modeling.BertConfig(vocab_size=size, hidden_size=16,
                               num_hidden_layers=1, num_attention_heads=2,
                               intermediate_size=16,
                               max_position_embeddings=64)
  (tmp_path / "bert_config.json").write_text(config.to_json_string())
  keras.utils.set_random_seed(0)  # The same weights whatever ran before.
  model = SquadModel(config)
  model({k: np.ones([1, 8], np.int32) for k in FEATURES})
  ckpt = modeling.save_checkpoint(modeling.original_variable_names(model),
                                  str(tmp_path / "model"), 0)
  p = SquadPredictor(str(tmp_path / "bert_config.json"), ckpt, vocab,
                     version_2_with_negative=version_2, precision="float32",
                     **SETTINGS)
  pairs = _questions()
  got, want = p.predict(pairs), _python_answers(p, pairs, vocab, version_2)
  assert len(got) == len(want) == len(pairs)
  for g, w in zip(got, want):
    assert g["answer"] == w["answer"]
    assert g["no_answer"] == w["no_answer"]
    for k in ("score", "start_logit", "end_logit"):
      assert g[k] == pytest.approx(w[k], abs=1e-5), k
    if version_2:
      assert g["null_score_diff"] == pytest.approx(w["null_score_diff"],
                                                   abs=1e-5)
  # Accents and CJK answered, several windows decoded, empty contexts too.
  assert len({g["answer"] for g in got}) > 5
