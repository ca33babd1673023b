"""SquadTextModel: fit on raw (question, context) + answers, predict answer
strings equal to the pipeline's (windows -> logits -> postprocess n-best),
EM/F1. (The .keras round trip: keras_docs_test.py.)"""

import keras
import numpy as np
import pytest

import modeling
import tokenization
from bert_tf2.squad import examples as examples_lib
from bert_tf2.squad import features as features_lib
from bert_tf2.squad import postprocess
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor
from bert_tf2.squad.text_model import SquadTextModel
from tests.squad import synthetic

VOCAB = synthetic.SPECIAL + ["what", "is", "the", "key", "?"] + (
    synthetic.FILLER + synthetic.ANSWERS)
CONFIG = modeling.BertConfig(
    vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
    num_attention_heads=2, intermediate_size=64, max_position_embeddings=32)
# Windows of 8 context pieces every 4: most contexts take 2-4 windows.
SEQ, STRIDE, QUERY = 16, 4, 6


def _columns(data):
  questions, contexts, answers = [], [], []
  for paragraph in data["data"][0]["paragraphs"]:
    for qa in paragraph["qas"]:
      questions.append(qa["question"])
      contexts.append(paragraph["context"])
      answers.append(qa["answers"][0] if qa["answers"] else None)
  return questions, contexts, answers


@pytest.fixture(scope="module")
def trained():
  keras.utils.set_random_seed(0)
  model = SquadTextModel(
      SquadPreprocessor(VOCAB, max_seq_length=SEQ, doc_stride=STRIDE,
                        max_query_length=QUERY), SquadModel(CONFIG),
      n_best_size=5, max_answer_length=4)
  model.compile(optimizer=keras.optimizers.Adam(3e-3))  # run_squad's loss.
  questions, contexts, answers = _columns(synthetic.build(64, seed=0))
  history = model.fit((questions, contexts), answers, epochs=2,
                      batch_size=32, verbose=0)
  return model, history


def test_fit_trains_on_windows(trained):
  model, history = trained
  loss = history.history["loss"]
  assert loss[-1] < loss[0]
  questions, contexts, answers = _columns(synthetic.build(32, seed=1))
  logs = model.evaluate((questions, contexts), answers, return_dict=True,
                        verbose=0)
  assert np.isfinite(logs["loss"]) and logs["loss"] < loss[0]


def test_predictions_equal_the_pipelines(trained, tmp_path):
  model, _ = trained
  data = synthetic.build(24, seed=2)
  vocab_file = tmp_path / "vocab.txt"
  vocab_file.write_text("\n".join(VOCAB) + "\n")
  examples = examples_lib.examples_from_json(data["data"], False)
  tokenizer = tokenization.FullTokenizer(str(vocab_file), do_lower_case=True)
  features = []
  features_lib.convert_examples_to_features(examples, tokenizer, SEQ, STRIDE,
                                            QUERY, False, features.append)
  ids = lambda k: np.array([getattr(f, k) for f in features], np.int32)
  start, end = model.task({"input_ids": ids("input_ids"),
                           "input_mask": ids("input_mask"),
                           "segment_ids": ids("segment_ids")})
  results = [postprocess.RawResult(f.unique_id, s.tolist(), e.tolist())
             for f, s, e in zip(features, start.numpy(), end.numpy())]
  want, nbest, _ = postprocess.compute_predictions(
      examples, features, results, n_best_size=5, max_answer_length=4,
      do_lower_case=True)
  questions, contexts, answers = _columns(data)
  got = model.predict((questions, contexts), batch_size=8, verbose=0)
  assert got["answer"].tolist() == list(want.values())
  assert len(set(want.values())) > 3        # Not one answer for all.
  assert sum(got["num_windows"]) == len(features) > len(examples)
  best = [n[0] for n in nbest.values()]
  np.testing.assert_allclose(got["start_logit"],
                             [b["start_logit"] for b in best], atol=1e-5)
  np.testing.assert_allclose(got["end_logit"],
                             [b["end_logit"] for b in best], atol=1e-5)
  # Exact match / F1 of the same predictions (same batches: no retrace).
  metrics = model.answer_metrics((questions, contexts), answers, batch_size=8)
  exact = [p == a["text"] for p, a in zip(want.values(), answers)]
  assert metrics["exact_match"] == pytest.approx(100.0 * np.mean(exact))
  assert metrics["f1"] >= metrics["exact_match"]
