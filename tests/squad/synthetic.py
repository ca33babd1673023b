"""A learnable synthetic SQuAD task for the training test (test-only).

Each context is a sequence of random filler words; an answerable context
contains "key <WORD>" and the answer is <WORD>; in SQuAD 2.0 mode some
contexts have no "key" and the question is unanswerable. A tiny BERT learns
this in a few hundred steps.
"""

import json
import os
import random

FILLER = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
          "hotel", "india", "juliet", "kilo", "lima", "mike", "november",
          "oscar", "papa", "quebec", "romeo", "sierra", "tango"]
ANSWERS = ["red", "green", "blue", "yellow", "purple", "orange", "black",
           "white", "silver", "gold"]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
QUESTION = "what is the key ?"


def write_vocab(path):
  words = SPECIAL + ["what", "is", "the", "key", "?"] + FILLER + ANSWERS
  with open(path, "w") as f:
    f.write("\n".join(words) + "\n")
  return len(words)


def build(num_questions, seed, version_2=False):
  """A SQuAD dict with `num_questions` paragraphs of one question each."""
  rng = random.Random(seed)
  paragraphs = []
  for i in range(num_questions):
    words = [rng.choice(FILLER) for _ in range(rng.randint(6, 14))]
    impossible = version_2 and rng.random() < 0.3
    qa = {"id": "q%d" % i, "question": QUESTION, "answers": []}
    if not impossible:
      answer = rng.choice(ANSWERS)
      pos = rng.randint(0, len(words))
      words[pos:pos] = ["key", answer]
      context = " ".join(words)
      start = len(" ".join(words[:pos + 1])) + 1
      assert context[start:start + len(answer)] == answer
      qa["answers"].append({"text": answer, "answer_start": start})
    else:
      context = " ".join(words)
    if version_2:
      qa["is_impossible"] = impossible
    paragraphs.append({"context": context, "qas": [qa]})
  return {"version": "2.0" if version_2 else "1.1",
          "data": [{"title": "synthetic", "paragraphs": paragraphs}]}


def write(path, num_questions, seed, version_2=False):
  with open(path, "w") as f:
    json.dump(build(num_questions, seed, version_2), f)
  return path


def write_config(path, vocab_size):
  config = {"vocab_size": vocab_size, "hidden_size": 32,
            "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 64, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0,
            "max_position_embeddings": 64, "type_vocab_size": 2,
            "initializer_range": 0.02}
  with open(path, "w") as f:
    json.dump(config, f)
  return path


def files(directory, num_train=400, num_dev=60, version_2=False):
  """Writes vocab, config, train and dev files; returns their paths."""
  vocab = os.path.join(directory, "vocab.txt")
  config = write_config(os.path.join(directory, "bert_config.json"),
                        write_vocab(vocab))
  train = write(os.path.join(directory, "train.json"), num_train, 1,
                version_2)
  dev = write(os.path.join(directory, "dev.json"), num_dev, 2, version_2)
  return vocab, config, train, dev
