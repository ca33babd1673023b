"""Hugging Face's BertForMultipleChoice on the bench.tasks_bbc multiple-choice
data, same weights (all-MiniLM-L6-v2) and recipe as run_multiple_choice.py.

A bench peer, never a test dependency: run it in the separate venv with
torch (see tools/minilm_reference_embeddings.py for how it is made):

  /work/peer_venv/bin/python bench/peer_hf_multiple_choice.py \
      --model_dir "$MINILM_DIR" --data_dir /tmp/bbc_tasks/mc \
      --max_seq_length 64 --batch_size 16 --learning_rate 1e-4 --epochs 1

Prints dev accuracy and the training time. Pairs are built as ours:
text_a = context (+ question), text_b = choice, longest-first truncation
(the tokenizer's "longest_first"). AdamW with linear warmup (10%) and decay,
weight decay 0.01, dropout 0.1 on the pooled output (BERT's recipe).
"""

import argparse
import json
import os
import time


def _read(path):
  with open(path, encoding="utf-8") as f:
    return [json.loads(l) for l in f if l.strip()]


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--model_dir", required=True)
  parser.add_argument("--data_dir", required=True)
  parser.add_argument("--max_seq_length", type=int, default=64)
  parser.add_argument("--batch_size", type=int, default=16)
  parser.add_argument("--learning_rate", type=float, default=1e-4)
  parser.add_argument("--epochs", type=float, default=1.0)
  parser.add_argument("--seed", type=int, default=0)
  args = parser.parse_args()
  import torch
  import transformers
  torch.manual_seed(args.seed)
  tok = transformers.AutoTokenizer.from_pretrained(args.model_dir)
  model = transformers.BertForMultipleChoice.from_pretrained(args.model_dir)

  def encode(rows):
    first = [r["context"] + (" " + r["question"] if r.get("question") else "")
             for r in rows for _ in r["choices"]]
    second = [c for r in rows for c in r["choices"]]
    enc = tok(first, second, truncation="longest_first", padding="max_length",
              max_length=args.max_seq_length, return_tensors="pt")
    n = len(rows[0]["choices"])
    return ({k: v.view(len(rows), n, -1) for k, v in enc.items()},
            torch.tensor([r["label"] for r in rows]))

  train = _read(os.path.join(args.data_dir, "train.jsonl"))
  dev = _read(os.path.join(args.data_dir, "dev.jsonl"))
  steps = int(len(train) / args.batch_size * args.epochs)
  optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate,
                                weight_decay=0.01, eps=1e-6)
  schedule = transformers.get_linear_schedule_with_warmup(
      optimizer, int(0.1 * steps), steps)
  g = torch.Generator().manual_seed(args.seed)
  start = time.time()
  model.train()
  order = []
  for step in range(steps):
    if len(order) < args.batch_size:
      order += torch.randperm(len(train), generator=g).tolist()
    batch, order = order[:args.batch_size], order[args.batch_size:]
    inputs, labels = encode([train[i] for i in batch])
    loss = model(**inputs, labels=labels).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    schedule.step()
    optimizer.zero_grad()
    if step % 20 == 0:
      print("step %d/%d loss %.4f" % (step, steps, float(loss.detach())), flush=True)
  train_secs = time.time() - start
  model.eval()
  right = 0
  with torch.no_grad():
    for i in range(0, len(dev), 32):
      inputs, labels = encode(dev[i:i + 32])
      right += int((model(**inputs).logits.argmax(-1) == labels).sum())
  print(json.dumps({"dev_accuracy": right / len(dev), "steps": steps,
                    "train_secs": round(train_secs, 1),
                    "torch": torch.__version__,
                    "transformers": transformers.__version__}))


if __name__ == "__main__":
  main()
